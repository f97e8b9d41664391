// Package otlp exports sessions as OpenTelemetry traces (OTLP), on the
// GenAI semantic conventions, for the tracing backends teams already run
// (Jaeger, Tempo, Phoenix, any OTLP endpoint).
//
// A session is read through the one session model (convert/model), by the
// reader of its format, and mapped as it streams (docs/otel.md has the
// table): the session is a root `invoke_agent` span, each model response a
// `chat` span, each tool call an `execute_tool` span under the response
// that made it, each sub-agent a nested `invoke_agent` span; phases and
// compactions are events of the root. Token counts come from the usage
// rule (model.Ledger), times from the log: a session whose first events
// have no time is refused, never given made-up times.
//
// Ids are derived from the session id and the place of each event in the
// log, and every span is written from the log alone (no export time, no
// rlog-ls version), so exporting a session twice sends the same bytes and
// a backend that drops identical spans (Jaeger) keeps one copy.
//
// Spans are made when they end, children before their parents, so memory
// holds the calls still waiting for their results and the responses
// waiting for their calls, never the session.
package otlp

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/usage"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// ScopeName is the instrumentation scope of every span. It has no version:
// a new rlog-ls would otherwise make every span of a re-export differ.
const ScopeName = "github.com/rlog-ls/rlog-ls"

// DefaultMaxAttr is the default cap of an attribute value, in bytes.
const DefaultMaxAttr = 10 << 10

// minNameCap is the least a span name is cut to: a tool or model name
// longer than the attribute cap still names its span.
const minNameCap = 256

// maxEvents is how many events one span keeps (the OTel SDKs' default
// limit); the rest are counted in its dropped_events_count and reported.
const maxEvents = 128

// Options tune an export.
type Options struct {
	// IncludeContent adds the messages, tool arguments and results, with
	// every credential-like value redacted as `rlog-ls redact` does.
	IncludeContent bool
	// MaxAttr caps a string attribute's value in bytes (DefaultMaxAttr
	// when 0); a longer value is cut at a character boundary and the cut
	// reported.
	MaxAttr int
}

func (o Options) maxAttr() int {
	if o.MaxAttr > 0 {
		return o.MaxAttr
	}
	return DefaultMaxAttr
}

// Spans receives a session's spans as they end: Resource once before its
// first span, then each span, children before their parents.
type Spans interface {
	Resource(r *resourcepb.Resource) error
	Span(s *tracepb.Span) error
}

// The GenAI semantic conventions' names, and ours under rlog.
const (
	attrOperation       = "gen_ai.operation.name"
	attrProvider        = "gen_ai.provider.name"
	attrRequestModel    = "gen_ai.request.model"
	attrResponseModel   = "gen_ai.response.model"
	attrResponseID      = "gen_ai.response.id"
	attrConversation    = "gen_ai.conversation.id"
	attrAgentName       = "gen_ai.agent.name"
	attrAgentID         = "gen_ai.agent.id"
	attrToolName        = "gen_ai.tool.name"
	attrToolCallID      = "gen_ai.tool.call.id"
	attrToolArguments   = "gen_ai.tool.call.arguments"
	attrToolResult      = "gen_ai.tool.call.result"
	attrInputTokens     = "gen_ai.usage.input_tokens"
	attrOutputTokens    = "gen_ai.usage.output_tokens"
	attrCacheRead       = "gen_ai.usage.cache_read.input_tokens"
	attrCacheCreation   = "gen_ai.usage.cache_creation.input_tokens"
	attrInputMessages   = "gen_ai.input.messages"
	attrOutputMessages  = "gen_ai.output.messages"
	attrOutcome         = "rlog.call.outcome"
	attrStatus          = "rlog.call.status"
	attrSubagentStatus  = "rlog.subagent.status"
	attrSourceFormat    = "rlog.source.format"
	attrPhase           = "rlog.phase.name"
	attrCompactTrigger  = "rlog.compaction.trigger"
	attrCompactTokens   = "rlog.compaction.tokens_before"
	attrAgentVersion    = "rlog.agent.version"
	attrUnattributedIn  = "rlog.usage.outside_responses"
	opInvokeAgent       = "invoke_agent"
	opChat              = "chat"
	opExecuteTool       = "execute_tool"
	eventPhase          = "phase"
	eventCompaction     = "compaction"
	eventInterrupted    = "interrupted"
	eventDenied         = "denied"
	serviceNameFallback = "unknown-agent"
)

