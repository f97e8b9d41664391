package grammar

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// Flags are facts about a line that the rules need and that would otherwise
// require scanning its text again.
type Flags uint16

const (
	FlagBlob         Flags = 1 << iota // an @blob sha256= marker appears
	FlagRedacted                       // a [redacted:kind] marker appears
	FlagLegacyRedact                   // a [REDACTED] or <REDACTED...> marker appears
	FlagASCIIArrow                     // " -> " where a result arrow was probably meant
	FlagInvalidUTF8                    // the line is not valid UTF-8
	FlagNUL                            // the line contains a NUL byte
	FlagDelimiter                      // the trimmed line is exactly "---"
	FlagCR                             // the line ends with CRLF
	FlagLoneCR                         // the line contains a CR that is not part of CRLF
)

// Span is a half-open byte range. Spans of metadata values are never empty,
// so the zero Span means "absent".
type Span struct{ Start, End int }

// Valid reports whether s denotes something (a non-empty range).
func (s Span) Valid() bool { return s.End > s.Start }

// Len is the length of s in bytes.
func (s Span) Len() int { return s.End - s.Start }

// Shift moves a valid span by d bytes; an absent span stays absent.
func (s Span) Shift(d int) Span {
	if !s.Valid() {
		return s
	}
	return Span{s.Start + d, s.End + d}
}

// LineInfo is everything the scanner learns about one line, with offsets
// relative to the start of the line text (which excludes the terminator).
type LineInfo struct {
	Kind    Kind
	Flags   Flags
	Trim    Span                // the line without surrounding whitespace
	Content int                 // where the reference parser's content starts
	Name    Span                // tool, subagent, skill, plan or MCP name; @verb; phase name
	Arrow   Span                // the first result arrow "→" in the content
	Result  Span                // the result text after the arrow and whitespace
	Meta    [numParsedKeys]Span // the first value of each of the format's keys
}

// Value returns the value of key k as the reference regex captures it
// (none for the keys the format leaves to the text).
func (li *LineInfo) Value(text []byte, k Key) ([]byte, bool) {
	if !k.Parsed() {
		return nil, false
	}
	return li.value(text, k)
}

// value is Value for one of the format's keys: small enough to be inlined
// where the parser reads every line's usage (usageOf).
func (li *LineInfo) value(text []byte, k Key) ([]byte, bool) {
	s := li.Meta[k]
	if !s.Valid() {
		return nil, false
	}
	return text[s.Start:s.End], true
}

var (
	arrow      = []byte("→")
	blobMarker = []byte("@blob")
)

// ScanLine classifies one line (without its terminator) and locates its
// metadata. It never allocates.
func ScanLine(text []byte) LineInfo {
	var li LineInfo
	scanLine(text, &li, textLacks{}, searchesOf(text), 0)
	return li
}

// ClassifyLine is the part of ScanLine that a reader which tokenizes the
// line (AppendTokensFast) needs besides the tokens: the kind, bounds,
// content start and name, the metadata values as the rules read them
// (Meta: the usage a line counts), the first result arrow and the result
// after it, and the flags FlagInvalidUTF8 and FlagDelimiter. It leaves out
// the other flags (a NUL, a CR, blob and redaction markers, an ASCII
// arrow), each a search of the whole line that a reader has no use for:
// they stay zero. FuzzClassifyLine holds the rest equal to ScanLine's.
func ClassifyLine(text []byte) LineInfo {
	var li LineInfo
	te := classifyLine(text, &li)
	scanBytes(text, &li, te, textLacks{nul: true, cr: true, lt: true, blob: true, bracket: true}, searchesOf(text), 0)
	return li
}

// scanLine fills li for text, a line of a chunk that lacks what lacks
// says; text starts at off in the text of next, whose searches the
// chunk's lines share, in order. It returns the keys whose values it
// found (bit k for Meta[k]). li's Meta must be zero; its other fields
// are all written, so that a chunk's lines are scanned into one
// LineInfo that is not cleared whole for each (clearMeta clears the
// values a line found). A line is classified, its bytes scanned, and an
// ASCII arrow looked for in one call: the calls cost more than a short
// line's work.
func scanLine(text []byte, li *LineInfo, lacks textLacks, next *searches, off int) uint16 {
	te := classifyLine(text, li)
	found := scanBytes(text, li, te, lacks, next, off)
	// A "->" on a line that takes a result and has no arrow (it needs
	// what scanBytes found).
	if li.Kind.TakesResult() && !li.Arrow.Valid() && hasASCIIArrow(text[li.Content:te]) {
		li.Flags |= FlagASCIIArrow
	}
	return found
}

