package analysis

import (
	"slices"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// realignPages is what the analyzer (Analyzer.Update) and the followers of
// chunks (Follower.Update) do when the tree changes: from old, the pages of
// the tree d was taken from, make the pages of t. The pages t shares keep
// their page values; each page that changed is made again by newPage from
// the states of its chunks, where the chunks t shares with the old tree keep
// their states, in order, and the others get states made by newState. It
// returns t's pages, the states of the chunks t no longer has and the new
// states, in document order. statesOf and firstOf read an old page's states
// and the index of its first chunk. The caller sets where each page starts
// now and marks the dropped states gone.
func realignPages[S, P any](t *grammar.Tree, d grammar.Diff, old []P,
	statesOf func(P) []S, firstOf func(P) int,
	newState func(*grammar.Chunk) S, newPage func(pg *grammar.Page, states []S) P,
) (pages []P, dropped, added []S) {
	pages = make([]P, t.PageCount())
	copy(pages, old[:d.OldPages[0]])
	copy(pages[d.NewPages[1]:], old[d.OldPages[1]:])
	// The old states of the pages that changed, in order: those before and
	// after the chunks that changed are kept, in the same order.
	var was []S
	for _, p := range old[d.OldPages[0]:d.OldPages[1]] {
		was = append(was, statesOf(p)...)
	}
	keptBefore, keptAfter := 0, 0
	if len(was) > 0 {
		wasFirst := firstOf(old[d.OldPages[0]])
		keptBefore, keptAfter = d.OldChunks[0]-wasFirst, wasFirst+len(was)-d.OldChunks[1]
	}
	dropped = slices.Clip(was[keptBefore : len(was)-keptAfter])
	n := firstChunkOf(t, d.NewPages[1]) - firstChunkOf(t, d.NewPages[0]) // the chunks of the new pages
	k := 0
	for p := d.NewPages[0]; p < d.NewPages[1]; p++ {
		pg, _ := t.PageAt(p)
		states := make([]S, pg.ChunkCount())
		for i := range states {
			switch {
			case k < keptBefore:
				states[i] = was[k]
			case k >= n-keptAfter:
				states[i] = was[len(was)-(n-k)]
			default:
				states[i] = newState(pg.Chunk(i))
				added = append(added, states[i])
			}
			k++
		}
		pages[p] = newPage(pg, states)
	}
	return pages, dropped, added
}

// firstChunkOf is the index of page p's first chunk (the chunk count past
// the last page).
func firstChunkOf(t *grammar.Tree, p int) int {
	if p < t.PageCount() {
		_, first := t.PageAt(p)
		return first
	}
	return t.ChunkCount()
}
