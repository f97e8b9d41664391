package rlog

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	segjson "github.com/segmentio/encoding/json"
	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/lsp"
	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

// markedDoc is a test document with ⟦name⟧ cursor markers, stripped out,
// and each marker's position in UTF-16 and UTF-8 columns.
type markedDoc struct {
	text   string
	utf16  map[string]protocol.Position
	utf8   map[string]protocol.Position
	offset map[string]int
}

func mark(src string) markedDoc {
	d := markedDoc{utf16: map[string]protocol.Position{}, utf8: map[string]protocol.Position{}, offset: map[string]int{}}
	var b strings.Builder
	line, col16, col8 := 0, 0, 0
	for i := 0; i < len(src); {
		if strings.HasPrefix(src[i:], "⟦") {
			end := strings.Index(src[i:], "⟧")
			name := src[i+len("⟦") : i+end]
			d.utf16[name] = protocol.Position{Line: uint32(line), Character: uint32(col16)}
			d.utf8[name] = protocol.Position{Line: uint32(line), Character: uint32(col8)}
			d.offset[name] = b.Len()
			i += end + len("⟧")
			continue
		}
		r, size := utf8.DecodeRuneInString(src[i:])
		b.WriteString(src[i : i+size])
		i += size
		if r == '\n' {
			line, col16, col8 = line+1, 0, 0
			continue
		}
		col16 += len(utf16.Encode([]rune{r}))
		col8 += size
	}
	d.text = b.String()
	return d
}

const testURI = protocol.DocumentURI("file:///work/session.rlog")

// The document has emoji and CJK before the ids so UTF-16 and UTF-8
// columns differ, and CRLF on one line.
var doc = mark("---\n" +
	"format: rlog/1\n" +
	"⟦idkey⟧id: sess-1\n" +
	"repo_sha: abc\n" +
	"---\n" +
	"@start id=s1 ts=2025-12-19T20:29:02Z\n" +
	"@phase ⟦phase⟧explore\r\n" +
	"u: 😀 find the bug 漢字\n" +
	"t!:Read ⟦def⟧id=c1 file_path=src/a.rs → [running]\n" +
	"  continued\n" +
	"  again\n" +
	"o: 😀 id=⟦use⟧c1 → [ok] fine\n" +
	"o: 漢字 id=⟦unknown⟧zz → [ok]\n" +
	"# one\n" +
	"# two\n" +
	"a: done\n")

func start(t *testing.T, enc string, caps map[string]any) *lsptest.Client {
	t.Helper()
	c := lsptest.Start(t, func(ctx context.Context, rwc io.ReadWriteCloser) int {
		return lsp.Serve(ctx, rwc, lsp.Options[Doc]{Features: Features(), Name: "rlog-ls", Version: "test"})
	})
	params := lsptest.DefaultInitializeParams()
	if caps == nil {
		caps = map[string]any{}
	}
	if enc != "" {
		caps["general"] = map[string]any{"positionEncodings": []string{enc}}
	}
	params["capabilities"] = caps
	c.Initialize(params)
	return c
}

func open(t *testing.T, c *lsptest.Client, uri protocol.DocumentURI, text string) {
	t.Helper()
	c.Notify(protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: uri, LanguageID: "rlog", Version: 1, Text: text},
	})
}

func call(t *testing.T, c *lsptest.Client, method string, params any) json.RawMessage {
	t.Helper()
	var res json.RawMessage
	if err := c.Call(method, params, &res); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return res
}

func at(uri protocol.DocumentURI, p protocol.Position) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": uri}, "position": p}
}

