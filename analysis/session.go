package analysis

import (
	"bytes"
	"cmp"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/usage"
)

// Session is what one log says about the session it records: the
// reference counters, where the time went (wall clock, phases, pauses),
// every tool call with its outcome and latency, the subagents, and the
// agent's pace (APM). `rlog-ls stats` prints it; the code lenses, inlay
// hints and the session view read the same values.
//
// Places are byte offsets and 0-based line numbers of the tree it was
// built from; times come from ts= values (RFC 3339), and a zero time.Time
// means the log does not say.
type Session struct {
	// Counters are the reference SessionStats counters, with token totals
	// that count each message once.
	Counters Stats
	// Start and End are the earliest and the latest ts= of the body, and
	// StartLine and EndLine their lines (-1 when the body has none).
	Start, End         time.Time
	StartLine, EndLine int
	// Messages counts the u: and a: lines: APM's "messages".
	Messages int
	// Calls are the t!:, t: and c: calls in the order of their start
	// lines.
	Calls []Call
	// Errors and Unfinished count the calls by outcome.
	Errors, Unfinished int
	// Latency is over every call with a measured latency.
	Latency Latency
	// Tools has one entry per tool name, most calls first (ties by name).
	Tools []ToolStats
	// Phases are the @phase sections in file order. Lines before the first
	// @phase belong to none.
	Phases []Phase
	// Subagents are the x: subagents, one per id (or per line without an
	// id), in the order they started.
	Subagents []Subagent
	// Gaps are the pauses between consecutive timestamps that last at
	// least SessionOptions.MinGap, in file order; LongestGap is the longest
	// pause of all (Duration 0 when there is none).
	Gaps       []Gap
	LongestGap Gap
	// APM is the agent's pace, (messages + tool calls) per minute.
	APM APM
	// CostUSD is the session's cost in US dollars as its last @end states
	// it (cost_usd=, the agent's own accounting); nil when none does.
	CostUSD *float64

	// byResult lists the indices of the calls that have a result, in the
	// order of their result lines.
	byResult []int32
	// calls counts the calls; latencies are each tool's measured
	// latencies, sorted, when Calls are not kept (SessionStream).
	calls     int
	latencies map[string][]time.Duration
}

// Tokens are the session's token totals, each message counted once.
func (s *Session) Tokens() Tokens {
	c := &s.Counters
	return Tokens{In: c.TokensIn, Out: c.TokensOut, Cached: c.TokensCached, CacheCreate: c.TokensCacheCreate, Messages: c.Messages}
}

// Duration is the wall-clock time from the earliest ts= to the latest;
// ok is false when the body has fewer than two distinct instants.
func (s *Session) Duration() (time.Duration, bool) {
	if s.StartLine < 0 {
		return 0, false
	}
	return WallClock(s.Start, s.End)
}

// WallClock is the time from start to end, the one rule of a
// session's duration (the sessions index's rows merge the times of a
// file's parts with it): ok is false unless end is after start.
func WallClock(start, end time.Time) (time.Duration, bool) {
	if !end.After(start) {
		return 0, false
	}
	return end.Sub(start), true
}

// Outcome is how a call ended, as far as the log says.
type Outcome uint8

const (
	// Unfinished: the call started (t!:, or a → [running] result) and no
	// o: line with its id followed.
	Unfinished Outcome = iota
	// Succeeded: any result but an error.
	Succeeded
	// Failed: the result's status is [error], starts with "err"
	// ([err: timeout]) or is another failure of the vocabulary ([denied],
	// [interrupted]): grammar.StatusFails.
	Failed
)

func (o Outcome) String() string {
	switch o {
	case Succeeded:
		return "ok"
	case Failed:
		return "error"
	}
	return "unfinished"
}

// Call is one tool or MCP call: where it starts and where its result is,
// how it ended and how long it took.
type Call struct {
	// Tool is the tool's name as written (Read, mcp__issues__issue_ready,
	// github.issues for c: lines).
	Tool string
	// Kind is the start line's kind: grammar.ToolStart, Tool or Mcp.
	Kind grammar.Kind
	// ID is the id= value's span, invalid when the line has none.
	ID grammar.Span
	// Line and Start are the start line and its first byte.
	Line, Start int
	// ResultLine and Result are the line that holds the result and its
	// first byte: the o: line, or the start line itself for a call that
	// carries its result (t:read x → [ok]); -1 when there is none.
	ResultLine, Result int
	Outcome            Outcome
	// StartTime and EndTime are the ts= of the start and result lines.
	StartTime, EndTime time.Time
	// Latency is EndTime − StartTime, or else the latency_ms= of the
	// result line (or of a one-line call); HasLatency says whether either
	// was there.
	Latency    time.Duration
	HasLatency bool
	// Phase is the index in Session.Phases of the phase the call starts
	// in, -1 before the first @phase.
	Phase int
}

