package openai

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/internal/producers/standin/standintest"
)

func start(t *testing.T, rules []Rule) *StandIn { return standintest.Start(t, Start, rules) }

func post(t *testing.T, url, body string, header map[string]string) *http.Response {
	return standintest.Post(t, url, body, header)
}

// events reads a stream: each event's name must be its data's type.
func events(t *testing.T, r io.Reader) []map[string]any {
	t.Helper()
	var out []map[string]any
	name := ""
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatal(err)
			}
			if d["type"] != name {
				t.Errorf("event %s carries data of type %v", name, d["type"])
			}
			out = append(out, d)
		case line != "":
			t.Fatalf("unexpected line %q", line)
		}
	}
	return out
}

const askList = `{"model":"gpt-5.5","stream":true,"input":[
 {"type":"message","role":"developer","content":[{"type":"input_text","text":"You are Codex"}]},
 {"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>cwd</environment_context>"}]},
 {"type":"message","role":"user","content":[{"type":"input_text","text":"list the files"}]}],
 "tools":[{"type":"function","name":"exec_command"},{"type":"custom","name":"apply_patch"},
  {"type":"namespace","name":"collaboration","tools":[{"type":"function","name":"spawn_agent"}]}]}`

// TestStreamAssemblesToTheReply rebuilds each item from its deltas, as a
// client does, and finds the scripted reply with the ids and usage the
// stand-in gives.
func TestStreamAssemblesToTheReply(t *testing.T) {
	s := start(t, []Rule{{Name: "list-files", When: All(LastUserSays("list the files"), Agent("/root")), Times: 1, Reply: Reply{
		Items: []Item{Reasoning("I should run ls."), Message("Listing é."), FunctionCall("call_1", "exec_command", `{"cmd":"ls"}`),
			CustomToolCall("call_2", "apply_patch", "*** Begin Patch\n*** End Patch\n")},
		Usage: Usage{Input: 3000, Cached: 1000, Output: 40, Reasoning: 12}}}})
	resp := post(t, s.URL()+"/responses", askList, map[string]string{"X-Codex-Turn-Metadata": `{"agent_name":"/root","request_kind":"turn"}`})
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	evs := events(t, resp.Body)
	text := map[string]string{}
	var done []map[string]any
	var completed map[string]any
	for i, e := range evs {
		if int(e["sequence_number"].(float64)) != i {
			t.Errorf("event %d has sequence_number %v", i, e["sequence_number"])
		}
		switch e["type"] {
		case "response.output_text.delta", "response.reasoning_summary_text.delta", "response.function_call_arguments.delta", "response.custom_tool_call_input.delta":
			text[e["item_id"].(string)] += e["delta"].(string)
		case "response.output_item.done":
			done = append(done, e["item"].(map[string]any))
		case "response.completed":
			completed = e["response"].(map[string]any)
		}
	}
	if evs[0]["type"] != "response.created" || completed == nil {
		t.Fatalf("the stream does not open with response.created and close with response.completed: %v", evs)
	}
	want := map[string]string{"rs_list_files_01_0": "I should run ls.", "msg_list_files_01_1": "Listing é.",
		"fc_list_files_01_2": `{"cmd":"ls"}`, "ctc_list_files_01_3": "*** Begin Patch\n*** End Patch\n"}
	for id, w := range want {
		if text[id] != w {
			t.Errorf("item %s assembles to %q, want %q", id, text[id], w)
		}
	}
	if len(done) != 4 || done[2]["call_id"] != "call_1" || done[2]["name"] != "exec_command" || done[3]["input"] != want["ctc_list_files_01_3"] ||
		done[0]["encrypted_content"] != "stand-in-encrypted-rs_list_files_01_0" || done[1]["status"] != "completed" {
		t.Errorf("items done: %v", done)
	}
	usage := completed["usage"].(map[string]any)
	if usage["input_tokens"] != 3000.0 || usage["output_tokens"] != 40.0 || usage["total_tokens"] != 3040.0 ||
		usage["input_tokens_details"].(map[string]any)["cached_tokens"] != 1000.0 ||
		usage["output_tokens_details"].(map[string]any)["reasoning_tokens"] != 12.0 || completed["id"] != "resp_list_files_01" {
		t.Errorf("response.completed: %v", completed)
	}
	ex := s.Exchanges()
	if len(ex) != 1 || ex[0].Rule != "list-files" || ex[0].Hit != 1 || ex[0].Answer.(Answer).ResponseID != "resp_list_files_01" {
		t.Errorf("exchange: %+v", ex)
	}
	req, _ := ParseRequest(ex[0].Body, ex[0].Header)
	if got := req.ToolNames(); !slices.Equal(got, []string{"exec_command", "apply_patch", "collaboration.spawn_agent"}) {
		t.Errorf("tools %v", got)
	}
}

