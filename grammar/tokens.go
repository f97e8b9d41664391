package grammar

import "bytes"

// TokenKind is the lexical class of a token.
type TokenKind uint8

const (
	TokPrefix      TokenKind = iota // u:, t!:, #, @ ...
	TokName                         // tool, subagent, skill, plan or MCP name; @verb; phase name
	TokKey                          // the key of key=value
	TokEquals                       // the = of key=value
	TokValue                        // an unquoted value
	TokString                       // a quoted value (quotes included, never unescaped)
	TokJSON                         // a {...} or [...] value
	TokArrow                        // → (or a stray ASCII -> where → was meant)
	TokStatus                       // [ok], [error], [running] ... right after the arrow
	TokText                         // free text
	TokMarker                       // @blob sha256=..., [redacted:kind], [REDACTED]
	TokFlag                         // the bare word "interrupted"
	TokDelimiter                    // the header's ---
	TokHeaderKey                    // a header key
	TokHeaderValue                  // a header value
	TokComment                      // comment text, and ignored preamble lines
)

var tokenKindNames = [...]string{"prefix", "name", "key", "equals", "value", "string", "json", "arrow",
	"status", "text", "marker", "flag", "delimiter", "header_key", "header_value", "comment"}

func (k TokenKind) String() string { return tokenKindNames[k] }

// Token is a classified byte range of a line, relative to the line start.
// Bytes not covered by any token are whitespace.
type Token struct {
	Kind TokenKind
	Span Span
	Key  Span // for TokValue/TokString/TokJSON: the key it belongs to
}

// Tokenize splits a line of the given kind into tokens. It never fails:
// unbalanced quotes and brackets end at the next plausible boundary.
func Tokenize(text []byte, li *LineInfo) []Token { return AppendTokens(nil, text, li) }

// AppendTokens is Tokenize appending to dst, so that a reader going through
// many lines reuses one list.
func AppendTokens(dst []Token, text []byte, li *LineInfo) []Token {
	return AppendTokensUntil(dst, text, li, len(text))
}

// AppendTokensUntil is AppendTokens as far as the tokens that start before
// byte stop: they are exactly the first tokens AppendTokens makes (a key's
// = and value come with it, and the prefix and name of the line), and what
// follows them is not read, so a request about the start of a long line
// does not tokenize all of it.
func AppendTokensUntil(dst []Token, text []byte, li *LineInfo, stop int) []Token {
	ts, te := li.Trim.Start, li.Trim.End
	if ts >= te {
		return dst
	}
	first := len(dst) // the line's first token; dst may hold other lines'
	out := dst
	switch li.Kind {
	case Preamble:
		return append(out, Token{Kind: TokComment, Span: Span{ts, te}})
	case HeaderDelimiter:
		return append(out, Token{Kind: TokDelimiter, Span: Span{ts, te}})
	case HeaderLine:
		return tokenizeHeaderLine(out, text, ts, te)
	case Comment:
		out = append(out, Token{Kind: TokPrefix, Span: Span{ts, ts + 1}})
		// A comment is text, but metadata in it is still read (reference), so
		// its key=value pairs are tokens too.
		return tokenizeRest(text, out, first, li.Content, te, TokComment, stop)
	case Unknown, Continuation, Empty:
		return tokenizeRest(text, out, first, ts, te, TokText, stop)
	}
	prefixEnd := ts + len(li.Kind.Prefix())
	out = append(out, Token{Kind: TokPrefix, Span: Span{ts, prefixEnd}})
	from := prefixEnd
	if li.Name.Valid() {
		out = append(out, Token{Kind: TokName, Span: li.Name})
		from = li.Name.End
	}
	return tokenizeRest(text, out, first, from, te, TokText, stop)
}