// Latency summarizes measured call latencies. The median of an even count
// is the mean of the two middle values; P95 is the nearest-rank 95th
// percentile (the smallest latency at least 95% of the calls do not
// exceed).
type Latency struct {
	Measured         int
	Median, P95, Max time.Duration
}

// ToolStats are one tool's calls.
type ToolStats struct {
	Tool                      string
	Calls, Errors, Unfinished int
	Latency                   Latency
}

// Tokens is token usage counted once per message.
type Tokens struct {
	In, Out, Cached, CacheCreate uint64
	// Messages is how many distinct usage records were counted.
	Messages int
}

// Phase is one @phase section: from its @phase line to the line before
// the next @phase, or to the end of the log.
type Phase struct {
	Name string
	// Line and EndLine are the @phase line and the section's last line;
	// Start and End its byte range (End: the end of the last line's text).
	Line, EndLine, Start, End int
	// StartTime is the first ts= in the section; EndTime the next phase's
	// StartTime when it has one, else the section's latest ts=.
	StartTime, EndTime time.Time
	// Calls and Errors count the calls that start in the section.
	Calls, Errors int
	// Tokens is the usage counted on the section's lines: the messages
	// first counted in it, and what its lines add to a message counted
	// before (a later, larger copy of its usage).
	Tokens Tokens
}

// Duration is EndTime − StartTime; ok is false when either is unknown or
// time runs backwards.
func (p *Phase) Duration() (time.Duration, bool) {
	if p.StartTime.IsZero() || p.EndTime.IsZero() || p.EndTime.Before(p.StartTime) {
		return 0, false
	}
	return p.EndTime.Sub(p.StartTime), true
}

// Subagent is one x: subagent from the line that starts it to the line
// that ends it ([done] or [error]).
type Subagent struct {
	// Type is the subagent's kind as written after x: (explore, Explore).
	Type string
	// ID is its id= value's span (invalid when the line has none), IDText
	// the value.
	ID     grammar.Span
	IDText string
	// Line and Start are its first line and that line's first byte;
	// EndLine and End the line that ends it and its first byte, -1 while
	// it has not ended.
	Line, Start, EndLine, End int
	// Status is the last status written for it: started, done or error
	// (or whatever else its line said).
	Status             string
	StartTime, EndTime time.Time
}

// Duration is how long the subagent ran, when both ends have a ts=.
func (s *Subagent) Duration() (time.Duration, bool) {
	if s.StartTime.IsZero() || s.EndTime.IsZero() || s.EndTime.Before(s.StartTime) {
		return 0, false
	}
	return s.EndTime.Sub(s.StartTime), true
}

// Gap is a pause between two consecutive timestamped lines.
type Gap struct {
	// Line and Start are the line after the pause and its first byte;
	// PreviousLine the timestamped line before it.
	Line, Start, PreviousLine int
	Duration                  time.Duration
}

// APM is the autopilot's measure of pace: actions per minute, where the
// actions are the user and agent messages plus the tool calls, over the
// session's wall-clock minutes.
type APM struct {
	// Source says where the counts and the time came from: "rlog" (this
	// log's lines and ts= values) or "companion" (the lossless record
	// beside the log, which SessionOptions.Companion supplies).
	Source string
	// Companion names the companion the counts came from, when they did.
	Companion           string
	Messages, ToolCalls int
	Minutes             float64
	// Value is (Messages + ToolCalls) / Minutes; Known is false, and Value
	// 0, when the duration is unknown or zero.
	Value float64
	Known bool
}

// ActionCounts are what APM is computed from, when something other than
// the rlog itself supplies them.
type ActionCounts struct {
	// Source names where they were read (a companion file's path).
	Source              string
	Messages, ToolCalls int
	Start, End          time.Time
}

// The APM sources.
const (
	APMFromRlog      = "rlog"
	APMFromCompanion = "companion"
)

