package grammar

import (
	"bytes"
	"unicode/utf8"
)

// AppendTokensFast is AppendTokens for readers that go through every line
// of a log (the converter): it gives exactly AppendTokens' tokens
// (FuzzAppendTokensFast holds them equal), but instead of reading free text
// word by word it jumps to the next word that can start a token other than
// text, with bytes.IndexByte and bytes.Index. Such a word holds one of '=',
// '@', '[', '<', "→", "->" or is "interrupted" (see skim); the words before
// it are text. A line of prose with its metadata at the end is then read in
// a few jumps rather than a few steps a byte.
func AppendTokensFast(dst []Token, text []byte, li *LineInfo) []Token {
	return appendTokensFast(dst, text, li, nil)
}

// appendTokensFast is AppendTokensFast; with m, the tokenizer gives m each
// key=value it finds, leaving only the key's token in the tokens, and
// takes its next '=' and first arrow from m's searches (LineTokens.Read).
func appendTokensFast(dst []Token, text []byte, li *LineInfo, m *lineMeta) []Token {
	ts, te := li.Trim.Start, li.Trim.End
	if ts >= te {
		return dst
	}
	switch li.Kind {
	case Preamble, HeaderDelimiter, HeaderLine:
		return AppendTokens(dst, text, li)
	case Comment:
		out := append(dst, Token{Kind: TokPrefix, Span: Span{ts, ts + 1}})
		return skimRest(text, out, li.Content, te, TokComment, m)
	case Unknown, Continuation, Empty:
		return skimRest(text, dst, ts, te, TokText, m)
	}
	prefixEnd := ts + len(li.Kind.Prefix())
	out := append(dst, Token{Kind: TokPrefix, Span: Span{ts, prefixEnd}})
	from := prefixEnd
	if li.Name.Valid() {
		out = append(out, Token{Kind: TokName, Span: li.Name})
		from = li.Name.End
	}
	return skimRest(text, out, from, te, TokText, m)
}

// skimRest is tokenizeRest (and must stay token for token the same), but
// after a word of text it jumps over the plain words that follow it. With
// m, it gives each key=value to m (a key token in out, the pair in
// m.pairs: lineMeta.key) and searches with m (skim.meta).
func skimRest(text []byte, out []Token, from, to int, textKind TokenKind, m *lineMeta) []Token {
	t := text[:to]
	sk := skim{t: t, meta: m}
	if m != nil && from >= m.content {
		// The content's first arrow: the first from here on when it is not
		// before here (when it is, next searches again).
		sk.found[arrowSkim] = m.arrow + 1
	}
	afterArrow := false
	for i := from; ; {
		// The next token starts after the white space at i. At a
		// printable ASCII byte, or after one space before one (nearly
		// every token), that is tested here without skipSpace's call;
		// so is a character beyond ASCII that is no white space (the
		// arrow of every result, nonSpaceAt), which skipSpace would
		// decode and look up.
		if i < to && t[i]-'!' >= 0x80-'!' {
			switch {
			case t[i] == ' ' && i+1 < to && (t[i+1]-'!' < 0x80-'!' || nonSpaceAt(t, i+1)):
				i++
			case nonSpaceAt(t, i):
			default:
				i = skipSpace(t, i)
			}
		}
		if i >= to {
			break
		}
		switch {
		case arrowAt(t, i):
			out = append(out, Token{Kind: TokArrow, Span: Span{i, i + len(arrow)}})
			i += len(arrow)
			afterArrow = true
			continue
		case afterArrow && t[i] == '[':
			afterArrow = false
			if e := bytes.IndexByte(t[i:], ']'); e > 0 && !bytes.HasPrefix(t[i:], []byte("[redacted:")) {
				out = append(out, Token{Kind: TokStatus, Span: Span{i, i + e + 1}})
				i += e + 1
				continue
			}
		case t[i] == '-' && i+1 < to && t[i+1] == '>' && (i+2 == to || t[i+2] == ' ' || t[i+2] == '\t'):
			out = append(out, Token{Kind: TokArrow, Span: Span{i, i + 2}})
			i += 2
			continue
		}
		afterArrow = false
		if markerByte[t[i]] {
			if e, ok := markerAt(t, i); ok {
				out = append(out, Token{Kind: TokMarker, Span: Span{i, e}})
				i = e
				continue
			}
		}
		if m != nil && m.next > i && m.next-i <= 16 {
			if k, ok := m.knownKey(i); ok {
				// A key of the table's up to the next '=': the pair
				// read as below, with the key found.
				ke := m.next
				out = append(out, Token{Kind: TokKey, Span: Span{i, ke}})
				kind, ve := valueAt(t, ke+1, to, true)
				m.key(i, ke, k, kind, ve)
				i = ve
				continue
			}
		}
		if ks, ke, ok := keyAtASCII(t, i); ok {
			if m != nil {
				// appendKeyValue, the '=' and value kept in m's pair.
				out = append(out, Token{Kind: TokKey, Span: Span{ks, ke}})
				kind, ve := valueAt(t, ke+1, to, true)
				m.key(ks, ke, lookUp, kind, ve)
				i = ve
			} else {
				out, i = appendKeyValue(t, out, ks, ke, to)
			}
			continue
		}
		e := skipNonSpace(t, i)
		if e == i {
			e = i + 1
		}
		if bytes.Equal(t[i:e], []byte(Interrupted)) {
			out = append(out, Token{Kind: TokFlag, Span: Span{i, e}})
			i = e
			continue
		}
		if n := len(out); n > 0 && out[n-1].Kind == textKind {
			out[n-1].Span.End = e // one token per run of words
		} else {
			out = append(out, Token{Kind: textKind, Span: Span{i, e}})
		}
		// The words up to the one the next skim byte is in are text too:
		// the run ends at the last of them, and the tokenizer goes on at
		// that word.
		i = e
		if i >= to {
			break
		}
		p := sk.next(i)
		if p >= to {
			out[len(out)-1].Span.End = to
			break
		}
		w := wordStart(t, p, i)
		if end := spaceStart(t, w, i); end > i {
			out[len(out)-1].Span.End = end
		}
		i = w
	}
	return out
}

