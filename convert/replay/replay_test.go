package replay_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/convert/replay"
)

// TestUsageCarried: token usage, message ids and models go into REPLAY as
// extension fields of the events that have them (consumers ignore unknown
// fields), the output still validates, and reading it back restores them.
func TestUsageCarried(t *testing.T) {
	s := &model.Session{Header: model.Header{ID: "s1", Model: "m1", SourceFormat: "claude"}}
	s.Events = []model.Event{
		{Kind: model.KindUser, Text: "hi", Time: "2025-01-01T00:00:00Z"},
		{Kind: model.KindThinking, Text: "hmm", MessageID: "msg_1", Model: "m1", Usage: &model.Usage{Input: 3, Output: 1, CacheRead: 10, CacheCreate: 20}, Time: "2025-01-01T00:00:01Z"},
		{Kind: model.KindToolCall, MessageID: "msg_1", Model: "m2", Usage: &model.Usage{Input: 3, Output: 40, CacheRead: 10, CacheCreate: 20}, Call: &model.ToolCall{ID: "t1", Name: "Read", Input: json.RawMessage(`{"p":1}`)}, Time: "2025-01-01T00:00:02Z"},
		{Kind: model.KindToolResult, Result: &model.ToolResult{CallID: "t1", Content: "ok"}, Time: "2025-01-01T00:00:03Z"},
	}
	var out bytes.Buffer
	rep := &model.Report{}
	err := replay.Write(&out, s, rep, model.Options{Now: func() time.Time { return time.Unix(0, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	var fs []model.Finding
	if err := replay.Validate(bytes.NewReader(out.Bytes()), func(f model.Finding) { fs = append(fs, f) }); err != nil || len(fs) > 0 {
		t.Fatalf("findings %v %v:\n%s", fs, err, out.String())
	}
	want := `{"event":"ToolCall","id":"t1","message_id":"msg_1","model":"m2","params":{"p":1},"params_hash":`
	if !strings.Contains(out.String(), want) || !strings.Contains(out.String(), `"usage":{"cache_creation_input_tokens":20,"cache_read_input_tokens":10,"input_tokens":3,"output_tokens":40}`) {
		t.Errorf("usage not carried:\n%s", out.String())
	}
	if strings.Contains(rep.Text(), "usage") {
		t.Errorf("usage reported lost:\n%s", rep.Text())
	}
	var c model.Collector
	if err := replay.Read(bytes.NewReader(out.Bytes()), &c, &model.Report{}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range c.Session.Events {
		if e.Usage != nil {
			got = append(got, e.Kind.String()+" "+e.MessageID+" "+e.Model+" "+model.Itoa(e.Usage.Output))
		}
		if _, ok := e.Extra.Get("usage"); ok {
			t.Errorf("usage left in Extra of %s", e.Kind)
		}
	}
	if g := strings.Join(got, "; "); g != "thinking msg_1  1; tool_call msg_1 m2 40" || c.Session.Header.Model != "m1" {
		t.Errorf("read back: %s, header model %q", g, c.Session.Header.Model)
	}
}
