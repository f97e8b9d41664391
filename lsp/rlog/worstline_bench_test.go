package rlog

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/internal/benchdata"
	"github.com/rlog-ls/rlog-ls/lsp"
	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

// The worst line shapes for a time bound per request: one long line of a
// shape that makes work per byte or per token, in a small session. Every
// request must be linear in what it returns or reads: docs/reliability.md
// reports the ratios of these times across line sizes, and of a request at
// the start of a long line to one at its end.
var worstLines = []struct {
	name string
	unit string // repeated to the size, after "a: x"
	// id is on the line, near its start, and named on other lines too.
}{
	{"loneCR", "\r→"},               // an editor line per arrow
	{"afterCR", "→"},                // after "a: x\r": one editor line of arrows (issue 18)
	{"tokens", " k=v"},              // three tokens per 4 bytes
	{"parents", " parent=abcdef12"}, // a reference per 16 bytes
	{"markers", " [REDACTED]"},      // a finding (H002) per 11 bytes
	{"text", " 漢字 word 😀 é"},        // one text token: long, every width of character
}

// worstLineDoc is a session with one line of the shape, about size bytes.
func worstLineDoc(unit string, size int) string {
	var b strings.Builder
	b.WriteString("---\nformat: rlog/1\nid: s\nrepo_sha: abc1234\n---\n@start\nu: go id=abcdef12\nt!:Read id=c1 → [running]\n")
	head := "a: x id=c1 parent=abcdef12 "
	if unit == "→" {
		head = "a: x id=c1 parent=abcdef12\r"
	}
	b.WriteString(head)
	b.WriteString(strings.Repeat(unit, size/len(unit)))
	b.WriteString("\no: id=c1 → [ok]\n@end\n")
	return b.String()
}

// BenchmarkWorstLines measures every request on each shape at 64 KB,
// 256 KB and 1 MB, through the connection, in UTF-16. A request about a
// point is asked at the start of the line (its "id"), and the range
// requests over one character at its start and at its end.
func BenchmarkWorstLines(b *testing.B) {
	for _, shape := range worstLines {
		for _, size := range []int{64 << 10, 256 << 10, 1 << 20} {
			src := worstLineDoc(shape.unit, size)
			c := lsptest.Start(b, func(ctx context.Context, rwc io.ReadWriteCloser) int {
				return lsp.Serve(ctx, rwc, lsp.Options[Doc]{Features: Features()})
			})
			params := lsptest.DefaultInitializeParams()
			params["capabilities"] = map[string]any{"textDocument": map[string]any{"documentSymbol": map[string]any{"hierarchicalDocumentSymbolSupport": true}}}
			params["initializationOptions"] = map[string]any{"diagnostics": map[string]any{"debounceMs": 0}}
			c.Initialize(params)
			uri := protocol.DocumentURI("file:///bench/worst.rlog")
			openRaw(c, uri, 1, src)
			pub := c.WaitDiagnostics(uri, lsptest.AtVersion(1))
			m := lsp.Mapper{Text: Parse([]byte(src)), Encoding: lsp.UTF16}
			line := strings.Index(src, "a: x")
			lineEnd := line + strings.IndexByte(src[line:], '\n')
			idAt := m.Position(line + strings.Index(src[line:], "c1"))
			parentAt := m.Position(line + strings.Index(src[line:], "abcdef12"))
			startRange := protocol.Range{Start: m.Position(line + 5), End: m.Position(line + 6)}
			endRange := protocol.Range{Start: m.Position(lineEnd - len(shape.unit)), End: m.Position(lineEnd)}
			doc := map[string]any{"uri": uri}
			var diags []protocol.Diagnostic
			if len(pub.Diagnostics) > 0 {
				diags = pub.Diagnostics[:1]
			}
			requests := []struct {
				name, method string
				params       any
			}{
				{"semanticTokensFull", protocol.MethodSemanticTokensFull, map[string]any{"textDocument": doc}},
				{"semanticTokensRangeStart", protocol.MethodSemanticTokensRange, map[string]any{"textDocument": doc, "range": startRange}},
				{"semanticTokensRangeEnd", protocol.MethodSemanticTokensRange, map[string]any{"textDocument": doc, "range": endRange}},
				{"hoverStart", protocol.MethodTextDocumentHover, map[string]any{"textDocument": doc, "position": startRange.Start}},
				{"hoverEnd", protocol.MethodTextDocumentHover, map[string]any{"textDocument": doc, "position": endRange.Start}},
				{"folding", protocol.MethodTextDocumentFoldingRange, map[string]any{"textDocument": doc}},
				{"symbols", protocol.MethodTextDocumentDocumentSymbol, map[string]any{"textDocument": doc}},
				{"definition", protocol.MethodTextDocumentDefinition, map[string]any{"textDocument": doc, "position": idAt}},
				{"references", protocol.MethodTextDocumentReferences, map[string]any{"textDocument": doc, "position": parentAt, "context": map[string]any{"includeDeclaration": true}}},
				{"highlight", protocol.MethodTextDocumentDocumentHighlight, map[string]any{"textDocument": doc, "position": parentAt}},
				{"codeAction", protocol.MethodTextDocumentCodeAction, map[string]any{"textDocument": doc, "range": startRange, "context": map[string]any{"diagnostics": diags}}},
			}
			for _, r := range requests {
				b.Run(fmt.Sprintf("%s/%s/%s", shape.name, r.name, benchdata.Name(int64(size))), func(b *testing.B) {
					runtime.GC() // the garbage of the request before is not this one's work
					cpu := benchdata.ProcessCPU()
					for range b.N {
						var res json.RawMessage
						if err := c.Call(r.method, r.params, &res); err != nil {
							b.Fatal(err)
						}
					}
					reportCPU(b, cpu)
				})
			}
			// Diagnostics: a character typed at the end of the line, to the
			// publish of the new version.
			version := int32(1) // across the calls of the function below
			b.Run(fmt.Sprintf("%s/diagnostics/%s", shape.name, benchdata.Name(int64(size))), func(b *testing.B) {
				runtime.GC()
				cpu := benchdata.ProcessCPU()
				for range b.N {
					version++
					c.Change(uri, version, lsptest.Change{Range: &protocol.Range{Start: endRange.End, End: endRange.End}, Text: ""})
					c.WaitDiagnostics(uri, lsptest.AtVersion(version))
					c.ForgetFrames()
				}
				reportCPU(b, cpu)
			})
			c.CloseInput()
			c.ExitCode()
		}
	}
}

// reportCPU reports the process's CPU time per operation since cpu: the
// server's and the client's work, which a busy machine does not inflate
// as it does the wall time.
func reportCPU(b *testing.B, cpu time.Duration) {
	if now := benchdata.ProcessCPU(); now > 0 {
		b.ReportMetric(float64(now-cpu)/float64(b.N), "cpu-ns/op")
	}
}
