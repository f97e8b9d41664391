package trajectory

import (
	"bytes"
	"os"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/internal/readtest"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/convert/rlogfmt"
	"github.com/rlog-ls/rlog-ls/internal/benchdata"
)

// FuzzReadInPlace: reading a step in place (its values are the input's
// bytes; what the event keeps is copied) gives what reading copies of
// every value gives, on an autopilot trajectory and on one written from
// an rlog session (its steps' rests are applied: in place, from the
// step's index, as ApplyRestIn reads them; from copies, which the index
// does not hold, by scanning them, as ApplyRest does).
func FuzzReadInPlace(f *testing.F) {
	own, err := os.ReadFile("../testdata/fixtures/trajectory.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(own)
	var c model.Collector
	var written bytes.Buffer
	if rlogfmt.Read(bytes.NewReader(benchdata.TimedSession(f, 32<<10)), &c, &model.Report{}) != nil || Write(&written, &c.Session, &model.Report{}, model.Options{}) != nil {
		f.Fatal("no session written from rlog")
	}
	f.Add(written.Bytes())
	f.Fuzz(func(t *testing.T, in []byte) {
		readtest.Same(t, func(inPlace bool) (model.Session, string, error) {
			readInPlace = inPlace
			defer func() { readInPlace = true }()
			var got model.Collector
			var rep model.Report
			err := Read(bytes.NewReader(in), &got, &rep)
			return got.Session, rep.Text(), err
		}, func(s model.Session) []model.Event { return s.Events })
	})
}
