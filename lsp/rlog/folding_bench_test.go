package rlog

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/internal/benchdata"
	"github.com/rlog-ls/rlog-ls/lsp"
	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

// BenchmarkFoldingUnlimited is a folding request from a client that sends
// no rangeLimit (Neovim's LSP folding, Emacs): every range of the
// document, as the editor reads them from the connection.
func BenchmarkFoldingUnlimited(b *testing.B) {
	for _, size := range benchdata.Sizes() {
		c := lsptest.Start(b, func(ctx context.Context, rwc io.ReadWriteCloser) int {
			return lsp.Serve(ctx, rwc, lsp.Options[Doc]{Features: Features()})
		})
		c.Initialize(nil)
		c.Notify(protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{
			TextDocument: protocol.TextDocumentItem{URI: testURI, LanguageID: "rlog", Version: 1, Text: string(benchdata.Session(b, size))},
		})
		c.WaitDiagnostics(testURI, lsptest.AtVersion(1))
		params := map[string]any{"textDocument": map[string]any{"uri": testURI}}
		b.Run(benchdata.Name(size), func(b *testing.B) {
			var n int
			for range b.N {
				var res json.RawMessage
				if err := c.Call(protocol.MethodTextDocumentFoldingRange, params, &res); err != nil {
					b.Fatal(err)
				}
				n = bytes.Count(res, []byte(`"startLine"`))
			}
			b.ReportMetric(float64(n), "ranges")
		})
	}
}