// SessionOptions tune BuildSession.
type SessionOptions struct {
	// MinGap is the shortest pause Session.Gaps lists: 0 means a minute,
	// a negative value lists none.
	MinGap time.Duration
	// Companion, when set, supplies APM's counts and wall-clock span from
	// the session's lossless record (the autopilot's JSONL or trajectory
	// JSON beside the log), which, unlike the rlog, truncates nothing. The
	// rlog's own counts are used without it.
	Companion *ActionCounts
}

// DefaultMinGap is the pause Session.Gaps lists by default.
const DefaultMinGap = time.Minute

// sessionKey memoizes a tree's Session per options: the companion's counts
// by value, so a companion read again with the same counts shares it.
type sessionKey struct {
	minGap       time.Duration
	companion    ActionCounts
	hasCompanion bool
}

// sessionOnce computes a memoized Session once: the code lenses, the
// inlay hints and the session view of one document version ask for it at
// the same moment, and each would otherwise build its own.
type sessionOnce struct {
	once sync.Once
	s    *Session
}

// SessionOf returns the statistics of t with the default options and no
// companion, computed once per tree.
func SessionOf(t *grammar.Tree) *Session { return SessionFor(t, SessionOptions{}) }

// SessionFor returns BuildSession(t, opts), computed once per tree and
// options (a companion's counts are compared by value).
func SessionFor(t *grammar.Tree, opts SessionOptions) *Session {
	key := sessionKey{minGap: opts.MinGap}
	if opts.Companion != nil {
		key.companion, key.hasCompanion = *opts.Companion, true
	}
	o := t.Memo(key, func() any { return &sessionOnce{} }).(*sessionOnce)
	o.once.Do(func() { o.s = BuildSession(t, opts) })
	return o.s
}

// BuildSession computes a log's statistics in one pass over its body,
// then one over its token usage. The result holds no part of the tree's
// text (names are copied, one copy per distinct tool).
func BuildSession(t *grammar.Tree, opts SessionOptions) *Session {
	b := newSessionBuilder(opts, true)
	b.window(t)
	return b.end(t)
}

// SessionStream builds a log's Session from its windows (a
// grammar.Stream's), in order, keeping of the text only what the current
// window holds: `rlog-ls stats` reads a log once, in memory that does not
// grow with it but for its call ids, the latencies of its calls and what
// it lists (phases, subagents, and the pauses of SessionOptions.MinGap:
// none when it is negative). It is BuildSession's pass, window by window;
// the Session it ends with is BuildSession's, but that it keeps no Calls
// (CallCount counts them, and Latencies has each tool's).
type SessionStream struct {
	b    *sessionBuilder
	last *grammar.Tree
}

// NewSessionStream starts the statistics of a log read window by window.
func NewSessionStream(opts SessionOptions) *SessionStream {
	return &SessionStream{b: newSessionBuilder(opts, false)}
}

// Window reads the log's next window.
func (ss *SessionStream) Window(t *grammar.Tree) {
	ss.b.window(t)
	ss.last = t
}

// End returns the statistics, after the last window.
func (ss *SessionStream) End() *Session { return ss.b.end(ss.last) }

// OnCall, set before the first window, has each call handed to f once,
// when its outcome is known: when its result is read, or at End for the
// calls still waiting for one. n is the call's number in the order of the
// calls' start lines (its index in BuildSession's Calls). The session view
// lays the calls out from them.
func (ss *SessionStream) OnCall(f func(n int, c *Call)) { ss.b.onCall = f }

// Subagents are the subagents started in the windows read so far.
func (ss *SessionStream) Subagents() []Subagent { return ss.b.s.Subagents }

// SkipUniqueCallIDs, set before the first window, leaves the session's
// Counters.UniqueCallIDs 0 for a reader that shows no counters (the
// session view), which then does not need the set of every call id.
func (ss *SessionStream) SkipUniqueCallIDs() { ss.b.skipIDs = true }

func newSessionBuilder(opts SessionOptions, keepCalls bool) *sessionBuilder {
	b := &sessionBuilder{s: &Session{StartLine: -1, EndLine: -1}, opts: opts, keepCalls: keepCalls, minGap: opts.MinGap,
		prevTS: -1, names: map[string]string{}, pending: map[string][]int{}, subagentByID: map[string]int{},
		toolIndex: map[string]int{}, usagePhase: -1}
	if b.minGap == 0 {
		b.minGap = DefaultMinGap
	}
	return b
}

