// Package trajectory reads and writes the autopilot trajectory JSON
// (`docs/logs/YYYYMMDD/HHMMSS-slug.json`): one document with a root of
// session metadata, a flat list of typed steps, an optional result and the
// usage totals. It is the lossless side of the autopilot pair: tool output
// is untruncated.
//
// Both directions stream: the reader hands out one step at a time, and the
// writer writes the root fields it knows first, each step as it comes, and
// what it learns at the end (result, usage) after the steps.
package trajectory

import (
	"bufio"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"unsafe"

	"github.com/rlog-ls/rlog-ls/convert/internal/jsonw"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// Name is the format name used by the CLI.
const Name = "trajectory"

// Read reads a trajectory document, one step at a time. A document that is
// not a JSON object is an error; steps of the wrong shape are reported and
// skipped. Root fields after the steps (result, usage) complete the header
// by the time the sink's End is called.
func Read(r io.Reader, sink model.Sink, rep *model.Report) error {
	h := &model.Header{SourceFormat: Name, AgentName: "autopilot"}
	// ix indexes each step as the walker validates it, so that the step's
	// members are listed from the index, and its UTF-8 is checked once,
	// for the report and for reading it in place.
	var ix jsonscan.Index
	// step is the room of a step's list, which the event does not keep
	// (it copies the fields it keeps): one list for every step.
	var step model.Scratch
	return model.Document{
		Format: "trajectory",
		List:   "steps",
		Index:  &ix,
		Elem: func(i int, b []byte, loc model.Loc) error {
			// A step that is valid UTF-8 is read in place (its values are
			// byte for byte what copying them would give), and what the
			// event keeps of it is copied once the rest is applied: the
			// rest itself is read, not kept.
			inPlace := readInPlace && ix.InputValidUTF8()
			f, err := step.ParseRecord(&ix, b, !inPlace, true)
			if err != nil || f == nil {
				rep.Add(model.LossMalformed, "step is not an object", loc)
				return nil
			}
			ev := stepEvent(&ix, f, loc, rep)
			if h.Origin != "" {
				// Written from another format: the step's number is the
				// writer's, and its rest gives the event back. The rest
				// is part of the step ix indexed: its members, and
				// those of its call, result and extra, come from the
				// index, and its UTF-8 is the step's, checked already.
				ev.Step = 0
				if r, ok := f.Get("rest"); ok {
					ev.Extra.Delete("rest")
					if err := model.ApplyRestIn(&ix, ev, r); err != nil {
						rep.Add(model.LossMalformed, "step rest: "+err.Error(), loc)
					}
				}
			}
			if inPlace {
				ownValues(&ix, ev, b)
			}
			rep.Events++
			return sink.Event(h, ev)
		},
		Root: func(key string, v json.RawMessage) { rootField(h, key, v, rep) },
	}.ReadTo(r, rep, sink, h)
}

// readInPlace is false only in the tests, which hold reading in place to
// reading copies (FuzzReadInPlace).
var readInPlace = true

// ownValues copies the raw values of ev that are still b's bytes (a step
// read in place: its call's input, its result's raw output, its extra),
// through ix, which indexes b and knows it valid UTF-8.
func ownValues(ix *jsonscan.Index, ev *model.Event, b []byte) {
	in := func(v []byte) bool {
		if len(v) == 0 || len(b) == 0 {
			return false
		}
		start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		p := uintptr(unsafe.Pointer(unsafe.SliceData(v)))
		return p >= start && p < start+uintptr(len(b))
	}
	if ev.Call != nil && in(ev.Call.Input) {
		ev.Call.Input = ix.Copy(ev.Call.Input)
	}
	if ev.Result != nil && in(ev.Result.ContentRaw) {
		ev.Result.ContentRaw = ix.Copy(ev.Result.ContentRaw)
	}
	for i, f := range ev.Extra {
		if in(f.Value) {
			ev.Extra[i].Value = ix.Copy(f.Value)
		}
	}
}

// rootField puts one root field in the header.
func rootField(h *model.Header, key string, v json.RawMessage, rep *model.Report) {
	str := func() string { s, _ := jsonscan.String(v); return s }
	switch key {
	case "session_id":
		h.ID = str()
	case "prompt":
		h.Prompt = str()
	case "model":
		h.Model = str()
	case "cwd":
		h.Cwd = str()
	case "repo_sha":
		h.RepoSHA = str()
	case "branch":
		h.Branch = str()
	case "started_at":
		h.Started = str()
	case "ended_at":
		h.Ended = str()
	case "source", "source_end":
		// This package's writer's, from another format: where the
		// session came from, the header fields the root has no key for,
		// and the root values it made up.
		if _, err := model.ApplySource(h, v); err != nil {
			rep.Add(model.LossMalformed, key+": "+err.Error(), model.Loc{Path: "$." + key})
		}
	case "usage":
		u, _ := model.ParseValidFields(v)
		h.Totals = &model.Usage{Input: intField(u, "input_tokens"), Output: intField(u, "output_tokens"),
			CacheRead: intField(u, "cache_read_tokens"), CacheCreate: intField(u, "cache_creation_tokens")}
		if c, ok := u.Get("cost_usd"); ok {
			if f, ok := jsonscan.Float(c); ok {
				h.CostUSD = &f
			}
		}
	case "result":
		if jsonscan.IsNull(v) {
			return
		}
		rf, err := model.ParseValidFields(v)
		if err != nil {
			rep.Add(model.LossMalformed, "result is not an object", model.Loc{Path: "$.result"})
			return
		}
		out := &model.Outcome{}
		if b, ok := rf.Get("success"); ok {
			s, _ := jsonscan.Bool(b)
			out.Success = &s
		}
		out.DurationMS = intField(rf, "duration_ms")
		out.NumTurns = intField(rf, "num_turns")
		out.ResultText, _ = rf.String("result_text")
		if e, ok := rf.Get("errors"); ok {
			json.Unmarshal(e, &out.Errors)
		}
		h.Outcome = out
		for _, f := range rf {
			switch f.Key {
			case "success", "duration_ms", "num_turns", "result_text", "errors":
			default:
				h.Extra.Set("result."+f.Key, f.Value)
			}
		}
	default:
		h.Extra = append(h.Extra, model.Field{Key: key, Value: v})
	}
}

func intField(f model.Fields, key string) int64 {
	v, ok := f.Get(key)
	if !ok {
		return 0
	}
	n, _ := jsonscan.Int(v)
	return n
}

// stepCommon are the fields every step may have; message_id and
// tokens_cache_create are this package's own (see Writer).
func stepCommon(k string) bool {
	switch k {
	case "step_id", "timestamp", "type", "tokens_in", "tokens_out", "tokens_cached", "tokens_cache_create", "message_id":
		return true
	}
	return false
}

// stepEvent is the event of step f, a list made from the step ix
// indexed (its strings decoded through ix).
func stepEvent(ix *jsonscan.Index, f model.Fields, loc model.Loc, rep *model.Report) *model.Event {
	ev := &model.Event{Loc: loc}
	ev.Step = intField(f, "step_id")
	ev.Time, _ = f.StringIn(ix, "timestamp")
	ev.MessageID, _ = f.StringIn(ix, "message_id")
	typ, _ := f.StringIn(ix, "type")
	_, hasIn := f.Get("tokens_in")
	_, hasOut := f.Get("tokens_out")
	if hasIn || hasOut {
		ev.Usage = &model.Usage{Input: intField(f, "tokens_in"), Output: intField(f, "tokens_out"),
			CacheRead: intField(f, "tokens_cached"), CacheCreate: intField(f, "tokens_cache_create")}
	}
	// The keys read into the event's own fields, which its extra leaves
	// out (at most five).
	var usedKeys [6]string
	used := usedKeys[:0]
	str := func(k string) string {
		used = append(used, k)
		s, _ := f.StringIn(ix, k)
		return s
	}
	switch typ {
	case "user":
		ev.Kind = model.KindUser
		ev.Text = str("content")
	case "assistant":
		ev.Kind = model.KindAgent
		ev.Text = str("content")
	case "thinking":
		ev.Kind = model.KindThinking
		ev.Text = str("content")
		ev.Signature = str("signature")
	case "tool_call":
		ev.Kind = model.KindToolCall
		ev.Call = &model.ToolCall{ID: str("tool_id"), Name: str("tool")}
		if v, ok := f.Get("input"); ok {
			ev.Call.Input = v
		}
		used = append(used, "input")
	case "tool_result":
		ev.Kind = model.KindToolResult
		res := &model.ToolResult{CallID: str("tool_id")}
		if v, ok := f.Get("success"); ok {
			s, _ := jsonscan.Bool(v)
			res.IsError = !s
		}
		used = append(used, "success")
		if v, ok := f.Get("output"); ok {
			if s, isStr := ix.String(v); isStr {
				res.Content = s
			} else if !jsonscan.IsNull(v) {
				res.Content, res.ContentRaw = string(v), v
			}
		} else {
			ev.Form.NoOutput = true
		}
		used = append(used, "output")
		if st, ok := f.StringIn(ix, "status"); ok && st != "" {
			// This writer's: a status other than ok or error.
			res.Status = st
			used = append(used, "status")
		}
		ev.Result = res
	case "system_init":
		ev.Kind = model.KindInit
		ev.Model = str("model")
	case "system_status":
		ev.Kind = model.KindStatus
		ev.Text = str("status")
	case "subagent":
		ev.Kind = model.KindSubagent
		ev.Subagent = &model.Subagent{ID: str("agent_id"), Type: str("agent_type"), Status: str("status"), Summary: str("summary")}
	default:
		ev.Kind = model.KindPassthrough
		ev.RawType = typ
		ev.Raw, _ = f.MarshalJSON()
		rep.Passthrough(ev, "trajectory step type "+typ)
		return ev
	}
	for _, fl := range f {
		if !stepCommon(fl.Key) && !slices.Contains(used, fl.Key) {
			ev.Extra = append(ev.Extra, fl)
		}
	}
	return ev
}

// Writer writes a trajectory document as events arrive: the root fields
// known at the first event, each step, then ended_at if it was learned
// late, result, usage and the source's other root fields. Steps are
// numbered 1..N; events the format has no step type for are reported and
// left out.
//
// Beyond the autopilot's own fields a step may carry message_id (the model
// response it came from) and tokens_cache_create (its cache-creation
// tokens), so that a session's token counts survive the way through this
// format; the autopilot's readers ignore fields they do not know.
type Writer struct {
	buf  jsonw.Buf // the step being built (Event), indented as an element of the steps list
	out  *bufio.Writer
	rep  *model.Report
	opt  model.Options
	same bool

	begun  bool // the root's head is written
	ended  bool // ended_at is written
	steps  int
	ledger model.Ledger
	err    error
	// extraKeys are the header's extra fields the source object holds;
	// madeUp names the root values the writer made up.
	extraKeys map[string]bool
	madeUp    []string
	// lastMsg is the message id of the last step written.
	lastMsg string
	// endedAt is the ended_at written at the start.
	endedAt string
}

// NewWriter returns a streaming trajectory writer (a model.Sink).
func NewWriter(w io.Writer, rep *model.Report, opt model.Options) *Writer {
	wr := &Writer{out: bufio.NewWriterSize(w, 64<<10), rep: rep, opt: opt}
	wr.buf.Indent(2) // a step is inside the root and its steps list
	return wr
}

// Write writes a whole session.
func Write(w io.Writer, s *model.Session, rep *model.Report, opt model.Options) error {
	return model.Replay(s, NewWriter(w, rep, opt))
}

// flush sends the piece in buf to the output.
func (wr *Writer) flush(b []byte) {
	if wr.err == nil {
		_, wr.err = wr.out.Write(b)
	}
}

// begin writes the root's fields up to the steps list.
func (wr *Writer) begin(h *model.Header, first *model.Event) {
	wr.begun = true
	origin, _ := h.First()
	wr.same = origin == Name
	var b jsonw.Buf
	b.Indent(0)
	o := b.Begin()
	o.Str("session_id", h.ID)
	o.Str("prompt", h.Prompt)
	o.Str("model", h.Model)
	o.Str("cwd", h.Cwd)
	if h.RepoSHA == "" {
		wr.rep.Add(model.LossSynthesized, "repo_sha (empty string; the source has none)", model.Loc{Path: "$.repo_sha"})
	}
	o.Str("repo_sha", h.RepoSHA)
	if h.Branch != "" {
		o.Str("branch", h.Branch)
	}
	started := h.Started
	if started == "" && first != nil {
		started = first.Time
	}
	if started == "" {
		started = wr.opt.Time().Format("2006-01-02T15:04:05.000000Z")
		wr.rep.Add(model.LossSynthesized, "started_at (conversion time)", model.Loc{Path: "$.started_at"})
	}
	if h.Started == "" {
		wr.madeUp = append(wr.madeUp, "started")
	}
	o.Str("started_at", started)
	if h.Ended != "" {
		o.Str("ended_at", h.Ended)
		wr.ended = true
		wr.endedAt = h.Ended
	}
	if !wr.same {
		// Where the session came from and the header fields the root has
		// no key for (the agent, the source's own), for the reader.
		wr.extraKeys = map[string]bool{}
		o.Raw("source", model.SourceOf(h, wr.extraKeys, nil, "model", "repo_sha", "branch", "cwd", "prompt", "started"))
	}
	o.Key("steps")
	b.List() // its elements are the steps, each a piece of its own (Event)
	wr.flush(b.Bytes())
}

// BorrowsEvents implements model.Borrower: a step is written as its
// event comes; the writer keeps a message id and its ledger's counts.
func (*Writer) BorrowsEvents() bool { return true }

// Event implements model.Sink.
func (wr *Writer) Event(h *model.Header, e *model.Event) error {
	if !wr.begun {
		wr.begin(h, e)
	}
	wr.ledger.Add(e)
	b := &wr.buf // reused: written out before the next is built
	b.Reset()
	b.ContinueList(wr.steps).Next()
	if !wr.step(b, e, wr.steps+1) {
		return wr.err // (b is not written)
	}
	wr.steps++
	if wr.same && e.Step != 0 && e.Step != int64(wr.steps) {
		// From another format, the step's number is in its rest.
		wr.rep.Lose(model.LossRenumbered, "*.step", "step_id renumbered 1..N", e.Loc)
	}
	wr.flush(b.Bytes())
	return wr.err
}

// End implements model.Sink: the fields known only now.
func (wr *Writer) End(h *model.Header) error {
	if !wr.begun {
		wr.begin(h, nil)
	}
	var b jsonw.Buf
	b.Indent(2)
	b.ContinueList(wr.steps).End()
	o := b.Continue(1)
	if h.Ended != "" && !wr.ended {
		o.Str("ended_at", h.Ended)
	}
	if out := h.Outcome; out != nil {
		o.Key("result")
		r := b.Begin()
		r.Bool("success", out.Success == nil || *out.Success)
		if out.Success == nil {
			wr.madeUp = append(wr.madeUp, "outcome.success")
		}
		r.Int("duration_ms", out.DurationMS)
		r.Int("num_turns", out.NumTurns)
		if out.ResultText != "" {
			r.Str("result_text", out.ResultText)
		}
		if len(out.Errors) > 0 {
			r.Any("errors", out.Errors)
		}
		for _, f := range h.Extra {
			if k, ok := strings.CutPrefix(f.Key, "result."); ok && wr.same {
				r.Raw(k, f.Value)
			}
		}
		r.End()
	}
	tot, _ := model.Totals(h, &wr.ledger)
	if h.Totals == nil {
		wr.madeUp = append(wr.madeUp, "totals")
	}
	if h.CostUSD == nil {
		wr.madeUp = append(wr.madeUp, "cost")
	}
	o.Key("usage")
	u := b.Begin()
	u.Int("input_tokens", tot.Input)
	u.Int("output_tokens", tot.Output)
	u.Int("cache_read_tokens", tot.CacheRead)
	u.Int("cache_creation_tokens", tot.CacheCreate)
	cost := 0.0
	if h.CostUSD != nil {
		cost = *h.CostUSD
	}
	u.Float("cost_usd", cost)
	u.End()
	for _, f := range h.Extra {
		switch {
		case strings.HasPrefix(f.Key, "result.") && wr.same:
		case wr.same:
			o.Raw(f.Key, f.Value)
		}
	}
	switch {
	case !wr.same:
		// What the header says only now, and which root values are made
		// up (a usage summed from the steps, a cost of 0), for the reader.
		o.Raw("source_end", model.SourceEndOf(h, wr.extraKeys, wr.madeUp, "totals", "cost", "outcome"))
	case wr.ended && h.Ended != wr.endedAt:
		// Its end moved after ended_at was written (a source whose end
		// is known only at its end).
		o.Raw("source_end", model.SourceEndOf(h, nil, nil, "totals", "cost", "outcome", "extra"))
	}
	o.End()
	wr.flush(b.Bytes())
	if wr.err != nil {
		return wr.err
	}
	return wr.out.Flush()
}

// step writes one step into b; false when e has no step type.
func (wr *Writer) step(b *jsonw.Buf, e *model.Event, id int) bool {
	var typ string
	switch e.Kind {
	case model.KindUser:
		typ = "user"
	case model.KindAgent:
		typ = "assistant"
	case model.KindThinking:
		typ = "thinking"
	case model.KindToolCall:
		typ = "tool_call"
	case model.KindToolResult:
		typ = "tool_result"
	case model.KindInit:
		typ = "system_init"
	case model.KindStatus, model.KindCompaction:
		typ = "system_status"
	case model.KindSubagent:
		typ = "subagent"
	case model.KindPassthrough:
		if wr.same && len(e.Raw) > 0 {
			b.Raw(e.Raw)
			return true
		}
		if wr.same {
			wr.rep.DropEvent(e, "record "+e.RawType+" (no trajectory step type)")
			return false
		}
		typ = "system_status"
	default:
		if wr.same {
			wr.rep.DropEvent(e, e.Kind.String()+" (no trajectory step type)")
			return false
		}
		// A status step for people; its rest gives the event back.
		typ = "system_status"
	}
	o := b.Begin()
	o.Int("step_id", int64(id))
	o.Str("timestamp", e.Time)
	o.Str("type", typ)
	switch e.Kind {
	case model.KindUser, model.KindAgent:
		o.Str("content", e.Text)
	case model.KindThinking:
		o.Str("content", e.Text)
		if e.Signature != "" {
			o.Str("signature", e.Signature)
		}
	case model.KindToolCall:
		o.Str("tool", e.Call.Name)
		o.Str("tool_id", e.Call.ID)
		if len(e.Call.Input) > 0 {
			o.Raw("input", e.Call.Input)
		} else {
			o.Raw("input", []byte("{}"))
		}
	case model.KindToolResult:
		o.Str("tool_id", e.Result.CallID)
		o.Bool("success", !e.Result.IsError)
		if e.Result.Status != "" {
			// A status other than ok or error (rlog's `[2 issues]`), in
			// a field the autopilot's readers ignore, as the usage.
			o.Str("status", e.Result.Status)
		}
		if !e.Form.NoOutput {
			if len(e.Result.ContentRaw) > 0 && wr.same {
				o.Raw("output", e.Result.ContentRaw)
			} else {
				o.Str("output", e.Result.Content)
			}
		}
	case model.KindInit:
		o.Str("model", e.Model)
	case model.KindStatus:
		o.Str("status", e.Text)
	case model.KindCompaction:
		o.Str("status", "Compacting")
	case model.KindSubagent:
		sa := e.Subagent
		o.Str("agent_id", sa.ID)
		o.Str("agent_type", sa.Type)
		o.Str("status", sa.Status)
		if sa.Summary != "" {
			o.Str("summary", sa.Summary)
		}
	default:
		o.Str("status", model.Describe(e))
	}
	synthetic := model.SyntheticMessageID(e.MessageID)
	repeated := synthetic && e.MessageID == wr.lastMsg
	if repeated {
		// One response a reader tied together without writing an id:
		// its usage once, as the ledger counts it.
	} else if u := e.Usage; u != nil {
		o.Int("tokens_in", u.Input)
		o.Int("tokens_out", u.Output)
		o.Int("tokens_cached", u.CacheRead)
		if u.CacheCreate != 0 {
			o.Int("tokens_cache_create", u.CacheCreate)
		}
	}
	if e.MessageID != "" && !synthetic {
		o.Str("message_id", e.MessageID)
	}
	wr.lastMsg = e.MessageID
	if wr.same {
		for _, f := range e.Extra {
			o.Raw(f.Key, f.Value)
		}
	} else {
		c := *carried(e)
		if repeated && e.Usage != nil {
			c.Add(&carries.plusUsage) // not on the step: its response's, counted once
		}
		// Written indented where it stands (model.WriteRestCarried), not
		// made compact and indented again.
		o.Key("rest")
		model.WriteRestCarried(b, e, nil, &c)
	}
	o.End()
	return true
}

// carried is what a step of e holds of it (the fields its rest carries,
// model.WriteRestCarried): the rest of the event goes in the step's rest.
func carried(e *model.Event) *model.Carried {
	switch e.Kind {
	case model.KindUser, model.KindAgent, model.KindStatus:
		return &carries.text
	case model.KindThinking:
		return &carries.thinking
	case model.KindToolCall:
		if len(e.Call.Input) > 0 {
			return &carries.callInput
		}
		return &carries.call
	case model.KindToolResult:
		return &carries.result
	case model.KindInit:
		return &carries.init
	case model.KindSubagent:
		if sa := e.Subagent; sa.AgentID == "" && sa.SessionID == "" && sa.TrajectoryPath == "" {
			return &carries.subagent
		}
	}
	return &carries.step
}

// carries are what each kind of step holds of its event, each made into
// a model.Carried once instead of a list of names a step matched again
// at every rest (every step holds the event's time and message id), and
// "+usage", which a step adds when it leaves its usage to its response's
// first step. None says its event has none of a field (no unset names),
// so adding one to another appends nothing.
var carries = func() (c struct {
	step, text, thinking, call, callInput, result, init, subagent, plusUsage model.Carried
}) {
	c.step = model.CarriedOf("time", "message_id")
	c.text = model.CarriedOf("time", "message_id", "text")
	c.thinking = model.CarriedOf("time", "message_id", "text", "signature")
	c.call = model.CarriedOf("time", "message_id", "call.id", "call.name")
	c.callInput = model.CarriedOf("time", "message_id", "call.id", "call.name", "call.input")
	c.result = model.CarriedOf("time", "message_id", "result.call_id", "result.is_error", "result.status", "result.content")
	c.init = model.CarriedOf("time", "message_id", "model")
	c.subagent = model.CarriedOf("time", "message_id", "subagent")
	c.plusUsage = model.CarriedOf("+usage")
	return c
}()

// Detect judges whether an input is an autopilot trajectory from its
// root: the session id with the prompt or the commit (repo_sha) is its
// shape; a session id with steps, which other trajectory formats have
// too, weak evidence.
func Detect(h *model.Head) model.Evidence {
	switch {
	case h.Has("session_id") && h.Has("prompt", "repo_sha"):
		return model.Strong
	case h.Has("session_id") && h.Has("steps"):
		return model.Weak
	}
	return model.NoEvidence
}
