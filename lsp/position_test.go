package lsp

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

func pos(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }

func TestMapperPosition(t *testing.T) {
	// "é" is 2 bytes, 1 UTF-16 unit; "😀" is 4 bytes, 2 UTF-16 units (a
	// surrogate pair), 1 UTF-32 unit; "\xff" is one invalid byte (one U+FFFD).
	const text = "aé😀b\r\nx\ry\n\tz\xffq\n"
	m16 := Mapper{Text: newPlainText([]byte(text)), Encoding: UTF16}
	m8 := Mapper{Text: m16.Text, Encoding: UTF8}
	m32 := Mapper{Text: m16.Text, Encoding: UTF32}
	for _, tc := range []struct {
		off          int
		p16, p8, p32 protocol.Position
		what         string
	}{
		{0, pos(0, 0), pos(0, 0), pos(0, 0), "start"},
		{1, pos(0, 1), pos(0, 1), pos(0, 1), "before é"},
		{2, pos(0, 1), pos(0, 1), pos(0, 1), "inside é rounds down"},
		{3, pos(0, 2), pos(0, 3), pos(0, 2), "before 😀"},
		{5, pos(0, 2), pos(0, 3), pos(0, 2), "inside 😀 rounds down"},
		{7, pos(0, 4), pos(0, 7), pos(0, 3), "after 😀"},
		{8, pos(0, 5), pos(0, 8), pos(0, 4), "end of line 0"},
		{9, pos(0, 5), pos(0, 8), pos(0, 4), "between \\r and \\n: end of line"},
		{10, pos(1, 0), pos(1, 0), pos(1, 0), "line 1 after CRLF"},
		{11, pos(1, 1), pos(1, 1), pos(1, 1), "lone CR is a line end"},
		{12, pos(2, 0), pos(2, 0), pos(2, 0), "line 2"},
		{15, pos(3, 1), pos(3, 1), pos(3, 1), "a tab is one unit"},
		{17, pos(3, 3), pos(3, 3), pos(3, 3), "an invalid byte is one unit"},
		{18, pos(3, 4), pos(3, 4), pos(3, 4), "end of line 3"},
		{19, pos(4, 0), pos(4, 0), pos(4, 0), "after the final newline: an empty last line"},
		{-5, pos(0, 0), pos(0, 0), pos(0, 0), "negative clamps"},
		{99, pos(4, 0), pos(4, 0), pos(4, 0), "past the end clamps"},
	} {
		if got := m16.Position(tc.off); got != tc.p16 {
			t.Errorf("%s: utf-16 Position(%d) = %v, want %v", tc.what, tc.off, got, tc.p16)
		}
		if got := m8.Position(tc.off); got != tc.p8 {
			t.Errorf("%s: utf-8 Position(%d) = %v, want %v", tc.what, tc.off, got, tc.p8)
		}
		if got := m32.Position(tc.off); got != tc.p32 {
			t.Errorf("%s: utf-32 Position(%d) = %v, want %v", tc.what, tc.off, got, tc.p32)
		}
	}
}

func TestMapperOffset(t *testing.T) {
	const text = "aé😀b\r\nx\ry\n\tz\xffq\n"
	m16 := Mapper{Text: newPlainText([]byte(text)), Encoding: UTF16}
	m8 := Mapper{Text: m16.Text, Encoding: UTF8}
	for _, tc := range []struct {
		m    Mapper
		p    protocol.Position
		want int
		what string
	}{
		{m16, pos(0, 2), 3, "utf-16 after é"},
		{m16, pos(0, 3), 3, "utf-16 between the surrogates of 😀 rounds down"},
		{m16, pos(0, 4), 7, "utf-16 after 😀"},
		{m16, pos(0, 99), 8, "character past the line end clamps to the line end (not into \\r\\n)"},
		{m16, pos(1, 5), 11, "lone CR line clamps before the CR"},
		{m16, pos(3, 3), 17, "after the invalid byte"},
		{m16, pos(4, 0), 19, "the empty last line"},
		{m16, pos(4, 7), 19, "the empty last line clamps"},
		{m16, pos(5, 0), 19, "line past the end is the end of the document"},
		{m16, pos(1<<32-1, 1<<32-1), 19, "huge position"},
		{m8, pos(0, 2), 1, "utf-8 inside é rounds down"},
		{m8, pos(0, 5), 3, "utf-8 inside 😀 rounds down"},
		{m8, pos(0, 7), 7, "utf-8 after 😀"},
	} {
		if got := tc.m.Offset(tc.p); got != tc.want {
			t.Errorf("%s: Offset(%v) = %d, want %d", tc.what, tc.p, got, tc.want)
		}
	}
}