// window reads the body lines of t (the whole document, or a window of
// it, after the windows before it), then their token usage.
func (b *sessionBuilder) window(t *grammar.Tree) {
	b.t = t
	for l := range t.Body() {
		b.line(l)
	}
	b.usage()
}

// end finishes the statistics; last is the tree of the document's last
// line.
func (b *sessionBuilder) end(last *grammar.Tree) *Session {
	s := b.s
	s.Counters.TotalLines = last.BodyLineCount()
	s.Counters.UniqueCallIDs = b.ids.Len()
	b.finishPhases()
	s.Counters.setUsage(&b.usageCounter)
	b.tools()
	s.Latency = latencyOf(b.allLatencies)
	if b.keepCalls {
		s.indexResults()
	}
	s.APM = apmOf(s.Messages, s.calls, s.Start, s.End, s.StartLine >= 0, b.opts.Companion)
	b.t = nil
	return s
}

type sessionBuilder struct {
	t      *grammar.Tree
	s      *Session
	opts   SessionOptions
	minGap time.Duration
	// keepCalls keeps every call in Session.Calls; without it only the
	// calls waiting for a result are kept, in open (freed slots in free),
	// and a call is counted when it ends.
	keepCalls bool
	open      []Call
	openNum   []int // the number of each call in open
	free      []int
	onCall    func(n int, c *Call)
	skipIDs   bool // SkipUniqueCallIDs: ids is not filled
	// the previous timestamped line and its time, for gaps
	prevTS   int
	prevTime time.Time
	// names interns tool and subagent names: one string per distinct name
	names map[string]string
	// pending maps a call id to the calls still waiting for a result with
	// it (indices in Session.Calls, or in open), oldest first; emptied
	// queues are deleted
	pending      map[string][]int
	subagentByID map[string]int
	ids          idIndex
	allLatencies []time.Duration
	// each tool's index in Session.Tools, and its measured latencies
	toolIndex     map[string]int
	toolLatencies [][]time.Duration
	// the token usage counted so far, and the phase of the last usage line
	usageCounter UsageCounter
	usagePhase   int
	// the open phase's index, -1 before the first
	phase int
	// for the open phase: its first timestamp is set once
	phaseHasTS bool
	// latest timestamp of the open phase
	phaseLatest time.Time
	started     bool
}

func (b *sessionBuilder) name(span grammar.Span) string {
	raw := b.t.Slice(span.Start, span.End)
	if n, ok := b.names[string(raw)]; ok {
		return n
	}
	n := string(raw)
	b.names[n] = n
	return n
}

func (b *sessionBuilder) line(l grammar.Line) {
	t, s := b.t, b.s
	if !b.started {
		b.started, b.phase = true, -1
	}
	ids := &b.ids
	if b.skipIDs {
		ids = nil
	}
	s.Counters.count(t, l, ids)
	when, hasTime := timeIn(l, t.Text(l))
	if hasTime {
		b.timestamp(l, when)
	}
	switch l.Kind {
	case grammar.User, grammar.Agent:
		s.Messages++
	case grammar.Phase:
		b.openPhase(l)
	case grammar.ToolStart, grammar.Tool, grammar.Mcp:
		b.call(l, when)
	case grammar.Observation:
		b.observation(l, when)
	case grammar.Subagent:
		b.subagent(l, when)
	case grammar.Lifecycle:
		if c, ok := costOnEnd(t, l.Num); ok {
			s.CostUSD = &c
		}
	}
	if b.phase >= 0 {
		p := &s.Phases[b.phase]
		if l.Kind != grammar.Empty {
			p.EndLine, p.End = l.Num, l.End
		}
		if hasTime {
			if !b.phaseHasTS {
				p.StartTime, b.phaseHasTS = when, true
			}
			if when.After(b.phaseLatest) {
				b.phaseLatest = when
			}
		}
	}
}

// timestamp records a line's time: the session's span and the pause since
// the previous timestamped line.
func (b *sessionBuilder) timestamp(l grammar.Line, when time.Time) {
	s := b.s
	if s.StartLine < 0 || when.Before(s.Start) {
		s.Start, s.StartLine = when, l.Num
	}
	if s.EndLine < 0 || !when.Before(s.End) {
		s.End, s.EndLine = when, l.Num
	}
	if b.prevTS >= 0 {
		if d := when.Sub(b.prevTime); d > 0 {
			g := Gap{Line: l.Num, Start: l.Start, PreviousLine: b.prevTS, Duration: d}
			if b.minGap > 0 && d >= b.minGap {
				s.Gaps = append(s.Gaps, g)
			}
			if d > s.LongestGap.Duration {
				s.LongestGap = g
			}
		}
	}
	b.prevTS, b.prevTime = l.Num, when
}

