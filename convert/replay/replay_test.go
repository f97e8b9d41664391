package replay_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

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

// FuzzPreview holds Preview to cutting the string as runes.
func FuzzPreview(f *testing.F) {
	f.Add(strings.Repeat("a", replay.PreviewLimit), 1)
	f.Add(strings.Repeat("é😀x", replay.PreviewLimit/2), 3)
	f.Add("\xff\xfe\xc3", replay.PreviewLimit)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 3*replay.PreviewLimit/max(len(s), 1) {
			n = 1
		}
		s = strings.Repeat(s, n)
		want := s
		if r := []rune(s); len(r) > replay.PreviewLimit {
			want = string(r[:replay.PreviewLimit/2]) + "..." + string(r[len(r)-replay.PreviewLimit/2:])
		}
		if got := replay.Preview(s); got != want && utf8.ValidString(s) {
			t.Fatalf("Preview of %d bytes: %q, want %q", len(s), got, want)
		}
	})
}

// TestSourceHashesChecked: a hash a REPLAY source carries on events the
// writer copies (an unknown event, a PlanStart, a ToolCall's extras) is
// dropped and reported when it is not sha256:<64 hex>, kept when it is.
func TestSourceHashesChecked(t *testing.T) {
	good := "sha256:" + strings.Repeat("ab", 32)
	src := `{"event":"ReplayHeader","replay_version":1,"producer":"p","created_at":"2025-01-01T00:00:00Z"}
{"event":"SessionStart","t":"2025-01-01T00:00:00Z","session_id":"s","policy_bundle_id":"b"}
{"event":"Custom","t":"2025-01-01T00:00:01Z","plan_hash":"nope"}
{"event":"PlanStart","t":"2025-01-01T00:00:02Z","plan_hash":"sha256:BAD"}
{"event":"PlanStart","t":"2025-01-01T00:00:03Z","plan_hash":"` + good + `"}
{"event":"ToolCall","t":"2025-01-01T00:00:04Z","id":"c1","tool":"Read","params":{},"params_hash":"x","step_id":"s1","plan_hash":"y"}
`
	var c model.Collector
	if err := replay.Read(strings.NewReader(src), &c, &model.Report{}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep := &model.Report{}
	if err := replay.Write(&out, &c.Session, rep, model.Options{Now: func() time.Time { return time.Unix(0, 0) }}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{`"nope"`, `sha256:BAD`, `"y"`} {
		if strings.Contains(out.String(), bad) {
			t.Errorf("%s written:\n%s", bad, out.String())
		}
	}
	if !strings.Contains(out.String(), `"plan_hash":"`+good+`"`) {
		t.Errorf("the valid plan_hash is lost:\n%s", out.String())
	}
	if n := strings.Count(rep.Text(), "plan_hash that is not sha256"); n == 0 {
		t.Errorf("not reported:\n%s", rep.Text())
	}
}

// TestEventsWithoutAReplayEventComeBack: a sub-agent, a compaction, a
// status, init, a todo list, a comment, a result whose call is not before
// it and a result status other than ok or error are written as this
// writer's extension fields (Message events, ToolResult `status`), the
// output validates, reading it back gives the same events, and REPLAY ->
// REPLAY gives the same bytes with nothing reported, an output that is a
// preview already included.
func TestEventsWithoutAReplayEventComeBack(t *testing.T) {
	long := strings.Repeat("a", 1500) + strings.Repeat("b", 1500)
	s := &model.Session{Header: model.Header{ID: "s1", Model: "m1", SourceFormat: "claude"}}
	s.Events = []model.Event{
		{Kind: model.KindInit, Model: "m1", Time: "2025-01-01T00:00:00Z"},
		{Kind: model.KindSubagent, Subagent: &model.Subagent{ID: "toolu_9", AgentID: "a1b2", Type: "Explore", Status: "done", Summary: "found it"}, Time: "2025-01-01T00:00:01Z"},
		{Kind: model.KindCompaction, Text: "Conversation compacted", Compaction: &model.Compaction{Trigger: "auto", PreTokens: 150000}, Time: "2025-01-01T00:00:02Z"},
		{Kind: model.KindStatus, Text: "Compacting", Time: "2025-01-01T00:00:03Z"},
		{Kind: model.KindTodos, Todos: []model.Todo{{Content: "Fix rounding", Status: "done"}, {ID: "2", Content: "Rerun", Status: "pending", Priority: "high"}}, Time: "2025-01-01T00:00:04Z"},
		{Kind: model.KindComment, Text: "a note", Time: "2025-01-01T00:00:05Z"},
		{Kind: model.KindToolResult, Result: &model.ToolResult{CallID: "gone", Content: "late", IsError: true, Status: "err: timeout"}, Time: "2025-01-01T00:00:06Z"},
		{Kind: model.KindToolCall, Call: &model.ToolCall{ID: "c1", Name: "issues", Input: json.RawMessage(`{}`)}, Time: "2025-01-01T00:00:07Z"},
		{Kind: model.KindToolResult, Result: &model.ToolResult{CallID: "c1", Status: "2 issues"}, Time: "2025-01-01T00:00:08Z"},
		{Kind: model.KindToolCall, Call: &model.ToolCall{ID: "c2", Name: "Read", Input: json.RawMessage(`{}`)}, Time: "2025-01-01T00:00:09Z"},
		{Kind: model.KindToolResult, Result: &model.ToolResult{CallID: "c2", Content: long}, Time: "2025-01-01T00:00:10Z"},
	}
	now := model.Options{Now: func() time.Time { return time.Unix(0, 0) }}
	var first bytes.Buffer
	rep := &model.Report{}
	if err := replay.Write(&first, s, rep, now); err != nil {
		t.Fatal(err)
	}
	var fs []model.Finding
	if err := replay.Validate(bytes.NewReader(first.Bytes()), func(f model.Finding) { fs = append(fs, f) }); err != nil || len(fs) > 0 {
		t.Fatalf("findings %v %v:\n%s", fs, err, first.String())
	}
	for _, l := range rep.Losses {
		if l.Kind == model.LossDroppedEvent || l.Kind == model.LossDroppedField {
			t.Errorf("reported %s: %s", l.Kind, l.Detail)
		}
	}
	if !strings.Contains(rep.Text(), "written as a Message extension event") {
		t.Errorf("the moved result is not reported:\n%s", rep.Text())
	}
	var c model.Collector
	if err := replay.Read(bytes.NewReader(first.Bytes()), &c, &model.Report{}); err != nil {
		t.Fatal(err)
	}
	describe := func(e *model.Event) string {
		d := e.Kind.String() + " " + e.Text + " " + e.Model
		if sa := e.Subagent; sa != nil {
			d += " " + sa.ID + "/" + sa.AgentID + "/" + sa.Type + "/" + sa.Status + "/" + sa.Summary
		}
		if c := e.Compaction; c != nil {
			d += fmt.Sprintf(" %s/%d", c.Trigger, c.PreTokens)
		}
		for _, td := range e.Todos {
			d += " [" + td.Status + "] " + td.Content + "/" + td.ID + "/" + td.Priority
		}
		if r := e.Result; r != nil {
			d += fmt.Sprintf(" %s/%v/%s/%.20s", r.CallID, r.IsError, r.Status, r.Content)
		}
		return d
	}
	var got []model.Event
	for _, e := range c.Session.Events {
		if e.Kind != model.KindLifecycle && e.Kind != model.KindToolCall {
			got = append(got, e)
		}
	}
	var want []model.Event
	for _, e := range s.Events {
		if e.Kind != model.KindToolCall {
			want = append(want, e)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d events read back, want %d:\n%s", len(got), len(want), first.String())
	}
	for i := range want {
		if a, b := describe(&want[i]), describe(&got[i]); a != b {
			t.Errorf("event %d:\nwrote %s\n read %s", i, a, b)
		}
	}
	var second bytes.Buffer
	rep2 := &model.Report{}
	if err := replay.Write(&second, &c.Session, rep2, now); err != nil {
		t.Fatal(err)
	}
	if second.String() != first.String() {
		t.Errorf("REPLAY -> REPLAY changed the file:\n%s\n%s", first.String(), second.String())
	}
	if !rep2.Empty() {
		t.Errorf("REPLAY -> REPLAY reported losses:\n%s", rep2.Text())
	}
}