// nonSpaceAt reports whether t[i], a byte beyond ASCII, starts a
// character that is no white space, so that skipSpace(t, i) is i, without
// decoding it: white space beyond ASCII is U+0085 and U+00A0 (first byte
// 0xC2), U+1680 (0xE1), U+2000–U+200A, U+2028, U+2029, U+202F and U+205F
// (0xE2, then 0x80 or 0x81) and U+3000 (0xE3); any other first byte,
// or 0xE2 before 0x82 to 0xBF ("→" is E2 86 92), starts another
// character, and a byte that starts none is read as U+FFFD, no white
// space either. It answers false for an ASCII byte and where it cannot
// tell (the caller then asks skipSpace). TestNonSpaceAt holds it to
// skipSpace for every first two bytes.
func nonSpaceAt(t []byte, i int) bool {
	switch c := t[i]; {
	case c < 0x80 || c == 0xC2 || c == 0xE1 || c == 0xE3:
		return false
	case c == 0xE2:
		return i+1 < len(t) && t[i+1] >= 0x82
	}
	return true
}

// arrowAt reports whether t[i:] starts with "→" (bytes.HasPrefix(t[i:],
// arrow)), testing its bytes in place: the skim asks it at every token,
// and a call to compare three bytes cost more than the rest of the test.
// TestArrowAt holds it to bytes.HasPrefix.
func arrowAt(t []byte, i int) bool {
	const a = "→" // arrow's bytes, as constants
	return i+len(a) <= len(t) && t[i] == a[0] && t[i+1] == a[1] && t[i+2] == a[2]
}

// keyAtASCII is keyAt reading ASCII bytes straight from the word table,
// without decoding each as a rune; at the first byte that is not ASCII it
// leaves the word to keyAt. Keys are ASCII in nearly every log. Its loop
// is asked about every key and the first word of every run of text: a
// byte is one lookup in a table of 256 (keyByte), with no test for the
// end of ASCII or the first byte's rule inside it.
func keyAtASCII(t []byte, i int) (int, int, bool) {
	e := i
	if e < len(t) && wordByte[t[e]] { // a key starts with a word byte
		e++
		for e < len(t) && keyByte[t[e]] {
			e++
		}
	}
	if e < len(t) && t[e] >= 0x80 {
		return keyAt(t, i)
	}
	if e == i || e >= len(t) || t[e] != '=' {
		return 0, 0, false
	}
	return i, e, true
}

// wordByte has the ASCII word bytes (asciiWord's), and keyByte those and
// '.' and '-', which a key holds after its first byte (keyAt); both are
// filled with asciiWord.
var wordByte, keyByte [256]bool

// skim finds, in a line, the next byte a word that is not plain text can
// hold: '=' (a key), '@', '[' or '<' (markers), and the starts of "→",
// "->" and "interrupted". Each is searched for with bytes.IndexByte or
// bytes.Index, and again only once the tokenizer has gone past it.
type skim struct {
	t     []byte
	found [7]int // where each was found, +1 (0: not searched yet)
	// meta, when set, finds the next '=' for the skim: the one search
	// for '=' of the line (lineMeta).
	meta *lineMeta
}

var (
	skimBytes   = [...]byte{'=', '@', '[', '<'}
	skimStrings = [...][]byte{arrow, []byte("->"), []byte(Interrupted)}
)

// arrowSkim is the index in skim.found of the arrow "→".
const arrowSkim = len(skimBytes)

// skimAnchors are, for "->" and "interrupted", the byte of each that
// skim looks for first (indexAt): the rarest in prose, not the first.
var skimAnchors = [len(skimStrings)]int{arrowSkim - len(skimBytes): 0, 1, len("interru")}

