package grammar

import (
	"bytes"
	"encoding/binary"
)

// LineTokens is one body line read in one pass, for a reader of events (the
// rlog reader of the conversions): what ClassifyLine gives of it (Info),
// the tokens AppendTokensFast gives (Tokens), each key=value given whole
// (Pairs), found while the line was read. A key=value is one token in
// Tokens, its key (TokKey); its '=' and value, which AppendTokensFast
// gives as two more tokens, are in its pair: a reader takes the pairs as
// they are, without reading three tokens of 40 bytes for each. FuzzReadLine
// holds Info equal to ClassifyLine's, Tokens with each pair's '=' and
// value put back equal to AppendTokensFast's, and each pair's key to KeyOf.
type LineTokens struct {
	Info   LineInfo
	Tokens []Token
	// Pairs has each key=value in order: the i-th is the i-th TokKey
	// token's.
	Pairs []KeyValue
}

// KeyValue is one key=value of a line read in one pass (LineTokens).
type KeyValue struct {
	Key Span // its '=' is at Key.End
	// Value is the span of AppendTokensFast's value token, empty (the
	// zero Span) when the key has none (`k= x`, `k=` at the end).
	Value Span
	Kind  TokenKind // the value token's kind when it has one: TokValue, TokString, TokJSON or TokMarker
	K     Key       // the key in the table (KeyOf), NumKeys when it spells none
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
	valid, arrowAt, lastArrow := validUTF8Arrow(text, li.Content)
	if !valid {
		li.Flags |= FlagInvalidUTF8
	}
	m := lineMeta{t: text[:te], li: li, content: li.Content, pairs: lt.Pairs[:0]}
	m.start(valid, arrowAt, lastArrow)
	lt.Tokens = appendTokensFast(lt.Tokens[:0], text, li, &m)
	m.upTo(te)
	lt.Pairs = m.pairs
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
	next    int // the first '=' not read yet, len(t) when there is none
	arrow   int // the first "→" in the content, len(t) when there is none
	// lastArrow is the last "→" in the content (-1: none), len(t) when
	// it is not known (an invalid line, which the UTF-8 check stops in):
	// the skim searches for an arrow only up to it.
	lastArrow int
	pairs     []KeyValue // the line's key=value pairs so far
}

