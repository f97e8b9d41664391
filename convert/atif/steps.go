package atif

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/internal/jsonw"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/usage"
)

// step is one ATIF step being put together from events.
type step struct {
	parts       json.RawMessage // v1.6 message content parts
	fields      model.Fields    // step-level fields beyond the core ones (reasoning_effort, ...)
	metricExtra model.Fields    // metrics fields beyond the token counts
	source      string
	time        string
	message     string
	model       string
	reasoning   []string
	texts       []string
	calls       []toolCall
	results     []result
	ledger      model.Ledger // the usage of the step's response(s)
	grew        model.Usage  // what the step's events add to the session's count
	counted     bool         // an event of the step counted a message or added to one
	extra       model.Fields
	key         string // the message id an agent step groups
	msgID       string // the source's message id, kept in extra
	srcID       string // ID of the first event, to keep a source step's parts together
	keys        string // metric keys the source step had ("" = write all)
	loc         model.Loc
	origStep    int64
	answered    int  // calls that have their result
	closed      bool // no more events join (a user or system step came after)
	size        int  // about the memory its events hold
	// The rests of the step's events (model.RestOf), for a source that is
	// not ATIF: the step's own event (a user or system step's), its
	// thinking and text events; the calls' and results' are theirs.
	ownRest    eventRest
	thinkRests []eventRest
	textRests  []eventRest
	// orphans marks a system step made for results whose calls are not
	// held: it has no event of its own.
	orphans bool
	// stepTime is the timestamp written for time, timeOf (stepTime).
	timeOf, stepTime string
}

type toolCall struct {
	id, name string
	orig     string // the source's id, which id makes unique in the step
	answered bool   // its result is in the step
	args     json.RawMessage
	extra    json.RawMessage
	rest     eventRest
}

// eventRest is the rest of one of a step's events, written with the step
// (model.WriteRestCarried, where it stands in the document): the event,
// what the step carries of it (decided as the event joins the step, rest),
// and for an agent step's event its usage, which the step's metrics do not
// say when they are what the step adds to the session's count
// (step.usageOf): the rest then says it (model.WriteRestCarried with the
// usage).
type eventRest struct {
	e       *model.Event // nil: none
	carried model.Carried
	usage   model.Usage
	has     bool // an agent step's event with usage
	// spaced: a raw value the rest writes has white space between its
	// tokens (rawSpaced), which a compact extra takes out.
	spaced bool
}

// agentRest is e's rest in an agent step.
func agentRest(r eventRest, e *model.Event) eventRest {
	if e.Usage != nil {
		r.usage, r.has = *e.Usage, true
	}
	return r
}

// write writes the rest where a value goes in b: with the event's usage
// when the step's metrics (u, when counted) do not say it.
func (r eventRest) write(b *jsonw.Buf, u model.Usage, counted bool) {
	if r.has && (!counted || r.usage != u) {
		model.WriteRestCarried(b, r.e, &r.usage, &r.carried)
		return
	}
	model.WriteRestCarried(b, r.e, nil, &r.carried)
}

type result struct {
	parts   json.RawMessage // v1.6 content parts, when the source had them
	callID  string
	hasCall bool
	content string
	isError bool
	status  string // a status other than ok/error (rlog's `[2 issues]`)
	refs    json.RawMessage
	extra   model.Fields
	rest    eventRest
}

// waiting are the held steps with a call of one source id that waits for
// its result, oldest first, a step once for each such call: the first in
// place (a source id is seldom reused while its call waits), the others
// after it.
type waiting struct {
	first *step // nil: none
	more  []*step
}

// push puts s last.
func (w *waiting) push(s *step) {
	if w.first == nil {
		w.first = s
		return
	}
	w.more = append(w.more, s)
}

// pop takes the first out.
func (w *waiting) pop() {
	if len(w.more) == 0 {
		w.first = nil
		return
	}
	w.first, w.more = w.more[0], w.more[1:]
}

// open is how many of the step's calls wait for their result.
func (s *step) open() int { return len(s.calls) - s.answered }

// hasCall reports whether s has a call of source id orig.
func (s *step) hasCall(orig string) bool {
	for i := range s.calls {
		if s.calls[i].orig == orig {
			return true
		}
	}
	return false
}

