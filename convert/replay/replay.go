// Package replay reads, writes and validates REPLAY.jsonl v1, the canonical
// `event`-tagged replay log of OpenAgents (crates/dsrs/docs/REPLAY.md in
// OpenAgentsInc/openagents): one event per line, keys sorted, no whitespace,
// `sha256:` hashes over canonical JSON, a ReplayHeader first and every
// ToolResult after its ToolCall.
//
// REPLAY has no event for conversation text. The writer keeps user, agent
// and thinking text as `Message` extension events, which REPLAY consumers
// must ignore ("consumers ignore unknown events and fields"), so that a
// round trip through REPLAY keeps them.
package replay

import (
	"errors"
	"fmt"
	"github.com/rlog-ls/rlog-ls/convert/internal/idset"
	"github.com/rlog-ls/rlog-ls/convert/internal/recent"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rlog-ls/rlog-ls/convert/claude"
	"github.com/rlog-ls/rlog-ls/convert/internal/canon"
	"github.com/rlog-ls/rlog-ls/convert/internal/jsonl"
	"github.com/rlog-ls/rlog-ls/convert/internal/jsonscan"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

// Name is the format name used by the CLI.
const Name = "replay"

// PreviewLimit is the `output_preview` limit of the spec: the first and
// last 1000 characters around "...".
const PreviewLimit = 2000

// Read streams a REPLAY.jsonl file.
func Read(r io.Reader, sink model.Sink, rep *model.Report) error {
	h := &model.Header{SourceFormat: Name}
	lr := jsonl.NewReader(r)
	for {
		line, n, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, jsonl.ErrLineTooLong) {
				rep.Malformed(n, err)
				continue
			}
			return err
		}
		// The record's values are decoded where they are; event copies
		// those it keeps.
		f, perr := model.ParseFieldsView(line)
		if perr != nil || f == nil {
			if perr == nil {
				perr = errors.New("null")
			}
			rep.Malformed(n, perr)
			continue
		}
		rep.InvalidUTF8(line, model.Loc{Line: n})
		ev, ok := event(h, f, model.Loc{Line: n}, rep)
		if !ok {
			continue
		}
		rep.Events++
		if err := sink.Event(h, ev); err != nil {
			return err
		}
	}
	return sink.End(h)
}