// allParsedKeys has the bit of each of the format's keys the scanner
// reads: a line that found them all has no more values to look for.
const allParsedKeys = 1<<numParsedKeys - 1

// clearMeta clears the values of the keys found (as scanLine returned
// them): what is left of a line's scan in li that the next line's does
// not write.
func clearMeta(li *LineInfo, found uint16) {
	for ; found != 0; found &= found - 1 {
		li.Meta[bits.TrailingZeros16(found)] = Span{}
	}
}

// classifyLine sets li's bounds, kind, content and name, clears its flags
// (but FlagDelimiter), arrow and result, and returns the end of the
// trimmed line. It applies the reference's 21 rules in order to the
// trimmed line itself: a call to a function of its own (classify, as it
// was) cost about 30 instructions a line, more than most lines' rule.
func classifyLine(text []byte, li *LineInfo) int {
	ts, te := 0, len(text)
	if te == 0 || text[0]-0x21 >= 0x5f || text[te-1]-0x21 >= 0x5f {
		ts, te = trimBounds(text) // a line that starts and ends with '!' to DEL (most) is its own bounds
	}
	li.Trim = Span{ts, te}
	li.Flags, li.Arrow, li.Result = 0, Span{}, Span{}
	if ts == te {
		li.Kind, li.Content, li.Name = Empty, ts, Span{}
		return te
	}
	if te-ts == 3 && text[ts] == '-' && text[ts+1] == '-' && text[ts+2] == '-' {
		li.Flags = FlagDelimiter
	}
	if len(text) >= 1 && text[0] == '\t' || len(text) >= 2 && text[0] == ' ' && text[1] == ' ' {
		li.Kind, li.Content, li.Name = Continuation, ts, Span{}
		return te
	}
	t := text[:te]
	c0 := text[ts]
	c1 := byte(0)
	if ts+1 < te {
		c1 = text[ts+1]
	}
	c2 := byte(0)
	if ts+2 < te {
		c2 = text[ts+2]
	}
	// The content of "u: text" starts after the white space after "u:",
	// most often one space: passed over here, the rest is found by
	// skipSpace without its call.
	afterSpace := ts + 2
	if c2 == ' ' {
		afterSpace++
	}
	switch {
	case c0 == 'u' && c1 == ':':
		li.Kind, li.Content, li.Name = User, skipSpace(t, afterSpace), Span{}
		return te
	case c0 == 'a' && c1 == ':':
		li.Kind, li.Content, li.Name = Agent, skipSpace(t, afterSpace), Span{}
		return te
	case c0 == 't' && (c1 == '!' || c1 == '~') && c2 == ':':
		if ok, _ := wordAt(t, ts+3); ok {
			k := ToolStart
			if c1 == '~' {
				k = ToolProgress
			}
			li.Kind, li.Content, li.Name = k, ts+3, Span{ts + 3, skipNonSpace(t, ts+3)}
			return te
		}
	case c0 == 't' && c1 == ':':
		if ok, _ := wordAt(t, ts+2); ok {
			li.Kind, li.Content, li.Name = Tool, ts+2, Span{ts + 2, skipNonSpace(t, ts+2)}
			return te
		}
	case c0 == 'o' && c1 == ':':
		li.Kind, li.Content, li.Name = Observation, skipSpace(t, afterSpace), Span{}
		return te
	case c0 == 's' && c1 == ':':
		// ^s:(\S+)\s+(.*)$: a name, then whitespace.
		end := skipNonSpace(t, ts+2)
		if end > ts+2 && end < te {
			li.Kind, li.Content, li.Name = Skill, ts+2, Span{ts + 2, end}
			return te
		}
	case c0 == 'p' && c1 == ':':
		if ok, _ := wordAt(t, ts+2); ok {
			li.Kind, li.Content, li.Name = Plan, ts+2, Span{ts + 2, skipWord(t, ts+2)}
			return te
		}
	case c0 == 'm' && c1 == ':':
		w := skipSpace(t, ts+2)
		if ok, _ := wordAt(t, w); ok {
			li.Kind, li.Content, li.Name = Mode, ts+2, Span{w, skipWord(t, w)}
			return te
		}
	case c0 == 'r' && c1 == ':':
		li.Kind, li.Content, li.Name = Recall, ts+2, Span{}
		return te
	case c0 == 'x' && c1 == ':':
		if ok, _ := wordAt(t, ts+2); ok {
			li.Kind, li.Content, li.Name = Subagent, ts+2, Span{ts + 2, skipWord(t, ts+2)}
			return te
		}
	case c0 == 'c' && c1 == ':':
		// ^c:(\w+)\.(\w+)
		server := skipWord(t, ts+2)
		if server > ts+2 && server < te && t[server] == '.' {
			if method := skipWord(t, server+1); method > server+1 {
				li.Kind, li.Content, li.Name = Mcp, ts+2, Span{ts + 2, method}
				return te
			}
		}
	case c0 == 'q' && c1 == ':':
		li.Kind, li.Content, li.Name = Question, skipSpace(t, afterSpace), Span{}
		return te
	case c0 == '#':
		li.Kind, li.Content, li.Name = Comment, skipSpace(t, ts+1), Span{}
		return te
	case c0 == '@':
		if bytes.HasPrefix(t[ts:], []byte("@phase")) {
			ws := skipSpace(t, ts+6)
			if ws > ts+6 {
				if ok, _ := wordAt(t, ws); ok {
					// The reference takes content from byte 7, one past "@phase".
					_, n := spaceAt(t, ts+6)
					li.Kind, li.Content, li.Name = Phase, ts+6+n, Span{ws, skipWord(t, ws)}
					return te
				}
			}
		}
		if ok, _ := wordAt(t, ts+1); ok {
			li.Kind, li.Content, li.Name = Lifecycle, ts+1, Span{ts + 1, skipWord(t, ts+1)}
			return te
		}
	case c0 == 't' && c1 == 'h' && c2 == ':':
		li.Kind, li.Content, li.Name = Thinking, skipSpace(t, ts+3), Span{}
		return te
	case c0 == 't' && c1 == 'd' && c2 == ':':
		li.Kind, li.Content, li.Name = Todos, skipSpace(t, ts+3), Span{}
		return te
	}
	li.Kind, li.Content, li.Name = Unknown, ts, Span{}
	return te
}