// firstOpen is s's first call of source id orig without its result (the
// calls of one id are answered in order), nil when there is none.
func (s *step) firstOpen(orig string) *toolCall {
	for i := range s.calls {
		if c := &s.calls[i]; c.orig == orig && !c.answered {
			return c
		}
	}
	return nil
}

// lastCall is s's last call of source id orig, nil when there is none.
func (s *step) lastCall(orig string) *toolCall {
	for i := len(s.calls) - 1; i >= 0; i-- {
		if c := &s.calls[i]; c.orig == orig {
			return c
		}
	}
	return nil
}

// cur is the step being put together.
func (wr *Writer) cur() *step {
	if len(wr.held) == 0 {
		return nil
	}
	return wr.held[len(wr.held)-1]
}

func (wr *Writer) newStep(source string, e *model.Event) *step {
	var s *step
	if n := len(wr.spare); n > 0 {
		s = wr.spare[n-1]
		wr.spare = wr.spare[:n-1]
	} else {
		s = new(step)
	}
	s.source, s.time, s.loc, s.origStep, s.model, s.srcID, s.keys = source, e.Time, e.Loc, e.Step, e.Model, e.ID, e.Form.Keys
	wr.held = append(wr.held, s)
	return s
}

// maxSpareSteps bounds the written steps kept for reuse: as many as can
// be held, so that the steps written at once after a long wait (a call
// whose result never comes holds the steps after it, up to maxHeldSteps)
// are the ones the next steps reuse.
const maxSpareSteps = maxHeldSteps

// recycle keeps a written step for newStep: its slices and maps are
// emptied, not dropped, so that a session's steps reuse the same few
// (a step is written once nothing refers to it: release has taken its
// calls out of openCalls).
func (wr *Writer) recycle(s *step) {
	if len(wr.spare) >= maxSpareSteps {
		return
	}
	clear(s.reasoning)
	clear(s.texts)
	clear(s.calls)
	clear(s.results)
	clear(s.fields)
	clear(s.metricExtra)
	clear(s.extra)
	clear(s.thinkRests)
	clear(s.textRests)
	s.ledger.Reset()
	// The step zeroed at once (one clear of its memory), then what it
	// keeps put back: a composite literal of the kept fields assigned to
	// *s is built apart and copied in, about 280 instructions a step.
	// TestRecycleEmptiesStep holds every field to it.
	ledger := s.ledger
	fields, metricExtra, extra := s.fields[:0], s.metricExtra[:0], s.extra[:0]
	reasoning, texts, calls, results := s.reasoning[:0], s.texts[:0], s.calls[:0], s.results[:0]
	thinkRests, textRests := s.thinkRests[:0], s.textRests[:0]
	timeOf, stepTime := s.timeOf, s.stepTime
	*s = step{}
	s.ledger = ledger
	s.fields, s.metricExtra, s.extra = fields, metricExtra, extra
	s.reasoning, s.texts, s.calls, s.results = reasoning, texts, calls, results
	s.thinkRests, s.textRests = thinkRests, textRests
	s.timeOf, s.stepTime = timeOf, stepTime
	wr.spare = append(wr.spare, s)
}

// agentStep returns the agent step e joins, starting one when needed: a new
// model response (another message id), anything between, or, from an ATIF
// source, another source step (its id-less steps went through a format
// that keeps the step, not the id the reader made of it) starts a step.
func (wr *Writer) agentStep(e *model.Event) *step {
	s := wr.cur()
	k := e.MessageID
	if s != nil && wr.same && e.Step != 0 && s.origStep != 0 && e.Step != s.origStep {
		s.closed = true
	}
	if s != nil && s.source == "agent" && !s.closed && (k == "" || s.key == "" || s.key == k) {
		if k != "" {
			s.key = k
		}
		return s
	}
	s = wr.newStep("agent", e)
	s.key = k
	return s
}

