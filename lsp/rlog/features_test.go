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

// TestHoverClampsPositions: a position past the end of a line or of the
// document is clamped, never an error (testdata/markers/navigation.txtar
// has the answers at the places a cursor can be).
func TestHoverClampsPositions(t *testing.T) {
	c := start(t, "", nil)
	open(t, c, testURI, doc.text)
	// A character past the end of a line is clamped to the line's end.
	res := call(t, c, protocol.MethodTextDocumentHover, at(testURI, protocol.Position{Line: 4, Character: 100}))
	if !strings.Contains(string(res), "End of the YAML header") {
		t.Fatalf("hover past the end of a line: %s", res)
	}
	// Positions past the end of the document are clamped, never an error.
	f := c.RawRequest(`{"jsonrpc":"2.0","id":9002,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///work/session.rlog"},"position":{"line":9999,"character":9999}}}`)
	lsptest.AssertJSON(t, f.Body, `{"jsonrpc":"2.0","id":9002,"result":null}`)
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
