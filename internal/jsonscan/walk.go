package jsonscan

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// Walker reads one JSON document from a reader without holding it whole:
// it walks the members of objects and the elements of arrays one at a
// time, and hands out each value it is asked for whole, validated. Readers
// of formats that are one document (a trajectory with a list of steps)
// therefore hold one step at a time, and a validator can tell where in the
// file each value is.
//
// The caller drives it: Object and Elems call a function at each member or
// element, which reads the value with Value, descends with Object or Elems,
// or leaves it, in which case it is skipped. Everything the Walker passes
// over is validated; the first syntax error ends the walk with a
// *SyntaxError at its absolute byte offset.
type Walker struct {
	r   io.Reader
	buf []byte
	off int   // next unread byte in buf
	n   int   // bytes of buf filled
	eof bool  // r has no more bytes
	err error // a read error other than io.EOF

	base int64 // absolute offset of buf[0]
	// With positions on, pos is the line and column of the byte at
	// absolute offset pos.Offset, which never lies past base+off: bytes
	// are counted before they are dropped from buf.
	positions bool
	pos       Pos
	depth     int
	key       []byte // the current member's key, copied out of buf
	// twoPass has every value read as before bufferedValue: its end
	// found, then validated. It is the reference FuzzOnePassWalk holds
	// the one pass to.
	twoPass bool
}

// Pos is a place in a document: a byte offset and, when the Walker counts
// them, a 1-based line and a 1-based column in characters (an invalid
// byte counts as one, as editors show it).
type Pos struct {
	Offset int64
	Line   int
	Col    int
}

// Advance returns the place after b, which starts at p. Lines and columns
// are counted only when p has them.
func (p Pos) Advance(b []byte) Pos {
	p.Offset += int64(len(b))
	if p.Line == 0 {
		return p
	}
	if nl := bytes.LastIndexByte(b, '\n'); nl >= 0 {
		p.Line += bytes.Count(b, []byte{'\n'})
		p.Col = 1
		b = b[nl+1:]
	}
	p.Col += utf8.RuneCount(b)
	return p
}

// walkerBuffer is the first buffer; it grows to hold the largest value
// asked for whole.
const walkerBuffer = 64 << 10

// NewWalker returns a Walker over r. With positions it counts lines and
// columns too (Pos), which costs a pass over every byte.
func NewWalker(r io.Reader, positions bool) *Walker {
	w := &Walker{r: r, buf: make([]byte, walkerBuffer), positions: positions}
	if positions {
		w.pos = Pos{Line: 1, Col: 1}
	}
	return w
}

// ErrNotArray is returned by Elems for a value that is not an array.
var ErrNotArray = errors.New("not a JSON array")

// fill reads more input, keeping buf[keep:] (keep <= off) and dropping
// what is before it. It reports false at the end of the input.
func (w *Walker) fill(keep int) bool {
	if w.eof || w.err != nil {
		return false
	}
	if keep > 0 {
		w.count(keep)
		copy(w.buf, w.buf[keep:w.n])
		w.n -= keep
		w.off -= keep
		w.base += int64(keep)
	}
	if w.n == len(w.buf) {
		w.buf = append(w.buf, make([]byte, len(w.buf))...)
	}
	for {
		m, err := w.r.Read(w.buf[w.n:])
		w.n += m
		if err == io.EOF {
			w.eof = true
		} else if err != nil {
			w.err = err
		}
		if m > 0 || w.eof || w.err != nil {
			return m > 0
		}
	}
}

// count advances pos to buf[i].
func (w *Walker) count(i int) {
	if !w.positions {
		w.pos.Offset = w.base + int64(i)
		return
	}
	from := int(w.pos.Offset - w.base)
	if w.pos.Offset == 0 && i >= 3 && bytes.HasPrefix(w.buf[:w.n], []byte("\xef\xbb\xbf")) {
		// A byte order mark takes no column.
		from = 3
		w.pos.Offset = 3
	}
	if from < i {
		w.pos = w.pos.Advance(w.buf[from:i])
	}
}

// posAt is the place of buf[i].
func (w *Walker) posAt(i int) Pos {
	w.count(i)
	return w.pos
}

// Pos returns the place of the next value (after white space).
func (w *Walker) Pos() Pos {
	w.ws()
	return w.posAt(w.off)
}

// Place returns the place of absolute offset off: an offset in the value
// last read or after it (a syntax error's offset, a place inside an
// element being looked at). Offsets before that are not known any more and
// give the earliest place still known.
func (w *Walker) Place(off int64) Pos {
	i := int(off - w.base)
	i = max(i, int(w.pos.Offset-w.base))
	return w.posAt(min(i, w.n))
}