// session maps one session's events to spans. It is a model.Sink.
type session struct {
	opts   Options
	rep    *model.Report
	out    Spans
	hdr    model.Header // the final header, from the first pass
	key    string
	trace  []byte
	ledger model.Ledger

	main   *agent
	agents map[string]*agent // open sub-agents by id

	last     time.Time // the latest event time seen in file order
	hasLast  bool
	lastLoc  model.Loc
	ordinal  int
	rootEvts []*tracepb.Span_Event
	dropped  uint32
	outside  usage.Counts // usage on events outside any response
	stats    *Stats
	opened   int // sub-agents opened so far
	started  bool
	failures error
}

// agent is the main agent or one sub-agent: its span and what is open in it.
type agent struct {
	id, typ, callID, status string
	span, parent            []byte
	interval
	turns []*turn
	calls map[string]*call
	input textBuf // user messages since its last response (content)
	up    *agent
	loc   model.Loc
}

// turn is one model response: a chat span covering the response's events
// and the calls it made.
type turn struct {
	span      []byte
	messageID string
	model     string
	interval
	usage   usage.Counts
	counted bool // an event of the response had usage
	sealed  bool
	pending int
	input   string
	output  []outPart
	outLen  int
	outCut  bool
}

type outPart struct{ kind, text string }

// call is a tool call waiting for its result.
type call struct {
	span     []byte
	turn     *turn
	id, name string
	start    time.Time
	args     string
	loc      model.Loc
}

// interval is a span's time: the union of its events' and children's.
type interval struct {
	start, end time.Time
	timed      bool
}

func (iv *interval) cover(t time.Time) {
	if !iv.timed {
		iv.start, iv.end, iv.timed = t, t, true
		return
	}
	if t.Before(iv.start) {
		iv.start = t
	}
	if t.After(iv.end) {
		iv.end = t
	}
}

// nanos are a span's start and end: a span of no length lasts 1 ns, as a
// backend that sanitizes end <= start (Jaeger) would otherwise change it
// and then never take a re-export for the same span.
func (iv *interval) nanos() (start, end uint64) {
	start, end = uint64(iv.start.UnixNano()), uint64(iv.end.UnixNano())
	if end <= start {
		end = start + 1
	}
	return start, end
}

// coverSpan makes iv cover a child span as it was written, its 1 ns
// included.
func (iv *interval) coverSpan(sp *tracepb.Span) {
	iv.cover(time.Unix(0, int64(sp.StartTimeUnixNano)).UTC())
	iv.cover(time.Unix(0, int64(sp.EndTimeUnixNano)).UTC())
}

// newSession starts the export of the session whose first pass gave p.
func newSession(p *preflight, opts Options, out Spans, rep *model.Report, st *Stats) *session {
	s := &session{opts: opts, rep: rep, out: out, hdr: p.hdr, key: p.key(), stats: st, agents: map[string]*agent{}}
	s.trace = s.traceID()
	s.main = &agent{span: s.spanID("session", model.Loc{}, ""), calls: map[string]*call{}}
	return s
}

// traceID is the session's trace id: never all zero (a backend may take
// that for no trace), nor zero in its first half (Jaeger's v1 API then
// shortens it).
func (s *session) traceID() []byte {
	sum := sha256.Sum256([]byte("rlog-ls otlp trace\x00" + s.key))
	id := sum[:16]
	if binary.BigEndian.Uint64(id[:8]) == 0 {
		id[0] = 1
	}
	return id
}

// spanID derives a span's id from the session, what the span is and where
// its first event is in the log.
func (s *session) spanID(kind string, loc model.Loc, extra string) []byte {
	h := sha256.New()
	h.Write([]byte("rlog-ls otlp span\x00" + s.key + "\x00" + kind + "\x00" + loc.File + "\x00" +
		strconv.Itoa(loc.Line) + "\x00" + loc.Path + "\x00" + extra))
	id := h.Sum(nil)[:8]
	if binary.BigEndian.Uint64(id) == 0 {
		id[0] = 1
	}
	return id
}

// agentSpanID is the span id of the next sub-agent opened, id: the nth
// of the session, so that an id that comes back after its agent ended is
// another span.
func (s *session) agentSpanID(id string) []byte {
	s.opened++
	return s.spanID("agent", model.Loc{}, id+"\x00"+strconv.Itoa(s.opened))
}

