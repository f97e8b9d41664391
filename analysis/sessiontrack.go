package analysis

import (
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/usage"
)

// SessionTracker keeps one document's session statistics current across
// edits, for what the editor shows beside the text: the session's totals
// (the header's code lens, APM), each phase's (the @phase lenses) and the
// calls that end in a range (the latency inlay hints). It gives the same
// numbers as BuildSession without building the whole Session: each chunk's
// summary (memoized on the chunk) holds its counts, per segment between
// @phase lines, and its calls and results; each page sums its chunks; the
// calls whose results are in another chunk are matched across chunks by
// id. An edit re-summarises the chunks it replaced, matches again the ids
// they mention, and sums their pages again; a question adds up pages and
// at most two pages' chunks. So the first lens or hint after an edit costs
// about what the edit touched, whatever the document's size.
//
// BuildSession stays the reference, and what `rlog-ls stats` and the
// session view use: they show every call.
//
// A SessionTracker is not safe for concurrent use.
type SessionTracker struct {
	fl Follower[sessionState, sessionSum]
	// calls are the call ids by the chunks whose summaries have events of
	// them; those of several chunks are matched across chunks.
	calls idChunks[*sharedCallID]
	// msgs are the message ids of usage lines by their chunks: a message
	// counted in one chunk is not counted again in a later one.
	msgs   idChunks[*sharedMsgID]
	gen    uint32
	totals *SessionTotals // for the tree, without a companion; nil until asked
}

type followedSession = Followed[sessionState, sessionSum]

type sessionPage = FollowedPage[sessionState, sessionSum]

// sessionState is the tracker's view of one chunk.
type sessionState struct {
	sum *sessionChunk
	// delta corrects the segments' errors and unfinished calls for the
	// ids matched across chunks; nil when none is.
	delta []segDelta
	// tokens replaces the segments' token runs when message ids of the
	// chunk are in earlier chunks too; nil otherwise.
	tokens      []tokenRun
	tokensDirty uint32 // the Update that must count the tokens again
}

type segDelta struct{ errors, unfinished int32 }

// segErrors are segment k's failed calls, corrected.
func (s *sessionState) segErrors(k int) int {
	n := int(s.sum.segs[k].errors)
	if s.delta != nil {
		n += int(s.delta[k].errors)
	}
	return n
}

func (s *sessionState) segUnfinished(k int) int {
	n := int(s.sum.segs[k].unfinished)
	if s.delta != nil {
		n += int(s.delta[k].unfinished)
	}
	return n
}

func (s *sessionState) segTokens(k int) tokenRun {
	if s.tokens != nil {
		return s.tokens[k]
	}
	return s.sum.segs[k].tokens
}

// sharedID is an id in several chunks' summaries.
type sharedID struct {
	id      string
	chunks  []*followedSession // in no order
	touched uint32             // the Update that last changed chunks
}

func (sh *sharedID) shared() *sharedID { return sh }

// sharedCallID is a call id whose events are in several chunks.
type sharedCallID struct {
	sharedID
	// order is chunks in document order, with the number of the id's
	// calls and of its completions before each; applied are the
	// corrections made to the chunks' segments.
	order                    []*followedSession
	startsBefore, popsBefore []int32
	applied                  []appliedDelta
}

type appliedDelta struct {
	f   *followedSession
	seg int16
	d   segDelta
}

// sharedMsgID is a message id of usage lines in several chunks.
type sharedMsgID struct{ sharedID }

// idChunks are the chunks that have each id of one kind: one chunk (one),
// or several (many, the entries made by newShared).
type idChunks[E interface{ shared() *sharedID }] struct {
	one       map[string]*followedSession
	many      map[string]E
	newShared func(id string) E
}

func newIDChunks[E interface{ shared() *sharedID }](newShared func(id string) E) idChunks[E] {
	return idChunks[E]{one: map[string]*followedSession{}, many: map[string]E{}, newShared: newShared}
}

// learn records that f has id; touched collects the ids of several chunks
// whose chunks changed in Update gen.
func (ic *idChunks[E]) learn(id string, f *followedSession, gen uint32, touched []E) []E {
	sh, ok := ic.many[id]
	if !ok {
		other, ok := ic.one[id]
		if !ok {
			ic.one[id] = f
			return touched
		}
		delete(ic.one, id)
		sh = ic.newShared(id)
		sh.shared().chunks = []*followedSession{other}
		ic.many[id] = sh
	}
	sh.shared().chunks = append(sh.shared().chunks, f)
	return touch(sh, gen, touched)
}

