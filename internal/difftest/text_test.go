package difftest

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// naivePositions lists the position of every place a position can name,
// by the plainest reading of the specification: split the text at line
// ends, decode each line into runes (an invalid byte is one U+FFFD) and
// count UTF-16 units or bytes.
func naivePositions(b []byte, utf8Cols bool) map[int]protocol.Position {
	out := map[int]protocol.Position{}
	line, off := 0, 0
	for {
		end := off
		for end < len(b) && b[end] != '\n' && b[end] != '\r' {
			end++
		}
		col := 0
		for i := off; ; {
			out[i] = protocol.Position{Line: uint32(line), Character: uint32(col)}
			if i >= end {
				break
			}
			r, size := utf8.DecodeRune(b[i:end])
			if utf8Cols {
				col += size
			} else {
				col += len(utf16.Encode([]rune{r}))
			}
			i += size
		}
		if end == len(b) {
			return out
		}
		off = end + 1
		if b[end] == '\r' && off < len(b) && b[off] == '\n' {
			off++
		}
		line++
	}
}

// The client's Text counts lines and columns as the plain reading does,
// and refuses positions that name no place.
func TestTextPositions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", " ", "é", "😀", "漢", "\n", "\r", "\r\n", "\xff", "\xe2\x86", "\xed\xa0\x80", "\x00", "\t"}
	for range 500 {
		var b strings.Builder
		for range r.IntN(60) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		src := []byte(b.String())
		for _, u8 := range []bool{false, true} {
			text := NewText(src, u8)
			want := naivePositions(src, u8)
			for off := 0; off <= len(src); off++ {
				p, named := want[off]
				snapped := text.Snap(off)
				if _, ok := want[snapped]; !ok || snapped > off || named && snapped != off {
					t.Fatalf("%q: Snap(%d) = %d", src, off, snapped)
				}
				if !named {
					continue
				}
				if got := text.Position(off); got != p {
					t.Fatalf("%q utf8 %v: Position(%d) = %v, want %v", src, u8, off, got, p)
				}
				if got, err := text.Offset(p); err != nil || got != off {
					t.Fatalf("%q utf8 %v: Offset(%v) = %d, %v, want %d", src, u8, p, got, err, off)
				}
			}
			// Positions past a line's end, past the last line, and inside a
			// character name no place.
			for _, p := range []protocol.Position{{Line: uint32(text.LineCount())}, {Line: 0, Character: 1 << 20}} {
				if _, err := text.Offset(p); err == nil {
					t.Fatalf("%q: Offset(%v) accepted", src, p)
				}
			}
			if !u8 && strings.HasPrefix(string(src), "😀") {
				if _, err := text.Offset(protocol.Position{Character: 1}); err == nil {
					t.Fatalf("%q: a position inside a surrogate pair accepted", src)
				}
			}
		}
	}
}
