package grammar

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rlog-ls/rlog-ls/internal/edittest"
)

// checkDiff checks that d describes old and nt exactly: outside its ranges
// the two trees hold the same pages and chunks, in order, and the ranges'
// ends agree with each other.
func checkDiff(t *testing.T, old, nt *Tree, d Diff, what string) {
	t.Helper()
	if d.OldPages[0] != d.NewPages[0] || old.PageCount()-d.OldPages[1] != nt.PageCount()-d.NewPages[1] ||
		d.OldChunks[0] != d.NewChunks[0] || old.ChunkCount()-d.OldChunks[1] != nt.ChunkCount()-d.NewChunks[1] {
		t.Fatalf("%s: %+v does not fit %d/%d pages, %d/%d chunks", what, d, old.PageCount(), nt.PageCount(), old.ChunkCount(), nt.ChunkCount())
	}
	for p := range d.NewPages[0] {
		if nt.pages[p] != old.pages[p] {
			t.Fatalf("%s: page %d is said to be shared and is not", what, p)
		}
	}
	for p := d.NewPages[1]; p < nt.PageCount(); p++ {
		if nt.pages[p] != old.pages[p-d.NewPages[1]+d.OldPages[1]] {
			t.Fatalf("%s: page %d is said to be shared and is not", what, p)
		}
	}
	for c := range d.NewChunks[0] {
		if nt.chunkIndexed(c) != old.chunkIndexed(c) {
			t.Fatalf("%s: chunk %d is said to be shared and is not", what, c)
		}
	}
	for c := d.NewChunks[1]; c < nt.ChunkCount(); c++ {
		if nt.chunkIndexed(c) != old.chunkIndexed(c-d.NewChunks[1]+d.OldChunks[1]) {
			t.Fatalf("%s: chunk %d is said to be shared and is not", what, c)
		}
	}
}

// What an edit says it replaced is what comparing the trees finds, and it
// is exact; over several edits, and backwards, the comparison is used.
func TestDiffFrom(t *testing.T) {
	withTinyChunks(t)
	r := rand.New(rand.NewPCG(3, 4))
	src := generated(3000)
	first := Parse(bytes.Clone(src))
	tr := first
	for i := range 300 {
		s, e, ins := edittest.Random(r, len(src), editPieces)
		nt := tr.Edit(s, e, bytes.Clone(ins))
		src = edittest.Splice(src, s, e, ins)
		what := fmt.Sprintf("edit %d [%d,%d) %q", i, s, e, ins)
		said, found := nt.DiffFrom(tr), nt.diffByIdentity(tr)
		if said != found {
			t.Fatalf("%s: the edit says %+v, the trees differ by %+v", what, said, found)
		}
		checkDiff(t, tr, nt, said, what)
		tr = nt
	}
	checkDiff(t, first, tr, tr.DiffFrom(first), "300 edits on")
	checkDiff(t, tr, first, first.DiffFrom(tr), "300 edits back")
	if d := tr.DiffFrom(nil); d.NewChunks != [2]int{0, tr.ChunkCount()} || d.NewPages != [2]int{0, tr.PageCount()} {
		t.Errorf("from nothing: %+v", d)
	}
	if d := tr.DiffFrom(tr); d.NewChunks[1] != d.NewChunks[0] || d.OldPages[1] != d.OldPages[0] {
		t.Errorf("from itself: %+v", d)
	}
	fresh := Parse(tr.Bytes())
	checkDiff(t, tr, fresh, fresh.DiffFrom(tr), "parsed again")
}
