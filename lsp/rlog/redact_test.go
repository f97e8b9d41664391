package rlog

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/lsp"
	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

// A made-up key of the right shape.
const fakeKey = "sk-ant-api03-Zx9Qm2Lr7Tb4Wn8Kc1Vd6Hs3Jf0Pg5Ya2Ue7Io4Xq9Rt1Mb6Nc3Lz8Kw5"

// The key sits after an emoji, so UTF-16 and byte columns differ.
var leakyDoc = mark("---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\nrunner: ci\n---\n" +
	"u: 😀 my key ⟦k0⟧" + fakeKey + "⟦k1⟧ and password=⟦p0⟧Tr0ub4dor3xK⟦p1⟧\n" +
	"a: no secret here\n")

// startIn starts a server whose client opened the workspace folder root
// ("" for none) and can show documents.
func startIn(t *testing.T, root string) *lsptest.Client {
	t.Helper()
	c := lsptest.Start(t, func(ctx context.Context, rwc io.ReadWriteCloser) int {
		return lsp.Serve(ctx, rwc, lsp.Options[Doc]{Features: Features(), Name: "rlog-ls", Version: "test"})
	})
	params := lsptest.DefaultInitializeParams()
	if root != "" {
		params["rootUri"] = fileURI(root)
		params["workspaceFolders"] = []map[string]any{{"uri": fileURI(root), "name": "ws"}}
	}
	c.Initialize(params)
	return c
}

type wireAction struct {
	Title       string                  `json:"title"`
	Kind        string                  `json:"kind"`
	Diagnostics []protocol.Diagnostic   `json:"diagnostics"`
	IsPreferred bool                    `json:"isPreferred"`
	Edit        *protocol.WorkspaceEdit `json:"edit"`
	Command     *protocol.Command       `json:"command"`
}

func actionsAt(t *testing.T, c *lsptest.Client, uri protocol.DocumentURI, rng protocol.Range, diags []protocol.Diagnostic, only ...string) []wireAction {
	t.Helper()
	ctx := map[string]any{"diagnostics": diags}
	if len(only) > 0 {
		ctx["only"] = only
	}
	res := call(t, c, protocol.MethodTextDocumentCodeAction, map[string]any{
		"textDocument": map[string]any{"uri": uri}, "range": rng, "context": ctx,
	})
	var out []wireAction
	if err := json.Unmarshal(res, &out); err != nil {
		t.Fatalf("%v: %s", err, res)
	}
	return out
}

func withKind(actions []wireAction, kind string) []wireAction {
	var out []wireAction
	for _, a := range actions {
		if a.Kind == kind {
			out = append(out, a)
		}
	}
	return out
}

// The quick fix replaces exactly the value under the cursor, in the
// client's columns, and answers the S001 diagnostic it was asked about.
func TestRedactInPlaceQuickFix(t *testing.T) {
	for _, enc := range []string{"", "utf-8"} {
		c := start(t, enc, nil)
		uri := protocol.DocumentURI("untitled:leak")
		open(t, c, uri, leakyDoc.text)
		pos := leakyDoc.utf16
		if enc == "utf-8" {
			pos = leakyDoc.utf8
		}
		keyRange := protocol.Range{Start: pos["k0"], End: pos["k1"]}
		diag := protocol.Diagnostic{Range: keyRange, Code: "S001", Source: "rlog-ls", Severity: protocol.DiagnosticSeverityHint, Message: "m"}
		cursor := protocol.Range{Start: pos["k0"], End: pos["k0"]}
		fixes := withKind(actionsAt(t, c, uri, cursor, []protocol.Diagnostic{diag}), "quickfix")
		if len(fixes) != 1 {
			t.Fatalf("%s: %d quick fixes: %+v", enc, len(fixes), fixes)
		}
		f := fixes[0]
		edits := f.Edit.Changes[uri]
		if len(edits) != 1 || edits[0].Range != keyRange || edits[0].NewText != "[redacted:anthropic_key]" {
			t.Errorf("%s: edit %+v, want %v", enc, edits, keyRange)
		}
		if len(f.Diagnostics) != 1 || f.Diagnostics[0].Code != "S001" || !f.IsPreferred ||
			f.Title != "Redact an Anthropic API key: replace it with [redacted:anthropic_key]" {
			t.Errorf("%s: action %+v", enc, f)
		}
		// A range over the whole line offers both values; a line without
		// secrets offers none.
		line := protocol.Range{Start: protocol.Position{Line: pos["k0"].Line}, End: protocol.Position{Line: pos["k0"].Line + 1}}
		if got := withKind(actionsAt(t, c, uri, line, nil), "quickfix"); len(got) != 2 || got[1].Edit.Changes[uri][0].Range != (protocol.Range{Start: pos["p0"], End: pos["p1"]}) {
			t.Errorf("%s: whole line: %+v", enc, got)
		}
		clean := protocol.Range{Start: protocol.Position{Line: pos["k0"].Line + 1}, End: protocol.Position{Line: pos["k0"].Line + 1, Character: 5}}
		if got := withKind(actionsAt(t, c, uri, clean, nil), "quickfix"); len(got) != 0 {
			t.Errorf("%s: clean line: %+v", enc, got)
		}
	}
}