// indexAt is bytes.Index(s, pat), looking for pat[anchor] first (with
// bytes.IndexByte) where bytes.Index would look for pat[0]: a pattern is
// found at i only where pat[anchor] is at i+anchor, so the first such
// byte that pat is around is the first pat. A rare anchor ('>' of "->",
// 'p' of "interrupted") makes fewer false starts than a common first byte
// ('-' in every date, 'i' in prose). FuzzIndexAt holds it to bytes.Index.
func indexAt(s, pat []byte, anchor int) int {
	for off := anchor; off < len(s); {
		j := bytes.IndexByte(s[off:], pat[anchor])
		if j < 0 {
			return -1
		}
		at := off + j - anchor
		// The first byte before the call: most anchors found are in
		// words that are not pat.
		if s[at] == pat[0] && bytes.HasPrefix(s[at:], pat) {
			return at
		}
		off += j + 1
	}
	return -1
}

// next returns the first position at or after from that holds one of
// skim's bytes or strings, or len(t). Each is searched for again only
// when the tokenizer has gone past where it was found; the seven are
// written out, not looped over with a switch on which one it is (the
// loop and its switch cost more than the tests of the ones still ahead).
func (s *skim) next(from int) int {
	n := len(s.t)
	rest := s.t[from:]
	f := &s.found
	if f[0] <= from { // found[k]-1 < from: searched again
		if m := s.meta; m != nil && from >= m.content {
			// The next '=' as the line's metadata search finds it.
			eq, _ := m.nextEq(from)
			f[0] = eq + 1
		} else {
			f[0] = foundAt(from, bytes.IndexByte(rest, '='), n)
		}
	}
	if f[1] <= from {
		f[1] = foundAt(from, bytes.IndexByte(rest, skimBytes[1]), n)
	}
	if f[2] <= from {
		f[2] = foundAt(from, bytes.IndexByte(rest, skimBytes[2]), n)
	}
	if f[3] <= from {
		f[3] = foundAt(from, bytes.IndexByte(rest, skimBytes[3]), n)
	}
	if f[arrowSkim] <= from {
		if m := s.meta; m != nil && from >= m.content && from > m.lastArrow {
			f[arrowSkim] = n + 1 // past the line's last arrow, which the UTF-8 check found
		} else {
			f[arrowSkim] = foundAt(from, bytes.Index(rest, arrow), n)
		}
	}
	if f[arrowSkim+1] <= from {
		f[arrowSkim+1] = foundAt(from, indexAt(rest, skimStrings[1], skimAnchors[1]), n)
	}
	if f[arrowSkim+2] <= from {
		f[arrowSkim+2] = foundAt(from, indexAt(rest, skimStrings[2], skimAnchors[2]), n)
	}
	return min(f[0], f[1], f[2], f[3], f[4], f[5], f[6]) - 1
}

// next writes out the seven searches of skim.found: a skim byte or string
// added is a compile error here until next searches for it.
var (
	_ [len(skim{}.found) - len(skimBytes) - len(skimStrings)]struct{}
	_ [len(skimBytes) + len(skimStrings) - len(skim{}.found)]struct{}
	_ [len(skim{}.found) - 7]struct{}
	_ [7 - len(skim{}.found)]struct{}
)

// foundAt is skim.found's entry for a search from from that gave j (-1:
// none) in a line of n bytes: where it was found, or n, plus one.
func foundAt(from, j, n int) int {
	if j < 0 {
		return n + 1
	}
	return from + j + 1
}

// wordStart is the start of the word (run of non-white-space) that holds
// t[p], looking back no further than lo.
func wordStart(t []byte, p, lo int) int {
	for p > lo {
		// An ASCII byte (nearly all) tested in place, not by
		// spaceBefore's call.
		if c := t[p-1]; c < 0x80 {
			if asciiSpace[c] {
				return p
			}
			p--
			continue
		}
		ok, n := spaceBefore(t, p)
		if ok {
			return p
		}
		p -= n
	}
	return lo
}

// spaceStart is the start of the run of white space that ends at w,
// looking back no further than lo.
func spaceStart(t []byte, w, lo int) int {
	for w > lo {
		if c := t[w-1]; c < 0x80 { // as in wordStart
			if !asciiSpace[c] {
				return w
			}
			w--
			continue
		}
		ok, n := spaceBefore(t, w)
		if !ok {
			return w
		}
		w -= n
	}
	return lo
}

// spaceBefore reports whether the character ending at b[:i] (i > 0) is
// white space, and its length.
func spaceBefore(b []byte, i int) (bool, int) {
	if c := b[i-1]; c < 0x80 {
		return asciiSpace[c], 1
	}
	r, n := utf8.DecodeLastRune(b[:i])
	return isSpaceRune(r), n
}
