package lsp

import (
	"strconv"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/internal/jsonnum"
)

// The two answers of thousands of items, folding ranges and document
// symbols, are encoded here rather than by reflection: segmentio takes
// longer to encode 5000 symbols than the analysis takes to find them. The
// bytes are the codec's (json.Marshal of the same values), so the wire
// does not change.

// EncodeFoldingRanges encodes ranges as json.Marshal does.
func EncodeFoldingRanges(ranges []protocol.FoldingRange) EncodedResult {
	if ranges == nil {
		return EncodedResult("null")
	}
	b := make([]byte, 0, 2+len(ranges)*48)
	b = append(b, '[')
	for i, r := range ranges {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"startLine":`...)
		b = strconv.AppendUint(b, uint64(r.StartLine), 10)
		if r.StartCharacter != 0 {
			b = append(b, `,"startCharacter":`...)
			b = strconv.AppendUint(b, uint64(r.StartCharacter), 10)
		}
		b = append(b, `,"endLine":`...)
		b = strconv.AppendUint(b, uint64(r.EndLine), 10)
		if r.EndCharacter != 0 {
			b = append(b, `,"endCharacter":`...)
			b = strconv.AppendUint(b, uint64(r.EndCharacter), 10)
		}
		if r.Kind != "" {
			b = append(b, `,"kind":`...)
			b = appendString(b, string(r.Kind))
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// EncodeDocumentSymbols encodes syms as json.Marshal does. Like it, it
// fails on a kind or tag that is NaN or infinite.
func EncodeDocumentSymbols(syms []protocol.DocumentSymbol) (EncodedResult, error) {
	if syms == nil {
		return EncodedResult("null"), nil
	}
	b, err := appendDocumentSymbols(make([]byte, 0, 256*countSymbols(syms)), syms)
	return b, err
}

// countSymbols counts syms and their descendants, to size the output once:
// a capped outline is one session holding thousands of symbols.
func countSymbols(syms []protocol.DocumentSymbol) int {
	n := len(syms)
	for i := range syms {
		n += countSymbols(syms[i].Children)
	}
	return n
}

func appendDocumentSymbols(b []byte, syms []protocol.DocumentSymbol) ([]byte, error) {
	var err error
	b = append(b, '[')
	for i := range syms {
		s := &syms[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendString(b, s.Name)
		if s.Detail != "" {
			b = append(b, `,"detail":`...)
			b = appendString(b, s.Detail)
		}
		b = append(b, `,"kind":`...)
		if b, err = jsonnum.AppendFloat(b, float64(s.Kind)); err != nil {
			return nil, err
		}
		if len(s.Tags) > 0 {
			b = append(b, `,"tags":[`...)
			for j, tag := range s.Tags {
				if j > 0 {
					b = append(b, ',')
				}
				if b, err = jsonnum.AppendFloat(b, float64(tag)); err != nil {
					return nil, err
				}
			}
			b = append(b, ']')
		}
		if s.Deprecated {
			b = append(b, `,"deprecated":true`...)
		}
		b = append(b, `,"range":`...)
		b = appendRange(b, s.Range)
		b = append(b, `,"selectionRange":`...)
		b = appendRange(b, s.SelectionRange)
		if len(s.Children) > 0 {
			b = append(b, `,"children":`...)
			if b, err = appendDocumentSymbols(b, s.Children); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
	}
	return append(b, ']'), nil
}

func appendRange(b []byte, r protocol.Range) []byte {
	b = append(b, `{"start":`...)
	b = appendPosition(b, r.Start)
	b = append(b, `,"end":`...)
	b = appendPosition(b, r.End)
	return append(b, '}')
}

func appendPosition(b []byte, p protocol.Position) []byte {
	b = append(b, `{"line":`...)
	b = strconv.AppendUint(b, uint64(p.Line), 10)
	b = append(b, `,"character":`...)
	b = strconv.AppendUint(b, uint64(p.Character), 10)
	return append(b, '}')
}

// safeASCII marks the ASCII bytes a string holds unescaped: not a control
// character, a quote or a backslash, nor one of <, > and & (escaped, as
// json.Marshal does, so the text is safe inside HTML).
var safeASCII = func() (safe [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		safe[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return safe
}()

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string exactly as segmentio's
// json.Marshal does: \n, \r and \t short, other control characters, <, >,
// &, U+2028 and U+2029 as \u00XX / \u20XX, each invalid UTF-8 byte as
// \ufffd. (encoding/json writes the same, except that since Go 1.22 it
// writes \b and \f short.)
// AppendJSONString appends s as json.Marshal encodes a string: for a
// result encoded by hand (EncodedResult) that holds a long text.
func AppendJSONString(b []byte, s string) []byte { return appendString(b, s) }

func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if safeASCII[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