// readErr returns the first read error, if any.
func (w *Walker) readErr() error {
	if w.err != nil {
		return w.err
	}
	return nil
}

func (w *Walker) syntax(i int, msg string) error {
	if err := w.readErr(); err != nil {
		return err
	}
	return &SyntaxError{Offset: int(w.base) + i, Msg: msg}
}

// ws skips white space (and a byte order mark at the very start).
func (w *Walker) ws() {
	for {
		if w.off = skipWS(w.buf[:w.n], w.off); w.off < w.n {
			if w.buf[w.off] == 0xef && w.base+int64(w.off) == 0 && w.bom() {
				w.off += 3
				continue
			}
			return
		}
		if !w.fill(w.off) {
			return
		}
	}
}

// bom reports whether the input starts with a UTF-8 byte order mark.
func (w *Walker) bom() bool {
	for w.n < 3 && w.fill(0) {
	}
	return w.n >= 3 && w.buf[0] == 0xef && w.buf[1] == 0xbb && w.buf[2] == 0xbf
}

// peek returns the next byte after white space, or 0 at the end (a NUL
// byte in the input is never valid JSON outside a string, where peek does
// not look: see atEnd).
func (w *Walker) peek() byte {
	w.ws()
	if w.off < w.n {
		return w.buf[w.off]
	}
	return 0
}

// atEnd reports whether only white space is left.
func (w *Walker) atEnd() bool {
	w.ws()
	return w.off >= w.n
}

// Kind returns the first byte of the next value ('{', '[', '"', 't', 'f',
// 'n', a digit or '-'), or 0 at the end of the input.
func (w *Walker) Kind() byte { return w.peek() }

// Value reads the next value whole and returns its bytes, validated, and
// where it starts. The bytes are valid until the next call.
func (w *Walker) Value() ([]byte, Pos, error) { return w.value(nil) }

// IndexedValue is Value, indexing the value as it validates it, as
// ix.ObjectSpans indexes a line: the value is ix's input until its next,
// and ix.ValidSpans of it (the bytes handed out, while they are valid)
// lists its members from the index rather than passing over it again. An
// invalid value leaves ix indexing nothing. A nil ix indexes nothing.
func (w *Walker) IndexedValue(ix *Index) ([]byte, Pos, error) { return w.value(ix) }

// value is Value, indexing into ix (nil: none).
func (w *Walker) value(ix *Index) ([]byte, Pos, error) {
	w.ws()
	start := w.off
	if start >= w.n {
		if ix != nil {
			ix.Reset()
		}
		return nil, w.posAt(start), w.syntax(start, "unexpected end of input")
	}
	at := w.posAt(start)
	if v, ok := w.bufferedValue(ix); ok {
		return v, at, nil
	}
	end := w.valueEnd()
	start = w.off // fill may have moved the buffer
	v := w.buf[start:end]
	if ix != nil {
		ix.begin(v)
		ix.listing = true
	}
	if vend, err := value(v, 0, w.depth, ix); err != nil || vend != len(v) {
		if ix != nil {
			ix.Reset()
		}
		if err == nil {
			return nil, at, w.syntax(start+vend, "unexpected character after a value")
		}
		var se *SyntaxError
		if errors.As(err, &se) {
			return nil, at, w.syntax(start+se.Offset, se.Msg)
		}
		return nil, at, err
	}
	if ix != nil {
		ix.validated(v)
		ix.handed = true
	}
	w.off = end
	return v, at, nil
}

// bufferedValue validates the object or array at buf[off] where it lies in
// buf, indexing into ix (nil: none), so that the value is read once: the
// search for its end (valueEnd) and its validation are one pass. It
// succeeds only when the value ends inside what is buffered; otherwise
// (a value that goes on past what is buffered, an invalid one, a scalar,
// whose end depends on the byte after it) it leaves the value unread
// (ix is indexed anew) and value reads it as before: its end found, then
// validated, so that an error and its offset are the same either way.
func (w *Walker) bufferedValue(ix *Index) ([]byte, bool) {
	if w.n-w.off < len(w.buf)/4 && !w.twoPass {
		// Little is left: read more first, so that a value seldom goes
		// on past the end (an attempt that fails is a pass lost, and an
		// error made).
		w.fill(w.off)
	}
	b := w.buf[w.off:w.n]
	if c := b[0]; (c != '{' && c != '[') || len(b) > math.MaxInt32 || w.twoPass {
		return nil, false
	}
	if ix != nil {
		ix.begin(b)
		ix.listing = true
	}
	// A valid object or array ends at its closing bracket: where the
	// validator stops is where valueEnd would have found its end, and
	// the bytes after it are never looked at.
	end, err := value(b, 0, w.depth, ix)
	if err != nil {
		return nil, false
	}
	v := b[:end]
	if ix != nil {
		ix.validated(v)
		ix.handed = true
	}
	w.off += end
	return v, true
}