// "Write a redacted copy" is offered on saved documents only, and only when
// source actions are wanted.
func TestRedactCopyOffered(t *testing.T) {
	c := start(t, "", nil)
	file := protocol.DocumentURI("file:///work/leak.rlog")
	open(t, c, file, leakyDoc.text)
	open(t, c, "untitled:leak", leakyDoc.text)
	var none protocol.Range
	got := withKind(actionsAt(t, c, file, none, nil), "source.redact")
	if len(got) != 1 || got[0].Title != "Write a redacted copy" || got[0].Command.Command != CommandRedact {
		t.Fatalf("on a file: %+v", got)
	}
	if got := withKind(actionsAt(t, c, file, none, nil, "source"), "source.redact"); len(got) != 1 {
		t.Errorf("only=source: %+v", got)
	}
	if got := withKind(actionsAt(t, c, file, none, nil, "quickfix"), "source.redact"); len(got) != 0 {
		t.Errorf("only=quickfix: %+v", got)
	}
	if got := withKind(actionsAt(t, c, "untitled:leak", none, nil), "source.redact"); len(got) != 0 {
		t.Errorf("untitled: %+v", got)
	}
}

// The command writes NAME.redacted.rlog from the document's current text,
// unsaved edits included, shows it, and never overwrites.
func TestRedactCommandWritesCopy(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "leak.rlog")
	os.WriteFile(path, []byte("---\nformat: rlog/1\n---\nu: saved text, no secret\n"), 0o600)
	uri := fileURI(path)
	c := startIn(t, dir)
	open(t, c, uri, leakyDoc.text) // the editor's text differs from the disk's
	res, err := execute(t, c, CommandRedact, map[string]any{"uri": uri})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "leak.redacted.rlog")
	lsptest.AssertJSON(t, res, `{"uri":"`+string(fileURI(out))+`","created":true,"redacted":2}`)
	got, _ := os.ReadFile(out)
	want := strings.Replace(strings.Replace(leakyDoc.text, fakeKey, "[redacted:anthropic_key]", 1), "Tr0ub4dor3xK", "[redacted:password]", 1)
	if string(got) != want {
		t.Fatalf("copy:\n%s\nwant:\n%s", got, want)
	}
	shown := messages(c, protocol.MethodWindowShowMessage)
	if len(shown) != 1 || shown[0].Message != "rlog-ls: wrote leak.redacted.rlog: 2 values redacted (1 anthropic_key, 1 password)." {
		t.Errorf("messages %+v", shown)
	}
	if strings.Contains(shown[0].Message, "Zx9Qm2") {
		t.Error("the message leaks the key")
	}
	if len(c.Requests(protocol.MethodShowDocument)) != 1 {
		t.Error("copy not shown")
	}
	// Again: the copy exists and stays as it is; the user is told.
	os.WriteFile(out, []byte("mine"), 0o644)
	res, _ = execute(t, c, CommandRedact, uri) // the bare URI works too
	lsptest.AssertJSON(t, res, `{"created":false,"redacted":0}`)
	if b, _ := os.ReadFile(out); string(b) != "mine" {
		t.Error("existing copy overwritten")
	}
	shown = messages(c, protocol.MethodWindowShowMessage)
	if last := shown[len(shown)-1]; last.Type != protocol.MessageTypeError || !strings.Contains(last.Message, "leak.redacted.rlog exists already") {
		t.Errorf("not told: %+v", last)
	}
}

