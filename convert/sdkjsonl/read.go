// Package sdkjsonl reads the autopilot "JSONL companion" (docs/format.md#companion-files):
// one Claude Agent SDK message per line, wrapped as
// {"type": T, "message": <SDK message>, "timestamp": "..."}. It is read-only:
// nothing writes this format but the SDK itself.
package sdkjsonl

import (
	"io"

	"github.com/rlog-ls/rlog-ls/convert/claude"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// Name is the format name used by the CLI.
const Name = "sdk-jsonl"

// Read streams the file into sink. Malformed lines and records of the wrong
// shape are reported and skipped (or passed through); only an error of r is
// returned.
func Read(r io.Reader, sink model.Sink, rep *model.Report) error {
	h := &model.Header{SourceFormat: Name, AgentName: "autopilot"}
	st := &state{h: h, sink: sink, rep: rep}
	if err := model.Lines(r, rep, st.line); err != nil {
		return err
	}
	if st.results > 0 {
		t := st.totals
		h.Totals = &t
		c := st.cost
		h.CostUSD = &c
	}
	return sink.End(h)
}

type state struct {
	// ix indexes the line being read, for the message decoders.
	ix      jsonscan.Index
	h       *model.Header
	sink    model.Sink
	rep     *model.Report
	results int
	totals  model.Usage
	cost    float64
}

func (st *state) emit(e *model.Event) error {
	st.rep.Events++
	return st.sink.Event(st.h, e)
}

func (st *state) line(line []byte, n int) error {
	var typ, ts string
	var msg []byte
	var extra model.Fields
	err := st.ix.Object(line, func(k, v []byte) error {
		switch key := jsonscan.Key(k); key {
		case "type":
			typ, _ = st.ix.String(v)
		case "timestamp":
			ts, _ = st.ix.String(v)
		case "message":
			msg = v
		default:
			extra = append(extra, model.Field{Key: key, Value: st.ix.Copy(v)})
		}
		return nil
	})
	if err != nil {
		st.rep.Malformed(n, err)
		return nil
	}
	if !st.ix.InputValidUTF8() {
		st.rep.InvalidUTF8(line, model.Loc{Line: n})
	}
	if ts != "" {
		if st.h.Started == "" {
			st.h.Started = ts
		}
		st.h.Ended = ts
	}
	if typ == "assistant" || typ == "user" {
		// The SDK writes the session id on every message too.
		st.headerEcho(&extra)
	}
	base := model.Event{Time: ts, Loc: model.Loc{Line: n}, Extra: extra}
	pass := func(why string) error {
		ev := base
		ev.Extra = ev.Extra.Clone()
		ev.Kind = model.KindPassthrough
		ev.RawType = typ
		ev.Raw = st.ix.Copy(line)
		if why != "" {
			st.rep.Add(model.LossMalformed, typ+" record: "+why, base.Loc)
		} else {
			st.rep.Passthrough(&ev, "sdk record type "+typ)
		}
		return st.emit(&ev)
	}
	switch typ {
	case "assistant":
		evs, why := claude.AssistantEvents(&st.ix, msg, base, st.rep)
		if why != "" {
			return pass(why)
		}
		if st.h.Model == "" && evs[0].Model != "" {
			st.h.Model = evs[0].Model
		}
		return st.emitAll(evs)
	case "user":
		evs, why := claude.UserEvents(&st.ix, msg, base, st.rep)
		if why != "" {
			return pass(why)
		}
		return st.emitAll(evs)
	case "system":
		fields, err := model.ParseFields(msg)
		if err != nil || fields == nil {
			return pass("message is not an object")
		}
		return st.system(base, fields)
	case "result":
		fields, err := model.ParseFields(msg)
		if err != nil || fields == nil {
			return pass("message is not an object")
		}
		return st.result(base, fields)
	default:
		// tool_progress, stream_event, auth_status and anything newer.
		return pass("")
	}
}

func (st *state) emitAll(evs []model.Event) error {
	for i := range evs {
		if err := st.emit(&evs[i]); err != nil {
			return err
		}
	}
	return nil
}

func (st *state) system(base model.Event, f model.Fields) error {
	ev := base
	subtype, _ := f.String("subtype")
	f.Delete("subtype")
	switch subtype {
	case "init":
		ev.Kind = model.KindInit
		ev.Model, _ = f.String("model")
		f.Delete("model")
		if cwd, ok := f.String("cwd"); ok && st.h.Cwd == "" {
			st.h.Cwd = cwd
		}
		if st.h.Model == "" {
			st.h.Model = ev.Model
		}
		if v, ok := f.String("claude_code_version"); ok {
			if _, have := st.h.Extra.Get("claude_code_version"); !have {
				st.h.Extra.SetString("claude_code_version", v)
			}
		}
	case "status":
		ev.Kind = model.KindStatus
		ev.Text, _ = f.String("status") // null: the status ended
		f.Delete("status")
	case "compact_boundary":
		ev.Kind = model.KindCompaction
		c := &model.Compaction{}
		if md, ok := f.Get("compact_metadata"); ok {
			mf, _ := model.ParseFields(md)
			c.Trigger, _ = mf.String("trigger")
			if v, ok := mf.Get("pre_tokens"); ok {
				c.PreTokens, _ = jsonscan.Int(v)
			}
			f.Delete("compact_metadata")
		}
		ev.Compaction = c
	default:
		ev.Kind = model.KindSystem
		ev.Name = subtype
	}
	st.headerEcho(&f)
	ev.Extra = append(ev.Extra, f...)
	return st.emit(&ev)
}

// headerEcho takes the session-level fields the SDK repeats on its
// messages (session_id, cwd, claude_code_version) into the
// header, and out of the message's own fields when they say the same: the
// header carries them, and writers would otherwise report each copy as a
// field they drop. A message whose value differs keeps its own.
func (st *state) headerEcho(f *model.Fields) {
	if id, ok := f.String("session_id"); ok {
		if st.h.ID == "" {
			st.h.ID = id
		}
		if id == st.h.ID {
			f.Delete("session_id")
		}
	}
	if cwd, ok := f.String("cwd"); ok && cwd == st.h.Cwd {
		f.Delete("cwd")
	}
	if v, ok := f.String("claude_code_version"); ok {
		if cur, _ := st.h.Extra.String("claude_code_version"); cur == v {
			f.Delete("claude_code_version")
		}
	}
}

// result records a `result` message: the session outcome and its usage.
// Continued sessions have several; their usage and cost add up.
func (st *state) result(base model.Event, f model.Fields) error {
	st.results++
	ev := base
	ev.Kind = model.KindLifecycle
	ev.Name = "end"
	out := &model.Outcome{}
	if v, ok := f.Get("is_error"); ok {
		isErr, _ := jsonscan.Bool(v)
		ok := !isErr
		out.Success = &ok
	}
	if v, ok := f.Get("duration_ms"); ok {
		out.DurationMS, _ = jsonscan.Int(v)
	}
	if v, ok := f.Get("num_turns"); ok {
		out.NumTurns, _ = jsonscan.Int(v)
	}
	out.ResultText, _ = f.String("result")
	ev.Text = out.ResultText
	if v, ok := f.Get("errors"); ok {
		jsonscan.Array(v, func(i int, b []byte) error {
			if s, ok := jsonscan.String(b); ok {
				out.Errors = append(out.Errors, s)
			}
			return nil
		})
	}
	st.h.Outcome = out
	if v, ok := f.Get("usage"); ok {
		if u := claude.ParseUsage(v); u != nil {
			// The usage stays in Extra only: on the event it would be counted
			// again on top of the per-message usage.
			st.totals = st.totals.Add(*u)
		}
	}
	if v, ok := f.Get("total_cost_usd"); ok {
		c, _ := jsonscan.Float(v)
		st.cost += c
	}
	f.Delete("result")
	st.headerEcho(&f)
	ev.Extra = append(ev.Extra, f...)
	return st.emit(&ev)
}