// textLacks records what a whole chunk of text was found not to contain,
// so that none of its lines is searched for it again: most chunks have no
// NUL, no CR, no invalid UTF-8, no '<' and no blob.
//
// bracket (no '[') is never found for a chunk ('[' is common): ClassifyLine
// sets it, with the others but invalidUTF8, so that scanBytes leaves out
// the searches for what it does not want.
type textLacks struct{ nul, cr, invalidUTF8, lt, blob, bracket bool }

// lacksOf searches text once for each byte (or sequence) a line is flagged
// for. A line's text is a part of text cut at '\n', which is ASCII, so what
// text lacks, each of its lines lacks.
func lacksOf(text []byte) textLacks {
	return textLacks{
		nul:         bytes.IndexByte(text, 0) < 0,
		cr:          bytes.IndexByte(text, '\r') < 0,
		invalidUTF8: validUTF8(text),
		lt:          bytes.IndexByte(text, '<') < 0,
		blob:        !bytes.Contains(text, blobMarker),
	}
}

// searches are the searches for '=', the arrow's first byte and '[' that
// the lines of a chunk share: each is where the next of its byte is in the
// chunk's text, found by one bytes.IndexByte from where the one before it
// was, so the search that finds a line's last '=' (or its only '[') runs
// on to the next line's and no line ends with a search that finds
// nothing. A line is scanned from its content's start, so what a search
// found before it is found again from there.
type searches struct {
	text               []byte // the chunk's text (or a line's, scanned alone)
	eq, arrow, bracket int    // the next '=', 0xE2 and '[' at or after where the search was; len(text) if none
}

// searchesOf are the searches of a text whose lines are scanned in order.
func searchesOf(text []byte) *searches { return &searches{text: text, eq: -1, arrow: -1, bracket: -1} }

// find returns where the next c at or after from is, len(s.text) if none.
func (s *searches) find(c byte, from int) int {
	if j := bytes.IndexByte(s.text[from:], c); j >= 0 {
		return from + j
	}
	return len(s.text)
}

