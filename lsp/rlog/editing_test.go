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

func serveRlog(ctx context.Context, rwc io.ReadWriteCloser) int {
	return lsp.Serve(ctx, rwc, lsp.Options[Doc]{Features: Features()})
}

// editDoc has emoji and CJK before every place the tests look at, so UTF-16
// and UTF-8 columns differ from each other and from characters.
var editDoc = mark("---\n" +
	"format: rlog/1\n" +
	"id: edit-1\n" +
	"repo_sha: abcdef1\n" +
	"---\n" +
	"u: 😀 漢字\n" +
	"t!:Read id=⟦def⟧r1 file_path=⟦path⟧src/漢字.go⟦pathEnd⟧ → [running]\n" +
	"t!:Bash id=b1 cmd=ls → [running]\n" +
	"o: 😀 id=⟦use⟧r1 → [ok] see ⟦url⟧https://example.com/😀⟦urlEnd⟧ and ⟦blob⟧@blob sha256=0123abcd⟦blobEnd⟧\n" +
	"o: 漢字 id=⟦typing⟧\n" +
	"a: 😀 ⟦prose⟧hello\n")

func positions(enc string) map[string]protocol.Position {
	if enc == "utf-8" {
		return editDoc.utf8
	}
	return editDoc.utf16
}

type completionList struct {
	IsIncomplete bool `json:"isIncomplete"`
	Items        []struct {
		Label            string            `json:"label"`
		Kind             int               `json:"kind"`
		Detail           string            `json:"detail"`
		SortText         string            `json:"sortText"`
		InsertTextFormat int               `json:"insertTextFormat"`
		TextEdit         protocol.TextEdit `json:"textEdit"`
	} `json:"items"`
}

func TestCompletionUTF16AndUTF8(t *testing.T) {
	for _, enc := range []string{"", "utf-8"} {
		c := start(t, enc, nil)
		pos := positions(enc)
		open(t, c, testURI, editDoc.text)
		var list completionList
		res := call(t, c, protocol.MethodTextDocumentCompletion, map[string]any{
			"textDocument": map[string]any{"uri": testURI}, "position": pos["typing"],
			"context": map[string]any{"triggerKind": 2, "triggerCharacter": "="}})
		if err := json.Unmarshal(res, &list); err != nil {
			t.Fatal(err)
		}
		// The running call first, then the completed one; the edit is
		// exactly at the cursor, in the negotiated encoding.
		at := protocol.Range{Start: pos["typing"], End: pos["typing"]}
		if !list.IsIncomplete || len(list.Items) != 2 || list.Items[0].Label != "b1" || list.Items[1].Label != "r1" ||
			list.Items[0].TextEdit.Range != at || list.Items[0].TextEdit.NewText != "b1" ||
			list.Items[0].Kind != int(protocol.CompletionItemKindReference) || list.Items[0].SortText >= list.Items[1].SortText ||
			list.Items[0].Detail != "t!:Bash ls, line 8, no result yet" {
			t.Fatalf("%q: %s", enc, res)
		}
		// Keys in prose only when asked for.
		prose := map[string]any{"textDocument": map[string]any{"uri": testURI}, "position": pos["prose"]}
		prose["context"] = map[string]any{"triggerKind": 1}
		if err := json.Unmarshal(call(t, c, protocol.MethodTextDocumentCompletion, prose), &list); err != nil || len(list.Items) == 0 {
			t.Fatalf("%q: keys when invoked: %v %+v", enc, err, list)
		}
		prose["context"] = map[string]any{"triggerKind": 3}
		if err := json.Unmarshal(call(t, c, protocol.MethodTextDocumentCompletion, prose), &list); err != nil || len(list.Items) != 0 {
			t.Fatalf("%q: keys while typing prose: %v %+v", enc, err, list)
		}
	}
}