// place is where e is, made unique among the events of one place (an rlog
// line that is a call and its result).
func (s *session) place(e *model.Event) model.Loc {
	loc := e.Loc
	if loc == s.lastLoc {
		s.ordinal++
	} else {
		s.lastLoc, s.ordinal = loc, 0
	}
	if s.ordinal > 0 {
		loc.Path += "#" + strconv.Itoa(s.ordinal)
	}
	return loc
}

// timeOf is e's time, and whether e has one of its own; without one it is
// placed at the latest time before it.
func (s *session) timeOf(e *model.Event) (time.Time, bool) {
	if t, ok := parseTime(e.Time); ok {
		if !s.hasLast || t.After(s.last) {
			s.last = t
		}
		s.hasLast = true
		return t, true
	}
	return s.last, false
}

// parseTime reads an event's time as the session numbers read a ts=, or
// an ISO 8601 time without a zone as UTC (Python's isoformat). A time
// OTLP cannot hold (nanoseconds since 1970 in 64 bits: before 1970, after
// 2262) is none.
func parseTime(v string) (time.Time, bool) {
	if v == "" {
		return time.Time{}, false
	}
	t, ok := analysis.Timestamp(v)
	if !ok {
		var err error
		t, err = time.Parse("2006-01-02T15:04:05.999999999", v)
		ok = err == nil
	}
	return t, ok && !t.Before(otlpEpoch) && t.Before(otlpEnd)
}

// The times OTLP can hold, less a second for the spans' 1 ns.
var (
	otlpEpoch = time.Unix(0, 0)
	otlpEnd   = time.Unix(0, math.MaxInt64).Add(-time.Second)
)

// spanning says whether e's kind becomes or ends a span, or an event of
// one: such an event needs a time.
func spanning(e *model.Event) bool {
	switch e.Kind {
	case model.KindAgent, model.KindThinking, model.KindToolCall, model.KindToolResult, model.KindCompaction:
		return true
	case model.KindLifecycle:
		return e.Name == "phase"
	}
	return false
}

// needsTime says whether e needs a time, its own or one before it: the
// events that make spans, and the sub-agents' (whose spans take their
// events' times, or the time before them).
func needsTime(e *model.Event) bool { return spanning(e) || e.Kind == model.KindSubagent }

// BorrowsEvents implements model.Borrower: spans, calls and turns keep
// strings, times and numbers.
func (*session) BorrowsEvents() bool { return true }

// Event implements model.Sink.
func (s *session) Event(_ *model.Header, e *model.Event) error {
	if s.failures != nil {
		return s.failures
	}
	loc := s.place(e)
	t, own := s.timeOf(e)
	if !own && spanning(e) {
		s.rep.Lose(model.LossSynthesized, "*.time", "an event without a time placed at the time before it", e.Loc)
	}
	if own {
		s.main.cover(t)
	}
	ch := s.ledger.Add(e)
	if !complete(e) {
		s.rep.DropEvent(e, "a "+e.Kind.String()+" event without its details")
		return nil
	}
	if e.Kind == model.KindSubagent && e.Subagent != nil {
		s.outside = s.outside.Add(ch.Grew)
		return s.subagent(e, t, own)
	}
	a := s.agentOf(e)
	if own && a != s.main {
		a.cover(t)
	}
	switch e.Kind {
	case model.KindAgent, model.KindThinking, model.KindToolCall:
		tr := s.turnFor(a, e, loc)
		tr.cover(t)
		tr.usage = tr.usage.Add(ch.Grew)
		tr.counted = tr.counted || e.Usage != nil
		if e.Model != "" {
			tr.model = e.Model
		}
		switch e.Kind {
		case model.KindAgent:
			s.addOutput(tr, "text", e.Text)
		case model.KindThinking:
			s.addOutput(tr, "reasoning", e.Text)
		case model.KindToolCall:
			s.openCall(a, tr, e, loc, t)
		}
		return nil
	case model.KindToolResult:
		s.outside = s.outside.Add(ch.Grew)
		a.seal()
		return s.result(a, e, t, own)
	case model.KindUser:
		s.outside = s.outside.Add(ch.Grew)
		a.seal()
		if s.opts.IncludeContent && !e.Meta {
			a.input.add(s.redact(e.Text), s.opts.maxAttr())
		}
		return s.flushTurns(a)
	case model.KindCompaction:
		s.outside = s.outside.Add(ch.Grew)
		attrs := []*commonpb.KeyValue{str(attrCompactTrigger, e.Compaction.Trigger)}
		if e.Compaction.PreTokens > 0 {
			attrs = append(attrs, i64(attrCompactTokens, e.Compaction.PreTokens))
		}
		s.rootEvent(eventCompaction, t, attrs, e.Loc)
	case model.KindLifecycle:
		s.outside = s.outside.Add(ch.Grew)
		if e.Name == "phase" {
			s.rootEvent(eventPhase, t, []*commonpb.KeyValue{str(attrPhase, phaseName(e.Text))}, e.Loc)
		}
	default:
		s.outside = s.outside.Add(ch.Grew)
	}
	return nil
}

