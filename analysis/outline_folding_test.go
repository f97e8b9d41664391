package analysis

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/edittest"
)

// outlinePieces are the lines the outline and the folds are made of, in
// the shapes that reach their corners: subagents started and ended (or
// not) under reused ids, sessions restarted, comments and continuations
// across chunk boundaries, lone CRs, names that need summarizing.
var outlinePieces = []string{
	"", "\n", "\n", "\r\n", "\r", "@phase explore\n", "@phase fix\r\n", "@start id=s1\n", "@end\n", "@start\n",
	"u: find the bug 😀 漢字\n", "u:   lots   of\tspace  and a long question that goes on and on past sixty characters for sure\n",
	"u: \xff\xfe bad bytes\n", "t!:Read id=a file_path=src/a.rs → [running]\n", "t!:Bash id=b cmd=\"go test ./...\" → [running]\n",
	"t:Grep id=c pattern=toUpperCase → [ok]\n", "m:issues.get id=d url=http://x/<1>&2 → [ok]\n", "t!:Edit positional arg → [running]\n",
	"t!:Task id=e desc=\"a  b\" → [running]\n", "o: id=a → [ok] fine\n", "x:Explore id=s → [started] summary=\"find it\"\n",
	"x:Explore id=s → [done]\n", "x:Plan id=p → [started]\n", "x:Plan id=p → [error]\n", "x:Plan id=q desc=d → [started]\n",
	"q: which one?\n", "# a comment\n", "# another\n", "  continued\n", "  continued\n", "\tmore\n", "a: answer\n",
	"th: thinking\n", "wat\n", "@phase\n", "t!: id=z → [running]\n",
}

// randomOutlineDoc builds a document of n random pieces, most with a
// header.
func randomOutlineDoc(r *rand.Rand, n int) []byte {
	var b strings.Builder
	switch r.IntN(4) {
	case 0:
	case 1:
		b.WriteString("---\nid: <s&1>\nagent: a\nmodel: m\n---\n")
	default:
		b.WriteString("---\nformat: rlog/1\nid: x\nbranch: main\n---\n")
	}
	for range n {
		b.WriteString(outlinePieces[r.IntN(len(outlinePieces))])
	}
	return []byte(b.String())
}

func countSymbols(syms []Symbol) int {
	n := len(syms)
	for _, s := range syms {
		n += countSymbols(s.Children)
	}
	return n
}

// checkOutlineAndFolds compares Outline and FoldsUpTo with the reference,
// at caps and limits around every interesting count, twice (the second
// time from the chunk memos).
func checkOutlineAndFolds(t *testing.T, tr *grammar.Tree, context string) {
	t.Helper()
	total := countSymbols(refOutline(tr, 1<<30)) - 1
	for _, max := range []int{0, 1, 2, 3, 5, 10, 50, 200, total - 1, total, total + 5} {
		if max < 0 {
			continue
		}
		want := refOutline(tr, max)
		for pass := range 2 {
			if got := Outline(tr, max); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: Outline(max %d), pass %d:\n got  %+v\n want %+v", context, max, pass, got, want)
			}
		}
	}
	all := refFoldsUpTo(tr, -1)
	for _, limit := range []int{-1, 0, 1, 2, 3, 5, 10, 50, 200, len(all) - 1, len(all), len(all) + 5} {
		if limit < -1 {
			continue
		}
		want := refFoldsUpTo(tr, limit)
		for pass := range 2 {
			// No folds is no folds, nil or empty (with a limit of 0, which
			// one depends on the line the scan stops at).
			if got := FoldsUpTo(tr, limit); !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
				t.Fatalf("%s: FoldsUpTo(%d), pass %d:\n got  %v\n want %v", context, limit, pass, got, want)
			}
		}
	}
}

