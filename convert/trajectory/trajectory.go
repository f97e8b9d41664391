// Package trajectory reads and writes the autopilot trajectory JSON
// (`docs/logs/YYYYMMDD/HHMMSS-slug.json` in the OpenAgents repository): one document with
// a root of session metadata, a flat list of typed steps, an optional result
// and the usage totals. It is the lossless side of the autopilot pair: tool
// output is untruncated.
package trajectory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/internal/jsonscan"
	"github.com/rlog-ls/rlog-ls/convert/internal/jsonw"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

// Name is the format name used by the CLI.
const Name = "trajectory"

var rootKeys = map[string]bool{"session_id": true, "prompt": true, "model": true, "cwd": true, "repo_sha": true, "branch": true, "started_at": true, "ended_at": true, "steps": true, "result": true, "usage": true}

// Read reads a trajectory document. A document that is not a JSON object
// is an error; steps of the wrong shape are reported and skipped.
func Read(r io.Reader, sink model.Sink, rep *model.Report) error {
	root, err := model.ReadDocument(r, "trajectory")
	if err != nil {
		return err
	}
	h := &model.Header{SourceFormat: Name, AgentName: "autopilot"}
	h.ID, _ = root.String("session_id")
	h.Prompt, _ = root.String("prompt")
	h.Model, _ = root.String("model")
	h.Cwd, _ = root.String("cwd")
	h.RepoSHA, _ = root.String("repo_sha")
	h.Branch, _ = root.String("branch")
	h.Started, _ = root.String("started_at")
	h.Ended, _ = root.String("ended_at")
	for _, f := range root {
		if !rootKeys[f.Key] {
			h.Extra = append(h.Extra, f)
		}
	}
	if v, ok := root.Get("usage"); ok {
		u, _ := model.ParseValidFields(v)
		t := model.Usage{}
		t.Input = intField(u, "input_tokens")
		t.Output = intField(u, "output_tokens")
		t.CacheRead = intField(u, "cache_read_tokens")
		t.CacheCreate = intField(u, "cache_creation_tokens")
		h.Totals = &t
		if c, ok := u.Get("cost_usd"); ok {
			if f, ok := jsonscan.Float(c); ok {
				h.CostUSD = &f
			}
		}
	}
	if v, ok := root.Get("result"); ok && !jsonscan.IsNull(v) {
		rf, err := model.ParseValidFields(v)
		if err != nil {
			rep.Add(model.LossMalformed, "result is not an object", model.Loc{Path: "$.result"})
		} else {
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
		}
	}
	steps, _ := root.Get("steps")
	if len(steps) > 0 && steps[0] == '[' {
		err := jsonscan.Array(steps, func(i int, b []byte) error {
			loc := model.Loc{Path: fmt.Sprintf("$.steps[%d]", i)}
			f, err := model.ParseValidFields(b)
			if err != nil || f == nil {
				rep.Add(model.LossMalformed, "step is not an object", loc)
				return nil
			}
			ev := stepEvent(f, loc, rep)
			rep.Events++
			return sink.Event(h, ev)
		})
		if err != nil {
			return err
		}
	} else {
		rep.Add(model.LossMalformed, "steps is missing or not a list", model.Loc{Path: "$.steps"})
	}
	return sink.End(h)
}

func intField(f model.Fields, key string) int64 {
	v, ok := f.Get(key)
	if !ok {
		return 0
	}
	n, _ := jsonscan.Int(v)
	return n
}

var stepCommon = map[string]bool{"step_id": true, "timestamp": true, "type": true, "tokens_in": true, "tokens_out": true, "tokens_cached": true}

func stepEvent(f model.Fields, loc model.Loc, rep *model.Report) *model.Event {
	ev := &model.Event{Loc: loc}
	ev.Step = intField(f, "step_id")
	ev.Time, _ = f.String("timestamp")
	typ, _ := f.String("type")
	_, hasIn := f.Get("tokens_in")
	_, hasOut := f.Get("tokens_out")
	if hasIn || hasOut {
		ev.Usage = &model.Usage{Input: intField(f, "tokens_in"), Output: intField(f, "tokens_out"), CacheRead: intField(f, "tokens_cached")}
	}
	used := map[string]bool{}
	str := func(k string) string {
		used[k] = true
		s, _ := f.String(k)
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
		used["input"] = true
	case "tool_result":
		ev.Kind = model.KindToolResult
		res := &model.ToolResult{CallID: str("tool_id")}
		if v, ok := f.Get("success"); ok {
			s, _ := jsonscan.Bool(v)
			res.IsError = !s
		}
		used["success"] = true
		if v, ok := f.Get("output"); ok {
			if s, isStr := jsonscan.String(v); isStr {
				res.Content = s
			} else if !jsonscan.IsNull(v) {
				res.Content, res.ContentRaw = string(v), v
			}
		} else {
			ev.Extra.Set("_no_output", json.RawMessage("true"))
		}
		used["output"] = true
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
		if !stepCommon[fl.Key] && !used[fl.Key] {
			ev.Extra = append(ev.Extra, fl)
		}
	}
	return ev
}

