// Package replaybundle reads the ReplayBundle the autopilot's replay
// viewer plays (autopilot-core replay.rs): one JSON document
// {version, id: "replay_<session>", created_at, metadata{model, cost_usd,
// tokens_in, tokens_out, duration_seconds, ...}, timeline:[{t: ms from
// the start, type: tool_call|tool_result|assistant|phase_start|phase_end,
// tool?, data}], receipts{...}}. It is not REPLAY.jsonl (package replay),
// whose events are canonical lines with hashes.
//
// The timeline has no call ids: a tool_result answers the oldest
// unanswered tool_call of the same tool, and the ids are made up (and
// reported).
package replaybundle

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// Name is the format name used by the CLI.
const Name = "replay-bundle"

// Read streams a ReplayBundle into sink, one timeline entry at a time.
// Root fields after the timeline (receipts) reach the header by End.
func Read(r io.Reader, sink model.Sink, rep *model.Report) error {
	rd := &reader{sink: sink, rep: rep, h: &model.Header{SourceFormat: Name}, open: map[string][]string{}}
	return model.Document{
		Format: "replay-bundle",
		List:   "timeline",
		Elem:   func(i int, b []byte, loc model.Loc) error { return rd.entry(b, loc) },
		Root:   rd.root,
	}.ReadTo(r, rep, sink, rd.h)
}

type reader struct {
	sink  model.Sink
	rep   *model.Report
	h     *model.Header
	start time.Time
	calls int
	// open holds the made-up ids of the calls of each tool still without
	// a result, oldest first; emptied queues are removed.
	open map[string][]string
}

func (rd *reader) root(key string, v json.RawMessage) {
	h := rd.h
	switch key {
	case "version":
		s, _ := jsonscan.String(v)
		h.SourceVersion = "ReplayBundle " + s
	case "id":
		s, _ := jsonscan.String(v)
		h.ID = strings.TrimPrefix(s, "replay_")
	case "created_at":
		h.Started, _ = jsonscan.String(v)
		if t, err := time.Parse(time.RFC3339Nano, h.Started); err == nil {
			rd.start = t
		}
	case "metadata":
		m, err := model.ParseFields(v)
		if err != nil {
			rd.rep.Add(model.LossMalformed, "metadata is not an object", model.Loc{Path: "$.metadata"})
			return
		}
		var tot model.Usage
		for _, f := range m {
			switch f.Key {
			case "model":
				h.Model, _ = jsonscan.String(f.Value)
			case "cost_usd":
				if c, ok := jsonscan.Float(f.Value); ok {
					h.CostUSD = &c
				}
			case "tokens_in":
				tot.Input, _ = jsonscan.Int(f.Value)
			case "tokens_out":
				tot.Output, _ = jsonscan.Int(f.Value)
			case "duration_seconds":
				if s, ok := jsonscan.Float(f.Value); ok {
					h.Outcome = &model.Outcome{DurationMS: int64(s * 1000)}
				}
			default:
				if !jsonscan.IsNull(f.Value) {
					h.Extra.Set("metadata."+f.Key, f.Value)
				}
			}
		}
		if !tot.IsZero() {
			h.Totals = &tot
		}
	default:
		h.Extra.Set(key, jsonscan.Copy(v))
	}
}

// entry turns one timeline entry into events.
func (rd *reader) entry(b []byte, loc model.Loc) error {
	f, err := model.ParseValidFields(b)
	if err != nil || f == nil {
		rd.rep.Add(model.LossMalformed, "timeline entry is not an object", loc)
		return nil
	}
	typ, _ := f.String("type")
	tool, _ := f.String("tool")
	data, _ := f.Get("data")
	df, _ := model.ParseValidFields(data)
	ev := &model.Event{Loc: loc, Time: rd.time(f)}
	switch typ {
	case "tool_call":
		rd.calls++
		id := "call_" + strconv.Itoa(rd.calls)
		rd.open[tool] = append(rd.open[tool], id)
		rd.rep.Add(model.LossSynthesized, "tool call id (the timeline has none)", loc)
		ev.Kind = model.KindToolCall
		ev.Call = &model.ToolCall{ID: id, Name: tool}
		if in, ok := df.Get("input"); ok {
			ev.Call.Input = in
		}
	case "tool_result":
		ev.Kind = model.KindToolResult
		res := &model.ToolResult{}
		if q := rd.open[tool]; len(q) > 0 {
			res.CallID = q[0]
			if len(q) == 1 {
				delete(rd.open, tool)
			} else {
				rd.open[tool] = q[1:]
			}
		} else {
			rd.rep.Add(model.LossMoved, "tool result without a call of its tool before it", loc)
		}
		if out, ok := df.Get("result"); ok {
			rf, _ := model.ParseValidFields(out)
			if s, ok := rf.String("content"); ok && len(rf) == 1 {
				res.Content = s
			} else {
				res.Content, res.ContentRaw = string(out), out
			}
			if s, ok := rf.Get("success"); ok {
				okv, _ := jsonscan.Bool(s)
				res.IsError = !okv
			}
		}
		ev.Result = res
	case "assistant":
		ev.Kind = model.KindAgent
		for _, k := range []string{"text", "content", "message"} {
			if s, ok := df.String(k); ok {
				ev.Text = s
				break
			}
		}
	case "phase_start", "phase_end":
		ev.Kind = model.KindLifecycle
		ev.Name = "phase"
		phase, _ := df.String("phase")
		ev.Text = phase
		if typ == "phase_end" {
			ev.Text = "end " + phase
			if s, ok := df.String("summary"); ok {
				ev.Text += ": " + s
			}
		}
		ev.Model, _ = df.String("model")
	default:
		ev.Kind = model.KindPassthrough
		ev.RawType = typ
		ev.Raw = jsonscan.Copy(b)
		// Through Passthrough, so a writer that drops it takes it back.
		rd.rep.Passthrough(ev, "timeline entry type "+strconv.Quote(typ))
	}
	rd.rep.Events++
	return rd.sink.Event(rd.h, ev)
}

// time is an entry's time: created_at plus its t milliseconds.
func (rd *reader) time(f model.Fields) string {
	v, ok := f.Get("t")
	if !ok || rd.start.IsZero() {
		return ""
	}
	ms, ok := jsonscan.Int(v)
	if !ok {
		return ""
	}
	return rd.start.Add(time.Duration(ms) * time.Millisecond).UTC().Format("2006-01-02T15:04:05.000Z")
}

// Detect judges whether an input is a ReplayBundle from its root: the
// timeline with the bundle's version, metadata or receipts is its shape, a
// timeline alone weak evidence.
func Detect(h *model.Head) model.Evidence {
	switch {
	case h.Has("timeline") && h.Has("version", "metadata", "receipts"):
		return model.Strong
	case h.Has("timeline"):
		return model.Weak
	}
	return model.NoEvidence
}