// add puts e in its step. Consecutive thinking, agent text and tool calls
// of one response form one agent step; a result goes to the step of its
// call; everything else is a system step (or a user step) of its own.
func (wr *Writer) add(e *model.Event, ch usage.Change) {
	var s *step
	switch e.Kind {
	case model.KindThinking:
		s = wr.agentStep(e)
		if len(s.texts) > 0 || len(s.calls) > 0 {
			// Reasoning after text or calls belongs to the next turn.
			s.closed = true
			s = wr.agentStep(e)
		}
		wr.timed(s, e)
		s.reasoning = append(s.reasoning, e.Text)
		signed := false
		if _, has := s.extra.Get("signature"); e.Signature != "" && !has {
			s.extra.SetString("signature", e.Signature)
			signed = true
		}
		if !wr.same {
			if len(s.reasoning) > 1 {
				wr.rep.Lose(model.LossUnfaithful, "thinking", "thinking blocks of one response joined into one reasoning_content", e.Loc)
			}
			s.thinkRests = append(s.thinkRests, agentRest(wr.rest(s, e, signed, &carries.text), e))
		}
	case model.KindAgent:
		s = wr.agentStep(e)
		if len(s.calls) > 0 {
			s.closed = true
			s = wr.agentStep(e)
		}
		wr.timed(s, e)
		s.texts = append(s.texts, e.Text)
		kept := wr.parts(s, e)
		if !wr.same {
			if len(s.texts) > 1 {
				wr.rep.Lose(model.LossUnfaithful, "agent", "texts of one response joined into one message", e.Loc)
			}
			carried := &carries.text
			if kept {
				carried = &carries.textParts
			}
			s.textRests = append(s.textRests, agentRest(wr.rest(s, e, false, carried), e))
		}
	case model.KindToolCall:
		s = wr.agentStep(e)
		wr.timed(s, e)
		wr.call(s, e)
	case model.KindToolResult:
		wr.result(e)
		return
	case model.KindUser:
		s = wr.newStep("user", e)
		s.message = e.Text
		kept := wr.parts(s, e)
		if e.Usage != nil && !e.Usage.IsZero() {
			wr.rep.Lose(model.LossDroppedField, "usage", "token usage on a user step (metrics are agent-only)", e.Loc)
		}
		s.closed = true
		if !wr.same {
			carried := &carries.text
			if kept {
				carried = &carries.textParts
			}
			s.ownRest = wr.rest(s, e, false, carried)
		}
	case model.KindTodos:
		if wr.same {
			wr.todos(e)
			return
		}
		s = wr.systemStep(e)
	default:
		s = wr.systemStep(e)
	}
	wr.grow(s, e)
	if s.source == "agent" {
		wr.usage(s, e, ch)
	}
}

// grow counts the memory e holds while s waits.
func (wr *Writer) grow(s *step, e *model.Event) {
	n := eventSize(e)
	s.size += n
	wr.heldBytes += n
}

// parts keeps a message's v1.6 content parts, which earlier versions
// flatten to text.
func (wr *Writer) parts(s *step, e *model.Event) bool {
	if len(e.Parts) == 0 || !isParts(e.Parts) {
		return false
	}
	if wr.ver >= 6 {
		s.parts = e.Parts
		return true
	}
	if wr.same {
		wr.rep.LoseRemedy(model.LossDroppedField, e.Kind.String()+".parts", "message content parts flattened to text (need ATIF-v1.6)", e.Loc, "write --atif-version 1.6 to keep them")
	}
	return false
}

// timestamp is stepTime(s.time), worked out once for the step's rests
// and its timestamp (the step before's, when the time is the same: a
// step recycled keeps it).
func (s *step) timestamp() string {
	if s.time != s.timeOf {
		s.timeOf, s.stepTime = s.time, stepTime(s.time)
	}
	return s.stepTime
}

// timed gives s the time of e, its first event with one.
func (wr *Writer) timed(s *step, e *model.Event) {
	if s.time == "" {
		s.time = e.Time
	}
}