func TestRedactCommandRefusals(t *testing.T) {
	ws, elsewhere := t.TempDir(), t.TempDir()
	c := startIn(t, ws)
	lastMessage := func() protocol.ShowMessageParams {
		shown := messages(c, protocol.MethodWindowShowMessage)
		if len(shown) == 0 {
			t.Fatal("nothing shown")
		}
		return shown[len(shown)-1]
	}
	// Unsaved: nothing to write beside.
	open(t, c, "untitled:Untitled-1", leakyDoc.text)
	res, err := execute(t, c, CommandRedact, map[string]any{"uri": "untitled:Untitled-1"})
	if err != nil {
		t.Fatal(err)
	}
	lsptest.AssertJSON(t, res, `{"created":false,"redacted":0}`)
	if m := lastMessage(); !strings.Contains(m.Message, "Untitled-1 is not saved to disk") {
		t.Errorf("untitled: %+v", m)
	}
	// Nothing to redact: no copy.
	clean := filepath.Join(ws, "clean.rlog")
	os.WriteFile(clean, []byte("u: hello\n"), 0o644)
	open(t, c, fileURI(clean), "u: hello\n")
	execute(t, c, CommandRedact, fileURI(clean))
	if _, err := os.Stat(filepath.Join(ws, "clean.redacted.rlog")); err == nil {
		t.Error("a copy of a clean document was written")
	}
	if m := lastMessage(); !strings.Contains(m.Message, "no credential found in clean.rlog") {
		t.Errorf("clean: %+v", m)
	}
	// A document outside the workspace folder: not written beside it.
	outside := filepath.Join(elsewhere, "leak.rlog")
	os.WriteFile(outside, []byte(leakyDoc.text), 0o644)
	open(t, c, fileURI(outside), leakyDoc.text)
	res, _ = execute(t, c, CommandRedact, fileURI(outside))
	lsptest.AssertJSON(t, res, `{"created":false,"redacted":0}`)
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 1 {
		t.Errorf("written outside the workspace: %v", ents)
	}
	if m := lastMessage(); !strings.Contains(m.Message, "outside the workspace") {
		t.Errorf("outside: %+v", m)
	}
	// A symlink where the copy would go is not written through.
	inside := filepath.Join(ws, "leak.rlog")
	os.WriteFile(inside, []byte(leakyDoc.text), 0o644)
	victim := filepath.Join(elsewhere, "victim")
	os.WriteFile(victim, []byte("keep"), 0o644)
	if err := os.Symlink(victim, filepath.Join(ws, "leak.redacted.rlog")); err != nil {
		t.Skip("no symlinks:", err)
	}
	open(t, c, fileURI(inside), leakyDoc.text)
	execute(t, c, CommandRedact, fileURI(inside))
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Error("written through a symlink")
	}
	// A folder of the workspace that is a symlink to elsewhere is outside.
	if err := os.Symlink(elsewhere, filepath.Join(ws, "linked")); err != nil {
		t.Fatal(err)
	}
	viaLink := filepath.Join(ws, "linked", "leak.rlog")
	open(t, c, fileURI(viaLink), leakyDoc.text)
	execute(t, c, CommandRedact, fileURI(viaLink))
	if _, err := os.Stat(filepath.Join(elsewhere, "leak.redacted.rlog")); err == nil {
		t.Error("written outside through a symlinked folder")
	}
	// Malformed arguments are InvalidParams.
	for _, bad := range []any{42, map[string]any{"uri": ""}, []string{"x"}} {
		if _, err := execute(t, c, CommandRedact, bad); err == nil || !strings.Contains(err.Error(), "needs") {
			t.Errorf("%v: %v", bad, err)
		}
	}
}

// Conversions obey the workspace too: a document outside the workspace
// folders is not converted beside itself, whichever way the file would be
// made.
func TestConvertOutsideWorkspaceRefused(t *testing.T) {
	ws, elsewhere := t.TempDir(), t.TempDir()
	outside := filepath.Join(elsewhere, "session.rlog")
	os.WriteFile(outside, []byte(sessionDoc), 0o644)
	for _, caps := range []map[string]any{nil, createCaps} {
		c := lsptest.Start(t, func(ctx context.Context, rwc io.ReadWriteCloser) int {
			return lsp.Serve(ctx, rwc, lsp.Options[Doc]{Features: Features(), Name: "rlog-ls", Version: "test"})
		})
		params := lsptest.DefaultInitializeParams()
		params["workspaceFolders"] = []map[string]any{{"uri": fileURI(ws), "name": "ws"}}
		if caps != nil {
			params["capabilities"] = caps
		}
		c.Initialize(params)
		open(t, c, fileURI(outside), sessionDoc)
		res, err := execute(t, c, CommandConvert, map[string]any{"uri": fileURI(outside), "format": "atif"})
		if err != nil {
			t.Fatal(err)
		}
		lsptest.AssertJSON(t, res, `{"created":false}`)
		if ents, _ := os.ReadDir(elsewhere); len(ents) != 1 {
			t.Errorf("written outside the workspace: %v", ents)
		}
		if len(c.Requests(protocol.MethodWorkspaceApplyEdit)) != 0 {
			t.Error("asked the editor to create a file outside the workspace")
		}
		shown := messages(c, protocol.MethodWindowShowMessage)
		if len(shown) != 1 || !strings.Contains(shown[0].Message, "outside the workspace") {
			t.Errorf("not told: %+v", shown)
		}
	}
}