// scanBytes finds the first result arrow in the content, for each key the
// first key=value whose key is a whole word (\bkey=) and whose value is not
// empty, and the markers and bytes the rules care about. It does not visit
// every byte: it jumps from one byte that matters to the next with
// bytes.IndexByte and bytes.Index, which are vectorised. Each search looks
// for the byte that must start what it finds ('=' for a value, the first
// byte of "→", '@' for a blob, '[' and '<' for a redaction), so every
// occurrence is seen; the bytes in between cannot start any of them.
// The searches for '=', '→' and '[' run over the chunk (next; t is at off
// in its text). It returns the keys whose values it found (bit k for
// Meta[k]). FuzzScanBytesJumps holds it equal to a loop over every byte,
// for a line alone and for the lines of a chunk.
func scanBytes(t []byte, li *LineInfo, te int, lacks textLacks, next *searches, off int) (found uint16) {
	if !lacks.invalidUTF8 && !validUTF8(t) {
		li.Flags |= FlagInvalidUTF8
	}
	if !lacks.nul && bytes.IndexByte(t, 0) >= 0 {
		li.Flags |= FlagNUL
	}
	if !lacks.cr && bytes.IndexByte(t, '\r') >= 0 {
		li.Flags |= FlagLoneCR // the terminator's CR is not part of text
	}
	if content := li.Content; content < te {
		eq := next.eq
		if eq < off+content {
			eq = next.find('=', off+content)
		}
		for eq < off+te && found != allParsedKeys {
			found |= metaIn(next.text, li, off, content, eq, te)
			// next.find('=', eq+1), without the call: this is the search
			// a line makes most (2.4 '=' a line), and the call cost more
			// than the code around the vectorised search.
			j := bytes.IndexByte(next.text[eq+1:], '=')
			if j < 0 {
				eq = len(next.text)
				break
			}
			eq += 1 + j
		}
		next.eq = eq
		// The search that starts a line's arrow search, next.find
		// written out as the '=' search is (the compiler does not
		// inline find): one a line, where the loop's rarely runs.
		a := next.arrow
		if a < off+content {
			a = len(next.text)
			if j := bytes.IndexByte(next.text[off+content:], arrow[0]); j >= 0 {
				a = off + content + j
			}
		}
		for ; a < off+te; a = next.find(arrow[0], a+1) {
			if i := a - off; i+len(arrow) <= te && t[i+1] == arrow[1] && t[i+2] == arrow[2] {
				li.Arrow = Span{i, i + len(arrow)}
				r := i + len(arrow)
				if r < te && t[r] == ' ' {
					r++ // most often one space before the result: skipSpace returns without its call
				}
				if r = skipSpace(t[:te], r); r < te {
					li.Result = Span{r, te}
				}
				break
			}
		}
		next.arrow = a
	}
	for i := 0; !lacks.blob; {
		j := bytes.Index(t[i:], blobMarker)
		if j < 0 {
			break
		}
		i += j
		if _, ok := blobMarkerAt(t, i); ok {
			li.Flags |= FlagBlob
			break
		}
		i++
	}
	// The next '[' found past this line (the search for it read every
	// byte before it) leaves nothing for bracketRedactions: its call is
	// left out, on about half the lines here.
	if !lacks.bracket && next.bracket < off+len(t) {
		bracketRedactions(t, li, next, off)
	}
	if !lacks.lt {
		ltRedactions(t, li)
	}
	return found
}

// bracketRedactions flags the redaction markers that start with '[' in
// t, at off in next's text, with next's search for '['.
func bracketRedactions(t []byte, li *LineInfo, next *searches, off int) {
	b := next.bracket
	if b < off {
		b = len(next.text)
		if j := bytes.IndexByte(next.text[off:], '['); j >= 0 {
			b = off + j
		}
	}
	for ; b < off+len(t); b = next.find('[', b+1) {
		i := b - off
		if i+2 >= len(t) || t[i+1]|0x20 != 'r' || t[i+2]|0x20 != 'e' {
			continue // [ok], [running]: most brackets start no marker ([re or [RE, redactionMarkerAt's first test)
		}
		if flagRedaction(t, li, i) {
			break
		}
	}
	next.bracket = b
}

// flagRedaction flags the redaction marker at i, if there is one, and
// reports whether both kinds are flagged.
func flagRedaction(t []byte, li *LineInfo, i int) bool {
	if m, ok := redactionMarkerAt(t, i); ok {
		if m.Legacy {
			li.Flags |= FlagLegacyRedact
		} else {
			li.Flags |= FlagRedacted
		}
	}
	return li.Flags&(FlagLegacyRedact|FlagRedacted) == FlagLegacyRedact|FlagRedacted
}

