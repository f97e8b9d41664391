package jsonnum

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

var floats = []float64{0, math.Copysign(0, -1), 1, 2, 26, -3, 2.5, 0.1, 1e20, 1e21, 123456789e15, 1e-6, 1e-7, 9.99e-7,
	-3e-10, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64, float64(math.MaxUint32)}

func TestAppendFloatIsEncodingJSON(t *testing.T) {
	for _, f := range floats {
		assertJSON(t, f)
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := AppendFloat(nil, f); err == nil {
			t.Errorf("%v encoded", f)
		}
	}
}

func FuzzAppendFloat(f *testing.F) {
	for _, v := range floats {
		f.Add(v)
	}
	f.Fuzz(assertJSON)
}

func assertJSON(t *testing.T, f float64) {
	want, err := json.Marshal(f)
	got, gotErr := AppendFloat(nil, f)
	if (err != nil) != (gotErr != nil) || err == nil && !bytes.Equal(got, want) {
		t.Fatalf("%v: %s (%v), encoding/json %s (%v)", f, got, gotErr, want, err)
	}
}
