package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/grammar"
)

// FuzzInsight feeds any text to everything session insight computes: the
// lens places and titles, the inlay hints of a range, the view's data and
// its page. Nothing may panic; a hint lies on a line of its range, hints
// come in order, the page holds exactly its own two scripts, and its data
// reads back.
func FuzzInsight(f *testing.F) {
	logs, _ := filepath.Glob("../testdata/logs/*.rlog")
	for _, p := range append(logs, "../testdata/sample.rlog") {
		if src, err := os.ReadFile(p); err == nil {
			f.Add(src, uint16(0), uint16(0xffff))
		}
	}
	for _, s := range []string{
		"t!:Read id=a → [running]\no: id=a → [ok] latency_ms=12\n",
		"o:id=a latency_ms=3\nt:x → [running] latency_ms=\n",
		"x:Explore id=s → [started] tid=t\nt!:Glob id=g → [running] tid=t\no: id=g → [ok] tid=t\nx:Explore id=s → [done] tid=t\n",
		"@phase 探索 ts=2025-01-01T00:00:00Z\nu: 😀 ts=2025-01-01T00:09:00Z\r\nu: back ts=2024-01-01T00:00:00Z\ra: x tokens_out=5\n",
		"</script><script>alert(1)</script>\n@phase </style>\n",
		// Usage the rule merges across windows and phases: a snapshot, then
		// the final count; a run without ids whose output grows.
		"@phase a\nth: s message_id=m tokens_in=9 tokens_out=5\na: r tokens_in=4 tokens_out=1\n@phase b\n" +
			"a: r tokens_in=4 tokens_out=8\na: f message_id=m tokens_in=9 tokens_out=50\na: g message_id=m tokens_out=20\n",
	} {
		f.Add([]byte("---\nformat: rlog/1\nid: f\nrepo_sha: abcdef\n---\n"+s), uint16(3), uint16(40))
	}
	f.Fuzz(func(t *testing.T, src []byte, from, to uint16) {
		tree := grammar.Parse(src)
		s := analysis.SessionOf(tree)
		for _, pl := range analysis.LensPlaces(tree) {
			if pl.Phase >= len(s.Phases) {
				t.Fatalf("lens for phase %d of %d", pl.Phase, len(s.Phases))
			}
			if pl.Phase >= 0 && s.Phases[pl.Phase].Line != pl.Line {
				t.Fatalf("lens on line %d for the phase on line %d", pl.Line, s.Phases[pl.Phase].Line)
			}
			if pl.Phase >= 0 {
				_ = analysis.PhaseLensTitle(&s.Phases[pl.Phase])
			}
		}
		_ = analysis.SessionLensTitle(s.Totals())
		start, end := min(int(from), tree.Len()), min(int(to), tree.Len())
		hints := analysis.InlayHints(tree, start, end, analysis.InlayHintOptions{Latency: true, Gaps: true, MinGap: time.Second})
		for i, h := range hints {
			if i > 0 && h.Offset < hints[i-1].Offset {
				t.Fatalf("hints out of order: %+v", hints)
			}
			l := tree.Line(tree.LineAt(h.Offset))
			if l.Start < tree.Line(tree.LineAt(start)).Start || l.Start >= max(end, start+1) || h.Offset < l.Start || h.Offset > l.End {
				t.Fatalf("hint %+v outside lines of [%d, %d)", h, start, end)
			}
		}
		findings, more := analysis.NewAnalyzer(tree).FindingsUpTo(analysis.Config{}, 50)
		d := Build(tree, s, findings, more, Options{Name: "f.rlog"})
		if n := len(d.Calls.Line); n != len(s.Calls) || len(d.Calls.Lane) != n || len(d.Calls.Group) != n {
			t.Fatalf("%d calls laid out of %d", n, len(s.Calls))
		}
		for i := 1; i < len(d.Times.MS); i++ {
			if d.Times.MS[i] < d.Times.MS[i-1] || d.Times.Line[i] <= d.Times.Line[i-1] {
				t.Fatalf("times go back: %v %v", d.Times.Line, d.Times.MS)
			}
		}
		page, err := HTML(d, "fuzz")
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(page, []byte("</script>")); n != 2 {
			t.Fatalf("%d script ends in the page", n)
		}
		i := bytes.Index(page, []byte(`id="rlog-data">`)) + len(`id="rlog-data">`)
		j := bytes.Index(page[i:], []byte("</script>"))
		var back Data
		if err := json.Unmarshal(page[i:i+j], &back); err != nil || back.Summary.ToolCalls != len(s.Calls) {
			t.Fatalf("the data does not read back: %v", err)
		}
		// The page's data is json.Marshal's, and a log read a window at a
		// time has the same.
		if want, err := json.Marshal(d); err != nil || !bytes.Equal(bytes.TrimSuffix(page[i:i+j], []byte("\n")), want) {
			t.Fatalf("the page's data is not json.Marshal's: %v", err)
		}
		all, omitted := analysis.NewAnalyzer(tree).FindingsUpTo(analysis.Config{}, DefaultMaxFindings)
		whole := Build(tree, s, all, omitted, Options{Name: "f.rlog"})
		if streamed := streamData(t, bytes.NewReader(src), int(from%512), Options{Name: "f.rlog"}, analysis.SessionOptions{}); !reflect.DeepEqual(streamed, whole) {
			t.Fatal("the data of the log read a window at a time differs")
		}
	})
}
