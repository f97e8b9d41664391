package lsp

import (
	"strings"
	"testing"

	"github.com/segmentio/encoding/json"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// BenchmarkOpenLargeDocument measures the wire side of opening a 10 MB
// document: decoding the frame and the didOpen params (the parse itself
// is the text type's).
func BenchmarkOpenLargeDocument(b *testing.B) {
	text := strings.Repeat("o: id=c1 ts=2025-12-19T20:29:02Z → [ok] \"quoted\" é 😀\n", 10<<20/60)
	body, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "method": "textDocument/didOpen",
		"params": protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: "file:///big.rlog", Version: 1, Text: text}},
	})
	if err != nil {
		b.Fatal(err)
	}
	s := newWireStream(nil, zap.NewNop(), nil)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		msg, _, rejection := s.decode(body)
		if rejection != nil {
			b.Fatal(rejection)
		}
		var p didOpenParams
		if err := decodeParams(s.takeParams(msg.(jsonrpc2.Request)), &p); err != nil {
			b.Fatal(err)
		}
		if len(p.TextDocument.Text) != len(text) {
			b.Fatal("text lost")
		}
	}
}

// BenchmarkPositionLongLine maps the end of a 1 MB line, mostly ASCII.
func BenchmarkPositionLongLine(b *testing.B) {
	line := strings.Repeat("x", 1<<20) + "é"
	m := Mapper{Text: newPlainText([]byte(line)), Encoding: UTF16}
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if p := m.Position(len(line)); p.Character != 1<<20+1 {
			b.Fatal(p)
		}
	}
}
