package jsonw

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"sync/atomic"
	"unsafe"

	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// newlineIndent is a line break and the indentation of the first levels,
// which appendNewline appends a prefix of in one call.
const newlineIndent = "\n                                                                " +
	"                                                                "

// appendNewline appends a line break and the indentation of depth (none
// below 0, which only an unbalanced raw value reaches).
func appendNewline(buf []byte, depth int) []byte {
	if n := 1 + 2*depth; uint(n) <= uint(len(newlineIndent)) {
		return append(buf, newlineIndent[:n]...)
	}
	return appendDeepNewline(buf, depth)
}

// newlineWord is a line break and seven spaces, the first word putNewline
// stores.
const newlineWord = 0x2020202020202000 | '\n'

// putNewline appends a line break and the indentation of depth (0 or
// more) as appendNewline does, stored a word at a time (the first a line
// break and seven spaces, the others spaces) into buf's free space: four
// words at once whatever the depth (the whole line up to depth 15), then
// any more one by one, through a pointer after one test of the room
// (through a slice, each store was checked, and a fallback call made the
// function too large to be inlined). The stores may go past what is
// appended, where nothing was yet. The caller leaves room for 2*depth+33
// bytes (n+32); with less, putNewline panics before it stores anything
// (no input decides the room: the callers' counts do).
func putNewline(buf []byte, depth int) []byte {
	l, n := len(buf), 1+2*depth
	if cap(buf)-l < n+32 {
		panic("jsonw: no room for a line")
	}
	p := unsafe.Add(unsafe.Pointer(unsafe.SliceData(buf)), l)
	*(*uint64)(p) = newlineWord
	*(*uint64)(unsafe.Add(p, 8)) = spaces
	*(*uint64)(unsafe.Add(p, 16)) = spaces
	*(*uint64)(unsafe.Add(p, 24)) = spaces
	for i := 32; i < n; i += 8 {
		*(*uint64)(unsafe.Add(p, i)) = spaces
	}
	return buf[:l+n]
}

// endIndented ends an indented object: its closing brace on the line of
// its depth when it has members (closeIndented), after its opening one
// when it has none.
func (o *Obj) endIndented() {
	in := o.in
	in.depth--
	if o.n > 0 {
		closeIndented(o.B, in.depth, '}')
		return
	}
	o.B.WriteByte('}')
}

// closeIndented appends the end of an indented object or list that has
// members to b: a line break, the indentation of depth and the closing
// bracket c. The line is stored a word at a time (putNewline) into room
// tested here, free called only to grow the buffer, where appendNewline
// copied a prefix of newlineIndent through memmove after free's call. A
// depth below 0, which only an unbalanced raw value reaches, is
// appendNewline's.
func closeIndented(b *Buffer, depth int, c byte) {
	dst := b.buf
	if depth < 0 {
		b.buf = append(appendNewline(dst, depth), c)
		return
	}
	// The line and putNewline's words after it, and the bracket.
	if room := 2*depth + 40; cap(dst)-len(dst) < room {
		dst = free(b, room)
	}
	b.buf = append(putNewline(dst, depth), c)
}

// nextLine is List.Next in a list that indents at depth (0 or more): dst,
// the list's buffer, with the separator and the element's line appended,
// stored (putNewline) into room tested here, free called only to grow
// the buffer, where Next called free for every element.
func (l *List) nextLine(dst []byte, depth int) []byte {
	// The comma, the line and putNewline's words after it.
	if room := 2*depth + 40; cap(dst)-len(dst) < room {
		dst = free(&l.b.Buffer, room)
	}
	if l.n > 0 {
		dst = append(dst, ',')
	}
	l.n++
	return putNewline(dst, depth)
}

func appendDeepNewline(buf []byte, depth int) []byte {
	buf = append(buf, '\n')
	for range depth {
		buf = append(buf, "  "...)
	}
	return buf
}

