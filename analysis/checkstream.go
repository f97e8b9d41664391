package analysis

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// StreamChecker finds a document's findings from its windows (a
// grammar.Stream's), in order, keeping of the text only what the current
// window holds: `rlog-ls check` and `report` read a log once, in memory
// that does not grow with it but for the set of its call ids. The
// findings are Check's, in the same order, with the same places; with a
// limit, the first limit of them and how many more, as
// Analyzer.FindingsUpTo gives.
//
// It is the Analyzer's rules, fed in file order: each chunk is summarised
// (summarizeChunk), its findings about call ids resolved (resolveChunk)
// from what the chunks before it said about each id, and its lists merged
// (emitChunk). The one finding a later chunk can take back is W007 (a call
// started and never completed): a completion may come after it. Until the
// id is completed or the document ends, its W007 is provisional.
//
// T is what the caller keeps of a finding: place turns a finding into it
// while its window holds the finding's line (to count its columns, say).
//
// Of a window, the checker keeps only the first (the header's findings are
// placed in it at the end) once Window returns: what it learnt of the
// others is numbers and strings of its own, so a grammar.Stream may read
// later windows into their buffers (Stream.Recycle).
type StreamChecker[T any] struct {
	c     checker // c.t is the first window, where the header findings are
	limit int
	place func(t *grammar.Tree, f Finding) T

	streamIDs
	view streamView
	// w007 are the provisional W007 findings, by their ids' numbers: the
	// index in kept, or countedW007 when they were counted past the limit.
	w007 map[int32]int32

	kept    []keptFinding[T]
	settled int // kept findings that are not provisional
	more    int // findings past the limit, not kept

	bodyLines         int // the body lines of the windows read so far
	seq               sequenceRules
	startLine         grammar.Line // the first @start line
	scratch, resolved []Finding
	sums              []*chunkSummary
}

// streamIDs are what the chunks read so far said about each call id: the
// one part of a StreamChecker that grows with the document (about 60 bytes
// an id, and the id), and holds no pointer for the collector to follow.
type streamIDs struct {
	ix    idIndex
	facts []streamID // by the id's number in ix
	// chunks places the chunks that hold a first start, in order (16
	// bytes a chunk of up to 16 KB).
	chunks []chunkPlace
}

// chunkPlace is where a chunk is: its first line and first byte.
type chunkPlace struct{ firstLine, start int }

// of returns the number of id, whose hash (hashID) is h, made when it is
// new.
func (ids *streamIDs) of(id string, h uint32) int32 {
	k, added := idNumberHashed(&ids.ix, id, h)
	if added {
		ids.facts = append(ids.facts, streamID{})
	}
	return k
}

// streamID is what the chunks read so far said about one call id (16
// bytes).
type streamID struct {
	// Its first t!: line: its chunk (the index in streamIDs.chunks), and
	// the line and the id's start relative to that chunk.
	chunk                          uint32
	line, start                    int32
	registered, completed, started bool
}

const (
	noW007      = -1
	countedW007 = -2
)

type keptFinding[T any] struct {
	v           T
	provisional bool // a W007 its call's completion may take back
	gone        bool // taken back
}

// NewStreamChecker checks a document under cfg; limit < 0 keeps every
// finding.
func NewStreamChecker[T any](cfg Config, limit int, place func(t *grammar.Tree, f Finding) T) *StreamChecker[T] {
	sc := &StreamChecker[T]{c: checker{cfg: cfg}, limit: limit, place: place, w007: map[int32]int32{}}
	sc.view.ids = &sc.streamIDs
	return sc
}

// Window reads the document's next window.
func (sc *StreamChecker[T]) Window(t *grammar.Tree) {
	sc.sums, _ = summarizeWindow(t, sc.sums, false)
	sc.window(t, sc.sums, nil)
	clear(sc.sums)
}

// SummarizedWindow is a window with its chunks summarised
// (SummarizeWindow): the part of checking a window that needs nothing of
// the windows before it, which a goroutine that reads ahead may do while
// the checker reads the window before (StreamChecker.Summarized), so that
// what the checker does in file order overlaps the next window's work.
type SummarizedWindow struct {
	t    *grammar.Tree
	sums []*chunkSummary
	// hashes are, by chunk, the hashes of its ids (hashID, in idOrder's
	// order) for the document's idIndex, taken with the summaries so that
	// the checker only looks them up; nil for a chunk whose are not.
	hashes [][]uint32
}

