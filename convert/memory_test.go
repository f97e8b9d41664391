package convert_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/benchdata"
	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// heapSampler passes events on and samples the live heap every few
// events; with the collector running often (SetGCPercent below) the heap
// in use is close to what is live.
type heapSampler struct {
	model.Sink
	n    int
	peak uint64
}

func (s *heapSampler) sample() {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s.peak = max(s.peak, m.HeapAlloc)
}

func (s *heapSampler) Event(h *model.Header, e *model.Event) error {
	if s.n++; s.n%512 == 0 {
		s.sample()
	}
	return s.Sink.Event(h, e)
}

func (s *heapSampler) End(h *model.Header) error {
	s.sample()
	err := s.Sink.End(h)
	s.sample()
	return err
}

// peakHeap converts the file in from format from to format to, into out,
// and returns the highest live heap seen.
func peakHeap(t *testing.T, in string, from, to convert.Format, out io.Writer) uint64 {
	t.Helper()
	runtime.GC()
	fi, _ := convert.Lookup(from)
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep := &model.Report{}
	w, err := convert.NewWriter(out, to, rep, convert.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := &heapSampler{Sink: w}
	if err := fi.Read(bufio.NewReader(f), s, rep); err != nil {
		t.Fatalf("%s -> %s: %v", from, to, err)
	}
	return s.peak
}

// TestPeakHeapStaysConstant: converting a log of N events and one of 4N
// events, from rlog to every format and from each of those back to rlog,
// peaks at the same live heap give or take a constant: every reader and
// writer streams. A conversion that held the session, or any list that
// grows with it, would need at least the difference between the inputs
// (megabytes) more. It measures memory, not time.
func TestPeakHeapStaysConstant(t *testing.T) {
	if testing.Short() {
		t.Skip("converts 15 MB of logs to every format and back")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	dir := t.TempDir()
	sizes := []int64{3 << 20, 12 << 20}
	var logs []string
	for _, size := range sizes {
		p := filepath.Join(dir, fmt.Sprintf("%d.rlog", size))
		benchdata.WriteSession(t, p, gen.Options{Bytes: size, FindingRate: 0.01, Seed: 7})
		logs = append(logs, p)
	}
	// The allowance: a quarter more, plus 3 MB, which is what the sets of
	// ids that need the whole session take (64-bit hashes of the call ids:
	// up to 22 bytes a call, 25,000 calls in 12 MB); holding the 9 MB more
	// input in any form exceeds it.
	check := func(what string, small, large uint64) {
		t.Helper()
		if large > small+small/4+3<<20 {
			t.Errorf("%s: peak heap %.1f MB for %d MB, %.1f MB for %d MB: it grows with the input",
				what, float64(small)/(1<<20), sizes[0]>>20, float64(large)/(1<<20), sizes[1]>>20)
		} else {
			t.Logf("%s: peak heap %.1f MB, %.1f MB", what, float64(small)/(1<<20), float64(large)/(1<<20))
		}
	}
	for _, to := range convert.Formats() {
		if !to.CanWrite() {
			continue
		}
		var peaks, backPeaks [2]uint64
		for i, in := range logs {
			outPath := filepath.Join(dir, fmt.Sprintf("%d.%s", i, to.Name))
			out, err := os.Create(outPath)
			if err != nil {
				t.Fatal(err)
			}
			bw := bufio.NewWriter(out)
			peaks[i] = peakHeap(t, in, convert.Rlog, to.Name, bw)
			bw.Flush()
			out.Close()
			backPeaks[i] = peakHeap(t, outPath, to.Name, convert.Rlog, io.Discard)
		}
		check("rlog -> "+string(to.Name), peaks[0], peaks[1])
		check(string(to.Name)+" -> rlog", backPeaks[0], backPeaks[1])
	}
}
