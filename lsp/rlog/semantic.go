package rlog

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/analysis"
)

// semanticTokensOptions advertises semantic tokens: protocol v0.12.0's
// SemanticTokensOptions has no legend, full or range (pitfall), so the
// capability is our own struct in its interface{} field.
type semanticTokensOptions struct {
	Legend semanticTokensLegend `json:"legend"`
	Full   bool                 `json:"full"`
	Range  bool                 `json:"range"`
}

type semanticTokensLegend struct {
	TokenTypes     []string `json:"tokenTypes"`
	TokenModifiers []string `json:"tokenModifiers"`
}

var semanticTokensCapability = semanticTokensOptions{
	Legend: semanticTokensLegend{TokenTypes: analysis.SemanticTypeNames, TokenModifiers: analysis.SemanticModifierNames},
	Full:   true,
	Range:  true,
}

type semanticTokensRangeParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
	Range        protocol.Range                  `json:"range"`
}

func semanticTokensFull(ctx context.Context, dc *docCtx, _ *protocol.SemanticTokensParams) (any, error) {
	return encodeSemanticTokens(ctx, dc, 0, dc.Doc.Text.Len())
}

// semanticTokensRange answers with the tokens that overlap the range, and
// reads the document only as far as they are.
func semanticTokensRange(ctx context.Context, dc *docCtx, p *semanticTokensRangeParams) (any, error) {
	start, end := dc.Mapper.Span(p.Range)
	return encodeSemanticTokens(ctx, dc, start, end)
}

// encodeSemanticTokens writes the tokens that overlap bytes [start, end)
// in the protocol's relative form: for each token, the line delta, the
// start delta (from the previous token on the same line), the length, the
// type and the modifiers, all in the negotiated encoding's units. A token
// that an editor line end (a lone CR) cuts is left out.
func encodeSemanticTokens(ctx context.Context, dc *docCtx, start, end int) (any, error) {
	positions := dc.Mapper.Positions()
	data := []uint32{}
	var prevLine, prevChar uint32
	n := 0
	for tok := range analysis.SemanticTokens(dc.Doc.Text.Tree, start, end) {
		if n++; n%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		s, e := positions.Position(tok.Span.Start), positions.Position(tok.Span.End)
		if s.Line != e.Line || e.Character == s.Character {
			continue
		}
		dchar := s.Character
		if s.Line == prevLine {
			dchar -= prevChar
		}
		data = append(data, s.Line-prevLine, dchar, e.Character-s.Character, uint32(tok.Type), uint32(tok.Mods))
		prevLine, prevChar = s.Line, s.Character
	}
	return &protocol.SemanticTokens{Data: data}, nil
}