// rest is the rest of e (model.RestOf) in step s: what the step's own
// fields do not say of e. Every event carries its kind's fields (kind,
// one of carries' lists) and the call's name; its time, model and message
// id when they are the step's; its signature when signed. Those are added
// to kind's as sets made once (carries), and the names the rest says e
// has none of (-model, -message_id, -usage, in that order) are one of
// carries.unset's eight lists: no list of names is made or matched per
// event (model.Carried).
func (wr *Writer) rest(s *step, e *model.Event, signed bool, kind *model.Carried) eventRest {
	var unset int // the bits of carries.unset's index
	c := *kind
	if e.Time == s.timestamp() {
		c.Add(&carries.time)
	}
	switch {
	case e.Model == s.model && (s.source == "agent" || e.Model == ""):
		// (Only an agent step has a model_name.)
		c.Add(&carries.model)
	case e.Model == "":
		unset |= unsetModel // not the step's
	}
	// A message id a reader made up stays in the rest: the reader of the
	// step would make up another, per step, and a response whose events
	// are in several steps (cut by a sub-agent's start) is one message.
	switch {
	case e.MessageID == s.msgID:
		c.Add(&carries.messageID)
	case e.MessageID == "":
		unset |= unsetMessageID // not the step's
	}
	if signed {
		c.Add(&carries.signature)
	}
	if e.Usage == nil {
		unset |= unsetUsage // not the step's metrics
	}
	// (The unset list's names are carries.unset's, shared and never
	// appended to: c has no names of its own to add.)
	r := carries.unset[unset]
	r.Add(&c)
	// (Only a compact extra asks whether its rests' raw values are
	// spaced: an indented one indents them where they stand.)
	return eventRest{e: e, carried: r, spaced: wr.jsonl && rawSpaced(e, kind)}
}

// rawSpaced reports whether a raw value of e that a rest carrying kind
// writes (its raw record, parts, call input or result's raw content, when
// kind does not carry it: carriedRaws) has white space between its
// tokens.
func rawSpaced(e *model.Event, kind *model.Carried) bool {
	raw, parts, input, resultRaw := carriedRaws(kind)
	switch {
	case !raw && model.SpaceBetweenTokens(e.Raw), !parts && model.SpaceBetweenTokens(e.Parts):
		return true
	case e.Call != nil && !input && model.SpaceBetweenTokens(e.Call.Input):
		return true
	}
	return e.Result != nil && !resultRaw && model.SpaceBetweenTokens(e.Result.ContentRaw)
}

// carriedRaws says which of an event's raw values the kind's list of
// carries carries (its rest does not write them): TestCarriedRaws holds
// it to what model.WriteRestCarried writes.
func carriedRaws(kind *model.Carried) (raw, parts, input, resultRaw bool) {
	switch kind {
	case &carries.raw:
		return true, false, false, false
	case &carries.rawParts:
		return true, true, false, false
	case &carries.textParts:
		return false, true, false, false
	case &carries.callIDInput:
		return false, false, true, false
	case &carries.resultRaw:
		return false, false, false, true
	}
	return false, false, false, false
}

// The bits of carries.unset's index: the names a rest says its event has
// none of.
const (
	unsetModel = 1 << iota
	unsetMessageID
	unsetUsage
)

// carries are the lists of fields the rests carry (model.RestOf's
// carried), each made into a model.Carried once: each kind of event's
// (with the call's name, which every step holds of its calls), what
// rest adds when the step holds it, and the eight lists of names a rest
// says its event has none of (unsetModel, ...).
var carries = func() (c struct {
	text, textParts, raw, rawParts, callID, callIDInput, result, resultRaw model.Carried
	time, model, messageID, signature                                      model.Carried
	unset                                                                  []model.Carried
}) {
	c.text = model.CarriedOf("text", "call.name")
	c.textParts = model.CarriedOf("text", "parts", "call.name")
	c.raw = model.CarriedOf("raw", "call.name")
	c.rawParts = model.CarriedOf("raw", "parts", "call.name")
	c.callID = model.CarriedOf("call.id", "call.name")
	c.callIDInput = model.CarriedOf("call.id", "call.input", "call.name")
	c.result = model.CarriedOf("result.call_id", "result.is_error", "result.status", "result.content", "call.name")
	c.resultRaw = model.CarriedOf("result.call_id", "result.is_error", "result.status", "result.content", "result.raw", "call.name")
	c.time = model.CarriedOf("time")
	c.model = model.CarriedOf("model")
	c.messageID = model.CarriedOf("message_id")
	c.signature = model.CarriedOf("signature")
	c.unset = model.CarriedUnsets("-model", "-message_id", "-usage") // (unsetModel, ...)
	return c
}()

