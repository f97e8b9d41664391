package codex

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/rlog-ls/rlog-ls/convert/codex/records"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
	"github.com/rlog-ls/rlog-ls/usage"
)

// AgentName is the header's agent name of a Codex CLI session.
const AgentName = "codex"

// Read reads a rollout from r into sink, reporting malformed lines,
// unknown records and every record it keeps no event for in rep. It
// returns an error only when r or the sink fails.
func Read(r io.Reader, sink model.Sink, rep *model.Report) error {
	return read(r, "", sink, rep)
}

// ReadNamed is Read of the rollout at path (its content read from r): a
// sub-agent it spawns is linked to the sub-agent's own rollout when that
// lies beside it (x: lines name it as their trajectory).
func ReadNamed(r io.Reader, path string, sink model.Sink, rep *model.Report) error {
	return read(r, filepath.Dir(path), sink, rep)
}

func read(r io.Reader, dir string, sink model.Sink, rep *model.Report) error {
	st := &state{
		h:    &model.Header{SourceFormat: Name, AgentName: AgentName},
		sink: sink, rep: rep, dir: dir,
	}
	err := model.Lines(r, rep, st.readLine)
	if ferr := st.flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	return sink.End(st.h)
}

// maxPending bounds the events of one response held for its usage record;
// past it they go on without it (no response of a real rollout comes
// near).
const maxPending = 256

// maxCalls bounds the call and sub-agent ids kept across lines.
const maxCalls = 4096

type state struct {
	h    *model.Header
	sink model.Sink
	rep  *model.Report
	// dir is the rollout's folder, where its sub-agents' rollouts lie;
	// "" when it is read without a name.
	dir string
	ix  jsonscan.Index
	// line is the line being read, whole, for a record passed through.
	line []byte
	// payload is the line's payload; payloadMembers its members, found
	// the first time they are asked for (payloadWalked) and kept for the
	// line: the record's type and then its reader both look at them.
	payload        []byte
	payloadMembers []keyValue
	payloadWalked  bool

	// thread is the rollout's own thread id (its first session_meta's
	// id); agent is the same for a sub-agent's rollout, "" for a main
	// thread's, and goes on every event of its conversation as its
	// AgentID (rlog's tid=), as a Claude Code sub-agent's turns do.
	thread, agent string
	// agentPath is a sub-agent's path (/root/NAME), which its agent
	// messages name as their recipient.
	agentPath string
	// model is the model of the turn (turn_context), put on the events
	// of the model's responses.
	model string

	// pending are the events of the model's response being read, held
	// until its token_usage_record names the response and its usage.
	pending []*model.Event
	// failed holds the calls whose item event said they failed, read
	// before their output (cleared at each turn's end); spawned the spawn
	// call of each sub-agent thread started.
	failed  map[string]bool
	spawned map[string]string
	// open are the calls of the turn still waiting for their output, in
	// order (at most maxCalls: the oldest go first).
	open []string
}

// readLine reads one rollout line: {timestamp, [ordinal,] type, payload} (and
// metadata for a response item), or, as the earliest versions wrote, a
// bare session header and then bare response items.
func (st *state) readLine(b []byte, n int) error {
	st.line = b
	st.payload, st.payloadWalked = nil, false
	var ts, typ string
	var payload, metadata []byte
	other := false // a key of the line beyond these
	err := st.ix.Object(b, func(k, v []byte) error {
		switch string(jsonscan.KeyBytes(k)) {
		case "timestamp":
			ts, _ = st.ix.String(v)
		case "type":
			typ, _ = st.ix.String(v)
		case "payload":
			payload = v
		case "metadata":
			metadata = v
		case "ordinal":
			// The line's place, which its order keeps.
		default:
			other = true
		}
		return nil
	})
	loc := model.Loc{Line: n}
	if err != nil {
		st.rep.MalformedAt(loc, err)
		return nil
	}
	if !st.ix.InputValidUTF8() {
		st.rep.InvalidUTF8(b, loc)
	}
	if ts != "" {
		if st.h.Started == "" {
			st.h.Started = ts
		}
		st.h.Ended = ts
	}
	base := model.Event{Time: ts, AgentID: st.agent, Sidechain: st.agent != "", Loc: loc}
	if payload == nil {
		// The earliest form: the line is the payload.
		switch _, item := records.ResponseItem(typ); {
		case item:
			return st.responseItem(b, nil, base, typ)
		case typ == "" && n == 1 || typ == "session_meta":
			st.sessionMeta(b, loc)
			return nil
		}
		if _, known := records.Line(typ); known {
			st.rep.Add(model.LossMalformed, "codex "+typ+" line without its payload", loc)
			return nil
		}
		return st.passthrough(base, typ)
	}
	if other {
		st.otherKeys(b, loc)
	}
	if payload[0] != '{' {
		st.rep.Add(model.LossMalformed, "codex "+quoteType(typ)+" line whose payload is not an object", loc)
		return nil
	}
	st.payload = payload
	switch typ {
	case "session_meta":
		st.sessionMeta(payload, loc)
	case "turn_context":
		return st.turnContext(payload, base)
	case "response_item":
		return st.responseItem(payload, metadata, base, st.str(payload, "type"))
	case "event_msg":
		return st.event(payload, base)
	case "compacted":
		return st.compacted(payload, base)
	case "token_usage_record":
		return st.usage(payload, base)
	case "world_state":
		st.bookkeeping("codex world_state (the environment shown to the model: instructions, working folder, shell, date)", loc)
	case "inter_agent_communication_metadata":
		st.bookkeeping("codex inter_agent_communication_metadata (whether the agent message after it starts a turn)", loc)
	default:
		return st.passthrough(base, typ)
	}
	return nil
}

