package analysis

import (
	"cmp"
	"slices"
	"time"

	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/usage"
)

// sessionChunk is what the session statistics need from one chunk's body
// lines alone. Lines are numbered from the chunk's first line, so it stays
// valid wherever edits move the chunk; it is immutable, and memoized on
// the chunk when all its lines are body lines.
//
// The chunk is cut at its @phase lines into segments: segs[0] holds the
// lines before the first of them, and each @phase line opens one more.
// A phase's numbers are the sums of its segments, which may span chunks.
//
// Calls are matched to their results within the chunk: an o: line
// completes the oldest call of the chunk still waiting with its id. For an
// id whose calls and results are in several chunks, SessionTracker matches
// them across chunks and corrects the segments' counts.
type sessionChunk struct {
	segs []sessionSeg
	// events are the waiting calls with an id and the o: lines with one,
	// grouped by id in the order of ids, each group in line order;
	// events[idStart[k]:idStart[k+1]] are those of ids[k].
	events  []callEvent
	ids     []string // sorted
	idStart []int32
	// results are the lines that can end a call, in line order: o: lines
	// with an id, and calls that carry their result.
	results []resultMark
	// msgIDs are the message_id= values of the usage lines, sorted, and
	// msgMax each one's usage in the chunk (the largest of each count).
	msgIDs []string
	msgMax []usage.Counts
}

// sessionSeg is what one segment of a chunk counts.
type sessionSeg struct {
	line int32 // the @phase line that opens it, -1 for segs[0]
	// calls are the call lines, errors those that failed and unfinished
	// those that never got a result (as far as the chunk can tell).
	calls, errors, unfinished int32
	messages                  int32 // u: and a: lines
	// first is the first ts=, earliest the earliest (its first line on a
	// tie: the session's start), latest the latest (its last line: the
	// session's end) and peak the latest too (its first line: a phase's
	// latest, as BuildSession keeps them).
	first, earliest, latest, peak tsMark
	lastNonEmpty                  int32 // -1 when every line is empty
	tokens                        tokenRun
}

// tsMark is a line's ts= as an instant; line -1 means none. The time
// itself is read again from the line when it is shown.
type tsMark struct {
	line int32
	nsec int32
	sec  int64
}

var noTS = tsMark{line: -1}

func (m tsMark) ok() bool { return m.line >= 0 }

func (m tsMark) before(o tsMark) bool {
	return cmp.Or(cmp.Compare(m.sec, o.sec), cmp.Compare(m.nsec, o.nsec)) < 0
}

// shift moves a mark's line by n.
func (m tsMark) shift(n int) tsMark {
	if m.ok() {
		m.line += int32(n)
	}
	return m
}

// earliestOf is the earlier of two marks, a on a tie (a comes first).
func earliestOf(a, b tsMark) tsMark {
	if !a.ok() || b.ok() && b.before(a) {
		return b
	}
	return a
}

// latestOf is the later of two marks, b on a tie (b comes last).
func latestOf(a, b tsMark) tsMark {
	if !b.ok() || a.ok() && b.before(a) {
		return a
	}
	return b
}

// peakOf is the later of two marks, a on a tie.
func peakOf(a, b tsMark) tsMark {
	if !a.ok() || b.ok() && a.before(b) {
		return b
	}
	return a
}

// firstOf is a's mark if it has one, else b's.
func firstOf(a, b tsMark) tsMark {
	if a.ok() {
		return a
	}
	return b
}

func markOf(line int, when time.Time) tsMark {
	return tsMark{line: int32(line), sec: when.Unix(), nsec: int32(when.Nanosecond())}
}

// callEvent is a waiting call (start) or an o: line of one id.
type callEvent struct {
	line   int32
	seg    int16
	start  bool
	failed bool  // an o: line whose status is an error
	match  int32 // the index in events of the partner within the chunk, -1
}

// resultMark is a line that can end a call: event is the index of its
// o: line's event, -1 for a call that carries its result.
type resultMark struct {
	line, event int32
}

// eventsOf returns the events of call id, or nil.
func (s *sessionChunk) eventsOf(id string) (events []callEvent, first int) {
	k, ok := slices.BinarySearch(s.ids, id)
	if !ok {
		return nil, 0
	}
	return s.events[s.idStart[k]:s.idStart[k+1]], int(s.idStart[k])
}

// idOf is the id of event e.
func (s *sessionChunk) idOf(e int) string {
	k, _ := slices.BinarySearch(s.idStart, int32(e)+1)
	return s.ids[k-1]
}

// segAt is the index of the segment holding line rel.
func (s *sessionChunk) segAt(rel int) int {
	k, _ := slices.BinarySearchFunc(s.segs[1:], rel, func(g sessionSeg, rel int) int { return int(g.line) - rel })
	if k < len(s.segs)-1 && int(s.segs[k+1].line) == rel {
		return k + 1
	}
	return k
}

type sessionChunkKey struct{}