// resultRest is the rest of the result e in step s: its call id, error
// and status come back from the step (source_call_id, orphan_call_id,
// tool_errors, tool_statuses, original_call_ids), its content from the
// result's.
func (wr *Writer) resultRest(s *step, e *model.Event, r *result) {
	if wr.same {
		return
	}
	carried := &carries.result
	if len(r.parts) > 0 {
		carried = &carries.resultRaw
	}
	r.rest = wr.rest(s, e, false, carried)
}

// todos go in the last agent step still held, or a system step.
func (wr *Writer) todos(e *model.Event) {
	for i := len(wr.held) - 1; i >= 0; i-- {
		if s := wr.held[i]; s.source == "agent" {
			s.extra.Set("todos", wr.value(appendTodosJSON(wr.idBytes[:0], e.Todos)))
			return
		}
	}
	s := wr.newStep("system", e)
	s.message = "todos"
	s.extra.Set("todos", wr.value(appendTodosJSON(wr.idBytes[:0], e.Todos)))
	s.closed = true
}

// systemStep is the step of an event ATIF has no step kind for, with an
// explanatory extra.
func (wr *Writer) systemStep(e *model.Event) *step {
	s := wr.newStep("system", e)
	s.closed = true
	s.message = systemMessage(e)
	kept := wr.parts(s, e)
	if wr.same && (e.Kind == model.KindSystem || e.Kind == model.KindCompaction) {
		// An ATIF system step: its extra comes back with restoreExtra.
		return s
	}
	if !wr.same {
		// The step's message is written for people; the rest gives the
		// event back. A passthrough record is in extra.record already.
		carried := &carries.raw
		if kept {
			carried = &carries.rawParts
		}
		s.ownRest = wr.rest(s, e, false, carried)
	}
	s.extra.Set("event", kindJSON(e.Kind))
	switch e.Kind {
	case model.KindInit:
		s.extra.SetString("model", e.Model)
	case model.KindCompaction:
		cm := model.Fields{}
		cm.SetString("type", "compaction")
		cm.SetString("boundary", "replace")
		if e.Compaction != nil {
			if e.Compaction.Trigger != "" {
				cm.SetString("trigger", e.Compaction.Trigger)
			}
			if e.Compaction.PreTokens > 0 {
				cm.SetAny("pre_tokens", e.Compaction.PreTokens)
			}
		}
		s.extra.Set("context_management", model.MustJSON(cm))
	case model.KindSubagent:
		s.extra.Set("subagent", wr.value(appendSubagentJSON(wr.idBytes[:0], e.Subagent)))
	case model.KindLifecycle, model.KindSystem:
		if e.Name != "" {
			s.extra.SetString("name", e.Name)
		}
	case model.KindPassthrough:
		s.extra.SetString("record_type", e.RawType)
		if len(e.Raw) > 0 {
			s.extra.Set("record", e.Raw)
		}
	case model.KindTodos:
		s.extra.Set("todos", wr.value(appendTodosJSON(wr.idBytes[:0], e.Todos)))
	}
	return s
}

// value is a copy of b, a value made in the writer's bytes for ids
// (idBytes, kept for the next), for a held step to keep.
func (wr *Writer) value(b []byte) json.RawMessage {
	wr.idBytes = b
	return bytes.Clone(b)
}

// appendSubagentJSON appends sa as model.MustJSON(sa) writes it
// (encoding/json of the struct: every field by its name, in order).
func appendSubagentJSON(dst []byte, sa *model.Subagent) []byte {
	if sa == nil {
		return append(dst, "null"...)
	}
	dst = appendJSONString(append(dst, `{"ID":`...), sa.ID)
	dst = appendJSONString(append(dst, `,"AgentID":`...), sa.AgentID)
	dst = appendJSONString(append(dst, `,"Type":`...), sa.Type)
	dst = appendJSONString(append(dst, `,"Status":`...), sa.Status)
	dst = appendJSONString(append(dst, `,"Summary":`...), sa.Summary)
	dst = appendJSONString(append(dst, `,"SessionID":`...), sa.SessionID)
	dst = appendJSONString(append(dst, `,"TrajectoryPath":`...), sa.TrajectoryPath)
	return append(dst, '}')
}

