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
			if got := FoldsUpTo(tr, limit); !reflect.DeepEqual(got, want) {
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

// Past the entries and folds whose chunks are memoized, the lines are
// read each time; the answers are the same.
func TestOutlineAndFoldsPastTheMemos(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nid: x\n---\n@start\n")
	for i := range 3 * memoizedFolds / 4 {
		fmt.Fprintf(&b, "u: q%d\n  c\n# a\n# b\nt!:Read id=c%d file_path=f%d → [running]\n", i, i, i)
		if i%1000 == 0 {
			b.WriteString("@phase p\nx:E id=s → [started]\n")
		}
	}
	b.WriteString("x:E id=s → [done]\n@end\n")
	tr := grammar.Parse([]byte(b.String()))
	if n := len(refFoldsUpTo(tr, -1)); n <= memoizedFolds {
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
	f.Fuzz(func(t *testing.T, src []byte, at, length uint16, ins []byte, tiny bool) {
		if tiny {
			t.Cleanup(grammar.SetChunkLimitsForTest(2, 40))
		}
		tr := grammar.Parse(bytes.Clone(src))
		checkOutlineAndFolds(t, tr, "fuzz")
		s := int(at) % (len(src) + 1)
		e := min(len(src), s+int(length))
		checkOutlineAndFolds(t, tr.Edit(s, e, bytes.Clone(ins)), "fuzz edit")
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
