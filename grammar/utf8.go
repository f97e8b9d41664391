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
		r, size := utf8.DecodeRune(p)
		if r == utf8.RuneError && size == 1 {
			return false
		}
		p = p[size:]
	}
}
