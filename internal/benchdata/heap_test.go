package benchdata

import "testing"

// failRecorder is a testing.TB that notes an error instead of failing.
type failRecorder struct {
	testing.TB
	failed bool
}

func (r *failRecorder) Helper()               {}
func (r *failRecorder) Errorf(string, ...any) { r.failed = true }
func (r *failRecorder) Logf(string, ...any)   {}

// TestCheckHeapStaysConstant: the allowance is a quarter of the smaller
// peak and 3 MB, no more.
func TestCheckHeapStaysConstant(t *testing.T) {
	for _, c := range []struct {
		peaks [2]uint64
		fails bool
	}{
		{[2]uint64{4 << 20, 4 << 20}, false},
		{[2]uint64{4 << 20, 2 << 20}, false},
		{[2]uint64{4 << 20, 4<<20 + 1<<20 + 3<<20}, false},
		{[2]uint64{4 << 20, 4<<20 + 1<<20 + 3<<20 + 1}, true},
		{[2]uint64{4 << 20, 13 << 20}, true},
	} {
		r := &failRecorder{TB: t}
		CheckHeapStaysConstant(r, "test", c.peaks)
		if r.failed != c.fails {
			t.Errorf("%v: failed %v, want %v", c.peaks, r.failed, c.fails)
		}
	}
}
