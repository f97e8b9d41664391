package anthropic

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
	"github.com/rlog-ls/rlog-ls/internal/producers/standin/standintest"
)

func post(t *testing.T, url, body string) *http.Response { return standintest.Post(t, url, body, nil) }

func start(t *testing.T, rules []Rule) *StandIn { return standintest.Start(t, Start, rules) }

// sse reads a stream of server-sent events: names and data.
func sse(t *testing.T, r io.Reader) (names []string, data []map[string]any) {
	t.Helper()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			names = append(names, strings.TrimPrefix(line, "event: "))
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("data line %q: %v", line, err)
			}
			data = append(data, d)
		case line != "":
			t.Fatalf("unexpected line %q", line)
		}
	}
	return names, data
}

// assemble rebuilds the message from its events as a client does.
func assemble(t *testing.T, data []map[string]any) (msg map[string]any, blocks []map[string]any) {
	t.Helper()
	partial := map[int]string{}
	for _, d := range data {
		switch d["type"] {
		case "message_start":
			msg = d["message"].(map[string]any)
		case "content_block_start":
			blocks = append(blocks, d["content_block"].(map[string]any))
		case "content_block_delta":
			i := int(d["index"].(float64))
			delta := d["delta"].(map[string]any)
			b := blocks[i]
			switch delta["type"] {
			case "text_delta":
				b["text"] = b["text"].(string) + delta["text"].(string)
			case "thinking_delta":
				b["thinking"] = b["thinking"].(string) + delta["thinking"].(string)
			case "signature_delta":
				b["signature"] = delta["signature"]
			case "input_json_delta":
				partial[i] += delta["partial_json"].(string)
			}
		case "content_block_stop":
			i := int(d["index"].(float64))
			if p, ok := partial[i]; ok {
				var in any
				if err := json.Unmarshal([]byte(p), &in); err != nil {
					t.Fatalf("block %d's input JSON %q: %v", i, p, err)
				}
				blocks[i]["input"] = in
			}
		case "message_delta":
			msg["stop_reason"] = d["delta"].(map[string]any)["stop_reason"]
			msg["usage"] = d["usage"]
		}
	}
	return msg, blocks
}

var everyBlock = Reply{
	Content: []Block{
		Thinking("Première idée — 思考", "sig-1"),
		RedactedThinking("b3BhcXVl"),
		Text("Voilà 👍 the answer"),
		ToolUse("toolu_1", "Bash", `{"command":"echo é","description":"Say é"}`),
	},
	Usage: Usage{Input: 11, CacheCreation: 22, CacheRead: 33, Output: 44},
}

