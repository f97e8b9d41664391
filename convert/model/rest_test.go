package model

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestRestRestoresWhatTheFormatDoesNotCarry: the rest of an event, applied
// to what a reader makes of the fields a format carries, gives the event
// back.
func TestRestRestoresWhatTheFormatDoesNotCarry(t *testing.T) {
	for _, e := range []Event{
		{Kind: KindToolCall, Time: "2025-06-22T14:31:48.310Z", ID: "u1", ParentID: "u0", MessageID: "msg_1", Model: "m",
			Call:    &ToolCall{ID: "toolu_1", Name: "Read", Input: json.RawMessage(`{"file_path":"a"}`), Summary: "file_path=a"},
			AgentID: "a1", Sidechain: true, Step: 4, Extra: Fields{{Key: "requestId", Value: json.RawMessage(`"req_1"`)}}, Form: Form{Inline: true}},
		{Kind: KindToolResult, Result: &ToolResult{CallID: "toolu_1", IsError: true, Content: "", Status: "2 issues"}, Meta: true},
		{Kind: KindSubagent, Subagent: &Subagent{ID: "t", AgentID: "a1", Type: "Explore", Status: "done", Summary: "s"}},
		{Kind: KindCompaction, Text: "", Compaction: &Compaction{Trigger: "auto", PreTokens: 9}},
		{Kind: KindTodos, Todos: []Todo{{Content: "x", Status: "pending"}}},
		{Kind: KindPassthrough, RawType: "t", Raw: json.RawMessage(`{"type":"t"}`)},
		{Kind: KindLifecycle, Name: "phase", Text: "implement"},
	} {
		carried := []string{"call.input", "result.content"}
		r := RestOf(&e, carried...)
		// What a reader of the format makes: the carried fields, and a
		// time and text of its own, which the rest overrides.
		got := Event{Kind: KindSystem, Time: "2000-01-01T00:00:00Z", Text: "x"}
		if e.Call != nil {
			got.Call = &ToolCall{Input: e.Call.Input}
		}
		if e.Result != nil {
			got.Result = &ToolResult{Content: e.Result.Content}
		}
		if err := ApplyRest(&got, r); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, e) {
			t.Errorf("rest %s\n gave %+v\nwant %+v", r, got, e)
		}
	}
	if r := RestOf(&Event{Kind: KindUser}, "time", "text", "extra", "form"); string(r) != `{"kind":"user"}` {
		t.Errorf("nothing left but the kind, yet %s", r)
	}
	if err := ApplyRest(&Event{}, []byte(`[1]`)); err == nil {
		t.Error("a rest that is not an object is not an error")
	}
}

// TestRestKeepsEveryFormField: every field of Form survives a rest (a
// field added to Form without a key in the rest was lost by every round
// trip: rlog's UsageInText wrote the usage a text holds a second time).
func TestRestKeepsEveryFormField(t *testing.T) {
	var f Form
	v := reflect.ValueOf(&f).Elem()
	for i := range v.NumField() {
		switch fv := v.Field(i); fv.Kind() {
		case reflect.Bool:
			fv.SetBool(true)
		case reflect.String:
			fv.SetString("x")
		default:
			t.Fatalf("Form.%s: a %s the test does not fill", v.Type().Field(i).Name, fv.Kind())
		}
	}
	e := Event{Kind: KindAgent, Text: "t", Form: f}
	var got Event
	if err := ApplyRest(&got, RestOf(&e)); err != nil {
		t.Fatal(err)
	}
	if got.Form != f {
		t.Errorf("form %+v came back as %+v", f, got.Form)
	}
}

// TestRestOfAnotherKind: a rest that makes an event another kind gives it
// what writers of that kind read, even when it says nothing of it (a file
// that lies does not crash a writer).
func TestRestOfAnotherKind(t *testing.T) {
	for _, kind := range []string{"tool_call", "tool_result", "subagent"} {
		e := Event{Kind: KindSystem, Text: "x"}
		if err := ApplyRest(&e, []byte(`{"kind":"`+kind+`"}`)); err != nil {
			t.Fatal(err)
		}
		if e.Kind.String() != kind || e.Kind == KindToolCall && e.Call == nil || e.Kind == KindToolResult && e.Result == nil || e.Kind == KindSubagent && e.Subagent == nil {
			t.Errorf("%s: %+v", kind, e)
		}
	}
	for _, bad := range []string{`null`, `{"time":3}`, `{"call":[1]}`, `{"unset":{}}`, `{"step":"x"}`} {
		if err := ApplyRest(&Event{}, []byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