// otherKeys reports the keys of a line beyond the rollout's line form,
// which a newer version may add.
func (st *state) otherKeys(b []byte, loc model.Loc) {
	st.members(b, func(key string, _ []byte) {
		switch key {
		case "timestamp", "type", "payload", "metadata", "ordinal":
		default:
			st.rep.Lose(model.LossDroppedField, "", "codex line field "+key, loc)
		}
	})
}

// bookkeeping reports a record that has no event: what the CLI keeps for
// itself (settings, running totals, copies of response items in the
// client's terms). Each is counted by its name.
//
// detail is "codex NAME (what it holds)", a constant, so that counting a
// line makes no string.
func (st *state) bookkeeping(detail string, loc model.Loc) {
	st.rep.Add(model.LossDroppedEvent, detail, loc)
}

// passthrough keeps the line of a record the reader does not know whole,
// and reports it.
func (st *state) passthrough(base model.Event, typ string) error {
	ev := base
	ev.Kind = model.KindPassthrough
	ev.RawType = typ
	ev.Raw = st.ix.Copy(st.line)
	st.rep.Passthrough(&ev, "codex record type "+quoteType(typ))
	return st.emit(&ev)
}

func quoteType(t string) string {
	if t == "" {
		return `""`
	}
	return t
}

// str is the string member key of object b ("" when it has none; the
// last when it has several).
func (st *state) str(b []byte, key string) string {
	var s string
	st.members(b, func(k string, v []byte) {
		if k == key {
			s, _ = st.ix.String(v)
		}
	})
	return s
}

// keyValue is a member of an object: its key, decoded (the line's own
// bytes when it needs no decoding), and its value.
type keyValue struct {
	key string
	v   []byte
}

// maxPayloadMembers bounds the members of a payload kept for its line; a
// payload with more is walked each time it is asked for.
const maxPayloadMembers = 1024

// members is b's members by key, for the few a record needs. The key
// is the line's own bytes, valid during the call only: what keeps it
// keeps a copy (field). The line's payload is walked once (the first
// time), its members kept for the line (payloadMembers); any other object
// is walked at each call. Either way fn sees the members walkMembers
// finds, in order (TestPayloadMembersKept, FuzzReadCodex).
func (st *state) members(b []byte, fn func(key string, v []byte)) {
	if len(b) == 0 || len(b) != len(st.payload) || &b[0] != &st.payload[0] {
		st.walkMembers(b, fn)
		return
	}
	if !st.payloadWalked {
		st.payloadWalked = true
		kept := st.payloadMembers[:0]
		st.walkMembers(b, func(key string, v []byte) {
			kept = append(kept, keyValue{key, v})
		})
		st.payloadMembers = kept
		if len(kept) > maxPayloadMembers {
			st.payloadMembers, st.payloadWalked = nil, false
			st.walkMembers(b, fn)
			return
		}
	}
	// A walk of another object that fn starts does not touch this one.
	for _, m := range st.payloadMembers {
		fn(m.key, m.v)
	}
}