// tokenizeRest tokenizes text[from:to] as a sequence of key=value pairs,
// markers, arrows and free text, appending to out, whose tokens from first
// on are the line's. It stops before the first token that starts at or
// after stop. Every byte is read a bounded number of times, whatever the
// line holds.
func tokenizeRest(text []byte, out []Token, first, from, to int, textKind TokenKind, stop int) []Token {
	t := text[:to]
	afterArrow := false
	closing := -2 // the next ']' at or after i once looked for; -1: none in the rest of the line
	lastRun := func() bool { n := len(out); return n > first && out[n-1].Kind == textKind }
	for i := skipSpace(t, from); i < to; i = skipSpace(t, i) {
		// Past stop only a word that extends the run of text before it is
		// read; anything that would start a token ends the work.
		past := i >= stop
		if past && !lastRun() {
			return out
		}
		switch {
		case bytes.HasPrefix(t[i:], arrow):
			if past {
				return out
			}
			out = append(out, Token{Kind: TokArrow, Span: Span{i, i + len(arrow)}})
			i += len(arrow)
			afterArrow = true
			continue
		case afterArrow && t[i] == '[':
			afterArrow = false
			if closing != -1 && closing < i {
				closing = -1
				if e := bytes.IndexByte(t[i:], ']'); e >= 0 {
					closing = i + e
				}
			}
			if closing > i && !bytes.HasPrefix(t[i:], []byte("[redacted:")) {
				if past {
					return out
				}
				out = append(out, Token{Kind: TokStatus, Span: Span{i, closing + 1}})
				i = closing + 1
				continue
			}
		case t[i] == '-' && i+1 < to && t[i+1] == '>' && (i+2 == to || t[i+2] == ' ' || t[i+2] == '\t'):
			if past {
				return out
			}
			out = append(out, Token{Kind: TokArrow, Span: Span{i, i + 2}})
			i += 2
			continue
		}
		afterArrow = false
		if e, ok := markerAt(t, i); ok {
			if past {
				return out
			}
			out = append(out, Token{Kind: TokMarker, Span: Span{i, e}})
			i = e
			continue
		}
		if ks, ke, ok := keyAt(t, i); ok {
			if past {
				return out
			}
			out, i = appendKeyValue(t, out, ks, ke, to)
			continue
		}
		e := skipNonSpace(t, i)
		if e == i {
			e = i + 1
		}
		switch {
		case bytes.Equal(t[i:e], []byte(Interrupted)):
			if past {
				return out
			}
			out = append(out, Token{Kind: TokFlag, Span: Span{i, e}})
		case lastRun():
			out[len(out)-1].Span.End = e // one token per run of words
		default:
			out = append(out, Token{Kind: textKind, Span: Span{i, e}})
		}
		i = e
	}
	return out
}

// keyAt recognises "key=" at i, where key is a run of word characters, dots
// and hyphens (id, file_path, extra.eval_suite, session-id).
func keyAt(t []byte, i int) (int, int, bool) {
	e := i
	for e < len(t) {
		if ok, n := wordAt(t, e); ok {
			e += n
			continue
		}
		if (t[e] == '.' || t[e] == '-') && e > i {
			e++
			continue
		}
		break
	}
	if e == i || e >= len(t) || t[e] != '=' {
		return 0, 0, false
	}
	return i, e, true
}

// valueAt returns the kind and end of the value starting at i. With
// markers, a value that is a blob or redaction marker is one (TokMarker),
// as a key=value's value is (appendKeyValue, skimRest with lineMeta).
func valueAt(t []byte, i, to int, markers bool) (TokenKind, int) {
	if i >= to {
		return TokValue, i
	}
	if markers && markerByte[t[i]] {
		if me, ok := markerAt(t, i); ok {
			return TokMarker, me
		}
	}
	switch t[i] {
	case '"':
		return TokString, quotedEnd(t, i, to)
	case '{', '[':
		if e, ok := jsonEnd(t, i, to); ok {
			return TokJSON, e
		}
		return TokJSON, to
	}
	return TokValue, skipNonSpace(t, i)
}

// quotedEnd finds the end of a quoted value. Real logs hold values such as
// cmd="git stash push -m "x" && gi..." whose inner quotes are not escaped, so
// the closing quote is the last one before the next key=, arrow or line end
// that is followed by whitespace.
func quotedEnd(t []byte, q, to int) int {
	closesAt := func(i int) bool {
		return i+1 == to || i+1 < to && (t[i+1] == ' ' || t[i+1] == '\t' || bytes.HasPrefix(t[i+1:], arrow))
	}
	end := -1
	for i := q + 1; i < to; i++ {
		if t[i] == '\\' {
			i++
			continue
		}
		if t[i] == '"' && closesAt(i) {
			end = i + 1
			break
		}
	}
	if end < 0 {
		return to
	}
	limit := to
	for i := end; i < to; i++ {
		if bytes.HasPrefix(t[i:], arrow) {
			limit = i
			break
		}
		// No key starts at an arrow (no word character): the arrow after
		// a quoted value (` → [ok]`), found on the next byte, is not
		// decoded and looked up in Unicode's tables for a key's first
		// character. keyAtASCII is keyAt reading an ASCII word a lookup
		// a byte.
		if (t[i] == ' ' || t[i] == '\t') && i+1 < to && !arrowAt(t, i+1) {
			if _, _, ok := keyAtASCII(t, i+1); ok {
				limit = i
				break
			}
		}
	}
	for i := limit - 1; i >= end; i-- {
		if t[i] == '"' && closesAt(i) {
			return i + 1
		}
	}
	return end
}

// jsonEnd finds the bracket that balances t[i], honouring JSON strings.
func jsonEnd(t []byte, i, to int) (int, bool) {
	depth := 0
	inStr := false
	for j := i; j < to; j++ {
		c := t[j]
		if inStr {
			switch c {
			case '\\':
				j++
			case '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1, true
			}
		}
	}
	return to, false
}

