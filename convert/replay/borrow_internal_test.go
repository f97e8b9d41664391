package replay

import (
	"bytes"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/internal/readtest"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/convert/rlogfmt"
	"github.com/rlog-ls/rlog-ls/internal/benchdata"
)

// FuzzReadBorrowed holds Read's reuse of its event (eventRoom) for a sink
// that borrows events to its reading for a sink that keeps them: the same
// events, header, report and error, on every testdata input and on a
// generated session as the writer writes it.
func FuzzReadBorrowed(f *testing.F) {
	for _, b := range readtest.Inputs(f, "../../testdata", "../testdata") {
		f.Add(b)
	}
	var c model.Collector
	if err := rlogfmt.Read(bytes.NewReader(benchdata.TimedSession(f, 64<<10)), &c, &model.Report{}); err != nil {
		f.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, &c.Session, &model.Report{}, model.Options{}); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, in []byte) {
		readtest.SameBorrowed(t, func(s model.Sink, rep *model.Report) error { return Read(bytes.NewReader(in), s, rep) })
	})
}