func event(h *model.Header, f model.Fields, loc model.Loc, rep *model.Report) (*model.Event, bool) {
	typ, _ := f.String("event")
	t, _ := f.String("t")
	ev := &model.Event{Time: t, Loc: loc}
	if typ != "ReplayHeader" && typ != "SessionStart" && typ != "SessionEnd" {
		// The writer's extension fields: usage, model and message id.
		ev.MessageID, _ = f.String("message_id")
		ev.Model, _ = f.String("model")
		if v, ok := f.Get("usage"); ok {
			ev.Usage = claude.ParseUsage(v)
		}
		if ev.MessageID != "" || ev.Model != "" || ev.Usage != nil {
			f = without(f, "message_id", "model", "usage")
		}
	}
	rest := func(skip ...string) model.Fields {
		var out model.Fields
	next:
		for i, fl := range f {
			if fl.Key == "event" || fl.Key == "t" {
				continue
			}
			for _, s := range skip {
				if fl.Key == s {
					continue next
				}
			}
			if out == nil {
				out = make(model.Fields, 0, len(f)-i)
			}
			out = append(out, model.Field{Key: fl.Key, Value: jsonscan.Copy(fl.Value)})
		}
		return out
	}
	switch typ {
	case "ReplayHeader":
		h.SourceVersion, _ = f.String("replay_version")
		if v, ok := f.Get("replay_version"); ok {
			h.SourceVersion = string(jsonscan.Copy(v))
		}
		if p, ok := f.String("producer"); ok {
			h.Extra.SetString("producer", p)
		}
		if c, ok := f.String("created_at"); ok {
			h.Extra.SetString("created_at", c)
		}
		return nil, false
	case "SessionStart":
		h.ID, _ = f.String("session_id")
		if m, ok := f.String("model"); ok && h.Model == "" {
			h.Model = m
		}
		if h.Started == "" {
			h.Started = t
		}
		ev.Kind = model.KindLifecycle
		ev.Name = "start"
		for _, fl := range rest("session_id", "model") {
			h.Extra.Set(fl.Key, fl.Value)
		}
		return ev, true
	case "ToolCall":
		ev.Kind = model.KindToolCall
		c := &model.ToolCall{}
		c.ID, _ = f.String("id")
		c.Name, _ = f.String("tool")
		if p, ok := f.Get("params"); ok {
			c.Input = jsonscan.Copy(p)
		}
		ev.Call = c
		if sid, ok := f.String("step_id"); ok {
			if n, err := strconv.ParseInt(strings.TrimPrefix(sid, "step-"), 10, 64); err == nil {
				ev.Step = n
			}
		}
		ev.Extra = rest("id", "tool", "params")
		return ev, true
	case "ToolResult":
		ev.Kind = model.KindToolResult
		r := &model.ToolResult{}
		r.CallID, _ = f.String("id")
		r.Content, _ = f.String("output_preview")
		if x, ok := f.Get("exit_code"); ok && !jsonscan.IsNull(x) {
			code, _ := jsonscan.Int(x)
			r.IsError = code != 0
		}
		ev.Result = r
		ev.Extra = rest("id", "output_preview")
		return ev, true
	case "SessionEnd":
		ev.Kind = model.KindLifecycle
		ev.Name = "end"
		status, _ := f.String("status")
		ok := status == "Success"
		h.Outcome = &model.Outcome{Success: &ok}
		h.Ended = t
		ev.Extra = rest()
		return ev, true
	case "Message":
		kind, _ := f.String("kind")
		ev.Text, _ = f.String("text")
		switch kind {
		case "user":
			ev.Kind = model.KindUser
		case "agent":
			ev.Kind = model.KindAgent
		case "thinking":
			ev.Kind = model.KindThinking
			ev.Signature, _ = f.String("signature")
		default:
			ev.Kind = model.KindSystem
			ev.Name = kind
			if n, ok := f.String("name"); ok {
				ev.Name = n // the writer's name of a system message
			}
		}
		ev.Extra = rest("kind", "text", "signature", "name")
		return ev, true
	case "PlanStart", "StepComplete", "Verification", "Payment", "RuntimeEvent":
		ev.Kind = model.KindLifecycle
		ev.Name = typ
		ev.Extra = rest()
		return ev, true
	case "":
		rep.Add(model.LossMalformed, "line without an event tag", loc)
		return nil, false
	default:
		ev.Kind = model.KindPassthrough
		ev.RawType = typ
		ev.Raw, _ = f.Copy().MarshalJSON()
		rep.Passthrough(ev, "replay event "+typ)
		return ev, true
	}
}

// without returns f without the keys, in a new slice.
func without(f model.Fields, keys ...string) model.Fields {
	out := make(model.Fields, 0, len(f))
next:
	for _, fl := range f {
		for _, k := range keys {
			if fl.Key == k {
				continue next
			}
		}
		out = append(out, fl)
	}
	return out
}

// Writer writes REPLAY.jsonl as events arrive.
type Writer struct {
	w       io.Writer
	rep     *model.Report
	opt     model.Options
	started bool
	h       *model.Header
	last    string // last timestamp seen, for events without one
	// calls has the id written and the time of the last calls, by source
	// id; seen a hash of every call id (a result needs its call before
	// it): neither grows with the session beyond 8 bytes a call.
	calls   *recent.Map[callRef]
	seen    idset.Set
	ncalls  int64
	latency int64
	ended   bool
	buf     []byte
	err     error
}

type callRef struct{ id, t string }

// NewWriter returns a streaming REPLAY writer (a model.Sink).
func NewWriter(w io.Writer, rep *model.Report, opt model.Options) *Writer {
	return &Writer{w: w, rep: rep, opt: opt, calls: recent.New[callRef](4096)}
}