func TestDiagnosticsWireShape(t *testing.T) {
	c := start(t, "", nil)
	open(t, c, testURI, doc.text)
	p := c.WaitDiagnostics(testURI, lsptest.AtVersion(1))
	lsptest.AssertJSON(t, p.Raw, `{"uri":"file:///work/session.rlog","version":1,"diagnostics":[
	 {"range":{"start":{"line":3,"character":10},"end":{"line":3,"character":13}},"severity":2,"code":"W009",
	  "codeDescription":{"href":"https://github.com/rlog-ls/rlog-ls/blob/main/docs/diagnostics.md#w009"},"source":"rlog-ls",
	  "message":"repo_sha 'abc' has unusual length (expected 6-40 hex chars)"},
	 {"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":3}},"severity":3,"code":"I004",
	  "codeDescription":{"href":"https://github.com/rlog-ls/rlog-ls/blob/main/docs/diagnostics.md#i004"},"source":"rlog-ls",
	  "message":"No runner specified (recommended for replay)"},
	 {"range":{"start":{"line":12,"character":9},"end":{"line":12,"character":11}},"severity":2,"code":"W002",
	  "codeDescription":{"href":"https://github.com/rlog-ls/rlog-ls/blob/main/docs/diagnostics.md#w002"},"source":"rlog-ls",
	  "message":"Observation references unknown call id: zz"},
	 {"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":3}},"severity":3,"code":"I002",
	  "codeDescription":{"href":"https://github.com/rlog-ls/rlog-ls/blob/main/docs/diagnostics.md#i002"},"source":"rlog-ls",
	  "message":"Session has @start but no @end",
	  "relatedInformation":[{"location":{"uri":"file:///work/session.rlog","range":{"start":{"line":5,"character":0},"end":{"line":5,"character":36}}},"message":"the session starts here"}]}
	]}`)
	if got := p.Diagnostics[2].Range.Start; got != doc.utf16["unknown"] {
		t.Fatalf("W002 at %v, want the marker %v", got, doc.utf16["unknown"])
	}
}

func TestDiagnosticsFollowEditsAndClose(t *testing.T) {
	c := start(t, "", nil)
	open(t, c, testURI, doc.text)
	c.WaitDiagnostics(testURI, lsptest.AtVersion(1))
	// Fix the unknown id by renaming it to the started call: W002 goes away.
	u := doc.utf16["unknown"]
	c.Notify(protocol.MethodTextDocumentDidChange, map[string]any{
		"textDocument": map[string]any{"uri": testURI, "version": 2},
		"contentChanges": []any{map[string]any{
			"range": protocol.Range{Start: u, End: protocol.Position{Line: u.Line, Character: u.Character + 2}},
			"text":  "c1",
		}},
	})
	p := c.WaitDiagnostics(testURI, lsptest.AtVersion(2))
	for _, d := range p.Diagnostics {
		if d.Code == "W002" {
			t.Fatalf("W002 still published after the fix: %+v", p.Diagnostics)
		}
	}
	c.Notify(protocol.MethodTextDocumentDidClose, map[string]any{"textDocument": map[string]any{"uri": testURI}})
	cl := c.WaitDiagnostics(testURI, lsptest.Cleared)
	lsptest.AssertJSON(t, cl.Raw, `{"uri":"file:///work/session.rlog","diagnostics":[]}`)
}

func TestDisabledCodesSetting(t *testing.T) {
	c := lsptest.Start(t, func(ctx context.Context, rwc io.ReadWriteCloser) int {
		return lsp.Serve(ctx, rwc, lsp.Options[Doc]{Features: Features()})
	})
	params := lsptest.DefaultInitializeParams()
	params["initializationOptions"] = map[string]any{"disabledCodes": []string{"I004", "I002"}}
	c.Initialize(params)
	open(t, c, testURI, doc.text)
	p := c.WaitDiagnostics(testURI, lsptest.AtVersion(1))
	if len(p.Diagnostics) != 2 || p.Diagnostics[0].Code != "W009" || p.Diagnostics[1].Code != "W002" {
		t.Fatalf("%+v", p.Diagnostics)
	}
}

