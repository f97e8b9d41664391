// Package miniswe reads mini-swe-agent trajectories
// (`trajectory_format: "mini-swe-agent-1"`: {info, messages,
// trajectory_format}), the ancestor of mini-prophet. The
// agent's action is the first ```bash block of each assistant message and
// its observation the user message that follows, as harbor's ATIF
// conversion reads it.
package miniswe

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// Name is the format name used by the CLI.
const Name = "mini-swe"

var bashBlock = regexp.MustCompile("(?s)```bash\\s*\\n(.*?)\\n```")

// Read reads a mini-swe-agent trajectory document, one message at a time.
// Root fields after the messages complete the header by the sink's End.
func Read(r io.Reader, sink model.Sink, rep *model.Report) error {
	rd := &reader{sink: sink, rep: rep, h: &model.Header{SourceFormat: Name, AgentName: "mini-swe-agent"}}
	return model.Document{
		Format: "mini-swe",
		List:   "messages",
		Elem:   rd.message,
		Root:   rd.root,
	}.ReadTo(r, rep, sink, rd.h)
}

type reader struct {
	sink    model.Sink
	rep     *model.Report
	h       *model.Header
	pending string // call id waiting for its observation
}

func (rd *reader) root(key string, v json.RawMessage) {
	h := rd.h
	switch key {
	case "trajectory_format":
		h.SourceVersion, _ = jsonscan.String(v)
	case "info":
		inf, _ := model.ParseValidFields(v)
		h.AgentVersion, _ = inf.String("mini_version")
		out := &model.Outcome{}
		status, _ := inf.String("exit_status")
		ok := status == "Submitted"
		out.Success = &ok
		out.ResultText, _ = inf.String("submission")
		h.Outcome = out
		if ms, ok := inf.Get("model_stats"); ok {
			mf, _ := model.ParseValidFields(ms)
			if c, ok := mf.Get("instance_cost"); ok {
				if f, ok := jsonscan.Float(c); ok {
					h.CostUSD = &f
				}
			}
		}
		if cfg, ok := inf.Get("config"); ok {
			cf, _ := model.ParseValidFields(cfg)
			if m, ok := cf.Get("model"); ok {
				mf, _ := model.ParseValidFields(m)
				h.Model, _ = mf.String("model_name")
			}
		}
		for _, f := range inf {
			switch f.Key {
			case "mini_version", "submission":
				// The header's version and the outcome's text.
			default:
				h.Extra.Set("info."+f.Key, f.Value)
			}
		}
	default:
		h.Extra.Set(key, v)
	}
}

func (rd *reader) emit(e *model.Event) error {
	rd.rep.Events++
	return rd.sink.Event(rd.h, e)
}

// message reads messages[i]: an assistant message is an agent event and,
// when it has a bash block, a call; the user message after it is the
// call's result.
func (rd *reader) message(i int, b []byte, loc model.Loc) error {
	f, err := model.ParseValidFields(b)
	if err != nil || f == nil {
		rd.rep.Add(model.LossMalformed, "message is not an object", loc)
		return nil
	}
	role, _ := f.String("role")
	content, _ := f.String("content")
	ev := &model.Event{Loc: loc, Text: content}
	switch role {
	case "system":
		ev.Kind = model.KindSystem
		ev.Name = "system"
	case "user":
		if rd.pending != "" {
			ev.Kind = model.KindToolResult
			ev.Result = &model.ToolResult{CallID: rd.pending, Content: content, IsError: !strings.HasPrefix(content, "<returncode>0</returncode>")}
			ev.Text = ""
			rd.pending = ""
		} else {
			ev.Kind = model.KindUser
		}
	case "assistant":
		ev.Kind = model.KindAgent
		ev.MessageID = fmt.Sprintf("msg-%d", i)
		ev.Model = rd.h.Model
		if x, ok := f.Get("extra"); ok {
			xf, _ := model.ParseValidFields(x)
			if resp, ok := xf.Get("response"); ok {
				ev.Usage = openAIUsage(resp)
				ev.Extra.Set("response", resp)
				rf, _ := model.ParseValidFields(resp)
				if ev.Model == "" {
					ev.Model, _ = rf.String("model")
				}
				// The API's response id is the message's identity.
				if id, ok := rf.String("id"); ok && id != "" {
					ev.MessageID = id
				}
			}
		}
		if err := rd.emit(ev); err != nil {
			return err
		}
		if m := bashBlock.FindStringSubmatch(content); m != nil {
			call := *ev
			call.Kind = model.KindToolCall
			call.Text = ""
			call.Extra = nil
			id := fmt.Sprintf("call_%d", i)
			call.Call = &model.ToolCall{ID: id, Name: "bash_command", Input: model.MustJSON(model.Fields{{Key: "command", Value: model.MustJSON(m[1])}})}
			rd.pending = id
			return rd.emit(&call)
		}
		return nil
	default:
		ev.Kind = model.KindLifecycle
		ev.Name = role
	}
	for _, fl := range f {
		if fl.Key != "role" && fl.Key != "content" {
			ev.Extra.Set(fl.Key, fl.Value)
		}
	}
	return rd.emit(ev)
}

// openAIUsage reads a chat completion's usage; prompt_tokens include the
// cached ones.
func openAIUsage(resp []byte) *model.Usage {
	rf, _ := model.ParseValidFields(resp)
	u, ok := rf.Get("usage")
	if !ok {
		return nil
	}
	uf, _ := model.ParseValidFields(u)
	get := func(f model.Fields, k string) int64 {
		v, _ := f.Get(k)
		n, _ := jsonscan.Int(v)
		return n
	}
	prompt := get(uf, "prompt_tokens")
	out := get(uf, "completion_tokens")
	var cached, create int64
	if d, ok := uf.Get("prompt_tokens_details"); ok && !jsonscan.IsNull(d) {
		df, _ := model.ParseValidFields(d)
		cached = get(df, "cached_tokens")
		create = get(df, "cache_creation_tokens")
	}
	return &model.Usage{Input: max(prompt-cached-create, 0), Output: out, CacheRead: cached, CacheCreate: create}
}

// formatTag starts the trajectory_format of every mini-swe-agent
// trajectory.
const formatTag = "mini-swe-agent"

// Detect judges whether an input is a mini-swe-agent trajectory from its
// root: its trajectory_format names the format; an info object with the
// agent's version or config is its shape, an info object alone weak
// evidence.
func Detect(h *model.Head) model.Evidence {
	switch {
	case strings.HasPrefix(h.String("trajectory_format"), formatTag):
		return model.Certain
	case h.InnerHas("info", "mini_version"), h.InnerHas("info", "config"):
		return model.Strong
	case h.Has("info"):
		return model.Weak
	}
	return model.NoEvidence
}