// complete says whether e has the part its kind needs (a reader always
// gives it; an event without it is dropped, not a crash).
func complete(e *model.Event) bool {
	switch e.Kind {
	case model.KindToolCall:
		return e.Call != nil
	case model.KindToolResult:
		return e.Result != nil
	case model.KindCompaction:
		return e.Compaction != nil
	}
	return true
}

// phaseName is a phase line's name: its first word (the rest of its text
// is the line's metadata).
func phaseName(text string) string {
	name, _, _ := strings.Cut(strings.TrimSpace(text), " ")
	return name
}

// agentOf is the agent e belongs to, opened when its first event comes
// before (or without) the line that starts it.
func (s *session) agentOf(e *model.Event) *agent {
	if e.AgentID == "" {
		return s.main
	}
	if a := s.agents[e.AgentID]; a != nil {
		return a
	}
	a := &agent{id: e.AgentID, span: s.agentSpanID(e.AgentID), calls: map[string]*call{}, up: s.main, loc: e.Loc}
	a.parent = s.main.span
	s.agents[e.AgentID] = a
	return a
}

// turnFor is the response e is part of: the open one with its message id,
// else the latest open one still taking events when either has no id,
// else a new one.
func (s *session) turnFor(a *agent, e *model.Event, loc model.Loc) *turn {
	for i := len(a.turns) - 1; i >= 0; i-- {
		tr := a.turns[i]
		if e.MessageID != "" && tr.messageID == e.MessageID {
			return tr
		}
	}
	if n := len(a.turns); n > 0 {
		tr := a.turns[n-1]
		if !tr.sealed && (e.MessageID == "" || tr.messageID == "") {
			if tr.messageID == "" {
				tr.messageID = e.MessageID
			}
			return tr
		}
		for _, tr := range a.turns {
			tr.sealed = true
		}
	}
	tr := &turn{span: s.spanID("chat", loc, e.MessageID), messageID: e.MessageID}
	if s.opts.IncludeContent {
		tr.input = a.input.take()
	}
	a.turns = append(a.turns, tr)
	return tr
}

// seal marks a's responses complete: new input went to the model.
func (a *agent) seal() {
	for _, tr := range a.turns {
		tr.sealed = true
	}
}

func (s *session) openCall(a *agent, tr *turn, e *model.Event, loc model.Loc, t time.Time) {
	c := &call{span: s.spanID("tool", loc, e.Call.ID), turn: tr, id: e.Call.ID, name: e.Call.Name, start: t, loc: e.Loc}
	if s.opts.IncludeContent {
		args := string(e.Call.Input)
		if args == "" {
			args = e.Call.Summary
		}
		c.args = s.redact(args)
	}
	if old := a.calls[c.id]; old != nil {
		// The same call id again: the first never got its result.
		s.endCall(a, old, interval{}, nil, false)
	}
	a.calls[c.id] = c
	tr.pending++
}

// result ends the call e answers.
func (s *session) result(a *agent, e *model.Event, t time.Time, own bool) error {
	r := e.Result
	c := a.calls[r.CallID]
	if c == nil {
		for _, o := range s.agents {
			if c = o.calls[r.CallID]; c != nil {
				a = o
				break
			}
		}
		if c == nil && a != s.main {
			if c = s.main.calls[r.CallID]; c != nil {
				a = s.main
			}
		}
	}
	if c == nil {
		s.rep.Lose(model.LossDroppedEvent, "tool_result", "a result without its call: no span", e.Loc)
		return nil
	}
	end := t
	if !own {
		if ms, ok := latencyMS(e); ok {
			end = c.start.Add(time.Duration(ms) * time.Millisecond)
		}
	}
	iv := interval{start: c.start, end: c.start, timed: true}
	iv.cover(end)
	if err := s.endCall(a, c, iv, r, true); err != nil {
		return err
	}
	return s.flushTurns(a)
}

