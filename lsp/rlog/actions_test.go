package rlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

const sessionDoc = "---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\nrunner: ci\n---\n" +
	"@start id=s ts=2025-12-19T20:29:02Z\n" +
	"u: list the files\n" +
	"t!:Glob id=g1 pattern=\"*.go\" → [running] tokens_in=3 tokens_out=9\n" +
	"o: id=g1 → [ok] main.go\n" +
	"@end\n"

var createCaps = map[string]any{"workspace": map[string]any{
	"applyEdit":     true,
	"workspaceEdit": map[string]any{"documentChanges": true, "resourceOperations": []string{"create", "rename", "delete"}},
}}

// recorder keeps the applyEdit requests and answers them as told.
type recorder struct {
	mu     sync.Mutex
	params []json.RawMessage
}

func (r *recorder) handler(answer any) lsptest.RequestHandler {
	return func(p json.RawMessage) (any, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.params = append(r.params, p)
		return answer, nil
	}
}

func (r *recorder) all() []json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]json.RawMessage(nil), r.params...)
}

func execute(t *testing.T, c *lsptest.Client, command string, arg any) (json.RawMessage, error) {
	t.Helper()
	var res json.RawMessage
	err := c.Call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": command, "arguments": []any{arg}}, &res)
	return res, err
}

func messages(c *lsptest.Client, method string) []protocol.ShowMessageParams {
	var out []protocol.ShowMessageParams
	for _, f := range c.Notifications(method) {
		var p protocol.ShowMessageParams
		json.Unmarshal(f.Params, &p)
		out = append(out, p)
	}
	return out
}

// With a client that creates files in workspace edits, the conversion is a
// CreateFile (never overwriting) and the content, through applyEdit.
func TestConvertThroughApplyEdit(t *testing.T) {
	dir := t.TempDir()
	uri := fileURI(filepath.Join(dir, "session.rlog"))
	target := fileURI(filepath.Join(dir, "session.atif.json"))
	c := start(t, "", createCaps)
	rec := &recorder{}
	c.OnRequest(protocol.MethodWorkspaceApplyEdit, rec.handler(map[string]any{"applied": true}))
	open(t, c, uri, sessionDoc)

	res, err := execute(t, c, CommandConvert, map[string]any{"uri": uri, "format": "atif"})
	if err != nil {
		t.Fatal(err)
	}
	lsptest.AssertJSON(t, res, `{"uri":"`+string(target)+`","created":true}`)

	var want bytes.Buffer
	if _, err := convert.Convert(strings.NewReader(sessionDoc), convert.Rlog, convert.ATIF, &want, convert.Options{}); err != nil {
		t.Fatal(err)
	}
	edits := rec.all()
	if len(edits) != 1 {
		t.Fatalf("%d applyEdit requests", len(edits))
	}
	content, _ := json.Marshal(want.String())
	lsptest.AssertJSON(t, edits[0], `{"label":"Convert session.rlog to atif","edit":{"documentChanges":[
	 {"kind":"create","uri":"`+string(target)+`","options":{"overwrite":false,"ignoreIfExists":false}},
	 {"textDocument":{"uri":"`+string(target)+`","version":null},"edits":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"newText":`+string(content)+`}]}]}}`)
	if _, err := os.Stat(filepath.Join(dir, "session.atif.json")); !os.IsNotExist(err) {
		t.Error("the server wrote the file itself although the client creates it")
	}
	shown := messages(c, protocol.MethodWindowShowMessage)
	if len(shown) != 1 || !strings.Contains(shown[0].Message, "wrote session.atif.json from session.rlog") {
		t.Errorf("showMessage: %+v", shown)
	}
	logged := messages(c, protocol.MethodWindowLogMessage)
	if len(logged) == 0 || !strings.Contains(logged[len(logged)-1].Message, "rlog -> atif:") {
		t.Errorf("logMessage: %+v", logged)
	}
	if len(c.Requests(protocol.MethodShowDocument)) != 1 {
		t.Error("the new file was not shown")
	}

	// The client refuses (the file exists): the user is told, nothing else.
	c.OnRequest(protocol.MethodWorkspaceApplyEdit, rec.handler(map[string]any{"applied": false, "failureReason": "File exists"}))
	res, _ = execute(t, c, CommandConvert, map[string]any{"uri": uri, "format": "atif"})
	lsptest.AssertJSON(t, res, `{"created":false}`)
	shown = messages(c, protocol.MethodWindowShowMessage)
	if last := shown[len(shown)-1]; last.Type != protocol.MessageTypeError || !strings.Contains(last.Message, "was not created: File exists") {
		t.Errorf("refusal not shown: %+v", last)
	}
}

