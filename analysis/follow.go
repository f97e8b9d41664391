package analysis

import (
	"slices"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// Follower keeps one state of type S per chunk of a document's newest tree,
// across edits, and one of type P per page (the states' sums). Update lines the states up with a new tree through the
// trees' Diff: the chunks the new tree shares with the previous one keep
// their states, where they are, without being visited; the others get new,
// zero states for the caller to fill. So an analysis built on a Follower
// costs, per edit, what the edit replaced plus a step per page.
//
// The chunks that hold header lines are the exception: what a summary of
// such a chunk says depends on where the header ends, which an edit
// anywhere can move, so their states are renewed at every Update (they lead
// the document, and are one or two).
//
// A Follower is not safe for concurrent use.
type Follower[S, P any] struct {
	tree  *grammar.Tree
	pages []*FollowedPage[S, P]
	// header are the states renewed at the last Update because their
	// chunks held header lines.
	header []*Followed[S, P]
}

// FollowedPage is a page of the followed tree and the states of its chunks.
// A page an edit did not touch keeps its FollowedPage, and whatever the
// caller keeps in Sum.
type FollowedPage[S, P any] struct {
	page   *grammar.Page
	first  int // the index of its first chunk in the current tree
	states []*Followed[S, P]
	// Sum is the caller's sum of the page's states.
	Sum P
	// Stale marks a page whose Sum the caller must compute again: Update
	// sets it on the pages it makes, the caller on the pages whose states
	// it changed.
	Stale bool
}

// Followed is one chunk's state.
type Followed[S, P any] struct {
	Chunk *grammar.Chunk
	State S
	page  *FollowedPage[S, P]
	local int  // its index in page
	gone  bool // no longer in the tree
}

// Ord is the chunk's index among the tree's chunks.
func (f *Followed[S, P]) Ord() int { return f.page.first + f.local }

// Gone reports whether the chunk left the tree.
func (f *Followed[S, P]) Gone() bool { return f.gone }

// Page is the page that holds the chunk.
func (f *Followed[S, P]) Page() *FollowedPage[S, P] { return f.page }

// First is the index of the page's first chunk in the current tree.
func (p *FollowedPage[S, P]) First() int { return p.first }

// States are the page's chunks' states, in order.
func (p *FollowedPage[S, P]) States() []*Followed[S, P] { return p.states }

// Tree is the tree the states are for.
func (fl *Follower[S, P]) Tree() *grammar.Tree { return fl.tree }

// Pages are the tree's pages, in order.
func (fl *Follower[S, P]) Pages() []*FollowedPage[S, P] { return fl.pages }

// At returns the state of chunk ci.
func (fl *Follower[S, P]) At(ci int) *Followed[S, P] {
	p, _ := slices.BinarySearchFunc(fl.pages, ci, func(pg *FollowedPage[S, P], ci int) int {
		switch {
		case pg.first > ci:
			return 1
		case pg.first+len(pg.states) <= ci:
			return -1
		}
		return 0
	})
	pg := fl.pages[p]
	return pg.states[ci-pg.first]
}

// PageIndex returns the index of page pg in the current tree, by a binary
// search on where pages start.
func (fl *Follower[S, P]) PageIndex(pg *FollowedPage[S, P]) int {
	p, _ := slices.BinarySearchFunc(fl.pages, pg.first, func(x *FollowedPage[S, P], first int) int { return x.first - first })
	return p
}

// Place returns the chunk's first line and first byte in the current tree.
func (fl *Follower[S, P]) Place(f *Followed[S, P]) (firstLine, start int) {
	_, firstLine, start = fl.tree.ChunkAt(f.Ord())
	return firstLine, start
}

// Update brings the states to tree t, usually an edit of the current one
// (any tree works: unrelated trees share nothing). It returns the states of
// the chunks t no longer has, marked gone, and the new states, in
// document order, for the caller to fill; the pages made for t are Stale.
func (fl *Follower[S, P]) Update(t *grammar.Tree) (dropped, added []*Followed[S, P]) {
	d := t.DiffFrom(fl.tree)
	var pages []*FollowedPage[S, P]
	pages, dropped, added = realignPages(t, d, fl.pages,
		func(sp *FollowedPage[S, P]) []*Followed[S, P] { return sp.states },
		func(sp *FollowedPage[S, P]) int { return sp.first },
		func(c *grammar.Chunk) *Followed[S, P] { return &Followed[S, P]{Chunk: c} },
		func(pg *grammar.Page, states []*Followed[S, P]) *FollowedPage[S, P] {
			sp := &FollowedPage[S, P]{page: pg, states: states, Stale: true}
			for i, f := range states {
				f.page, f.local = sp, i
			}
			return sp
		})
	for p, sp := range pages {
		_, sp.first = t.PageAt(p)
	}
	for _, f := range dropped {
		f.gone = true
	}
	fl.tree, fl.pages = t, pages
	return fl.renewHeader(dropped, added)
}

// renewHeader gives new states to the chunks that held header lines at the
// last Update and to those that hold them now, and records the latter.
func (fl *Follower[S, P]) renewHeader(dropped, added []*Followed[S, P]) ([]*Followed[S, P], []*Followed[S, P]) {
	fresh := make(map[*Followed[S, P]]bool, len(added))
	for _, f := range added {
		fresh[f] = true
	}
	renew := func(f *Followed[S, P]) {
		if f.gone || fresh[f] {
			return
		}
		f.gone = true
		dropped = append(dropped, f)
		again := &Followed[S, P]{Chunk: f.Chunk, page: f.page, local: f.local}
		f.page.states[f.local] = again
		f.page.Stale = true
		fresh[again] = true
		added = append(added, again)
	}
	for _, f := range fl.header {
		renew(f)
	}
	fl.header = fl.header[:0]
	bodyStart := fl.tree.Region().BodyStart
	for ci := range fl.tree.ChunkCount() {
		if _, first, _ := fl.tree.ChunkAt(ci); first >= bodyStart {
			break
		}
		renew(fl.At(ci))
		fl.header = append(fl.header, fl.At(ci))
	}
	slices.SortFunc(added, func(a, b *Followed[S, P]) int { return a.Ord() - b.Ord() })
	return dropped, added
}

// HoldsHeader reports whether the chunk holds header lines in the current
// tree (its summary then depends on where the body starts).
func (fl *Follower[S, P]) HoldsHeader(f *Followed[S, P]) bool {
	first, _ := fl.Place(f)
	return first < fl.tree.Region().BodyStart
}
