package analysis

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/benchdata"
)

// BenchmarkColdParseAndCheck is opening a file: parse it and run every rule.
func BenchmarkColdParseAndCheck(b *testing.B) {
	benchColdPath(b, func(src []byte) { Check(grammar.Parse(src), Config{}) })
}

// BenchmarkStreamCheck is `rlog-ls check FILE`: the same work as
// BenchmarkColdParseAndCheck, read a window at a time (grammar.Stream)
// and checked as it is read (StreamChecker), holding a few windows, each
// read into the buffer of one checked before it.
func BenchmarkStreamCheck(b *testing.B) {
	benchColdPath(b, func(src []byte) {
		sc := NewStreamChecker(Config{}, -1, func(_ *grammar.Tree, f Finding) Finding { return f })
		s := grammar.NewStream(bytes.NewReader(src), grammar.StreamOptions{})
		if err := s.Each(func(w *grammar.Tree) { sc.Window(w); s.Recycle(w) }); err != nil {
			b.Fatal(err)
		}
		sc.End()
	})
}

// benchColdPath runs check, the work on a whole session, at every size,
// with MB/s and x-floor.
func benchColdPath(b *testing.B, check func(src []byte)) {
	for _, size := range benchdata.Sizes() {
		b.Run(benchdata.Name(size), func(b *testing.B) {
			src := benchdata.Session(b, size)
			floor := benchdata.Floor(src)
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				check(src)
			}
			b.StopTimer()
			benchdata.ReportVsFloor(b, floor)
		})
	}
}

// BenchmarkParse and BenchmarkCheck split the cold path in two.
func BenchmarkParse(b *testing.B) {
	src := benchdata.Session(b, 10<<20)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for range b.N {
		grammar.Parse(src)
	}
}

func BenchmarkCheck(b *testing.B) {
	benchWhole(b, func(t *grammar.Tree) { Check(t, Config{}) })
}

// benchWhole measures fn on the tree of a generated 10 MB session, its
// bytes the benchmark's.
func benchWhole(b *testing.B, fn func(t *grammar.Tree)) {
	src := benchdata.Session(b, 10<<20)
	t := grammar.Parse(src)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		fn(t)
	}
}

// BenchmarkEditOneLine is typing in a large open document: replace one
// line's text, reparse what the edit touched, and bring the findings up to
// date, as many as the server publishes (rlog.diagnostics.maxPerDocument,
// 1,000 by default). It should not depend on the document's size.
func BenchmarkEditOneLine(b *testing.B) {
	for _, size := range benchdata.Sizes() {
		b.Run(benchdata.Name(size), func(b *testing.B) {
			src := benchdata.Session(b, size)
			tree := grammar.Parse(src)
			a := NewAnalyzer(tree)
			mid := tree.Line(tree.LineCount() / 2)
			edits := [][]byte{[]byte("a: typing in the middle of a large session"), []byte("a: typing in the middle of a large session!")}
			start, end := mid.Start, mid.End
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				text := edits[i%2]
				tree = tree.Edit(start, end, text)
				end = start + len(text)
				a.Update(tree)
				a.FindingsUpTo(Config{}, publishedFindings)
			}
		})
	}
}

// publishedFindings is the server's default cap on diagnostics.
const publishedFindings = 1000

// BenchmarkPaste is pasting 10,000 lines into a large document.
func BenchmarkPaste(b *testing.B) {
	paste := benchdata.Session(b, 1<<20)
	paste = paste[bytes.IndexByte(paste, '@'):] // the body of a 1 MB session: about 10,000 lines
	for _, size := range benchdata.Sizes() {
		b.Run(benchdata.Name(size), func(b *testing.B) {
			src := benchdata.Session(b, size)
			base := grammar.Parse(src)
			a := NewAnalyzer(base)
			at := base.Line(base.LineCount() / 2).Start
			b.SetBytes(int64(len(paste)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				tree := base
				if i%2 == 0 {
					tree = base.Edit(at, at, paste)
				}
				a.Update(tree)
				a.FindingsUpTo(Config{}, publishedFindings)
			}
		})
	}
}

// BenchmarkQueries measures the analysis behind each editor request on a
// large document whose summaries exist (as after its first diagnostics).
func BenchmarkQueries(b *testing.B) {
	for _, size := range benchdata.Sizes() {
		src := benchdata.Session(b, size)
		t := grammar.Parse(src)
		NewAnalyzer(t)
		var obs, tokensAt, tsAt int
		for l := range t.LinesFrom(t.LineCount() / 2) {
			if l.Kind == grammar.Observation && l.ID.Valid() && obs == 0 {
				obs = l.ID.Start + 1
			}
			if l.TS.Valid() && tsAt == 0 {
				tsAt = l.TS.Start + 1
			}
			if i := bytes.Index(t.Text(l), []byte("tokens_in=")); i >= 0 && tokensAt == 0 {
				tokensAt = l.Start + i + 1
			}
			if obs > 0 && tsAt > 0 && tokensAt > 0 {
				break
			}
		}
		for _, q := range []struct {
			name string
			run  func()
		}{
			{"hover", func() { Hover(t, obs) }},
			{"hoverTokens", func() { Hover(t, tokensAt) }},
			{"hoverTS", func() { Hover(t, tsAt) }},
			{"definition", func() { Definition(t, obs) }},
			{"folding", func() { Folds(t) }},
			{"folding5000", func() { FoldsUpTo(t, 5000) }},
			{"outline", func() { Outline(t, DefaultOutlineItems) }},
		} {
			b.Run(q.name+"/"+benchdata.Name(size), func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					q.run()
				}
			})
		}
	}
}