// markerByte has the bytes a marker starts with: '@' (@blob), '[' and
// '<' (redactions). The hot callers of markerAt test it first: a byte that
// starts no marker (nearly every one) is answered without a call.
var markerByte = [256]bool{'@': true, '[': true, '<': true}

// markerAt recognises a blob or redaction marker starting at i.
func markerAt(t []byte, i int) (int, bool) {
	switch t[i] {
	case '@':
		if m, ok := blobMarkerAt(t, i); ok {
			return m.Marker.End, true
		}
	case '[', '<':
		if m, ok := redactionMarkerAt(t, i); ok {
			return m.Span.End, true
		}
	}
	return 0, false
}

func tokenizeHeaderLine(out []Token, text []byte, ts, te int) []Token {
	i := ts
	if text[i] == '#' {
		return append(out, Token{Kind: TokComment, Span: Span{ts, te}})
	}
	if text[i] == '-' && (i+1 == te || text[i+1] == ' ') {
		out = append(out, Token{Kind: TokPrefix, Span: Span{i, i + 1}})
		if v := skipSpace(text, i+1); v < te {
			out = append(out, Token{Kind: TokHeaderValue, Span: Span{v, headerValueEnd(text, v, te)}})
		}
		return out
	}
	colon := bytes.IndexByte(text[i:te], ':')
	if colon <= 0 {
		return append(out, Token{Kind: TokHeaderValue, Span: Span{ts, te}})
	}
	out = append(out, Token{Kind: TokHeaderKey, Span: Span{i, i + colon}})
	if v := skipSpace(text[:te], i+colon+1); v < te {
		if text[v] == '#' {
			return append(out, Token{Kind: TokComment, Span: Span{v, te}})
		}
		ve := headerValueEnd(text, v, te)
		out = append(out, Token{Kind: TokHeaderValue, Span: Span{v, ve}})
		if c := skipSpace(text[:te], ve); c < te {
			out = append(out, Token{Kind: TokComment, Span: Span{c, te}})
		}
	}
	return out
}

// headerValueEnd stops a plain YAML value before a " #" comment.
func headerValueEnd(text []byte, v, te int) int {
	if text[v] == '"' || text[v] == '\'' {
		return te
	}
	if c := bytes.Index(text[v:te], []byte(" #")); c >= 0 {
		_, e := trimBounds(text[:v+c])
		return e
	}
	return te
}

// Pairs returns the key=value pairs of a line in order, with values exactly as
// written (quotes kept). Keys are any word, not just the known metadata keys.
func Pairs(text []byte, li *LineInfo) []Pair { return PairsUntil(text, li, len(text)) }

// PairsUntil is Pairs as far as the pairs whose key starts before byte
// stop (see AppendTokensUntil).
func PairsUntil(text []byte, li *LineInfo, stop int) []Pair {
	var out []Pair
	toks := AppendTokensUntil(nil, text, li, stop)
	for i, tok := range toks {
		if tok.Kind != TokKey {
			continue
		}
		p := Pair{Key: tok.Span}
		if i+2 < len(toks) && toks[i+2].Key == tok.Span {
			p.Value = toks[i+2].Span
		}
		out = append(out, p)
	}
	return out
}

// Pair is one key=value in a line.
type Pair struct{ Key, Value Span }

// ValueOf finds the first key=value whose key is exactly key (a whole word
// before '=') at or after from, and returns the value's span, read with the
// tokenizer's lenient rules for quotes and JSON.
func ValueOf(text []byte, key string, from int) (Span, bool) {
	pat := make([]byte, 0, len(key)+1)
	pat = append(append(pat, key...), '=')
	for i := from; i < len(text); {
		j := bytes.Index(text[i:], pat)
		if j < 0 {
			return Span{}, false
		}
		j += i
		i = j + len(pat)
		if j > 0 {
			if c := text[j-1]; c != ' ' && c != '\t' && c != ':' {
				continue
			}
		}
		_, end := valueAt(text, i, len(text), false)
		if end > i {
			return Span{i, end}, true
		}
	}
	return Span{}, false
}

// appendKeyValue appends the tokens of the key=value whose key is t[ks:ke]
// (the '=' at ke), its value read up to to, and returns where it ends: one
// home for both tokenizers (AppendTokens and AppendTokensFast).
func appendKeyValue(t []byte, out []Token, ks, ke, to int) ([]Token, int) {
	out = append(out,
		Token{Kind: TokKey, Span: Span{ks, ke}},
		Token{Kind: TokEquals, Span: Span{ke, ke + 1}})
	vs := ke + 1
	kind, ve := valueAt(t, vs, to, true)
	if ve > vs {
		out = append(out, Token{Kind: kind, Span: Span{vs, ve}, Key: Span{ks, ke}})
	}
	return out, ve
}