// walkMembers is members without the payload's: b's members, walked.
func (st *state) walkMembers(b []byte, fn func(key string, v []byte)) {
	st.ix.Members(b, func(k, v []byte) error {
		kb := jsonscan.KeyBytes(k)
		fn(unsafe.String(unsafe.SliceData(kb), len(kb)), v)
		return nil
	})
}

// field is the member key: v, copied, for an event's or the header's
// extra.
func (st *state) field(key string, v []byte) model.Field {
	return model.Field{Key: strings.Clone(key), Value: st.ix.Copy(v)}
}

// emit sends ev, after the response events held before it.
func (st *state) emit(ev *model.Event) error {
	if err := st.flush(); err != nil {
		return err
	}
	return st.send(ev)
}

func (st *state) send(ev *model.Event) error {
	st.rep.Events++
	return st.sink.Event(st.h, ev)
}

// hold keeps an event of the model's response until its usage record.
func (st *state) hold(ev *model.Event) error {
	if len(st.pending) >= maxPending {
		if err := st.flush(); err != nil {
			return err
		}
	}
	st.pending = append(st.pending, ev)
	return nil
}

// flush sends the held events, as they are (a response that wrote no
// usage record: a stream that broke).
func (st *state) flush() error {
	held := st.pending
	st.pending = st.pending[:0]
	for _, ev := range held {
		if err := st.send(ev); err != nil {
			return err
		}
	}
	clear(held)
	return nil
}

// ---- session and turns

// sessionMeta reads the thread's metadata into the header. A second one
// (a forked sub-agent's rollout goes on with its parent's) is the
// parent's and only counted.
func (st *state) sessionMeta(b []byte, loc model.Loc) {
	id := st.str(b, "id")
	if st.thread != "" {
		st.bookkeeping("codex session_meta of another thread (a forked sub-agent's rollout repeats its parent's)", loc)
		return
	}
	st.thread = id
	h := st.h
	h.ID = id
	st.members(b, func(key string, v []byte) {
		switch key {
		case "id":
		case "cwd":
			h.Cwd, _ = st.ix.String(v)
		case "agent_path":
			st.agentPath, _ = st.ix.String(v)
			h.Extra = append(h.Extra, st.field(key, v))
		case "cli_version":
			h.AgentVersion, _ = st.ix.String(v)
		case "timestamp":
			if s, ok := st.ix.String(v); ok {
				h.Started = s
			}
		case "git":
			st.members(v, func(k string, gv []byte) {
				switch k {
				case "branch":
					h.Branch, _ = st.ix.String(gv)
				case "commit_hash":
					h.RepoSHA, _ = st.ix.String(gv)
				}
			})
			h.Extra.Set("git", st.ix.Copy(v))
		case "base_instructions", "instructions":
			st.rep.Lose(model.LossDroppedField, "", "codex session_meta."+key+" (the model's base instructions)", loc)
		case "source":
			h.Extra = append(h.Extra, st.field(key, v))
			if v[0] == '{' {
				st.subagentSource(v)
			}
		default:
			h.Extra = append(h.Extra, st.field(key, v))
		}
	})
}

// subagentSource reads source.subagent.thread_spawn: the rollout is a
// sub-agent's, whose events carry its thread as their agent.
func (st *state) subagentSource(src []byte) {
	st.members(src, func(key string, v []byte) {
		if key != "subagent" || v[0] != '{' {
			return
		}
		st.members(v, func(key string, v []byte) {
			if key == "thread_spawn" {
				st.agent = st.thread
			}
		})
	})
}

// turnContext is a turn's settings: the agent (re)initialised with its
// model, at each turn (a resumed run starts one) and after a compaction.
func (st *state) turnContext(b []byte, base model.Event) error {
	ev := base
	ev.Kind = model.KindInit
	ev.AgentID, ev.Sidechain = "", false // the thread's, as its header
	st.members(b, func(key string, v []byte) {
		if key == "model" {
			ev.Model, _ = st.ix.String(v)
			return
		}
		st.extra(&ev, key, v)
	})
	if ev.Model != "" {
		st.model = ev.Model
		if st.h.Model == "" {
			st.h.Model = ev.Model
		}
	}
	return st.emit(&ev)
}

// ---- response items