// latencyMS is the latency_ms= a result line states.
func latencyMS(e *model.Event) (int64, bool) {
	v, ok := e.Extra.Get("latency_ms")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil && n >= 0
}

// endCall writes a call's span: finished with result r, or unfinished.
func (s *session) endCall(a *agent, c *call, iv interval, r *model.ToolResult, finished bool) error {
	delete(a.calls, c.id)
	if !finished {
		iv = interval{start: c.start, end: c.start, timed: true}
	}
	c.turn.pending--
	sp := &tracepb.Span{Name: opExecuteTool + " " + c.name, SpanId: c.span, ParentSpanId: c.turn.span,
		Kind: tracepb.Span_SPAN_KIND_INTERNAL}
	sp.Attributes = []*commonpb.KeyValue{str(attrOperation, opExecuteTool), str(attrToolName, c.name)}
	if c.id != "" {
		sp.Attributes = append(sp.Attributes, str(attrToolCallID, c.id))
	}
	outcome := analysis.Unfinished
	if finished {
		outcome = analysis.Succeeded
		if r.IsError {
			outcome = analysis.Failed
		}
	}
	sp.Attributes = append(sp.Attributes, str(attrOutcome, outcome.String()))
	if outcome == analysis.Failed {
		sp.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR}
	}
	if r != nil && r.Status != "" {
		sp.Attributes = append(sp.Attributes, str(attrStatus, r.Status))
		switch {
		case r.Status == eventInterrupted:
			sp.Events = append(sp.Events, &tracepb.Span_Event{Name: eventInterrupted, TimeUnixNano: uint64(iv.end.UnixNano())})
		case strings.HasPrefix(r.Status, eventDenied):
			sp.Events = append(sp.Events, &tracepb.Span_Event{Name: eventDenied, TimeUnixNano: uint64(iv.end.UnixNano())})
		}
	}
	if s.opts.IncludeContent {
		if c.args != "" {
			sp.Attributes = append(sp.Attributes, s.capped(attrToolArguments, c.args, c.loc))
		}
		if r != nil && r.Content != "" {
			sp.Attributes = append(sp.Attributes, s.capped(attrToolResult, s.redact(r.Content), c.loc))
		}
	}
	sp.StartTimeUnixNano, sp.EndTimeUnixNano = iv.nanos()
	c.turn.coverSpan(sp)
	a.coverSpan(sp)
	return s.emit(sp)
}

// flushTurns writes the sealed responses of a whose calls have all ended.
func (s *session) flushTurns(a *agent) error {
	kept := a.turns[:0]
	for _, tr := range a.turns {
		if tr.sealed && tr.pending == 0 {
			if err := s.endTurn(a, tr); err != nil {
				return err
			}
			continue
		}
		kept = append(kept, tr)
	}
	clear(a.turns[len(kept):])
	a.turns = kept
	return nil
}

func (s *session) endTurn(a *agent, tr *turn) error {
	mdl := tr.model
	if mdl == "" {
		mdl = s.hdr.Model
	}
	name := opChat
	if mdl != "" {
		name += " " + mdl
	}
	parent := a.span
	sp := &tracepb.Span{Name: name, SpanId: tr.span, ParentSpanId: parent, Kind: tracepb.Span_SPAN_KIND_CLIENT}
	sp.Attributes = []*commonpb.KeyValue{str(attrOperation, opChat)}
	if p := provider(mdl, s.hdr.AgentName); p != "" {
		sp.Attributes = append(sp.Attributes, str(attrProvider, p))
	}
	if mdl != "" {
		sp.Attributes = append(sp.Attributes, str(attrRequestModel, mdl), str(attrResponseModel, mdl))
	}
	if tr.messageID != "" && !model.SyntheticMessageID(tr.messageID) {
		sp.Attributes = append(sp.Attributes, str(attrResponseID, tr.messageID))
	}
	if tr.counted {
		sp.Attributes = append(sp.Attributes, usageAttrs(tr.usage)...)
	}
	if s.opts.IncludeContent {
		if tr.input != "" {
			sp.Attributes = append(sp.Attributes, s.capped(attrInputMessages, messages("user", []outPart{{"text", tr.input}}), model.Loc{}))
		}
		if len(tr.output) > 0 {
			sp.Attributes = append(sp.Attributes, s.capped(attrOutputMessages, messages("assistant", tr.output), model.Loc{}))
		}
	}
	if !tr.timed {
		tr.interval = interval{start: s.last, end: s.last, timed: true}
	}
	sp.StartTimeUnixNano, sp.EndTimeUnixNano = tr.nanos()
	a.coverSpan(sp)
	return s.emit(sp)
}

