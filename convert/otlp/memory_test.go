package otlp_test

import (
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/otlp"
	"github.com/rlog-ls/rlog-ls/internal/benchdata"
	"github.com/rlog-ls/rlog-ls/internal/gen"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// peakExport exports the session at path as `export --otlp -o` does, with
// content, and returns the highest live heap seen between requests and
// its span count.
func peakExport(t testing.TB, path string) (uint64, int) {
	return peakExportWith(t, path, otlp.Options{IncludeContent: true})
}

func peakExportWith(t testing.TB, path string, opts otlp.Options) (uint64, int) {
	runtime.GC()
	var peak uint64
	sample := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapAlloc)
	}
	b := &otlp.Batch{Send: func(td *tracepb.TracesData, _ int) error {
		sample()
		j, err := otlp.MarshalJSON(td)
		io.Discard.Write(j)
		return err
	}}
	x := &otlp.Exporter{Options: opts, Out: b}
	if _, err := x.File(path); err != nil {
		t.Fatal(err)
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	sample()
	return peak, x.Stats.Spans
}

// TestExportHeapStaysConstant: exporting a session of 3 MB and one of
// 12 MB peaks at the same live heap give or take a constant: the export
// holds a request's spans, the calls waiting for results and the
// responses waiting for their calls, never the session. It measures
// memory, not time.
func TestExportHeapStaysConstant(t *testing.T) {
	if testing.Short() {
		t.Skip("exports 15 MB of generated sessions")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	dir := t.TempDir()
	var peaks [2]uint64
	sizes := []int64{3 << 20, 12 << 20}
	for i, size := range sizes {
		p := filepath.Join(dir, fmt.Sprintf("%d.rlog", size))
		benchdata.WriteSession(t, p, gen.Options{Bytes: size, Timed: true, Streamed: true, Seed: 7})
		var spans int
		peaks[i], spans = peakExport(t, p)
		t.Logf("%d MB: %d spans, peak heap %.1f MB", size>>20, spans, float64(peaks[i])/(1<<20))
		if spans < 1000 {
			t.Fatalf("only %d spans from %d MB", spans, size>>20)
		}
	}
	// A quarter more plus 3 MB: holding the 9 MB more input in any form
	// exceeds it.
	if peaks[1] > peaks[0]+peaks[0]/4+3<<20 {
		t.Errorf("peak heap %.1f MB for 3 MB, %.1f MB for 12 MB: it grows with the session",
			float64(peaks[0])/(1<<20), float64(peaks[1])/(1<<20))
	}
}

func BenchmarkExport(b *testing.B) {
	p := filepath.Join(b.TempDir(), "s.rlog")
	benchdata.WriteSession(b, p, gen.Options{Bytes: 4 << 20, Timed: true, Streamed: true, Seed: 7})
	for _, c := range []struct {
		name string
		opts otlp.Options
	}{{"default", otlp.Options{}}, {"include-content", otlp.Options{IncludeContent: true}}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(4 << 20)
			for b.Loop() {
				peakExportWith(b, p, c.opts)
			}
		})
	}
}