// Long ASCII runs are counted in bulk; a position inside one, or just past
// its end, still lands on the right byte.
func TestMapperLongASCIIRuns(t *testing.T) {
	line := strings.Repeat("a", 100) + "😀" + strings.Repeat("b", 37) + "\n"
	m := Mapper{Text: newPlainText([]byte(line)), Encoding: UTF16}
	for _, tc := range []struct {
		char uint32
		off  int
	}{{0, 0}, {7, 7}, {8, 8}, {50, 50}, {100, 100}, {101, 100}, {102, 104}, {139, 141}, {140, 141}} {
		if got := m.Offset(pos(0, tc.char)); got != tc.off {
			t.Errorf("Offset(0:%d) = %d, want %d", tc.char, got, tc.off)
		}
	}
	for _, tc := range []struct {
		off  int
		char uint32
	}{{63, 63}, {100, 100}, {102, 100}, {104, 102}, {141, 139}} {
		if got := m.Position(tc.off); got != pos(0, tc.char) {
			t.Errorf("Position(%d) = %v, want 0:%d", tc.off, got, tc.char)
		}
	}
}

func TestMapperSpanOrdersReversedRange(t *testing.T) {
	m := Mapper{Text: newPlainText([]byte("hello\nworld")), Encoding: UTF16}
	start, end := m.Span(protocol.Range{Start: pos(1, 2), End: pos(0, 1)})
	if start != 1 || end != 8 {
		t.Fatalf("Span = %d, %d; want 1, 8", start, end)
	}
}

func TestMapperEmptyText(t *testing.T) {
	m := Mapper{Text: newPlainText(nil), Encoding: UTF16}
	if p := m.Position(0); p != pos(0, 0) {
		t.Fatalf("Position(0) = %v", p)
	}
	if off := m.Offset(pos(3, 3)); off != 0 {
		t.Fatalf("Offset = %d", off)
	}
}

// refColumns is a slow, obviously right model of a line's columns: for each
// byte offset that starts a character, its column in each encoding.
func refColumns(line []byte) map[int][3]int {
	cols := map[int][3]int{}
	var c16, c8, c32 int
	for i := 0; ; {
		cols[i] = [3]int{c16, c8, c32}
		if i == len(line) {
			return cols
		}
		r, size := utf8.DecodeRune(line[i:])
		c8 += size
		c32++
		if r == utf8.RuneError && size == 1 {
			c16++
		} else {
			c16 += len(utf16.Encode([]rune{r}))
		}
		i += size
	}
}

// Every character start round-trips in every encoding, and every offset
// maps to the start of the character it is in.
func TestMapperRoundTripRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		checkRoundTrip(t, randomText(r, 60))
	}
}

func FuzzMapperRoundTrip(f *testing.F) {
	f.Add([]byte("aé😀b\r\nx\ry\n\tz\xffq\n"))
	f.Add([]byte("\r\r\n\n\xed\xa0\x80\xf0\x9f"))
	f.Fuzz(func(t *testing.T, b []byte) { checkRoundTrip(t, b) })
}