// usageAttrs are a span's token counts: input_tokens counts every input
// token, cached ones included, as the conventions say; the cache reads
// and writes are also given apart.
func usageAttrs(c usage.Counts) []*commonpb.KeyValue {
	u := model.UsageOf(c)
	return []*commonpb.KeyValue{
		i64(attrInputTokens, u.Prompt()), i64(attrOutputTokens, u.Output),
		i64(attrCacheRead, u.CacheRead), i64(attrCacheCreation, u.CacheCreate),
	}
}

// messages is the conventions' JSON of one message's parts.
func messages(role string, parts []outPart) string {
	type part struct {
		Type    string `json:"type"`
		Content string `json:"content"`
	}
	type message struct {
		Role  string `json:"role"`
		Parts []part `json:"parts"`
	}
	m := message{Role: role}
	for _, p := range parts {
		m.Parts = append(m.Parts, part{p.kind, p.text})
	}
	b, _ := json.Marshal([]message{m})
	return string(b)
}

func (s *session) addOutput(tr *turn, kind, text string) {
	if !s.opts.IncludeContent || text == "" || tr.outCut {
		return
	}
	text = s.redact(text)
	if room := s.opts.maxAttr() - tr.outLen; len(text) > room {
		text = cutUTF8(text, max(room, 0))
		tr.outCut = true
	}
	tr.output = append(tr.output, outPart{kind, text})
	tr.outLen += len(text)
}

// subagent starts or ends a sub-agent, nested in the agent that made the
// call that started it (the main agent when no open call did).
func (s *session) subagent(e *model.Event, t time.Time, own bool) error {
	sa := e.Subagent
	id := sa.AgentID
	if id == "" {
		id = e.AgentID
	}
	if id == "" {
		id = sa.ID
	}
	sub := s.agents[id]
	if sub == nil {
		sub = &agent{id: id, span: s.agentSpanID(id), calls: map[string]*call{}, loc: e.Loc, up: s.main}
		s.agents[id] = sub
	}
	if sa.ID != "" && sub.up == s.main {
		for _, o := range s.agents {
			if o.calls[sa.ID] != nil && !within(o, sub) {
				sub.up = o
			}
		}
	}
	sub.parent = sub.up.span
	if sa.Type != "" {
		sub.typ = sa.Type
	}
	if sa.ID != "" {
		sub.callID = sa.ID
	}
	if sa.Status != "" {
		sub.status = sa.Status
	}
	if own {
		sub.cover(t)
	}
	switch sa.Status {
	case "done", "error", "failed":
		return s.endAgent(sub)
	}
	return nil
}

// endAgent writes a sub-agent's open spans and its own.
func (s *session) endAgent(a *agent) error {
	delete(s.agents, a.id)
	for _, c := range a.calls {
		if err := s.endCall(a, c, interval{}, nil, false); err != nil {
			return err
		}
	}
	a.seal()
	if err := s.flushTurns(a); err != nil {
		return err
	}
	if !a.timed {
		a.interval = interval{start: s.last, end: s.last, timed: true}
	}
	name := a.typ
	if name == "" {
		name = "subagent"
	}
	sp := &tracepb.Span{Name: opInvokeAgent + " " + name, SpanId: a.span, ParentSpanId: a.parent, Kind: tracepb.Span_SPAN_KIND_INTERNAL}
	sp.Attributes = []*commonpb.KeyValue{str(attrOperation, opInvokeAgent), str(attrAgentID, a.id)}
	if a.typ != "" {
		sp.Attributes = append(sp.Attributes, str(attrAgentName, a.typ))
	}
	if a.callID != "" && a.callID != a.id {
		sp.Attributes = append(sp.Attributes, str(attrToolCallID, a.callID))
	}
	if a.status != "" {
		sp.Attributes = append(sp.Attributes, str(attrSubagentStatus, a.status))
	}
	if a.status == "error" || a.status == "failed" {
		sp.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR}
	}
	sp.StartTimeUnixNano, sp.EndTimeUnixNano = a.nanos()
	if a.up != nil {
		a.up.coverSpan(sp)
	}
	return s.emit(sp)
}

