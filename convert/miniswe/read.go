// Package miniswe reads mini-swe-agent trajectories
// (`trajectory_format: "mini-swe-agent-1"`: {info, messages,
// trajectory_format}), the ancestor of mini-prophet. The
// agent's action is the first ```bash block of each assistant message and
// its observation the user message that follows, as harbor's ATIF
// conversion reads it.
package miniswe

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/internal/jsonscan"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

// Name is the format name used by the CLI.
const Name = "mini-swe"

var bashBlock = regexp.MustCompile("(?s)```bash\\s*\\n(.*?)\\n```")

// Read reads a mini-swe-agent trajectory document.
func Read(r io.Reader, sink model.Sink, rep *model.Report) error {
	root, err := model.ReadDocument(r, "mini-swe")
	if err != nil {
		return err
	}
	h := &model.Header{SourceFormat: Name, AgentName: "mini-swe-agent"}
	h.SourceVersion, _ = root.String("trajectory_format")
	if info, ok := root.Get("info"); ok {
		inf, _ := model.ParseValidFields(info)
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
			h.Extra.Set("info."+f.Key, f.Value)
		}
	}
	msgs, _ := root.Get("messages")
	if len(msgs) == 0 || msgs[0] != '[' {
		rep.Add(model.LossMalformed, "messages is missing or not a list", model.Loc{Path: "$.messages"})
		return sink.End(h)
	}
	pending := "" // call id waiting for its observation
	emit := func(e *model.Event) error {
		rep.Events++
		return sink.Event(h, e)
	}
	err = jsonscan.Array(msgs, func(i int, b []byte) error {
		loc := model.Loc{Path: fmt.Sprintf("$.messages[%d]", i)}
		f, err := model.ParseValidFields(b)
		if err != nil || f == nil {
			rep.Add(model.LossMalformed, "message is not an object", loc)
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
			if pending != "" {
				ev.Kind = model.KindToolResult
				ev.Result = &model.ToolResult{CallID: pending, Content: content, IsError: !strings.HasPrefix(content, "<returncode>0</returncode>")}
				ev.Text = ""
				pending = ""
			} else {
				ev.Kind = model.KindUser
			}
		case "assistant":
			ev.Kind = model.KindAgent
			ev.MessageID = fmt.Sprintf("msg-%d", i)
			ev.Model = h.Model
			if x, ok := f.Get("extra"); ok {
				xf, _ := model.ParseValidFields(x)
				if resp, ok := xf.Get("response"); ok {
					ev.Usage = openAIUsage(resp)
					ev.Extra.Set("response", resp)
				}
			}
			if err := emit(ev); err != nil {
				return err
			}
			if m := bashBlock.FindStringSubmatch(content); m != nil {
				call := *ev
				call.Kind = model.KindToolCall
				call.Text = ""
				call.Extra = nil
				id := fmt.Sprintf("call_%d", i)
				call.Call = &model.ToolCall{ID: id, Name: "bash_command", Input: model.MustJSON(model.Fields{{Key: "command", Value: model.MustJSON(m[1])}})}
				pending = id
				return emit(&call)
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
		return emit(ev)
	})
	if err != nil {
		return err
	}
	return sink.End(h)
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
