package atif

import (
	"bytes"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/internal/readtest"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/convert/rlogfmt"
	"github.com/rlog-ls/rlog-ls/internal/benchdata"
)

// FuzzReadBorrowed holds the readers' reuse of a step's events (and calls
// and results) for a sink that borrows events to their reading for a
// sink that keeps them: the same events, header, report and error, for
// both ATIF and ATIF-JSONL, on every testdata input and on a generated
// session in both.
func FuzzReadBorrowed(f *testing.F) {
	for _, b := range readtest.Inputs(f, "../../testdata", "../testdata", "testdata") {
		f.Add(b)
	}
	var c model.Collector
	if err := rlogfmt.Read(bytes.NewReader(benchdata.TimedSession(f, 64<<10)), &c, &model.Report{}); err != nil {
		f.Fatal(err)
	}
	for _, write := range []func(*bytes.Buffer) error{
		func(b *bytes.Buffer) error { return Write(b, &c.Session, &model.Report{}, model.Options{}) },
		func(b *bytes.Buffer) error { return WriteJSONL(b, &c.Session, &model.Report{}, model.Options{}) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, read := range []func(*bytes.Reader, model.Sink, *model.Report) error{
			func(r *bytes.Reader, s model.Sink, rep *model.Report) error { return Read(r, s, rep) },
			func(r *bytes.Reader, s model.Sink, rep *model.Report) error { return ReadJSONL(r, s, rep) },
		} {
			readtest.SameBorrowed(t, func(s model.Sink, rep *model.Report) error { return read(bytes.NewReader(in), s, rep) })
		}
	})
}
