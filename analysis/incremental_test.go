package analysis

import (
	"bytes"
	"fmt"
	"github.com/rlog-ls/rlog-ls/internal/edittest"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// editPieces exercise what the relational rules depend on: call ids
// started, completed and referred to, steps, lifecycle events, the header.
var editPieces = []string{
	"", "\n", "\r\n", "t!:Read id=a → [running]\n", "t!:Read id=b → [running]\n", "o: id=a → [ok]\n",
	"o: id=b → [ok]\n", "t~:Bash id=a [1/2]\n", "t:Read id=c → [ok]\n", "x:Explore id=b → [started]\n",
	"id=", "a", "b", "step=1 ", "step=9 ", "@start\n", "@end\n", "---\n", "format: rlog/1\n", "wat\n",
	"ts=bad ", "é😀", "→ ", "-> ", "@blob sha256=ab ", "[REDACTED] ", "\x00", "\xff", "  cont\n", "@bogus\n",
}

func assertSameFindings(t *testing.T, a *Analyzer, src []byte, context string) {
	t.Helper()
	cfg := Config{}
	got := a.Findings(cfg)
	want := Check(grammar.Parse(bytes.Clone(src)), cfg)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: incremental findings differ from a full analysis\n got  %v\n want %v", context, summarizeFindings(got), summarizeFindings(want))
	}
}

func summarizeFindings(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "\n   %d %s %v %q %v", f.Line+1, f.Code, f.Span, f.Message, f.Related)
	}
	return b.String()
}