// valueEnd finds the end of the value at buf[off], reading more input
// while the value goes on. It does not validate: Value does that.
func (w *Walker) valueEnd() int {
	from := 0 // where scanning resumes, relative to off
	var st endState
	for {
		end, done := st.scan(w.buf[w.off:w.n], from)
		if done || w.eof || w.err != nil {
			return w.off + end
		}
		from = end
		w.fill(w.off)
	}
}

// endState is where a scan for the end of a value stopped.
type endState struct {
	depth  int
	inStr  bool
	escape bool
	scalar bool
}

// scan goes on scanning b from i; it returns where the value ends and true,
// or how far it got and false when b ends first.
func (s *endState) scan(b []byte, i int) (int, bool) {
	if i == 0 && len(b) > 0 && s.depth == 0 && !s.inStr && !s.scalar {
		switch b[0] {
		case '"':
			s.inStr = true
			i = 1
		case '{', '[':
		default:
			s.scalar = true
		}
	}
	for i < len(b) {
		if s.inStr {
			if s.escape {
				s.escape = false
				i++
				continue
			}
			// plainEnd stops at a quote, a backslash, a control byte
			// (invalid, left for validation to report) or a byte of
			// 0x80 or more, whose run is passed over here.
			if i = plainEnd(b, i); i >= len(b) {
				return len(b), false
			}
			switch b[i] {
			case '\\':
				s.escape = true
				i++
				continue
			case '"':
			default:
				i = highRun(b, i+1)
				continue
			}
			s.inStr = false
			i++
			if s.depth == 0 {
				return i, true
			}
			continue
		}
		if s.scalar {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i, true
			}
			i++
			continue
		}
		switch b[i] {
		case '"':
			s.inStr = true
		case '{', '[':
			s.depth++
		case '}', ']':
			s.depth--
			if s.depth <= 0 {
				return i + 1, true
			}
		case ' ', '\n':
			// Only quotes and brackets matter here: white space (an
			// indented document's) starts a run jumped over (see skip).
			i = structural(b, i)
			continue
		}
		i++
	}
	return len(b), false
}

// Skip passes over the next value, validating it, without holding more
// than one of its members or elements at a time.
func (w *Walker) Skip() error {
	switch w.peek() {
	case '{':
		return w.Object(func([]byte, Pos) error { return nil })
	case '[':
		return w.Elems(func(int, Pos) error { return nil })
	}
	_, _, err := w.Value()
	return err
}

// Object walks the object that is the next value: fn is called with each
// member's raw key (still escaped; see Key) and where the member starts,
// and reads its value with Value, Object or Elems, or leaves it to be
// skipped. The key is valid until fn reads the value.
func (w *Walker) Object(fn func(key []byte, at Pos) error) error {
	empty, err := w.open('{', '}', ErrNotObject)
	if err != nil {
		return err
	}
	defer func() { w.depth-- }()
	if empty {
		return nil
	}
	for {
		if w.peek() != '"' {
			if w.atEnd() {
				return w.syntax(w.off, "unexpected end of input")
			}
			return w.syntax(w.off, "expected object key")
		}
		keyAt := w.posAt(w.off)
		key, _, err := w.Value()
		if err != nil {
			return err
		}
		w.key = append(w.key[:0], key[1:len(key)-1]...)
		key = w.key
		if w.peek() != ':' {
			return w.syntax(w.off, "expected ':'")
		}
		w.off++
		if w.atEnd() {
			return w.syntax(w.off, "unexpected end of input")
		}
		if err := w.member(func() error { return fn(key, keyAt) }); err != nil {
			return err
		}
		if done, err := w.next('}', "object"); done || err != nil {
			return err
		}
	}
}

