package rlog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/benchdata"
	"github.com/rlog-ls/rlog-ls/lsp"
	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

// benchClient opens a generated document of the given size in an
// in-process server and waits for its first diagnostics.
func benchClient(b *testing.B, size int64) (*lsptest.Client, string) {
	b.Helper()
	c := lsptest.Start(b, func(ctx context.Context, rwc io.ReadWriteCloser) int {
		return lsp.Serve(ctx, rwc, lsp.Options[Doc]{Features: Features()})
	})
	params := lsptest.DefaultInitializeParams()
	params["capabilities"] = map[string]any{"textDocument": map[string]any{
		"documentSymbol": map[string]any{"hierarchicalDocumentSymbolSupport": true},
		"foldingRange":   map[string]any{"rangeLimit": 5000},
	}}
	c.Initialize(params)
	src := string(benchdata.Session(b, size))
	c.Notify(protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: testURI, LanguageID: "rlog", Version: 1, Text: src},
	})
	c.WaitDiagnostics(testURI, lsptest.AtVersion(1))
	return c, src
}

// BenchmarkOpenToFirstDiagnostics is opening a large log: from the
// didOpen notification's first byte reaching the server until the editor
// has the diagnostics. The notification is encoded before the clock
// starts: how fast an editor writes JSON is not the server's cost.
func BenchmarkOpenToFirstDiagnostics(b *testing.B) {
	for _, size := range benchdata.Sizes() {
		b.Run(benchdata.Name(size), func(b *testing.B) {
			src := string(benchdata.Session(b, size))
			floor := benchdata.Floor([]byte(src))
			b.SetBytes(int64(len(src)))
			for i := range b.N {
				b.StopTimer()
				c := lsptest.Start(b, func(ctx context.Context, rwc io.ReadWriteCloser) int {
					return lsp.Serve(ctx, rwc, lsp.Options[Doc]{Features: Features()})
				})
				c.Initialize(nil)
				uri := protocol.DocumentURI(fmt.Sprintf("file:///bench/%d.rlog", i))
				body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": protocol.MethodTextDocumentDidOpen,
					"params": protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uri, LanguageID: "rlog", Version: 1, Text: src}}})
				if err != nil {
					b.Fatal(err)
				}
				frame := append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body))), body...)
				b.StartTimer()
				c.SendBytes(frame)
				c.WaitDiagnostics(uri, lsptest.AtVersion(1))
			}
			b.StopTimer()
			benchdata.ReportVsFloor(b, floor)
		})
	}
}

// benchRequest is a request a benchmark makes, named for its sub-benchmark.
type benchRequest struct {
	name, method string
	params       any
}

