package trajectory

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/convert/rlogfmt"
	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// FuzzReadInPlace: reading a record in place (its values are the input's
// bytes, and what the events keep is copied) gives what reading copies of
// every value gives.
func FuzzReadInPlace(f *testing.F) {
	var src bytes.Buffer
	if err := gen.Write(&src, gen.Options{Bytes: 24 << 10, FindingRate: 0.1, Seed: 3, Timed: true}); err != nil {
		f.Fatal(err)
	}
	var c model.Collector
	if err := rlogfmt.Read(bytes.NewReader(src.Bytes()), &c, &model.Report{}); err != nil {
		f.Fatal(err)
	}
	var written bytes.Buffer
	if err := Write(&written, &c.Session, &model.Report{}, model.Options{}); err != nil {
		f.Fatal(err)
	}
	f.Add(written.Bytes())
	f.Fuzz(func(t *testing.T, in []byte) {
		read := func(inPlace bool) (model.Session, string, error) {
			readInPlace = inPlace
			defer func() { readInPlace = true }()
			var c model.Collector
			var rep model.Report
			err := Read(bytes.NewReader(in), &c, &rep)
			return c.Session, rep.Text(), err
		}
		got, gotRep, gotErr := read(true)
		want, wantRep, wantErr := read(false)
		if (gotErr == nil) != (wantErr == nil) || gotRep != wantRep {
			t.Fatalf("error %v, report\n%s\ncopying: error %v, report\n%s", gotErr, gotRep, wantErr, wantRep)
		}
		if !reflect.DeepEqual(got, want) {
			for i := range min(len(got.Events), len(want.Events)) {
				if !reflect.DeepEqual(got.Events[i], want.Events[i]) {
					t.Fatalf("event %d\n in place %+v\n copying %+v", i, got.Events[i], want.Events[i])
				}
			}
			t.Fatal("sessions differ (header or number of events)")
		}
	})
}