// appendTodosJSON appends todos as model.MustJSON(todos) writes them
// (null for none, [] for an empty list).
func appendTodosJSON(dst []byte, todos []model.Todo) []byte {
	if todos == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i := range todos {
		t := &todos[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(append(dst, `{"ID":`...), t.ID)
		dst = appendJSONString(append(dst, `,"Content":`...), t.Content)
		dst = appendJSONString(append(dst, `,"Status":`...), t.Status)
		dst = appendJSONString(append(dst, `,"Priority":`...), t.Priority)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// kindJSON is model.MustJSON(k.String()), made once for the first kinds
// (kindsJSON, by makeKeys, which a writer's constructor calls; made anew
// where it has not been): a system step's extra.event.
func kindJSON(k model.Kind) json.RawMessage {
	if int(k) < len(kindsJSON) && kindsJSON[k] != nil {
		return kindsJSON[k]
	}
	return model.MustJSON(k.String())
}

// kindsJSON are the kinds' names as JSON strings, kindJSON's.
var kindsJSON [32]json.RawMessage

func systemMessage(e *model.Event) string {
	switch e.Kind {
	case model.KindInit:
		return "init model=" + e.Model
	case model.KindCompaction:
		if e.Text != "" {
			return e.Text
		}
		return "context compaction"
	case model.KindSubagent:
		sa := e.Subagent
		msg := "subagent " + sa.Type + " " + sa.Status
		if sa.Summary != "" {
			msg += ": " + sa.Summary
		}
		return strings.TrimSpace(msg)
	case model.KindLifecycle:
		if e.Text != "" {
			return strings.TrimSpace(e.Name + " " + e.Text)
		}
		return e.Name
	case model.KindPassthrough:
		return "record " + e.RawType
	case model.KindTodos:
		return "todos"
	}
	return e.Text
}

// usage adds e's usage to its agent step: once per response, as the
// ledger counts. Events of one step without a message id are taken as one
// response (repeated usage, as Claude Code and the SDK write it). ch is
// what e added to the session's count.
func (wr *Writer) usage(s *step, e *model.Event, ch usage.Change) {
	if e.Usage == nil {
		return
	}
	s.grew = s.grew.Add(model.UsageOf(ch.Grew))
	s.counted = s.counted || ch.New || !ch.Grew.IsZero()
	id := e.MessageID
	if id == "" {
		id = "\x00step"
		if !s.ledger.Empty() && !wr.same {
			wr.rep.Lose(model.LossUnfaithful, "usage", "usage of events without a message id counted once for their step (one response)", e.Loc)
		}
	} else if s.msgID == "" && !model.SyntheticMessageID(id) {
		s.msgID = id
	}
	s.ledger.AddUsage(id, *e.Usage)
}

// idTaken reports whether a call of s has id.
func idTaken[T string | []byte](s *step, id T) bool {
	for i := range s.calls {
		if s.calls[i].id == string(id) {
			return true
		}
	}
	return false
}

// madeID is the id of the call of s a call without one becomes:
// call_<step>_<call>, the step's number and the call's in the step, made
// in the writer's room for ids.
func (wr *Writer) madeID(s *step) string {
	b := append(wr.idBytes[:0], "call_"...)
	b = strconv.AppendInt(b, int64(wr.written+len(wr.held)), 10)
	b = append(b, '_')
	b = strconv.AppendInt(b, int64(len(s.calls)+1), 10)
	wr.idBytes = b
	return wr.ids.Of(b)
}

// uniqueID is the id a call of source id orig gets where s has a call of
// that id already: orig#n, n from 2 the first not taken.
func (wr *Writer) uniqueID(s *step, orig string) string {
	b := append(append(wr.idBytes[:0], orig...), '#')
	at := len(b)
	for n := int64(2); ; n++ {
		if b = strconv.AppendInt(b[:at], n, 10); !idTaken(s, b) {
			break
		}
	}
	wr.idBytes = b
	return wr.ids.Of(b)
}

func (wr *Writer) call(s *step, e *model.Event) {
	id := e.Call.ID
	orig := id
	if id == "" {
		id = wr.madeID(s)
		wr.rep.Lose(model.LossSynthesized, "tool_call.call.id", "tool_call_id for a call without an id", e.Loc)
	}
	if idTaken(s, id) {
		id = wr.uniqueID(s, orig)
		wr.rep.Add(model.LossIDUnique, "duplicate tool call id in one step made unique as <id>#n (extra.original_call_ids keeps the source id)", e.Loc)
		// The reader turns it back into the source's id.
		ids := model.Fields{}
		if v, ok := s.extra.Get("original_call_ids"); ok {
			ids, _ = model.ParseFields(v)
		}
		ids.SetString(id, orig)
		s.extra.Set("original_call_ids", model.MustJSON(ids))
	}
	args := e.Call.Input
	if len(bytes.TrimSpace(args)) == 0 || args[0] != '{' {
		if len(args) > 0 && string(args) != "null" {
			wrapped := model.Fields{{Key: "input", Value: args}}
			args = model.MustJSON(wrapped)
			if wr.same {
				wr.rep.Lose(model.LossDroppedField, "tool_call.call.input", "non-object tool input wrapped as {\"input\": ...}", e.Loc)
			}
		} else {
			args = json.RawMessage("{}")
		}
	}
	if e.Call.Summary != "" && len(e.Call.Input) == 0 && wr.same {
		s.extra.SetString("rlog_args", e.Call.Summary)
	}
	tc := toolCall{id: id, orig: orig, name: e.Call.Name, args: args}
	if !wr.same {
		carried := &carries.callID
		if len(e.Call.Input) > 0 && bytes.Equal(args, e.Call.Input) {
			carried = &carries.callIDInput
		}
		tc.rest = agentRest(wr.rest(s, e, false, carried), e)
	}
	if x, ok := e.Extra.Get("tool_call.extra"); ok {
		if wr.ver >= 7 {
			tc.extra = x
		} else {
			wr.rep.LoseRemedy(model.LossDroppedField, "tool_call.extra.tool_call.extra", "tool call extra (needs ATIF-v1.7)", e.Loc, "write --atif-version 1.7 to keep it")
		}
	}
	s.calls = append(s.calls, tc)
	w := wr.openCalls[orig]
	w.push(s)
	wr.openCalls[orig] = w
}

// result puts a tool result in the step of its call, which is held until
// its calls have their results.
func (wr *Writer) result(e *model.Event) {
	r := result{content: e.Result.Content, isError: e.Result.IsError}
	if raw := e.Result.ContentRaw; len(raw) > 0 && raw[0] == '[' && isParts(raw) {
		if wr.ver >= 6 {
			r.parts = raw
		} else if wr.same {
			wr.rep.LoseRemedy(model.LossDroppedField, "tool_result.result.raw", "content parts (images) flattened to text (need ATIF-v1.6)", e.Loc, "write --atif-version 1.6 to keep them")
		}
	}
	if raw := e.Result.ContentRaw; len(r.parts) == 0 && len(raw) > 0 && wr.same {
		// A non-conformant file's object content: ATIF's is a string or
		// content parts.
		wr.rep.Lose(model.LossDroppedField, "tool_result.result.raw", "observation content that is not a string or content parts, written as its text", e.Loc)
	}
	if refs, ok := e.Extra.Get("subagent_trajectory_ref"); ok {
		r.refs = wr.refs(refs, e.Loc)
	}
	if x, ok := e.Extra.Get("result.extra"); ok {
		r.extra, _ = model.ParseFields(x)
	}
	r.status = e.Result.Status
	orig := e.Result.CallID
	cur := wr.cur()
	if orig == "" && cur != nil && e.ID != "" && cur.srcID == e.ID {
		// A result without a call id from the same source step (terminus-2
		// writes these): it stays on that step.
		wr.resultRest(cur, e, &r)
		cur.results = append(cur.results, r)
		wr.grow(cur, e)
		return
	}
	var s *step
	if w := wr.openCalls[orig]; orig != "" && w.first != nil {
		// The oldest call with this id still without a result: where a
		// source reused one id for calls in flight together, results
		// answer them in order.
		s = w.first
		if w.pop(); w.first == nil {
			delete(wr.openCalls, orig)
		} else {
			wr.openCalls[orig] = w
		}
		c := s.firstOpen(orig) // one of s's calls of orig waits: s is in waiting once for each
		c.answered = true
		s.answered++
		r.callID = c.id
	} else if s = wr.heldWith(orig); s != nil {
		r.callID = s.lastCall(orig).id
		wr.rep.Add(model.LossIDUnique, "second result for one call id", e.Loc)
	} else {
		wr.orphan(e, r)
		return
	}
	wr.grow(s, e)
	if s != cur {
		wr.rep.Add(model.LossMoved, "observation moved back to the step of its tool call", e.Loc)
	}
	r.hasCall = true
	wr.resultRest(s, e, &r)
	s.results = append(s.results, r)
	if s.source == "agent" && s == cur {
		// Text after the results starts a new model turn.
		s.closed = true
	}
}

// heldWith is the latest held step with a call of source id orig.
func (wr *Writer) heldWith(orig string) *step {
	if orig == "" {
		return nil
	}
	for i := len(wr.held) - 1; i >= 0; i-- {
		if wr.held[i].hasCall(orig) {
			return wr.held[i]
		}
	}
	return nil
}

// orphan puts a result whose call is not held (unknown, or written
// already) on a system step, with the original id kept in extra (Harbor
// would reject it as source_call_id).
func (wr *Writer) orphan(e *model.Event, r result) {
	orig := e.Result.CallID
	s := wr.cur()
	if s == nil || s.source != "system" || s.closed || orig != "" {
		s = wr.newStep("system", e)
		s.message = ""
		s.orphans = true
	}
	wr.resultRest(s, e, &r)
	s.closed = true
	wr.grow(s, e)
	if orig != "" {
		s.extra.SetString("orphan_call_id", orig)
		if _, late := wr.late.Get(orig); late {
			wr.rep.Add(model.LossMoved, "observation that came after its call's step was written, put on a system step without source_call_id", e.Loc)
		} else {
			wr.rep.Add(model.LossMoved, "observation of an unknown call id put on a system step without source_call_id", e.Loc)
		}
	}
	s.results = append(s.results, r)
}

// refs fits a result's subagent_trajectory_ref to the version written:
// before 1.7 a reference has no trajectory_id (it goes to the reference's
// extra) and needs a session_id.
func (wr *Writer) refs(raw json.RawMessage, loc model.Loc) json.RawMessage {
	if wr.ver >= 7 {
		return raw
	}
	var list []model.Fields
	if json.Unmarshal(raw, &list) != nil {
		return raw
	}
	changed := false
	for i, ref := range list {
		id, ok := ref.Get("trajectory_id")
		if !ok {
			continue
		}
		changed = true
		ref.Delete("trajectory_id")
		x := model.Fields{}
		if v, ok := ref.Get("extra"); ok {
			x, _ = model.ParseFields(v)
		}
		x.Set("trajectory_id", id)
		ref.Set("extra", model.MustJSON(x))
		if _, ok := ref.Get("session_id"); !ok {
			ref.SetString("session_id", "unknown")
			wr.rep.Lose(model.LossSynthesized, "tool_result.extra.subagent_trajectory_ref", "subagent_trajectory_ref session_id \"unknown\" (required before ATIF-v1.7)", loc)
		}
		list[i] = ref
		wr.rep.LoseRemedy(model.LossMoved, "tool_result.extra.subagent_trajectory_ref", "subagent_trajectory_ref trajectory_id moved to the reference's extra (an ATIF-v1.7 field)", loc, "write --atif-version 1.7 to keep it in place")
	}
	if !changed {
		return raw
	}
	return model.MustJSON(list)
}

// usageOf is what a step's metrics say. A step that carries its message
// id (msgID) has the message's usage: a reader merges the steps of one
// message by their id. Any other step has what its events add to the
// session's count, so that a message its steps share without an id in
// the output (one rlog response split by a subagent's start) counts once.
func (s *step) usageOf() (model.Usage, bool) {
	if s.msgID != "" {
		return s.ledger.Total(), !s.ledger.Empty()
	}
	return s.grew, s.counted
}