func TestStreamsEveryBlockAsTheAPIDoes(t *testing.T) {
	s := start(t, []Rule{{Name: "all", When: LastUserSays("go"), Reply: everyBlock}})
	resp := post(t, s.URL()+"/v1/messages?beta=true",
		`{"model":"m-1","stream":true,"messages":[{"role":"user","content":"go"}]}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q", ct)
	}
	if id := resp.Header.Get("request-id"); id != "req_all_01" {
		t.Errorf("request-id %q, want req_all_01", id)
	}
	names, data := sse(t, resp.Body)
	want := []string{"message_start", "ping",
		"content_block_start", "content_block_delta", "content_block_delta", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop"}
	if !slices.Equal(names, want) {
		t.Errorf("events\n%v\nwant\n%v", names, want)
	}
	for i, d := range data {
		if d["type"] != names[i] {
			t.Errorf("event %s carries type %v", names[i], d["type"])
		}
	}
	msg, blocks := assemble(t, data)
	if msg["id"] != "msg_all_01" || msg["model"] != "m-1" || msg["stop_reason"] != "tool_use" {
		t.Errorf("message %v", msg)
	}
	wantBlocks := []map[string]any{
		{"type": "thinking", "thinking": "Première idée — 思考", "signature": "sig-1"},
		{"type": "redacted_thinking", "data": "b3BhcXVl"},
		{"type": "text", "text": "Voilà 👍 the answer"},
		{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": "echo é", "description": "Say é"}},
	}
	if !reflect.DeepEqual(blocks, wantBlocks) {
		t.Errorf("blocks\n%v\nwant\n%v", blocks, wantBlocks)
	}
	usage := msg["usage"].(map[string]any)
	for k, v := range map[string]float64{"input_tokens": 11, "cache_creation_input_tokens": 22, "cache_read_input_tokens": 33, "output_tokens": 44} {
		if usage[k] != v {
			t.Errorf("final usage %s = %v, want %v", k, usage[k], v)
		}
	}
	if cc := usage["cache_creation"].(map[string]any); cc["ephemeral_5m_input_tokens"] != 22.0 {
		t.Errorf("cache_creation breakdown %v", cc)
	}
	ex := s.Exchanges()
	if len(ex) != 1 || ex[0].Rule != "all" || ex[0].Hit != 1 {
		t.Fatalf("exchanges %+v", ex)
	}
	if ans := ex[0].Answer.(Answer); ans.MessageID != "msg_all_01" || !reflect.DeepEqual(ans.Reply, everyBlock) {
		t.Errorf("recorded answer %+v", ans)
	}
}

func TestAnswersWholeWhenNotStreaming(t *testing.T) {
	s := start(t, []Rule{{Name: "title", When: Not(Streaming()), Reply: Reply{Content: []Block{Text("A title")}}}})
	resp := post(t, s.URL()+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"x"}]}]}`)
	var msg struct {
		ID         string
		Content    []Block
		StopReason string `json:"stop_reason"`
		Usage      map[string]any
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	if msg.ID != "msg_title_01" || len(msg.Content) != 1 || msg.Content[0].Text != "A title" || msg.StopReason != "end_turn" {
		t.Errorf("message %+v", msg)
	}
	if msg.Usage["output_tokens"] == 0.0 {
		t.Error("a reply without usage reports no output tokens")
	}
}

func TestUnscriptedCountTokensAndOtherPaths(t *testing.T) {
	s := start(t, []Rule{{Name: "never", When: LastUserSays("never said"), Reply: Reply{Status: 529}}})
	names, data := sse(t, post(t, s.URL()+"/v1/messages", `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`).Body)
	if len(names) == 0 {
		t.Fatal("no answer to an unscripted request")
	}
	if _, blocks := assemble(t, data); blocks[0]["text"] != Unscripted.Content[0].Text {
		t.Errorf("unscripted answer %v", blocks)
	}
	var n map[string]int
	json.NewDecoder(post(t, s.URL()+"/v1/messages/count_tokens", `{"messages":[]}`).Body).Decode(&n)
	if n["input_tokens"] != len(`{"messages":[]}`)/4 {
		t.Errorf("count_tokens %v", n)
	}
	if resp := post(t, s.URL()+"/v1/other", `{}`); resp.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown path answers %d", resp.StatusCode)
	}
	if resp := post(t, s.URL()+"/v1/messages", `not json`); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a malformed request answers %d", resp.StatusCode)
	}
	ex := s.Exchanges()
	if len(ex) != 4 || ex[0].Rule != "" || ex[2].Status != http.StatusNotFound {
		t.Errorf("exchanges %+v", ex)
	}
	if u := s.Unused(); !slices.Equal(u, []string{"never"}) {
		t.Errorf("unused %v", u)
	}
}

