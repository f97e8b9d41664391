package grammar

import (
	"testing"
	"unicode/utf8"
)

// skipWordByteLoop and skipNonSpaceByteLoop are skipWord and skipNonSpace
// one character at a time, as they were before their eight-byte steps:
// the reference FuzzSkipRuns holds them to.
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

func skipNonSpaceByteLoop(b []byte, i int) int {
	for i < len(b) {
		r, n := rune(b[i]), 1
		if b[i] >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(b[i:])
		}
		if isSpaceRune(r) {
			break
		}
		i += n
	}
	return i
}

func TestSkipRunsEightBytesAtATime(t *testing.T) {
	for _, s := range []string{
		"", "toolu_01ABCDEFGHIJKLMNOPQRSTUVWXYZ rest", "abcdefgh", "abcdefg_", "abcdefg-", "abcdefg@xyz", "abcdefg[xyz",
		"abcdefg`xyz", "abcdefg{xyz", "abcdefg/xyz", "abcdefg:xyz", "0123456789", "ZZZZZZZZ\x7fZZ", "________é_",
		"2026-11-27T10:00:00Z next", "/src/a/b/c.go\tx", "aaaaaaaa\xa0bbbb", "aaaaaaa\u00a0bbb", "aaaaaaaa\x7faaaa", "aaaaaaaa\x00",
	} {
		b := []byte(s)
		for i := 0; i <= len(b); i++ {
			if got, want := skipWord(b, i), skipWordByteLoop(b, i); got != want {
				t.Errorf("skipWord(%q, %d) = %d, byte by byte %d", s, i, got, want)
			}
			if got, want := skipNonSpace(b, i), skipNonSpaceByteLoop(b, i); got != want {
				t.Errorf("skipNonSpace(%q, %d) = %d, byte by byte %d", s, i, got, want)
			}
		}
	}
}

// FuzzSkipRuns holds skipWord and skipNonSpace, which pass over eight
// ASCII bytes at a time, equal to a loop over each character.
func FuzzSkipRuns(f *testing.F) {
	for _, s := range []string{"toolu_01ABCDEFGHIJKLMNOPQRSTUVWXYZ rest", "abcdefg`hijklmn", "2026-11-27T10:00:00Z x", "ZZZZZZZZ\x7fZZ\u00a0z"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := 0; i <= len(b); i++ {
			if got, want := skipWord(b, i), skipWordByteLoop(b, i); got != want {
				t.Fatalf("skipWord(%q, %d) = %d, byte by byte %d", b, i, got, want)
			}
			if got, want := skipNonSpace(b, i), skipNonSpaceByteLoop(b, i); got != want {
				t.Fatalf("skipNonSpace(%q, %d) = %d, byte by byte %d", b, i, got, want)
			}
		}
	})
}
