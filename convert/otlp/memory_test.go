package otlp_test

import (
	"io"
	"path/filepath"
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
	var h benchdata.HeapPeak
	h.Reset()
	b := &otlp.Batch{Send: func(td *tracepb.TracesData, _ int) error {
		h.Sample()
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
	h.Sample()
	return h.Peak, x.Stats.Spans
}

// TestExportHeapStaysConstant: exporting a session of 3 MB and one of
// 12 MB peaks at the same live heap give or take a constant: the export
// holds a request's spans, the calls waiting for results and the
// responses waiting for their calls, never the session. It measures
// memory, not time.
func TestExportHeapStaysConstant(t *testing.T) {
	logs := benchdata.StartHeapTest(t, "exports 15 MB of generated sessions", gen.Options{Timed: true, Streamed: true, Seed: 7})
	var peaks [2]uint64
	for i, p := range logs {
		var spans int
		peaks[i], spans = peakExport(t, p)
		if spans < 1000 {
			t.Fatalf("only %d spans from %d MB", spans, benchdata.HeapSizes[i]>>20)
		}
		t.Logf("%d MB: %d spans", benchdata.HeapSizes[i]>>20, spans)
	}
	benchdata.CheckHeapStaysConstant(t, "export", peaks)
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
