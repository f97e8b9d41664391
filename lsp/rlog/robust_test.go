package rlog

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/lsp"
	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

// Protocol robustness with the real rlog features. The plumbing's own
// tests (package lsp, on a toy language) cover the wire: bad frames, wrong
// ids, lifecycle states, cancellation, clamped edits. Here every rlog
// method meets hostile documents, wrong params and documents that are not
// open, and every range it answers must lie inside the document as the
// client sees it.

// hostileDocs are documents as the client sends them.
func hostileDocs() map[string]string {
	huge := 10 << 20
	if raceEnabled {
		huge = 1 << 20
	}
	body := "@start id=s ts=2025-12-19T20:29:02Z\nu: 😀 go step=1\nt!:Read id=c1 file_path=a.go → [running]\n  cont\no: id=c1 → [ok] x\n@phase p\n# c\n# d\na: done\n@end\n"
	header := "---\nformat: rlog/1\nid: s\nrepo_sha: abc1234\nrunner: ci\n---\n"
	return map[string]string{
		"crlf":          strings.ReplaceAll(header+body, "\n", "\r\n"),
		"lone cr body":  header + strings.ReplaceAll(body, "\n", "\r"),
		"lone cr all":   strings.ReplaceAll(header+body, "\n", "\r"),
		"mixed ends":    header + "u: a\r\nu: b\ru: c\n\r\n\r\ra: 😀\r",
		"replacement":   header + "u: \ufffd\ufffd bad t!:R id=\ufffd → [x]\no: id=\ufffd → y\n",
		"invalid utf-8": header + "u: a\xffb \xe2\x86 c\xed\xa0\x80d \xf0\x9f\x98\xc3\nt!:R id=c\xff → [running]\no: id=c\xff → [ok] \x80\x80\r\n",
		"nul and bom":   "\ufeff" + header + "u: a\x00b\x00\nt!:R id=c\x00 → [running]\n",
		"10 MB line":    header + "u: " + strings.Repeat("é😀 word ", huge/14) + " sk-ant-api03-Zx9Qm2Lr7Tb4Wn8Kc1Vd6Hs3Jf0Pg5Ya2Ue7Io4Xq9Rt1Mb6Nc3Lz8Kw5\n" + body,
		"empty":         "",
		"header only":   "---\n",
		"no final eol":  header + "u: x",
		"no header":     body,
		"bad yaml":      "---\nformat: [rlog/1\nid: {\n---\n" + body,
		"arrows only":   strings.Repeat("→", 500) + "\n" + strings.Repeat("->", 500),
		"many ids":      header + strings.Repeat("o: id=x → [ok]\nt!:R id=x → [running]\n", 2000),
		"deep contins":  header + "u: a\n" + strings.Repeat("  \t continuation \r\n", 3000),
		"only newlines": strings.Repeat("\n", 5000),
	}
}

// lineLengths are the client's view of text: the length of each line in
// each encoding (0 UTF-16, 1 UTF-8, 2 UTF-32).
func lineLengths(text string) [][3]int {
	var out [][3]int
	for _, se := range refLines([]byte(text)) {
		line := []byte(text[se[0]:se[1]])
		out = append(out, [3]int{refColumn(line, 0), refColumn(line, 1), refColumn(line, 2)})
	}
	return out
}