func (s *session) rootEvent(name string, t time.Time, attrs []*commonpb.KeyValue, loc model.Loc) {
	if len(s.rootEvts) >= maxEvents {
		s.dropped++
		s.rep.Lose(model.LossDroppedEvent, "*", "a session event past the "+strconv.Itoa(maxEvents)+" a span keeps (counted in dropped_events_count)", loc)
		return
	}
	s.rootEvts = append(s.rootEvts, &tracepb.Span_Event{Name: name, TimeUnixNano: uint64(t.UnixNano()), Attributes: attrs})
}

// End implements model.Sink: the open sub-agents end (innermost first),
// then the session's root span.
func (s *session) End(h *model.Header) error {
	if s.failures != nil {
		return s.failures
	}
	for len(s.agents) > 0 {
		var inner *agent
		for _, a := range s.agents {
			if inner == nil || depth(a) > depth(inner) || depth(a) == depth(inner) && a.id > inner.id {
				inner = a
			}
		}
		if err := s.endAgent(inner); err != nil {
			return err
		}
	}
	m := s.main
	// The session's own start and end, when it states them (a rollout's
	// first record, a task's completion), are the root's too, as they are
	// the @start and @end of its rlog conversion.
	for _, v := range []string{h.Started, h.Ended} {
		if t, ok := parseTime(v); ok {
			m.cover(t)
		}
	}
	for _, c := range sortedCalls(m.calls) {
		if err := s.endCall(m, c, interval{}, nil, false); err != nil {
			return err
		}
	}
	m.seal()
	if err := s.flushTurns(m); err != nil {
		return err
	}
	agentName := s.agentName()
	sp := &tracepb.Span{Name: opInvokeAgent + " " + agentName, SpanId: m.span, Kind: tracepb.Span_SPAN_KIND_INTERNAL,
		Events: s.rootEvts, DroppedEventsCount: s.dropped}
	sp.Attributes = []*commonpb.KeyValue{str(attrOperation, opInvokeAgent), str(attrAgentName, agentName)}
	if s.hdr.ID != "" {
		sp.Attributes = append(sp.Attributes, str(attrConversation, s.hdr.ID))
	}
	if p := provider(s.hdr.Model, s.hdr.AgentName); p != "" {
		sp.Attributes = append(sp.Attributes, str(attrProvider, p))
	}
	if s.hdr.Model != "" {
		sp.Attributes = append(sp.Attributes, str(attrRequestModel, s.hdr.Model))
	}
	if !s.ledger.Empty() {
		sp.Attributes = append(sp.Attributes, usageAttrs(s.ledger.Total().Counts())...)
	}
	if s.outside != (usage.Counts{}) {
		sp.Attributes = append(sp.Attributes, i64(attrUnattributedIn, model.UsageOf(s.outside).Prompt()+model.UsageOf(s.outside).Output))
	}
	if f, v := s.hdr.First(); f != "" {
		sp.Attributes = append(sp.Attributes, str(attrSourceFormat, strings.TrimSpace(f+" "+v)))
	}
	sp.StartTimeUnixNano, sp.EndTimeUnixNano = m.nanos()
	if err := s.emit(sp); err != nil {
		return err
	}
	s.stats.Sessions++
	return nil
}

// within says whether a is inner, or nested in it.
func within(a, inner *agent) bool {
	for ; a != nil; a = a.up {
		if a == inner {
			return true
		}
	}
	return false
}

func depth(a *agent) int {
	n := 0
	for ; a.up != nil; a = a.up {
		n++
	}
	return n
}

