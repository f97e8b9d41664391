package grammar

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// validUTF8 is utf8.Valid, made for text that is mostly ASCII with a
// multi-byte character here and there (an agent log: English with an
// emoji, a name, a path). utf8.Valid steps over ASCII eight bytes at a time
// only until the first byte that is not ASCII, and from there reads the
// rest one byte at a time; this returns to wide steps after every
// multi-byte character. It runs over every chunk of a document (a
// character beyond ASCII every hundred bytes of a generated session), so
// its ASCII steps are 32 bytes, four words whose high bits are tested at
// once, and the step that finds one tells which of its words holds it:
// the character is found without reading the words again. A two-byte
// character (é, ß) is checked in place. FuzzValidUTF8 holds it equal to
// utf8.Valid.
func validUTF8(p []byte) bool {
	const high = 0x8080808080808080
	i := 0
	for {
		for ; i <= len(p)-32; i += 32 {
			q := (*[32]byte)(p[i:])
			// binary.LittleEndian.Uint64 written out: the compiler makes
			// each one load all the same, and an inlined call left a
			// no-op instruction (the mark of its inlining) in the loop.
			w0 := uint64(q[0]) | uint64(q[1])<<8 | uint64(q[2])<<16 | uint64(q[3])<<24 |
				uint64(q[4])<<32 | uint64(q[5])<<40 | uint64(q[6])<<48 | uint64(q[7])<<56
			w1 := uint64(q[8]) | uint64(q[9])<<8 | uint64(q[10])<<16 | uint64(q[11])<<24 |
				uint64(q[12])<<32 | uint64(q[13])<<40 | uint64(q[14])<<48 | uint64(q[15])<<56
			w2 := uint64(q[16]) | uint64(q[17])<<8 | uint64(q[18])<<16 | uint64(q[19])<<24 |
				uint64(q[20])<<32 | uint64(q[21])<<40 | uint64(q[22])<<48 | uint64(q[23])<<56
			w3 := uint64(q[24]) | uint64(q[25])<<8 | uint64(q[26])<<16 | uint64(q[27])<<24 |
				uint64(q[28])<<32 | uint64(q[29])<<40 | uint64(q[30])<<48 | uint64(q[31])<<56
			if (w0|w1|w2|w3)&high == 0 {
				continue
			}
			switch {
			case w0&high != 0:
				i += bits.TrailingZeros64(w0&high) / 8
			case w1&high != 0:
				i += 8 + bits.TrailingZeros64(w1&high)/8
			case w2&high != 0:
				i += 16 + bits.TrailingZeros64(w2&high)/8
			default:
				i += 24 + bits.TrailingZeros64(w3&high)/8
			}
			goto multi // the character at i (a break, then the byte loop's test of it, measured slower)
		}
		for i < len(p) && p[i] < utf8.RuneSelf {
			i++
		}
		if i == len(p) {
			return true
		}
	multi:
		if c := p[i]; 0xC2 <= c && c <= 0xDF && i+1 < len(p) && p[i+1]&0xC0 == 0x80 {
			i += 2 // a two-byte character: any second byte from 0x80 to 0xBF
			continue
		}
		if c := p[i]; 0xE1 <= c && c <= 0xEC && i+2 < len(p) && p[i+1]&0xC0 == 0x80 && p[i+2]&0xC0 == 0x80 {
			i += 3 // a three-byte character whose second byte may be any from 0x80 to 0xBF (→, most CJK)
			continue
		}
		size := validRuneLen(p[i:])
		if size == 0 {
			return false
		}
		i += size
	}
}

// validUTF8Arrow is validUTF8(p) and, when p is valid, where the first
// and the last "→" at or after from are (-1: none): the arrow is a multi-byte character,
// which the check reads anyway, so a reader that wants both does not
// search the line again (LineTokens.Read). In valid UTF-8 the arrow's
// first byte, 0xE2, starts a character wherever it is, so looking at each
// character is looking at every place an arrow can be. When p is not
// valid, arrow is not known (-1). It is validUTF8's loop with the test for
// the arrow, kept apart so that validUTF8, which the parser runs over every
// chunk, does not pay for that test; FuzzValidUTF8Arrow holds it to
// utf8.Valid, bytes.Index and bytes.LastIndex.
func validUTF8Arrow(p []byte, from int) (valid bool, arrow, last int) {
	const high = 0x8080808080808080
	arrow, last = -1, -1
	i := 0
	for {
		for ; i+32 <= len(p); i += 32 {
			q := (*[32]byte)(p[i : i+32])
			if (binary.LittleEndian.Uint64(q[0:])|binary.LittleEndian.Uint64(q[8:])|
				binary.LittleEndian.Uint64(q[16:])|binary.LittleEndian.Uint64(q[24:]))&high != 0 {
				break
			}
		}
		for ; i+8 <= len(p); i += 8 {
			if h := binary.LittleEndian.Uint64(p[i:]) & high; h != 0 {
				i += bits.TrailingZeros64(h) / 8
				break
			}
		}
		for i < len(p) && p[i] < utf8.RuneSelf {
			i++
		}
		if i == len(p) {
			return true, arrow, last
		}
		size := validRuneLen(p[i:])
		if size == 0 {
			return false, -1, -1
		}
		if size == 3 && p[i] == 0xE2 && p[i+1] == 0x86 && p[i+2] == 0x92 && i >= from {
			if arrow < 0 {
				arrow = i
			}
			last = i
		}
		i += size
	}
}

// validRuneLen is the length of the well-formed multi-byte character p
// starts with (Unicode's table of well-formed byte sequences: no overlong
// form, no surrogate, nothing above U+10FFFF), 0 when there is none. The
// first byte's length and its second byte's range come from one lookup
// (leadBytes): an agent log has a multi-byte character every line or two.
func validRuneLen(p []byte) int {
	lead := leadBytes[p[0]]
	n := int(lead.n)
	if n == 0 || len(p) < n || p[1] < lead.lo || p[1] > lead.hi {
		return 0
	}
	if n >= 3 && p[2]&0xC0 != 0x80 || n == 4 && p[3]&0xC0 != 0x80 {
		return 0 // a byte after the second outside 0x80..0xBF
	}
	return n
}

// leadBytes[c] is, for a byte c that starts a well-formed multi-byte
// character, its length and the range of the byte after it; n is 0 for
// every other byte.
var leadBytes = func() (t [256]struct{ n, lo, hi byte }) {
	for c := range 256 {
		n, lo, hi := byte(0), byte(0x80), byte(0xBF)
		switch {
		case 0xC2 <= c && c <= 0xDF:
			n = 2
		case c == 0xE0:
			n, lo = 3, 0xA0
		case c == 0xED:
			n, hi = 3, 0x9F
		case 0xE1 <= c && c <= 0xEF:
			n = 3
		case c == 0xF0:
			n, lo = 4, 0x90
		case c == 0xF4:
			n, hi = 4, 0x8F
		case 0xF1 <= c && c <= 0xF3:
			n = 4
		}
		t[c].n, t[c].lo, t[c].hi = n, lo, hi
	}
	return t
}()