func (st *state) responseItem(b, metadata []byte, base model.Event, typ string) error {
	ev := base
	if metadata != nil {
		compaction := false
		st.members(metadata, func(key string, v []byte) {
			if key == "compaction_output" {
				compaction, _ = jsonscan.Bool(v)
			}
		})
		if compaction {
			ev.Extra.Set("compaction_output", json.RawMessage("true"))
		}
		st.rep.Lose(model.LossDroppedField, "", "codex response_item metadata (its place in the model's history)", base.Loc)
	}
	switch typ {
	case "message":
		return st.message(b, ev)
	case "reasoning":
		return st.reasoning(b, ev)
	case "function_call", "custom_tool_call", "local_shell_call", "web_search_call":
		return st.call(b, ev, typ)
	case "function_call_output", "custom_tool_call_output":
		return st.output(b, ev, typ)
	case "agent_message":
		return st.agentMessage(b, ev)
	}
	return st.passthrough(base, "response_item "+quoteType(typ))
}

// extra takes a member of a record that the event has no field for: the
// item's id is the event's id, its type is the event's kind, the
// client's metadata is counted in the report, the others go to the
// event's extra. A member that says what the header says (the working folder, the
// model, the sub-agent's own path) is not repeated on the event.
func (st *state) extra(ev *model.Event, key string, v []byte) {
	switch key {
	case "type":
		return
	case "id":
		ev.ID, _ = st.ix.String(v)
		return
	case "internal_chat_message_metadata_passthrough":
		st.rep.Lose(model.LossDroppedField, "", "codex internal_chat_message_metadata_passthrough (the client's turn id and timing)", ev.Loc)
		return
	case "cwd", "model", "author", "recipient":
		if s, ok := st.ix.String(v); ok && s != "" && (s == st.h.Cwd || s == st.model || s == st.agentPath) {
			return
		}
	}
	ev.Extra = append(ev.Extra, st.field(key, v))
}

// texts joins the text of content items (input_text, output_text, text,
// summary_text, and an agent message's encrypted_content, which holds its
// text), reporting items of other types.
func (st *state) texts(content []byte, ev *model.Event) string {
	var parts []string
	st.ix.Array(content, func(i int, item []byte) error {
		if s, ok := st.ix.String(item); ok {
			parts = append(parts, s)
			return nil
		}
		var typ string
		var text []byte
		st.members(item, func(key string, v []byte) {
			switch key {
			case "type":
				typ, _ = st.ix.String(v)
			case "text", "encrypted_content":
				text = v
			}
		})
		switch typ {
		case "input_text", "output_text", "text", "summary_text", "reasoning_text", "encrypted_content":
			if text != nil {
				s, _ := st.ix.String(text)
				parts = append(parts, s)
			}
		default:
			st.rep.Lose(model.LossDroppedField, "", "codex content item "+quoteType(typ)+" (only text is read)", ev.Loc)
		}
		return nil
	})
	return strings.Join(parts, "")
}

// message is a message of the conversation: the instructions (developer),
// a prompt or the client's context (user), the model's text (assistant).
func (st *state) message(b []byte, ev model.Event) error {
	var role string
	var content, kinds []byte
	st.members(b, func(key string, v []byte) {
		switch key {
		case "role":
			role, _ = st.ix.String(v)
		case "content":
			content = v
		case "internal_chat_message_metadata_passthrough":
			st.members(v, func(k string, kv []byte) {
				if k == "content_item_kinds" {
					kinds = kv
				}
			})
			st.extra(&ev, key, v)
		default:
			st.extra(&ev, key, v)
		}
	})
	switch role {
	case "assistant":
		ev.Kind = model.KindAgent
	case "user":
		ev.Kind = model.KindUser
	default:
		ev.Kind = model.KindSystem
		ev.Name = role
	}
	if content != nil && content[0] == '[' {
		ev.Text = st.texts(content, &ev)
	} else if content != nil {
		ev.Text, _ = st.ix.String(content)
	}
	if role == "user" {
		ev.Meta = clientContext(&st.ix, kinds, ev.Text)
	}
	if ev.Kind == model.KindAgent {
		ev.Model = st.model
		return st.hold(&ev)
	}
	return st.emit(&ev)
}