// The outline and the folds equal what the reference computes by reading
// every line, whatever the chunk size, the cap, or the edits that made the
// tree (chunks an edit did not touch keep their memos).
func TestOutlineAndFoldsEqualReference(t *testing.T) {
	for _, limits := range [][2]int{{0, 0}, {8, 400}, {4, 200}, {2, 40}} {
		t.Run(fmt.Sprintf("chunks=%v", limits), func(t *testing.T) {
			if limits[0] > 0 {
				t.Cleanup(grammar.SetChunkLimitsForTest(limits[0], limits[1]))
			}
			r := rand.New(rand.NewPCG(uint64(limits[0]), 17))
			docs := [][]byte{generatedSession(t, 30<<10, 2), generatedSession(t, 8<<10, 4), {}, []byte("---\n"), []byte("u: x"),
				[]byte("---\nid: x\n---"), []byte("---\nid: x\n---\n"), []byte("x\n---\nid: x\n---\r\n# c\n# d")}
			for range 40 {
				docs = append(docs, randomOutlineDoc(r, 10+r.IntN(150)))
			}
			for di, src := range docs {
				tr := grammar.Parse(bytes.Clone(src))
				checkOutlineAndFolds(t, tr, fmt.Sprintf("doc %d", di))
				if di%4 != 0 {
					continue
				}
				for i := range 25 {
					s, e, ins := edittest.Random(r, len(src), outlinePieces)
					tr = tr.Edit(s, e, bytes.Clone(ins))
					src = edittest.Splice(src, s, e, ins)
					checkOutlineAndFolds(t, tr, fmt.Sprintf("doc %d edit %d [%d,%d) %q", di, i, s, e, ins))
				}
			}
		})
	}
}

// Past the outline entries whose chunks are memoized, the lines are read
// each time; the answers are the same. The folds of such a log (more than
// 10,000) come from the fold lines memoized on every chunk.
func TestOutlineAndFoldsPastTheMemos(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nid: x\n---\n@start\n")
	for i := range 7500 {
		fmt.Fprintf(&b, "u: q%d\n  c\n# a\n# b\nt!:Read id=c%d file_path=f%d → [running]\n", i, i, i)
		if i%1000 == 0 {
			b.WriteString("@phase p\nx:E id=s → [started]\n")
		}
	}
	b.WriteString("x:E id=s → [done]\n@end\n")
	tr := grammar.Parse([]byte(b.String()))
	if n := len(refFoldsUpTo(tr, -1)); n <= 10000 {
		t.Fatalf("only %d folds", n)
	}
	if n := countSymbols(refOutline(tr, 1<<30)); n <= memoizedOutlineEntries {
		t.Fatalf("only %d entries", n)
	}
	checkOutlineAndFolds(t, tr, "past the memos")
}

func FuzzOutlineAndFolds(f *testing.F) {
	f.Add(randomOutlineDoc(rand.New(rand.NewPCG(1, 1)), 60), uint16(40), uint16(3), []byte("@phase p\n"), true)
	f.Add([]byte("---\nid: x\n---\nx:E id=s → [started]\nu: a\n  c\n# c\n# d\nx:E id=s → [done]\n"), uint16(20), uint16(0), []byte("\r"), false)
	fuzzOneEdit(f, func(t *testing.T, tree, edited *grammar.Tree, _ []byte, _ *rand.Rand) {
		checkOutlineAndFolds(t, tree, "fuzz")
		checkOutlineAndFolds(t, edited, "fuzz edit")
	})
}

// The summaries of names keep their exact text: whitespace runs made one
// space, invalid bytes U+FFFD, and the cut at n characters.
func TestSummarizeEqualsReference(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	pieces := []string{"a", "word", "a_much_longer_word_of_ascii", " ", "  ", "\t", "\n", "\v", "\f", "\r", "\u00a0", "\u0085", "\u2003",
		"é", "😀", "漢字", "\xff", "\xe2\x86", "…", "\ufffd", "\x00", "\x7f"}
	for range 20000 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		for _, n := range []int{0, 1, 2, 3, 5, 10, 40, 50, 60} {
			if got, want := summarize([]byte(b.String()), n), refSummarize([]byte(b.String()), n); got != want {
				t.Fatalf("summarize(%q, %d) = %q, want %q", b.String(), n, got, want)
			}
		}
	}
}

// findSymbol returns the first symbol named name, depth first.
func findSymbol(syms []Symbol, name string) (Symbol, bool) {
	for _, s := range syms {
		if s.Name == name {
			return s, true
		}
		if c, ok := findSymbol(s.Children, name); ok {
			return c, true
		}
	}
	return Symbol{}, false
}

