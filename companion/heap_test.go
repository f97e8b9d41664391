package companion

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// writeCompanion writes an autopilot JSONL companion of about size bytes
// (and its log beside it, .rlog).
func writeCompanion(tb testing.TB, path string, size int64) {
	log, err := os.Create(strings.TrimSuffix(path, ".jsonl") + ".rlog")
	if err != nil {
		tb.Fatal(err)
	}
	defer log.Close()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := gen.WritePair(log, f, size, 1); err != nil {
		tb.Fatal(err)
	}
}

func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestIndexHeap: the index of a 100 MB companion adds at most a tenth of
// the file's size to the heap (-short: 10 MB).
func TestIndexHeap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.jsonl")
	writeCompanion(t, path, heapTestSize())
	ix := indexWithinATenth(t, path)
	if ix.BadLines != 0 || ix.SessionID == "" {
		t.Fatalf("%d bad lines, session %q", ix.BadLines, ix.SessionID)
	}
}

// heapTestSize is the size of the heap tests' files: 100 MB, 10 MB under
// -short.
func heapTestSize() int64 {
	if testing.Short() {
		return 10 << 20
	}
	return 100 << 20
}

// indexWithinATenth indexes the file at path and fails when the index
// holds more than a tenth of its size.
func indexWithinATenth(t *testing.T, path string) *Index {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	before := liveHeap()
	ix, err := Build(path)
	if err != nil {
		t.Fatal(err)
	}
	grew := int64(liveHeap()) - int64(before)
	t.Logf("%d MB %s, %d records (%d bytes of JSON each): the index holds %.1f MB, %.1f%% of the file",
		info.Size()>>20, ix.Format, ix.Len(), info.Size()/int64(max(ix.Len(), 1)), float64(grew)/(1<<20), 100*float64(grew)/float64(info.Size()))
	if grew > info.Size()/10 {
		t.Errorf("the index of a %d-byte file holds %d bytes, more than a tenth of it", info.Size(), grew)
	}
	runtime.KeepAlive(ix)
	return ix
}

// BenchmarkIndex indexes a 100 MB companion; heap-B/file-B is the live
// heap the index keeps per byte of the file.
func BenchmarkIndex(b *testing.B) {
	path, size := benchFile(b, "big.jsonl", writeCompanion)
	var held uint64
	for range b.N {
		before := liveHeap()
		ix, err := Build(path)
		if err != nil {
			b.Fatal(err)
		}
		held = liveHeap() - before
		runtime.KeepAlive(ix)
	}
	b.ReportMetric(float64(held)/float64(size), "heap-B/file-B")
}

// TestGeneratedPairJoins: the generator's pair is one session whose every
// line joins, so the benchmarks measure a full join.
func TestGeneratedPairJoins(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.jsonl")
	writeCompanion(t, path, 1<<20)
	tr, s := openPair(t, strings.TrimSuffix(path, ".jsonl")+".rlog")
	p := Join(tr, s)
	body := 0
	for l := range tr.Body() {
		if l.Kind != grammar.Empty && !(l.Kind == grammar.Lifecycle && strings.HasPrefix(string(tr.Text(l)), "@start")) {
			body++
		}
	}
	if p.Joined() != body || len(p.Findings()) != 0 || body < 500 {
		t.Fatalf("%d of %d lines joined; findings %v", p.Joined(), body, p.Findings())
	}
}

// writeRollout writes a Codex CLI rollout of about size bytes: the
// recorded shell scenario's session_meta, then its turn again and again.
func writeRollout(tb testing.TB, path string, size int64) {
	src, err := os.ReadFile("../testdata/agents/" + codexShell)
	if err != nil {
		tb.Fatal(err)
	}
	lines := strings.SplitAfter(string(src), "\n")
	turn := strings.Join(lines[1:], "")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(lines[0])
	for n := int64(len(lines[0])); n < size; n += int64(len(turn)) {
		w.WriteString(turn)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
}

// TestRolloutIndexHeap: a Codex CLI rollout, indexed through its reader,
// keeps at most a tenth of its size in its index too (100 MB; -short:
// 10 MB).
func TestRolloutIndexHeap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	writeRollout(t, path, heapTestSize())
	ix := indexWithinATenth(t, path)
	if ix.Format != convert.Codex || ix.Len() < 1000 || ix.BadLines != 0 {
		t.Fatalf("%s, %d records, %d bad lines", ix.Format, ix.Len(), ix.BadLines)
	}
}

// BenchmarkIndexRollout indexes a 100 MB Codex CLI rollout through its
// reader.
func BenchmarkIndexRollout(b *testing.B) {
	path, _ := benchFile(b, "rollout.jsonl", writeRollout)
	for range b.N {
		if _, err := Build(path); err != nil {
			b.Fatal(err)
		}
	}
}

// benchFile writes a 100 MB file named name with write, for a benchmark
// that reads it: its bytes are the benchmark's, and the timer starts after
// it.
func benchFile(b *testing.B, name string, write func(tb testing.TB, path string, size int64)) (path string, size int64) {
	path = filepath.Join(b.TempDir(), name)
	write(b, path, 100<<20)
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(info.Size())
	b.ResetTimer()
	return path, info.Size()
}
