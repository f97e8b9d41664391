package analysis

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/benchdata"
)

// screenInsight is what the editor asks after an edit for one screen of
// 60 lines from line first: the lens places, the session's lens and the
// lenses of the phases on the screen resolved, and the screen's hints.
// calls and phase answer from a SessionTracker or a Session.
func screenInsight(t *grammar.Tree, first int, totals func() SessionTotals, phase func(line int) (Phase, bool), calls CallSource) int {
	n := len(SessionLensTitle(totals()))
	last := min(first+60, t.LineCount()-1)
	for _, pl := range LensPlaces(t) {
		if pl.Phase >= 0 && pl.Line >= first && pl.Line <= last {
			if p, ok := phase(pl.Line); ok {
				n += len(PhaseLensTitle(&p))
			}
		}
	}
	opts := InlayHintOptions{Latency: true, Gaps: true, MinGap: 5 * time.Second, Calls: calls}
	return n + len(InlayHints(t, t.Line(first).Start, t.Line(last).End, opts))
}

// BenchmarkSessionEdit is typing in a large log with the code lenses and
// inlay hints on screen: one line appended at the end (the screen is the
// last 60 lines) or one line edited in the middle (the screen is there),
// then the lenses and hints of the screen. "tracker" brings the document's
// SessionTracker up to date; "fullSession" builds the whole Session again,
// as the server did before.
func BenchmarkSessionEdit(b *testing.B) {
	for _, size := range benchdata.Sizes() {
		src := benchdata.TimedSession(b, size)
		base := grammar.Parse(src)
		NewAnalyzer(base) // the summaries, as after the first diagnostics
		mid := base.LineCount() / 2
		for _, where := range []string{"append", "middle"} {
			// edit makes the i-th edit of tree and returns the screen's first line.
			edit := func(tree *grammar.Tree, i int) (*grammar.Tree, int) {
				if where == "append" {
					at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
					line := fmt.Sprintf("o: id=toolu_%d → [ok] ts=%s\n", i, at.Format(time.RFC3339))
					tree = tree.Edit(tree.Len(), tree.Len(), []byte(line))
					return tree, max(0, tree.LineCount()-61)
				}
				l := tree.Line(mid)
				return tree.Edit(l.Content, l.Content, []byte{"xy"[i%2]}), mid - 30
			}
			for _, how := range []string{"tracker", "fullSession"} {
				b.Run(fmt.Sprintf("%s/%s/%s", where, how, benchdata.Name(size)), func(b *testing.B) {
					tree := base
					st := NewSessionTracker(tree)
					b.ReportAllocs()
					b.ResetTimer()
					for i := range b.N {
						var first int
						tree, first = edit(tree, i)
						if how == "tracker" {
							st.Update(tree)
							screenInsight(tree, first, func() SessionTotals { return st.Totals(SessionOptions{}) }, st.PhaseAt, st)
						} else {
							s := BuildSession(tree, SessionOptions{})
							screenInsight(tree, first, s.Totals, s.PhaseAt, s)
						}
					}
				})
			}
		}
	}
}

// BenchmarkSessionTrackerOpen is the first lens or hint of a document:
// the tracker made from nothing (its chunks' summaries computed on every
// core), against the whole Session; "kept-MB" is what each holds once
// made.
func BenchmarkSessionTrackerOpen(b *testing.B) {
	for _, size := range benchdata.Sizes() {
		src := benchdata.TimedSession(b, size)
		for _, how := range []string{"tracker", "fullSession"} {
			b.Run(how+"/"+benchdata.Name(size), func(b *testing.B) {
				var kept uint64
				b.ReportAllocs()
				for range b.N {
					b.StopTimer()
					t := grammar.Parse(src)
					NewAnalyzer(t)
					runtime.GC()
					var before, after runtime.MemStats
					runtime.ReadMemStats(&before)
					b.StartTimer()
					var held any
					if how == "tracker" {
						held = NewSessionTracker(t)
					} else {
						held = BuildSession(t, SessionOptions{})
					}
					b.StopTimer()
					runtime.GC()
					runtime.ReadMemStats(&after)
					kept = after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
					runtime.KeepAlive(held)
					runtime.KeepAlive(t)
					b.StartTimer()
				}
				b.ReportMetric(float64(kept)/(1<<20), "kept-MB")
			})
		}
	}
}
