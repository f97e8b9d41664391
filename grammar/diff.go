package grammar

import "sync/atomic"

// Diff says which pages and chunks of a tree an earlier version of the
// document does not share with it. Outside the ranges, the two trees hold
// the same Page and Chunk objects in the same order: the first
// NewPages[0] pages (= OldPages[0]) and the pages after NewPages[1] (after
// OldPages[1] in the old tree), and likewise for chunks. Results memoized
// on a shared page or chunk stay valid; what the ranges hold is new.
type Diff struct {
	OldPages, NewPages   [2]int // [first, end) of the pages that differ
	OldChunks, NewChunks [2]int // [first, end) of the chunks that differ
}

// treeSerial numbers trees, so that an edited tree can name the tree it
// was made from without keeping it alive.
var treeSerial atomic.Uint64

// edited is what Edit records on the tree it returns: the serial of the
// tree it edited, and what it replaced there.
type edited struct {
	base uint64
	diff Diff
}

// DiffFrom returns how t differs from old, an earlier version of the same
// document (nil: everything differs). When t is old with one Edit applied,
// the edit says what it replaced; otherwise the trees' pages are compared
// by identity, then the chunks of the pages that differ, which costs a
// step per page and per chunk of those pages.
func (t *Tree) DiffFrom(old *Tree) Diff {
	switch {
	case old == nil:
		return Diff{NewPages: [2]int{0, t.PageCount()}, NewChunks: [2]int{0, t.ChunkCount()}}
	case old == t:
		return Diff{OldPages: [2]int{0, 0}, NewPages: [2]int{0, 0}}
	case t.edit.base != 0 && t.edit.base == old.serial:
		return t.edit.diff
	}
	return t.diffByIdentity(old)
}

// diffByIdentity compares the pages of t and old by identity, then the
// chunks of the pages that differ.
func (t *Tree) diffByIdentity(old *Tree) Diff {
	np, op := len(t.pages), len(old.pages)
	pre := 0
	for pre < min(np, op) && t.pages[pre] == old.pages[pre] {
		pre++
	}
	suf := 0
	for suf < min(np, op)-pre && t.pages[np-1-suf] == old.pages[op-1-suf] {
		suf++
	}
	d := Diff{OldPages: [2]int{pre, op - suf}, NewPages: [2]int{pre, np - suf}}
	// The chunks of the pages between, compared from both ends.
	oldFirst, oldEnd := old.pageFirst[pre], old.pageFirst[op-suf]
	newFirst, newEnd := t.pageFirst[pre], t.pageFirst[np-suf]
	same := 0
	for same < min(oldEnd-oldFirst, newEnd-newFirst) && old.chunkIndexed(oldFirst+same) == t.chunkIndexed(newFirst+same) {
		same++
	}
	sameEnd := 0
	for sameEnd < min(oldEnd-oldFirst, newEnd-newFirst)-same &&
		old.chunkIndexed(oldEnd-1-sameEnd) == t.chunkIndexed(newEnd-1-sameEnd) {
		sameEnd++
	}
	d.OldChunks = [2]int{oldFirst + same, oldEnd - sameEnd}
	d.NewChunks = [2]int{newFirst + same, newEnd - sameEnd}
	return d
}

// chunkIndexed returns chunk ci.
func (t *Tree) chunkIndexed(ci int) *Chunk {
	p, i := t.locate(ci)
	return t.pages[p].chunks[i]
}