// sortedCalls are the calls in the order of their places, so that the
// spans of unfinished calls come out in the same order every time.
func sortedCalls(m map[string]*call) []*call {
	out := make([]*call, 0, len(m))
	for _, c := range m {
		out = append(out, c)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && callBefore(out[j], out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func callBefore(a, b *call) bool {
	if a.loc.Line != b.loc.Line {
		return a.loc.Line < b.loc.Line
	}
	return a.id < b.id
}

// agentName is the session's agent, the service it is in a backend.
func (s *session) agentName() string {
	if s.hdr.AgentName != "" {
		return s.hdr.AgentName
	}
	return serviceNameFallback
}

// resource is the session's resource: the agent as the service.
func (s *session) resource() *resourcepb.Resource {
	attrs := []*commonpb.KeyValue{str("service.name", s.agentName())}
	if s.hdr.AgentVersion != "" {
		attrs = append(attrs, str(attrAgentVersion, s.hdr.AgentVersion))
	}
	return &resourcepb.Resource{Attributes: attrs}
}

// emit hands a span on, with the session's trace id.
func (s *session) emit(sp *tracepb.Span) error {
	if !s.started {
		s.started = true
		r := s.resource()
		s.validAttrs(r.Attributes)
		if err := s.out.Resource(r); err != nil {
			s.failures = err
			return err
		}
	}
	sp.TraceId = s.trace
	s.validAttrs(sp.Attributes)
	for _, e := range sp.Events {
		s.validAttrs(e.Attributes)
	}
	sp.Name = s.validUTF8(sp.Name)
	if max := max(s.opts.maxAttr(), minNameCap); len(sp.Name) > max {
		sp.Name = cutUTF8(sp.Name, max)
		s.stats.Cut++
		s.rep.Lose(model.LossTruncated, "*", "a span name cut to "+strconv.Itoa(max)+" bytes (--max-attr)", model.Loc{})
	}
	s.stats.Spans++
	if err := s.out.Span(sp); err != nil {
		s.failures = err
		return err
	}
	return nil
}

// validAttrs makes the string values valid UTF-8, which protobuf
// requires, and cuts any still longer than the cap (a tool name, a model:
// whatever the log says).
func (s *session) validAttrs(kvs []*commonpb.KeyValue) {
	for _, kv := range kvs {
		kv.Key = s.validUTF8(kv.Key)
		if v, ok := kv.Value.Value.(*commonpb.AnyValue_StringValue); ok {
			v.StringValue = s.capped(kv.Key, s.validUTF8(v.StringValue), model.Loc{}).Value.GetStringValue()
		}
	}
}

func (s *session) validUTF8(v string) string {
	if utf8.ValidString(v) {
		return v
	}
	s.rep.Lose(model.LossInvalidUTF8, "*", "bytes that are not UTF-8 in a span, replaced by U+FFFD", model.Loc{})
	return strings.ToValidUTF8(v, "\uFFFD")
}

// redact replaces credential-like values as `rlog-ls redact` does.
func (s *session) redact(text string) string {
	out, found := analysis.Redact([]byte(text))
	if len(found) == 0 {
		return text
	}
	s.stats.Redacted += len(found)
	return string(out)
}

// capped is a string attribute cut to the cap, the cut reported.
func (s *session) capped(key, v string, loc model.Loc) *commonpb.KeyValue {
	if max := s.opts.maxAttr(); len(v) > max {
		s.rep.Lose(model.LossTruncated, key, "an attribute value cut to "+strconv.Itoa(max)+" bytes (--max-attr)", loc)
		s.stats.Cut++
		v = cutUTF8(v, max)
	}
	return str(key, v)
}

// cutUTF8 is the longest prefix of v of at most n bytes that does not
// split a character.
func cutUTF8(v string, n int) string {
	if len(v) <= n {
		return v
	}
	for n > 0 && !utf8.RuneStart(v[n]) {
		n--
	}
	return v[:n]
}

// provider is the conventions' provider name for a model, or the agent's
// vendor when the model does not say.
func provider(mdl, agentName string) string {
	m := strings.ToLower(mdl)
	switch {
	case strings.HasPrefix(m, "claude"), strings.Contains(m, "anthropic"):
		return "anthropic"
	case strings.HasPrefix(m, "gpt"), strings.HasPrefix(m, "o1"), strings.HasPrefix(m, "o3"), strings.HasPrefix(m, "o4"),
		strings.Contains(m, "codex"), strings.Contains(m, "openai"):
		return "openai"
	case strings.HasPrefix(m, "gemini"):
		return "gcp.gemini"
	}
	switch strings.ToLower(agentName) {
	case "claude-code", "claude_code", "claude code":
		return "anthropic"
	case "codex", "codex-cli", "codex_cli":
		return "openai"
	case "gemini-cli", "gemini_cli", "gemini":
		return "gcp.gemini"
	}
	return ""
}

// textBuf gathers text up to a cap.
type textBuf struct {
	b   strings.Builder
	cut bool
}

func (t *textBuf) add(v string, cap int) {
	if t.cut || v == "" {
		return
	}
	if t.b.Len() > 0 {
		v = "\n" + v
	}
	if room := cap - t.b.Len(); len(v) > room {
		v = cutUTF8(v, max(room, 0))
		t.cut = true
	}
	t.b.WriteString(v)
}

func (t *textBuf) take() string {
	v := t.b.String()
	t.b.Reset()
	t.cut = false
	return v
}

func str(k, v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
}

func i64(k string, v int64) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v}}}
}