func TestErrorsFailuresAndTheUnforeseen(t *testing.T) {
	s := start(t, []Rule{
		{Name: "overloaded", When: LastUserSays("second"), Times: 1, Reply: Reply{Status: 500, ErrorCode: "server_error"}},
		{Name: "too-long", When: LastUserSays("third"), Times: 1, Reply: Reply{Status: 400, ErrorCode: "context_length_exceeded"}},
		{Name: "broken", When: LastUserSays("fourth"), Times: 1, Reply: Reply{Items: []Item{Message("partial")}, FailStream: "gone"}},
		{Name: "after-tool", When: Output("call_9"), Reply: Reply{Items: []Item{Message("ok")}}},
		{Name: "summary", When: Compaction(), Reply: Reply{Items: []Item{Message("SUMMARY")}}},
	})
	say := func(text string) string {
		return `{"model":"m","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"` + text + `"}]}]}`
	}
	if resp := post(t, s.URL()+"/responses", say("second"), nil); resp.StatusCode != 500 {
		t.Errorf("status %d, want 500", resp.StatusCode)
	}
	resp := post(t, s.URL()+"/responses", say("third"), nil)
	var e struct {
		Error struct{ Code, Message string }
	}
	json.NewDecoder(resp.Body).Decode(&e)
	if resp.StatusCode != 400 || e.Error.Code != "context_length_exceeded" {
		t.Errorf("status %d, error %+v", resp.StatusCode, e)
	}
	evs := events(t, post(t, s.URL()+"/responses", say("fourth"), nil).Body)
	if last := evs[len(evs)-1]; last["type"] != "response.failed" {
		t.Errorf("a failing stream ends with %v", last["type"])
	}
	evs = events(t, post(t, s.URL()+"/responses", `{"input":[{"type":"function_call_output","call_id":"call_9","output":"x"}]}`, nil).Body)
	if last := evs[len(evs)-1]; last["type"] != "response.completed" {
		t.Errorf("ends with %v", last["type"])
	}
	evs = events(t, post(t, s.URL()+"/responses", say("compact"), map[string]string{"X-Codex-Turn-Metadata": `{"request_kind":"compaction"}`}).Body)
	if item := evs[len(evs)-2]["item"].(map[string]any); item["id"] != "msg_summary_01_0" {
		t.Errorf("compaction answered by %v", item)
	}
	evs = events(t, post(t, s.URL()+"/responses", say("what now"), nil).Body)
	if item := evs[len(evs)-2]["item"].(map[string]any); !strings.Contains(item["id"].(string), "unscripted") {
		t.Errorf("an unforeseen request is answered by %v", item)
	}
	if resp := post(t, s.URL()+"/models", `{}`, nil); resp.StatusCode != 404 {
		t.Errorf("an unknown path: status %d", resp.StatusCode)
	}
	if u := s.Unused(); len(u) != 0 {
		t.Errorf("unused %v", u)
	}
}

func TestBadRepliesAreRefused(t *testing.T) {
	for _, r := range []Reply{
		{Items: []Item{FunctionCall("c", "exec", `not json`)}},
		{Items: []Item{FunctionCall("", "exec", `{}`)}},
		{Items: []Item{{Type: "image"}}},
		{Status: 500},
	} {
		if _, err := Start([]Rule{{Name: "r", When: Any(), Reply: r}}); err == nil {
			t.Errorf("Start accepted %+v", r)
		}
	}
}

func TestConversation(t *testing.T) {
	req, err := ParseRequest([]byte(`{"input":[
	 {"type":"message","role":"developer","content":[{"type":"input_text","text":"rules"}]},
	 {"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>x</environment_context>"}]},
	 {"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]},
	 {"type":"reasoning","summary":[{"type":"summary_text","text":"think"}],"encrypted_content":"E"},
	 {"type":"function_call","call_id":"c1","name":"spawn_agent","namespace":"collaboration","arguments":"{\"b\":1, \"a\":2}"},
	 {"type":"function_call_output","call_id":"c1","output":"done"},
	 {"type":"agent_message","author":"/root/t","recipient":"/root","content":[{"type":"input_text","text":"FINAL"}]},
	 {"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := Conversation(req)
	roles := []string{}
	for _, tu := range got {
		roles = append(roles, tu.Role)
	}
	if !slices.Equal(roles, []string{"user", "assistant", "tool", "agent", "assistant"}) {
		t.Fatalf("roles %v", roles)
	}
	if p := got[1].Parts[1]; p.Name != "collaboration.spawn_agent" || p.Input != `{"a":2,"b":1}` || got[1].Parts[0].Data != "E" {
		t.Errorf("assistant turn %+v", got[1])
	}
	if a := AnswerTurn(Reply{Items: []Item{Message("ok")}}); a.Role != "assistant" || a.Parts[0].Text != "ok" {
		t.Errorf("AnswerTurn %+v", a)
	}
}
