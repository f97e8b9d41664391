package analysis

import (
	"slices"
	"sort"
	"time"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// What SessionTracker answers: a phase's numbers, and the calls that end
// in a range. Each adds up page sums, the chunks of at most a few pages and
// the segments of a few chunks.

// PhaseAt returns the phase whose @phase line is line, else the phase that
// holds line (up to its last non-empty line), as BuildSession computes it.
func (st *SessionTracker) PhaseAt(line int) (Phase, bool) {
	ci, k, ok := st.phaseAtOrBefore(line)
	if !ok {
		return Phase{}, false
	}
	p := st.phase(ci, k)
	if p.Line == line || line <= p.EndLine {
		return p, true
	}
	return Phase{}, false
}

// PhaseAt returns the phase whose @phase line is line, else the phase
// that holds line (up to its last non-empty line).
func (s *Session) PhaseAt(line int) (Phase, bool) {
	i, _ := slices.BinarySearchFunc(s.Phases, line+1, func(p Phase, n int) int { return p.Line - n })
	if i == 0 {
		return Phase{}, false
	}
	p := s.Phases[i-1]
	if p.Line == line || line <= p.EndLine {
		return p, true
	}
	return Phase{}, false
}

// phaseAtOrBefore finds the last @phase line at or before line: the chunk
// and the segment it opens.
func (st *SessionTracker) phaseAtOrBefore(line int) (ci, k int, ok bool) {
	t := st.fl.Tree()
	if line < 0 || t.LineCount() == 0 {
		return 0, 0, false
	}
	ci = t.ChunkIndexOfLine(line)
	f := st.fl.At(ci)
	first, _ := st.fl.Place(f)
	if k := f.State.sum.segAt(line - first); k > 0 {
		return ci, k, true
	}
	pg := f.Page()
	states := pg.States()
	for i := f.Ord() - pg.First() - 1; i >= 0; i-- {
		if n := len(states[i].State.sum.segs); n > 1 {
			return pg.First() + i, n - 1, true
		}
	}
	pages := st.fl.Pages()
	for p := st.fl.PageIndex(pg) - 1; p >= 0; p-- {
		if pages[p].Sum.phases == 0 {
			continue
		}
		states := pages[p].States()
		for i := len(states) - 1; i >= 0; i-- {
			if n := len(states[i].State.sum.segs); n > 1 {
				return pages[p].First() + i, n - 1, true
			}
		}
	}
	return 0, 0, false
}

// phase computes the phase opened by segment k of chunk ci.
func (st *SessionTracker) phase(ci, k int) Phase {
	t := st.fl.Tree()
	f := st.fl.At(ci)
	first, _ := st.fl.Place(f)
	l := t.Line(first + int(f.State.sum.segs[k].line))
	sum, nci, nk, hasNext := st.stretch(ci, k)
	p := Phase{Name: string(t.Slice(l.Name.Start, l.Name.End)), Line: l.Num, Start: l.Start, Calls: sum.calls, Errors: sum.errors}
	p.EndLine = int(sum.lastNonEmpty)
	p.End = t.Line(p.EndLine).End
	if sum.first.ok() {
		p.StartTime = lineTime(t, int(sum.first.line))
	}
	if sum.peak.ok() {
		if latest := lineTime(t, int(sum.peak.line)); latest.After(time.Time{}) {
			p.EndTime = latest
		}
	}
	if hasNext && !p.StartTime.IsZero() {
		if next, _, _, _ := st.stretch(nci, nk); next.first.ok() {
			if start := lineTime(t, int(next.first.line)); !start.IsZero() {
				p.EndTime = start
			}
		}
	}
	p.Tokens = sum.tokens.after(st.tokensBefore(ci, k))
	return p
}

// stretch sums the segments from segment k of chunk ci up to the next
// @phase line, or to the end of the document; lines are absolute. It
// also returns where the next phase starts, if one does.
func (st *SessionTracker) stretch(ci, k int) (sum sessionSum, nextCI, nextK int, next bool) {
	t := st.fl.Tree()
	sum = emptySum()
	f := st.fl.At(ci)
	first, _ := st.fl.Place(f)
	sum.add(f, k, k+1, first)
	if k+1 < len(f.State.sum.segs) {
		return sum, ci, k + 1, true
	}
	// the rest of the page, chunk by chunk
	pg := f.Page()
	chunks := func(pg *sessionPage, from int) (int, bool) {
		for i := from; i < len(pg.States()); i++ {
			g := pg.States()[i]
			_, first, _ := t.ChunkAt(pg.First() + i)
			sum.add(g, 0, 1, first)
			if len(g.State.sum.segs) > 1 {
				return pg.First() + i, true
			}
		}
		return 0, false
	}
	if ci, ok := chunks(pg, f.Ord()-pg.First()+1); ok {
		return sum, ci, 1, true
	}
	// then whole pages, until one has a phase
	pages := st.fl.Pages()
	for p := st.fl.PageIndex(pg) + 1; p < len(pages); p++ {
		if pages[p].Sum.phases == 0 {
			_, base, _ := t.ChunkAt(pages[p].First())
			sum.addSum(&pages[p].Sum, base)
			continue
		}
		if ci, ok := chunks(pages[p], 0); ok {
			return sum, ci, 1, true
		}
	}
	return sum, 0, 0, false
}

// tokensBefore is the token run of everything before segment k of chunk
// ci, as far as what follows needs it: its last usage line.
func (st *SessionTracker) tokensBefore(ci, k int) tokenRun {
	f := st.fl.At(ci)
	for j := k - 1; j >= 0; j-- {
		if r := f.State.segTokens(j); r.any {
			return r
		}
	}
	pg := f.Page()
	states := pg.States()
	for i := f.Ord() - pg.First() - 1; i >= 0; i-- {
		for j := len(states[i].State.sum.segs) - 1; j >= 0; j-- {
			if r := states[i].State.segTokens(j); r.any {
				return r
			}
		}
	}
	pages := st.fl.Pages()
	for p := st.fl.PageIndex(pg) - 1; p >= 0; p-- {
		if pages[p].Sum.tokens.any {
			return pages[p].Sum.tokens
		}
	}
	return tokenRun{}
}

// phaseIndex is the index of the phase line n is in (as Call.Phase counts
// them), -1 before the first @phase.
func (st *SessionTracker) phaseIndex(n int) int {
	f := st.fl.At(st.fl.Tree().ChunkIndexOfLine(n))
	first, _ := st.fl.Place(f)
	count := f.State.sum.segAt(n - first)
	pg := f.Page()
	for _, g := range pg.States()[:f.Ord()-pg.First()] {
		count += len(g.State.sum.segs) - 1
	}
	for _, p := range st.fl.Pages()[:st.fl.PageIndex(pg)] {
		count += int(p.Sum.phases)
	}
	return count - 1
}

// CallSource says which calls end in a byte range: a Session, or a
// SessionTracker kept current.
type CallSource interface {
	CallsEndingIn(start, end int) []Call
}

// CallsEndingIn returns the calls whose result line begins in the byte
// range [start, end), in the order of their result lines, as
// Session.CallsEndingIn does.
func (st *SessionTracker) CallsEndingIn(start, end int) []Call {
	t := st.fl.Tree()
	if end <= start || start >= t.Len() {
		return nil
	}
	var out []Call
	for ci := t.ChunkIndexOfLine(t.LineAt(max(start, 0))); ci < t.ChunkCount(); ci++ {
		f := st.fl.At(ci)
		first, base := st.fl.Place(f)
		if base >= end {
			break
		}
		for _, rm := range f.State.sum.results {
			l := t.Line(first + int(rm.line))
			if l.Start < start {
				continue
			}
			if l.Start >= end {
				break
			}
			if rm.event < 0 {
				out = append(out, st.callAt(l))
				continue
			}
			if c, ok := st.completion(f, int(rm.event), l); ok {
				out = append(out, c)
			}
		}
	}
	return out
}

// callAt is the call that line l starts, as far as the line says.
func (st *SessionTracker) callAt(l grammar.Line) Call {
	t := st.fl.Tree()
	text := t.Text(l)
	when, _ := timeIn(l, text)
	c := Call{Tool: string(t.Slice(l.Name.Start, l.Name.End)), Kind: l.Kind, ID: l.ID, Line: l.Num, Start: l.Start,
		ResultLine: -1, Result: -1, StartTime: when, Phase: st.phaseIndex(l.Num)}
	if status := resultStatus(l, text); !waits(l, status) {
		c.ResultLine, c.Result, c.EndTime = l.Num, l.Start, when
		c.Outcome = outcomeOf(status)
		if ms, ok := latencyIn(l, text); ok {
			c.Latency, c.HasLatency = ms, true
		}
	}
	return c
}

// completion is the call that o: line l (event e of chunk f) completes,
// completed; ok is false when it completes none.
func (st *SessionTracker) completion(f *followedSession, e int, l grammar.Line) (Call, bool) {
	t := st.fl.Tree()
	sum := f.State.sum
	id := sum.idOf(e)
	var startChunk *followedSession
	var startEvent int32
	if sh, ok := st.calls.many[id]; !ok || len(sh.order) < 2 {
		m := sum.events[e].match
		if m < 0 {
			return Call{}, false
		}
		startChunk, startEvent = f, m
	} else {
		var ok bool
		if startChunk, startEvent, ok = sh.startOf(f, e); !ok {
			return Call{}, false
		}
	}
	first, _ := st.fl.Place(startChunk)
	c := st.callAt(t.Line(first + int(startChunk.State.sum.events[startEvent].line)))
	text := t.Text(l)
	when, _ := timeIn(l, text)
	c.ResultLine, c.Result, c.EndTime = l.Num, l.Start, when
	c.Outcome = outcomeOf(resultStatus(l, text))
	switch {
	case !c.StartTime.IsZero() && !when.IsZero() && !when.Before(c.StartTime):
		c.Latency, c.HasLatency = when.Sub(c.StartTime), true
	default:
		if ms, ok := latencyIn(l, text); ok {
			c.Latency, c.HasLatency = ms, true
		}
	}
	return c, true
}

// startOf finds the call that event e of chunk f, an o: line, completes
// when the id's calls are matched across its chunks: the k-th completion
// of the id in the document completes its k-th waiting call.
func (sh *sharedCallID) startOf(f *followedSession, e int) (*followedSession, int32, bool) {
	ord := f.Ord()
	i, found := slices.BinarySearchFunc(sh.order, ord, func(g *followedSession, ord int) int { return g.Ord() - ord })
	if !found {
		return nil, 0, false
	}
	evs, base := f.State.sum.eventsOf(sh.id)
	waiting, pops := sh.startsBefore[i]-sh.popsBefore[i], sh.popsBefore[i]
	pop := int32(-1)
	for j, ev := range evs {
		switch {
		case ev.start:
			waiting++
		case waiting > 0:
			waiting--
			if base+j == e {
				pop = pops
			}
			pops++
		}
		if base+j == e {
			break
		}
	}
	if pop < 0 {
		return nil, 0, false
	}
	// The call: the pop-th waiting call of the id in the document.
	// The last chunk with fewer calls before it: chunks without calls of
	// the id share the count of the next.
	k := sort.Search(len(sh.startsBefore), func(k int) bool { return sh.startsBefore[k] > pop }) - 1
	g := sh.order[k]
	nth := pop - sh.startsBefore[k]
	gevs, gbase := g.State.sum.eventsOf(sh.id)
	for j, ev := range gevs {
		if ev.start {
			if nth == 0 {
				return g, int32(gbase + j), true
			}
			nth--
		}
	}
	return nil, 0, false
}