// clientContext reports whether a user message is the client's (the
// environment context, the user's instructions) rather than a prompt: the
// pinned version marks a prompt's content user.text; earlier ones wrap
// the client's in a tag.
func clientContext(ix *jsonscan.Index, kinds []byte, text string) bool {
	if kinds != nil && kinds[0] == '[' {
		prompt := false
		ix.Array(kinds, func(_ int, v []byte) error {
			if s, _ := ix.String(v); s == "user.text" {
				prompt = true
			}
			return nil
		})
		return !prompt
	}
	return strings.HasPrefix(text, "<environment_context>") || strings.HasPrefix(text, "<user_instructions>")
}

func (st *state) reasoning(b []byte, ev model.Event) error {
	ev.Kind = model.KindThinking
	ev.Model = st.model
	st.members(b, func(key string, v []byte) {
		switch key {
		case "summary":
			if v[0] == '[' {
				var parts []string
				st.ix.Array(v, func(_ int, item []byte) error {
					parts = append(parts, st.str(item, "text"))
					return nil
				})
				ev.Text = strings.Join(parts, "\n\n")
			}
		case "encrypted_content":
			ev.Signature, _ = st.ix.String(v)
		case "content":
			if !jsonscan.IsNull(v) {
				st.extra(&ev, key, v)
			}
		default:
			st.extra(&ev, key, v)
		}
	})
	return st.hold(&ev)
}

// call is a tool call: a function tool's arguments are its JSON input; a
// custom tool's free text (apply_patch's patch) is its input's "input".
func (st *state) call(b []byte, ev model.Event, typ string) error {
	ev.Kind = model.KindToolCall
	ev.Model = st.model
	c := &model.ToolCall{}
	switch typ {
	case "local_shell_call":
		c.Name = "local_shell"
	case "web_search_call":
		c.Name = "web_search"
	}
	if typ != "function_call" {
		ev.Extra.SetString("type", typ)
	}
	st.members(b, func(key string, v []byte) {
		switch key {
		case "call_id":
			c.ID, _ = st.ix.String(v)
		case "name":
			c.Name, _ = st.ix.String(v)
		case "arguments":
			s, ok := st.ix.String(v)
			switch {
			case !ok:
				c.Input = st.ix.Copy(v)
			case jsonscan.Valid([]byte(s)):
				c.Input = json.RawMessage(s)
			default:
				c.Input = model.MustJSON(s)
			}
		case "input":
			s, _ := st.ix.String(v)
			c.Input = model.MustJSON(map[string]string{"input": s})
		case "action":
			c.Input = st.ix.Copy(v)
		default:
			st.extra(&ev, key, v)
		}
	})
	if c.ID == "" && typ == "web_search_call" {
		c.ID = ev.ID
	}
	ev.Call = c
	if c.ID != "" {
		if len(st.open) >= maxCalls {
			st.open = append(st.open[:0], st.open[1:]...)
		}
		st.open = append(st.open, c.ID)
	}
	return st.hold(&ev)
}

// output is a tool call's output. It is an error when the call's item
// event said it failed, or when the CLI answered for the tool: a tool that
// does not exist, a patch that did not apply.
func (st *state) output(b []byte, ev model.Event, typ string) error {
	ev.Kind = model.KindToolResult
	res := &model.ToolResult{}
	if typ != "function_call_output" {
		ev.Extra.SetString("type", typ)
	}
	st.members(b, func(key string, v []byte) {
		switch key {
		case "call_id":
			res.CallID, _ = st.ix.String(v)
		case "output":
			if s, ok := st.ix.String(v); ok {
				res.Content = s
				return
			}
			// {content, success}, as earlier versions wrote it.
			res.ContentRaw = st.ix.Copy(v)
			st.members(v, func(k string, ov []byte) {
				switch k {
				case "content":
					res.Content, _ = st.ix.String(ov)
				case "success":
					if ok, isBool := jsonscan.Bool(ov); isBool && !ok {
						res.IsError = true
					}
				}
			})
		default:
			st.extra(&ev, key, v)
		}
	})
	if st.failed[res.CallID] {
		res.IsError = true
		delete(st.failed, res.CallID)
	}
	if strings.HasPrefix(res.Content, "unsupported call: ") || strings.HasPrefix(res.Content, "apply_patch verification failed") {
		res.IsError = true
	}
	ev.Result = res
	for i, id := range st.open {
		if id == res.CallID {
			st.open = append(st.open[:i], st.open[i+1:]...)
			break
		}
	}
	return st.emit(&ev)
}

