package prophet

import (
	"bytes"
	"os"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/internal/readtest"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/convert/rlogfmt"
	"github.com/rlog-ls/rlog-ls/internal/benchdata"
)

// FuzzReadInPlace: reading a message in place gives what reading copies
// of every value gives, on a mini-prophet trajectory and on one this
// package wrote from an rlog session (with each message's rests).
func FuzzReadInPlace(f *testing.F) {
	if own, err := os.ReadFile("../testdata/fixtures/trajectory.prophet.json"); err == nil {
		f.Add(own)
	} else {
		f.Fatal(err)
	}
	var session model.Collector
	rlog := benchdata.TimedSession(f, 32<<10)
	if err := rlogfmt.Read(bytes.NewReader(rlog), &session, &model.Report{}); err != nil {
		f.Fatal(err)
	}
	var out bytes.Buffer
	if err := Write(&out, &session.Session, &model.Report{}, model.Options{}); err != nil {
		f.Fatal(err)
	}
	f.Add(out.Bytes())
	f.Fuzz(func(t *testing.T, doc []byte) {
		read := func(inPlace bool) (model.Session, string, error) {
			readInPlace = inPlace
			defer func() { readInPlace = true }()
			var c model.Collector
			var r model.Report
			err := readInto(doc, &c, &r)
			return c.Session, r.Text(), err
		}
		readtest.Same(t, read, func(s model.Session) []model.Event { return s.Events })
	})
}

// readInto reads doc into c.
func readInto(doc []byte, c *model.Collector, rep *model.Report) error {
	return Read(bytes.NewReader(doc), c, rep)
}
