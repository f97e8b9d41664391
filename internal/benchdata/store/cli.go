package store

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// CLIVersion is the Claude Code version the CLI-shaped transcripts say
// they were written by: the version of the recorded transcripts in
// testdata/agents/claude-code, whose records they copy the shape of.
const CLIVersion = "2.1.328"

// CLICwd is the folder the CLI-shaped transcripts' sessions ran in (the
// benchmarks' work folder).
const CLICwd = "/work/project"

// CLISession is a generated Claude Code session as the CLI keeps it: its
// transcript (SESSION.jsonl) and its sub-agents' (SESSION/subagents/).
type CLISession struct {
	Transcript []byte
	Agents     []CLIAgent
}

// CLIAgent is a sub-agent's transcript (agent-ID.jsonl) and the CLI's
// sidecar of it (agent-ID.meta.json).
type CLIAgent struct {
	ID               string
	Transcript, Meta []byte
}

// CLITranscript is the transcript of CLISessionOf(size, seed), without
// its sub-agents' files.
func CLITranscript(size int64, seed uint64) []byte {
	return CLISessionOf(size, seed).Transcript
}

// CLISessionOf returns a Claude Code session of about size bytes, its
// sub-agents' transcripts included (never less than one run of one
// prompt), shaped as the Claude Code CLI 2.x writes them: the record
// types, keys and nesting of the transcripts recorded from the real CLI in
// testdata/agents/claude-code (TestCLIShape holds that), in the order the
// CLI writes them. A session is a few runs (one start of the CLI each:
// queued prompt, the run's attachments, the request shape); a run is
// prompts; a prompt is API calls, each an api-request record, the answer's
// blocks one assistant record each (thinking, text, tool_use) sharing the
// message's usage, and the tool's result as a user record carrying the
// CLI's toolUseResult beside the tool_result block. Now and then a call
// starts a sub-agent in the background (the Agent tool), whose transcript
// is a file of its own and whose end is a task notification in the main
// one. Long sessions are compacted now and then. Everything follows from
// seed.
func CLISessionOf(size int64, seed uint64) CLISession {
	g := &cliGen{
		r:    rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		size: size,
		ts:   time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC).Add(time.Duration(seed%600) * time.Hour),
	}
	g.session = g.uuid()
	g.buf.Grow(int(min(size+size/8, 1<<30)))
	for run := 0; run == 0 || g.written() < size; run++ {
		g.run(run)
	}
	return CLISession{Transcript: g.buf.Bytes(), Agents: g.agents}
}

// cliGen writes one CLI-shaped transcript.
type cliGen struct {
	r       *rand.Rand
	buf     bytes.Buffer
	size    int64
	ts      time.Time
	session string
	// parent is the uuid of the last conversation record, the next one's
	// parentUuid; prompt the current prompt's id and text.
	parent, promptID, prompt string
	promptIndex, turnIndex   int
	// shapeHash names the run's api-request-shape; lastRequest the last
	// api-request's id (the next one's base).
	shapeHash, lastRequest string
	tools                  []string
	calls, msgs            int
	cost                   float64
	in, out, read, create  int
	sinceCompact           int64
	// agentID is the sub-agent whose transcript this is ("" for the
	// main one); agents are the main one's sub-agents, written, and
	// notify those started in the current prompt, whose task
	// notifications come after its answer.
	agentID string
	agents  []CLIAgent
	notify  []startedAgent
}

// startedAgent is a sub-agent started by an Agent call, and when its
// transcript ends.
type startedAgent struct {
	id, call, description string
	end                   time.Time
}

// written is how many bytes of the session are written: the transcript's
// and its sub-agents'.
func (g *cliGen) written() int64 {
	n := int64(g.buf.Len())
	for _, a := range g.agents {
		n += int64(len(a.Transcript))
	}
	return n
}

// kv is one member of an object: objects keep the CLI's key order.
type kv struct {
	k string
	v any
}

type obj []kv

// line writes one record. In a sub-agent's transcript a record that is
// not part of the conversation (api-request and the like) names the
// sub-agent after the session.
func (g *cliGen) line(o obj) {
	if g.agentID != "" && len(o) > 1 && o[0].k == "type" && o[1].k == "sessionId" {
		o = append(o[:2:2], append(obj{{"agentId", g.agentID}}, o[2:]...)...)
	}
	b := g.buf.AvailableBuffer()
	b = appendJSON(b, o)
	b = append(b, '\n')
	g.buf.Write(b)
}