// ltRedactions flags the redaction markers that start with '<'.
func ltRedactions(t []byte, li *LineInfo) {
	for i := 0; ; i++ {
		j := bytes.IndexByte(t[i:], '<')
		if j < 0 {
			return
		}
		i += j
		if flagRedaction(t, li, i) {
			return
		}
	}
}

// metaAt handles the '=' at eq: if the word before it is a key k not seen
// yet and its value is not empty, it records the value and returns 1<<k
// (0 if not).
//
// It runs at every '=' of a document, so it does not walk back over the
// word to find where it starts: it tries the few keys that end in the
// two bytes before eq (keysEndingIn, keysWithNextToLast), each with one
// comparison of the 16 bytes before eq, read as two words, with the
// key's masked name (keyWords). A key is the word when its name is there
// and the character before it is not a word character, which is what the
// walk back found (the word's start, then keyOf); that byte is among the
// 16 for every key but tokens_cache_create. It makes no call until a key
// is found: a call spills what the loop holds in registers, and most
// '=' are a key's. FuzzScanBytesJumps holds it equal to a loop over
// every byte.
func metaAt(t []byte, li *LineInfo, content, eq, te int) uint16 {
	return metaIn(t, li, 0, content, eq, te)
}

// metaIn is metaAt for a line that starts at off in text (a chunk's
// text) and the '=' at eq in text; content and te are the line's, as
// the spans it records. The 16 bytes before the '=' are read from text,
// so that a key in a line's first 16 bytes (a quarter of them: the id=
// of "o: id=...") is compared as two words too, and only a chunk's first
// line goes through metaAtStart. What the words hold before the line's
// start matches no key that starts at or after content (a key that
// starts before it is not taken), and the byte before a key at the
// line's start is the '\n' that ends the line before (or the last byte
// of a byte order mark, which wordBefore reads in the line): not a word
// character, as for a key that starts the text. Its arguments fit the
// registers of a call (the line's text is not one of them: a second
// slice spilled them, and cost more than metaAtStart's calls).
// FuzzMetaIn holds it to metaAt of the line alone.
func metaIn(text []byte, li *LineInfo, off, content, eq, te int) uint16 {
	if eq < 16 {
		return metaAtStart(text[off:], li, content, eq-off, te)
	}
	w := (*[16]byte)(text[eq-16 : eq])
	near, far := binary.LittleEndian.Uint64(w[8:]), binary.LittleEndian.Uint64(w[:8])
	// The keys that end in the two bytes before eq: tokens_cached= is
	// tried alone, not after id and tid, which end in its last byte.
	for m := keysEndingIn[w[15]] & keysWithNextToLast[w[14]]; m != 0; m &= m - 1 {
		k := Key(bits.TrailingZeros16(m))
		name := &keyWords[k]
		if near&name.mask[0] != name.word[0] || far&name.mask[1] != name.word[1] {
			continue
		}
		ks := eq - name.len
		if ks < off+content {
			continue
		}
		if name.len >= 16 {
			if string(text[ks:eq]) != keySpecs[k].name || wordBefore(text[off:], ks-off) {
				continue
			}
		} else if c := w[15-name.len]; c < 0x80 {
			if asciiWord[c] {
				continue // a longer word (tid=, not id=)
			}
		} else if wordBefore(text[off:], ks-off) {
			continue
		}
		// recordMeta, written out: the call cost more than its body
		// (about 20 instructions of 16,000 keys' calls at 1 MB).
		if li.Meta[k].Valid() {
			return 0
		}
		// valueEnd's cases, without its call: the counts and step=
		// (digits), id= (a word) and ts= (up to white space) are most.
		var end int
		switch name.value {
		case valueDigits:
			end = skipDigits(text[:off+te], eq+1)
		case valueWord:
			end = skipWord(text[:off+te], eq+1)
		case valueTimestamp, valueToken:
			end = skipNonSpace(text[:off+te], eq+1)
		default:
			end = valueEnd(text[:off+te], k, eq+1)
		}
		if end == eq+1 {
			return 0
		}
		li.Meta[k] = Span{eq + 1 - off, end - off}
		return 1 << k
	}
	return 0
}