// A phase, and a turn, end at the last non-empty line before the line that
// opens the next one, as the phase's fold does: siblings never share a
// line (issue 18: `explore` ran to the end of `@phase review`'s line).
func TestOutlineSiblingsDoNotShareALine(t *testing.T) {
	src := "---\nformat: rlog/1\nid: s\n---\n@start\n@phase explore\nu: look around\nt!:Read id=c1 file_path=a → [running]\no: id=c1 → [ok]\n\nu: and then?\na: this\n\n@phase review\nu: done?\n"
	tr := grammar.Parse([]byte(src))
	syms := Outline(tr, 0)
	want := map[string][2]int{ // start and end line of each range
		"explore": {5, 11}, "look around": {6, 8}, "and then?": {10, 11}, "review": {13, 14}, "done?": {14, 14},
	}
	for name, lines := range want {
		s, ok := findSymbol(syms, name)
		if !ok {
			t.Fatalf("no symbol %q", name)
		}
		if got := [2]int{lineOf(src, s.Span.Start), lineOf(src, s.Span.End)}; got != lines {
			t.Errorf("%s: lines %v, want %v", name, got, lines)
		}
	}
	for _, f := range Folds(tr) {
		if f.StartLine == 5 && f.EndLine != want["explore"][1] {
			t.Errorf("the phase folds to line %d, its outline entry ends on line %d", f.EndLine, want["explore"][1])
		}
	}
	// Hover on the phase's name gives the same lines (1-based).
	if h, ok := Hover(tr, strings.Index(src, "explore")); !ok || !strings.Contains(h.Markdown, "lines 6–12,") {
		t.Errorf("hover on the phase: %q", h.Markdown)
	}
}

// A capped outline is the same whether the tree was edited or parsed
// afresh: where the last entry shown ends does not depend on where chunks
// end (issue 18: with the cap at the end of a chunk, the last turn ran to
// the end of the document after an edit, and to the next turn's line on a
// fresh parse).
func TestCappedOutlineDoesNotDependOnChunks(t *testing.T) {
	for _, c := range []struct {
		blank, turns, max int
	}{
		{122, 10, 6},
		{48, 2100, 0}, // the default cap
	} {
		doc := func(blank int) []byte {
			var b strings.Builder
			b.WriteString(strings.Repeat("\n", blank))
			for i := range c.turns {
				fmt.Fprintf(&b, "u: q%d\n", i)
			}
			return []byte(b.String())
		}
		for blank := c.blank - 3; blank <= c.blank+3; blank++ {
			src := doc(blank)
			edited := grammar.Parse(bytes.Clone(src)).Edit(0, 1, nil) // delete line 0
			fresh := grammar.Parse(bytes.Clone(src[1:]))
			if got, want := Outline(edited, c.max), Outline(fresh, c.max); !reflect.DeepEqual(got, want) {
				t.Fatalf("%d blank lines, %d turns, cap %d: the edited tree's outline differs from a fresh parse's\n got  %+v\n want %+v",
					blank, c.turns, c.max, lastShown(got), lastShown(want))
			}
		}
		for blank := c.blank - 3; blank <= c.blank+3; blank++ {
			src := doc(blank)
			fresh := grammar.Parse(bytes.Clone(src[1:]))
			got := Outline(fresh, c.max)
			if !reflect.DeepEqual(got, refOutline(fresh, c.max)) {
				t.Fatalf("%d blank lines: the outline differs from the reference", blank)
			}
			// The last turn shown ends on its own line.
			s := lastShown(got)
			if lineOf(string(src[1:]), s.Span.End) != s.Line {
				t.Fatalf("%d blank lines: the last turn shown, %q on line %d, ends on line %d", blank, s.Name, s.Line, lineOf(string(src[1:]), s.Span.End))
			}
		}
	}
}

// lastShown is the last entry of an outline before its "more" entry.
func lastShown(syms []Symbol) Symbol {
	cs := syms[0].Children
	for i := len(cs) - 1; i >= 0; i-- {
		if cs[i].Kind != MoreSymbol {
			return cs[i]
		}
	}
	return Symbol{}
}
