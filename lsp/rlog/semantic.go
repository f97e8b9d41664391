package rlog

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/grammar"
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
	return encodeSemanticTokens(ctx, dc, 0, dc.Doc.Text.LineCount())
}

func semanticTokensRange(ctx context.Context, dc *docCtx, p *semanticTokensRangeParams) (any, error) {
	t := dc.Doc.Text.Tree
	start, end := dc.Mapper.Span(p.Range)
	return encodeSemanticTokens(ctx, dc, t.LineAt(start), t.LineAt(end)+1)
}

// encodeSemanticTokens writes tokens in the protocol's relative form: for
// each token, the line delta, the start delta (from the previous token on
// the same line), the length, the type and the modifiers, all in the
// negotiated encoding's units.
func encodeSemanticTokens(ctx context.Context, dc *docCtx, from, to int) (any, error) {
	t := dc.Doc.Text.Tree
	enc := dc.Session.Encoding
	data := []uint32{}
	var prevLine, prevChar uint32
	var (
		curLine             = -1
		lineText            []byte
		lineStart, editLine int
		col, colOff         int // column of byte colOff of the current line
		loneCR              bool
	)
	n := 0
	for tok := range analysis.SemanticTokens(t, from, to) {
		if n++; n%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if tok.Line != curLine {
			l := t.Line(tok.Line)
			curLine, lineText, lineStart = tok.Line, t.Text(l), l.Start
			loneCR = l.Flags&grammar.FlagLoneCR != 0
			editLine = int(dc.Mapper.Position(l.Start).Line)
			col, colOff = 0, 0
		}
		var line, startChar, length int
		if loneCR {
			// An editor line ends inside this line: map each end exactly,
			// and skip a token that would cross an editor line end.
			s, e := dc.Mapper.Position(tok.Span.Start), dc.Mapper.Position(tok.Span.End)
			if s.Line != e.Line {
				continue
			}
			line, startChar, length = int(s.Line), int(s.Character), int(e.Character-s.Character)
		} else {
			s, e := tok.Span.Start-lineStart, tok.Span.End-lineStart
			col += enc.Count(lineText[colOff:s])
			colOff = s
			line, startChar, length = editLine, col, enc.Count(lineText[s:e])
		}
		if length == 0 {
			continue
		}
		dl := uint32(line) - prevLine
		dchar := uint32(startChar)
		if dl == 0 {
			dchar -= prevChar
		}
		data = append(data, dl, dchar, uint32(length), uint32(tok.Type), uint32(tok.Mods))
		prevLine, prevChar = uint32(line), uint32(startChar)
	}
	return &protocol.SemanticTokens{Data: data}, nil
}