// metaAtStart is metaAt for an '=' in the first 16 bytes of t, where the
// two words cannot be read: each key's name is compared byte by byte.
func metaAtStart(t []byte, li *LineInfo, content, eq, te int) uint16 {
	if eq < 2 {
		return 0 // every key is two bytes or more
	}
	for m := keysEndingIn[t[eq-1]] & keysWithNextToLast[t[eq-2]]; m != 0; m &= m - 1 {
		k := Key(bits.TrailingZeros16(m))
		name := keySpecs[k].name
		ks := eq - len(name)
		if ks < content || !sameBytes(t[ks:eq], name) {
			continue
		}
		if ks > 0 {
			if c := t[ks-1]; c < 0x80 && asciiWord[c] || c >= 0x80 && wordBefore(t, ks) {
				continue // a longer word (tid=, not id=)
			}
		}
		return recordMeta(t, li, k, eq, te)
	}
	return 0
}

// sameBytes is string(b) == s for a key's name, which is short: a loop
// over its bytes costs less than a call to compare them.
func sameBytes(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(s) {
		if b[i] != s[i] {
			return false
		}
	}
	return true
}

// recordMeta records the value of key k, whose '=' is at eq, if k has
// none yet and the value is not empty, and returns 1<<k if it did (0 if
// not).
func recordMeta(t []byte, li *LineInfo, k Key, eq, te int) uint16 {
	if li.Meta[k].Valid() {
		return 0
	}
	var end int
	if keyWords[k].value == valueDigits {
		end = skipDigits(t[:te], eq+1) // valueEnd's, without the call: the counts, step=
	} else {
		end = valueEnd(t[:te], k, eq+1)
	}
	if end == eq+1 {
		return 0
	}
	li.Meta[k] = Span{eq + 1, end}
	return 1 << k
}

// keyWords[k] is key k's name as the two words before an '=' read in
// metaAt hold it: word[0] the eight bytes nearest, masked by mask[0].
var keyWords = func() (w [numParsedKeys]struct {
	word, mask [2]uint64
	len        int
	value      valueClass // what valueEnd reads
}) {
	for k := range numParsedKeys {
		name := keySpecs[k].name
		w[k].len = len(name)
		w[k].value = keySpecs[k].value
		for j := range min(len(name), 16) {
			c := uint64(name[len(name)-1-j])
			shift := 56 - 8*(j%8) // the byte at eq-1-j: the highest first
			w[k].word[j/8] |= c << shift
			w[k].mask[j/8] |= 0xff << shift
		}
	}
	return w
}()

// keysEndingIn[c] has bit k set when the format's key k (one the scanner
// reads) ends in the byte c.
var keysEndingIn = func() (t [256]uint16) {
	for k := range numParsedKeys {
		name := keySpecs[k].name
		t[name[len(name)-1]] |= 1 << k
	}
	return t
}()

// keysWithNextToLast[c] has bit k set when the format's key k (one the
// scanner reads) has c as its next-to-last byte.
var keysWithNextToLast = func() (t [256]uint16) {
	for k := range numParsedKeys {
		name := keySpecs[k].name
		t[name[len(name)-2]] |= 1 << k
	}
	return t
}()

// HasInterrupted reports the bare word "interrupted" (\binterrupted\b),
// which the reference reads as a flag on any line.
func HasInterrupted(text []byte) bool {
	for off := 0; ; {
		i := bytes.Index(text[off:], []byte(Interrupted))
		if i < 0 {
			return false
		}
		i += off
		end := i + len(Interrupted)
		if !wordBefore(text, i) {
			if ok, _ := wordAt(text, end); !ok {
				return true
			}
		}
		off = end
	}
}

// hasASCIIArrow reports an ASCII "->" standing alone between whitespace (or
// at the end), the form the rlog/1 docs use "for readability" but that the
// parser does not read as a result.
func hasASCIIArrow(b []byte) bool {
	return asciiArrowAt(b) >= 0
}

// asciiArrowAt returns the offset of the first stand-alone "->" in b, or -1.
func asciiArrowAt(b []byte) int {
	for i := 0; i < len(b); {
		j := bytes.Index(b[i:], []byte("->"))
		if j < 0 {
			return -1
		}
		j += i
		before := j == 0 || b[j-1] == ' ' || b[j-1] == '\t'
		after := j+2 == len(b) || b[j+2] == ' ' || b[j+2] == '\t'
		if before && after && j > 0 {
			return j
		}
		i = j + 2
	}
	return -1
}

