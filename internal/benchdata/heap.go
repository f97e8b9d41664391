package benchdata

import (
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// HeapSizes are the sizes of the two sessions of a peak-heap test: one,
// and four times as much, so that holding the difference in any form
// stands out from the constant a streaming path needs.
var HeapSizes = [2]int64{3 << 20, 12 << 20}

// StartHeapTest starts a peak-heap test: it skips t under -short (skip
// says what the test would read), runs the collector often until t ends,
// so that the heap in use is close to what is live, and writes a
// generated session of each of HeapSizes (o with its Bytes set) to t's
// temporary folder, named by its size ("3145728.rlog").
func StartHeapTest(t *testing.T, skip string, o gen.Options) (logs [2]string) {
	t.Helper()
	if testing.Short() {
		t.Skip(skip)
	}
	old := debug.SetGCPercent(10)
	t.Cleanup(func() { debug.SetGCPercent(old) })
	dir := t.TempDir()
	for i, size := range HeapSizes {
		o.Bytes = size
		logs[i] = filepath.Join(dir, fmt.Sprintf("%d.rlog", size))
		WriteSession(t, logs[i], o)
	}
	return logs
}

// HeapPeak is the highest live heap its samples saw.
type HeapPeak struct{ Peak uint64 }

// Sample reads the heap in use, which is close to what is live while the
// collector runs often (StartHeapTest).
func (h *HeapPeak) Sample() {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	h.Peak = max(h.Peak, m.HeapAlloc)
}

// Reset collects what the last measure left and starts a new one.
func (h *HeapPeak) Reset() {
	runtime.GC()
	h.Peak = 0
}

// CheckHeapStaysConstant fails t when the peak heap of the larger session
// (peaks[1]) is more than the smaller's and a quarter, plus 3 MB: room for
// the sets a streaming path keeps of the whole session (its call and
// message ids: 25,000 calls in 12 MB), where holding the 9 MB more input
// in any form exceeds it. what names the measure in the message.
func CheckHeapStaysConstant(t testing.TB, what string, peaks [2]uint64) {
	t.Helper()
	mb := func(n uint64) float64 { return float64(n) / (1 << 20) }
	if peaks[1] > peaks[0]+peaks[0]/4+3<<20 {
		t.Errorf("%s: peak heap %.1f MB for %d MB, %.1f MB for %d MB: it grows with the input",
			what, mb(peaks[0]), HeapSizes[0]>>20, mb(peaks[1]), HeapSizes[1]>>20)
	} else {
		t.Logf("%s: peak heap %.1f MB, %.1f MB", what, mb(peaks[0]), mb(peaks[1]))
	}
}
