package convert_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/benchdata"
	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// heapSampler passes events on and samples the live heap every few
// events.
type heapSampler struct {
	model.Sink
	n int
	benchdata.HeapPeak
}

func (s *heapSampler) Event(h *model.Header, e *model.Event) error {
	if s.n++; s.n%512 == 0 {
		s.Sample()
	}
	return s.Sink.Event(h, e)
}

func (s *heapSampler) End(h *model.Header) error {
	s.Sample()
	err := s.Sink.End(h)
	s.Sample()
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
	return s.Peak
}

// TestPeakHeapStaysConstant: converting a log of N events and one of 4N
// events, from rlog to every format and from each of those back to rlog,
// peaks at the same live heap give or take a constant: every reader and
// writer streams. A conversion that held the session, or any list that
// grows with it, would need at least the difference between the inputs
// (megabytes) more. It measures memory, not time.
func TestPeakHeapStaysConstant(t *testing.T) {
	logs := benchdata.StartHeapTest(t, "converts 15 MB of logs to every format and back", gen.Options{FindingRate: 0.01, Seed: 7})
	dir := t.TempDir()
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
		// The sets of ids that need the whole session are 64-bit hashes of
		// the call ids: up to 22 bytes a call.
		benchdata.CheckHeapStaysConstant(t, "rlog -> "+string(to.Name), peaks)
		benchdata.CheckHeapStaysConstant(t, string(to.Name)+" -> rlog", backPeaks)
	}
}