// Write writes a whole session.
func Write(w io.Writer, s *model.Session, rep *model.Report, opt model.Options) error {
	return model.Replay(s, NewWriter(w, rep, opt))
}

// line writes one event; fields are canonicalized (sorted, compact).
func (wr *Writer) line(f model.Fields) {
	if wr.err != nil {
		return
	}
	// A hash carried over from the source (a passed-through event, extra
	// fields) that is not sha256:<64 hex> would make the file invalid.
	for _, k := range []string{"params_hash", "output_hash", "plan_hash"} {
		if h, ok := f.String(k); ok && !validHash(h) {
			f.Delete(k)
			wr.rep.Add(model.LossDroppedField, k+" that is not sha256:<64 hex>", model.Loc{})
		}
	}
	raw, _ := f.MarshalJSON()
	wr.buf = canon.Append(wr.buf[:0], raw)
	wr.buf = append(wr.buf, '\n')
	_, wr.err = wr.w.Write(wr.buf)
}

func (wr *Writer) start(h *model.Header, t string) {
	wr.started = true
	producer := wr.opt.ProducerName()
	if h.SourceFormat == "rlog" {
		// rlog keeps truncated output: hashes cannot be over the full value.
		producer += " (truncated-source)"
		wr.rep.Add(model.LossUnfaithful, "output_hash over truncated rlog text, not the full output", model.Loc{})
	}
	var hd model.Fields
	hd.SetString("event", "ReplayHeader")
	hd.SetAny("replay_version", 1)
	hd.SetString("producer", producer)
	created := wr.opt.Time().Format(time.RFC3339)
	hd.SetString("created_at", created)
	wr.line(hd)
	var ss model.Fields
	ss.SetString("event", "SessionStart")
	ss.SetString("t", pickTime(h.Started, t, created))
	id := h.ID
	if id == "" {
		id = "unknown"
		wr.rep.Add(model.LossSynthesized, "session_id \"unknown\"", model.Loc{})
	}
	ss.SetString("session_id", id)
	if h.Model != "" {
		// An extension field, as the usage of events (see Writer.usage).
		ss.SetString("model", h.Model)
	}
	if _, ok := h.Extra.Get("policy_bundle_id"); !ok {
		ss.SetString("policy_bundle_id", "unknown")
		wr.rep.Add(model.LossSynthesized, "policy_bundle_id \"unknown\" (required, the source has none)", model.Loc{})
	}
	for _, f := range h.Extra {
		switch f.Key {
		case "policy_bundle_id", "issue_number":
			ss.Set(f.Key, f.Value)
		}
	}
	wr.line(ss)
}

func pickTime(ts ...string) string {
	for _, t := range ts {
		if t != "" {
			return t
		}
	}
	return ""
}

