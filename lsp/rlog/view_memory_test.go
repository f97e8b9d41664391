package rlog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/internal/gen"
	"github.com/rlog-ls/rlog-ls/lsp"
)

// generatedTranscript writes a Claude Code transcript of about size bytes
// (a generated session converted to claude) into dir.
func generatedTranscript(t testing.TB, dir string, size int64) string {
	t.Helper()
	var log bytes.Buffer
	// A session's rlog is about 30% of its transcript's size.
	if err := gen.Write(&log, gen.Options{Bytes: size * 3 / 10, Seed: 3, Timed: true}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "3f1c9a2e-0000-4000-8000-000000000000.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := convert.Convert(bytes.NewReader(log.Bytes()), convert.Rlog, convert.Claude, f, convert.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSessionViewHeap: the view of a 100 MB transcript (10 MB with -short
// or -race) is made by streaming the transcript, never held whole: while
// the server converts it and encodes its answer, its heap peaks at the
// view's text and that text encoded (at most three and a half times the
// text); once the view is open and its lines joined to the transcript, the
// server keeps what any open log of that size keeps (about twice its text)
// and the transcript's index (at most a tenth of its size).
func TestSessionViewHeap(t *testing.T) {
	size := int64(100 << 20)
	if raceEnabled || testing.Short() {
		size = 10 << 20
	}
	dir := t.TempDir()
	path := generatedTranscript(t, dir, size)
	info, _ := os.Stat(path)
	c, published := startLeanPublishing(t, dir)
	// What the server does for the request, measured apart from the
	// client reading the answer: the conversion and the encoded result.
	// The heap sampled is what is held plus the garbage not collected
	// yet. At GOGC 100 the garbage may grow to as much as was held at the
	// last collection, and how much of it is there at the peak depends on
	// when the collections fall, which the machine's load moves: the peak
	// was 2.6 to 3.4 times the view run to run beside a CPU hog, against
	// the bound of 3.5. At GOGC 10 the garbage is at most about a tenth of
	// what is held, and the peak sampled is what the server holds while it
	// makes the view (2.4 times it, in each of three runs beside the hog).
	gogc := debug.SetGCPercent(10)
	var peak uint64
	base := heapAfterGC()
	stop, sampled := make(chan struct{}), sync.WaitGroup{}
	sampled.Add(1)
	go func() { // the heap, sampled while the view is made
		defer sampled.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	start := time.Now()
	res, err := newViews().view(context.Background(), nil, &sessionParams{TextDocument: protocol.TextDocumentIdentifier{URI: fileURI(path)}})
	took := time.Since(start)
	close(stop)
	sampled.Wait()
	debug.SetGCPercent(gogc)
	if err != nil {
		t.Fatal(err)
	}
	encoded := len(res.(lsp.EncodedResult))
	res = nil
	grewPeak := int64(peak) - int64(base)

	before := heapAfterGC()
	raw := c.call("1", MethodSessionView, map[string]any{"textDocument": map[string]any{"uri": fileURI(path)}})
	var v sessionView
	if err := json.Unmarshal(raw, &v); err != nil || v.Text == "" {
		t.Fatalf("no view: %v %.300s", err, raw)
	}
	raw = nil
	view := int64(len(v.Text))
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": v.URI, "languageId": "rlog", "version": 1, "text": v.Text}})
	select {
	case <-published:
	case <-time.After(2 * time.Minute): // a guard against a hang, not a timing
		t.Fatal("no diagnostics")
	}
	uri := v.URI
	v = sessionView{}
	// A hover joins the view to the transcript.
	c.call("2", "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 30, "character": 3}})
	kept := int64(heapAfterGC()) - int64(before)
	mb := func(n int64) float64 { return float64(n) / (1 << 20) }
	t.Logf("%.0f MB transcript, %.1f MB view (%.1f MB encoded), made in %v: heap peak +%.1f MB while made (%.1f× the view), kept +%.1f MB once open and joined (%.2f× the view)",
		mb(info.Size()), mb(view), mb(int64(encoded)), took.Round(time.Millisecond), mb(grewPeak), float64(grewPeak)/float64(view), mb(kept), float64(kept)/float64(view))
	// Beyond these, a fixed cost: the conversion's lookahead (4 MB), the
	// rules the first analysis loads, the validator the conversion
	// pipeline checks its output with as it streams.
	const fixed = 10 << 20
	if 2*grewPeak > 7*view+2*fixed {
		t.Errorf("making a %d-byte view of a %d-byte transcript took %d bytes of heap", view, info.Size(), grewPeak)
	}
	if 2*kept > 5*view+2*(info.Size()/10+fixed) {
		t.Errorf("an open view keeps %d bytes for %d of text", kept, view)
	}
}

// BenchmarkSessionView makes the view of a generated Claude Code transcript
// of 10 and 100 MB, as rlog/sessionView does: the conversion (the
// transcript read twice, once for the header's totals) and the encoded
// answer. MB/s are of the transcript.
func BenchmarkSessionView(b *testing.B) {
	for _, size := range []int64{10 << 20, 100 << 20} {
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			path := generatedTranscript(b, b.TempDir(), size)
			info, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			vs := newViews()
			params := &sessionParams{TextDocument: protocol.TextDocumentIdentifier{URI: fileURI(path)}}
			b.SetBytes(info.Size())
			b.ResetTimer()
			for b.Loop() {
				if _, err := vs.view(context.Background(), nil, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkViewEdits finds what changed in the 23 MB view of a 100 MB
// transcript when the session grew by one turn: the comparison a followed
// view costs on top of its conversion. MB/s are of the view.
func BenchmarkViewEdits(b *testing.B) {
	var log bytes.Buffer
	if err := gen.Write(&log, gen.Options{Bytes: 23 << 20, Seed: 3, Timed: true}); err != nil {
		b.Fatal(err)
	}
	old := log.Bytes()
	// The header's totals change, and a turn comes at the end.
	grown := append(bytes.Replace(old[:len(old):len(old)], []byte("\nversion: 0.1.0\n"), []byte("\nversion: 0.1.0\ntokens_total_in: 12\n"), 1),
		"a: one more turn\n"...)
	t := Parse(old).Tree
	b.SetBytes(int64(len(old)))
	for b.Loop() {
		if e := viewEdits(t, grown); len(e) != 2 {
			b.Fatalf("%d edits", len(e))
		}
	}
}