// appendJSON appends v as JavaScript's JSON.stringify writes it: no HTML
// escapes, non-ASCII text as it is.
func appendJSON(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case float64:
		return strconv.AppendFloat(b, v, 'f', -1, 64)
	case string:
		return appendString(b, v)
	case []string:
		return appendList(b, '[', v, appendString, ']')
	case []any:
		return appendList(b, '[', v, appendJSON, ']')
	case obj:
		return appendList(b, '{', v, appendMember, '}')
	}
	panic(fmt.Sprintf("appendJSON: %T", v))
}

// appendList appends the elements of list (an array's values, an
// object's members) between open and end, separated by commas.
func appendList[T any](b []byte, open byte, list []T, appendElem func([]byte, T) []byte, end byte) []byte {
	b = append(b, open)
	for i, x := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendElem(b, x)
	}
	return append(b, end)
}

func appendMember(b []byte, m kv) []byte {
	b = appendString(b, m.k)
	b = append(b, ':')
	return appendJSON(b, m.v)
}

func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

func (g *cliGen) uuid() string {
	a, c := g.r.Uint64(), g.r.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-%x%03x-%012x", a>>32, a>>16&0xffff, a&0xfff, 8+c>>62, c>>50&0xfff, c&0xffffffffffff)
}

func (g *cliGen) hash() string {
	var b [32]byte
	for i := 0; i < 32; i += 8 {
		v := g.r.Uint64()
		for j := range 8 {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return fmt.Sprintf("%x", b)
}

func (g *cliGen) id(prefix string) string {
	const alphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ0123456789"
	b := []byte(prefix)
	for range 24 {
		b = append(b, alphabet[g.r.IntN(len(alphabet))])
	}
	return string(b)
}

// stamp advances the clock by up to ms milliseconds.
func (g *cliGen) stamp(ms int) string {
	g.ts = g.ts.Add(time.Duration(1+g.r.IntN(ms)) * time.Millisecond)
	return g.ts.Format("2006-01-02T15:04:05.000Z")
}

var cliWords = strings.Fields(`the a function returns error nil value file path test reads writes index
	session token line byte offset record entry tool call result output input server client
	request response module package import struct field method interface buffer stream parse
	check build run fails passes because which when then so it is not we should let me look at
	config option flag default the handler cache key map slice string int time context cancel`)

var cliUnicode = []string{"—", "é", "→", "✓", "ü", "…", "日本", "🙂"}

// text is n words of prose, a non-ASCII one now and then.
func (g *cliGen) text(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			if g.r.IntN(14) == 0 {
				b.WriteString(".\n\n")
			} else {
				b.WriteByte(' ')
			}
		}
		if g.r.IntN(30) == 0 {
			b.WriteString(cliUnicode[g.r.IntN(len(cliUnicode))])
		} else {
			b.WriteString(cliWords[g.r.IntN(len(cliWords))])
		}
	}
	return b.String()
}

// code is about n bytes of source lines: indented, quoted, tabbed, as a
// tool's output mostly is.
func (g *cliGen) code(n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(strings.Repeat("\t", g.r.IntN(3)))
		switch g.r.IntN(4) {
		case 0:
			fmt.Fprintf(&b, "if err := %s(%q); err != nil {\n", cliWords[g.r.IntN(len(cliWords))], g.text(2))
		case 1:
			fmt.Fprintf(&b, "// %s\n", g.text(4+g.r.IntN(8)))
		default:
			fmt.Fprintf(&b, "%s := %s.%s(%d)\n", cliWords[g.r.IntN(len(cliWords))], cliWords[g.r.IntN(len(cliWords))], cliWords[g.r.IntN(len(cliWords))], g.r.IntN(1000))
		}
	}
	return b.String()
}

// logSize is a size spread log-uniformly over [lo, hi].
func (g *cliGen) logSize(lo, hi int) int {
	return int(float64(lo) * math.Pow(float64(hi)/float64(lo), g.r.Float64()))
}