// BenchmarkMemoryHeld reports what an open document holds (text, tree,
// summaries and analyzer) as a multiple of its size: at most 2 is the goal.
// The document is opened once before it is measured: what the process
// makes once and keeps for every document (gitleaks' expressions, each
// compiled the first time its keyword turns up: about 5 MB when all are)
// is not the document's, and counted it made the first size measured
// look 0.5 times larger at 10 MB.
func BenchmarkMemoryHeld(b *testing.B) {
	for _, size := range benchdata.Sizes() {
		b.Run(benchdata.Name(size), func(b *testing.B) {
			src := benchdata.Session(b, size)
			runtime.KeepAlive(NewAnalyzer(grammar.Parse(bytes.Clone(src))))
			var ratio float64
			for range b.N {
				text := bytes.Clone(src)
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				t := grammar.Parse(text)
				a := NewAnalyzer(t)
				runtime.GC()
				runtime.ReadMemStats(&after)
				ratio = float64(after.HeapAlloc-before.HeapAlloc+uint64(len(text))) / float64(len(text))
				runtime.KeepAlive(a)
			}
			b.ReportMetric(ratio, "x-size")
		})
	}
}

// BenchmarkByteLoopCeiling is not rlog-ls code: it is the fastest Go loop
// that looks at every byte of a session (one table lookup per byte, a
// branch that is almost never taken). Code that visits every byte cannot
// be faster; the line scanner does not (it jumps between the bytes that
// matter with bytes.IndexByte), the secret scan still does.
func BenchmarkByteLoopCeiling(b *testing.B) {
	src := benchdata.Session(b, 10<<20)
	var table [256]bool
	table[0] = true
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		n := 0
		for _, c := range src {
			if table[c] {
				n++
			}
		}
		byteLoopSink = n
	}
}

var byteLoopSink int

// BenchmarkSession is `rlog-ls stats` on a parsed log (and what the
// session view builds once per version of a document).
func BenchmarkSession(b *testing.B) {
	benchWhole(b, func(t *grammar.Tree) { BuildSession(t, SessionOptions{}) })
}

// BenchmarkInsight measures what the code lenses and inlay hints compute:
// the lens places (each codeLens request), the whole session (the session
// view's; BenchmarkSessionEdit has what an edit costs the lenses and
// hints), and one screen of hints (60 lines in the middle, the session
// known), on logs whose calls are timed.
func BenchmarkInsight(b *testing.B) {
	for _, size := range benchdata.Sizes() {
		src := benchdata.TimedSession(b, size)
		t := grammar.Parse(src)
		NewAnalyzer(t) // the summaries, as after the first diagnostics
		SessionOf(t)
		mid := t.LineCount() / 2
		from, to := t.Line(mid).Start, t.Line(mid+60).Start
		opts := InlayHintOptions{Latency: true, Gaps: true, MinGap: 5 * time.Second}
		if len(InlayHints(t, from, to, opts)) == 0 {
			b.Fatal("no hints on the screen")
		}
		for _, q := range []struct {
			name string
			run  func()
		}{
			{"lensPlaces", func() { LensPlaces(t) }},
			{"session", func() { BuildSession(t, SessionOptions{}) }},
			{"hintsOneScreen", func() { InlayHints(t, from, to, opts) }},
		} {
			b.Run(q.name+"/"+benchdata.Name(size), func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					q.run()
				}
			})
		}
	}
}

// BenchmarkIDIndex is the StreamChecker's table of call ids at the size a
// generated 100 MB session gives it (209,295 ids): each id numbered once
// when it is first seen (a chunk mostly holds a call's start and its
// result), and one in sixteen again a few calls later.
func BenchmarkIDIndex(b *testing.B) {
	const n = 209_295
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("toolu_01%016x", uint64(i)*0x9E3779B97F4A7C15)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		var ix idIndex
		for i, id := range ids {
			idNumber(&ix, id)
			if i%16 == 15 {
				idNumber(&ix, ids[i-3])
			}
		}
	}
}