// start finds the content's first '=' and takes its first and last arrows
// from the UTF-8 check (validUTF8Arrow: arrowAt and lastArrow, the first
// and last at or after the content in the whole line, when the line is
// valid), or searches for the first.
func (m *lineMeta) start(valid bool, arrowAt, lastArrow int) {
	m.next, m.arrow, m.lastArrow = len(m.t), len(m.t), len(m.t)
	if valid {
		m.lastArrow = lastArrow
	}
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
// whose value, of kind kind, ends at ve (none when ve is ke+1), and
// records the pair. The '=' is read as metaAt would read it, without
// metaAt's walk back over the key when the key is one of the format's
// (all ASCII word characters) and starts a word metaAt would take whole:
// after an ASCII byte that is no word character, at or after the start of
// the content. A value read up to white space, as the tokenizer reads a
// value without quotes or brackets, is not read again.
//
// k is the key when the caller knows it (knownKey), lookUp when it is to
// be looked up here.
func (m *lineMeta) key(ks, ke int, k Key, kind TokenKind, ve int) {
	if k == lookUp {
		if k = lookUpKey(m.t, ks, ke); k == numKeys {
			k = writerKeyOf(m.t[ks:ke])
		}
	}
	parsed := k < numParsedKeys
	kv := KeyValue{Key: Span{ks, ke}, K: k}
	if ve > ke+1 {
		kv.Value, kv.Kind = Span{ke + 1, ve}, kind
	}
	m.pairs = append(m.pairs, kv)
	if m.next < ke {
		m.upTo(ke) // a call only when a '=' is left before the key's
	}
	if m.next != ke {
		return // before the content (never for a body line's tokens)
	}
	// find(ke+1), written out ('=' at ke is before the end): one call
	// fewer a pair.
	m.next = len(m.t)
	if j := bytes.IndexByte(m.t[ke+1:], '='); j >= 0 {
		m.next = ke + 1 + j
	}
	if !parsed || !m.startsWord(ks) {
		metaAt(m.t, m.li, m.content, ke, len(m.t))
		return
	}
	if m.li.Meta[k].Valid() {
		return
	}
	end := ke + 1
	switch plain := ve > ke+1 && kind == TokValue; {
	case plain && keySpecs[k].value == valueDigits:
		// The counts (tokens_*=, step=, ...): valueEnd's skipDigits,
		// which stops at white space, up to the value's end at the
		// latest, read here without valueEnd's call and switch.
		for end < ve && isDigit(m.t[end]) {
			end++
		}
	case plain && endsAtSpace(k):
		end = ve // skipNonSpace from ke+1, as valueEnd's
	default:
		end = valueEnd(m.t, k, ke+1)
	}
	if end > ke+1 {
		m.li.Meta[k] = Span{ke + 1, end}
	}
}

// lookUp asks lineMeta.key to look the key up itself.
const lookUp = ^Key(0)

// lookUpKey is keyOf(t[ks:ke]): the slot the key's hash chooses, and the
// name there compared as metaAt compares it, in the two words of the 16
// bytes before the '=' (keyWords), without memequal's call and the
// registers saved around it; a name longer than 16 bytes, or a key
// within 16 bytes of the line's start, compared as keyOf compares it.
// FuzzReadLine and TestKeyOfInPlace hold it to keyOf.
func lookUpKey(t []byte, ks, ke int) Key {
	if n := ke - ks; n > 0 && n <= maxParsedKeyLen {
		if slot := keySlots[keyHash(t[ks:ke])]; slot != 0 && keyWords[slot-1].len == n {
			k := Key(slot - 1)
			if name := &keyWords[k]; ke >= 16 && n <= 16 {
				w := (*[16]byte)(t[ke-16 : ke])
				if binary.LittleEndian.Uint64(w[8:])&name.mask[0] == name.word[0] &&
					binary.LittleEndian.Uint64(w[:8])&name.mask[1] == name.word[1] {
					return k
				}
			} else if string(t[ks:ke]) == keySpecs[k].name {
				return k
			}
		}
	}
	return numKeys
}

// knownKey reports whether a key of the table's ends at the next '='
// (m.next) and starts at i, and which: the format's keys read in place, as
// lookUpKey reads them, the writers' as writerKeyOf does, from the '=' the
// line's search found already. Such a key is what keyAtASCII would find
// at i (every name is a word byte, then key bytes, up to the '='), found
// without keyAtASCII's loop over its bytes and without the hash read
// again in key. false where it cannot tell (before the content, a '='
// left before i, a name of more than 16 bytes, a key of no table's):
// keyAtASCII is asked then. The caller has tested 0 < m.next-i <= 16.
func (m *lineMeta) knownKey(i int) (Key, bool) {
	e, t := m.next, m.t
	n := e - i
	if i < m.content || e >= len(t) {
		return 0, false
	}
	if slot := keySlots[uint8(n+2*int(t[i])+5*int(t[e-1]))]; slot != 0 && keyWords[slot-1].len == n {
		name := &keyWords[slot-1]
		if e < 16 {
			if string(t[i:e]) == keySpecs[slot-1].name {
				return Key(slot - 1), true
			}
		} else if w := (*[16]byte)(t[e-16 : e]); binary.LittleEndian.Uint64(w[8:])&name.mask[0] == name.word[0] &&
			binary.LittleEndian.Uint64(w[:8])&name.mask[1] == name.word[1] {
			return Key(slot - 1), true
		}
	}
	if n <= maxWriterKeyLen {
		if k := slotKey(&writerKeySlots, writerKeyHash(t[i:e]), t[i:e]); k != numKeys {
			return k, true
		}
	}
	return 0, false
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
