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
	cont := func(i int, lo, hi byte) bool { return i < len(p) && lo <= p[i] && p[i] <= hi }
	switch c := p[0]; {
	case 0xC2 <= c && c <= 0xDF:
		if cont(1, 0x80, 0xBF) {
			return 2
		}
	case 0xE0 <= c && c <= 0xEF:
		lo, hi := byte(0x80), byte(0xBF)
		if c == 0xE0 {
			lo = 0xA0
		} else if c == 0xED {
			hi = 0x9F
		}
		if cont(1, lo, hi) && cont(2, 0x80, 0xBF) {
			return 3
		}
	case 0xF0 <= c && c <= 0xF4:
		lo, hi := byte(0x80), byte(0xBF)
		if c == 0xF0 {
			lo = 0x90
		} else if c == 0xF4 {
			hi = 0x8F
		}
		if cont(1, lo, hi) && cont(2, 0x80, 0xBF) && cont(3, 0x80, 0xBF) {
			return 4
		}
	}
	return 0
}