// checkRanges walks a result and checks every {start, end} range, every
// folding range and every semantic token against the document's lines.
func checkRanges(t *testing.T, what string, raw json.RawMessage, lines [][3]int, enc int) {
	t.Helper()
	if len(raw) == 0 {
		return // null
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	pos := func(p map[string]any) (int, int, bool) {
		l, ok1 := p["line"].(float64)
		c, ok2 := p["character"].(float64)
		return int(l), int(c), ok1 && ok2
	}
	inside := func(where string, l, c int) {
		t.Helper()
		if l < 0 || l >= len(lines) || c < 0 || c > lines[l][enc] {
			t.Fatalf("%s: %s %d:%d outside the document (%d lines; that one %v)", what, where, l, c, len(lines), lines[min(max(l, 0), len(lines)-1)])
		}
	}
	var walk func(x any)
	walk = func(x any) {
		switch x := x.(type) {
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			s, sok := x["start"].(map[string]any)
			e, eok := x["end"].(map[string]any)
			if sok && eok {
				sl, sc, ok1 := pos(s)
				el, ec, ok2 := pos(e)
				if ok1 && ok2 {
					inside("start", sl, sc)
					inside("end", el, ec)
					if el < sl || el == sl && ec < sc {
						t.Fatalf("%s: range ends before it starts: %v", what, x)
					}
				}
			}
			if sl, ok := x["startLine"].(float64); ok {
				el, _ := x["endLine"].(float64)
				inside("fold start", int(sl), 0)
				inside("fold end", int(el), 0)
				if el < sl {
					t.Fatalf("%s: fold %v", what, x)
				}
			}
			if data, ok := x["data"].([]any); ok && len(data)%5 == 0 {
				line, char := 0, 0
				for i := 0; i < len(data); i += 5 {
					dl, dc, n := int(data[i].(float64)), int(data[i+1].(float64)), int(data[i+2].(float64))
					if dl > 0 {
						line, char = line+dl, dc
					} else {
						char += dc
					}
					inside("token start", line, char)
					inside("token end", line, char+n)
				}
			}
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
}

// docRequests are every rlog request about one document, at position p.
func docRequests(uri protocol.DocumentURI, p protocol.Position) map[string]any {
	td := map[string]any{"uri": uri}
	whole := protocol.Range{Start: protocol.Position{}, End: protocol.Position{Line: 1 << 30, Character: 1 << 30}}
	return map[string]any{
		protocol.MethodTextDocumentHover:                map[string]any{"textDocument": td, "position": p},
		protocol.MethodTextDocumentDefinition:           map[string]any{"textDocument": td, "position": p},
		protocol.MethodTextDocumentReferences:           map[string]any{"textDocument": td, "position": p, "context": map[string]any{"includeDeclaration": true}},
		protocol.MethodTextDocumentDocumentHighlight:    map[string]any{"textDocument": td, "position": p},
		protocol.MethodTextDocumentFoldingRange:         map[string]any{"textDocument": td},
		protocol.MethodTextDocumentDocumentSymbol:       map[string]any{"textDocument": td},
		protocol.MethodSemanticTokensFull:               map[string]any{"textDocument": td},
		protocol.MethodSemanticTokensRange:              map[string]any{"textDocument": td, "range": protocol.Range{Start: p, End: whole.End}},
		protocol.MethodTextDocumentCodeAction:           map[string]any{"textDocument": td, "range": protocol.Range{Start: p, End: p}, "context": map[string]any{"diagnostics": []any{}}},
		protocol.MethodTextDocumentCompletion:           map[string]any{"textDocument": td, "position": p, "context": map[string]any{"triggerKind": 1}},
		protocol.MethodTextDocumentDocumentLink:         map[string]any{"textDocument": td},
		protocol.MethodTextDocumentPrepareRename:        map[string]any{"textDocument": td, "position": p},
		protocol.MethodTextDocumentRename:               map[string]any{"textDocument": td, "position": p, "newName": "renamed_1"},
		protocol.MethodTextDocumentCodeLens:             map[string]any{"textDocument": td},
		lsp.MethodTextDocumentInlayHint:                 map[string]any{"textDocument": td, "range": protocol.Range{Start: p, End: whole.End}},
		MethodSessionReport:                             map[string]any{"textDocument": td},
		protocol.MethodTextDocumentPrepareCallHierarchy: map[string]any{"textDocument": td, "position": p},
	}
}

// refused reports whether err is how method says no to a reasonable
// request: rename refuses anything but a call id (RequestFailed) and a
// name already in use (InvalidParams).
func refused(method string, err error) bool {
	var rpcErr *jsonrpc2.Error
	return (method == protocol.MethodTextDocumentPrepareRename || method == protocol.MethodTextDocumentRename ||
		method == MethodSessionView || method == MethodMaskedView) && // a file that is no session
		errors.As(err, &rpcErr) && (rpcErr.Code == -32803 || rpcErr.Code == jsonrpc2.InvalidParams)
}

// Every request on every hostile document, in UTF-16 and UTF-8, at the
// start, inside, at the end and past the end: answered without error, with
// every range inside the document; the diagnostics too; then an edit
// outside the document, and a close that clears.
func TestEveryMethodOnHostileDocuments(t *testing.T) {
	for name, text := range hostileDocs() {
		for enc, encName := range []string{"utf-16", "utf-8"} {
			if name == "10 MB line" && enc == 1 {
				text = text[:min(len(text), 2<<20)] // the same shapes; 10 MB once is enough
			}
			t.Run(name+"/"+encName, func(t *testing.T) {
				c := start(t, map[int]string{0: "", 1: "utf-8"}[enc], map[string]any{
					"textDocument": map[string]any{"documentSymbol": map[string]any{"hierarchicalDocumentSymbolSupport": true}},
				})
				uri := protocol.DocumentURI("file:///w/" + strings.ReplaceAll(name, " ", "-") + ".rlog")
				openRaw(c, uri, 1, text)
				lines := lineLengths(text)
				p := c.WaitDiagnostics(uri, lsptest.AtVersion(1))
				checkRanges(t, "diagnostics", p.Raw, lines, enc)
				last := len(lines) - 1
				for _, at := range []protocol.Position{
					{}, {Line: uint32(last / 2), Character: 3}, {Line: uint32(last), Character: uint32(lines[last][enc])},
					{Line: uint32(last + 100), Character: 1 << 31},
				} {
					for method, params := range docRequests(uri, at) {
						var res json.RawMessage
						if err := c.Call(method, params, &res); err != nil {
							if refused(method, err) {
								continue
							}
							t.Fatalf("%s at %v: %v", method, at, err)
						}
						checkRanges(t, fmt.Sprintf("%s at %v", method, at), res, lines, enc)
					}
				}
				var res json.RawMessage
				if err := c.Call(protocol.MethodWorkspaceSymbol, map[string]any{"query": ""}, &res); err != nil {
					t.Fatal(err)
				}
				checkRanges(t, "workspace/symbol", res, lines, enc)

				// An edit whose range lies past the end appends; the
				// diagnostics follow the new version.
				c.Notify(protocol.MethodTextDocumentDidChange, map[string]any{
					"textDocument":   map[string]any{"uri": uri, "version": 2},
					"contentChanges": []any{map[string]any{"range": protocol.Range{Start: protocol.Position{Line: 1 << 20}, End: protocol.Position{Line: 1 << 21, Character: 5}}, "text": "\nu: appended"}},
				})
				p = c.WaitDiagnostics(uri, lsptest.AtVersion(2))
				checkRanges(t, "diagnostics after the edit", p.Raw, lineLengths(text+"\nu: appended"), enc)
				openRaw(c, uri, 1, text) // a second didOpen replaces: version 1 again
				seen := 0
				c.WaitFrame("the publish after the second didOpen", func(f lsptest.Frame) bool {
					var p lsptest.Published
					if f.Method == protocol.MethodTextDocumentPublishDiagnostics && json.Unmarshal(f.Params, &p) == nil &&
						p.URI == uri && p.Version != nil && *p.Version == 1 {
						seen++
					}
					return seen == 2
				})
				c.Notify(protocol.MethodTextDocumentDidClose, map[string]any{"textDocument": map[string]any{"uri": uri}})
				c.WaitDiagnostics(uri, lsptest.Cleared)
			})
		}
	}
}

// Params that are not an object are InvalidParams for every rlog request;
// objects with fields of the wrong type are InvalidParams too, or ignored
// when the method does not read that field; never an internal error, and
// the server serves on.
func TestWrongParamsForEveryMethod(t *testing.T) {
	c := start(t, "", nil)
	open(t, c, testURI, doc.text)
	methods := []string{protocol.MethodWorkspaceSymbol, protocol.MethodWorkspaceExecuteCommand, MethodSessionView, MethodSessionFormat, MethodMaskedView}
	for m := range docRequests(testURI, protocol.Position{}) {
		methods = append(methods, m)
	}
	id := 2000
	for _, m := range methods {
		for _, bad := range []string{`"x"`, `[1]`, `7`, `{"textDocument":{"uri":5}}`, `{"textDocument":{"uri":"` + string(testURI) + `"},"position":{"line":-1,"character":"a"}}`,
			`{"textDocument":{"uri":"` + string(testURI) + `"},"range":{"start":5}}`, `{"query":["q"]}`, `{"command":1,"arguments":{}}`} {
			id++
			f := c.RawRequest(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, m, bad))
			notObject := !strings.HasPrefix(bad, "{")
			// Rename refuses a position that is not on a call id (RequestFailed).
			if !notObject && f.Error != nil && refused(m, &jsonrpc2.Error{Code: jsonrpc2.Code(f.Error.Code)}) {
				continue
			}
			if f.Error != nil && f.Error.Code != -32602 || notObject && (f.Error == nil || f.Error.Code != -32602) {
				t.Errorf("%s %s: %s, want InvalidParams", m, bad, f.Body)
			}
		}
	}
	// Still serving.
	if res := call(t, c, protocol.MethodTextDocumentDefinition, at(testURI, doc.utf16["use"])); !strings.Contains(string(res), "range") {
		t.Fatalf("definition after bad params: %s", res)
	}
}

// A view whose session file is gone, or never was, holding any text: every
// request answers without an error, and the follower leaves it alone.
func TestEveryMethodOnAViewWithoutItsFile(t *testing.T) {
	c := start(t, "", nil)
	for name, text := range hostileDocs() {
		if name == "10 MB line" {
			continue
		}
		uri := viewURI("/w/gone/" + strings.ReplaceAll(name, " ", "-") + ".jsonl")
		openRaw(c, uri, 1, text)
		lines := lineLengths(text)
		checkRanges(t, name+": diagnostics", c.WaitDiagnostics(uri, lsptest.AtVersion(1)).Raw, lines, 0)
		for method, params := range docRequests(uri, protocol.Position{Line: 1, Character: 2}) {
			var res json.RawMessage
			if err := c.Call(method, params, &res); err != nil && !refused(method, err) {
				t.Fatalf("%s: %s: %v", name, method, err)
			}
			checkRanges(t, name+": "+method, res, lines, 0)
		}
		if _, err := requestView(t, c, uri); err == nil || !strings.Contains(err.Error(), "does not exist") {
			t.Errorf("%s: the view of a file that is gone: %v", name, err)
		}
	}
	if n := len(c.Notifications(MethodSessionViewChanged)); n != 0 {
		t.Errorf("%d changes sent for views without files", n)
	}
}

// Requests about a document that is not open (a client racing a close)
// are answered with null, for every method.
func TestRequestsForClosedDocuments(t *testing.T) {
	c := start(t, "", nil)
	open(t, c, testURI, doc.text)
	c.Notify(protocol.MethodTextDocumentDidClose, map[string]any{"textDocument": map[string]any{"uri": testURI}})
	for _, uri := range []protocol.DocumentURI{testURI, "file:///never/opened.rlog", "untitled:x", "weird"} {
		for method, params := range docRequests(uri, protocol.Position{Line: 3, Character: 1}) {
			if res := call(t, c, method, params); len(res) != 0 && string(res) != "null" {
				t.Errorf("%s on %s: %s", method, uri, res)
			}
		}
	}
	// Changes to documents never opened are ignored; no diagnostics appear.
	c.Notify(protocol.MethodTextDocumentDidChange, map[string]any{
		"textDocument":   map[string]any{"uri": "file:///never/opened.rlog", "version": 2},
		"contentChanges": []any{map[string]any{"text": "u: x\n"}},
	})
	open(t, c, "untitled:probe", "u: x\n")
	c.WaitDiagnostics("untitled:probe", nil)
	if got := c.Diagnostics("file:///never/opened.rlog"); len(got) != 0 {
		t.Errorf("diagnostics for a document never opened: %+v", got)
	}
}

// Cancelling: a request cancelled after its answer, or one never sent,
// changes nothing; a request whose cancel arrives first is answered with
// RequestCancelled or its result, never left without a reply.
func TestCancelRlogRequests(t *testing.T) {
	c := start(t, "", nil)
	open(t, c, testURI, doc.text)
	f := c.RawRequest(`{"jsonrpc":"2.0","id":3001,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"` + string(testURI) + `"}}}`)
	if f.Error != nil {
		t.Fatal(string(f.Body))
	}
	c.SendRaw(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":3001}}`)
	c.SendRaw(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"never-sent"}}`)
	// Sent back to back, the cancel usually reaches a request still running.
	big := strings.Repeat("t!:Read id=c1 file_path=a.go → [running]\no: id=c1 → [ok] x\n", 20000)
	open(t, c, "file:///w/big.rlog", big)
	for i := range 20 {
		id := 4000 + i
		c.SendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"textDocument/semanticTokens/full","params":{"textDocument":{"uri":"file:///w/big.rlog"}}}`, id))
		c.SendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":%d}}`, id))
		r := c.WaitResponse(fmt.Sprint(id))
		if r.Error != nil && r.Error.Code != -32800 {
			t.Fatalf("cancelled request: %s", r.Body)
		}
	}
	if res := call(t, c, protocol.MethodTextDocumentHover, at(testURI, doc.utf16["use"])); !strings.Contains(string(res), "c1") {
		t.Fatalf("hover after cancels: %s", res)
	}
}