func (b *sessionBuilder) openPhase(l grammar.Line) {
	b.closePhase()
	b.s.Phases = append(b.s.Phases, Phase{Name: b.name(l.Name), Line: l.Num, EndLine: l.Num, Start: l.Start, End: l.End})
	b.phase = len(b.s.Phases) - 1
	b.phaseHasTS, b.phaseLatest = false, time.Time{}
}

// closePhase gives the open phase its provisional end time, its latest
// timestamp; finishPhases moves it to the next phase's start.
func (b *sessionBuilder) closePhase() {
	if b.phase >= 0 {
		b.s.Phases[b.phase].EndTime = b.phaseLatest
	}
}

func (b *sessionBuilder) finishPhases() {
	if b.started {
		b.closePhase()
	}
	ps := b.s.Phases
	for i := range ps {
		if i+1 < len(ps) && !ps[i+1].StartTime.IsZero() && !ps[i].StartTime.IsZero() {
			ps[i].EndTime = ps[i+1].StartTime
		}
	}
}

// status returns the [status] word at the start of a line's result, or
// nil.
func (b *sessionBuilder) status(l grammar.Line) []byte { return resultStatus(l, b.t.Text(l)) }

// resultStatus returns the [status] word at the start of the result of
// line l, whose text is text, or nil.
func resultStatus(l grammar.Line, text []byte) []byte {
	if !l.Result.Valid() {
		return nil
	}
	res := text[l.Result.Start-l.Start : l.Result.End-l.Start]
	if len(res) < 2 || res[0] != '[' {
		return nil
	}
	if e := bytes.IndexByte(res, ']'); e > 0 {
		return res[1:e]
	}
	return nil
}

// waits reports whether a call line leaves its call waiting for an o:
// line: a t!: line, or a call whose result says [running].
func waits(l grammar.Line, status []byte) bool {
	return l.Kind == grammar.ToolStart || bytes.Equal(status, []byte("running"))
}

func outcomeOf(status []byte) Outcome {
	if grammar.StatusFails(status) {
		return Failed
	}
	return Succeeded
}

func (b *sessionBuilder) call(l grammar.Line, when time.Time) {
	s := b.s
	c := Call{Tool: b.name(l.Name), Kind: l.Kind, ID: l.ID, Line: l.Num, Start: l.Start,
		ResultLine: -1, Result: -1, StartTime: when, Phase: b.phase}
	status := b.status(l)
	waiting := waits(l, status)
	if !waiting {
		c.ResultLine, c.Result, c.EndTime = l.Num, l.Start, when
		c.Outcome = outcomeOf(status)
		if ms, ok := b.latencyMS(l); ok {
			c.Latency, c.HasLatency = ms, true
		}
	}
	n := s.calls
	s.calls++
	k := b.tool(c.Tool)
	s.Tools[k].Calls++
	if c.Phase >= 0 {
		s.Phases[c.Phase].Calls++
	}
	switch {
	case waiting && l.ID.Valid():
		id := b.t.Slice(l.ID.Start, l.ID.End)
		b.pending[string(id)] = append(b.pending[string(id)], b.keep(n, c))
	case waiting:
		// Nothing can end it.
		s.Unfinished++
		s.Tools[k].Unfinished++
		if b.keepCalls {
			b.keep(n, c)
		}
		if b.onCall != nil {
			b.onCall(n, &c)
		}
	default:
		if b.keepCalls {
			b.keep(n, c)
		}
		b.finished(n, &c)
	}
}

// tool is the index in Session.Tools of the tool named name, which it
// adds when it is new.
func (b *sessionBuilder) tool(name string) int {
	k, ok := b.toolIndex[name]
	if !ok {
		k = len(b.s.Tools)
		b.toolIndex[name] = k
		b.s.Tools = append(b.s.Tools, ToolStats{Tool: name})
		b.toolLatencies = append(b.toolLatencies, nil)
	}
	return k
}

