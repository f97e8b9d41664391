package grammar

import (
	"encoding/binary"
	"math/bits"
	"unicode"
	"unicode/utf8"
)

// The reference parser uses Rust's regex crate, whose \w, \d, \s and \b are
// Unicode-aware, and str::trim, which trims Unicode White_Space. These helpers
// reproduce those classes with an ASCII fast path.

var asciiWord, asciiSpace [128]bool

func init() {
	for c := 0; c < 128; c++ {
		asciiWord[c] = c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		wordByte[c], keyByte[c] = asciiWord[c], asciiWord[c]
	}
	keyByte['.'], keyByte['-'] = true, true
	for _, c := range []byte{' ', '\t', '\n', '\v', '\f', '\r'} {
		asciiSpace[c] = true
	}
}

// isWordRune is Rust regex's Unicode \w: Alphabetic, marks, decimal digits,
// connector punctuation and the join controls.
func isWordRune(r rune) bool {
	if r < 0x80 {
		return r >= 0 && asciiWord[r]
	}
	if r == utf8.RuneError {
		return false
	}
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.Is(unicode.Nd, r) ||
		unicode.Is(unicode.Pc, r) || unicode.Is(unicode.Nl, r) ||
		unicode.Is(unicode.Other_Alphabetic, r) || r == 0x200C || r == 0x200D
}

// isSpaceRune is Unicode White_Space, which is what both str::trim and \s use.
func isSpaceRune(r rune) bool {
	if r < 0x80 {
		return r >= 0 && asciiSpace[r]
	}
	return unicode.IsSpace(r)
}

// wordAt reports whether b[i:] starts with a word character, and its length.
func wordAt(b []byte, i int) (bool, int) {
	if i >= len(b) {
		return false, 0
	}
	if c := b[i]; c < 0x80 {
		return asciiWord[c], 1
	}
	r, n := utf8.DecodeRune(b[i:])
	return isWordRune(r), n
}

// spaceAt reports whether b[i:] starts with a whitespace character, and its length.
func spaceAt(b []byte, i int) (bool, int) {
	if i >= len(b) {
		return false, 0
	}
	if c := b[i]; c < 0x80 {
		return asciiSpace[c], 1
	}
	r, n := utf8.DecodeRune(b[i:])
	return isSpaceRune(r), n
}

// wordBefore reports whether the character ending at b[:i] is a word character.
func wordBefore(b []byte, i int) bool {
	if i <= 0 {
		return false
	}
	if c := b[i-1]; c < 0x80 {
		return asciiWord[c]
	}
	r, _ := utf8.DecodeLastRune(b[:i])
	return isWordRune(r)
}

// The skip loops read ASCII bytes in place and decode only the rest: they
// run over every value and name in a document.

// skipWord returns the end of the run of word characters starting at i.
// Values (a call id, a name) are often tens of bytes: eight ASCII word
// bytes are passed over at a time (allWordBytes) before the byte loop.
// FuzzSkipWord holds it to a loop over every character.
func skipWord(b []byte, i int) int {
	for i+8 <= len(b) && allWordBytes(binary.LittleEndian.Uint64(b[i:])) {
		i += 8
	}
	for i < len(b) {
		if c := b[i]; c < 0x80 {
			if !asciiWord[c] {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if !isWordRune(r) {
			break
		}
		i += n
	}
	return i
}

// skipSpace returns the end of the run of whitespace starting at i. It is
// small enough to be inlined: where there is none, before a printable
// ASCII byte, it returns without the call to skipSpaces.
func skipSpace(b []byte, i int) int {
	if i < len(b) && b[i]-0x21 < 0x5f { // '!' to DEL: no whitespace
		return i
	}
	return skipSpaces(b, i)
}

// skipSpaces is skipSpace's loop over the characters.
func skipSpaces(b []byte, i int) int {
	for i < len(b) {
		if c := b[i]; c < 0x80 {
			if !asciiSpace[c] {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if !isSpaceRune(r) {
			break
		}
		i += n
	}
	return i
}

// skipNonSpace returns the end of the run of non-whitespace starting at i.
// It passes over printable ASCII eight bytes at a time (values such as
// ts=, paths and ids are runs of it), and reads from the first other byte
// (white space, a control byte, a byte beyond ASCII) one character at a
// time. FuzzSkipNonSpace holds it to a loop over every character.
func skipNonSpace(b []byte, i int) int {
	for i+8 <= len(b) {
		x := binary.LittleEndian.Uint64(b[i:])
		// The high bit of each byte below 0x21 (after subtracting 0x21,
		// the lowest such byte is always flagged) or from 0x80 up.
		if other := ((x - 0x2121212121212121) | x) & 0x8080808080808080; other != 0 {
			i += bits.TrailingZeros64(other) / 8
			break
		}
		i += 8
	}
	for i < len(b) {
		if c := b[i]; c < 0x80 {
			if asciiSpace[c] {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if isSpaceRune(r) {
			break
		}
		i += n
	}
	return i
}

// allWordBytes reports whether each byte of x is an ASCII word byte
// ([0-9A-Za-z_]). Each range test adds 0x80-lo to every byte, all of
// them below 0x80, which cannot carry into the next one: the high bit of
// the sum says the byte is lo or above. A letter is tested once, in both
// cases: setting each byte's 0x20 bit makes an upper-case letter its
// lower case and makes no other byte below 0x80 one. Six sums in place of
// eight, and small enough to be inlined in skipWord's loop (the call
// cost as much as the test).
func allWordBytes(x uint64) bool {
	const eachByte, highs = 0x0101010101010101, 0x8080808080808080
	y := x | eachByte*0x20
	letter := (y + eachByte*(0x80-'a')) &^ (y + eachByte*(0x80-'z'-1))
	digit := (x + eachByte*(0x80-'0')) &^ (x + eachByte*(0x80-'9'-1))
	under := (x + eachByte*(0x80-'_')) &^ (x + eachByte*(0x80-'_'-1))
	return x&highs == 0 && (letter|digit|under)&highs == highs
}

// trimBounds returns the bounds of b without leading and trailing whitespace.
func trimBounds(b []byte) (int, int) {
	start := skipSpace(b, 0)
	end := len(b)
	for end > start {
		c := b[end-1]
		if c < 0x80 {
			if !asciiSpace[c] {
				break
			}
			end--
			continue
		}
		r, n := utf8.DecodeLastRune(b[start:end])
		if !isSpaceRune(r) {
			break
		}
		end -= n
	}
	return start, end
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func skipDigits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}
