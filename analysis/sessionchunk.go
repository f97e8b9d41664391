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
	tsMarks
	tokens tokenRun
}

// tsMarks are the times of a stretch of lines and its last non-empty line.
type tsMarks struct {
	// first is the first ts=, earliest the earliest (its first line on a
	// tie: the session's start), latest the latest (its last line: the
	// session's end) and peak the latest too (its first line: a phase's
	// latest, as BuildSession keeps them).
	first, earliest, latest, peak tsMark
	lastNonEmpty                  int32 // -1 when every line is empty
}

var noMarks = tsMarks{first: noTS, earliest: noTS, latest: noTS, peak: noTS, lastNonEmpty: -1}

// then takes in o, the marks of the lines after m's, whose lines start at
// line base of what m counts from.
func (m *tsMarks) then(o tsMarks, base int) {
	if !m.first.ok() {
		m.first = o.first.shift(base)
	}
	if e := o.earliest.shift(base); !m.earliest.ok() || e.ok() && e.before(m.earliest) {
		m.earliest = e // m on a tie: the earlier line
	}
	if l := o.latest.shift(base); l.ok() && (!m.latest.ok() || !l.before(m.latest)) {
		m.latest = l // o on a tie: the later line
	}
	if p := o.peak.shift(base); !m.peak.ok() || p.ok() && m.peak.before(p) {
		m.peak = p // m on a tie: the earlier line
	}
	if o.lastNonEmpty >= 0 {
		m.lastNonEmpty = o.lastNonEmpty + int32(base)
	}
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
			g.then(tsMarks{first: m, earliest: m, latest: m, peak: m, lastNonEmpty: -1}, 0)
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
				events = append(events, pending{id: string(valueOf(&l, text, l.ID)), result: -1,
					ev: callEvent{line: int32(rel), seg: int16(si), start: true}})
			default:
				g.unfinished++ // nothing can complete it
			}
		case grammar.Observation:
			if l.ID.Valid() {
				events = append(events, pending{id: string(valueOf(&l, text, l.ID)), result: len(s.results),
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
	return sessionSeg{line: int32(line), tsMarks: noMarks}
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

// countedAs says what a chunk's lines of message id, one of its own,
// count from: the message's usage before the chunk, when an earlier chunk
// counted it (known). Nil: no earlier chunk did.
type countedAs func(id string) (before usage.Counts, known bool)

// segsTokens sets each segment's token run from chunk i's usage lines.
func (s *sessionChunk) segsTokens(t *grammar.Tree, i int, counted countedAs) {
	for k, r := range chunkTokenRuns(t, i, s, counted) {
		s.segs[k].tokens = r
	}
}

// chunkTokenRuns counts chunk i's usage lines, segment by segment, by
// the usage rule: each line counts what it adds, a message with an id
// from what counted says came before the chunk (nil: nothing), the lines
// without one as far as the chunk can tell (tokenRun).
func chunkTokenRuns(t *grammar.Tree, i int, s *sessionChunk, counted countedAs) []tokenRun {
	c, first, _ := t.ChunkAt(i)
	runs := make([]tokenRun, len(s.segs))
	var cur map[string]usage.Counts // each message's usage so far
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
		m, seen := cur[u.MessageID]
		if !seen && counted != nil {
			m, seen = counted(u.MessageID)
		}
		if cur == nil {
			cur = map[string]usage.Counts{}
		}
		cur[u.MessageID] = m.Max(n)
		if seen {
			r.addKeyed(usage.Change{Grew: usage.Grow(m, n)})
		} else {
			r.addKeyed(usage.Change{New: true, Grew: n})
		}
	}
	return runs
}

// tokenRun is the usage rule's work on a stretch of usage lines, in a
// form that adds up stretch by stretch: what it counted, and what its
// start and end are to the stretches around it. A line without a message
// id is the message of the line just before it when that one has no
// message id either and the same input and cache counts; so only the
// stretch's first message (if it has no id: lead) depends on what came
// before, and only its last (if it has no id: tail) matters to what
// follows. Messages with an id are counted by the caller, each line what
// it adds (addKeyed).
type tokenRun struct {
	sum     Tokens // counting lead as a message of its own
	lead    usage.Counts
	hasLead bool
	// tail is the usage of the last line's message, when that line has
	// no message id (tailKeyed false); single says the stretch is that one
	// message alone (lead and tail are one).
	tail      usage.Counts
	tailKeyed bool
	single    bool
	any       bool // a line was seen
}

func (r *tokenRun) add(ch usage.Change) {
	r.sum.In += ch.Grew.In
	r.sum.Out += ch.Grew.Out
	r.sum.Cached += ch.Grew.Cached
	r.sum.CacheCreate += ch.Grew.CacheCreate
	if ch.New {
		r.sum.Messages++
	}
}

// addKeyed counts what a line with a message id adds.
func (r *tokenRun) addKeyed(ch usage.Change) {
	r.add(ch)
	r.tailKeyed, r.single, r.any = true, false, true
}

// addPlain counts a line without a message id.
func (r *tokenRun) addPlain(n usage.Counts) {
	switch {
	case !r.any:
		r.lead, r.hasLead, r.single = n, true, true
		r.tail = n
		r.add(usage.Change{New: true, Grew: n})
	case !r.tailKeyed && usage.SameRequest(r.tail, n):
		r.add(usage.Change{Grew: usage.Grow(r.tail, n)})
		r.tail = r.tail.Max(n)
		if r.single {
			r.lead = r.tail
		}
	default:
		r.add(usage.Change{New: true, Grew: n})
		r.tail, r.single = n, false
	}
	r.tailKeyed, r.any = false, true
}

// joins reports whether r's first message is the last of prev.
func (r tokenRun) joins(prev tokenRun) bool {
	return r.hasLead && prev.any && !prev.tailKeyed && usage.SameRequest(prev.tail, r.lead)
}

// after is what r counts when prev comes before it: its lead, when it is
// prev's last message, adds only what it raises.
func (r tokenRun) after(prev tokenRun) Tokens {
	s := r.sum
	if r.joins(prev) {
		g := usage.Grow(prev.tail, r.lead)
		s.In = s.In - r.lead.In + g.In
		s.Out = s.Out - r.lead.Out + g.Out
		s.Cached = s.Cached - r.lead.Cached + g.Cached
		s.CacheCreate = s.CacheCreate - r.lead.CacheCreate + g.CacheCreate
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
	out.tail, out.tailKeyed, out.single = b.tail, b.tailKeyed, false
	if b.joins(a) {
		merged := a.tail.Max(b.lead)
		if b.single {
			out.tail = merged
		}
		if a.single {
			out.lead = merged
			out.single = b.single
		}
	}
	return out
}

func addTokens(a, b Tokens) Tokens {
	return Tokens{In: a.In + b.In, Out: a.Out + b.Out, Cached: a.Cached + b.Cached, CacheCreate: a.CacheCreate + b.CacheCreate,
		Messages: a.Messages + b.Messages}
}
