package sessions

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/rlog-ls/rlog-ls/convert/model"
)

// TestListsKeepNoReadersMemory: what a session's lists keep (prompts,
// calls, phases, file changes) is copied out of the events, so the index,
// which holds the lists of every session it has read, does not keep alive
// the memory a reader made them in (the rlog reader makes ids and lines
// in shared blocks of kilobytes).
func TestListsKeepNoReadersMemory(t *testing.T) {
	block := strings.Repeat("x", 16<<10) + "prompt text\ncall-1 Write phase-1 build"
	at := func(s string) string { // s as a string inside block's memory
		i := strings.Index(block, s)
		return block[i : i+len(s)]
	}
	inBlock := func(s string) bool {
		if s == "" {
			return false
		}
		p, b := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(block)))
		return p >= b && p < b+uintptr(len(block))
	}
	o := newObserver()
	events := []model.Event{
		{Kind: model.KindUser, Text: at("prompt text"), ID: at("call-1")},
		{Kind: model.KindToolCall, ID: at("call-1"), Call: &model.ToolCall{ID: at("call-1"), Name: at("Write"), Input: []byte(`{"file_path":"/w/a.go","content":"x"}`)}},
		{Kind: model.KindLifecycle, Name: "phase", Text: at("phase-1 build"), ID: at("phase-1")},
	}
	for i := range events {
		if err := o.Event(&model.Header{}, &events[i]); err != nil {
			t.Fatal(err)
		}
	}
	if len(o.prompts) != 1 || len(o.allCalls) != 1 || len(o.calls) != 1 || len(o.phases) != 1 {
		t.Fatalf("kept %d prompts, %d calls, %d file calls, %d phases; want one each", len(o.prompts), len(o.allCalls), len(o.calls), len(o.phases))
	}
	for what, s := range map[string]string{
		"prompt's text": o.prompts[0].Text, "prompt's id": o.prompts[0].ID,
		"call's tool": o.allCalls[0].Tool, "call's id": o.allCalls[0].ID, "call's target": o.allCalls[0].Target,
		"file call's id": o.calls[0].id, "file call's tool": o.calls[0].tool,
		"phase's name": o.phases[0].Name, "phase's id": o.phases[0].ID,
	} {
		if inBlock(s) {
			t.Errorf("the %s %q is kept in the reader's memory, not copied", what, s)
		}
	}
}