// open steps into the object or array that is the next value, one that
// begins with start; empty says it ended at once with end. Inside, the
// depth is one more, for the caller to take back when it leaves. A value of
// another kind is skipped and answered notKind.
func (w *Walker) open(start, end byte, notKind error) (empty bool, err error) {
	if w.peek() != start {
		if w.atEnd() {
			return false, w.syntax(w.off, "unexpected end of input")
		}
		if err := w.Skip(); err != nil {
			return false, err
		}
		return false, notKind
	}
	if w.depth++; w.depth > maxDepth {
		return false, w.syntax(w.off, "nesting too deep")
	}
	w.off++
	if w.peek() == end {
		w.off++
		return true, nil
	}
	return false, nil
}

// next steps over what follows a member of an object or array (what names
// it): a ',' before the next, or end, which closes it (done).
func (w *Walker) next(end byte, what string) (done bool, err error) {
	switch c := w.peek(); {
	case c == ',':
		w.off++
		return false, nil
	case c == end:
		w.off++
		return true, nil
	case w.atEnd():
		return false, w.syntax(w.off, "unexpected end of "+what)
	default:
		return false, w.syntax(w.off, "expected ',' or '"+string(end)+"'")
	}
}

// member runs fn for the value at off and skips the value when fn left it.
func (w *Walker) member(fn func() error) error {
	start := w.base + int64(w.off)
	if err := fn(); err != nil {
		return err
	}
	w.ws()
	if w.base+int64(w.off) == start {
		return w.Skip()
	}
	return nil
}

// Elems walks the array that is the next value: fn is called for each
// element with its index and where it starts, and reads it with Value,
// Object or Elems, or leaves it to be skipped.
func (w *Walker) Elems(fn func(i int, at Pos) error) error {
	empty, err := w.open('[', ']', ErrNotArray)
	if err != nil {
		return err
	}
	defer func() { w.depth-- }()
	if empty {
		return nil
	}
	for i := 0; ; i++ {
		if w.atEnd() {
			return w.syntax(w.off, "unexpected end of array")
		}
		at := w.posAt(w.off)
		if err := w.member(func() error { return fn(i, at) }); err != nil {
			return err
		}
		if done, err := w.next(']', "array"); done || err != nil {
			return err
		}
	}
}

// Array walks the array that is the next value, reading each element
// whole: fn gets its bytes (valid until fn returns) and where it starts.
func (w *Walker) Array(fn func(i int, value []byte, at Pos) error) error {
	return w.Elems(func(i int, _ Pos) error {
		v, at, err := w.Value()
		if err != nil {
			return err
		}
		return fn(i, v, at)
	})
}

// End checks that nothing but white space follows the document.
func (w *Walker) End() error {
	if !w.atEnd() {
		return w.syntax(w.off, "trailing data")
	}
	return w.readErr()
}

// Locate finds the value at path inside the valid JSON value b. Each step
// of path is an object key or, in an array, a decimal index. It returns the
// span to point at: the key (with its quotes) when path ends at an object
// member, the value when it ends at an array element or a scalar, and only
// the first byte of an object or array value. When a step is not there it
// returns the span of the first byte of the deepest value found, and false.
func Locate(b []byte, path []string) (start, end int, ok bool) {
	i := skipWS(b, 0)
	keyStart, keyEnd := -1, -1
	var spans []Span
	for _, step := range path {
		if i >= len(b) {
			return 0, 0, false
		}
		switch b[i] {
		case '{':
			var err error
			spans, err = MemberSpans(b[i:], spans[:0])
			if err != nil {
				return i, i + 1, false
			}
			found := false
			for _, m := range spans {
				if Key(b[i+m.KeyStart:i+m.KeyEnd]) == step {
					keyStart, keyEnd = i+m.KeyStart-1, i+m.KeyEnd+1
					i += m.ValueStart
					found = true
					break
				}
			}
			if !found {
				return i, i + 1, false
			}
		case '[':
			n, err := strconv.Atoi(step)
			if err != nil || n < 0 {
				return i, i + 1, false
			}
			j := skipWS(b, i+1)
			for k := 0; k < n && j < len(b) && b[j] != ']'; k++ {
				j = skipWS(b, skip(b, j))
				if j >= len(b) || b[j] != ',' {
					return i, i + 1, false
				}
				j = skipWS(b, j+1)
			}
			if j >= len(b) || b[j] == ']' {
				return i, i + 1, false
			}
			i = j
			keyStart = -1
		default:
			return i, i + 1, false
		}
	}
	if keyStart >= 0 {
		return keyStart, keyEnd, true
	}
	if i < len(b) && (b[i] == '{' || b[i] == '[') {
		return i, i + 1, true
	}
	return i, skip(b, i), true
}
