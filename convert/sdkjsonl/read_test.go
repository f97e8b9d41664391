package sdkjsonl

import (
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/model"
)

// The result lines' usage becomes the session's totals, summed over the
// results of a continued session; a malformed usage object adds nothing.
func TestResultUsageBecomesSessionTotals(t *testing.T) {
	src := `{"type":"result","message":{"subtype":"success","usage":{"input_tokens":10,"output_tokens":4,"cache_read_input_tokens":100,"cache_creation_input_tokens":7},"total_cost_usd":0.5},"timestamp":"2025-12-22T10:00:00+00:00"}
{"type":"result","message":{"subtype":"success","usage":{"input_tokens":1,"output_tokens":2},"total_cost_usd":0.25},"timestamp":"2025-12-22T10:01:00+00:00"}
{"type":"result","message":{"subtype":"success","usage":[1,2]},"timestamp":"2025-12-22T10:02:00+00:00"}
`
	var c model.Collector
	if err := Read(strings.NewReader(src), &c, &model.Report{}); err != nil {
		t.Fatal(err)
	}
	h := c.Session.Header
	want := model.Usage{Input: 11, Output: 6, CacheRead: 100, CacheCreate: 7}
	if h.Totals == nil || *h.Totals != want || h.CostUSD == nil || *h.CostUSD != 0.75 {
		t.Fatalf("totals %+v cost %v, want %+v and 0.75", h.Totals, h.CostUSD, want)
	}
}

// The session id the SDK writes on every assistant and user message is the
// header's, not a field of each event (writers would report every copy
// dropped); a message of another session keeps its own.
func TestMessageSessionIDGoesToHeader(t *testing.T) {
	src := `{"type":"system","message":{"subtype":"init","session_id":"s1"},"timestamp":"2025-12-22T10:00:00+00:00"}
{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"hi"}]},"parent_tool_use_id":null,"session_id":"s1","timestamp":"2025-12-22T10:00:01+00:00"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"session_id":"s1","timestamp":"2025-12-22T10:00:02+00:00"}
{"type":"user","message":{"role":"user","content":"other"},"session_id":"s2","timestamp":"2025-12-22T10:00:03+00:00"}
`
	var c model.Collector
	if err := Read(strings.NewReader(src), &c, &model.Report{}); err != nil {
		t.Fatal(err)
	}
	if c.Session.Header.ID != "s1" {
		t.Fatalf("header id %q", c.Session.Header.ID)
	}
	var kept []string
	for _, e := range c.Session.Events {
		if v, ok := e.Extra.String("session_id"); ok {
			kept = append(kept, e.Kind.String()+" "+v)
		}
	}
	if strings.Join(kept, ",") != "user s2" {
		t.Errorf("events keeping session_id: %v, want only the other session's", kept)
	}
}