// TestSeveritySetting: rlog.severity changes the severity the editor shows,
// from initializationOptions and again when the settings change.
func TestSeveritySetting(t *testing.T) {
	c := lsptest.Start(t, func(ctx context.Context, rwc io.ReadWriteCloser) int {
		return lsp.Serve(ctx, rwc, lsp.Options[Doc]{Features: Features()})
	})
	params := lsptest.DefaultInitializeParams()
	params["initializationOptions"] = map[string]any{"severity": map[string]string{"W002": "error", "w009": "Hint"}}
	c.Initialize(params)
	open(t, c, testURI, doc.text)
	severities := func(p lsptest.Published) map[string]protocol.DiagnosticSeverity {
		out := map[string]protocol.DiagnosticSeverity{}
		for _, d := range p.Diagnostics {
			out[fmt.Sprint(d.Code)] = d.Severity
		}
		return out
	}
	got := severities(c.WaitDiagnostics(testURI, lsptest.AtVersion(1)))
	if got["W002"] != protocol.DiagnosticSeverityError || got["W009"] != protocol.DiagnosticSeverityHint ||
		got["I004"] != protocol.DiagnosticSeverityInformation {
		t.Fatalf("from initializationOptions: %v", got)
	}
	c.ForgetFrames()
	c.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"rlog": map[string]any{
		"severity": map[string]string{"W002": "information"}}}})
	p := c.WaitDiagnostics(testURI, func(p lsptest.Published) bool { return severities(p)["W002"] == protocol.DiagnosticSeverityInformation })
	if got := severities(p); got["W009"] != protocol.DiagnosticSeverityWarning {
		t.Fatalf("after the change, W009 is back to its default: %v", got)
	}
}

// TestBinaryDocumentIsOneDiagnostic: a binary file opened as rlog gets the
// one E007 diagnostic check gives, not one per run of bytes.
func TestBinaryDocumentIsOneDiagnostic(t *testing.T) {
	c := start(t, "", nil)
	var junk strings.Builder
	for i := range 3000 {
		junk.WriteByte(byte(i * 7))
		if i%13 == 0 {
			junk.WriteString("\x00\n")
		}
	}
	open(t, c, testURI, junk.String())
	p := c.WaitDiagnostics(testURI, lsptest.AtVersion(1))
	if len(p.Diagnostics) != 1 || p.Diagnostics[0].Code != "E007" || p.Diagnostics[0].Severity != protocol.DiagnosticSeverityError {
		t.Fatalf("%d diagnostics: %+v", len(p.Diagnostics), p.Diagnostics[:min(len(p.Diagnostics), 3)])
	}
}

func TestHoverWireShape(t *testing.T) {
	c := start(t, "", nil)
	open(t, c, testURI, doc.text)
	res := call(t, c, protocol.MethodTextDocumentHover, at(testURI, doc.utf16["use"]))
	lsptest.AssertJSON(t, res, `{"contents":{"kind":"markdown","value":"**Call `+"`c1`"+`**: `+"`t!:Read`"+` src/a.rs, started on line 9.\n\nReferred to by 1 other line; completed on line 12: [ok] fine."},
	  "range":{"start":{"line":11,"character":6},"end":{"line":11,"character":11}}}`)
	// Nothing to explain under the cursor (prose): "result": null on the wire.
	f := c.RawRequest(`{"jsonrpc":"2.0","id":9001,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///work/session.rlog"},"position":{"line":7,"character":8}}}`)
	lsptest.AssertJSON(t, f.Body, `{"jsonrpc":"2.0","id":9001,"result":null}`)
	// A character past the end of a line is clamped to the line's end.
	res = call(t, c, protocol.MethodTextDocumentHover, at(testURI, protocol.Position{Line: 4, Character: 100}))
	if !strings.Contains(string(res), "End of the YAML header") {
		t.Fatalf("hover past the end of a line: %s", res)
	}
	// Positions past the end of the document are clamped, never an error.
	f = c.RawRequest(`{"jsonrpc":"2.0","id":9002,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///work/session.rlog"},"position":{"line":9999,"character":9999}}}`)
	lsptest.AssertJSON(t, f.Body, `{"jsonrpc":"2.0","id":9002,"result":null}`)
}