// agentMessage is a message between agents: a sub-agent's task, in its
// rollout, or its answer, in its parent's. The model reads it as input.
func (st *state) agentMessage(b []byte, ev model.Event) error {
	ev.Kind = model.KindUser
	ev.Meta = true
	ev.Extra.SetString("type", "agent_message")
	st.members(b, func(key string, v []byte) {
		if key == "content" && v[0] == '[' {
			ev.Text = st.texts(v, &ev)
			return
		}
		st.extra(&ev, key, v)
	})
	return st.emit(&ev)
}

// ---- tokens

// usage is one API response's usage: it names the response, which the
// events held since the last one came from. A record of another thread (a
// forked sub-agent's replay of its parent's) is not this thread's.
func (st *state) usage(b []byte, base model.Event) error {
	var thread, resp string
	var u model.Usage
	var reasoning []byte
	other := false
	st.members(b, func(key string, v []byte) {
		switch key {
		case "thread_id":
			thread, _ = st.ix.String(v)
		case "response_id":
			resp, _ = st.ix.String(v)
		case "usage":
			u, reasoning = st.counts(v)
		default:
			other = true
		}
	})
	if other {
		st.rep.Lose(model.LossDroppedField, "", "codex token_usage_record's turn ids and running totals (turn_token_usage, thread_token_usage: the records' sums)", base.Loc)
	}
	if thread != "" && st.thread != "" && thread != st.thread {
		st.bookkeeping("codex token_usage_record of another thread (a forked sub-agent's replay of its parent's)", base.Loc)
		return nil
	}
	events := st.pending
	if len(events) == 0 {
		// A response that wrote no item: its usage still counts.
		ev := base
		ev.Kind = model.KindAgent
		ev.Model = st.model
		ev.Extra.SetString("type", "token_usage_record")
		events = append(events, &ev)
		st.pending = events
	}
	for _, ev := range events {
		ev.MessageID = resp
		uu := u
		ev.Usage = &uu
	}
	if reasoning != nil {
		events[0].Extra.Set("reasoning_output_tokens", reasoning)
	}
	return st.flush()
}

// counts reads a usage object into the model's terms by the usage rule
// (usage.Codex: input holds the cache, output the reasoning). reasoning is
// the reasoning count when not 0.
func (st *state) counts(b []byte) (u model.Usage, reasoning []byte) {
	var input, cached, written, output uint64
	st.members(b, func(key string, v []byte) {
		n, _ := jsonscan.Int(v)
		c := uint64(max(n, 0))
		switch key {
		case "input_tokens":
			input = c
		case "cached_input_tokens":
			cached = c
		case "cache_write_input_tokens":
			written = c
		case "output_tokens":
			output = c
		case "reasoning_output_tokens":
			if n != 0 {
				reasoning = st.ix.Copy(v)
			}
		}
	})
	c := usage.Codex(input, cached, written, output)
	return model.Usage{Input: int64(c.In), Output: int64(c.Out), CacheRead: int64(c.Cached), CacheCreate: int64(c.CacheCreate)}, reasoning
}

// ---- events

func (st *state) event(b []byte, base model.Event) error {
	typ := st.str(b, "type")
	loc := base.Loc
	switch typ {
	case "item_completed":
		return st.itemCompleted(b, base)
	case "task_started":
		st.bookkeeping("codex event_msg task_started (a turn starts; its settings are the turn_context after it)", loc)
	case "task_complete":
		return st.taskComplete(b, base)
	case "turn_aborted":
		if err := st.interrupted(base); err != nil {
			return err
		}
		ev := base
		ev.Kind = model.KindSystem
		ev.Name = typ
		ev.Text = "turn aborted"
		st.members(b, func(key string, v []byte) {
			if key == "reason" {
				r, _ := st.ix.String(v)
				ev.Text += ": " + r
			} else if key != "type" {
				ev.Extra = append(ev.Extra, st.field(key, v))
			}
		})
		return st.emit(&ev)
	case "token_count":
		st.bookkeeping("codex event_msg token_count (running token totals; the token_usage_record lines are counted instead)", loc)
	case "thread_settings_applied":
		st.bookkeeping("codex event_msg thread_settings_applied (the run's settings, as in turn_context)", loc)
	case "user_message":
		st.bookkeeping("codex event_msg user_message (the client's copy of a response item)", loc)
	case "agent_message":
		st.bookkeeping("codex event_msg agent_message (the client's copy of a response item)", loc)
	case "agent_reasoning":
		st.bookkeeping("codex event_msg agent_reasoning (the client's copy of a response item)", loc)
	case "exec_command_end":
		st.callStatus(b)
		st.bookkeeping("codex event_msg exec_command_end (the client's record of a call; its failure is on the call's result)", loc)
	case "patch_apply_end":
		st.callStatus(b)
		st.bookkeeping("codex event_msg patch_apply_end (the client's record of a call; its failure is on the call's result)", loc)
	case "turn_diff":
		st.bookkeeping("codex event_msg turn_diff (the turn's changes as a diff, which the patches hold)", loc)
	default:
		return st.passthrough(base, "event_msg "+quoteType(typ))
	}
	return nil
}