// AppendIndent appends the JSON value v as it stands in a document that
// json.Indent(dst, src, "", "  ") indents, v being inside depth objects
// and lists: its members and elements on lines of their own, its closing
// bracket on the line of depth. White space between v's tokens is left
// out first, as json.Compact leaves it out; empty objects and lists stay
// {} and []. It is how an indenting Obj writes a value that comes
// encoded already (Raw), the only bytes it reads again.
//
// Inside a string, where most of the bytes are, it copies the run up to
// the next quote or backslash, found eight bytes at a time (stringRun);
// only the bytes between strings are looked at one by one.
func AppendIndent(dst, v []byte, depth int) []byte {
	open := false // after { or [: its line break waits for the next token, which may close it
	for i := 0; i < len(v); {
		c := v[i]
		i++
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			continue
		}
		if open {
			open = false
			if c == '}' || c == ']' {
				depth--
				dst = append(dst, c)
				continue
			}
			dst = appendNewline(dst, depth)
		}
		switch c {
		case '"':
			// The string whole: runs up to each quote or backslash, a
			// backslash with the byte it escapes.
			j := i
			for {
				j += stringRun(v[j:])
				if j >= len(v) {
					break
				}
				if v[j] == '"' {
					j++
					break
				}
				j = min(j+2, len(v))
			}
			dst = append(dst, v[i-1:j]...)
			i = j
		case '{', '[':
			dst = append(dst, c)
			depth++
			open = true
		case '}', ']':
			depth--
			dst = append(appendNewline(dst, depth), c)
		case ',':
			dst = appendNewline(append(dst, ','), depth)
		case ':':
			dst = append(dst, ':', ' ')
		default:
			// A number or a literal: copied up to its end.
			j := i
			for j < len(v) && inLiteral[v[j]] {
				j++
			}
			dst = append(dst, v[i-1:j]...)
			i = j
		}
	}
	return dst
}

// inLiteral holds the bytes that go on a number or a literal (true,
// false, null): all but structure, quotes and white space.
var inLiteral = func() (t [256]bool) {
	for c := range t {
		t[c] = true
	}
	for _, c := range []byte("{}[],:\" \t\n\r") {
		t[c] = false
	}
	return t
}()

// stringRun is the index of the first '"' or '\\' in p (the end of a run
// of a string's bytes), or len(p). It tests eight bytes at a time with the
// JSON scanner's jsonscan.NotPlain8, whose marks also include the control
// bytes, which valid JSON has only in invalid strings: those are passed
// over one by one.
func stringRun(p []byte) int {
	i := 0
	for i+8 <= len(p) {
		m := jsonscan.NotPlain8(binary.LittleEndian.Uint64(p[i:]))
		if m == 0 {
			i += 8
			continue
		}
		i += bits.TrailingZeros64(m) / 8
		if c := p[i]; c == '"' || c == '\\' {
			return i
		}
		i++
	}
	for ; i < len(p); i++ {
		if c := p[i]; c == '"' || c == '\\' {
			return i
		}
	}
	return i
}

// Key is a constant key as an object that indents at one depth writes it:
// its member's line up to the value (the line break, the indentation of
// depth, the key escaped, a colon and a space), made once. Its members
// (StrAt, KeyAt, RawAt, IntAt, BoolAt, BytesAt) store that line whole,
// as a block (keyBlock bytes, when it fits) with no test of the key's
// bytes, where Str, Key, Raw, Int and Bool make it again at every member
// (indentedMember). A compact object stores the key's compact form ("k":)
// the same way (a writer that writes both, ATIF and ATIF-JSONL, uses one
// Key for both). An object at another depth, or one that quotes or writes
// canonical JSON, writes what Str, Key, ... write with the key's string:
// the same bytes, the slow way.
//
// depth is the object's own (a Buf indented at d writes the members of the
// object it begins at d+1). Make a Key once, at package level, and keep it.
type Key struct {
	s     string
	depth int
	// line is the member's line up to its value; padded is line in a
	// block of keyBlock bytes, when it fits (fits). compact is the key
	// as a compact object writes it, and its block.
	line          string
	padded        [keyBlock]byte
	fits          bool
	compact       string
	compactPadded [keyBlock]byte
	compactFits   bool
}

