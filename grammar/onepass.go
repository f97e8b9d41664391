package grammar

import "bytes"

// LineTokens is one body line read in one pass, for a reader of events (the
// rlog reader of the conversions): what ClassifyLine gives of it (Info), the
// tokens AppendTokensFast gives (Tokens), and the key of each key=value in
// the table (Keys), found while the line was read. FuzzReadLine holds Info
// and Tokens equal to ClassifyLine's and AppendTokensFast's, and Keys to
// KeyOf of each key token.
type LineTokens struct {
	Info   LineInfo
	Tokens []Token
	// Keys has, for each TokKey token in order, the key it spells
	// (KeyOf), or NumKeys when it spells none.
	Keys []Key
}

// Read reads text, a line after the header without its terminator, into
// lt, reusing lt's lists. The line is read once: the tokenizer passes over
// it, and the metadata the rules read (Info.Meta) and the first result
// arrow (Info.Arrow) are found in the same pass, from the same searches
// for '=' and "→" that the tokenizer makes (lineMeta); the first arrow is
// found by the UTF-8 check, which reads every multi-byte character anyway
// (validUTF8Arrow).
func (lt *LineTokens) Read(text []byte) {
	lt.Info = LineInfo{}
	li := &lt.Info
	te := classifyLine(text, li)
	valid, arrowAt := validUTF8Arrow(text, li.Content)
	if !valid {
		li.Flags |= FlagInvalidUTF8
	}
	m := lineMeta{t: text[:te], li: li, content: li.Content, keys: lt.Keys[:0]}
	m.start(valid, arrowAt)
	lt.Tokens = appendTokensFast(lt.Tokens[:0], text, li, &m)
	m.upTo(te)
	lt.Keys = m.keys
	if a := m.arrow; a < te {
		li.Arrow = Span{a, a + len(arrow)}
		if r := skipSpace(text[:te], a+len(arrow)); r < te {
			li.Result = Span{r, te}
		}
	}
}

// lineMeta finds a line's metadata as the rules read it (scanBytes: for
// each of the format's keys, the first \bkey= in the content with a value
// of its class) while the tokenizer reads the line. Every '=' of the
// content is found once, in order, with bytes.IndexByte; the tokenizer's
// skim takes its next '=' from the same search. A '=' the tokenizer made a
// key=value of is read from the key it found (keyAt); any other (in a
// quoted value, a JSON value, a word of text) is read as the scanner reads
// it (metaAt). The first result arrow is found once too, and is the
// skim's first arrow.
type lineMeta struct {
	t       []byte // the line up to its trimmed end
	li      *LineInfo
	content int
	next    int   // the first '=' not read yet, len(t) when there is none
	arrow   int   // the first "→" in the content, len(t) when there is none
	keys    []Key // the key of each key token so far
}

// start finds the content's first '=' and takes its first arrow from the
// UTF-8 check (validUTF8Arrow: arrowAt, the first at or after the content
// in the whole line, when the line is valid), or searches for it.
func (m *lineMeta) start(valid bool, arrowAt int) {
	m.next, m.arrow = len(m.t), len(m.t)
	if m.content >= len(m.t) {
		return
	}
	m.next = m.find(m.content)
	switch {
	case !valid:
		if j := bytes.Index(m.t[m.content:], arrow); j >= 0 {
			m.arrow = m.content + j
		}
	case arrowAt >= 0 && arrowAt < len(m.t):
		// An arrow that starts before the trimmed end ends before it:
		// it is no white space.
		m.arrow = arrowAt
	}
}

// find is the first '=' at or after from, len(t) when there is none.
func (m *lineMeta) find(from int) int {
	if from >= len(m.t) {
		return len(m.t)
	}
	if j := bytes.IndexByte(m.t[from:], '='); j >= 0 {
		return from + j
	}
	return len(m.t)
}

// upTo reads every '=' before p.
func (m *lineMeta) upTo(p int) {
	for m.next < p {
		metaAt(m.t, m.li, m.content, m.next, len(m.t))
		m.next = m.find(m.next + 1)
	}
}

// nextEq is the first '=' at or after from, for the skim; ok false when
// from is before the content, where the search does not look.
func (m *lineMeta) nextEq(from int) (int, bool) {
	if from < m.content {
		return 0, false
	}
	m.upTo(from)
	return m.next, true
}

// key reads the key=value the tokenizer found at t[ks:ke] (its '=' at ke),
// whose tokens are toks, and records its key. The '=' is read as metaAt would read it, without
// metaAt's walk back over the key when the key is one of the format's
// (all ASCII word characters) and starts a word metaAt would take whole:
// after an ASCII byte that is no word character, at or after the start of
// the content. A value read up to white space, as the tokenizer reads a
// value without quotes or brackets, is not read again.
func (m *lineMeta) key(ks, ke int, toks []Token) {
	b := m.t[ks:ke]
	k := keyOf(b)
	parsed := k != numKeys
	if !parsed {
		k = writerKeyOf(b)
	}
	m.keys = append(m.keys, k)
	m.upTo(ke)
	if m.next != ke {
		return // before the content (never for a body line's tokens)
	}
	m.next = m.find(ke + 1)
	if !parsed || !m.startsWord(ks) {
		metaAt(m.t, m.li, m.content, ke, len(m.t))
		return
	}
	if m.li.Meta[k].Valid() {
		return
	}
	end := 0
	if len(toks) == 3 && toks[2].Kind == TokValue && endsAtSpace(k) {
		end = toks[2].Span.End // skipNonSpace from ke+1, as valueEnd's
	} else {
		end = valueEnd(m.t, k, ke+1)
	}
	if end > ke+1 {
		m.li.Meta[k] = Span{ke + 1, end}
	}
}

// endsAtSpace reports whether valueEnd reads a value of k up to white
// space (skipNonSpace), as the tokenizer reads a value that is no quoted
// string, JSON or marker (TokValue).
func endsAtSpace(k Key) bool {
	switch keySpecs[k].value {
	case valueWord, valueDigits, valueAttempt, valueHexDash:
		return false
	}
	return true
}

// startsWord reports whether metaAt's walk back from a key ending at a
// '=' stops at ks and its \b holds there: ks is in the content, and at
// the line's start or after an ASCII byte that is no word character.
func (m *lineMeta) startsWord(ks int) bool {
	if ks < m.content {
		return false
	}
	if ks == 0 {
		return true
	}
	c := m.t[ks-1]
	return c < 0x80 && !asciiWord[c]
}