// interrupted answers the calls an aborted turn left without output:
// the rollout has no output for them, and a call without one would be
// taken for a call still running.
func (st *state) interrupted(base model.Event) error {
	open := st.open
	st.open = st.open[:0]
	for _, id := range open {
		ev := base
		ev.Kind = model.KindToolResult
		ev.Result = &model.ToolResult{CallID: id, IsError: true, Status: grammar.StatusInterrupted}
		st.rep.Lose(model.LossSynthesized, "tool_result", "codex tool result of a call whose turn was aborted before its output (status interrupted)", base.Loc)
		if err := st.emit(&ev); err != nil {
			return err
		}
	}
	return nil
}

// callStatus notes a call that an earlier version's end event says failed.
func (st *state) callStatus(b []byte) {
	var id string
	bad := false
	st.members(b, func(key string, v []byte) {
		switch key {
		case "call_id":
			id, _ = st.ix.String(v)
		case "exit_code":
			n, ok := jsonscan.Int(v)
			bad = bad || ok && n != 0
		case "success":
			ok, isBool := jsonscan.Bool(v)
			bad = bad || isBool && !ok
		}
	})
	if bad && id != "" {
		st.fail(id)
	}
}

func (st *state) fail(id string) {
	if st.failed == nil || len(st.failed) >= maxCalls {
		st.failed = map[string]bool{}
	}
	st.failed[id] = true
}

// taskComplete ends a turn: the session's outcome so far, and an error
// event when the turn failed (the rollout has no other trace of it).
func (st *state) taskComplete(b []byte, base model.Event) error {
	clear(st.failed)
	st.open = st.open[:0]
	o := st.h.Outcome
	if o == nil {
		o = &model.Outcome{}
		st.h.Outcome = o
	}
	o.NumTurns++
	var errText string
	failed := false
	st.members(b, func(key string, v []byte) {
		switch key {
		case "duration_ms":
			n, _ := jsonscan.Int(v)
			o.DurationMS += n
		case "last_agent_message":
			if s, ok := st.ix.String(v); ok {
				o.ResultText = s
			}
		case "error":
			if !jsonscan.IsNull(v) {
				failed = true
				errText = st.str(v, "message")
			}
		}
	})
	ok := !failed
	o.Success = &ok
	if !failed {
		st.bookkeeping("codex event_msg task_complete (a turn ends; its duration and result are the header's outcome)", base.Loc)
		return nil
	}
	ev := base
	ev.Kind = model.KindSystem
	ev.Name = "error"
	ev.Text = errText
	if ev.Text == "" {
		ev.Text = "the turn failed"
	}
	st.members(b, func(key string, v []byte) {
		if key == "error" {
			ev.Extra = append(ev.Extra, st.field(key, v))
		}
	})
	return st.emit(&ev)
}

