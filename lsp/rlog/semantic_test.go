package rlog

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/lsp"
)

// lookupCounter is a document text that counts the editor line lookups
// made through it: the cost of mapping offsets to positions.
type lookupCounter struct {
	Doc
	lookups *int
}

func (c lookupCounter) EditorLineAt(off int) int  { *c.lookups++; return c.Doc.EditorLineAt(off) }
func (c lookupCounter) EditorLineStart(l int) int { *c.lookups++; return c.Doc.EditorLineStart(l) }
func (c lookupCounter) EditorLineEnd(l int) int   { *c.lookups++; return c.Doc.EditorLineEnd(l) }
func (c lookupCounter) EditorLineBounds(off int) (int, int, int) {
	*c.lookups++
	return c.Doc.EditorLineBounds(off)
}

// Semantic tokens on a line that holds a lone CR look up each editor line
// once, not each token's (issue 18: 32,000 arrows after `a: x\r` took 14 s,
// each token's position found from the start of its line), and a range
// request gives the tokens in the range only.
func TestSemanticTokensOnALoneCRLine(t *testing.T) {
	const arrows = 20000
	src := "---\nid: s\n---\na: x\r" + strings.Repeat("→", arrows) + "\n"
	doc := Parse([]byte(src))
	for _, enc := range []lsp.PositionEncoding{lsp.UTF16, lsp.UTF8} {
		lookups := 0
		dc := &docCtx{Doc: &lsp.Document[Doc]{URI: testURI, Text: doc}, Mapper: lsp.Mapper{Text: lookupCounter{doc, &lookups}, Encoding: enc},
			Session: &lsp.Session{Encoding: enc}}
		res, err := encodeSemanticTokens(context.Background(), dc, 0, doc.Len())
		if err != nil {
			t.Fatal(err)
		}
		data := res.(*protocol.SemanticTokens).Data
		width := uint32(1) // an arrow is one UTF-16 unit, three bytes
		if enc == lsp.UTF8 {
			width = 3
		}
		// ---, id, s1, ---, a:, then the arrows from editor line 4 on.
		if got := len(data) / 5; got != 5+arrows {
			t.Fatalf("%v: %d tokens, want %d", enc, got, 5+arrows)
		}
		if arrow := data[5*5 : 5*5+5]; arrow[0] != 1 || arrow[1] != 0 || arrow[2] != width || arrow[3] != uint32(analysis.SemOperator) {
			t.Fatalf("%v: first arrow %v", enc, arrow)
		}
		if last := data[len(data)-5:]; last[0] != 0 || last[1] != width {
			t.Fatalf("%v: last arrow %v", enc, last)
		}
		if lookups > 20 {
			t.Fatalf("%v: %d editor line lookups for %d tokens on 5 editor lines", enc, lookups, len(data)/5)
		}
	}
	// Ten characters of that line: ten arrows.
	c := start(t, "", nil)
	open(t, c, testURI, src)
	var res protocol.SemanticTokens
	_ = json.Unmarshal(call(t, c, protocol.MethodSemanticTokensRange, map[string]any{"textDocument": map[string]any{"uri": testURI},
		"range": protocol.Range{Start: protocol.Position{Line: 4, Character: 100}, End: protocol.Position{Line: 4, Character: 110}}}), &res)
	if len(res.Data) != 10*5 || res.Data[0] != 4 || res.Data[1] != 100 {
		t.Fatalf("range of 10 characters: %d tokens, from %v", len(res.Data)/5, res.Data[:min(5, len(res.Data))])
	}
}