// keep keeps call number n, c, and returns its index: in Session.Calls
// (n), or without keepCalls in open, where it stays until it ends.
func (b *sessionBuilder) keep(n int, c Call) int {
	if b.keepCalls {
		b.s.Calls = append(b.s.Calls, c)
		return n
	}
	if k := len(b.free); k > 0 {
		i := b.free[k-1]
		b.free = b.free[:k-1]
		b.open[i], b.openNum[i] = c, n
		return i
	}
	b.open, b.openNum = append(b.open, c), append(b.openNum, n)
	return len(b.open) - 1
}

// kept is the call keep returned i for, and its number.
func (b *sessionBuilder) kept(i int) (*Call, int) {
	if b.keepCalls {
		return &b.s.Calls[i], i
	}
	return &b.open[i], b.openNum[i]
}

// observation completes the oldest call still waiting with its id.
func (b *sessionBuilder) observation(l grammar.Line, when time.Time) {
	if !l.ID.Valid() {
		return
	}
	id := b.t.Slice(l.ID.Start, l.ID.End)
	queue, ok := b.pending[string(id)]
	if !ok {
		return
	}
	i := queue[0]
	if len(queue) == 1 {
		delete(b.pending, string(id))
	} else {
		b.pending[string(id)] = queue[1:]
	}
	c, n := b.kept(i)
	c.ResultLine, c.Result, c.EndTime = l.Num, l.Start, when
	c.Outcome = outcomeOf(b.status(l))
	switch {
	case !c.StartTime.IsZero() && !when.IsZero() && !when.Before(c.StartTime):
		c.Latency, c.HasLatency = when.Sub(c.StartTime), true
	default:
		if ms, ok := b.latencyMS(l); ok {
			c.Latency, c.HasLatency = ms, true
		}
	}
	b.finished(n, c)
	if !b.keepCalls {
		b.open[i] = Call{}
		b.free = append(b.free, i)
	}
}

// finished counts the outcome and latency of call number n, c, which has
// ended; calls still waiting at the end stay Unfinished and are counted by
// unfinished.
func (b *sessionBuilder) finished(n int, c *Call) {
	k := b.toolIndex[c.Tool]
	if c.Outcome == Failed {
		b.s.Errors++
		b.s.Tools[k].Errors++
		if c.Phase >= 0 {
			b.s.Phases[c.Phase].Errors++
		}
	}
	if c.HasLatency {
		b.allLatencies = append(b.allLatencies, c.Latency)
		b.toolLatencies[k] = append(b.toolLatencies[k], c.Latency)
	}
	if b.onCall != nil {
		b.onCall(n, c)
	}
}

// unfinished counts the calls still waiting for a result at the end.
func (b *sessionBuilder) unfinished() {
	for _, queue := range b.pending {
		for _, i := range queue {
			c, n := b.kept(i)
			b.s.Unfinished++
			b.s.Tools[b.toolIndex[c.Tool]].Unfinished++
			if b.onCall != nil {
				b.onCall(n, c)
			}
		}
	}
}

var latencyKey = []byte("latency_ms=")

// latencyMS reads a line's latency_ms=, a whole number of milliseconds.
func (b *sessionBuilder) latencyMS(l grammar.Line) (time.Duration, bool) {
	return latencyIn(l, b.t.Text(l))
}

// latencyIn reads the latency_ms= of line l, whose text is text.
func latencyIn(l grammar.Line, text []byte) (time.Duration, bool) {
	if !bytes.Contains(text, latencyKey) {
		return 0, false
	}
	// Past the tool's name on a call line; an o: line has no name.
	from := l.Content - l.Start
	if l.Name.Valid() {
		from = l.Name.End - l.Start
	}
	v, ok := grammar.ValueOf(text[:l.TrimEnd-l.Start], "latency_ms", from)
	if !ok {
		return 0, false
	}
	n, ok := atoi(text[v.Start:v.End])
	if !ok {
		return 0, false
	}
	return time.Duration(n) * time.Millisecond, true
}

// timeIn reads the ts= of line l, whose text is text.
func timeIn(l grammar.Line, text []byte) (time.Time, bool) {
	if !l.TS.Valid() {
		return time.Time{}, false
	}
	return timestampValue(text[l.TS.Start-l.Start : l.TS.End-l.Start])
}

