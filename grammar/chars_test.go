package grammar

import (
	"testing"
	"unicode/utf8"
)

// FuzzSkipNonSpace holds skipNonSpace, which passes over printable ASCII
// eight bytes at a time, to a loop over every character.
func FuzzSkipNonSpace(f *testing.F) {
	for _, s := range []string{"", "abc def", "2025-12-19T20:29:26Z tokens_in=1", "abcdefgh\u00a0ij", "abcdefghijklmnop\tq", "abc\x00defghijkl mn", "\xff\xfeabcdefghij k", "abcdefg\u2003h", "abcdefgh", "~!@#$%^&*()_+{}|:<>?"} {
		f.Add(s, 0)
	}
	f.Fuzz(func(t *testing.T, s string, from int) {
		b := []byte(s)
		if from < 0 || from > len(b) {
			from = 0
		}
		want := from
		for want < len(b) {
			r, n := utf8.DecodeRune(b[want:])
			if isSpaceRune(r) {
				break
			}
			want += n
		}
		if got := skipNonSpace(b, from); got != want {
			t.Fatalf("skipNonSpace(%q, %d) = %d, want %d", s, from, got, want)
		}
	})
}

// skipWordByteLoop is skipWord one character at a time, as it was before
// its eight-byte steps: the reference FuzzSkipWord holds it to.
func skipWordByteLoop(b []byte, i int) int {
	for i < len(b) {
		r, n := rune(b[i]), 1
		if b[i] >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(b[i:])
		}
		if !isWordRune(r) {
			break
		}
		i += n
	}
	return i
}

func TestSkipWordEightBytesAtATime(t *testing.T) {
	for _, s := range []string{
		"", "toolu_01ABCDEFGHIJKLMNOPQRSTUVWXYZ rest", "abcdefgh", "abcdefg_", "abcdefg-", "abcdefg@xyz", "abcdefg[xyz",
		"abcdefg`xyz", "abcdefg{xyz", "abcdefg/xyz", "abcdefg:xyz", "0123456789", "ZZZZZZZZ\x7fZZ", "________é_",
		"aaaaaaaa\xa0bbbb", "aaaaaaa\u00a0bbb", "aaaaaaaa\x00",
	} {
		b := []byte(s)
		for i := 0; i <= len(b); i++ {
			if got, want := skipWord(b, i), skipWordByteLoop(b, i); got != want {
				t.Errorf("skipWord(%q, %d) = %d, byte by byte %d", s, i, got, want)
			}
		}
	}
}

// FuzzSkipWord holds skipWord, which passes over eight ASCII word bytes
// at a time, to a loop over every character.
func FuzzSkipWord(f *testing.F) {
	for _, s := range []string{"toolu_01ABCDEFGHIJKLMNOPQRSTUVWXYZ rest", "abcdefg`hijklmn", "ZZZZZZZZ\x7fZZ\u00a0z", "é_abcdefghij"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := 0; i <= len(b); i++ {
			if got, want := skipWord(b, i), skipWordByteLoop(b, i); got != want {
				t.Fatalf("skipWord(%q, %d) = %d, byte by byte %d", b, i, got, want)
			}
		}
	})
}