// forget records that f, gone, no longer has id.
func (ic *idChunks[E]) forget(id string, f *followedSession, gen uint32, touched []E) []E {
	if ic.one[id] == f {
		delete(ic.one, id)
		return touched
	}
	sh, ok := ic.many[id]
	if !ok {
		return touched
	}
	b := sh.shared()
	if i := slices.Index(b.chunks, f); i >= 0 {
		b.chunks = slices.Delete(b.chunks, i, i+1)
	}
	return touch(sh, gen, touched)
}

// settle moves an id left in fewer than two chunks back to one (or
// nowhere); it reports whether it did.
func (ic *idChunks[E]) settle(sh E) bool {
	b := sh.shared()
	if len(b.chunks) >= 2 {
		return false
	}
	if cur, ok := ic.many[b.id]; ok && cur.shared() == b {
		delete(ic.many, b.id)
		if len(b.chunks) == 1 {
			ic.one[b.id] = b.chunks[0]
		}
	}
	return true
}

func touch[E interface{ shared() *sharedID }](sh E, gen uint32, touched []E) []E {
	if b := sh.shared(); b.touched != gen {
		b.touched = gen
		touched = append(touched, sh)
	}
	return touched
}

// sessionSum sums a page's chunks. Lines are counted from the page's
// first line.
type sessionSum struct {
	phases                              int32
	calls, errors, unfinished, messages int
	tsMarks
	tokens tokenRun
}

// NewSessionTracker follows tree t.
func NewSessionTracker(t *grammar.Tree) *SessionTracker {
	st := &SessionTracker{
		calls: newIDChunks(func(id string) *sharedCallID { return &sharedCallID{sharedID: sharedID{id: id}} }),
		msgs:  newIDChunks(func(id string) *sharedMsgID { return &sharedMsgID{sharedID{id: id}} }),
	}
	st.Update(t)
	return st
}

// Tree is the tree the statistics are for.
func (st *SessionTracker) Tree() *grammar.Tree { return st.fl.Tree() }

// Update brings the statistics to tree t, usually an edit of the current
// one (any tree works).
func (st *SessionTracker) Update(t *grammar.Tree) {
	if t == st.fl.Tree() {
		return
	}
	st.gen++
	st.totals = nil
	dropped, added := st.fl.Update(t)
	var calls []*sharedCallID
	var msgs []*sharedMsgID
	for _, f := range dropped {
		if f.State.sum == nil {
			continue
		}
		for _, id := range f.State.sum.ids {
			calls = st.calls.forget(id, f, st.gen, calls)
		}
		for _, id := range f.State.sum.msgIDs {
			msgs = st.msgs.forget(id, f, st.gen, msgs)
		}
	}
	summarizeSessions(t, added)
	for _, f := range added {
		for _, id := range f.State.sum.ids {
			calls = st.calls.learn(id, f, st.gen, calls)
		}
		for _, id := range f.State.sum.msgIDs {
			msgs = st.msgs.learn(id, f, st.gen, msgs)
		}
	}
	for _, sh := range calls {
		st.matchAcross(sh)
	}
	var recount []*followedSession
	for _, sh := range msgs {
		// The chunks that have the id: any may now count it, or no longer.
		for _, f := range sh.chunks {
			if f.State.tokensDirty != st.gen {
				f.State.tokensDirty = st.gen
				recount = append(recount, f)
			}
		}
	}
	for _, sh := range msgs {
		st.msgs.settle(sh)
	}
	for _, f := range recount {
		st.recountTokens(f)
	}
	for _, pg := range st.fl.Pages() {
		if pg.Stale {
			st.sumPage(pg)
		}
	}
}