func TestNavigationUTF16AndUTF8(t *testing.T) {
	for _, enc := range []string{"", "utf-8"} {
		c := start(t, enc, nil)
		pos := doc.utf16
		if enc == "utf-8" {
			pos = doc.utf8
		}
		open(t, c, testURI, doc.text)
		var locs []protocol.Location
		if err := json.Unmarshal(call(t, c, protocol.MethodTextDocumentDefinition, at(testURI, pos["use"])), &locs); err != nil {
			t.Fatal(err)
		}
		defStart := protocol.Position{Line: pos["def"].Line, Character: pos["def"].Character + 3}
		if len(locs) != 1 || locs[0].Range.Start != defStart || locs[0].URI != testURI {
			t.Fatalf("%q: definition %+v, want %v", enc, locs, defStart)
		}
		refs := call(t, c, protocol.MethodTextDocumentReferences, map[string]any{
			"textDocument": map[string]any{"uri": testURI}, "position": pos["def"], "context": map[string]any{"includeDeclaration": false}})
		useRange := protocol.Range{Start: pos["use"], End: protocol.Position{Line: pos["use"].Line, Character: pos["use"].Character + 2}}
		want, _ := json.Marshal([]protocol.Location{{URI: testURI, Range: useRange}})
		lsptest.AssertJSON(t, refs, string(want))
		var hl []protocol.DocumentHighlight
		_ = json.Unmarshal(call(t, c, protocol.MethodTextDocumentDocumentHighlight, at(testURI, pos["use"])), &hl)
		if len(hl) != 2 || hl[0].Kind != protocol.DocumentHighlightKindWrite || hl[1].Kind != protocol.DocumentHighlightKindRead || hl[1].Range != useRange {
			t.Fatalf("%q: highlights %+v", enc, hl)
		}
		// Not on an id: an empty list.
		if res := call(t, c, protocol.MethodTextDocumentDefinition, at(testURI, doc.utf16["idkey"])); string(res) != "[]" {
			t.Fatalf("definition off an id: %s", res)
		}
	}
}

func TestFoldingWireShape(t *testing.T) {
	c := start(t, "", nil)
	open(t, c, testURI, doc.text)
	res := call(t, c, protocol.MethodTextDocumentFoldingRange, map[string]any{"textDocument": map[string]any{"uri": testURI}})
	lsptest.AssertJSON(t, res, `[
	  {"startLine":0,"endLine":4,"kind":"region"},
	  {"startLine":6,"endLine":15,"kind":"region"},
	  {"startLine":8,"endLine":10,"kind":"region"},
	  {"startLine":13,"endLine":14,"kind":"comment"}]`)
	// The client's rangeLimit is respected.
	c2 := start(t, "", map[string]any{"textDocument": map[string]any{"foldingRange": map[string]any{"rangeLimit": 2}}})
	open(t, c2, testURI, doc.text)
	var folds []protocol.FoldingRange
	_ = json.Unmarshal(call(t, c2, protocol.MethodTextDocumentFoldingRange, map[string]any{"textDocument": map[string]any{"uri": testURI}}), &folds)
	if len(folds) != 2 {
		t.Fatalf("rangeLimit 2: %d folds", len(folds))
	}
}

func TestDocumentSymbolsWireShape(t *testing.T) {
	c := start(t, "", map[string]any{"textDocument": map[string]any{"documentSymbol": map[string]any{"hierarchicalDocumentSymbolSupport": true}}})
	open(t, c, testURI, doc.text)
	res := call(t, c, protocol.MethodTextDocumentDocumentSymbol, map[string]any{"textDocument": map[string]any{"uri": testURI}})
	lsptest.AssertJSON(t, res, `[{"name":"sess-1","kind":2,
	  "range":{"start":{"line":0,"character":0},"end":{"line":16,"character":0}},
	  "selectionRange":{"start":{"line":2,"character":4},"end":{"line":2,"character":10}},
	  "children":[{"name":"explore","detail":"phase","kind":3,
	    "range":{"start":{"line":6,"character":0},"end":{"line":15,"character":7}},
	    "selectionRange":{"start":{"line":6,"character":7},"end":{"line":6,"character":14}},
	    "children":[{"name":"😀 find the bug 漢字","detail":"user","kind":24,
	      "range":{"start":{"line":7,"character":0},"end":{"line":15,"character":7}},
	      "selectionRange":{"start":{"line":7,"character":0},"end":{"line":7,"character":21}},
	      "children":[{"name":"Read src/a.rs","detail":"tool call c1","kind":12,
	        "range":{"start":{"line":8,"character":0},"end":{"line":8,"character":44}},
	        "selectionRange":{"start":{"line":8,"character":3},"end":{"line":8,"character":7}}}]}]}]}]`)
	// A client without hierarchy gets flat SymbolInformation.
	c2 := start(t, "", nil)
	open(t, c2, testURI, doc.text)
	var flat []protocol.SymbolInformation
	_ = json.Unmarshal(call(t, c2, protocol.MethodTextDocumentDocumentSymbol, map[string]any{"textDocument": map[string]any{"uri": testURI}}), &flat)
	if len(flat) != 4 || flat[3].Name != "Read src/a.rs" || flat[3].ContainerName != "😀 find the bug 漢字" {
		t.Fatalf("flat symbols %+v", flat)
	}
}