// Event implements model.Sink.
func (wr *Writer) Event(h *model.Header, e *model.Event) error {
	wr.h = h
	if !wr.started {
		wr.start(h, e.Time)
	}
	t := e.Time
	if t == "" {
		t = wr.last
		if t == "" {
			t = pickTime(h.Started, wr.opt.Time().Format(time.RFC3339))
		}
	} else {
		wr.last = t
	}
	var f model.Fields
	switch e.Kind {
	case model.KindToolCall:
		f.SetString("event", "ToolCall")
		f.SetString("t", t)
		id := e.Call.ID
		if wr.seen.Has(e.Call.ID) && e.Call.ID != "" {
			wr.rep.Add(model.LossIDUnique, "tool call id reused (ToolResult matches the latest)", e.Loc)
		}
		if id == "" {
			id = fmt.Sprintf("tc_%d", wr.ncalls+1)
			wr.rep.Add(model.LossSynthesized, "ToolCall id for a call without one", e.Loc)
		}
		wr.calls.Set(e.Call.ID, callRef{id: id, t: t})
		wr.seen.Add(e.Call.ID)
		wr.ncalls++
		f.SetString("id", id)
		f.SetString("tool", e.Call.Name)
		params := e.Call.Input
		if len(params) == 0 {
			params = []byte("{}")
		}
		f.Set("params", params)
		hash := canon.Hash(params)
		if src, ok := e.Extra.String("params_hash"); ok && src != hash {
			wr.rep.Add(model.LossUnfaithful, "params_hash recomputed over params differs from the source's", e.Loc)
		}
		f.SetString("params_hash", hash)
		if sid, ok := e.Extra.String("step_id"); ok {
			f.SetString("step_id", sid)
		} else if e.Step > 0 {
			f.SetString("step_id", "step-"+strconv.FormatInt(e.Step, 10))
		} else {
			f.SetString("step_id", "step-"+strconv.FormatInt(wr.ncalls, 10))
		}
	case model.KindToolResult:
		ref, known := wr.calls.Get(e.Result.CallID)
		if !known && wr.seen.Has(e.Result.CallID) {
			// A call older than the ids remembered: its id as the source
			// had it, and no latency from the times.
			ref, known = callRef{id: e.Result.CallID}, e.Result.CallID != ""
		}
		callT := ref.t
		if !known {
			wr.rep.Add(model.LossDroppedEvent, "ToolResult without a prior ToolCall (REPLAY requires one)", e.Loc)
			return wr.err
		}
		f.SetString("event", "ToolResult")
		f.SetString("t", t)
		f.SetString("id", ref.id)
		if src, ok := e.Extra.String("output_hash"); ok && h.SourceFormat == Name && validHash(src) {
			// A REPLAY source keeps only a preview: its hash is the faithful one.
			f.SetString("output_hash", src)
		} else {
			if ok && h.SourceFormat == Name {
				wr.rep.Add(model.LossUnfaithful, "output_hash of the source is not sha256:<64 hex>; recomputed over the preview", e.Loc)
			}
			f.SetString("output_hash", canon.HashString(e.Result.Content))
		}
		if x, ok := e.Extra.Get("exit_code"); ok {
			f.Set("exit_code", x)
		} else if e.Result.IsError {
			f.SetAny("exit_code", 1)
			wr.rep.Add(model.LossSynthesized, "exit_code 1 for a failed tool (the source has no exit code)", e.Loc)
		} else {
			f.Set("exit_code", []byte("null"))
		}
		if x, ok := e.Extra.Get("step_utility"); ok {
			f.Set("step_utility", x)
		} else {
			f.Set("step_utility", []byte("0.0"))
		}
		lat := int64(0)
		if x, ok := e.Extra.Get("latency_ms"); ok {
			lat, _ = jsonscan.Int(x)
		} else if a, err1 := time.Parse(time.RFC3339Nano, callT); err1 == nil {
			if b, err2 := time.Parse(time.RFC3339Nano, t); err2 == nil && b.After(a) {
				lat = b.Sub(a).Milliseconds()
			}
		}
		wr.latency += lat
		f.SetAny("latency_ms", lat)
		f.SetString("output_preview", Preview(e.Result.Content))
		if len([]rune(e.Result.Content)) > PreviewLimit {
			wr.rep.Add(model.LossTruncated, "tool output (REPLAY keeps a hash and a 2000-character preview)", e.Loc)
		}
	case model.KindUser, model.KindAgent, model.KindThinking:
		f.SetString("event", "Message")
		f.SetString("t", t)
		f.SetString("kind", e.Kind.String())
		f.SetString("text", e.Text)
		if e.Signature != "" {
			f.SetString("signature", e.Signature)
		}
	case model.KindLifecycle:
		switch e.Name {
		case "start":
			return wr.err
		case "end":
			return wr.end(h, t)
		case "PlanStart", "StepComplete", "Verification", "Payment", "RuntimeEvent":
			f.SetString("event", e.Name)
			f.SetString("t", t)
			for _, x := range e.Extra {
				f.Set(x.Key, x.Value)
			}
		default:
			wr.rep.Add(model.LossDroppedEvent, "lifecycle "+e.Name+" (no REPLAY event)", e.Loc)
			return wr.err
		}
	case model.KindPassthrough:
		if h.SourceFormat == Name && len(e.Raw) > 0 {
			raw, _ := model.ParseFields(e.Raw)
			wr.line(raw)
			return wr.err
		}
		wr.rep.DropEvent(e, "record "+e.RawType+" (no REPLAY event)")
		return wr.err
	default:
		f.SetString("event", "Message")
		f.SetString("t", t)
		f.SetString("kind", e.Kind.String())
		f.SetString("text", describe(e))
		if e.Kind == model.KindSystem && e.Name != "" {
			f.SetString("name", e.Name)
		}
	}
	wr.usage(&f, e)
	if h.SourceFormat != Name {
		wr.rep.DropExtras(e)
	} else {
		for _, x := range e.Extra {
			if _, set := f.Get(x.Key); !set {
				f.Set(x.Key, x.Value)
			}
		}
	}
	wr.line(f)
	return wr.err
}