func generatedSession(t *testing.T, size int64, seed uint64) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := gen.Write(&buf, gen.Options{Bytes: size, FindingRate: 0.05, Seed: seed}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestAnalyzerEqualsFullAnalysisAfterEdits(t *testing.T) {
	for _, tiny := range []bool{false, true} {
		t.Run(fmt.Sprintf("tinyChunks=%v", tiny), func(t *testing.T) {
			if tiny {
				t.Cleanup(grammar.SetChunkLimitsForTest(4, 200))
			}
			r := rand.New(rand.NewPCG(7, 11))
			for _, base := range [][]byte{generatedSession(t, 40<<10, 3), []byte(okHeader + "t!:Read id=a\no: id=a\n"), {}} {
				src := bytes.Clone(base)
				tree := grammar.Parse(bytes.Clone(src))
				a := NewAnalyzer(tree)
				assertSameFindings(t, a, src, "initial")
				editsOneByOne(r, tree, src, editPieces, func(edit string, tree *grammar.Tree, src []byte) {
					a.Update(tree)
					assertSameFindings(t, a, src, edit)
				})
			}
		})
	}
}

// editsOneByOne makes 300 random edits of tree (whose text is src) from
// pieces, one at a time, and gives update each edit's version and the edit.
func editsOneByOne(r *rand.Rand, tree *grammar.Tree, src []byte, pieces []string, update func(edit string, tree *grammar.Tree, src []byte)) {
	for i := range 300 {
		s, e, ins := edittest.Random(r, len(src), pieces)
		tree = tree.Edit(s, e, bytes.Clone(ins))
		src = edittest.Splice(src, s, e, ins)
		update(fmt.Sprintf("edit %d [%d,%d) %q", i, s, e, ins), tree, src)
	}
}

// Between two updates a document may take several edits (an editor's
// didChange with many changes, typing during the debounce), and a late
// update may bring the analyzer back to an older version: then the trees
// are compared, not the edit's own record.
func TestAnalyzerAcrossSeveralEditsAndBack(t *testing.T) {
	t.Cleanup(grammar.SetChunkLimitsForTest(4, 200))
	r := rand.New(rand.NewPCG(5, 9))
	src := generatedSession(t, 30<<10, 4)
	tree := grammar.Parse(bytes.Clone(src))
	a := NewAnalyzer(tree)
	editsAndBack(r, tree, src, editPieces, func(i int, tree *grammar.Tree, src []byte) {
		a.Update(tree)
		assertSameFindings(t, a, src, fmt.Sprintf("update %d", i))
	})
}

// editsAndBack makes 200 rounds of up to four random edits of tree (whose
// text is src) from pieces, and gives update each round's version, or
// every seventh round one of the versions so far (a late update for an
// older version).
func editsAndBack(r *rand.Rand, tree *grammar.Tree, src []byte, pieces []string, update func(i int, tree *grammar.Tree, src []byte)) {
	type version struct {
		tree *grammar.Tree
		src  []byte
	}
	var history []version
	for i := range 200 {
		for range r.IntN(5) {
			s, e, ins := edittest.Random(r, len(src), pieces)
			tree = tree.Edit(s, e, bytes.Clone(ins))
			src = edittest.Splice(src, s, e, ins)
		}
		history = append(history, version{tree, src})
		v := history[len(history)-1]
		if i%7 == 6 {
			v = history[r.IntN(len(history))]
		}
		update(i, v.tree, v.src)
	}
}

// An analyzer can also jump between unrelated trees.
func TestAnalyzerAcrossUnrelatedTrees(t *testing.T) {
	a := NewAnalyzer(grammar.Parse(generatedSession(t, 20<<10, 1)))
	for seed := range uint64(5) {
		src := generatedSession(t, 10<<10, seed+10)
		a.Update(grammar.Parse(bytes.Clone(src)))
		assertSameFindings(t, a, src, fmt.Sprintf("tree %d", seed))
	}
}

func FuzzAnalyzerEdits(f *testing.F) {
	f.Add([]byte(okHeader+"t!:Read id=a\no: id=a\n@start\n"), uint16(60), uint16(5), []byte("o: id=zz\n"), true)
	f.Add([]byte(okHeader+"t!:R id=x\nt!:R id=x\nstep=3 step=1\n"), uint16(70), uint16(10), []byte("t!:R id=x\n"), false)
	fuzzOneEdit(f, func(t *testing.T, tree, edited *grammar.Tree, src []byte, _ *rand.Rand) {
		a := NewAnalyzer(tree)
		a.Update(edited)
		assertSameFindings(t, a, src, "fuzz")
	})
}

// fuzzOneEdit fuzzes follow, which follows tree to edited (src its text)
// and checks it: the fuzz input is a document, one edit of it (at, length,
// the text inserted) and whether chunks are tiny; r is seeded from the
// edit.
func fuzzOneEdit(f *testing.F, follow func(t *testing.T, tree, edited *grammar.Tree, src []byte, r *rand.Rand)) {
	f.Fuzz(func(t *testing.T, src []byte, at, length uint16, ins []byte, tiny bool) {
		if tiny {
			t.Cleanup(grammar.SetChunkLimitsForTest(2, 40))
		}
		tree := grammar.Parse(bytes.Clone(src))
		s := int(at) % (len(src) + 1)
		e := min(len(src), s+int(length))
		follow(t, tree, tree.Edit(s, e, bytes.Clone(ins)), edittest.Splice(src, s, e, ins), rand.New(rand.NewPCG(uint64(at), uint64(length))))
	})
}

// A capped list is the head of the full list, and what it leaves out is
// counted exactly, with and without disabled codes.
func TestFindingsUpTo(t *testing.T) {
	var buf bytes.Buffer
	if err := gen.Write(&buf, gen.Options{Bytes: 1 << 20, FindingRate: 0.9, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	a := NewAnalyzer(grammar.Parse(buf.Bytes()))
	noW002, unknown := DisableCodes([]string{"W002", "S001"})
	if unknown != nil {
		t.Fatal(unknown)
	}
	for _, cfg := range []Config{{}, noW002} {
		all := a.Findings(cfg)
		if len(all) < 100 {
			t.Fatalf("only %d findings: the test needs a noisy session", len(all))
		}
		for _, limit := range []int{0, 1, 7, len(all) / 2, len(all) - 1, len(all), len(all) + 5} {
			got, more := a.FindingsUpTo(cfg, limit)
			want := all[:min(limit, len(all))]
			if !reflect.DeepEqual(got, want) || more != len(all)-len(want) {
				t.Errorf("limit %d (disabled %v): %d findings and %d more, want %d and %d",
					limit, cfg.Disabled, len(got), more, len(want), len(all)-len(want))
			}
		}
	}
}

// FindingsFrom is Findings without the findings before the line, on a
// document that grows by appended lines (what watch does), with small
// chunks and pages so that whole pages are skipped.
func TestFindingsFromEqualsFilteredFindings(t *testing.T) {
	t.Cleanup(grammar.SetChunkLimitsForTest(4, 200))
	src := generatedSession(t, 600<<10, 5)
	r := rand.New(rand.NewPCG(9, 2))
	tree := grammar.Parse(bytes.Clone(src[:len(src)/3]))
	a := NewAnalyzer(tree)
	cfg, _ := DisableCodes([]string{"S001"})
	for off := len(src) / 3; ; {
		for range 5 {
			from := r.IntN(tree.LineCount() + 2)
			var want []Finding
			for _, f := range a.Findings(cfg) {
				if f.Line >= from {
					want = append(want, f)
				}
			}
			if got := a.FindingsFrom(cfg, from); (len(got) > 0 || len(want) > 0) && !reflect.DeepEqual(got, want) {
				t.Fatalf("from line %d of %d:\n got  %v\n want %v", from, tree.LineCount(), summarizeFindings(got), summarizeFindings(want))
			}
		}
		if off == len(src) {
			break
		}
		next := min(len(src), off+r.IntN(30000))
		if nl := bytes.LastIndexByte(src[off:next], '\n'); nl >= 0 && next < len(src) {
			next = off + nl + 1
		}
		tree = tree.Edit(tree.Len(), tree.Len(), bytes.Clone(src[off:next]))
		a.Update(tree)
		off = next
	}
}

// What is computed from the chunk that holds the header is memoized too,
// under the number of its lines that are not body lines: a request does not
// read that chunk again (with a long first line, it read a megabyte each
// time), and when an edit elsewhere moves the end of the header the chunk's
// results follow.
func TestHeaderChunkIsMemoized(t *testing.T) {
	src := []byte("---\nformat: rlog/1\nid: s\nrepo_sha: abc1234\nu: a\nt!:Read id=c1 → [running]\n")
	tr := grammar.Parse(bytes.Clone(src))
	sum1, sum2 := summaryOf(tr, 0), summaryOf(tr, 0)
	entries1, entries2 := chunkOutline(tr, 0, true), chunkOutline(tr, 0, true)
	folds1, folds2 := chunkFoldLinesOf(tr, 0), chunkFoldLinesOf(tr, 0)
	if sum1 != sum2 || &entries1[0] != &entries2[0] || folds1 != folds2 {
		t.Fatal("the header chunk's summary, outline entries or fold lines were computed twice")
	}
	// The header is unclosed: it ends at the first body line, so u: a is in
	// the body. Closing it after u: a moves that line into the header.
	before := summaryOf(tr, 0).outlineItems
	closed := tr.Edit(len(src), len(src), []byte("---\n"))
	if closed.Region() == tr.Region() {
		t.Fatalf("the edit did not move the header's end: %+v", closed.Region())
	}
	if got, want := summaryOf(closed, 0).outlineItems, summarizeChunk(closed, 0).outlineItems; got != want || got == before {
		t.Fatalf("after the header moved: %d outline items, want %d (before %d)", got, want, before)
	}
}