// keyBlock is a Key's padded line's size: the line of a key of up to 16
// bytes at depth 12.
const keyBlock = 48

// NewKey is the key s as an object at depth writes it.
func NewKey(s string, depth int) Key {
	line := append(AppendString(appendNewline(nil, depth), s), ':', ' ')
	compact := append(AppendString(nil, s), ':')
	k := Key{s: s, depth: depth, line: string(line), compact: string(compact)}
	k.fits = copy(k.padded[:], line) == len(line)
	k.compactFits = copy(k.compactPadded[:], compact) == len(compact)
	return k
}

// String is the key's string.
func (k *Key) String() string { return k.s }

// at is the bytes of o's buffer, grown to hold the next member's separator
// and k's line (its compact form, when o is compact) and about n bytes
// more, with those appended, when o indents at k's depth or is compact;
// false (and nothing written) when it does not.
func (o *Obj) at(k *Key, n int) ([]byte, bool) {
	in := o.in
	if in == nil {
		return o.compactAt(k, n), true
	}
	if in.depth != k.depth || in.quote || in.canon != nil {
		return nil, false
	}
	dst := o.B.buf
	if cap(dst)-len(dst) < keyBlock+n+8 {
		dst = free(o.B, keyBlock+n)
	}
	if o.n > 0 {
		dst = append(dst, ',')
	}
	o.n++
	if k.fits {
		l := len(dst)
		*(*[keyBlock]byte)(dst[l : l+keyBlock]) = k.padded
		return dst[:l+len(k.line)], true
	}
	return append(dst, k.line...), true
}

// compactAt is at for a compact object: k's compact form stored.
func (o *Obj) compactAt(k *Key, n int) []byte {
	dst := o.B.buf
	if cap(dst)-len(dst) < keyBlock+n+8 {
		dst = free(o.B, keyBlock+n)
	}
	if o.n > 0 {
		dst = append(dst, ',')
	}
	o.n++
	if k.compactFits {
		l := len(dst)
		*(*[keyBlock]byte)(dst[l : l+keyBlock]) = k.compactPadded
		return dst[:l+len(k.compact)]
	}
	return append(dst, k.compact...)
}

// StrAt writes a string member whose key is k: Str(k.String(), s).
func (o *Obj) StrAt(k *Key, s string) {
	if dst, ok := o.at(k, len(s)+2); ok {
		o.B.buf = AppendString(dst, s)
		return
	}
	o.Str(k.s, s)
}

// KeyAt starts a member whose key is k and whose value the caller writes
// itself: Key(k.String()).
func (o *Obj) KeyAt(k *Key) {
	if dst, ok := o.at(k, 0); ok {
		o.B.buf = dst
		return
	}
	o.key(k.s)
}

// RawAt writes a member whose key is k with a raw JSON value:
// Raw(k.String(), v).
func (o *Obj) RawAt(k *Key, v []byte) {
	if dst, ok := o.at(k, 0); ok {
		o.B.buf = dst
		o.value(v)
		return
	}
	o.Raw(k.s, v)
}

// LiteralAt writes a member whose key is k and whose value is v, a JSON
// number or literal (true, false, null) with no white space, encoded
// already (a unix time): Raw(k.String(), v), v copied as it is where Raw
// reads it again to indent it (AppendIndent, a byte at a time: about 250
// instructions for a unix time). An empty v is null, as Raw's; an object
// that quotes or writes canonical JSON writes it with Raw.
func (o *Obj) LiteralAt(k *Key, v []byte) {
	if dst, ok := o.at(k, len(v)+4); ok {
		if len(v) == 0 {
			o.B.buf = append(dst, "null"...)
			return
		}
		o.B.buf = append(dst, v...)
		return
	}
	o.Raw(k.s, v)
}

// IntAt writes an integer member whose key is k: Int(k.String(), n).
func (o *Obj) IntAt(k *Key, n int64) {
	if dst, ok := o.at(k, 20); ok {
		o.B.buf = AppendInt(dst, n)
		return
	}
	o.Int(k.s, n)
}

