package rlog

import (
	"context"
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

// A log with two credentials, the key after an emoji.
var leakyDoc = mark("---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\nrunner: ci\n---\n" +
	"u: 😀 my key " + fakeKey + " and password=Tr0ub4dor3xK\n" +
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