// summarizeSessions gives the new states their summaries, on every core
// when there are many (opening a large document).
func summarizeSessions(t *grammar.Tree, states []*followedSession) {
	workers := min(runtime.GOMAXPROCS(0), len(states)/4)
	if workers <= 1 {
		for _, f := range states {
			f.State.sum = sessionChunkOf(t, f.Ord())
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan *followedSession, 64)
	for range workers {
		wg.Go(func() {
			for f := range next {
				f.State.sum = sessionChunkOf(t, f.Ord())
			}
		})
	}
	for _, f := range states {
		next <- f
	}
	close(next)
	wg.Wait()
}

// matchAcross matches the calls and results of a shared id across its
// chunks, oldest waiting call first as BuildSession does, and corrects the
// counts of the segments where the calls start: what each chunk counted
// alone is replaced by what the whole document says.
//
// It costs the id's events in the whole document: an edit that touches an
// id used all over a log (early autopilot logs give every call toolu_01)
// matches all its calls again, a pass over the calls rather than the log.
func (st *SessionTracker) matchAcross(sh *sharedCallID) {
	for _, a := range sh.applied {
		if !a.f.Gone() {
			a.f.State.delta[a.seg].errors -= a.d.errors
			a.f.State.delta[a.seg].unfinished -= a.d.unfinished
			a.f.Page().Stale = true
		}
	}
	sh.applied = sh.applied[:0]
	sh.order = append(sh.order[:0], sh.chunks...)
	if st.calls.settle(sh) {
		return // one chunk or none left: its own matching is the document's
	}
	slices.SortFunc(sh.order, func(a, b *followedSession) int { return a.Ord() - b.Ord() })
	id := sh.id
	sh.startsBefore = sh.startsBefore[:0]
	sh.popsBefore = sh.popsBefore[:0]
	// An event of the id: its chunk's place in order, and its index in
	// the chunk's events of the id.
	type eventRef struct {
		chunk int
		event int32
	}
	var queue []eventRef // the calls waiting
	starts, pops := int32(0), int32(0)
	// global[c][e] is the partner of event e of chunk c's events of the id,
	// as the whole document matches them, or {-1, -1}.
	global := make([][]eventRef, len(sh.order))
	for c, f := range sh.order {
		sh.startsBefore = append(sh.startsBefore, starts)
		sh.popsBefore = append(sh.popsBefore, pops)
		evs, _ := f.State.sum.eventsOf(id)
		global[c] = make([]eventRef, len(evs))
		for e := range evs {
			global[c][e] = eventRef{-1, -1}
			if evs[e].start {
				queue = append(queue, eventRef{c, int32(e)})
				starts++
				continue
			}
			if len(queue) == 0 {
				continue
			}
			w := queue[0]
			queue = queue[1:]
			pops++
			global[c][e] = w
			global[w.chunk][w.event] = eventRef{c, int32(e)}
		}
	}
	// The corrections: for each call, what it is in the whole document
	// less what its chunk alone made of it.
	for c, f := range sh.order {
		evs, _ := f.State.sum.eventsOf(id)
		for e, ev := range evs {
			if !ev.start {
				continue
			}
			var d segDelta
			localFailed, localOpen := false, ev.match < 0
			if !localOpen {
				localFailed = f.State.sum.events[ev.match].failed
			}
			p := global[c][e]
			globalOpen := p.chunk < 0
			globalFailed := false
			if !globalOpen {
				o, _ := sh.order[p.chunk].State.sum.eventsOf(id)
				globalFailed = o[p.event].failed
			}
			d.errors = b2i(globalFailed) - b2i(localFailed)
			d.unfinished = b2i(globalOpen) - b2i(localOpen)
			if d == (segDelta{}) {
				continue
			}
			if f.State.delta == nil {
				f.State.delta = make([]segDelta, len(f.State.sum.segs))
			}
			f.State.delta[ev.seg].errors += d.errors
			f.State.delta[ev.seg].unfinished += d.unfinished
			f.Page().Stale = true
			sh.applied = append(sh.applied, appliedDelta{f: f, seg: ev.seg, d: d})
		}
	}
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// recountTokens counts chunk f's tokens again: the lines of a message id
// that earlier chunks have add only what they raise.
func (st *SessionTracker) recountTokens(f *followedSession) {
	if f.Gone() {
		return
	}
	shared := false
	for _, id := range f.State.sum.msgIDs {
		if _, ok := st.msgs.many[id]; ok {
			shared = true
			break
		}
	}
	f.State.tokens = nil
	if shared {
		f.State.tokens = chunkTokenRuns(st.fl.Tree(), f.Ord(), f.State.sum, func(id string) (usage.Counts, bool) {
			return st.usageBefore(f, id)
		})
	}
	f.Page().Stale = true
}

// usageBefore is the usage of message id in the chunks before f (the
// largest of each count), and whether any of them has it.
func (st *SessionTracker) usageBefore(f *followedSession, id string) (usage.Counts, bool) {
	sh, ok := st.msgs.many[id]
	if !ok {
		return usage.Counts{}, false
	}
	var before usage.Counts
	known := false
	for _, o := range sh.chunks {
		if o != f && o.Ord() < f.Ord() {
			c, _ := o.State.sum.messageMax(id)
			before, known = before.Max(c), true
		}
	}
	return before, known
}

// sumPage sums a page's chunks.
func (st *SessionTracker) sumPage(pg *sessionPage) {
	t := st.fl.Tree()
	_, pageLine, _ := t.ChunkAt(pg.First())
	s := emptySum()
	for i, f := range pg.States() {
		_, first, _ := t.ChunkAt(pg.First() + i)
		s.add(f, 0, len(f.State.sum.segs), first-pageLine)
	}
	pg.Sum, pg.Stale = s, false
}

// add adds segments [from, to) of chunk f, whose first line is at line
// base of what s counts from.
func (s *sessionSum) add(f *followedSession, from, to, base int) {
	sum := f.State.sum
	for k := from; k < to; k++ {
		g := &sum.segs[k]
		if g.line >= 0 {
			s.phases++
		}
		s.calls += int(g.calls)
		s.errors += f.State.segErrors(k)
		s.unfinished += f.State.segUnfinished(k)
		s.messages += int(g.messages)
		s.then(g.tsMarks, base)
		s.tokens = s.tokens.then(f.State.segTokens(k))
	}
}

// addSum adds a page's sum, whose lines start at base.
func (s *sessionSum) addSum(o *sessionSum, base int) {
	s.phases += o.phases
	s.calls += o.calls
	s.errors += o.errors
	s.unfinished += o.unfinished
	s.messages += o.messages
	s.then(o.tsMarks, base)
	s.tokens = s.tokens.then(o.tokens)
}

func emptySum() sessionSum {
	return sessionSum{tsMarks: noMarks}
}

// SessionTotals are a session's numbers as a whole: what the header's code
// lens shows, and APM.
type SessionTotals struct {
	// Start and End are the earliest and the latest ts= of the body, and
	// StartLine and EndLine their lines (-1 when the body has none).
	Start, End         time.Time
	StartLine, EndLine int
	// Messages are the u: and a: lines, Calls the t!:, t: and c: lines;
	// Errors and Unfinished count the calls by outcome.
	Messages, Calls, Errors, Unfinished int
	Tokens                              Tokens
	APM                                 APM
	// CostUSD is the session's cost as its last @end states it, or nil.
	CostUSD *float64
}

// Duration is the wall-clock time from the earliest ts= to the latest;
// ok is false when the body has fewer than two distinct instants.
func (s *SessionTotals) Duration() (time.Duration, bool) {
	if s.StartLine < 0 || !s.End.After(s.Start) {
		return 0, false
	}
	return s.End.Sub(s.Start), true
}

// Totals are the session's numbers as a whole.
func (s *Session) Totals() SessionTotals {
	return SessionTotals{Start: s.Start, End: s.End, StartLine: s.StartLine, EndLine: s.EndLine, Messages: s.Messages,
		Calls: s.calls, Errors: s.Errors, Unfinished: s.Unfinished, Tokens: s.Tokens(), APM: s.APM, CostUSD: s.CostUSD}
}

// Totals are the session's numbers as a whole, with APM from the
// companion's counts when opts has them (the other options do not change
// them).
func (st *SessionTracker) Totals(opts SessionOptions) SessionTotals {
	if st.totals == nil {
		t := st.fl.Tree()
		sum := emptySum()
		for _, pg := range st.fl.Pages() {
			_, base, _ := t.ChunkAt(pg.First())
			sum.addSum(&pg.Sum, base)
		}
		tot := SessionTotals{StartLine: int(sum.earliest.line), EndLine: int(sum.latest.line), Messages: sum.messages,
			Calls: sum.calls, Errors: sum.errors, Unfinished: sum.unfinished, Tokens: sum.tokens.sum}
		if sum.earliest.ok() {
			tot.Start = lineTime(t, tot.StartLine)
			tot.End = lineTime(t, tot.EndLine)
		}
		tot.CostUSD = lastCost(t)
		st.totals = &tot
	}
	tot := *st.totals
	tot.APM = apmOf(tot.Messages, tot.Calls, tot.Start, tot.End, tot.StartLine >= 0, opts.Companion)
	return tot
}

// lastCost is the cost the last @end that states one states, or nil: the
// chunks' @end lines are looked at from the last.
func lastCost(t *grammar.Tree) *float64 {
	for i := t.ChunkCount() - 1; i >= 0; i-- {
		_, first, _ := t.ChunkAt(i)
		ends := summaryOf(t, i).endLines
		for j := len(ends) - 1; j >= 0; j-- {
			if c, ok := costOnEnd(t, first+ends[j]); ok {
				return &c
			}
		}
	}
	return nil
}

// lineTime is the time of line n's ts=, which is valid.
func lineTime(t *grammar.Tree, n int) time.Time {
	l := t.Line(n)
	when, _ := timeIn(l, t.Text(l))
	return when
}
