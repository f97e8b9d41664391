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
// rest one byte at a time; this returns to eight-byte steps after every
// multi-byte character. FuzzValidUTF8 holds it equal to utf8.Valid.
func validUTF8(p []byte) bool {
	for {
		for len(p) >= 8 {
			high := binary.LittleEndian.Uint64(p) & 0x8080808080808080
			if high != 0 {
				p = p[bits.TrailingZeros64(high)/8:]
				break
			}
			p = p[8:]
		}
		for len(p) > 0 && p[0] < utf8.RuneSelf {
			p = p[1:]
		}
		if len(p) == 0 {
			return true
		}
		size := validRuneLen(p)
		if size == 0 {
			return false
		}
		p = p[size:]
	}
}

// validRuneLen is the length of the well-formed multi-byte character p
// starts with (Unicode's table of well-formed byte sequences: no overlong
// form, no surrogate, nothing above U+10FFFF), 0 when there is none.
func validRuneLen(p []byte) int {
	n, lo, hi := 0, byte(0x80), byte(0xBF) // the length, and the second byte's range
	switch c := p[0]; {
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
	default:
		return 0
	}
	if len(p) < n || p[1] < lo || p[1] > hi {
		return 0
	}
	for _, b := range p[2:n] {
		if b < 0x80 || b > 0xBF {
			return 0
		}
	}
	return n
}
