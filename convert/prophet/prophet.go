// Package prophet reads and writes mini-prophet trajectory.json:
// {messages:[{key, message}], steps:[{input:[keys],
// output:key}], trajectory_format:"mini-prophet-v<version>"}, with OpenAI
// chat messages keyed S0, U0, A0, T0, O0 (one counter per role).
package prophet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/rlog-ls/rlog-ls/convert/internal/jsonscan"
	"github.com/rlog-ls/rlog-ls/convert/internal/jsonw"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

// Name is the format name used by the CLI.
const Name = "prophet"

// DefaultFormat is the trajectory_format written for other sources.
const DefaultFormat = "mini-prophet-v0.1.10"

// Read reads a mini-prophet trajectory. Messages are taken in the order of
// the messages list (the order the recorder first saw them); the per-step
// context windows (steps[].input) have no place in the model and are
// reported as dropped.
func Read(r io.Reader, sink model.Sink, rep *model.Report) error {
	root, err := model.ReadDocument(r, "prophet")
	if err != nil {
		return err
	}
	h := &model.Header{SourceFormat: Name, AgentName: "mini-prophet"}
	h.SourceVersion, _ = root.String("trajectory_format")
	h.AgentVersion = strings.TrimPrefix(h.SourceVersion, "mini-prophet-v")
	if steps, ok := root.Get("steps"); ok && len(steps) > 2 {
		rep.Add(model.LossDroppedField, "steps[].input (context window per step)", model.Loc{Path: "$.steps"})
	}
	for _, f := range root {
		switch f.Key {
		case "messages", "steps", "trajectory_format":
		default:
			h.Extra.Set(f.Key, f.Value)
		}
	}
	msgs, _ := root.Get("messages")
	if len(msgs) == 0 || msgs[0] != '[' {
		rep.Add(model.LossMalformed, "messages is missing or not a list", model.Loc{Path: "$.messages"})
		return sink.End(h)
	}
	emit := func(e *model.Event) error {
		rep.Events++
		if h.Started == "" && e.Time != "" {
			h.Started = e.Time
		}
		return sink.Event(h, e)
	}
	err = jsonscan.Array(msgs, func(i int, b []byte) error {
		loc := model.Loc{Path: fmt.Sprintf("$.messages[%d]", i)}
		wrap, err := model.ParseValidFields(b)
		if err != nil || wrap == nil {
			rep.Add(model.LossMalformed, "message entry is not an object", loc)
			return nil
		}
		key, _ := wrap.String("key")
		mraw, _ := wrap.Get("message")
		m, err := model.ParseValidFields(mraw)
		if err != nil || m == nil {
			rep.Add(model.LossMalformed, "message is not an object", loc)
			return nil
		}
		role, _ := m.String("role")
		content, _ := m.String("content")
		var extra model.Fields
		if x, ok := m.Get("extra"); ok {
			extra, _ = model.ParseValidFields(x)
		}
		ev := &model.Event{Loc: loc, ID: key, Text: content}
		if ts, ok := extra.Get("timestamp"); ok {
			if f, ok := jsonscan.Float(ts); ok {
				sec, frac := math.Modf(f)
				ev.Time = time.Unix(int64(sec), int64(frac*1e9)).UTC().Format("2006-01-02T15:04:05.000000Z")
			}
			extra.Delete("timestamp")
		}
		switch role {
		case "system":
			ev.Kind = model.KindSystem
			ev.Name = "system"
		case "user":
			ev.Kind = model.KindUser
			if _, ok := extra.Get("interrupt_type"); ok {
				ev.Meta = true
			}
		case "assistant":
			ev.Kind = model.KindAgent
			ev.MessageID = key
			u := &model.Usage{}
			prompt, _ := intOf(extra, "prompt_tokens")
			u.Output, _ = intOf(extra, "completion_tokens")
			u.CacheRead, _ = intOf(extra, "cached_tokens")
			u.CacheCreate, _ = intOf(extra, "cache_creation_tokens")
			u.Input = max(prompt-u.CacheRead-u.CacheCreate, 0)
			if !u.IsZero() {
				ev.Usage = u
			}
			for _, k := range []string{"prompt_tokens", "completion_tokens", "cached_tokens", "cache_creation_tokens", "total_tokens", "actions"} {
				extra.Delete(k)
			}
			ev.Extra = extra
			if err := emit(ev); err != nil {
				return err
			}
			if tc, ok := m.Get("tool_calls"); ok && !jsonscan.IsNull(tc) {
				return jsonscan.Array(tc, func(j int, cb []byte) error {
					cf, _ := model.ParseValidFields(cb)
					call := &model.ToolCall{}
					call.ID, _ = cf.String("id")
					if fn, ok := cf.Get("function"); ok {
						ff, _ := model.ParseValidFields(fn)
						call.Name, _ = ff.String("name")
						args, _ := ff.String("arguments")
						if jsonscan.Valid([]byte(args)) {
							call.Input = json.RawMessage(args)
						} else if args != "" {
							call.Input = model.MustJSON(model.Fields{{Key: "input", Value: model.MustJSON(args)}})
							rep.Add(model.LossMalformed, "tool call arguments are not JSON", loc)
						}
					}
					ce := &model.Event{Kind: model.KindToolCall, Time: ev.Time, ID: key, MessageID: key, Call: call, Loc: loc}
					return emit(ce)
				})
			}
			return nil
		case "tool":
			ev.Kind = model.KindToolResult
			id, _ := m.String("tool_call_id")
			isErr := false
			if e, ok := extra.Get("error"); ok && !jsonscan.IsNull(e) && string(e) != "false" {
				isErr = true
			}
			extra.Delete("error")
			ev.Result = &model.ToolResult{CallID: id, Content: content, IsError: isErr}
			ev.Text = ""
		case "exit":
			ev.Kind = model.KindLifecycle
			ev.Name = "end"
			out := &model.Outcome{ResultText: content}
			status, _ := extra.String("exit_status")
			ok := status == "Submitted" || status == "submitted"
			out.Success = &ok
			h.Outcome = out
		default:
			ev.Kind = model.KindSystem
			ev.Name = role
		}
		ev.Extra = extra
		return emit(ev)
	})
	if err != nil {
		return err
	}
	return sink.End(h)
}