func (b *sessionBuilder) subagent(l grammar.Line, when time.Time) {
	s := b.s
	status := string(b.status(l))
	ends := isSubagentEnd(b.t.Slice(l.Content, l.TrimEnd))
	var id string
	if l.ID.Valid() {
		id = string(b.t.Slice(l.ID.Start, l.ID.End))
		if i, ok := b.subagentByID[id]; ok && s.Subagents[i].EndLine < 0 {
			sa := &s.Subagents[i]
			if status != "" {
				sa.Status = status
			}
			if ends {
				sa.EndLine, sa.End, sa.EndTime = l.Num, l.Start, when
				delete(b.subagentByID, id)
			}
			return
		}
	}
	sa := Subagent{Type: b.name(l.Name), ID: l.ID, IDText: id, Line: l.Num, Start: l.Start, EndLine: -1, End: -1,
		Status: status, StartTime: when}
	if ends {
		sa.EndLine, sa.End, sa.EndTime = l.Num, l.Start, when
	}
	s.Subagents = append(s.Subagents, sa)
	if id != "" && !ends {
		b.subagentByID[id] = len(s.Subagents) - 1
	}
}

// usage adds the token usage of the tree's (or window's) body lines, by
// the usage rule, to the session and to the phases: each line's part to
// the phase it is in (a message's first line counts it; a later line, in
// this window or a later one, adds what it raises).
func (b *sessionBuilder) usage() {
	s, t, c := b.s, b.t, &b.usageCounter
	for u := range t.Usage() {
		ch := c.Add(t, u)
		if ch.Grew.IsZero() && !ch.New {
			continue
		}
		// Usage comes in file order: the phase only moves forward.
		for b.usagePhase+1 < len(s.Phases) && s.Phases[b.usagePhase+1].Line <= u.Line {
			b.usagePhase++
		}
		if b.usagePhase >= 0 {
			s.Phases[b.usagePhase].Tokens = s.Phases[b.usagePhase].Tokens.add(ch)
		}
	}
}

// add is tk with what a usage line changed.
func (tk Tokens) add(ch usage.Change) Tokens {
	tk.In += ch.Grew.In
	tk.Out += ch.Grew.Out
	tk.Cached += ch.Grew.Cached
	tk.CacheCreate += ch.Grew.CacheCreate
	if ch.New {
		tk.Messages++
	}
	return tk
}

// tools summarises each tool's latencies and sorts the tools; without
// keepCalls the latencies are kept for Session.Latencies.
func (b *sessionBuilder) tools() {
	b.unfinished()
	s := b.s
	if !b.keepCalls {
		s.latencies = make(map[string][]time.Duration, len(s.Tools))
	}
	for k := range s.Tools {
		s.Tools[k].Latency = latencyOf(b.toolLatencies[k])
		if !b.keepCalls {
			s.latencies[s.Tools[k].Tool] = b.toolLatencies[k]
		}
	}
	SortTools(s.Tools)
}

// CallCount is the number of calls (len(Calls) when the session keeps
// them).
func (s *Session) CallCount() int { return s.calls }

// Latencies are the measured latencies of the calls of tool, sorted (to
// merge the latencies of several sessions).
func (s *Session) Latencies(tool string) []time.Duration {
	if s.latencies != nil {
		return s.latencies[tool]
	}
	var out []time.Duration
	for i := range s.Calls {
		if c := &s.Calls[i]; c.Tool == tool && c.HasLatency {
			out = append(out, c.Latency)
		}
	}
	slices.Sort(out)
	return out
}

// SortTools puts the tools with the most calls first, ties by name.
func SortTools(ts []ToolStats) {
	slices.SortStableFunc(ts, func(a, b ToolStats) int {
		return cmp.Or(cmp.Compare(b.Calls, a.Calls), cmp.Compare(a.Tool, b.Tool))
	})
}

// latencyOf summarizes latencies; it sorts them in place.
func latencyOf(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	slices.Sort(ds)
	n := len(ds)
	l := Latency{Measured: n, Max: ds[n-1]}
	if n%2 == 1 {
		l.Median = ds[n/2]
	} else {
		l.Median = (ds[n/2-1] + ds[n/2]) / 2
	}
	l.P95 = ds[int(math.Ceil(0.95*float64(n)))-1]
	return l
}

// MergeLatencies summarizes the latencies of several sets at once (the
// totals of many sessions); it sorts ds in place.
func MergeLatencies(ds []time.Duration) Latency { return latencyOf(ds) }