// benchRequests measures each request in a sub-benchmark of its own
// (NAME/SIZE), through the client's JSON-RPC connection.
func benchRequests(b *testing.B, c *lsptest.Client, size int64, requests []benchRequest) {
	for _, r := range requests {
		b.Run(r.name+"/"+benchdata.Name(size), func(b *testing.B) {
			for range b.N {
				var res json.RawMessage
				if err := c.Call(r.method, r.params, &res); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRequests measures each request on an open large document, as
// the editor sees it (through the JSON-RPC connection).
func BenchmarkRequests(b *testing.B) {
	for _, size := range benchdata.Sizes() {
		c, _ := benchClient(b, size)
		tree := grammar.Parse(benchdata.Session(b, size))
		// A cursor on an observation's id in the middle of the document.
		var obs protocol.Position
		for l := range tree.LinesFrom(tree.LineCount() / 2) {
			if l.Kind == grammar.Observation && l.ID.Valid() {
				obs = protocol.Position{Line: uint32(l.Num), Character: uint32(l.ID.Start - l.Start + 1)}
				break
			}
		}
		doc := map[string]any{"uri": testURI}
		requests := []benchRequest{
			{"hover", protocol.MethodTextDocumentHover, map[string]any{"textDocument": doc, "position": obs}},
			{"definition", protocol.MethodTextDocumentDefinition, map[string]any{"textDocument": doc, "position": obs}},
			{"references", protocol.MethodTextDocumentReferences, map[string]any{"textDocument": doc, "position": obs, "context": map[string]any{"includeDeclaration": true}}},
			{"highlight", protocol.MethodTextDocumentDocumentHighlight, map[string]any{"textDocument": doc, "position": obs}},
			{"folding", protocol.MethodTextDocumentFoldingRange, map[string]any{"textDocument": doc}},
			{"symbols", protocol.MethodTextDocumentDocumentSymbol, map[string]any{"textDocument": doc}},
			{"semanticTokensRange", protocol.MethodSemanticTokensRange, map[string]any{"textDocument": doc,
				"range": protocol.Range{Start: protocol.Position{Line: obs.Line}, End: protocol.Position{Line: obs.Line + 60}}}},
			{"completionCallID", protocol.MethodTextDocumentCompletion, map[string]any{"textDocument": doc, "position": obs}},
			{"documentLink", protocol.MethodTextDocumentDocumentLink, map[string]any{"textDocument": doc}},
			{"prepareRename", protocol.MethodTextDocumentPrepareRename, map[string]any{"textDocument": doc, "position": obs}},
			{"rename", protocol.MethodTextDocumentRename, map[string]any{"textDocument": doc, "position": obs, "newName": "renamed_1"}},
		}
		benchRequests(b, c, size, requests)
	}
}

// BenchmarkAppendLine is a log growing while it is open: one line appended
// at the end of a large document, from the notification's first byte
// reaching the server until the client has read the new version's
// diagnostics (with the default settings: appended lines skip the
// debounce). The forms are what editors send when they reload a file that
// grew on disk:
//   - ranged: one change inserting the line at the end (VS Code);
//   - whole: a whole-document change (clients with full sync);
//   - reopen: didClose, then didOpen with the whole text (Neovim).
//
// The notifications are encoded before the clock starts, and the client
// only looks for the version in what it reads: the time is the server's.
// The whole forms carry the document, so reading their JSON alone costs
// in proportion to its size; the server's own work is comparing the texts
// and the edit.
func BenchmarkAppendLine(b *testing.B) {
	for _, size := range benchdata.Sizes() {
		for _, form := range []string{"ranged", "whole", "reopen"} {
			b.Run(form+"/"+benchdata.Name(size), func(b *testing.B) {
				published := make(chan []byte, 16)
				c := startLeanWith(b, lsp.Options[Doc]{Features: Features(), Logger: zap.NewNop()}, func(body []byte) {
					if bytes.HasPrefix(body, []byte(`{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics"`)) {
						published <- body[:min(len(body), 200)]
					}
				})
				waitVersion := func(v int32) {
					want := []byte(fmt.Sprintf(`"version":%d,`, v))
					for {
						select {
						case head := <-published:
							if bytes.Contains(head, want) {
								return
							}
						case <-time.After(time.Minute): // a guard against a hang, not a timing
							b.Fatalf("no diagnostics for version %d", v)
						}
					}
				}
				c.call("0", "initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}})
				c.notify("initialized", map[string]any{})
				src := benchdata.Session(b, size)
				text := bytes.Clone(src)
				c.notify(protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{
					TextDocument: protocol.TextDocumentItem{URI: testURI, LanguageID: "rlog", Version: 1, Text: string(text)}})
				waitVersion(1)
				lines := uint32(bytes.Count(src, []byte("\n")))
				version := int32(1)
				b.ResetTimer()
				for i := range b.N {
					b.StopTimer()
					line := fmt.Sprintf("o: id=appended%d → [ok] 😀 %d\n", i, i)
					version++
					var frames []string
					switch form {
					case "ranged":
						frames = append(frames, notification(b, protocol.MethodTextDocumentDidChange, map[string]any{
							"textDocument":   map[string]any{"uri": testURI, "version": version},
							"contentChanges": []lsptest.Change{{Range: lsptest.Span(lines, 0, lines, 0), Text: line}},
						}))
					case "whole":
						text = append(text, line...)
						frames = append(frames, notification(b, protocol.MethodTextDocumentDidChange, map[string]any{
							"textDocument":   map[string]any{"uri": testURI, "version": version},
							"contentChanges": []lsptest.Change{{Text: string(text)}},
						}))
					case "reopen":
						text = append(text, line...)
						frames = append(frames,
							notification(b, protocol.MethodTextDocumentDidClose, map[string]any{"textDocument": map[string]any{"uri": testURI}}),
							notification(b, protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{
								TextDocument: protocol.TextDocumentItem{URI: testURI, LanguageID: "rlog", Version: version, Text: string(text)}}))
					}
					lines++
					b.StartTimer()
					for _, f := range frames {
						c.send(f)
					}
					waitVersion(version)
				}
			})
		}
	}
}

// notification encodes one JSON-RPC notification.
func notification(b *testing.B, method string, params any) string {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		b.Fatal(err)
	}
	return string(body)
}

// BenchmarkInsight measures the session insight requests as the editor
// sees them (through the JSON-RPC connection) on a large document whose
// calls are timed: the code lenses (places only), the session lens's
// resolve, one screen of inlay hints (60 lines in the middle) and the
// session view's data. The lenses and hints read the document's session
// tracker, which the first of them after an edit brings up to date
// ("firstHintsAfterEdit"); the session view builds the whole session once
// per version.
func BenchmarkInsight(b *testing.B) {
	for _, size := range benchdata.Sizes() {
		c := lsptest.Start(b, func(ctx context.Context, rwc io.ReadWriteCloser) int {
			return lsp.Serve(ctx, rwc, lsp.Options[Doc]{Features: Features()})
		})
		c.Initialize(nil)
		src := string(benchdata.TimedSession(b, size))
		c.Open(testURI, 1, src)
		c.WaitDiagnostics(testURI, lsptest.AtVersion(1))
		doc := map[string]any{"uri": testURI}
		mid := uint32(strings.Count(src, "\n") / 2)
		screen := map[string]any{"textDocument": doc, "range": protocol.Range{Start: protocol.Position{Line: mid}, End: protocol.Position{Line: mid + 60}}}
		var lenses []json.RawMessage
		if err := c.Call(protocol.MethodTextDocumentCodeLens, map[string]any{"textDocument": doc}, &lenses); err != nil || len(lenses) < 2 {
			b.Fatalf("%d lenses: %v", len(lenses), err)
		}
		var hints []json.RawMessage
		if err := c.Call(lsp.MethodTextDocumentInlayHint, screen, &hints); err != nil || len(hints) == 0 {
			b.Fatalf("%d hints: %v", len(hints), err)
		}
		requests := []benchRequest{
			{"codeLens", protocol.MethodTextDocumentCodeLens, map[string]any{"textDocument": doc}},
			{"codeLensResolve", protocol.MethodCodeLensResolve, lenses[0]},
			{"inlayHintsOneScreen", lsp.MethodTextDocumentInlayHint, screen},
			{"sessionReportData", MethodSessionReport, map[string]any{"textDocument": doc}},
		}
		benchRequests(b, c, size, requests)
		// An edit makes a new version: its first hints wait for its session.
		version := int32(1)
		b.Run("firstHintsAfterEdit/"+benchdata.Name(size), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				version++
				c.Change(testURI, version, lsptest.Change{Range: lsptest.Span(mid, 0, mid, 0), Text: "# x\n"})
				b.StartTimer()
				var res json.RawMessage
				if err := c.Call(lsp.MethodTextDocumentInlayHint, screen, &res); err != nil {
					b.Fatal(err)
				}
			}
		})
		// Typing at the end of the log with its last screen shown: append a
		// line, then what the editor asks for that screen: the lenses'
		// places, the session's lens and those of the phases on the screen
		// resolved, and the screen's hints.
		lines := uint32(strings.Count(src, "\n"))
		b.Run("screenAfterAppend/"+benchdata.Name(size), func(b *testing.B) {
			for i := range b.N {
				b.StopTimer()
				version++
				at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
				c.Change(testURI, version, lsptest.Change{Range: lsptest.Span(lines, 0, lines, 0),
					Text: fmt.Sprintf("o: id=toolu_%d → [ok] ts=%s\n", i, at.Format(time.RFC3339))})
				lines++
				last := map[string]any{"textDocument": doc, "range": protocol.Range{Start: protocol.Position{Line: lines - 60}, End: protocol.Position{Line: lines}}}
				b.StartTimer()
				var lenses []struct {
					Range protocol.Range  `json:"range"`
					Data  json.RawMessage `json:"data"`
				}
				if err := c.Call(protocol.MethodTextDocumentCodeLens, map[string]any{"textDocument": doc}, &lenses); err != nil {
					b.Fatal(err)
				}
				for k, l := range lenses {
					if k == 0 || l.Range.Start.Line+60 >= lines {
						var res json.RawMessage
						if err := c.Call(protocol.MethodCodeLensResolve, l, &res); err != nil {
							b.Fatal(err)
						}
					}
				}
				var res json.RawMessage
				if err := c.Call(lsp.MethodTextDocumentInlayHint, last, &res); err != nil {
					b.Fatal(err)
				}
			}
		})
		c.Close(testURI)
	}
}