func checkRoundTrip(t *testing.T, b []byte) {
	t.Helper()
	text := newPlainText(b)
	for enc, m := range []Mapper{{text, UTF16}, {text, UTF8}, {text, UTF32}} {
		for l := range text.EditorLineCount() {
			start, end := text.EditorLineStart(l), text.EditorLineEnd(l)
			cols := refColumns(b[start:end])
			charStart := start
			for off := start; off <= end; off++ {
				if c, ok := cols[off-start]; ok {
					charStart = off
					p := pos(uint32(l), uint32(c[enc]))
					if got := m.Position(off); got != p {
						t.Fatalf("%q enc %v: Position(%d) = %v, want %v", b, m.Encoding, off, got, p)
					}
					if got := m.Offset(p); got != off {
						t.Fatalf("%q enc %v: Offset(%v) = %d, want %d", b, m.Encoding, p, got, off)
					}
					if got := m.Encoding.Count(b[start:off]); got != c[enc] {
						t.Fatalf("%q enc %v: Count(%q) = %d, want %d", b, m.Encoding, b[start:off], got, c[enc])
					}
				} else if got, want := m.Position(off), m.Position(charStart); got != want {
					t.Fatalf("%q enc %v: Position(%d) inside a character = %v, want %v", b, m.Encoding, off, got, want)
				}
			}
		}
	}
}

// randomText mixes ASCII, multi-byte and astral characters, every kind of
// line end, tabs and invalid bytes.
func randomText(r *rand.Rand, n int) []byte {
	pieces := []string{"a", "Z", " ", "\t", "é", "→", "😀", "𝄞", "\n", "\r", "\r\n", "\xff", "\xe2\x86", "\xed\xa0\x80"}
	var b []byte
	for range r.IntN(n) {
		b = append(b, pieces[r.IntN(len(pieces))]...)
	}
	return b
}

// A PositionCache gives the Mapper's positions whatever the order of the
// offsets: runs on one line, going back and forth between two lines, jumps,
// offsets inside characters and line terminators, and out of range.
func TestPositionCacheRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		checkPositionCache(t, randomText(r, 80), r.Uint64())
	}
}

func FuzzPositionCache(f *testing.F) {
	f.Add([]byte("aé😀b\r\nx\ry\n\tz\xffq\n"), uint64(1))
	f.Add([]byte("\r\r\n\n\xed\xa0\x80\xf0\x9f"), uint64(2))
	f.Fuzz(func(t *testing.T, b []byte, seed uint64) {
		// The reference, Mapper.Position, walks the line from its start:
		// 4*len(b) of them over a 15 KB line took 3 s, long enough for
		// the fuzzer to call the worker hung on a loaded machine. Long
		// lines are TestPositionCacheLongLines' job.
		if len(b) > 4096 {
			b = b[:4096]
		}
		checkPositionCache(t, b, seed)
	})
}

func checkPositionCache(t *testing.T, b []byte, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 0))
	text := newPlainText(b)
	for _, m := range []Mapper{{text, UTF16}, {text, UTF8}, {text, UTF32}} {
		c := m.Positions()
		off := 0
		for range 4*len(b) + 8 {
			switch r.IntN(5) {
			case 0: // anywhere, out of range included
				off = r.IntN(len(b)+5) - 2
			case 1: // back to a recent offset
				off -= r.IntN(8)
			default: // on in document order
				off += r.IntN(4)
			}
			if got, want := c.Position(off), m.Position(off); got != want {
				t.Fatalf("%q enc %v: PositionCache.Position(%d) = %v, Mapper says %v", b, m.Encoding, off, got, want)
			}
		}
		if got, want := c.Range(len(b), 0), m.Range(len(b), 0); got != want {
			t.Fatalf("%q enc %v: Range = %v, Mapper says %v", b, m.Encoding, got, want)
		}
	}
}