// BoolAt writes a boolean member whose key is k: Bool(k.String(), v).
func (o *Obj) BoolAt(k *Key, v bool) {
	dst, ok := o.at(k, 5)
	if !ok {
		o.Bool(k.s, v)
		return
	}
	if v {
		o.B.buf = append(dst, "true"...)
	} else {
		o.B.buf = append(dst, "false"...)
	}
}

// BytesAt writes a string member whose key is k and whose value is s's
// bytes: Str(k.String(), string(s)), without the string's copy (a call's
// input, JSON already, written again as a string).
func (o *Obj) BytesAt(k *Key, s []byte) {
	v := unsafe.String(unsafe.SliceData(s), len(s)) // read only, here
	if dst, ok := o.at(k, len(s)+2); ok {
		o.B.buf = AppendString(dst, v)
		return
	}
	o.Str(k.s, v)
}

// indentedName is indentedMember for a Name's key: the bytes of an
// indented object's buffer, grown to hold the separator, the line break
// and indentation, k's key and ": ", and about n bytes more, with those
// appended. The key is the one k escaped once: its compact form ("k":)
// stored as its padded block, a space put after the colon (whatever the
// depth: a Name keeps no form for each depth), where indentedMember tests
// the key's bytes again at every member.
func (o *Obj) indentedName(k *Name, n int) []byte {
	depth := o.in.depth
	dst := o.B.buf
	// The comma, the line break and indentation rounded up to whole
	// words, the key (its padded block, or its bytes when they do not
	// fit in one) and n, with a word to spare.
	if room := 2*depth + len(k.compact) + padSize + n + 24; cap(dst)-len(dst) < room {
		dst = free(o.B, room)
	}
	if o.n > 0 {
		dst = append(dst, ',')
	}
	o.n++
	return putIndentedName(putNewline(dst, depth), k)
}

// putIndentedName appends k's key as an indented member writes it
// ("k": ) to dst, whose free room holds padSize bytes: k's padded compact
// block stored whole and a space put after its colon, or, for a name
// whose block does not fit, its compact form appended.
func putIndentedName(dst []byte, k *Name) []byte {
	m := len(k.compact)
	if !k.fits[compactForm] {
		return append(append(dst, k.compact...), ' ')
	}
	l := len(dst)
	w := dst[l : l+padSize]
	*(*[padSize]byte)(w) = k.padded[compactForm]
	w[m] = ' ' // (over the value's opening quote, which the block has there)
	return dst[:l+m+1]
}

// indentedNameValue is NameName's member in an indented object: k's key
// as indentedName writes it and v's string as a value, stored from v's
// padded compact block ("v":, whose colon is left out).
func (o *Obj) indentedNameValue(k, v *Name) {
	dst := o.indentedName(k, padSize)
	m := len(v.compact) - 1
	if !v.fits[compactForm] {
		o.B.buf = append(dst, v.compact[:m]...)
		return
	}
	l := len(dst)
	*(*[padSize]byte)(dst[l : l+padSize]) = v.padded[compactForm]
	o.B.buf = dst[:l+m]
}

// indentedNames is NamesName's member in an indented object: what
// Strings writes of the names' strings, each name stored from its padded
// compact block on a line of its own (its colon made the separator),
// none escaped again.
func (o *Obj) indentedNames(k *Name, list []*Name) {
	depth := o.in.depth
	// Each name's line and bytes, rounded up to words, the closing line,
	// a padded block and a word to spare.
	room := 2*depth + 24
	for _, n := range list {
		room += 2*depth + 16 + len(n.compact)
	}
	dst := append(o.indentedName(k, room), '[')
	if len(list) == 0 {
		o.B.buf = append(dst, ']')
		return
	}
	for _, n := range list {
		dst = putNewline(dst, depth+1)
		if n.fits[compactForm] {
			l := len(dst)
			*(*[padSize]byte)(dst[l : l+padSize]) = n.padded[compactForm]
			dst = dst[:l+len(n.compact)]
		} else {
			dst = append(dst, n.compact...)
		}
		dst[len(dst)-1] = ','
	}
	o.B.buf = append(putNewline(dst[:len(dst)-1], depth), ']')
}

