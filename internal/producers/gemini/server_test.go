package gemini

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/internal/producers/standin/standintest"
)

func start(t *testing.T, rules []Rule) *StandIn { return standintest.Start(t, Start, rules) }

func post(t *testing.T, url, body string) *http.Response { return standintest.Post(t, url, body, nil) }

type chunk struct {
	Candidates []struct {
		Content      Content
		FinishReason string
	}
	ModelVersion  string
	ResponseID    string
	UsageMetadata map[string]int
}

const prompt = `{"contents":[{"role":"user","parts":[{"text":"<session_context>x</session_context>"},{"text":"list the files"}]}],
 "systemInstruction":{"parts":[{"text":"You are Gemini CLI"}]},
 "tools":[{"functionDeclarations":[{"name":"run_shell_command"},{"name":"complete_task"}]}]}`

func TestStreamAndWholeAnswers(t *testing.T) {
	s := start(t, []Rule{
		{Name: "router", When: Router(), Reply: Reply{Parts: []Part{JSONText(map[string]any{"complexity_reasoning": "simple", "complexity_score": 15})}}},
		{Name: "call-shell", When: All(Streaming(), LastUserSays("list the files"), Declares("complete_task"), SystemSays("Gemini CLI")), Times: 1, Reply: Reply{
			Parts: []Part{Thought("I should run ls."), Text("Listing."), Call("run_shell_command", `{"command":"ls"}`)},
			Usage: Usage{Prompt: 3000, Cached: 1000, Candidates: 40, Thoughts: 12}}},
	})
	resp := post(t, s.URL()+"/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse", prompt)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var chunks []chunk
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("line %q is not data", line)
		}
		var c chunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, c)
	}
	if len(chunks) != 3 {
		t.Fatalf("%d chunks, want one a part", len(chunks))
	}
	p := chunks[0].Candidates[0].Content.Parts[0]
	if !p.Thought || p.Text != "I should run ls." || chunks[0].UsageMetadata != nil || chunks[0].ModelVersion != "gemini-3.8-flash" || chunks[0].ResponseID != "call_shell_01" {
		t.Errorf("first chunk %+v", chunks[0])
	}
	last := chunks[2]
	if c := last.Candidates[0].Content.Parts[0].FunctionCall; c == nil || c.Name != "run_shell_command" || string(c.Args) != `{"command":"ls"}` || last.Candidates[0].FinishReason != "STOP" {
		t.Errorf("last chunk %+v", last)
	}
	want := map[string]int{"promptTokenCount": 3000, "cachedContentTokenCount": 1000, "candidatesTokenCount": 40, "thoughtsTokenCount": 12, "totalTokenCount": 3052}
	for k, v := range want {
		if last.UsageMetadata[k] != v {
			t.Errorf("usage %s = %d, want %d", k, last.UsageMetadata[k], v)
		}
	}
	if _, ok := last.UsageMetadata["toolUsePromptTokenCount"]; ok {
		t.Error("a zero count is sent")
	}
	// The router, answered whole, again and again.
	for range 2 {
		var c chunk
		resp := post(t, s.URL()+"/v1beta/models/gemini-3.5-flash-lite:generateContent",
			`{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"responseJsonSchema":{"properties":{"complexity_score":{}}}}}`)
		json.NewDecoder(resp.Body).Decode(&c)
		var score struct {
			ComplexityScore int `json:"complexity_score"`
		}
		if err := json.Unmarshal([]byte(c.Candidates[0].Content.Parts[0].Text), &score); err != nil || score.ComplexityScore != 15 {
			t.Errorf("router answer %+v: %v", c, err)
		}
	}
	ex := s.Exchanges()
	if len(ex) != 3 || ex[2].Rule != "router" || ex[2].Hit != 2 {
		t.Errorf("exchanges %+v", ex)
	}
}

func TestErrorsCountsAndTheUnforeseen(t *testing.T) {
	s := start(t, []Rule{
		{Name: "refused", When: LastUserSays("second"), Times: 1, Reply: Reply{Status: 400}},
		{Name: "after-tool", When: Responds("run_shell_command"), Times: 1, Reply: Reply{Parts: []Part{Text("done")}}},
		{Name: "child", When: FirstUserSays("SUBTASK"), Times: 1, Reply: Reply{Parts: []Part{Text("child")}}},
	})
	base := s.URL() + "/v1beta/models/m:streamGenerateContent?alt=sse"
	resp := post(t, base, `{"contents":[{"role":"user","parts":[{"text":"second"}]}]}`)
	var e struct {
		Error struct {
			Code   int
			Status string
		}
	}
	json.NewDecoder(resp.Body).Decode(&e)
	if resp.StatusCode != 400 || e.Error.Code != 400 || e.Error.Status != "INVALID_ARGUMENT" {
		t.Errorf("status %d, %+v", resp.StatusCode, e)
	}
	for _, body := range []string{
		`{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"run_shell_command","response":{"output":"x"}}}]}]}`,
		`{"contents":[{"role":"user","parts":[{"text":"SUBTASK: count"}]},{"role":"model","parts":[{"text":"ok"}]}]}`,
		`{"contents":[{"role":"user","parts":[{"text":"what now"}]}]}`,
	} {
		if resp := post(t, base, body); resp.StatusCode != 200 {
			t.Errorf("status %d", resp.StatusCode)
		}
	}
	var n struct{ TotalTokens int }
	json.NewDecoder(post(t, s.URL()+"/v1beta/models/m:countTokens", `{"contents":[]}`).Body).Decode(&n)
	if n.TotalTokens == 0 {
		t.Error("countTokens counts nothing")
	}
	if resp := post(t, s.URL()+"/v1/other", `{}`); resp.StatusCode != 400 {
		t.Errorf("a path that is no model's: status %d", resp.StatusCode)
	}
	ex := s.Exchanges()
	if ex[1].Rule != "after-tool" || ex[2].Rule != "child" || ex[3].Rule != "" {
		t.Errorf("rules %q %q %q", ex[1].Rule, ex[2].Rule, ex[3].Rule)
	}
	if len(s.Unused()) != 0 {
		t.Errorf("unused %v", s.Unused())
	}
}

func TestBadRepliesAreRefused(t *testing.T) {
	for _, r := range []Reply{
		{Parts: []Part{Call("x", "not json")}},
		{Parts: []Part{Call("", "{}")}},
		{Parts: []Part{{FunctionResponse: &FunctionResponse{Name: "x"}}}},
	} {
		if _, err := Start([]Rule{{Name: "r", When: Any(), Reply: r}}); err == nil {
			t.Errorf("Start accepted %+v", r)
		}
	}
}
