package jsonw

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// escapedByBytes is appendEscaped one byte at a time, for each escaping:
// the reference FuzzAppendEscaped holds the one-pass words to.
func escapedByBytes(dst []byte, s string, esc escaping) []byte {
	quoted := esc == quotedEscapes
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			if r, size := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size != 1 {
				dst = append(dst, s[i:i+size]...)
				i += size
				continue
			}
		} else if c >= 0x20 && c != '"' && c != '\\' {
			dst = append(dst, c)
			i++
			continue
		}
		if quoted {
			dst = append(dst, '\\')
		}
		switch {
		case c == '"' || c == '\\':
			if quoted {
				dst = append(dst, '\\', '\\', c)
			} else {
				dst = append(dst, '\\', c)
			}
		case c == '\n':
			dst = append(dst, `\n`...)
		case c == '\r':
			dst = append(dst, `\r`...)
		case c == '\t':
			dst = append(dst, `\t`...)
		case c >= utf8.RuneSelf && esc == serdeEscapes:
			dst = append(dst, "\uFFFD"...)
		case c >= utf8.RuneSelf:
			dst = append(dst, `\ufffd`...)
		case c == '\b' && esc == serdeEscapes:
			dst = append(dst, `\b`...)
		case c == '\f' && esc == serdeEscapes:
			dst = append(dst, `\f`...)
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		i++
	}
	return dst
}

// checkEscaped escapes s each of the three ways after a few bytes of dst,
// with no room after them, a little, the string's and more, and requires
// escapedByBytes's bytes, and dst's bytes before them kept.
func checkEscaped(t *testing.T, s string) {
	t.Helper()
	for _, esc := range []escaping{jsonEscapes, quotedEscapes, serdeEscapes} {
		want := string(escapedByBytes([]byte("ab:"), s, esc))
		for _, room := range []int{0, 3, len(s), len(s) + 8, 2*len(s) + 16} {
			dst := append(make([]byte, 0, 3+room), "ab:"...)
			if got := appendEscaped(dst, s, esc); string(got) != want {
				t.Fatalf("appendEscaped(%q, %d) with room for %d = %q, want %q", s, esc, room, got, want)
			}
			if got := appendEscapedRuns(dst, s, esc); string(got) != want {
				t.Fatalf("appendEscapedRuns(%q, %d) with room for %d = %q, want %q", s, esc, room, got, want)
			}
		}
	}
}

// stops are the bytes and characters that end a plain run (each kind of
// escape, invalid UTF-8, UTF-8 of two to four bytes, U+2028 and U+2029,
// which jsonw writes as they are) and plain bytes next to them (HTML's
// characters are plain: jsonw does not escape them).
var stops = []string{"\x00", "\x1f", "\b", "\f", "\t", "\r", "\n", `"`, `\`, "\x80", "\xff", "\xc3", "\xe2\x80", "é", "→", "日", "😀",
	"\u2028", "\u2029", "\x7f", " ", "<", ">", "&", "~"}

// Every stop at every place of strings of 0 to 64 bytes, two of them at
// every pair of places up to 24 (a stop and the run after it), and the
// stop alone at the end of a run.
func TestAppendEscapedEveryStop(t *testing.T) {
	for n := 0; n <= 64; n++ {
		base := strings.Repeat("a", n)
		checkEscaped(t, base)
		for at := 0; at < n; at++ {
			for _, c := range stops {
				checkEscaped(t, base[:at]+c+base[at+1:])
			}
		}
	}
	for n := 0; n <= 24; n++ {
		base := strings.Repeat("b", n)
		for a := 0; a < n; a++ {
			for z := a + 1; z < n; z++ {
				for _, c := range []string{`"`, "\n", "\xff", "é", "😀"} {
					for _, e := range []string{`\`, "\x01", "日", "\xc3"} {
						checkEscaped(t, base[:a]+c+base[a+1:z]+e+base[z+1:])
					}
				}
			}
		}
	}
	for _, s := range []string{strings.Repeat("日本語", 40), strings.Repeat("\xff", 40), strings.Repeat(`"\`, 40), strings.Repeat("😀a", 30)} {
		checkEscaped(t, s)
	}
}

func FuzzAppendEscaped(f *testing.F) {
	for _, s := range []string{"", "a", "plain text of some length, longer than a few words", "a\"b\\c\nd\re\tf\x00g\x1f\b\f",
		"naïve → 日本語 😀 \u2028\u2029", "\xff\xfe bad \xc3 utf-8 \xe2\x80", strings.Repeat("0123456\"", 4),
		strings.Repeat("plain text, then ü and \n 😀 ", 5), "<html>&amp;</html>", "\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkEscaped(t, s) })
}