func TestScriptedFailure(t *testing.T) {
	s := start(t, []Rule{{Name: "busy", When: Any(), Reply: Reply{Status: 529}}})
	resp := post(t, s.URL()+"/v1/messages", `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	var e struct {
		Type  string
		Error struct{ Type string }
	}
	json.NewDecoder(resp.Body).Decode(&e)
	if resp.StatusCode != 529 || e.Type != "error" || e.Error.Type != "overloaded_error" {
		t.Errorf("status %d, body %+v", resp.StatusCode, e)
	}
}

func TestStartRejectsABadReply(t *testing.T) {
	for _, r := range []Reply{
		{Content: []Block{ToolUse("", "Bash", `{}`)}},
		{Content: []Block{ToolUse("t", "Bash", `[1]`)}},
		{Content: []Block{{Type: "tool_result"}}},
	} {
		if _, err := Start([]Rule{{Name: "r", When: Any(), Reply: r}}); err == nil {
			t.Errorf("Start accepted %+v", r)
		}
	}
}

func TestMatchers(t *testing.T) {
	req, err := ParseRequest([]byte(`{"system":"You are a helper.","messages":[
		{"role":"user","content":[{"type":"text","text":"<system-reminder>\nctx\n</system-reminder>"},{"type":"text","text":"first task"}]},
		{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"out <task-notification>"},{"type":"text","text":"<system-reminder>late</system-reminder>"}]},
		{"role":"system","content":"env"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		m    Matcher
		want bool
	}{
		{"first says", FirstUserSays("first task"), true},
		{"first says not the reminder", FirstUserSays("ctx"), false},
		{"last says (only reminders and results)", LastUserSays("late"), false},
		{"last has the reminder", LastUserHas("late"), true},
		{"last has the result", LastUserHas("<task-notification>"), true},
		{"tool result", ToolResult("t1"), true},
		{"other tool result", ToolResult("t2"), false},
		{"system", SystemSays("a helper"), true},
		{"all", All(ToolResult("t1"), SystemSays("helper")), true},
		{"not", Not(Any()), false},
	} {
		if got := c.m(req); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestConversation(t *testing.T) {
	req, err := ParseRequest([]byte(`{"messages":[
		{"role":"user","content":[{"type":"text","text":"<system-reminder>\nctx\n</system-reminder>"},{"type":"text","text":"look","cache_control":{"type":"ephemeral"}},
			{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]},
		{"role":"system","content":"env"},
		{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"redacted_thinking","data":"r"},
			{"type":"tool_use","id":"t1","name":"Read","input":{"b":1,"a":"é<"}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{"type":"text","text":"no"},{"type":"image","source":{"type":"base64","media_type":"image/gif","data":"BB"}}]}]},
		{"role":"user","content":[{"type":"text","text":"<system-reminder>\nnews\n<task-notification>\n<result>ok</result>\n</task-notification>\n</system-reminder>"}]},
		{"role":"user","content":"go on"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	got := Conversation(req)
	want := []standin.Turn{
		{Role: "user", Parts: []standin.Part{{Type: "text", Text: "look"}, {Type: "image", Media: "image/png 63c1dd951ffedf6f7fd968ad4efa39b8ed584f162f46e715114ee184f8de9201"}}},
		{Role: "assistant", Parts: []standin.Part{{Type: "thinking", Text: "hm", Signature: "s"}, {Type: "redacted_thinking", Data: "r"},
			{Type: "tool_use", ID: "t1", Name: "Read", Input: `{"a":"é<","b":1}`}}},
		{Role: "user", Parts: []standin.Part{{Type: "tool_result", ID: "t1", IsError: true, Text: "no", Media: "image image/gif fc686c314491e1f68bf1899fc54b2327353c44dd1ab4ed56538ef623edd1e866"}, {Type: "text", Text: "<task-notification>\n<result>ok</result>\n</task-notification>"}, {Type: "text", Text: "go on"}}},
	}
	if d := standin.DiffConversations(want, got); d != "" {
		t.Error(d)
	}
	if d := standin.DiffConversations(want, standin.AppendTurn(got[:1], got[1])); !strings.Contains(d, "missing") {
		t.Errorf("a shorter conversation: %q", d)
	}
	changed := standin.AppendTurn(got[:2], standin.Turn{Role: "user", Parts: []standin.Part{{Type: "text", Text: "other"}}})
	if d := standin.DiffConversations(got, changed); !strings.Contains(d, "turn 3 (user), part 1") {
		t.Errorf("a changed part: %q", d)
	}
	if merged := standin.AppendTurn(got, standin.Turn{Role: "user", Parts: []standin.Part{{Type: "text", Text: "more"}}}); len(merged) != 3 || len(merged[2].Parts) != 4 || len(got[2].Parts) != 3 {
		t.Errorf("standin.AppendTurn did not join the user turn, or changed its input: %v", merged)
	}
}
