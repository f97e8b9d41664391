package lsp

import (
	"encoding/binary"
	"sort"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// Text is an immutable document text with editor line structure (lines end
// at \n, \r\n or a lone \r). Inside the server every location is a byte
// offset into a Text; protocol positions exist only at the boundary, through
// a Mapper.
type Text interface {
	Len() int
	EditorLineCount() int        // a trailing line end starts one more (empty) line
	EditorLineStart(l int) int   // byte offset of the first byte of editor line l
	EditorLineEnd(l int) int     // byte offset where line l's content ends (before its terminator)
	EditorLineAt(off int) int    // editor line containing byte offset off (clamped)
	Slice(start, end int) []byte // bytes [start,end); may share memory, never modified
}

// PositionEncoding is the unit in which protocol.Position.Character counts.
// The zero value is UTF-16, the encoding every client supports.
type PositionEncoding uint8

// The encodings of LSP 3.17's PositionEncodingKind.
const (
	UTF16 PositionEncoding = iota
	UTF8
	UTF32
)

// String returns the encoding's name on the wire (LSP 3.17 PositionEncodingKind).
func (e PositionEncoding) String() string {
	switch e {
	case UTF8:
		return "utf-8"
	case UTF32:
		return "utf-32"
	default:
		return "utf-16"
	}
}

// negotiateEncoding picks UTF-8 when the client offers it, because then
// columns are plain byte counts; otherwise the mandatory UTF-16.
func negotiateEncoding(offered []string) PositionEncoding {
	for _, name := range offered {
		if name == "utf-8" {
			return UTF8
		}
	}
	return UTF16
}

// units is the number of code units of one decoded rune of size bytes. An
// invalid byte decodes as (RuneError, 1) and so counts as one unit in every
// encoding, as editors show it: one U+FFFD.
func (e PositionEncoding) units(r rune, size int) int {
	switch e {
	case UTF8:
		return size
	case UTF32:
		return 1
	default:
		if r >= 0x10000 {
			return 2
		}
		return 1
	}
}

// Mapper converts between byte offsets in a Text and protocol positions
// counted in one encoding. Every conversion clamps: a line past the end
// means the end of the document, a character past the end of a line means
// the end of that line, and a position inside a multi-unit character (half
// a surrogate pair, or inside a multi-byte UTF-8 sequence) rounds down to the
// start of that character. Nothing a client sends can make it panic.
type Mapper struct {
	Text     Text
	Encoding PositionEncoding
}

// Position returns the protocol position of byte offset off.
func (m Mapper) Position(off int) protocol.Position {
	off = clamp(off, 0, m.Text.Len())
	line := m.Text.EditorLineAt(off)
	start, end := m.Text.EditorLineStart(line), m.Text.EditorLineEnd(line)
	if off > end {
		off = end // inside the line terminator
	}
	col, _ := m.walk(m.Text.Slice(start, end), off-start, -1)
	return protocol.Position{Line: uint32(line), Character: uint32(col)}
}

// Positions returns a PositionCache over m, for converting many offsets.
func (m Mapper) Positions() *PositionCache { return &PositionCache{m: m} }

// PositionCache converts byte offsets to protocol positions exactly as its
// Mapper does, for answers with thousands of ranges. Finding the line of
// an offset is most of a conversion, and the offsets of such an answer come
// in runs on a few lines (a symbol's range and its name, then the next
// symbol's), so it keeps the last lines it found. Within a line it keeps
// where the last column was found, and a mark every few kilobytes, so that
// an answer with many ranges on one long line reads that line once in all
// (in offset order) and at most a few kilobytes per conversion (in any
// order), where converting each offset alone would read the line up to it.
// Not for concurrent use.
type PositionCache struct {
	m      Mapper
	lines  [2]cachedLine // the most recently used first
	walked int           // bytes decoded to count columns, for tests
}

type cachedLine struct {
	num, start, end int    // editor line, where its text starts and ends
	text            []byte // the line's text, once a column needed it
	ok              bool
	// marks are columns already counted, in offset order: marks[0] is the
	// line start, then one every columnMarkBytes at most.
	marks  []columnMark
	cursor columnMark // the column found last
}

// columnMark is the column of a byte offset within a line.
type columnMark struct{ off, col int }

// columnMarkBytes is how far apart a line's column marks are: the most a
// conversion reads of a line whose columns are already marked.
const columnMarkBytes = 4096

// Position returns Mapper.Position(off).
func (c *PositionCache) Position(off int) protocol.Position {
	off = clamp(off, 0, c.m.Text.Len())
	l := c.line(off)
	if off > l.end {
		off = l.end // inside the line terminator
	}
	if off == l.start {
		return protocol.Position{Line: uint32(l.num)}
	}
	if l.text == nil {
		l.text = c.m.Text.Slice(l.start, l.end)
		l.marks = append(l.marks[:0], columnMark{})
	}
	return protocol.Position{Line: uint32(l.num), Character: uint32(c.column(l, off-l.start))}
}

// column counts the columns of l.text[:rel], from the closest column
// already known before rel: the cursor or a mark. Past the last mark it
// leaves new marks as it goes.
func (c *PositionCache) column(l *cachedLine, rel int) int {
	i := sort.Search(len(l.marks), func(i int) bool { return l.marks[i].off > rel }) - 1
	from := l.marks[i]
	if l.cursor.off <= rel && l.cursor.off > from.off {
		from = l.cursor
	}
	onEdge := i == len(l.marks)-1 // walking past the last mark: mark the way
	for from.off < rel {
		step := rel - from.off
		if onEdge {
			// Stop at the next mark's place.
			step = min(step, l.marks[len(l.marks)-1].off+columnMarkBytes-from.off)
		}
		units, n := c.m.walk(l.text[from.off:], step, -1)
		c.walked += n
		if n == 0 {
			break // rel is inside a character: round down
		}
		from = columnMark{off: from.off + n, col: from.col + units}
		if onEdge && from.off >= l.marks[len(l.marks)-1].off+columnMarkBytes-utf8.UTFMax {
			l.marks = append(l.marks, from)
		}
	}
	l.cursor = from
	return from.col
}

// Range returns Mapper.Range(start, end).
func (c *PositionCache) Range(start, end int) protocol.Range {
	return protocol.Range{Start: c.Position(start), End: c.Position(end)}
}

// LineFinder is a Text that finds the line of an offset and its bounds in
// one lookup, where EditorLineAt, EditorLineStart and EditorLineEnd take
// one each. A PositionCache uses it when its Text has it.
type LineFinder interface {
	// EditorLineBounds returns EditorLineAt(off) and that line's
	// EditorLineStart and EditorLineEnd.
	EditorLineBounds(off int) (line, start, end int)
}

// line returns the line holding off. A cached line holds it when off is
// within its text: an offset in a terminator is looked up, since a lone
// CR's line may end before the parser's does.
func (c *PositionCache) line(off int) *cachedLine {
	if l := &c.lines[0]; l.ok && l.start <= off && off <= l.end {
		return l
	}
	if l := c.lines[1]; l.ok && l.start <= off && off <= l.end {
		c.lines[0], c.lines[1] = l, c.lines[0]
		return &c.lines[0]
	}
	var num, start, end int
	if f, ok := c.m.Text.(LineFinder); ok {
		num, start, end = f.EditorLineBounds(off)
	} else {
		t := c.m.Text
		num = t.EditorLineAt(off)
		start, end = t.EditorLineStart(num), t.EditorLineEnd(num)
	}
	c.lines[1] = c.lines[0]
	c.lines[0] = cachedLine{num: num, start: start, end: end, ok: true}
	return &c.lines[0]
}

// Offset returns the byte offset of protocol position p.
func (m Mapper) Offset(p protocol.Position) int {
	if int64(p.Line) >= int64(m.Text.EditorLineCount()) {
		return m.Text.Len()
	}
	line := int(p.Line)
	start, end := m.Text.EditorLineStart(line), m.Text.EditorLineEnd(line)
	// A unit is at least a quarter of a character's bytes, so the position
	// lies in the line's first 4 bytes per unit: read no more of a long line.
	end = int(min(int64(end), int64(start)+4*int64(p.Character)+4))
	_, n := m.walk(m.Text.Slice(start, end), end-start, int64(p.Character))
	return start + n
}

// Range returns the protocol range of the byte span [start, end).
func (m Mapper) Range(start, end int) protocol.Range {
	return protocol.Range{Start: m.Position(start), End: m.Position(end)}
}

// Span returns the byte span of protocol range r, with start <= end even
// when the client sent the two ends in the wrong order.
func (m Mapper) Span(r protocol.Range) (start, end int) {
	start, end = m.Offset(r.Start), m.Offset(r.End)
	if end < start {
		start, end = end, start
	}
	return start, end
}

// walk counts code units over line[:limit], stopping early once wantUnits
// (if >= 0) is reached. It returns the units counted and the bytes consumed;
// it never stops inside a character, so a limit or a unit count that falls
// inside one rounds down to that character's start.
func (m Mapper) walk(line []byte, limit int, wantUnits int64) (units int, n int) {
	var col int64
	for n < limit {
		if wantUnits >= 0 && col >= wantUnits {
			break
		}
		if line[n] < utf8.RuneSelf {
			// ASCII is one unit per byte in every encoding: count runs of
			// it in bulk (log lines are mostly ASCII, and can be 10 MB),
			// and no further than the units wanted: a position near the
			// start of a long line reads only that far.
			end := limit
			if wantUnits >= 0 {
				end = n + int(min(int64(limit-n), wantUnits-col))
			}
			run := asciiRun(line[n:end])
			n += run
			col += int64(run)
			continue
		}
		r, size := utf8.DecodeRune(line[n:])
		u := int64(m.Encoding.units(r, size))
		if n+size > limit || (wantUnits >= 0 && col+u > wantUnits) {
			break
		}
		n += size
		col += u
	}
	return int(col), n
}

// asciiRun is the length of the run of ASCII bytes at the start of b.
func asciiRun(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:])&0x8080808080808080 != 0 {
			break
		}
	}
	for i < len(b) && b[i] < utf8.RuneSelf {
		i++
	}
	return i
}

func clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// Count is the number of code units of b in encoding e: the width of a
// piece of one line, for answers that are lengths (semantic tokens).
func (e PositionEncoding) Count(b []byte) int {
	if e == UTF8 {
		return len(b)
	}
	n := 0
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			run := asciiRun(b[i:])
			n += run
			i += run
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		n += e.units(r, size)
		i += size
	}
	return n
}
