package grammar

import (
	"iter"
	"sort"
)

// The chunks of a tree are grouped in pages of at most pageMaxChunks. Pages
// are immutable and shared, like chunks: an edit replaces the pages it
// touches and copies the tree's list of pages, which is a hundred times
// shorter than its list of chunks, so an edit costs the same in a 1 MB and
// a 1 GB document.
var pageMaxChunks = 128

// pos counts what precedes a chunk or a page: bytes, lines and lone CRs.
type pos struct{ bytes, lines, crs int }

func (p pos) plus(c *Chunk) pos {
	return pos{p.bytes + len(c.text), p.lines + len(c.lines), p.crs + c.loneCR}
}

func (p pos) add(q pos) pos { return pos{p.bytes + q.bytes, p.lines + q.lines, p.crs + q.crs} }

// Page is a run of chunks. A page an edit did not touch is shared by the
// trees before and after it, so an analysis can keep what it knows about a
// page by the page's identity.
type Page struct {
	chunks []*Chunk
	within []pos // within[i] is what chunks[:i] hold; the last entry is the page's total
	delims bool  // one of its chunks has a "---" line, which the header search looks for
}

func newPage(chunks []*Chunk) *Page {
	p := &Page{chunks: chunks, within: make([]pos, len(chunks)+1)}
	for i, c := range chunks {
		p.within[i+1] = p.within[i].plus(c)
		p.delims = p.delims || c.delims[0] >= 0
	}
	return p
}

// ChunkCount is the number of chunks in the page.
func (p *Page) ChunkCount() int { return len(p.chunks) }

// Chunk returns the page's chunk i.
func (p *Page) Chunk(i int) *Chunk { return p.chunks[i] }

// paginate groups chunks, which the caller hands over, into pages of even
// size, at most pageMaxChunks each.
func paginate(chunks []*Chunk) []*Page {
	n := (len(chunks) + pageMaxChunks - 1) / pageMaxChunks
	pages := make([]*Page, n)
	for i := range n {
		lo, hi := i*len(chunks)/n, (i+1)*len(chunks)/n
		pages[i] = newPage(chunks[lo:hi:hi])
	}
	return pages
}

// index sums the pages.
func (t *Tree) index() { t.indexFrom(pos{}) }

// indexFrom sums the pages of a tree whose first page follows what base
// counts (a Stream's window: its places are the document's).
func (t *Tree) indexFrom(base pos) {
	n := len(t.pages)
	t.pageStart = make([]pos, n+1)
	t.pageFirst = make([]int, n+1)
	t.pageStart[0] = base
	for i, p := range t.pages {
		t.pageStart[i+1] = t.pageStart[i].add(p.within[len(p.chunks)])
		t.pageFirst[i+1] = t.pageFirst[i] + len(p.chunks)
	}
}

// total is what the whole document holds.
func (t *Tree) total() pos { return t.pageStart[len(t.pages)] }

// PageCount is the number of pages.
func (t *Tree) PageCount() int { return len(t.pages) }

// PageAt returns page p and the index of its first chunk in the tree.
func (t *Tree) PageAt(p int) (*Page, int) { return t.pages[p], t.pageFirst[p] }

// locate returns the page holding chunk ci and ci's index in that page.
func (t *Tree) locate(ci int) (page, i int) {
	lo, hi := 0, len(t.pages)-1
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if t.pageFirst[mid+1] > ci {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, ci - t.pageFirst[lo]
}

// chunk returns chunk ci and what precedes it in the document.
func (t *Tree) chunk(ci int) (*Chunk, pos) {
	p, i := t.locate(ci)
	pg := t.pages[p]
	return pg.chunks[i], t.pageStart[p].add(pg.within[i])
}

// chunksFrom iterates over the chunks from chunk ci on, with their indices
// and what precedes each.
func (t *Tree) chunksFrom(ci int) iter.Seq2[int, chunkAt] {
	return func(yield func(int, chunkAt) bool) {
		if ci >= t.ChunkCount() {
			return
		}
		p, i := t.locate(ci)
		for ; p < len(t.pages); p, i = p+1, 0 {
			pg := t.pages[p]
			for ; i < len(pg.chunks); i++ {
				if !yield(t.pageFirst[p]+i, chunkAt{pg.chunks[i], t.pageStart[p].add(pg.within[i])}) {
					return
				}
			}
		}
	}
}

// chunkAt is a chunk and what precedes it.
type chunkAt struct {
	*Chunk
	at pos
}

// chunkWhere returns the first chunk whose end, as measured by key (bytes,
// lines, or lines and CRs together), is past x; the chunk count if none is.
func (t *Tree) chunkWhere(x int, key func(pos) int) int {
	p := sort.Search(len(t.pages), func(p int) bool { return key(t.pageStart[p+1]) > x })
	if p == len(t.pages) {
		return t.ChunkCount()
	}
	pg, base := t.pages[p], t.pageStart[p]
	i := sort.Search(len(pg.chunks), func(i int) bool { return key(base.add(pg.within[i+1])) > x })
	return t.pageFirst[p] + i
}

func byBytes(p pos) int       { return p.bytes }
func byLines(p pos) int       { return p.lines }
func byEditorLines(p pos) int { return p.lines + p.crs }
