package analysis

import (
	"bytes"
	"iter"
	"strings"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// SemanticType is the class of a highlighted token. The names are LSP's
// standard semantic token types, so every theme colours them, and each
// matches a scope of grammar/rlog.tmLanguage.json so colour survives where
// editors switch TextMate off (VS Code above 20 MB).
type SemanticType uint8

const (
	SemKeyword    SemanticType = iota // line prefixes, the header delimiters, "interrupted"
	SemFunction                       // tool and MCP names
	SemProperty                       // metadata and header keys
	SemOperator                       // = and the result arrow
	SemString                         // values, quoted values, JSON, header values
	SemNumber                         // numeric values and timestamps
	SemEnumMember                     // result statuses ([ok], [error], ...) and modes
	SemComment                        // comments and ignored preamble lines
	SemVariable                       // call and message ids
	SemMacro                          // blob and redaction markers
	SemEvent                          // lifecycle events (@start, @init, ...)
	SemNamespace                      // phase names
	SemType                           // subagent types
)

// SemanticTypeNames is the legend, in SemanticType order.
var SemanticTypeNames = []string{"keyword", "function", "property", "operator", "string", "number",
	"enumMember", "comment", "variable", "macro", "event", "namespace", "type"}

// SemanticModifier is a bit set of token modifiers.
type SemanticModifier uint8

const (
	// ModDeclaration marks the id on the line that starts a call.
	ModDeclaration SemanticModifier = 1 << iota
	// ModSuccess, ModFailure and ModPending tell result statuses apart
	// ([ok], [error], [running]), so themes can colour them as the grammar
	// does; the vocabulary's failures ([denied], [interrupted]) are
	// failures too.
	ModSuccess
	ModFailure
	ModPending
)

// SemanticModifierNames is the modifier legend, in bit order.
var SemanticModifierNames = []string{"declaration", "success", "failure", "pending"}

// statusModifier classifies a bracketed status by what it says.
func statusModifier(status []byte) SemanticModifier {
	s := string(bytes.ToLower(bytes.Trim(status, "[]")))
	switch {
	case s == "ok" || s == "done" || s == "loaded" || s == "success" || s == "passed":
		return ModSuccess
	case grammar.StatusFails([]byte(s)) || strings.HasPrefix(s, "fail") || s == "timeout":
		return ModFailure
	case s == "running" || s == "started" || s == "pending" || s == "in_progress":
		return ModPending
	}
	return 0
}

// SemanticToken is one highlighted span on one line.
type SemanticToken struct {
	Line int
	Span grammar.Span // absolute; never crosses a line end
	Type SemanticType
	Mods SemanticModifier
}

// SemanticTokens yields in order the tokens that overlap bytes [start,
// end) (the token at start, for an empty range). Free text (messages,
// results) gets none: it keeps the editor's default colour. It reads the
// lines the range touches, and of the last only as far as the range: a
// request about the start of a long line does not tokenize all of it.
func SemanticTokens(t *grammar.Tree, start, end int) iter.Seq[SemanticToken] {
	end = max(end, start+1)
	return func(yield func(SemanticToken) bool) {
		var toks []grammar.Token
		for l := range t.LinesFrom(t.LineAt(start)) {
			if l.Start >= end {
				return
			}
			if l.Kind == grammar.Empty || l.Kind == grammar.Continuation || l.Kind == grammar.Unknown {
				continue
			}
			li, text := t.Info(l.Num)
			toks = grammar.AppendTokensUntil(toks[:0], text, &li, end-l.Start)
			for _, tok := range toks {
				span := grammar.Span{Start: l.Start + tok.Span.Start, End: l.Start + tok.Span.End}
				if span.End <= start {
					continue
				}
				if span.Start >= end {
					return
				}
				typ, mods, ok := classifyToken(l, &li, text, tok)
				if !ok {
					continue
				}
				if !yield(SemanticToken{Line: l.Num, Span: span, Type: typ, Mods: mods}) {
					return
				}
			}
		}
	}
}

func classifyToken(l grammar.Line, li *grammar.LineInfo, text []byte, tok grammar.Token) (SemanticType, SemanticModifier, bool) {
	switch tok.Kind {
	case grammar.TokFlag:
		return SemKeyword, ModFailure, true
	case grammar.TokPrefix, grammar.TokDelimiter:
		return SemKeyword, 0, true
	case grammar.TokName:
		switch l.Kind {
		case grammar.Lifecycle:
			return SemEvent, 0, true
		case grammar.Phase:
			return SemNamespace, 0, true
		case grammar.Subagent:
			return SemType, 0, true
		case grammar.Mode:
			return SemEnumMember, 0, true
		}
		return SemFunction, 0, true
	case grammar.TokKey, grammar.TokHeaderKey:
		return SemProperty, 0, true
	case grammar.TokEquals, grammar.TokArrow:
		return SemOperator, 0, true
	case grammar.TokValue:
		key, _ := grammar.KeyOf(text[tok.Key.Start:tok.Key.End])
		switch {
		case key.IsRef():
			var mods SemanticModifier
			if key == grammar.KeyID && l.Kind == grammar.ToolStart {
				mods = ModDeclaration
			}
			return SemVariable, mods, true
		case key == grammar.KeyTS || isDigits(text[tok.Span.Start:tok.Span.End]):
			return SemNumber, 0, true
		}
		return SemString, 0, true
	case grammar.TokString, grammar.TokJSON, grammar.TokHeaderValue:
		if tok.Kind == grammar.TokString {
			if key, _ := grammar.KeyOf(text[tok.Key.Start:tok.Key.End]); key.IsRef() {
				return SemVariable, 0, true
			}
		}
		return SemString, 0, true
	case grammar.TokStatus:
		return SemEnumMember, statusModifier(text[tok.Span.Start:tok.Span.End]), true
	case grammar.TokMarker:
		return SemMacro, 0, true
	case grammar.TokComment:
		return SemComment, 0, true
	}
	return 0, 0, false
}

func isDigits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
