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
// multi-byte character. It runs over every chunk of a document, so its
// ASCII steps are 32 bytes: four words, their high bits tested at once,
// then eight bytes at a time to find the character. FuzzValidUTF8 holds
// it equal to utf8.Valid.
func validUTF8(p []byte) bool {
	const high = 0x8080808080808080
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
			return true
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
	for _, b := range p[2:n] {
		if b < 0x80 || b > 0xBF {
			return 0
		}
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
