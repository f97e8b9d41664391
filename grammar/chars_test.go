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