// openRaw opens a document whose text travels byte for byte.
func openRaw(c *lsptest.Client, uri protocol.DocumentURI, version int, text string) {
	c.SendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":%q,"languageId":"rlog","version":%d,"text":%s}}}`,
		uri, version, lsptest.RawString(text)))
}

// The invalid bytes reach the server as they are.
func TestInvalidUTF8TravelsRaw(t *testing.T) {
	text := hostileDocs()["invalid utf-8"]
	if utf8.ValidString(text) {
		t.Fatal("the document is valid UTF-8")
	}
	c := start(t, "", nil)
	openRaw(c, "untitled:raw", 1, text)
	res := call(t, c, protocol.MethodSemanticTokensFull, map[string]any{"textDocument": map[string]any{"uri": "untitled:raw"}})
	checkRanges(t, "tokens", res, lineLengths(text), 0)
	// Next to invalid bytes ids still work: definition from the use of c.
	lines := refLines([]byte(text))
	last := len(lines) - 2
	res = call(t, c, protocol.MethodTextDocumentDefinition, at("untitled:raw", protocol.Position{Line: uint32(last), Character: 6}))
	if !strings.Contains(string(res), fmt.Sprintf(`"line":%d`, last-1)) {
		t.Errorf("definition of an id with an invalid byte: %s", res)
	}
}