// ASCIIArrow returns the span of the "->" that was probably meant as the
// result arrow on a line that has none.
func ASCIIArrow(text []byte, li *LineInfo) (Span, bool) {
	if li.Flags&FlagASCIIArrow == 0 {
		return Span{}, false
	}
	at := asciiArrowAt(text[li.Content:li.Trim.End])
	if at < 0 {
		return Span{}, false
	}
	at += li.Content
	return Span{at, at + 2}, true
}

// BlobMarker is one "@blob sha256=<hex>" reference.
type BlobMarker struct {
	Marker Span // the whole marker
	SHA    Span // the hex digest
}

// BlobMarkers finds every @blob\s+sha256=([a-f0-9]+) in a line.
func BlobMarkers(text []byte) []BlobMarker {
	var out []BlobMarker
	for i := 0; i < len(text); {
		j := bytes.Index(text[i:], blobMarker)
		if j < 0 {
			break
		}
		j += i
		m, ok := blobMarkerAt(text, j)
		if !ok {
			i = j + len(blobMarker)
			continue
		}
		out = append(out, m)
		i = m.Marker.End
	}
	return out
}

// blobMarkerAt recognises a blob marker starting at i. It reads the marker
// and the whitespace in it, never the rest of the line.
func blobMarkerAt(text []byte, i int) (BlobMarker, bool) {
	if !bytes.HasPrefix(text[i:], blobMarker) {
		return BlobMarker{}, false
	}
	after := i + len(blobMarker)
	ws := skipSpace(text, after)
	if ws == after || !bytes.HasPrefix(text[ws:], []byte("sha256=")) {
		return BlobMarker{}, false
	}
	h := ws + len("sha256=")
	e := h
	for e < len(text) && (isDigit(text[e]) || 'a' <= text[e] && text[e] <= 'f') {
		e++
	}
	if e == h {
		return BlobMarker{}, false
	}
	return BlobMarker{Marker: Span{i, e}, SHA: Span{h, e}}, true
}

// RedactionMarker is a redacted value in a line.
type RedactionMarker struct {
	Span   Span
	Kind   Span // the kind inside [redacted:kind]; absent for legacy forms
	Legacy bool // [REDACTED] or <REDACTED...>, which the reference does not count
}

// RedactionMarkers finds every \[redacted:\w+\], [REDACTED] and <REDACTED...>.
func RedactionMarkers(text []byte) []RedactionMarker {
	var out []RedactionMarker
	for i := 0; i < len(text); i++ {
		if text[i] != '[' && text[i] != '<' {
			continue
		}
		if m, ok := redactionMarkerAt(text, i); ok {
			out = append(out, m)
			i = m.Span.End - 1
		}
	}
	return out
}

// maxLegacyMarkerLen bounds a <REDACTED:...> marker: its '>' is looked for
// this far, so that a line full of unclosed ones is read once, not once
// per marker.
const maxLegacyMarkerLen = 256

// redactionMarkerAt recognises a redaction marker starting at i. It reads
// the marker only: a [redacted:kind] to the end of its kind, a
// <REDACTED:...> at most maxLegacyMarkerLen bytes.
func redactionMarkerAt(text []byte, i int) (RedactionMarker, bool) {
	rest := text[i+1:]
	switch text[i] {
	case '[':
		switch {
		case bytes.HasPrefix(rest, []byte("redacted:")):
			ks := i + 1 + len("redacted:")
			ke := skipWord(text, ks)
			if ke > ks && ke < len(text) && text[ke] == ']' {
				return RedactionMarker{Span: Span{i, ke + 1}, Kind: Span{ks, ke}}, true
			}
		case bytes.HasPrefix(rest, []byte("REDACTED]")):
			return RedactionMarker{Span: Span{i, i + len("[REDACTED]")}, Legacy: true}, true
		}
	case '<':
		if !bytes.HasPrefix(rest, []byte("REDACTED")) {
			break
		}
		e := i + 1 + len("REDACTED")
		switch {
		case e < len(text) && text[e] == '>':
			return RedactionMarker{Span: Span{i, e + 1}, Legacy: true}, true
		case e < len(text) && text[e] == ':':
			window := text[e:min(len(text), i+maxLegacyMarkerLen)]
			if c := bytes.IndexByte(window, '>'); c > 0 {
				return RedactionMarker{Span: Span{i, e + c + 1}, Legacy: true}, true
			}
		}
	}
	return RedactionMarker{}, false
}
