package lsp

import (
	"context"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

func TestIncrementalSync(t *testing.T) {
	c := startInitialized(t)
	const uri = "file:///s.rlog"
	openDoc(c, uri, 1, "héllo 😀 world\r\nline two\rline three\n")
	change(c, uri, 2, ContentChange{Range: rng(0, 9, 0, 10), Text: jsonString("WORLD")})  // 😀 is 2 units
	change(c, uri, 3, ContentChange{Range: rng(1, 5, 2, 4), Text: jsonString("2, line")}) // across a lone CR
	if got := docText(t, c, uri); got.Version != 3 || got.Text != "héllo 😀 WORLDorld\r\nline 2, line three\n" {
		t.Fatalf("got %+v", got)
	}
}

// A change without a range replaces the document (pitfall 1: protocol's
// own type would read it as an insertion at 0:0 and duplicate the text).
func TestWholeDocumentChange(t *testing.T) {
	c := startInitialized(t)
	const uri = "file:///w.rlog"
	openDoc(c, uri, 1, "old text")
	c.SendRaw(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///w.rlog","version":2},"contentChanges":[{"text":"new text"}]}}`)
	if got := docText(t, c, uri); got.Text != "new text" || got.Version != 2 {
		t.Fatalf("got %+v", got)
	}
}

func TestChangeOutsideTheDocumentIsClamped(t *testing.T) {
	c := startInitialized(t)
	const uri = "file:///c.rlog"
	openDoc(c, uri, 1, "ab\ncd")
	change(c, uri, 2, ContentChange{Range: rng(7, 3, 99, 99), Text: jsonString("!")})
	change(c, uri, 3, ContentChange{Range: rng(0, 50, 0, 60), Text: jsonString("?")})
	if got := docText(t, c, uri); got.Text != "ab?\ncd!" {
		t.Fatalf("got %q", got.Text)
	}
}

func TestChangeOfUnopenedDocumentIsIgnored(t *testing.T) {
	c := startInitialized(t)
	change(c, "file:///never.rlog", 2, ContentChange{Text: jsonString("x")})
	resp := c.RawRequest(`{"jsonrpc":"2.0","id":1000,"method":"toy/text","params":{"textDocument":{"uri":"file:///never.rlog"}}}`)
	lsptest.AssertJSON(t, resp.Body, `{"jsonrpc":"2.0","id":1000,"result":null}`)
}

func TestSecondOpenReplaces(t *testing.T) {
	c := startInitialized(t)
	openDoc(c, "file:///d.rlog", 4, "first")
	openDoc(c, "file:///d.rlog", 1, "second")
	if got := docText(t, c, "file:///d.rlog"); got.Text != "second" || got.Version != 1 {
		t.Fatalf("got %+v", got)
	}
}

// A version that does not increase is applied anyway (and logged).
func TestNonIncreasingVersionStillApplies(t *testing.T) {
	c := startInitialized(t)
	openDoc(c, "file:///v.rlog", 5, "a")
	change(c, "file:///v.rlog", 5, ContentChange{Range: rng(0, 1, 0, 1), Text: jsonString("b")})
	change(c, "file:///v.rlog", 2, ContentChange{Range: rng(0, 2, 0, 2), Text: jsonString("c")})
	if got := docText(t, c, "file:///v.rlog"); got.Text != "abc" || got.Version != 2 {
		t.Fatalf("got %+v", got)
	}
}

// URIs are opaque keys (pitfall 14: uri.Filename panics on them).
func TestNonFileURIs(t *testing.T) {
	c := startInitialized(t)
	for _, uri := range []protocol.DocumentURI{
		"untitled:Untitled-1",
		"git:/home/u/s.rlog?%7B%22ref%22%3A%22HEAD%22%7D",
		"vscode-notebook-cell:/n.ipynb#W0sZmlsZQ%3D%3D",
		"file:///C%3A/Users/u/s.rlog",
		"weird",
	} {
		openDoc(c, uri, 1, "TODO")
		p := c.WaitDiagnostics(uri, lsptest.AtVersion(1))
		if len(p.Diagnostics) != 1 {
			t.Errorf("%s: %s", uri, p.Raw)
		}
		change(c, uri, 2, ContentChange{Range: rng(0, 0, 0, 4), Text: jsonString("done")})
		if got := docText(t, c, uri); got.Text != "done" {
			t.Errorf("%s: %+v", uri, got)
		}
		closeDoc(c, uri)
		c.WaitDiagnostics(uri, lsptest.Cleared)
	}
}

// A 10 MB line, edited at its end in UTF-16 columns.
func TestHugeLine(t *testing.T) {
	c := startInitialized(t)
	size := 10 << 20
	if raceEnabled {
		size = 1 << 20
	}
	line := strings.Repeat("é😀", 1000) + strings.Repeat("x", size)
	col := uint32(3000 + size) // é is 1 unit, 😀 2
	openDoc(c, "file:///big.rlog", 1, line+"TODO")
	p := c.WaitDiagnostics("file:///big.rlog", lsptest.AtVersion(1))
	if len(p.Diagnostics) != 1 || p.Diagnostics[0].Range.Start != (protocol.Position{Line: 0, Character: col}) {
		t.Fatalf("got %+v", p.Diagnostics)
	}
	change(c, "file:///big.rlog", 2, ContentChange{Range: rng(0, col, 0, col+4), Text: jsonString("done")})
	p = c.WaitDiagnostics("file:///big.rlog", lsptest.AtVersion(2))
	if len(p.Diagnostics) != 0 {
		t.Fatalf("got %+v", p.Diagnostics)
	}
}

// Invalid UTF-8 inside the JSON of a didOpen is read, not fatal; each bad
// byte is one column.
func TestInvalidUTF8InDocument(t *testing.T) {
	c := startInitialized(t)
	c.SendRaw("{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":\"file:///bad.rlog\",\"languageId\":\"rlog\",\"version\":1,\"text\":\"a\xff\xfeTODO\"}}}")
	p := c.WaitDiagnostics("file:///bad.rlog", lsptest.AtVersion(1))
	if len(p.Diagnostics) != 1 {
		t.Fatalf("got %s", p.Raw)
	}
	if start := p.Diagnostics[0].Range.Start.Character; start != 3 && start != 2 {
		// segmentio may pass the bytes through (3 columns) or replace the
		// pair with one U+FFFD (2); both are consistent texts.
		t.Fatalf("TODO at column %d", start)
	}
	alive(t, c)
}

// With UTF-8 negotiated, columns are bytes.
func TestUTF8Encoding(t *testing.T) {
	c := startServer(t, testOptions(t))
	c.Initialize(initParams(noDebounce, "utf-8", "utf-16"))
	openDoc(c, "file:///u.rlog", 1, "é😀TODO\r\nFIXME")
	p := c.WaitDiagnostics("file:///u.rlog", lsptest.AtVersion(1))
	lsptest.AssertJSON(t, p.Raw, `{"uri":"file:///u.rlog","version":1,"diagnostics":[
		{"range":{"start":{"line":0,"character":6},"end":{"line":0,"character":10}},"severity":2,"code":"todo","source":"toy","message":"TODO left in the text"},
		{"range":{"start":{"line":1,"character":0},"end":{"line":1,"character":5}},"severity":1,"code":"fixme","source":"toy","message":"FIXME left in the text"}]}`)
	change(c, "file:///u.rlog", 2, ContentChange{Range: rng(0, 2, 0, 6), Text: jsonString("")}) // byte columns: delete 😀
	if got := docText(t, c, "file:///u.rlog"); got.Text != "éTODO\r\nFIXME" {
		t.Fatalf("got %q", got.Text)
	}
}

// The typed dispatcher of the harness drives the same server.
func TestTypedClient(t *testing.T) {
	c := startServer(t, testOptions(t))
	ctx := context.Background()
	if _, err := c.Server.Initialize(ctx, &protocol.InitializeParams{
		InitializationOptions: noDebounce,
	}); err != nil {
		t.Fatal(err)
	}
	if err := c.Server.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: "untitled:typed", LanguageID: "rlog", Version: 1, Text: "FIXME",
	}}); err != nil {
		t.Fatal(err)
	}
	if p := c.WaitDiagnostics("untitled:typed", nil); len(p.Diagnostics) != 1 {
		t.Fatalf("got %s", p.Raw)
	}
	if err := c.Server.DidClose(ctx, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: "untitled:typed"}}); err != nil {
		t.Fatal(err)
	}
	c.WaitDiagnostics("untitled:typed", lsptest.Cleared)
	if err := c.Server.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Server.Exit(ctx); err != nil {
		t.Fatal(err)
	}
	if code := c.ExitCode(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

// The harness's document helpers speak the same protocol.
func TestHarnessDocumentHelpers(t *testing.T) {
	c := startInitialized(t)
	c.Open("untitled:h", 1, "abc\ndef")
	c.Change("untitled:h", 2, lsptest.Change{Range: lsptest.Span(1, 0, 1, 1), Text: "D"}, lsptest.Change{Range: lsptest.Span(0, 3, 0, 3), Text: "!"})
	if got := docText(t, c, "untitled:h"); got.Text != "abc!\nDef" || got.Version != 2 {
		t.Fatalf("got %+v", got)
	}
	c.Change("untitled:h", 3, lsptest.Change{Text: "whole"})
	if got := docText(t, c, "untitled:h"); got.Text != "whole" {
		t.Fatalf("got %+v", got)
	}
	c.Close("untitled:h")
	c.WaitDiagnostics("untitled:h", lsptest.Cleared)
}