// apmOf is the APM of a session with these messages, calls and span
// (known: the body has a ts=), or of its companion's counts when there is
// one.
func apmOf(messages, calls int, start, end time.Time, known bool, companion *ActionCounts) APM {
	a := APM{Source: APMFromRlog, Messages: messages, ToolCalls: calls}
	if companion != nil {
		a = APM{Source: APMFromCompanion, Companion: companion.Source, Messages: companion.Messages, ToolCalls: companion.ToolCalls}
		start, end, known = companion.Start, companion.End, !companion.Start.IsZero() && !companion.End.IsZero()
	}
	if known && end.After(start) {
		a.Minutes = float64(end.Sub(start).Milliseconds()) / 60000
	}
	a.Value, a.Known = ComputeAPM(a.Messages, a.ToolCalls, a.Minutes)
	return a
}

// ComputeAPM is the autopilot's formula: (messages + tool calls) per
// minute, with no value for a duration that is not positive.
func ComputeAPM(messages, toolCalls int, minutes float64) (float64, bool) {
	if minutes <= 0 {
		return 0, false
	}
	return float64(messages+toolCalls) / minutes, true
}

func (s *Session) indexResults() {
	for i := range s.Calls {
		if s.Calls[i].Result >= 0 {
			s.byResult = append(s.byResult, int32(i))
		}
	}
	slices.SortStableFunc(s.byResult, func(a, b int32) int { return s.Calls[a].Result - s.Calls[b].Result })
}

// CallsStartingIn returns the calls whose start line begins in the byte
// range [start, end), in order.
func (s *Session) CallsStartingIn(start, end int) []Call {
	lo, _ := slices.BinarySearchFunc(s.Calls, start, func(c Call, off int) int { return c.Start - off })
	hi, _ := slices.BinarySearchFunc(s.Calls, end, func(c Call, off int) int { return c.Start - off })
	return s.Calls[lo:max(lo, hi):max(lo, hi)]
}

// CallsEndingIn returns the calls whose result line begins in the byte
// range [start, end), in the order of their result lines (an inlay hint
// after each o: line shows its call's latency).
func (s *Session) CallsEndingIn(start, end int) []Call {
	at := func(off int) int {
		i, _ := slices.BinarySearchFunc(s.byResult, off, func(k int32, off int) int { return s.Calls[k].Result - off })
		return i
	}
	var out []Call
	for _, k := range s.byResult[at(start):max(at(start), at(end))] {
		out = append(out, s.Calls[k])
	}
	return out
}

// GapsIn returns the pauses of at least min before the timestamped lines
// that begin in the byte range [start, end) of t, in file order. The
// timestamp before the range is found through the chunk summaries, so the
// cost is that of the range, whatever the document's size.
func GapsIn(t *grammar.Tree, start, end int, min time.Duration) []Gap {
	first := t.LineAt(start)
	if t.Line(first).Start < start {
		first++
	}
	prev, prevTime := -1, time.Time{}
	if n, ok := previousTimestampLine(t, first); ok {
		l := t.Line(n)
		if when, ok := timestampValue(t.Slice(l.TS.Start, l.TS.End)); ok {
			prev, prevTime = n, when
		}
	}
	var out []Gap
	for l := range t.LinesFrom(first) {
		if l.Start >= end {
			break
		}
		if !l.Kind.IsBody() || !l.TS.Valid() {
			continue
		}
		when, ok := timestampValue(t.Slice(l.TS.Start, l.TS.End))
		if !ok {
			continue
		}
		if prev >= 0 {
			if d := when.Sub(prevTime); d > 0 && d >= min {
				out = append(out, Gap{Line: l.Num, Start: l.Start, PreviousLine: prev, Duration: d})
			}
		}
		prev, prevTime = l.Num, when
	}
	return out
}

// costOnEnd is the cost in US dollars that line n states (cost_usd=) when
// it is an @end line: the agent's own accounting of the session, which
// the last @end that states one gives.
func costOnEnd(t *grammar.Tree, n int) (float64, bool) {
	if !isEndSummary(t, n) {
		return 0, false
	}
	text := t.Text(t.Line(n))
	v, ok := grammar.ValueOf(text, grammar.KeyCostUSD.String(), 0)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(text[v.Start:v.End]), 64)
	return f, err == nil
}

// FormatCost writes a cost in US dollars as stats, the lenses and the
// report's card show it: "$0.217296".
func FormatCost(usd float64) string { return "$" + strconv.FormatFloat(usd, 'g', 6, 64) }