// usage carries an event's token usage, model and message id as
// extension fields (`usage`, `model`, `message_id`), which REPLAY consumers
// ignore as the spec says they must: REPLAY has no event for them, and
// without them a round trip through REPLAY would lose every token count.
// The usage object has Anthropic's names, as Claude Code writes it.
func (wr *Writer) usage(f *model.Fields, e *model.Event) {
	if e.MessageID != "" {
		f.SetString("message_id", e.MessageID)
	}
	if e.Model != "" && e.Model != wr.h.Model {
		f.SetString("model", e.Model)
	}
	if u := e.Usage; u != nil {
		var uf model.Fields
		uf.SetAny("input_tokens", u.Input)
		uf.SetAny("output_tokens", u.Output)
		uf.SetAny("cache_read_input_tokens", u.CacheRead)
		uf.SetAny("cache_creation_input_tokens", u.CacheCreate)
		f.Set("usage", model.MustJSON(uf))
	}
}

func describe(e *model.Event) string {
	switch e.Kind {
	case model.KindInit:
		return "init model=" + e.Model
	case model.KindSubagent:
		return strings.TrimSpace(e.Subagent.Type + " " + e.Subagent.ID + " " + e.Subagent.Status + " " + e.Subagent.Summary)
	case model.KindTodos:
		var parts []string
		for _, t := range e.Todos {
			parts = append(parts, "["+t.Status+"] "+t.Content)
		}
		return strings.Join(parts, "; ")
	case model.KindCompaction:
		return pickTime(e.Text, "context compaction")
	}
	return e.Text
}

func (wr *Writer) end(h *model.Header, t string) error {
	if wr.ended {
		return wr.err
	}
	wr.ended = true
	var f model.Fields
	f.SetString("event", "SessionEnd")
	f.SetString("t", t)
	status := "Success"
	if h.Outcome != nil && h.Outcome.Success != nil && !*h.Outcome.Success {
		status = "Failed"
	}
	f.SetString("status", status)
	f.Set("confidence", []byte("0.0"))
	f.SetAny("total_tool_calls", wr.ncalls)
	f.SetAny("total_latency_ms", wr.latency)
	wr.line(f)
	return wr.err
}

// End implements model.Sink: a session with an outcome gets a SessionEnd.
func (wr *Writer) End(h *model.Header) error {
	if !wr.started {
		wr.start(h, "")
	}
	if h.Outcome != nil && !wr.ended {
		return wr.end(h, pickTime(h.Ended, wr.last, h.Started))
	}
	return wr.err
}

// Preview cuts s to the spec's output_preview: the first 1000 and the last
// 1000 characters around "...".
func Preview(s string) string {
	r := []rune(s)
	if len(r) <= PreviewLimit {
		return s
	}
	return string(r[:PreviewLimit/2]) + "..." + string(r[len(r)-PreviewLimit/2:])
}