// sessionChunkOf returns chunk i's session summary, memoized on the chunk
// when all its lines are body lines.
func sessionChunkOf(t *grammar.Tree, i int) *sessionChunk {
	c, first, _ := t.ChunkAt(i)
	if first >= t.Region().BodyStart {
		return c.Memo(sessionChunkKey{}, func() any { return summarizeSession(t, i) }).(*sessionChunk)
	}
	return summarizeSession(t, i)
}

// summarizeSession reads chunk i's body lines.
func summarizeSession(t *grammar.Tree, i int) *sessionChunk {
	_, firstLine, _ := t.ChunkAt(i)
	s := &sessionChunk{segs: []sessionSeg{newSeg(-1)}}
	type pending struct {
		id     string
		ev     callEvent
		result int // its index in results, -1
	}
	var events []pending
	for l, text := range t.ChunkLines(i) {
		if !l.Kind.IsBody() {
			continue
		}
		rel := l.Num - firstLine
		if l.Kind == grammar.Phase {
			s.segs = append(s.segs, newSeg(rel))
		}
		si := len(s.segs) - 1
		g := &s.segs[si]
		if l.Kind != grammar.Empty {
			g.lastNonEmpty = int32(rel)
		}
		if when, ok := timeIn(l, text); ok {
			m := markOf(rel, when)
			g.first = firstOf(g.first, m)
			g.earliest = earliestOf(g.earliest, m)
			g.latest = latestOf(g.latest, m)
			g.peak = peakOf(g.peak, m)
		}
		switch l.Kind {
		case grammar.User, grammar.Agent:
			g.messages++
		case grammar.ToolStart, grammar.Tool, grammar.Mcp:
			g.calls++
			status := resultStatus(l, text)
			switch {
			case !waits(l, status):
				if outcomeOf(status) == Failed {
					g.errors++
				}
				s.results = append(s.results, resultMark{line: int32(rel), event: -1})
			case l.ID.Valid():
				events = append(events, pending{id: string(valueOf(l, text, l.ID)), result: -1,
					ev: callEvent{line: int32(rel), seg: int16(si), start: true}})
			default:
				g.unfinished++ // nothing can complete it
			}
		case grammar.Observation:
			if l.ID.Valid() {
				events = append(events, pending{id: string(valueOf(l, text, l.ID)), result: len(s.results),
					ev: callEvent{line: int32(rel), seg: int16(si), failed: outcomeOf(resultStatus(l, text)) == Failed}})
				s.results = append(s.results, resultMark{line: int32(rel)})
			}
		}
	}
	// Group the events by id, each id's in line order.
	slices.SortStableFunc(events, func(a, b pending) int { return cmp.Compare(a.id, b.id) })
	s.events = make([]callEvent, len(events))
	for k, p := range events {
		if k == 0 || p.id != events[k-1].id {
			s.ids = append(s.ids, p.id)
			s.idStart = append(s.idStart, int32(k))
		}
		s.events[k] = p.ev
		if p.result >= 0 {
			s.results[p.result].event = int32(k)
		}
	}
	s.idStart = append(s.idStart, int32(len(events)))
	s.matchLocally()
	s.msgIDs, s.msgMax = chunkMessages(t, i)
	s.segsTokens(t, i, nil)
	s.ids, s.idStart, s.results = exact(s.ids), exact(s.idStart), exact(s.results)
	return s
}

func newSeg(line int) sessionSeg {
	return sessionSeg{line: int32(line), first: noTS, earliest: noTS, latest: noTS, peak: noTS, lastNonEmpty: -1}
}

// matchLocally gives each o: line the oldest call of the chunk still
// waiting with its id, and counts what the calls became.
func (s *sessionChunk) matchLocally() {
	var queue []int32
	for k := range s.ids {
		events := s.events[s.idStart[k]:s.idStart[k+1]]
		base := s.idStart[k]
		queue = queue[:0]
		for e := range events {
			ev := &events[e]
			ev.match = -1
			if ev.start {
				queue = append(queue, base+int32(e))
				continue
			}
			if len(queue) == 0 {
				continue
			}
			qi := queue[0]
			queue = queue[1:]
			st := &s.events[qi]
			st.match, ev.match = base+int32(e), qi
			if ev.failed {
				s.segs[st.seg].errors++
			}
		}
		for _, q := range queue {
			s.segs[s.events[q].seg].unfinished++
		}
	}
}

// chunkMessages are the distinct message_id= values of chunk i's usage
// lines (but @end's, which are not counted), sorted, with each one's usage
// in the chunk.
func chunkMessages(t *grammar.Tree, i int) ([]string, []usage.Counts) {
	c, first, _ := t.ChunkAt(i)
	type rec struct {
		id string
		c  usage.Counts
	}
	var recs []rec
	for u := range t.UsageFrom(first) {
		if u.Line >= first+c.LineCount() {
			break
		}
		if u.MessageID != "" && !isEndSummary(t, u.Line) {
			recs = append(recs, rec{u.MessageID, countsOf(u)})
		}
	}
	if len(recs) == 0 {
		return nil, nil
	}
	slices.SortStableFunc(recs, func(a, b rec) int { return cmp.Compare(a.id, b.id) })
	var ids []string
	var maxes []usage.Counts
	for k, r := range recs {
		if k > 0 && r.id == recs[k-1].id {
			maxes[len(maxes)-1] = maxes[len(maxes)-1].Max(r.c)
			continue
		}
		ids = append(ids, r.id)
		maxes = append(maxes, r.c)
	}
	return slices.Clip(ids), slices.Clip(maxes)
}

