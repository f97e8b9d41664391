package grammar

import (
	"bytes"
	"testing"

	"github.com/rlog-ls/rlog-ls/internal/benchdata"
	"unicode/utf8"
)

func TestValidUTF8(t *testing.T) {
	for _, s := range []string{
		"", "a", "plain ASCII text longer than eight bytes",
		"naïve", "12345678é", "1234567é8", "😀 emoji at the start of a line of text",
		"日本語日本語日本語", "\xef\xbf\xbd replacement char is valid",
		"\xff", "1234567\xff", "12345678\xff", "ok é then \xc3", "\xed\xa0\x80 surrogate",
		"\xc0\x80 overlong", "\xc1\xbf", "\xc2\x80", "\xdf\xbf", "\xdf\xc0", "\xe0\x9f\x80", "\xe0\xa0\x80",
		"\xed\x9f\xbf", "\xee\x80\x80", "\xef\xbf", "\xf0\x8f\xbf\xbf", "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf",
		"\xf5\x80\x80\x80", "\xf3\xbf\xbf", "\xf3\xbf\xbf\x7f", "é\x80 stray continuation", "abcdefgh\xf4\x90\x80\x80 above max",
	} {
		if got, want := validUTF8([]byte(s)), utf8.ValidString(s); got != want {
			t.Errorf("validUTF8(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzValidUTF8 holds the eight-bytes-at-a-time check equal to utf8.Valid.
func FuzzValidUTF8(f *testing.F) {
	for _, s := range []string{"", "naïve text with é and 😀 and more ASCII after it", "12345678\xff", "\xe6\x97\xa5\xe6\x9c"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validUTF8(b), utf8.Valid(b); got != want {
			t.Fatalf("validUTF8(%q) = %v, utf8.Valid = %v", b, got, want)
		}
	})
}

// BenchmarkValidUTF8 compares the check with utf8.Valid on a generated
// session (ASCII with a multi-byte character every few lines).
func BenchmarkValidUTF8(b *testing.B) {
	src := benchdata.Session(b, 1<<20)
	b.Run("validUTF8", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for range b.N {
			validUTF8(src)
		}
	})
	b.Run("utf8.Valid", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for range b.N {
			utf8.Valid(src)
		}
	})
}

// FuzzValidUTF8Arrow holds validUTF8Arrow to utf8.Valid and, on valid
// input, to bytes.Index and bytes.LastIndex for the first and the last
// arrow at or after from.
func FuzzValidUTF8Arrow(f *testing.F) {
	for _, s := range []string{"", "a → b → c", "→", "x\xe2\x86", "→ naïve 😀 → \xff →", "t!:Read id=1 → [ok]"} {
		f.Add([]byte(s), 0)
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, b []byte, from int) {
		from = min(max(from, 0), len(b)+1)
		valid, at, last := validUTF8Arrow(b, from)
		if want := utf8.Valid(b); valid != want {
			t.Fatalf("validUTF8Arrow(%q): valid %v, utf8.Valid %v", b, valid, want)
		}
		want, wantLast := -1, -1
		if from <= len(b) {
			if j := bytes.Index(b[from:], arrow); j >= 0 {
				want = from + j
			}
			if j := bytes.LastIndex(b[from:], arrow); j >= 0 {
				wantLast = from + j
			}
		}
		if valid && (at != want || last != wantLast) {
			t.Fatalf("validUTF8Arrow(%q, %d): arrows at %d and %d, bytes.Index %d, bytes.LastIndex %d", b, from, at, last, want, wantLast)
		}
		if !valid && (at != -1 || last != -1) {
			t.Fatalf("validUTF8Arrow(%q, %d): arrows at %d and %d on invalid input", b, from, at, last)
		}
	})
}
