package difftest

import (
	"fmt"
	"sort"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// Text is the client's copy of a document, with its own line and column
// counting, written from the LSP specification and not from the server's:
// lines end at "\n", "\r\n" or a lone "\r", and a column counts the code
// units of the negotiated encoding (an invalid byte is one unit, as
// editors show it: one U+FFFD).
type Text struct {
	bytes []byte
	utf8  bool  // columns count bytes; else UTF-16 units
	lines []int // where each line starts; computed when first needed
	// chars are, per line asked about, where its characters start and
	// their columns, so that a long line is decoded once per version.
	chars map[int]*lineChars
}

// lineChars are a line's character starts (relative to the line, and its
// end last) and the column of each.
type lineChars struct {
	offs, cols []int
}

// NewText makes a Text of b (which it keeps) counting columns in UTF-8 or
// UTF-16 units.
func NewText(b []byte, utf8Columns bool) *Text { return &Text{bytes: b, utf8: utf8Columns} }

// Bytes is the text; the caller must not modify it.
func (t *Text) Bytes() []byte { return t.bytes }

// Len is the text's length in bytes.
func (t *Text) Len() int { return len(t.bytes) }

// Replace replaces bytes [start, end) with s.
func (t *Text) Replace(start, end int, s []byte) {
	out := make([]byte, 0, len(t.bytes)-(end-start)+len(s))
	out = append(out, t.bytes[:start]...)
	out = append(out, s...)
	t.bytes = append(out, t.bytes[end:]...)
	t.lines, t.chars = nil, nil
}

// charsOf decodes line n once.
func (t *Text) charsOf(n int) *lineChars {
	if c, ok := t.chars[n]; ok {
		return c
	}
	start, end := t.line(n)
	c := &lineChars{}
	col := 0
	for i := start; ; {
		c.offs = append(c.offs, i-start)
		c.cols = append(c.cols, col)
		if i >= end {
			break
		}
		r, size := utf8.DecodeRune(t.bytes[i:end])
		col += t.units(r, size)
		i += size
	}
	if t.chars == nil {
		t.chars = map[int]*lineChars{}
	}
	t.chars[n] = c
	return c
}

func (t *Text) lineStarts() []int {
	if t.lines != nil {
		return t.lines
	}
	t.lines = []int{0}
	b := t.bytes
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\n':
			t.lines = append(t.lines, i+1)
		case '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
			t.lines = append(t.lines, i+1)
		}
	}
	return t.lines
}

// LineCount is the number of lines (a final line end starts one more).
func (t *Text) LineCount() int { return len(t.lineStarts()) }

// line returns where line n starts and where its text ends (before its
// terminator).
func (t *Text) line(n int) (start, end int) {
	starts := t.lineStarts()
	start = starts[n]
	if n+1 < len(starts) {
		end = starts[n+1] - 1
		if end > start && t.bytes[end] == '\n' && t.bytes[end-1] == '\r' {
			end--
		}
	} else {
		end = len(t.bytes)
	}
	return start, end
}

// lineOf is the line holding offset off.
func (t *Text) lineOf(off int) int {
	starts := t.lineStarts()
	return sort.Search(len(starts), func(i int) bool { return starts[i] > off }) - 1
}

// units is the width of one decoded character.
func (t *Text) units(r rune, size int) int {
	switch {
	case t.utf8:
		return size
	case r >= 0x10000:
		return 2
	}
	return 1
}

// Position is the position of offset off, which must be at a character
// start (Snap) and not inside a line terminator.
func (t *Text) Position(off int) protocol.Position {
	n := t.lineOf(off)
	start, _ := t.line(n)
	c := t.charsOf(n)
	i := sort.SearchInts(c.offs, off-start)
	i = min(i, len(c.offs)-1)
	return protocol.Position{Line: uint32(n), Character: uint32(c.cols[i])}
}

// Offset is the offset of position p. A position past the end of its line,
// past the last line, or inside a character is an error: the server must
// never send one, and the harness never does.
func (t *Text) Offset(p protocol.Position) (int, error) {
	if int(p.Line) >= t.LineCount() {
		return 0, fmt.Errorf("line %d past the last line (%d)", p.Line, t.LineCount()-1)
	}
	n := int(p.Line)
	start, _ := t.line(n)
	c := t.charsOf(n)
	col := int(p.Character)
	i := sort.SearchInts(c.cols, col)
	switch {
	case i == len(c.cols):
		return 0, fmt.Errorf("%d:%d is past the end of its line (%d units)", p.Line, p.Character, c.cols[len(c.cols)-1])
	case c.cols[i] != col:
		return 0, fmt.Errorf("%d:%d is inside a character", p.Line, p.Character)
	}
	return start + c.offs[i], nil
}

// Snap moves off (clamped to the text) back to a place a position can
// name: a character's start, and not between the CR and LF of a line end.
func (t *Text) Snap(off int) int {
	off = max(0, min(off, len(t.bytes)))
	if off > 0 && off < len(t.bytes) && t.bytes[off-1] == '\r' && t.bytes[off] == '\n' {
		return off - 1
	}
	n := t.lineOf(off)
	start, end := t.line(n)
	if off > end {
		return end // inside a terminator
	}
	c := t.charsOf(n)
	i := sort.SearchInts(c.offs, off-start+1) - 1 // the last start at or before off
	return start + c.offs[i]
}

// Range is the range of [start, end), both snapped.
func (t *Text) Range(start, end int) protocol.Range {
	return protocol.Range{Start: t.Position(start), End: t.Position(end)}
}

// Span is the byte span of range r.
func (t *Text) Span(r protocol.Range) (start, end int, err error) {
	if start, err = t.Offset(r.Start); err != nil {
		return 0, 0, err
	}
	if end, err = t.Offset(r.End); err != nil {
		return 0, 0, err
	}
	if end < start {
		return 0, 0, fmt.Errorf("range %v ends before it starts", r)
	}
	return start, end, nil
}
