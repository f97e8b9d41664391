package rlog

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"go.lsp.dev/protocol"

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
		requests := []struct {
			name, method string
			params       any
		}{
			{"hover", protocol.MethodTextDocumentHover, map[string]any{"textDocument": doc, "position": obs}},
			{"definition", protocol.MethodTextDocumentDefinition, map[string]any{"textDocument": doc, "position": obs}},
			{"references", protocol.MethodTextDocumentReferences, map[string]any{"textDocument": doc, "position": obs, "context": map[string]any{"includeDeclaration": true}}},
			{"highlight", protocol.MethodTextDocumentDocumentHighlight, map[string]any{"textDocument": doc, "position": obs}},
			{"folding", protocol.MethodTextDocumentFoldingRange, map[string]any{"textDocument": doc}},
			{"symbols", protocol.MethodTextDocumentDocumentSymbol, map[string]any{"textDocument": doc}},
			{"semanticTokensRange", protocol.MethodSemanticTokensRange, map[string]any{"textDocument": doc,
				"range": protocol.Range{Start: protocol.Position{Line: obs.Line}, End: protocol.Position{Line: obs.Line + 60}}}},
		}
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
}