// longLineText is text of about n bytes in a few long lines, of every
// width of character, with lone CRs.
func longLineText(r *rand.Rand, n int) []byte {
	pieces := []string{"a", "Z", " ", "key=value ", "\t", "é", "→", "😀", "漢字", "\xff", "\xe2\x86"}
	var b []byte
	for len(b) < n {
		if r.IntN(5000) == 0 {
			b = append(b, []string{"\n", "\r", "\r\n"}[r.IntN(3)]...)
		}
		b = append(b, pieces[r.IntN(len(pieces))]...)
	}
	return b
}

// On long lines the cache's column marks give the Mapper's positions, in
// runs, after jumps back, and in any order.
func TestPositionCacheLongLines(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	b := longLineText(r, 200<<10)
	text := newPlainText(b)
	for _, m := range []Mapper{{text, UTF16}, {text, UTF8}} {
		c := m.Positions()
		off := 0
		for range 3000 {
			switch r.IntN(6) {
			case 0:
				off = r.IntN(len(b) + 1)
			case 1:
				off -= r.IntN(20000)
			default:
				off += r.IntN(300)
			}
			if got, want := c.Position(off), m.Position(off); got != want {
				t.Fatalf("enc %v: PositionCache.Position(%d) = %v, Mapper says %v", m.Encoding, off, got, want)
			}
		}
	}
}

// Converting the offsets of many ranges on one long line reads the line
// once when they come in order, and at most a few kilobytes each in any
// order: never the line up to each offset (issue 18: semantic tokens on a
// long line were quadratic).
func TestPositionCacheReadsALineOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var b []byte
	for len(b) < 1<<20 {
		b = append(b, []string{"a", "é", "→", "😀", "漢", " "}[r.IntN(6)]...)
	}
	line := len(b)
	b = append(b, "\nnext line"...)
	m := Mapper{newPlainText(b), UTF16}
	c := m.Positions()
	for off := 0; off <= line; off += 3 {
		c.Position(off)
		if c.walked > off+utf8.UTFMax {
			t.Fatalf("in order: %d bytes decoded to reach byte %d of a line", c.walked, off)
		}
	}
	c = m.Positions()
	c.Position(line) // marks the line
	c.walked = 0
	const lookups = 2000
	for i := range lookups {
		c.Position(r.IntN(line + 1))
		if limit := (i + 1) * (columnMarkBytes + utf8.UTFMax); c.walked > limit {
			t.Fatalf("in any order: %d bytes decoded for %d conversions (at most %d)", c.walked, i+1, limit)
		}
	}
}

// sliceCounter is a Text that remembers the most bytes one Slice returned.
type sliceCounter struct {
	*plainText
	most int
}

func (c *sliceCounter) Slice(start, end int) []byte {
	c.most = max(c.most, end-start)
	return c.plainText.Slice(start, end)
}

// A position near the start of a long line is found by reading that far,
// not the line: in ASCII (read in bulk) and in every width of character.
func TestOffsetReadsOnlyToThePosition(t *testing.T) {
	for _, unit := range []string{"a", "é", "漢", "😀", "\xff"} {
		line := []byte(strings.Repeat(unit, (1<<20)/len(unit)))
		for _, enc := range []PositionEncoding{UTF16, UTF8, UTF32} {
			text := &sliceCounter{plainText: newPlainText(append(bytes.Clone(line), "\nnext"...))}
			m := Mapper{text, enc}
			p := protocol.Position{Line: 0, Character: 10}
			off := m.Offset(p)
			if text.most > 4*10+4 {
				t.Fatalf("%q %v: %d bytes read to find %v in a line of %d", unit, enc, text.most, p, len(line))
			}
			// Inside a character a position rounds down to its start.
			if back := (Mapper{newPlainText(text.b), enc}).Position(off); back.Line != 0 || back.Character > 10 || back.Character+4 <= 10 {
				t.Fatalf("%q %v: Offset of %v gives back %v", unit, enc, p, back)
			}
		}
	}
}