// SummarizeWindow summarises the chunks of window t, on every core when
// they are many, for StreamChecker.Summarized. It may run on any
// goroutine, while a StreamChecker reads earlier windows.
func SummarizeWindow(t *grammar.Tree) *SummarizedWindow {
	sums, hashes := summarizeWindow(t, nil, true)
	return &SummarizedWindow{t: t, sums: sums, hashes: hashes}
}

// Tree is the window.
func (w *SummarizedWindow) Tree() *grammar.Tree { return w.t }

// Summarized reads the document's next window, summarised: the same as
// Window(w.Tree()).
func (sc *StreamChecker[T]) Summarized(w *SummarizedWindow) {
	sc.window(w.t, w.sums, w.hashes)
	clear(w.sums)
}

// window reads window t, whose chunks are summarised as sums (their ids
// hashed as hashes, when not nil), in file order after the windows before
// it.
func (sc *StreamChecker[T]) window(t *grammar.Tree, sums []*chunkSummary, hashes [][]uint32) {
	if sc.c.t == nil {
		sc.c.t = t
		sc.c.out = sc.scratch[:0]
		sc.c.header()
		sc.keep(t, nil)
	}
	sc.bodyLines = t.BodyLineCount()
	for i, s := range sums {
		_, firstLine, start := t.ChunkAt(i)
		sc.view.hashes = nil
		if hashes != nil {
			sc.view.hashes = hashes[i]
		}
		sc.chunk(t, s, firstLine, start)
	}
}

// idHashRoom is how many ids' hashes summarizeWindow makes room for at a
// time (4 KB; a window of the generated logs has about 2,000 ids).
const idHashRoom = 1024

// summarizeWindow summarises the chunks of window t, on every core when
// they are many, and, when withHashes, hashes each chunk's ids for the
// document's idIndex (nil otherwise). The summaries are not memoized on
// the chunks (summaryOf): a window is read once, and a memo is a map a
// chunk.
func summarizeWindow(t *grammar.Tree, sums []*chunkSummary, withHashes bool) ([]*chunkSummary, [][]uint32) {
	n := t.ChunkCount()
	sums = append(sums[:0], make([]*chunkSummary, n)...)
	var hashes [][]uint32
	if withHashes {
		hashes = make([][]uint32, n)
	}
	// room is where a worker puts the hashes of the chunks it summarises:
	// a few blocks a window, not one a chunk.
	summarize := func(i int, room *[]uint32) {
		s := summarizeChunk(t, i)
		sums[i] = s
		k := len(s.idOrder)
		if hashes == nil || k == 0 {
			return
		}
		if len(*room) < k {
			*room = make([]uint32, max(k, idHashRoom))
		}
		h := (*room)[:k:k]
		*room = (*room)[k:]
		for j, id := range s.idOrder {
			h[j] = hashID(id)
		}
		hashes[i] = h
	}
	workers := min(runtime.GOMAXPROCS(0), n/4)
	if workers <= 1 {
		var room []uint32
		for i := range n {
			summarize(i, &room)
		}
		return sums, hashes
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var room []uint32
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				summarize(i, &room)
			}
		})
	}
	wg.Wait()
	return sums, hashes
}

// chunk finds the findings of one chunk, summarised as s, and learns what
// it says about its ids.
func (sc *StreamChecker[T]) chunk(t *grammar.Tree, s *chunkSummary, firstLine, start int) {
	sc.view.provisional, sc.view.nums = sc.view.provisional[:0], sc.view.nums[:0]
	sc.resolved = resolveChunk(sc.resolved[:0], s, &sc.view)
	var crossStep []Finding
	stepDown, previous, firstStart := sc.seq.next(s.sequenceOf())
	if stepDown {
		crossStep = append(crossStep, s.stepDownFrom(previous))
	}
	if firstStart {
		sc.startLine = t.Line(firstLine + s.startLine)
	}
	// Learnt before the lists are merged: a W010 names the line of its
	// id's first start, which may be in this chunk.
	sc.learn(s, firstLine, start)
	sc.c.out = sc.scratch[:0]
	sc.c.emitChunk(firstLine, start, sc.firstStartAt, s.local, sc.resolved, crossStep, s.stepViolations)
	sc.keep(t, func(f *Finding) int32 {
		if f.Code != W007 {
			return noW007
		}
		for _, p := range sc.view.provisional {
			if int(p.start)+start == f.Span.Start {
				return p.id
			}
		}
		return noW007
	})
}