// Names is a list of names written as one value (a rest's "unset" list:
// the same few lists, rest after rest), made once (NewNames) and kept.
// NamesAt writes it: in an object that indents, its whole member (the
// line, the key and every name's line) is made once, the first time it
// is written, for that key and depth, and stored whole each time after,
// where NamesName puts each line and name in place again (about 280
// instructions for a list of two names at depth 8).
type Names struct {
	list []*Name
	// line is the member as an object that indents writes it (after
	// its separator), for the key and depth it was first written with:
	// set once (a Names is shared by the writers of every goroutine),
	// never changed.
	line atomic.Pointer[namesLine]
}

// namesLine is a Names' member, indentedNames' bytes, for the key k in an
// object at depth.
type namesLine struct {
	k     *Name
	depth int
	text  string
}

// NewNames is the list of names list (kept, not copied: it is not to
// change).
func NewNames(list []*Name) *Names { return &Names{list: list} }

// List is the names.
func (l *Names) List() []*Name { return l.list }

// NamesAt writes a list of names whose key is k: NamesName(k, l's
// names), stored whole in an object that indents at the depth and with
// the key l's member was first made for (Names), as NamesName writes it
// in any other.
func (o *Obj) NamesAt(k *Name, l *Names) {
	in := o.in
	if in == nil || in.quote || in.canon != nil {
		o.NamesName(k, l.list)
		return
	}
	line := l.line.Load()
	if line == nil {
		// Made by indentedNames in a buffer of its own, at this depth
		// (the first made is kept: a Names written at another depth
		// after takes NamesName's way).
		var b Buf
		b.Indent(in.depth)
		(&Obj{B: &b.Buffer, in: &b}).indentedNames(k, l.list)
		l.line.CompareAndSwap(nil, &namesLine{k, in.depth, string(b.Bytes())})
		line = l.line.Load()
	}
	if line.k != k || line.depth != in.depth {
		o.NamesName(k, l.list)
		return
	}
	dst := o.B.buf
	if cap(dst)-len(dst) < len(line.text)+1 {
		dst = free(o.B, len(line.text)+1)
	}
	if o.n > 0 {
		dst = append(dst, ',')
	}
	o.n++
	o.B.buf = append(dst, line.text...)
}

// AppendInt appends n in decimal: strconv.AppendInt(dst, n, 10). A
// number of 0 or more whose digits fit in dst's free room (an IntAt's
// count, a message key's number, a unix time) is written there two
// digits at a time from its end, its length worked out first, without
// the call into strconv, its stack array and the copy from it (about
// half the instructions of a count of four digits); any other goes
// through strconv. FuzzAppendInt holds it to strconv.
func AppendInt(dst []byte, n int64) []byte {
	if n < 0 {
		return strconv.AppendInt(dst, n, 10)
	}
	u := uint64(n)
	k := decimalLen(u)
	l := len(dst)
	if cap(dst)-l < k {
		return strconv.AppendUint(dst, u, 10)
	}
	dst = dst[:l+k]
	i := l + k
	for u >= 100 {
		q := u / 100
		r := 2 * (u - 100*q)
		i -= 2
		dst[i], dst[i+1] = digitPairs[r], digitPairs[r+1]
		u = q
	}
	if u >= 10 {
		dst[i-2], dst[i-1] = digitPairs[2*u], digitPairs[2*u+1]
	} else {
		dst[i-1] = byte('0' + u)
	}
	return dst
}

// digitPairs is the two digits of each number below 100.
const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// decimalLen is how many decimal digits u has (1 for 0): its bit length
// times log10(2), from below (1233/4096), one more when u reaches the
// next power of ten.
func decimalLen(u uint64) int {
	k := bits.Len64(u) * 1233 >> 12
	if k < len(powersOf10) && u >= powersOf10[k] {
		k++
	}
	return max(k, 1)
}

// powersOf10 are 10^0 to 10^19.
var powersOf10 = [20]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}