// Write writes s as a trajectory document. Steps are renumbered 1..N;
// events the format has no step type for are reported and left out.
func Write(w io.Writer, s *model.Session, rep *model.Report, opt model.Options) error {
	h := &s.Header
	same := h.SourceFormat == Name
	var b bytes.Buffer
	o := jsonw.Begin(&b)
	o.Str("session_id", h.ID)
	o.Str("prompt", h.Prompt)
	o.Str("model", h.Model)
	o.Str("cwd", h.Cwd)
	if h.RepoSHA == "" {
		rep.Add(model.LossSynthesized, "repo_sha (empty string; the source has none)", model.Loc{Path: "$.repo_sha"})
	}
	o.Str("repo_sha", h.RepoSHA)
	if h.Branch != "" {
		o.Str("branch", h.Branch)
	}
	started := h.Started
	if started == "" && len(s.Events) > 0 {
		started = s.Events[0].Time
	}
	if started == "" {
		started = opt.Time().Format("2006-01-02T15:04:05.000000Z")
		rep.Add(model.LossSynthesized, "started_at (conversion time)", model.Loc{Path: "$.started_at"})
	}
	o.Str("started_at", started)
	if h.Ended != "" {
		o.Str("ended_at", h.Ended)
	}
	o.Key("steps")
	b.WriteByte('[')
	n := 0
	for i := range s.Events {
		e := &s.Events[i]
		var sb bytes.Buffer
		if !writeStep(&sb, e, n+1, same, rep) {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		if e.Step != 0 && e.Step != int64(n) {
			rep.Add(model.LossRenumbered, "step_id renumbered 1..N", e.Loc)
		}
		b.Write(sb.Bytes())
	}
	b.WriteByte(']')
	if out := h.Outcome; out != nil {
		o.Key("result")
		r := jsonw.Begin(&b)
		r.Bool("success", out.Success == nil || *out.Success)
		r.Int("duration_ms", out.DurationMS)
		r.Int("num_turns", out.NumTurns)
		if out.ResultText != "" {
			r.Str("result_text", out.ResultText)
		}
		if len(out.Errors) > 0 {
			r.Any("errors", out.Errors)
		}
		for _, f := range h.Extra {
			if k, ok := strings.CutPrefix(f.Key, "result."); ok && same {
				r.Raw(k, f.Value)
			}
		}
		r.End()
	}
	tot, _ := model.SessionTotals(h, s.Events)
	o.Key("usage")
	u := jsonw.Begin(&b)
	u.Int("input_tokens", tot.Input)
	u.Int("output_tokens", tot.Output)
	u.Int("cache_read_tokens", tot.CacheRead)
	u.Int("cache_creation_tokens", tot.CacheCreate)
	if h.CostUSD != nil {
		u.Float("cost_usd", *h.CostUSD)
	} else {
		u.Float("cost_usd", 0)
	}
	u.End()
	for _, f := range h.Extra {
		if strings.HasPrefix(f.Key, "result.") || strings.HasPrefix(f.Key, "_") {
			continue
		}
		if same {
			o.Raw(f.Key, f.Value)
		} else {
			rep.Add(model.LossDroppedField, "header field "+f.Key, model.Loc{})
		}
	}
	o.End()
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, b.Bytes(), "", "  "); err != nil {
		return fmt.Errorf("trajectory: internal error: %w", err)
	}
	pretty.WriteByte('\n')
	_, err := w.Write(pretty.Bytes())
	return err
}

func writeStep(b *bytes.Buffer, e *model.Event, id int, same bool, rep *model.Report) bool {
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
		if same && len(e.Raw) > 0 {
			b.Write(e.Raw)
			return true
		}
		rep.DropEvent(e, "record "+e.RawType+" (no trajectory step type)")
		return false
	default:
		rep.Add(model.LossDroppedEvent, e.Kind.String()+" (no trajectory step type)", e.Loc)
		return false
	}
	o := jsonw.Begin(b)
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
		if _, absent := e.Extra.Get("_no_output"); !absent {
			if len(e.Result.ContentRaw) > 0 && same {
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
	}
	if u := e.Usage; u != nil {
		o.Int("tokens_in", u.Input)
		o.Int("tokens_out", u.Output)
		o.Int("tokens_cached", u.CacheRead)
		if u.CacheCreate != 0 {
			rep.Add(model.LossDroppedField, "per-step cache_creation tokens", e.Loc)
		}
	}
	if same {
		for _, f := range e.Extra {
			if !strings.HasPrefix(f.Key, "_") {
				o.Raw(f.Key, f.Value)
			}
		}
	} else {
		rep.DropExtras(e)
	}
	o.End()
	return true
}