// messageMax is message id's usage in the chunk.
func (s *sessionChunk) messageMax(id string) (usage.Counts, bool) {
	k, ok := slices.BinarySearch(s.msgIDs, id)
	if !ok {
		return usage.Counts{}, false
	}
	return s.msgMax[k], true
}

// countedAs says whether a chunk counts message id, first written in the
// chunk, and with what usage; nil counts every such message with its
// usage in the chunk.
type countedAs func(id string) (usage.Counts, bool)

// segsTokens sets each segment's token run from chunk i's usage lines.
func (s *sessionChunk) segsTokens(t *grammar.Tree, i int, counted countedAs) {
	for k, r := range chunkTokenRuns(t, i, s, counted) {
		s.segs[k].tokens = r
	}
}

// chunkTokenRuns counts chunk i's usage lines, segment by segment, by
// the usage rule: a message at its first line in the chunk, as counted
// says (nil: with its usage in the chunk), and the lines without a
// message id as the rule takes them, as far as the chunk can tell.
func chunkTokenRuns(t *grammar.Tree, i int, s *sessionChunk, counted countedAs) []tokenRun {
	c, first, _ := t.ChunkAt(i)
	runs := make([]tokenRun, len(s.segs))
	var local map[string]bool
	for u := range t.UsageFrom(first) {
		if u.Line >= first+c.LineCount() {
			break
		}
		if isEndSummary(t, u.Line) {
			continue
		}
		r := &runs[s.segAt(u.Line-first)]
		n := countsOf(u)
		if u.MessageID == "" {
			r.addPlain(n)
			continue
		}
		if local[u.MessageID] {
			r.addRepeat(n)
			continue
		}
		if local == nil {
			local = map[string]bool{}
		}
		local[u.MessageID] = true
		value, ok := s.messageMax(u.MessageID)
		if counted != nil {
			value, ok = counted(u.MessageID)
		}
		if ok {
			r.addMessage(n, value)
		} else {
			r.addRepeat(n)
		}
	}
	return runs
}

// tokenRun is the usage rule's work on a stretch of usage lines, in a
// form that adds up stretch by stretch: what it counted, and what its
// start and end are to the stretches around it. A line without a message
// id is the message before it when the usage line just before it has no
// message id either and the same numbers; so only the stretch's first line
// (if it has no message id: lead) depends on what came before, and only
// its last (last) matters to what follows. Messages with an id are counted
// whole at their first line (the caller knows their usage).
type tokenRun struct {
	sum       Tokens // counting lead
	lead      usage.Counts
	hasLead   bool
	last      usage.Counts // the last line
	lastKeyed bool
	any       bool // a line was seen (then last is set)
}

func (r *tokenRun) count(n usage.Counts) {
	r.sum.In += n.In
	r.sum.Out += n.Out
	r.sum.Cached += n.Cached
	r.sum.CacheCreate += n.CacheCreate
	r.sum.Messages++
}

// addMessage counts a message with an id, of usage value, at its line n.
func (r *tokenRun) addMessage(n, value usage.Counts) {
	r.count(value)
	r.last, r.lastKeyed, r.any = n, true, true
}

// addRepeat passes a line of a message with an id counted elsewhere.
func (r *tokenRun) addRepeat(n usage.Counts) {
	r.last, r.lastKeyed, r.any = n, true, true
}

// addPlain counts a line without a message id, unless it repeats the one
// before it.
func (r *tokenRun) addPlain(n usage.Counts) {
	switch {
	case !r.any:
		r.lead, r.hasLead = n, true
		r.count(n)
	case usage.Continues(r.last, r.lastKeyed, n):
		// The message before, again: not counted.
	default:
		r.count(n)
	}
	r.last, r.lastKeyed, r.any = n, false, true
}

// after is what r counts when prev comes before it.
func (r tokenRun) after(prev tokenRun) Tokens {
	s := r.sum
	if r.hasLead && prev.any && usage.Continues(prev.last, prev.lastKeyed, r.lead) {
		s.In -= r.lead.In
		s.Out -= r.lead.Out
		s.Cached -= r.lead.Cached
		s.CacheCreate -= r.lead.CacheCreate
		s.Messages--
	}
	return s
}

// then is a followed by b.
func (a tokenRun) then(b tokenRun) tokenRun {
	if !a.any {
		return b
	}
	if !b.any {
		return a
	}
	out := a
	out.sum = addTokens(a.sum, b.after(a))
	out.last, out.lastKeyed = b.last, b.lastKeyed
	return out
}

func addTokens(a, b Tokens) Tokens {
	return Tokens{In: a.In + b.In, Out: a.Out + b.Out, Cached: a.Cached + b.Cached, CacheCreate: a.CacheCreate + b.CacheCreate,
		Messages: a.Messages + b.Messages}
}