func TestOutlineCapSetting(t *testing.T) {
	c := start(t, "", map[string]any{"textDocument": map[string]any{"documentSymbol": map[string]any{"hierarchicalDocumentSymbolSupport": true}}})
	c.Notify(protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": map[string]any{"rlog": map[string]any{"outline": map[string]any{"maxItems": 2}}}})
	open(t, c, testURI, doc.text)
	var syms []protocol.DocumentSymbol
	_ = json.Unmarshal(call(t, c, protocol.MethodTextDocumentDocumentSymbol, map[string]any{"textDocument": map[string]any{"uri": testURI}}), &syms)
	kids := syms[0].Children
	if len(kids) != 2 || kids[1].Name != "… 1 more not shown" {
		t.Fatalf("capped outline %+v", kids)
	}
}

func TestWorkspaceSymbols(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(dir, rel)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("logs/a.rlog", "---\nid: alpha\n---\n@phase deploy\nt!:Bash id=b1 cmd=\"make release\" → [running]\n")
	write("logs/deep/b.rlog", "---\nid: beta\n---\nt!:Read id=r1 file_path=main.go → [running]\n")
	write("node_modules/x.rlog", "---\nid: hidden\n---\n")
	write("notes.txt", "---\nid: nope\n---\n")
	c := lsptest.Start(t, func(ctx context.Context, rwc io.ReadWriteCloser) int {
		return lsp.Serve(ctx, rwc, lsp.Options[Doc]{Features: Features()})
	})
	params := lsptest.DefaultInitializeParams()
	params["rootUri"] = string(fileURI(dir))
	c.Initialize(params)
	// An open untitled document is searched too; its URI is used as is.
	open(t, c, "untitled:Untitled-1", "---\nid: gamma\n---\n@phase review\n")
	var syms []protocol.SymbolInformation
	_ = json.Unmarshal(call(t, c, protocol.MethodWorkspaceSymbol, map[string]any{"query": ""}), &syms)
	var names []string
	for _, s := range syms {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "gamma,review,alpha,deploy,Bash make release,beta,Read main.go" {
		t.Fatalf("workspace symbols: %s", got)
	}
	_ = json.Unmarshal(call(t, c, protocol.MethodWorkspaceSymbol, map[string]any{"query": "mkrls"}), &syms)
	if len(syms) != 1 || syms[0].Name != "Bash make release" || !strings.HasSuffix(string(syms[0].Location.URI), "/logs/a.rlog") {
		t.Fatalf("fuzzy query: %+v", syms)
	}
}

// A log with 100,000 findings must not flood the editor: the default cap
// publishes 1,000 and a last diagnostic saying how many more there are.
func TestHundredThousandFindingsAreCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\nrunner: ci\n---\n")
	for i := range 100000 {
		fmt.Fprintf(&b, "o: id=missing%d → [ok]\n", i)
	}
	c := start(t, "", nil)
	open(t, c, testURI, b.String())
	p := c.WaitDiagnostics(testURI, lsptest.AtVersion(1))
	if len(p.Diagnostics) != 1001 {
		t.Fatalf("%d diagnostics published", len(p.Diagnostics))
	}
	last := p.Diagnostics[1000]
	if !strings.HasPrefix(last.Message, "99001 more diagnostics not shown") || p.Diagnostics[999].Code != "W002" {
		t.Fatalf("last diagnostic: %+v", last)
	}
}

// The folding and outline answers are encoded by hand with a PositionCache;
// they must be, byte for byte, json.Marshal of the protocol values the
// Mapper gives, in UTF-16 and UTF-8, on documents with emoji, CRLF, lone
// CRs, invalid UTF-8 and names that need escaping.
func TestFoldingAndSymbolsEncodeAsJSONMarshal(t *testing.T) {
	docs := hostileDocs()
	docs["marked"] = doc.text
	docs["escapes"] = "---\nid: <s&1>\nagent: a\u2028b\n---\n@phase p<1>\r\nu: \"q\" \\ \t tab & <b>\u2029\x7f\n" +
		"t!:Read id=c1 file_path=\"a&b <c>\" → [running]\n  more\nx:Explore id=a9 [started] summary=\"é 😀 <y>\"\n# c\n# d\nx:Explore id=a9 [done]\n"
	for name, text := range docs {
		// The server holds the text as it arrives: JSON has made any
		// invalid UTF-8 into U+FFFD.
		var held string
		_ = json.Unmarshal(must(json.Marshal(text)), &held)
		tree := Parse([]byte(held)).Tree
		for _, enc := range []string{"utf-16", "utf-8"} {
			c := start(t, enc, map[string]any{"textDocument": map[string]any{
				"documentSymbol": map[string]any{"hierarchicalDocumentSymbolSupport": true}}})
			open(t, c, testURI, text)
			m := lsp.Mapper{Text: Doc{Tree: tree}, Encoding: lsp.UTF16}
			if enc == "utf-8" {
				m.Encoding = lsp.UTF8
			}
			wantSyms, _ := segjson.Marshal(mapperSymbols(m, analysis.Outline(tree, 0)))
			got := call(t, c, protocol.MethodTextDocumentDocumentSymbol, map[string]any{"textDocument": map[string]any{"uri": testURI}})
			if string(got) != string(wantSyms) {
				t.Errorf("%s %s: documentSymbol\n got %.300s\nwant %.300s", name, enc, got, wantSyms)
			}
			wantFolds, _ := segjson.Marshal(mapperFolds(m, tree))
			got = call(t, c, protocol.MethodTextDocumentFoldingRange, map[string]any{"textDocument": map[string]any{"uri": testURI}})
			if string(got) != string(wantFolds) {
				t.Errorf("%s %s: foldingRange\n got %.300s\nwant %.300s", name, enc, got, wantFolds)
			}
		}
	}
}

func must(b []byte, _ error) []byte { return b }

// mapperSymbols converts an outline with the Mapper alone.
func mapperSymbols(m lsp.Mapper, syms []analysis.Symbol) []protocol.DocumentSymbol {
	out := []protocol.DocumentSymbol{}
	for _, s := range syms {
		out = append(out, protocol.DocumentSymbol{Name: nonEmpty(s.Name), Detail: s.Detail, Kind: symbolKinds[s.Kind],
			Range: m.Range(s.Span.Start, s.Span.End), SelectionRange: m.Range(s.Selection.Start, s.Selection.End),
			Children: mapperSymbols(m, s.Children)})
	}
	return out
}

// mapperFolds converts the folds with the Mapper alone.
func mapperFolds(m lsp.Mapper, t *grammar.Tree) []protocol.FoldingRange {
	out := []protocol.FoldingRange{}
	for _, f := range analysis.Folds(t) {
		start, end := m.Position(t.Line(f.StartLine).Start).Line, m.Position(t.Line(f.EndLine).End).Line
		if end <= start {
			continue
		}
		kind := protocol.RegionFoldingRange
		if f.Kind == analysis.FoldComment {
			kind = protocol.CommentFoldingRange
		}
		out = append(out, protocol.FoldingRange{StartLine: start, EndLine: end, Kind: kind})
	}
	return out
}