func intOf(f model.Fields, k string) (int64, bool) {
	v, ok := f.Get(k)
	if !ok {
		return 0, false
	}
	return jsonscan.Int(v)
}

type msg struct {
	key  string
	body []byte
}

// Write writes s as a mini-prophet trajectory. Each model turn (agent text
// and its tool calls) becomes one assistant message and one step whose
// input is every message key so far (rlog and most sources have no record
// of the real context window).
func Write(w io.Writer, s *model.Session, rep *model.Report, opt model.Options) error {
	counters := map[byte]int{}
	next := func(p byte) string {
		k := string(p) + strconv.Itoa(counters[p])
		counters[p]++
		return k
	}
	same := s.Header.SourceFormat == Name
	var msgs []msg
	type stepT struct {
		input  []string
		output string
	}
	var steps []stepT
	keys := func() []string {
		out := make([]string, len(msgs))
		for i, m := range msgs {
			out[i] = m.key
		}
		return out
	}
	events := s.Events
	for i := 0; i < len(events); i++ {
		e := &events[i]
		var b bytes.Buffer
		o := jsonw.Begin(&b)
		switch e.Kind {
		case model.KindAgent, model.KindThinking, model.KindToolCall:
			// One assistant message per model turn.
			j := i
			var texts []string
			var calls []*model.Event
			var usage *model.Usage
			first := e
			for ; j < len(events); j++ {
				x := &events[j]
				if x.Kind != model.KindAgent && x.Kind != model.KindThinking && x.Kind != model.KindToolCall {
					break
				}
				if j > i && x.MessageID != "" && first.MessageID != "" && x.MessageID != first.MessageID {
					break
				}
				if j > i && x.Kind != model.KindToolCall && len(calls) > 0 {
					break
				}
				switch x.Kind {
				case model.KindAgent:
					texts = append(texts, x.Text)
				case model.KindThinking:
					rep.Add(model.LossDroppedEvent, "thinking (mini-prophet has no reasoning field)", x.Loc)
				case model.KindToolCall:
					calls = append(calls, x)
				}
				if x.Usage != nil {
					if usage == nil {
						u := *x.Usage
						usage = &u
					} else {
						u := usage.Max(*x.Usage)
						usage = &u
					}
				}
				if !same {
					rep.DropExtras(x)
				}
			}
			i = j - 1
			o.Str("role", "assistant")
			o.Str("content", strings.Join(texts, "\n\n"))
			o.Key("tool_calls")
			b.WriteByte('[')
			var actions bytes.Buffer
			actions.WriteByte('[')
			for k, c := range calls {
				if k > 0 {
					b.WriteByte(',')
					actions.WriteByte(',')
				}
				args := string(c.Call.Input)
				if args == "" {
					args = "{}"
				}
				co := jsonw.Begin(&b)
				co.Str("id", c.Call.ID)
				co.Str("type", "function")
				co.Key("function")
				fo := jsonw.Begin(&b)
				fo.Str("name", c.Call.Name)
				fo.Str("arguments", args)
				fo.End()
				co.End()
				ao := jsonw.Begin(&actions)
				ao.Str("name", c.Call.Name)
				ao.Str("arguments", args)
				ao.Str("tool_call_id", c.Call.ID)
				ao.End()
			}
			b.WriteByte(']')
			actions.WriteByte(']')
			o.Key("extra")
			xo := jsonw.Begin(&b)
			xo.Raw("actions", actions.Bytes())
			if usage != nil {
				xo.Int("prompt_tokens", usage.Prompt())
				xo.Int("completion_tokens", usage.Output)
				xo.Int("total_tokens", usage.Prompt()+usage.Output)
				xo.Int("cached_tokens", usage.CacheRead)
				xo.Int("cache_creation_tokens", usage.CacheCreate)
			}
			if ts := unixTime(first.Time); ts != "" {
				xo.Raw("timestamp", []byte(ts))
			}
			if same {
				for _, f := range first.Extra {
					if !strings.HasPrefix(f.Key, "_") {
						xo.Raw(f.Key, f.Value)
					}
				}
			}
			xo.End()
			o.End()
			key := next('A')
			steps = append(steps, stepT{input: keys(), output: key})
			msgs = append(msgs, msg{key, b.Bytes()})
			continue
		case model.KindUser:
			o.Str("role", "user")
			o.Str("content", e.Text)
			writeExtra(o, e, same, rep)
			o.End()
			msgs = append(msgs, msg{next('U'), b.Bytes()})
		case model.KindToolResult:
			o.Str("role", "tool")
			o.Str("tool_call_id", e.Result.CallID)
			o.Str("content", e.Result.Content)
			o.Key("extra")
			xo := jsonw.Begin(&b)
			if e.Result.IsError {
				xo.Bool("error", true)
			} else {
				xo.Raw("error", nil)
			}
			if ts := unixTime(e.Time); ts != "" {
				xo.Raw("timestamp", []byte(ts))
			}
			if same {
				for _, f := range e.Extra {
					if !strings.HasPrefix(f.Key, "_") {
						xo.Raw(f.Key, f.Value)
					}
				}
			} else {
				rep.DropExtras(e)
			}
			xo.End()
			o.End()
			msgs = append(msgs, msg{next('T'), b.Bytes()})
		case model.KindSystem:
			o.Str("role", "system")
			o.Str("content", e.Text)
			writeExtra(o, e, same, rep)
			o.End()
			msgs = append(msgs, msg{next('S'), b.Bytes()})
		case model.KindLifecycle:
			if e.Name == "end" && same {
				o.Str("role", "exit")
				o.Str("content", e.Text)
				writeExtra(o, e, same, rep)
				o.End()
				msgs = append(msgs, msg{next('O'), b.Bytes()})
				continue
			}
			rep.Add(model.LossDroppedEvent, "lifecycle "+e.Name+" (no mini-prophet message)", e.Loc)
		default:
			rep.DropEvent(e, e.Kind.String()+" (no mini-prophet message)")
		}
	}
	if out := s.Header.Outcome; out != nil && !same {
		var b bytes.Buffer
		o := jsonw.Begin(&b)
		o.Str("role", "exit")
		o.Str("content", out.ResultText)
		o.Key("extra")
		xo := jsonw.Begin(&b)
		status := "Submitted"
		if out.Success != nil && !*out.Success {
			status = "Failed"
		}
		xo.Str("exit_status", status)
		xo.Str("submission", out.ResultText)
		xo.End()
		o.End()
		msgs = append(msgs, msg{next('O'), b.Bytes()})
	}
	format := DefaultFormat
	if same && s.Header.SourceVersion != "" {
		format = s.Header.SourceVersion
	}
	var b bytes.Buffer
	o := jsonw.Begin(&b)
	o.Key("messages")
	b.WriteByte('[')
	for i, m := range msgs {
		if i > 0 {
			b.WriteByte(',')
		}
		mo := jsonw.Begin(&b)
		mo.Str("key", m.key)
		mo.Raw("message", m.body)
		mo.End()
	}
	b.WriteByte(']')
	o.Key("steps")
	b.WriteByte('[')
	for i, st := range steps {
		if i > 0 {
			b.WriteByte(',')
		}
		so := jsonw.Begin(&b)
		so.Any("input", st.input)
		so.Str("output", st.output)
		so.End()
	}
	b.WriteByte(']')
	o.Str("trajectory_format", format)
	if !same {
		rep.DropHeaderExtras(&s.Header)
	} else {
		for _, f := range s.Header.Extra {
			o.Raw(f.Key, f.Value)
		}
	}
	o.End()
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, b.Bytes(), "", "  "); err != nil {
		return fmt.Errorf("prophet: internal error: %w", err)
	}
	pretty.WriteByte('\n')
	_, err := w.Write(pretty.Bytes())
	return err
}

func writeExtra(o *jsonw.Obj, e *model.Event, same bool, rep *model.Report) {
	if !same {
		rep.DropExtras(e)
	}
	var x model.Fields
	if ts := unixTime(e.Time); ts != "" {
		x.Set("timestamp", json.RawMessage(ts))
	}
	if same {
		for _, f := range e.Extra {
			if !strings.HasPrefix(f.Key, "_") {
				x.Set(f.Key, f.Value)
			}
		}
	}
	if len(x) > 0 {
		o.Raw("extra", model.MustJSON(x))
	}
}

// unixTime renders an RFC 3339 timestamp as a unix float, as mini-prophet
// records it ("" when ts does not parse).
func unixTime(ts string) string {
	if ts == "" {
		return ""
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ""
	}
	return strconv.FormatFloat(float64(t.UnixMicro())/1e6, 'f', 6, 64)
}