// entry is a conversation record (one with uuid and parentUuid): fields
// between the chain's keys and the session's keys the CLI repeats on each.
func (g *cliGen) entry(head, body obj) obj {
	uuid := g.uuid()
	o := obj{{"parentUuid", nullable(g.parent)}, {"isSidechain", g.agentID != ""}}
	if g.agentID != "" {
		o = append(o, kv{"agentId", g.agentID})
	}
	o = append(o, head...)
	o = append(o, kv{"uuid", uuid}, kv{"timestamp", g.stamp(400)})
	o = append(o, body...)
	o = append(o, kv{"userType", "external"}, kv{"entrypoint", "cli"}, kv{"cwd", CLICwd},
		kv{"sessionId", g.session}, kv{"version", CLIVersion}, kv{"gitBranch", "main"})
	g.parent = uuid
	return o
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// run is one start of the CLI: its first prompt queued, the run's
// attachments and request shape, then prompts until the transcript is
// as large as asked or the run ends.
func (g *cliGen) run(run int) {
	if run > 0 {
		g.ts = g.ts.Add(time.Duration(1+g.r.IntN(20)) * time.Hour)
		g.line(obj{{"type", "mode"}, {"mode", "normal"}, {"sessionId", g.session}})
	}
	g.promptIndex = 0
	g.prompt = g.text(6 + g.r.IntN(30))
	g.line(obj{{"type", "queue-operation"}, {"operation", "enqueue"}, {"timestamp", g.stamp(50)}, {"sessionId", g.session}, {"content", g.prompt}})
	g.line(obj{{"type", "queue-operation"}, {"operation", "dequeue"}, {"timestamp", g.stamp(20)}, {"sessionId", g.session}})
	g.userPrompt()
	g.runAttachments()
	g.line(obj{{"type", "atis-latch"}, {"atis", ""}, {"sessionId", g.session}})
	g.requestShape()
	snapshot := true
	for prompts := 1 + g.r.IntN(4); ; {
		g.promptTurns(&snapshot)
		g.promptIndex++
		if g.promptIndex >= prompts || g.written() >= g.size {
			break
		}
		g.prompt = g.text(6 + g.r.IntN(40))
		g.ts = g.ts.Add(time.Duration(10+g.r.IntN(600)) * time.Second)
		g.userPrompt()
	}
	g.line(obj{{"type", "last-prompt"}, {"lastPrompt", g.prompt}, {"leafUuid", g.parent}, {"sessionId", g.session}})
	g.costState()
}

// requestShape is the request's shape and first messages the CLI keeps
// at a run's (or a sub-agent's) start.
func (g *cliGen) requestShape() {
	g.shapeHash = g.hash()
	g.lastRequest = ""
	g.line(obj{{"type", "api-request-shape"}, {"sessionId", g.session}, {"shapeHash", g.shapeHash}, {"timestamp", g.stamp(200)}, {"version", CLIVersion},
		{"shape", obj{{"system", []any{obj{{"type", "text"}, {"text", "You are a Claude agent, built on Anthropic's Claude Agent SDK."}}, obj{{"type", "text"}, {"text", g.text(1500)}}}}, {"tools", g.toolSchemas(18, false)}}}})
	g.line(obj{{"type", "api-request-blob"}, {"sessionId", g.session}, {"hash", g.hash()},
		{"message", obj{{"role", "system"}, {"content", []any{obj{{"type", "text"}, {"text", "# Environment\n" + g.text(150)}}}}, {"output_config", obj{{"effort", "medium"}}}}}})
	g.line(obj{{"type", "api-request-blob"}, {"sessionId", g.session}, {"hash", g.hash()},
		{"message", obj{{"role", "user"}, {"content", []any{obj{{"type", "text"}, {"text", "<system-reminder>\n" + g.text(80) + "\n</system-reminder>"}}, obj{{"type", "text"}, {"text", g.prompt}}}}}}})
}

// userPrompt is a prompt typed by the user.
func (g *cliGen) userPrompt() {
	g.promptID = g.uuid()
	g.turnIndex = 1
	g.line(g.entry(obj{{"promptId", g.promptID}, {"type", "user"}, {"message", obj{{"role", "user"}, {"content", g.prompt}}}},
		obj{{"permissionMode", "default"}, {"promptSource", "user"}, {"turnOrigin", "user"}, {"turnPosition", obj{{"promptIndex", g.promptIndex}, {"turnIndex", g.turnIndex}}}}))
}

// attachment is an attachment record; rendered, when not "", is the
// reminder the model is shown.
func (g *cliGen) attachment(att obj, rendered string) {
	var body obj
	if rendered != "" {
		body = obj{{"rendered", []any{obj{{"content", "<system-reminder>\n" + rendered + "\n</system-reminder>"}}}}, {"renderedRole", "system"}}
	}
	g.line(g.entry(obj{{"attachment", att}, {"type", "attachment"}}, body))
}

// runAttachments are the attachments the CLI writes at a run's start.
func (g *cliGen) runAttachments() {
	g.attachment(obj{{"type", "environment"}, {"snapshot", obj{{"workingDirectory", CLICwd}, {"isWorktree", false}, {"isGitRepo", true}, {"additionalWorkingDirectories", []string{}}, {"platform", "linux"}, {"shell", "bash"}, {"osVersion", "Linux 6.18.44"}}}},
		"# Environment\n"+g.text(120))
	g.attachment(obj{{"type", "model"}, {"identity", obj{{"modelId", "claude-opus-5-5"}, {"marketingName", "Opus 5.5"}, {"knowledgeCutoff", "June 2026"}}}, {"text", "You are powered by the model named Opus 5.5."}},
		"You are powered by the model named Opus 5.5.")
	deferred := []string{"CronCreate", "CronDelete", "CronList", "EnterWorktree", "ExitWorktree", "Monitor", "NotebookEdit", "SendMessage", "TaskStop", "WebFetch", "WebSearch"}
	g.attachment(obj{{"type", "deferred_tools_delta"}, {"addedNames", deferred}, {"addedLines", deferred}, {"removedNames", []string{}}, {"readdedNames", []string{}}},
		"The following deferred tools are now available:\n"+strings.Join(deferred, "\n"))
	agents := []string{"claude", "Explore", "general-purpose", "Plan", "statusline-setup"}
	lines := make([]string, len(agents))
	for i, a := range agents {
		lines[i] = "- " + a + ": " + g.text(60+g.r.IntN(60))
	}
	g.attachment(obj{{"type", "agent_listing_delta"}, {"addedTypes", agents}, {"addedLines", lines}, {"removedTypes", []string{}}, {"isInitial", true}},
		strings.Join(lines, "\n"))
	skills := g.text(1800)
	g.attachment(obj{{"type", "skill_listing"}, {"content", skills}, {"skillCount", 12}, {"isInitial", true}}, skills)
	g.attachment(obj{{"type", "session_context"}, {"context", obj{}}}, "")
	g.attachment(obj{{"type", "date"}, {"date", g.ts.Format("2006-01-02")}}, "Today's date is "+g.ts.Format("2006-01-02")+".")
	g.attachment(obj{{"type", "remote_session_change"}, {"url", nil}, {"commit", "Co-Authored-By: Claude Opus 5.5 <noreply@anthropic.com>"}, {"pr", "Generated with Claude Code"}, {"sendUserFileHint", false}, {"managedCommit", false}, {"managedPr", false}},
		"Attribution for git commits and pull requests: "+g.text(60))
	g.promptSnapshot()
}

// promptSnapshot is the system prompt and tools the CLI sends, as an
// attachment: written at a run's start and after its first tool result.
func (g *cliGen) promptSnapshot() {
	parts := make([]string, 10)
	for i := range parts {
		parts[i] = g.text(200 + g.r.IntN(400))
	}
	g.attachment(obj{{"type", "prompt_snapshot"}, {"systemPrompt", parts}, {"tools", g.toolSchemas(12, true)},
		{"reminderFold", false}, {"echoWireToolInputs", false}, {"contextRendering", "announced"}}, "")
}

var cliTools = []string{"Agent", "Bash", "Edit", "Read", "Write", "Monitor", "NotebookEdit", "SendMessage", "TaskStop", "WebFetch", "WebSearch", "CronCreate", "CronDelete", "CronList", "EnterWorktree", "ExitWorktree", "AskUserQuestion", "Skill"}

// toolSchemas are n tools' definitions: as the request shape has them
// (name, description, input_schema), or as a prompt snapshot does
// (name, description, schema{description, input_schema}).
func (g *cliGen) toolSchemas(n int, snapshot bool) []any {
	out := make([]any, n)
	for i := range out {
		schema := obj{{"$schema", "https://json-schema.org/draft/2020-12/schema"}, {"type", "object"},
			{"properties", obj{
				{"command", obj{{"description", g.text(20)}, {"type", "string"}}},
				{"description", obj{{"description", g.text(30)}, {"type", "string"}}},
				{"content", obj{{"description", g.text(10)}, {"type", "string"}}},
			}}, {"additionalProperties", false}}
		desc := g.text(80 + g.r.IntN(300))
		if snapshot {
			out[i] = obj{{"name", cliTools[i%len(cliTools)]}, {"description", desc}, {"schema", obj{{"description", desc}, {"input_schema", schema}}}}
		} else {
			out[i] = obj{{"name", cliTools[i%len(cliTools)]}, {"description", desc}, {"input_schema", schema}}
		}
	}
	return out
}

// apiRequest is the record of one request to the Messages API.
func (g *cliGen) apiRequest() string {
	id := g.uuid()
	o := obj{{"type", "api-request"}, {"sessionId", g.session}, {"id", id}, {"timestamp", g.stamp(300)}, {"version", CLIVersion}, {"querySource", "repl_main_thread"}, {"shapeHash", g.shapeHash},
		{"params", obj{{"model", "claude-opus-5-5"}, {"betas", []string{"claude-code-20250219", "interleaved-thinking-2025-05-14", "context-management-2025-06-27", "effort-2025-11-24"}},
			{"max_tokens", 128000}, {"thinking", obj{{"type", "adaptive"}, {"display", "omitted"}}},
			{"context_management", obj{{"edits", []any{obj{{"type", "clear_thinking_20251015"}, {"keep", "all"}}}}}}, {"output_config", obj{{"effort", "medium"}}}}}}
	if g.lastRequest != "" {
		o = append(o, kv{"base", g.lastRequest})
	}
	o = append(o, kv{"keep", g.r.IntN(4)}, kv{"tail", []string{g.hash(), g.hash()}},
		kv{"cacheControl", []any{obj{{"path", []any{"system", 0}}, {"value", obj{{"type", "ephemeral"}}}}, obj{{"path", []any{"messages", g.msgs, "content", 0}}, {"value", obj{{"type", "ephemeral"}}}}}},
		kv{"requestDigest", g.hash()})
	g.line(o)
	g.lastRequest = id
	return id
}

// usage is one answer's usage, counted into the session's totals.
func (g *cliGen) usage() obj {
	in, out, read, create := 1+g.r.IntN(6), 20+g.r.IntN(900), 8000+g.r.IntN(150000), g.r.IntN(4000)
	g.in, g.out, g.read, g.create = g.in+in, g.out+out, g.read+read, g.create+create
	g.cost += float64(in)*5e-6 + float64(out)*25e-6 + float64(read)*0.5e-6 + float64(create)*6.25e-6
	return obj{{"input_tokens", in}, {"cache_creation_input_tokens", create}, {"cache_read_input_tokens", read}, {"output_tokens", out},
		{"output_tokens_details", obj{{"thinking_tokens", 0}}}, {"server_tool_use", obj{{"web_search_requests", 0}, {"web_fetch_requests", 0}}},
		{"service_tier", "standard"}, {"cache_creation", obj{{"ephemeral_1h_input_tokens", 0}, {"ephemeral_5m_input_tokens", create}}},
		{"inference_geo", ""}, {"iterations", []any{}}, {"speed", "standard"}, {"fallback_credit", nil}}
}

// answer writes one API answer's blocks, one assistant record each.
func (g *cliGen) answer(request string, blocks []obj, stop string) {
	msgID := g.id("msg_01")
	reqID := g.id("req_011")
	usage := g.usage()
	for i, b := range blocks {
		head := obj{{"message", obj{{"content", []any{b}}, {"id", msgID}, {"model", "claude-opus-5-5"}, {"role", "assistant"}, {"stop_reason", stop}, {"stop_sequence", nil}, {"type", "message"}, {"usage", usage}, {"stop_details", nil}}}}
		if b[0].v == "tool_use" || b[len(b)-1].v == "tool_use" {
			head = append(head, kv{"toolInputStreamMs", g.r.IntN(40)})
		}
		head = append(head, kv{"apiBlockIndex", i}, kv{"requestId", reqID}, kv{"requestRef", request}, kv{"requestedModel", "claude-opus-5-5"}, kv{"promptCacheRequested", "5m"}, kv{"type", "assistant"})
		var body obj
		if b[0].v == "thinking" {
			body = obj{{"thinkingDisplay", "omitted"}, {"thinkingDurationMs", g.r.IntN(9000)}}
		}
		body = append(body, kv{"effort", "medium"}, kv{"perTurnEffort", "medium"}, kv{"madeBy", "model"})
		g.line(g.entry(head, body))
	}
	g.msgs++
}

// promptTurns answers the current prompt: API calls with tools (at
// least one, so that the smallest session has a call to count) until a
// closing answer.
func (g *cliGen) promptTurns(snapshot *bool) {
	for calls, made := 1+g.r.IntN(14), 0; ; calls, made = calls-1, made+1 {
		g.maybeCompact()
		request := g.apiRequest()
		var blocks []obj
		if g.r.IntN(3) == 0 {
			blocks = append(blocks, obj{{"type", "thinking"}, {"thinking", g.text(20 + g.r.IntN(200))}, {"signature", g.signature()}})
		}
		blocks = append(blocks, obj{{"text", g.text(5 + g.r.IntN(120))}, {"type", "text"}})
		if calls <= 0 || made > 0 && g.written() >= g.size {
			g.answer(request, blocks, "end_turn")
			g.notifications()
			return
		}
		tool, input, run := g.toolCall()
		id := g.id("toolu_01")
		blocks = append(blocks, obj{{"id", id}, {"input", input}, {"name", tool}, {"type", "tool_use"}})
		if !contains(g.tools, tool) && g.agentID == "" {
			g.tools = append(g.tools, tool)
			g.line(obj{{"type", "tools-used"}, {"tools", g.tools}, {"sessionId", g.session}})
		}
		g.answer(request, blocks, "tool_use")
		if g.agentID == "" {
			g.line(obj{{"type", "last-prompt"}, {"lastPrompt", g.prompt}, {"leafUuid", g.parent}, {"sessionId", g.session}})
			g.line(obj{{"type", "atis-latch"}, {"atis", ""}, {"sessionId", g.session}})
		}
		g.ts = g.ts.Add(time.Duration(g.logSize(20, 60000)) * time.Millisecond)
		g.toolResult(id, run)
		g.calls++
		g.turnIndex++
		if *snapshot {
			g.promptSnapshot()
			*snapshot = false
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (g *cliGen) signature() string {
	b := make([]byte, 120+g.r.IntN(600))
	for i := range b {
		b[i] = byte(g.r.Uint32())
	}
	return base64.StdEncoding.EncodeToString(b)
}

// toolCall picks a tool and its input; run writes its result (content
// of the tool_result block, the toolUseResult, whether it failed).
func (g *cliGen) toolCall() (tool string, input obj, run func(call string) (content any, result any, isError bool)) {
	path := CLICwd + "/" + cliWords[g.r.IntN(len(cliWords))] + "/" + cliWords[g.r.IntN(len(cliWords))] + ".go"
	if g.agentID == "" && g.r.IntN(40) == 0 {
		return g.agentCall()
	}
	switch n := g.r.IntN(20); {
	case n < 8:
		cmd := "go test ./" + cliWords[g.r.IntN(len(cliWords))] + "/..."
		input = obj{{"command", cmd}, {"description", g.text(5)}}
		return "Bash", input, func(string) (any, any, bool) {
			if g.r.IntN(8) == 0 {
				msg := "Exit code 1\n" + g.code(g.logSize(40, 4000))
				return msg, "Error: " + msg, true
			}
			out := g.code(g.logSize(10, 30000))
			return out, obj{{"stdout", out}, {"stderr", ""}, {"interrupted", false}, {"isImage", false}, {"noOutputExpected", false}}, false
		}
	case n < 15:
		input = obj{{"file_path", path}}
		return "Read", input, func(string) (any, any, bool) {
			src := g.code(g.logSize(100, 40000))
			lines := strings.SplitAfter(src, "\n")
			var numbered strings.Builder
			for i, l := range lines {
				if l != "" {
					fmt.Fprintf(&numbered, "%d\t%s", i+1, l)
				}
			}
			return numbered.String(), obj{{"type", "text"}, {"file", obj{{"filePath", path}, {"content", src}, {"numLines", len(lines)}, {"startLine", 1}, {"totalLines", len(lines)}}}}, false
		}
	case n < 18:
		oldS, newS := g.code(g.logSize(20, 600)), g.code(g.logSize(20, 600))
		input = obj{{"file_path", path}, {"old_string", oldS}, {"new_string", newS}, {"replace_all", false}}
		return "Edit", input, func(string) (any, any, bool) {
			orig := g.code(g.logSize(200, 20000)) + oldS
			patch := []any{obj{{"oldStart", 1}, {"oldLines", strings.Count(oldS, "\n")}, {"newStart", 1}, {"newLines", strings.Count(newS, "\n")}, {"lines", patchLines(oldS, newS)}}}
			return "The file " + path + " has been updated successfully.",
				obj{{"filePath", path}, {"oldString", oldS}, {"newString", newS}, {"originalFile", orig}, {"structuredPatch", patch}, {"userModified", false}, {"replaceAll", false}}, false
		}
	default:
		content := g.code(g.logSize(100, 12000))
		input = obj{{"file_path", path}, {"content", content}}
		return "Write", input, func(string) (any, any, bool) {
			return "File created successfully at: " + path,
				obj{{"type", "create"}, {"filePath", path}, {"content", content}, {"structuredPatch", []any{}}, {"originalFile", nil}, {"userModified", false}}, false
		}
	}
}

func patchLines(oldS, newS string) []string {
	var out []string
	for l := range strings.SplitSeq(strings.TrimSuffix(oldS, "\n"), "\n") {
		out = append(out, "-"+l)
	}
	for l := range strings.SplitSeq(strings.TrimSuffix(newS, "\n"), "\n") {
		out = append(out, "+"+l)
	}
	return out
}

// toolResult is the user record answering tool call id.
func (g *cliGen) toolResult(id string, run func(call string) (any, any, bool)) {
	source := g.parent
	content, result, isError := run(id)
	block := obj{{"tool_use_id", id}, {"type", "tool_result"}, {"content", content}}
	if isError {
		block = append(block, kv{"is_error", true})
	}
	var body obj
	if g.agentID == "" {
		body = obj{{"toolUseResult", result}} // a sub-agent's transcript has none
	}
	body = append(body, kv{"sourceToolAssistantUUID", source},
		kv{"permissionDecision", obj{{"decision", "accept"}, {"source", "config"}, {"reasonType", "rule"}, {"ruleSource", "cliArg"}}})
	g.line(g.entry(obj{{"promptId", g.promptID}, {"type", "user"}, {"message", obj{{"role", "user"}, {"content", []any{block}}}}}, body))
	g.msgs++
}

// agentCall is an Agent call: a general-purpose sub-agent started in the
// background, its transcript written when the call's result is (it runs
// while the main conversation goes on), its end notified after the
// prompt's answer.
func (g *cliGen) agentCall() (string, obj, func(string) (any, any, bool)) {
	id := fmt.Sprintf("a%016x", g.r.Uint64())
	desc := g.text(3 + g.r.IntN(4))
	prompt := g.text(20 + g.r.IntN(80))
	input := obj{{"description", desc}, {"prompt", prompt}, {"subagent_type", "general-purpose"}}
	return "Agent", input, func(call string) (any, any, bool) {
		g.subagent(id, call, desc, prompt)
		content := []any{obj{{"type", "text"}, {"text", "Async agent launched successfully. (This tool result is internal metadata.)\nagentId: " + id + "\nThe agent is working in the background. You will be notified automatically when it completes."}}}
		return content, obj{{"isAsync", true}, {"status", "async_launched"}, {"agentId", id}, {"description", desc}, {"resolvedModel", "claude-opus-5-5"}, {"prompt", prompt},
			{"outputFile", "/tmp/claude-0/-work-project/" + g.session + "/tasks/" + id + ".output"}, {"canReadOutputFile", true}, {"canContinueAgent", true}}, false
	}
}

// subagent writes sub-agent id's transcript, started by call: its prompt,
// the attachments and request shape of its start, then API calls with
// tools until its answer. Its tokens and cost count into the session's.
func (g *cliGen) subagent(id, call, desc, prompt string) {
	child := &cliGen{r: g.r, size: int64(g.logSize(20<<10, 600<<10)), ts: g.ts, session: g.session, agentID: id, promptID: g.promptID, prompt: prompt}
	child.line(child.entry(obj{{"promptId", g.promptID}, {"type", "user"}, {"message", obj{{"role", "user"}, {"content", prompt}}}}, nil))
	child.runAttachments()
	child.requestShape()
	snapshot := true
	child.promptTurns(&snapshot)
	g.in, g.out, g.read, g.create = g.in+child.in, g.out+child.out, g.read+child.read, g.create+child.create
	g.cost += child.cost
	meta := appendJSON(nil, obj{{"agentType", "general-purpose"}, {"isBuiltIn", true}, {"launchedWithDefaults", true}, {"description", desc}, {"toolUseId", call},
		{"spawnDepth", 1}, {"requestShape", "background"}, {"requestNonInteractive", true}, {"model", "claude-opus-5-5"}, {"pickedEffortModel", "claude-opus-5-5"}, {"finished", true}})
	g.agents = append(g.agents, CLIAgent{ID: id, Transcript: child.buf.Bytes(), Meta: meta})
	g.notify = append(g.notify, startedAgent{id: id, call: call, description: desc, end: child.ts})
}

// notifications are the ends of the sub-agents the prompt started, each
// queued as a task notification the main conversation answers.
func (g *cliGen) notifications() {
	for _, a := range g.notify {
		text := "<task-notification>\n<task-id>" + a.id + "</task-id>\n<tool-use-id>" + a.call + "</tool-use-id>\n<status>completed</status>\n<summary>Agent \"" + a.description + "\" completed</summary>\n<result>" + g.text(30+g.r.IntN(200)) + "</result>\n</task-notification>"
		// Notified once it ended, which may be after the prompt's answer.
		delay := time.Duration(g.logSize(1000, 300000)) * time.Millisecond
		if g.ts.Before(a.end) {
			g.ts = a.end
		}
		g.ts = g.ts.Add(delay)
		g.line(obj{{"type", "queue-operation"}, {"operation", "enqueue"}, {"timestamp", g.stamp(50)}, {"sessionId", g.session}, {"content", text}})
		g.line(obj{{"type", "queue-operation"}, {"operation", "dequeue"}, {"timestamp", g.stamp(20)}, {"sessionId", g.session}})
		g.turnIndex++
		g.line(g.entry(obj{{"promptId", g.promptID}, {"type", "user"}, {"message", obj{{"role", "user"}, {"content", "<system-reminder>\n<tools-used-before-summary>Bash</tools-used-before-summary>\n</system-reminder>"}}}, {"isMeta", true}, {"turnCompanion", true}},
			obj{{"queueSkipAttachments", true}}))
		g.line(g.entry(obj{{"promptId", g.promptID}, {"type", "user"}, {"message", obj{{"role", "user"}, {"content", text}}}},
			obj{{"permissionMode", "default"}, {"origin", obj{{"kind", "task-notification"}, {"producer", "session-task"}, {"runId", g.id("run-")}}}, {"promptSource", "system"},
				{"turnOrigin", "task_notification"}, {"turnPosition", obj{{"promptIndex", g.promptIndex}, {"turnIndex", g.turnIndex}}}, {"queueSkipAttachments", true}}))
		g.answer(g.apiRequest(), []obj{{{"text", g.text(10 + g.r.IntN(120))}, {"type", "text"}}}, "end_turn")
	}
	g.notify = g.notify[:0]
}

// maybeCompact compacts the conversation about every 8 MB, as the CLI
// does when the context fills: the boundary, then the summary the
// conversation goes on from.
func (g *cliGen) maybeCompact() {
	if int64(g.buf.Len())-g.sinceCompact < 8<<20 {
		return
	}
	g.sinceCompact = int64(g.buf.Len())
	logical := g.parent
	g.parent = ""
	pre := 150000 + g.r.IntN(800000)
	post := 2000 + g.r.IntN(20000)
	g.line(g.entry(obj{{"logicalParentUuid", logical}}, obj{{"type", "system"}, {"subtype", "compact_boundary"}, {"content", "Conversation compacted"}, {"isMeta", false}, {"level", "info"},
		{"compactMetadata", obj{{"trigger", "auto"}, {"preTokens", pre}, {"preCompactOrganizationsCoverStart", false}, {"durationMs", g.r.IntN(60000)}, {"postTokens", post}, {"cumulativeDroppedTokens", pre - post}}}}))
	g.line(g.entry(obj{{"promptId", g.promptID}, {"type", "user"}, {"message", obj{{"role", "user"}, {"content", "This session is being continued from a previous conversation that ran out of context. " + g.text(400)}}}},
		obj{{"isVisibleInTranscriptOnly", true}, {"isCompactSummary", true}, {"turnPosition", obj{{"promptIndex", g.promptIndex}, {"turnIndex", g.turnIndex}}}}))
}

// costState is the CLI's account of the session's cost so far, written
// as a run ends.
func (g *cliGen) costState() {
	g.line(obj{{"type", "cost-state"}, {"sessionId", g.session}, {"totalCostUSD", round6(g.cost)}, {"totalAPIDuration", g.r.IntN(600000)}, {"totalAPIDurationWithoutRetries", g.r.IntN(600000)},
		{"totalToolDuration", g.r.IntN(300000)}, {"totalLinesAdded", g.r.IntN(2000)}, {"totalLinesRemoved", g.r.IntN(800)}, {"totalDuration", g.r.IntN(3600000)}, {"startTime", g.ts.UnixMilli()},
		{"modelUsage", obj{{"claude-opus-5-5", obj{{"inputTokens", g.in}, {"outputTokens", g.out}, {"thinkingTokens", 0}, {"cacheReadInputTokens", g.read}, {"cacheCreationInputTokens", g.create},
			{"cacheCreationEphemeral5mInputTokens", g.create}, {"cacheCreationEphemeral1hInputTokens", 0}, {"webSearchRequests", 0}, {"costUSD", round6(g.cost)}}}}},
		{"hasUnknownModelCost", false}})
}

func round6(f float64) float64 { return math.Round(f*1e6) / 1e6 }
