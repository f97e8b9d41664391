package jsonstr

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

func FuzzUnquoteMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{`""`, `"a\nb"`, `"\ud83d\ude00"`, `"\ud800x"`, `"\u00e9\/"`, "\"\xff\"", `"\"`, `"\q"`} {
		f.Add([]byte(s))
	}
	// Whatever encoding/json accepts as a bare string literal, Unquote
	// accepts and decodes the same way. (It is more lenient: raw control
	// characters pass, as they do in the documents editors send.)
	f.Fuzz(func(t *testing.T, lit []byte) {
		var want string
		if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' || json.Unmarshal(lit, &want) != nil {
			Unquote(nil, lit, Replace) // must not panic
			return
		}
		got, ok := Unquote(nil, lit, Replace)
		if !ok || string(got) != want {
			t.Fatalf("%q: %q (%v), encoding/json %q", lit, got, ok, want)
		}
		if _, ok := Unquote(nil, lit, Keep); !ok {
			t.Fatalf("%q: Keep refused it", lit)
		}
	})
}

func TestKeepCopiesInvalidBytes(t *testing.T) {
	got, ok := Unquote(nil, []byte("\"a\xffb\\n\""), Keep)
	if !ok || string(got) != "a\xffb\n" {
		t.Fatalf("%q %v", got, ok)
	}
	got, _ = Unquote(nil, []byte("\"a\xffb\""), Replace)
	if string(got) != "a\uFFFDb" {
		t.Fatalf("%q", got)
	}
}

// unquoteByRuns is Unquote as it was before runs were copied a word at a
// time; the fast path must agree with it byte for byte.
func unquoteByRuns(dst, lit []byte, invalid Invalid) ([]byte, bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return dst, false
	}
	s := lit[1 : len(lit)-1]
	out := dst
	for {
		esc := bytes.IndexByte(s, '\\')
		run := s
		if esc >= 0 {
			run = s[:esc]
		}
		out = appendRun(out, run, invalid)
		if esc < 0 {
			return out, true
		}
		s = s[esc:]
		if len(s) < 2 {
			return dst, false
		}
		n := 2
		switch c := s[1]; c {
		case '"', '\\', '/':
			out = append(out, c)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(s[2:])
			if !ok {
				return dst, false
			}
			n = 6
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(-1), false
				if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
					r2, ok2 = hex4(s[8:])
				}
				if pair := utf16.DecodeRune(r, r2); ok2 && pair != utf8.RuneError {
					r, n = pair, 12
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return dst, false
		}
		s = s[n:]
	}
}

func FuzzUnquoteMatchesRuns(f *testing.F) {
	for _, s := range []string{`""`, `"a\nb"`, `"0123456789abcdef\"0123456789abcdef\\x"`, `"` + strings.Repeat(`line of text\n`, 20) + `"`, `"` + strings.Repeat("x", 100) + `\t"`, `"\ud83d\ude00\ud800x"`, "\"\xff\\n\xfe\"", `"abc\`, `"\q"`, `"\u12"`} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, lit []byte, prefix uint8) {
		for _, invalid := range []Invalid{Keep, Replace} {
			// dst with content, and with or without room after it.
			dst := bytes.Repeat([]byte{'p'}, int(prefix%5))
			roomy := append(make([]byte, 0, len(dst)+int(prefix)), dst...)
			for _, d := range [][]byte{nil, dst, roomy} {
				want, wantOK := unquoteByRuns(slices.Clone(d), lit, invalid)
				got, ok := Unquote(slices.Clone(d), lit, invalid)
				if ok != wantOK || !bytes.Equal(got, want) {
					t.Fatalf("Unquote(%q, %q, %v) = %q %v, by runs %q %v", d, lit, invalid, got, ok, want, wantOK)
				}
			}
		}
	})
}