// Without resource operations the server writes the file beside the
// document, never over an existing one, and asks the client to show it.
func TestConvertWritesFileWithoutResourceOperations(t *testing.T) {
	dir := t.TempDir()
	uri := fileURI(filepath.Join(dir, "session.rlog"))
	c := start(t, "", nil)
	open(t, c, uri, sessionDoc)
	exports := 0
	for _, e := range convert.Formats() {
		if e.Export == "" {
			continue
		}
		exports++
		res, err := execute(t, c, CommandConvert, map[string]any{"uri": uri, "format": string(e.Name)})
		if err != nil {
			t.Fatalf("%s: %v", e.Export, err)
		}
		out := convert.OutputPath(filepath.Join(dir, "session.rlog"), e.Name)
		lsptest.AssertJSON(t, res, `{"uri":"`+string(fileURI(out))+`","created":true}`)
		data, err := os.ReadFile(out)
		if err != nil || len(data) == 0 {
			t.Fatalf("%s: %v", e.Export, err)
		}
		if _, _, err := convert.Read(bytes.NewReader(data), e.Name); err != nil {
			t.Errorf("%s: output does not read back: %v", e.Export, err)
		}
	}
	if got := len(c.Requests(protocol.MethodShowDocument)); got != exports {
		t.Errorf("showDocument %d times", got)
	}
	if len(c.Requests(protocol.MethodWorkspaceApplyEdit)) != 0 {
		t.Error("applyEdit sent to a client without resource operations")
	}
	// Again: the file exists and stays as it is.
	out := filepath.Join(dir, "session.atif.json")
	os.WriteFile(out, []byte("mine"), 0o644)
	res, _ := execute(t, c, CommandConvert, map[string]any{"uri": uri, "format": "atif"})
	lsptest.AssertJSON(t, res, `{"created":false}`)
	if b, _ := os.ReadFile(out); string(b) != "mine" {
		t.Error("existing file overwritten")
	}
	shown := messages(c, protocol.MethodWindowShowMessage)
	if last := shown[len(shown)-1]; !strings.Contains(last.Message, "session.atif.json exists already") {
		t.Errorf("not told: %+v", last)
	}
}

func TestConvertToRlogCommand(t *testing.T) {
	src := "../../testdata/claude/units-session.jsonl"
	dir := t.TempDir()
	in := filepath.Join(dir, "sonnet-raw.jsonl")
	data, _ := os.ReadFile(src)
	os.WriteFile(in, data, 0o644)
	c := start(t, "", nil)
	res, err := execute(t, c, CommandConvertToRlog, fileURI(in))
	if err != nil {
		t.Fatal(err)
	}
	lsptest.AssertJSON(t, res, `{"uri":"`+string(fileURI(filepath.Join(dir, "sonnet-raw.converted.rlog")))+`","created":true}`)
	out, _ := os.ReadFile(filepath.Join(dir, "sonnet-raw.converted.rlog"))
	if !bytes.HasPrefix(out, []byte("---\nformat: rlog/1\nid: 5c1e0b7a")) || !bytes.Contains(out, []byte("\no: id=toolu_")) {
		t.Errorf("output:\n%.400s", out)
	}
	shown := messages(c, protocol.MethodWindowShowMessage)
	if len(shown) != 1 || shown[0].Type != protocol.MessageTypeWarning || !strings.Contains(shown[0].Message, "losses") {
		t.Errorf("losses not told: %+v", shown)
	}
}

func TestConvertCommandErrors(t *testing.T) {
	c := start(t, "", createCaps)
	open(t, c, "untitled:Untitled-2", sessionDoc)
	// An untitled document: nothing to write beside; the user is told.
	res, err := execute(t, c, CommandConvert, map[string]any{"uri": "untitled:Untitled-2", "format": "atif"})
	if err != nil {
		t.Fatal(err)
	}
	lsptest.AssertJSON(t, res, `{"created":false}`)
	shown := messages(c, protocol.MethodWindowShowMessage)
	if len(shown) != 1 || !strings.Contains(shown[0].Message, "Untitled-2 is not saved to disk") {
		t.Errorf("%+v", shown)
	}
	if len(c.Requests(protocol.MethodWorkspaceApplyEdit)) != 0 {
		t.Error("applyEdit for an untitled document")
	}
	for i, bad := range []string{
		`{"command":"rlog-ls.convert","arguments":[{"uri":"untitled:Untitled-2","format":"sdk-jsonl"}]}`,
		`{"command":"rlog-ls.convert","arguments":["just a string"]}`,
		`{"command":"rlog-ls.convert","arguments":[]}`,
		`{"command":"rlog-ls.convertToRlog","arguments":["untitled:x.jsonl"]}`,
		`{"command":"rlog-ls.nope","arguments":["x"]}`,
	} {
		id := 1000 + i
		f := c.RawRequest(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"workspace/executeCommand","params":%s}`, id, bad))
		if f.Error == nil || f.Error.Code != -32602 {
			t.Errorf("%s: %s, want InvalidParams", bad, f.Body)
		}
	}
}

// TestCommandURI: a command's one document is its URI alone or
// {"uri": ...}; anything else, or an object without a uri, is refused (a
// bare "" is a URI, which the command itself refuses).
func TestCommandURI(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want protocol.DocumentURI
		ok   bool
	}{
		{`"file:///w/s.jsonl"`, "file:///w/s.jsonl", true},
		{`{"uri":"file:///w/s.jsonl"}`, "file:///w/s.jsonl", true},
		{`{"uri":"file:///w/s.jsonl","format":"atif"}`, "file:///w/s.jsonl", true},
		{`""`, "", true},
		{`{}`, "", false},
		{`{"uri":""}`, "", false},
		{`["file:///w/s.jsonl"]`, "", false},
		{`42`, "", false},
		{`{"uri":`, "", false},
	} {
		if got, ok := commandURI(json.RawMessage(c.raw)); got != c.want || ok != c.ok {
			t.Errorf("%s: %q %v, want %q %v", c.raw, got, ok, c.want, c.ok)
		}
	}
}