// The t!: and o: snippet is a snippet for clients that take them, plain
// text with the placeholders' defaults for the others.
func TestCompletionSnippet(t *testing.T) {
	text := editDoc.text + "t!:"
	end := protocol.Position{Line: uint32(strings.Count(text, "\n")), Character: 3}
	for _, snippets := range []bool{true, false} {
		caps := map[string]any{"textDocument": map[string]any{"completion": map[string]any{"completionItem": map[string]any{"snippetSupport": snippets}}}}
		c := start(t, "", caps)
		open(t, c, testURI, text)
		var list completionList
		_ = json.Unmarshal(call(t, c, protocol.MethodTextDocumentCompletion, map[string]any{
			"textDocument": map[string]any{"uri": testURI}, "position": end}), &list)
		last := list.Items[len(list.Items)-1]
		if list.Items[0].Label != "Bash" || last.Kind != int(protocol.CompletionItemKindSnippet) ||
			last.TextEdit.Range != (protocol.Range{Start: protocol.Position{Line: end.Line}, End: end}) {
			t.Fatalf("snippets %v: %+v", snippets, list.Items)
		}
		got := last.TextEdit.NewText
		id := strings.Fields(got[strings.Index(got, " id=")+4:])[0]
		want := "t!:${1:Tool} id=" + id + " ${2:file_path=${3:path}} → [running]\no: id=" + id + " → [${4:ok}] $0"
		format := int(protocol.InsertTextFormatSnippet)
		if !snippets {
			want, format = "t!:Tool id="+id+" file_path=path → [running]\no: id="+id+" → [ok] ", 0
		}
		if got != want || last.InsertTextFormat != format {
			t.Fatalf("snippets %v: %q (format %d), want %q (format %d)", snippets, got, last.InsertTextFormat, want, format)
		}
	}
}

func TestRenameUTF16AndUTF8(t *testing.T) {
	for _, enc := range []string{"", "utf-8"} {
		c := start(t, enc, map[string]any{"textDocument": map[string]any{"rename": map[string]any{"prepareSupport": true}}})
		pos := positions(enc)
		open(t, c, testURI, editDoc.text)
		idRange := func(name string) protocol.Range {
			return protocol.Range{Start: pos[name], End: protocol.Position{Line: pos[name].Line, Character: pos[name].Character + 2}}
		}
		res := call(t, c, protocol.MethodTextDocumentPrepareRename, at(testURI, pos["use"]))
		want, _ := json.Marshal(prepareRenameResult{Range: idRange("use"), Placeholder: "r1"})
		lsptest.AssertJSON(t, res, string(want))
		var edit protocol.WorkspaceEdit
		if err := json.Unmarshal(call(t, c, protocol.MethodTextDocumentRename, map[string]any{
			"textDocument": map[string]any{"uri": testURI}, "position": pos["def"], "newName": "read_1"}), &edit); err != nil {
			t.Fatal(err)
		}
		edits := edit.Changes[testURI]
		if len(edits) != 2 || edits[0].Range != idRange("def") || edits[1].Range != idRange("use") || edits[0].NewText != "read_1" {
			t.Fatalf("%q: rename edits %+v", enc, edit)
		}
		// Anything but a call id is refused, with the reason; so is a bad name.
		f := c.RawRequest(`{"jsonrpc":"2.0","id":9101,"method":"textDocument/prepareRename","params":{"textDocument":{"uri":"file:///work/session.rlog"},"position":{"line":5,"character":4}}}`)
		lsptest.AssertJSON(t, f.Body, `{"jsonrpc":"2.0","id":9101,"error":{"code":-32803,"message":"only a call id can be renamed: put the cursor on the id= of a t!:, t:, o:, x: or t~: line"}}`)
		var fail json.RawMessage
		err := c.Call(protocol.MethodTextDocumentRename, map[string]any{
			"textDocument": map[string]any{"uri": testURI}, "position": pos["def"], "newName": "b1"}, &fail)
		if err == nil || !strings.Contains(err.Error(), "call id b1 is already used on line 8") {
			t.Fatalf("%q: rename to a used id: %v", enc, err)
		}
	}
}