// learn records what chunk s says about its ids, for the chunks after it.
// resolveChunk numbered its ids, in order, in sc.view.nums.
func (sc *StreamChecker[T]) learn(s *chunkSummary, firstLine, start int) {
	for k, n := range sc.view.nums {
		ci := &s.idList[k]
		f := &sc.facts[n]
		f.registered = f.registered || ci.reg >= 0
		if ci.completed && !f.completed {
			f.completed = true
			sc.takeBack(n)
		}
		if m, ok := ci.firstStart(); ok && !f.started {
			if n := len(sc.chunks); n == 0 || sc.chunks[n-1] != (chunkPlace{firstLine, start}) {
				sc.chunks = append(sc.chunks, chunkPlace{firstLine, start})
			}
			f.started, f.chunk, f.line, f.start = true, uint32(len(sc.chunks)-1), m.line, m.start
		}
	}
}

// takeBack withdraws the provisional W007 of id number n, now completed.
func (sc *StreamChecker[T]) takeBack(n int32) {
	k, ok := sc.w007[n]
	if !ok {
		return
	}
	switch {
	case k >= 0:
		sc.kept[k].gone = true
	case k == countedW007:
		sc.more--
	}
	delete(sc.w007, n)
}

// keep keeps the findings in sc.c.out (or counts them past the limit);
// w007 says which id's provisional W007 a finding is, if any.
func (sc *StreamChecker[T]) keep(t *grammar.Tree, w007 func(f *Finding) int32) {
	for i := range sc.c.out {
		f := &sc.c.out[i]
		id := int32(noW007)
		if w007 != nil {
			id = w007(f)
		}
		if sc.limit >= 0 && sc.settled >= sc.limit {
			sc.more++
			if id != noW007 {
				sc.w007[id] = countedW007
			}
			continue
		}
		if id != noW007 {
			sc.w007[id] = int32(len(sc.kept))
		} else {
			sc.settled++
		}
		sc.kept = append(sc.kept, keptFinding[T]{v: sc.place(t, *f), provisional: id != noW007})
	}
	sc.scratch = sc.c.out[:0]
}

// firstStartAt places the chunk that holds id's first start.
func (sc *StreamChecker[T]) firstStartAt(id string) (firstLine, start int) {
	k, _ := idLookup(&sc.ix, id)
	c := sc.chunks[sc.facts[k].chunk]
	return c.firstLine, c.start
}

// End returns the findings, after the last window, in report order, and
// how many more there are past the limit.
func (sc *StreamChecker[T]) End() ([]T, int) {
	if sc.c.t != nil {
		sc.c.out = sc.scratch[:0]
		sc.seq.session(&sc.c, sc.bodyLines, sc.startLine)
		sc.keep(sc.c.t, nil)
	}
	out := make([]T, 0, len(sc.kept))
	for _, k := range sc.kept {
		if !k.gone {
			out = append(out, k.v)
		}
	}
	more := sc.more
	if sc.limit >= 0 && len(out) > sc.limit {
		more += len(out) - sc.limit
		out = out[:sc.limit:sc.limit]
	}
	return out, more
}

// streamView answers idView from the chunks read so far.
type streamView struct {
	ids *streamIDs
	// provisional are the W007 findings resolveChunk makes for the chunk:
	// the start of the mark (relative to the chunk) and the id's index.
	provisional []provisionalW007
	// nums are the numbers of the chunk's ids, in order.
	nums []int32
	// hashes are the hashes of the chunk's ids (hashID), in order, when
	// its window was summarised with them; facts is called for each id in
	// order, so the id's is hashes[len(nums)].
	hashes []uint32
}

type provisionalW007 struct{ start, id int32 }

func (v *streamView) facts(id string, ci *chunkID) (regBefore, firstStartHere, completed bool) {
	var h uint32
	if n := len(v.nums); n < len(v.hashes) {
		h = v.hashes[n]
	} else {
		h = hashID(id)
	}
	k := v.ids.of(id, h)
	v.nums = append(v.nums, k)
	f := &v.ids.facts[k]
	regBefore, firstStartHere, completed = f.registered, !f.started, f.completed || ci.completed
	if firstStartHere && !completed {
		if m, ok := ci.firstStart(); ok {
			v.provisional = append(v.provisional, provisionalW007{start: m.start, id: k})
		}
	}
	return regBefore, firstStartHere, completed
}

func (v *streamView) firstStart(id string) idMark {
	k, _ := idLookup(&v.ids.ix, id)
	f := &v.ids.facts[k]
	return idMark{line: f.line, start: f.start, end: f.start + int32(len(id)), kind: grammar.ToolStart}
}