// itemCompleted is an item of the turn in the client's terms. Most repeat
// a response item; a command's or patch's status says whether its call
// failed, and a sub-agent's activity is the sub-agent's start and end.
func (st *state) itemCompleted(b []byte, base model.Event) error {
	var item []byte
	st.members(b, func(key string, v []byte) {
		if key == "item" {
			item = v
		}
	})
	if item == nil || item[0] != '{' {
		st.rep.Add(model.LossMalformed, "codex item_completed without its item", base.Loc)
		return nil
	}
	typ := st.str(item, "type")
	loc := base.Loc
	switch typ {
	case "UserMessage":
		st.bookkeeping("codex item_completed UserMessage (the client's copy of a response item)", loc)
	case "AgentMessage":
		st.bookkeeping("codex item_completed AgentMessage (the client's copy of a response item)", loc)
	case "Reasoning":
		st.bookkeeping("codex item_completed Reasoning (the client's copy of a response item)", loc)
	case "CommandExecution", "FileChange":
		var id, status string
		st.members(item, func(key string, v []byte) {
			switch key {
			case "id":
				id, _ = st.ix.String(v)
			case "status":
				status, _ = st.ix.String(v)
			}
		})
		if status == "failed" || status == "declined" {
			st.fail(id)
		}
		if typ == "FileChange" {
			st.bookkeeping("codex item_completed FileChange (the client's record of a call; its failure is on the call's result)", loc)
		} else {
			st.bookkeeping("codex item_completed CommandExecution (the client's record of a call; its failure is on the call's result)", loc)
		}
	case "ContextCompaction":
		st.bookkeeping("codex item_completed ContextCompaction (a compaction ended; the compacted line is the compaction)", loc)
	case "CollabAgentToolCall":
		st.bookkeeping("codex item_completed CollabAgentToolCall (the client's record of a multi-agent call, which is a response item)", loc)
	case "SubAgentActivity":
		return st.subagent(item, base)
	default:
		return st.passthrough(base, "item_completed "+quoteType(typ))
	}
	return nil
}

// subagent is a sub-agent's start or end, named by the call that spawned
// it, with its thread as its agent and, when its rollout lies beside this
// one, that rollout as its trajectory.
func (st *state) subagent(item []byte, base model.Event) error {
	sa := &model.Subagent{}
	var kind, path, id string
	ev := base
	ev.Kind = model.KindSubagent
	st.members(item, func(key string, v []byte) {
		if key == "model" {
			st.extra(&ev, key, v)
			return
		}
		switch key {
		case "id":
			id, _ = st.ix.String(v)
		case "kind":
			kind, _ = st.ix.String(v)
		case "agent_thread_id":
			sa.AgentID, _ = st.ix.String(v)
		case "agent_path":
			path, _ = st.ix.String(v)
		case "type":
		default:
			if !jsonscan.IsNull(v) {
				ev.Extra = append(ev.Extra, st.field(key, v))
			}
		}
	})
	// Its events are the sub-agent's, as a Claude Code sub-agent's start
	// and end are.
	ev.AgentID, ev.Sidechain = sa.AgentID, sa.AgentID != ""
	if path != "" {
		ev.Extra.SetString("agent_path", path)
		sa.Type = agentType(path)
	}
	switch kind {
	case "started":
		sa.Status = "started"
		sa.ID = id
		if st.spawned == nil || len(st.spawned) >= maxCalls {
			st.spawned = map[string]string{}
		}
		st.spawned[sa.AgentID] = id
	case "completed":
		sa.Status = "done"
		sa.ID = st.spawned[sa.AgentID]
		delete(st.spawned, sa.AgentID)
		if sa.ID == "" {
			sa.ID = sa.AgentID
		}
		ev.ID = id
	default:
		sa.Status = kind
		sa.ID = id
	}
	sa.TrajectoryPath = st.rolloutOf(sa.AgentID)
	ev.Subagent = sa
	return st.emit(&ev)
}

// rolloutOf is the name of thread's rollout beside this one, "" when
// there is none (or no folder to look in).
func (st *state) rolloutOf(thread string) string {
	p := rolloutIn(st.dir, thread)
	if p == "" || filepath.Dir(p) != filepath.Clean(st.dir) {
		return ""
	}
	return filepath.Base(p)
}

// ---- compaction

// compacted is a compaction: the summary handed on to the model (its
// message) and the history that replaces the conversation, which is not
// read (the events before it are that history).
func (st *state) compacted(b []byte, base model.Event) error {
	ev := base
	ev.Kind = model.KindCompaction
	ev.AgentID, ev.Sidechain = "", false // the thread's, as its header
	ev.Compaction = &model.Compaction{}
	st.members(b, func(key string, v []byte) {
		switch key {
		case "message":
			ev.Text, _ = st.ix.String(v)
		case "replacement_history", "replacement_history_metadata":
			st.rep.Lose(model.LossDroppedField, "", "codex compacted."+key+" (the history that replaces the conversation, made of its messages)", base.Loc)
		case "latest_token_usage_record":
			st.rep.Lose(model.LossDroppedField, "", "codex compacted.latest_token_usage_record (a copy of the compaction call's token_usage_record)", base.Loc)
		default:
			ev.Extra = append(ev.Extra, st.field(key, v))
		}
	})
	return st.emit(&ev)
}
