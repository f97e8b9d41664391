package rlog

import (
	"os"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/grammar"
)

// TestMaskedView: rlog/maskedView gives a session file's rlog view, its
// view's URI the same, and an .rlog log as it is, each masked line by
// line by analysis.Mask; a file that is no session is refused.
func TestMaskedView(t *testing.T) {
	path := recordedSession(t, "compare-a")
	c := start(t, "", nil)
	var got maskedView
	if err := c.Call(MethodMaskedView, map[string]any{"textDocument": map[string]any{"uri": fileURI(path)}}, &got); err != nil {
		t.Fatal(err)
	}
	var view strings.Builder
	if _, err := convert.ConvertFile(path, convert.Claude, convert.Rlog, &view, convert.Options{}); err != nil {
		t.Fatal(err)
	}
	tree := grammar.Parse([]byte(view.String()))
	cwd, _ := tree.Header().Get("cwd")
	if want := string(analysis.Mask(nil, tree, cwd)); got.Text != want {
		t.Errorf("masked view:\n%s\nwant:\n%s", got.Text, want)
	}
	if strings.Contains(got.Text, "ts=20") || strings.Contains(got.Text, cwd) || !strings.Contains(got.Text, `cmd="wc -l notes.txt"`) {
		t.Errorf("not masked, or masked too much:\n%s", got.Text)
	}
	var again maskedView
	if err := c.Call(MethodMaskedView, map[string]any{"textDocument": map[string]any{"uri": viewURI(path)}}, &again); err != nil || again.Text != got.Text {
		t.Errorf("by the view's URI: %v, same text %v", err, again.Text == got.Text)
	}
	log := path + ".rlog"
	if err := os.WriteFile(log, []byte(view.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var ofLog maskedView
	if err := c.Call(MethodMaskedView, map[string]any{"textDocument": map[string]any{"uri": fileURI(log)}}, &ofLog); err != nil || ofLog.Text != got.Text {
		t.Errorf("an .rlog: %v, same text %v", err, ofLog.Text == got.Text)
	}
	notes := path + ".txt"
	os.WriteFile(notes, []byte("hello\n"), 0o644)
	if err := c.Call(MethodMaskedView, map[string]any{"textDocument": map[string]any{"uri": fileURI(notes)}}, &ofLog); err == nil {
		t.Error("a text file that is no session: no error")
	}
}