func TestRenameCapability(t *testing.T) {
	for _, tc := range []struct {
		caps map[string]any
		want string
	}{
		{map[string]any{"textDocument": map[string]any{"rename": map[string]any{"prepareSupport": true}}}, `{"prepareProvider":true}`},
		{nil, `true`},
	} {
		c := lsptest.Start(t, serveRlog)
		params := lsptest.DefaultInitializeParams()
		if tc.caps != nil {
			params["capabilities"] = tc.caps
		}
		var res struct {
			Capabilities struct {
				RenameProvider       json.RawMessage `json:"renameProvider"`
				CompletionProvider   json.RawMessage `json:"completionProvider"`
				DocumentLinkProvider json.RawMessage `json:"documentLinkProvider"`
			} `json:"capabilities"`
		}
		if err := json.Unmarshal(c.Initialize(params), &res); err != nil {
			t.Fatal(err)
		}
		lsptest.AssertJSON(t, res.Capabilities.RenameProvider, tc.want)
		lsptest.AssertJSON(t, res.Capabilities.CompletionProvider, `{"triggerCharacters":["=","@",":"]}`)
		lsptest.AssertJSON(t, res.Capabilities.DocumentLinkProvider, `{}`)
	}
}

// Links go to files that exist in the workspace (the header's cwd maps
// a recorded absolute path into it), to a blob stored beside the log, and
// to URLs; a path to nothing is not a link.
func TestDocumentLinks(t *testing.T) {
	ws := t.TempDir()
	for _, f := range []string{"src/漢字.go", "logs/.bbox-blobs/0123abcd"} {
		p := filepath.Join(ws, filepath.FromSlash(f))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	logURI := fileURI(filepath.Join(ws, "logs", "s.rlog"))
	// As recorded in a container whose working folder was /workspace.
	recorded := strings.Replace(editDoc.text, "id: edit-1\n", "id: edit-1\ncwd: /workspace\n", 1)
	recorded = strings.Replace(recorded, "file_path=src/漢字.go", "file_path=/workspace/src/漢字.go", 1)
	recorded += "t!:Read id=m file_path=src/missing.go → [running]\n"
	for _, enc := range []string{"", "utf-8"} {
		c := lsptest.Start(t, serveRlog)
		params := lsptest.DefaultInitializeParams()
		params["rootUri"] = string(fileURI(ws))
		if enc != "" {
			params["capabilities"] = map[string]any{"general": map[string]any{"positionEncodings": []string{enc}}}
		}
		c.Initialize(params)
		open(t, c, logURI, recorded)
		var links []protocol.DocumentLink
		if err := json.Unmarshal(call(t, c, protocol.MethodTextDocumentDocumentLink, map[string]any{"textDocument": map[string]any{"uri": logURI}}), &links); err != nil {
			t.Fatal(err)
		}
		pos := positions(enc)
		shift := func(name string, by int) protocol.Position { // below the cwd: line
			p := pos[name]
			return protocol.Position{Line: p.Line + 1, Character: p.Character + uint32(by)}
		}
		want := []protocol.DocumentLink{
			{Range: protocol.Range{Start: shift("path", 0), End: shift("pathEnd", len("/workspace/"))},
				Target: fileURI(filepath.Join(ws, "src", "漢字.go")), Tooltip: "Open src/漢字.go"},
			{Range: protocol.Range{Start: shift("url", 0), End: shift("urlEnd", 0)}, Target: "https://example.com/😀"},
			{Range: protocol.Range{Start: shift("blob", 0), End: shift("blobEnd", 0)},
				Target: fileURI(filepath.Join(ws, "logs", ".bbox-blobs", "0123abcd")), Tooltip: "Open the blob 0123abcd"},
		}
		got, _ := json.Marshal(links)
		exp, _ := json.Marshal(want)
		if string(got) != string(exp) {
			t.Fatalf("%q: links\n got %s\nwant %s", enc, got, exp)
		}
	}
}
