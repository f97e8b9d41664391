package jsonstr

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
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

// unquoteByRuns is Unquote decoded the plain way, a run and an escape at
// a time, with no fast path: the fast paths must agree with it byte for
// byte.
func unquoteByRuns(dst, lit []byte, invalid Invalid) ([]byte, bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return dst, false
	}
	return unquoteRuns(dst, lit[1:len(lit)-1], invalid)
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

// FuzzReplacements: Replacements is zero exactly when decoding with
// Replace gives the same string as decoding with Keep and the input is
// valid UTF-8, and counts every U+FFFD decoding adds.
func FuzzReplacements(f *testing.F) {
	for _, s := range []string{`""`, `"a\nb"`, `"\ud83d\ude00"`, `"\ud800x"`, `"\udc00\ud800"`, "\"\xff\xfe\"", "\"\xef\xbf\xbd\"", `"\ufffd"`, "\"\xe2\x82\"", `"\\ud800"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, lit []byte) {
		out, ok := Unquote(nil, lit, Replace)
		if !ok {
			return
		}
		invalid, surrogates := Replacements(lit)
		// U+FFFD written by the decoder = U+FFFD in the output minus those
		// the literal holds as such (raw or escaped).
		raw := bytes.Count(lit, []byte("\uFFFD"))
		esc := bytes.Count(bytes.ToLower(lit), []byte(`\ufffd`)) - bytes.Count(bytes.ToLower(lit), []byte(`\\ufffd`))
		added := bytes.Count(out, []byte("\uFFFD")) - raw - esc
		if added != invalid+surrogates {
			t.Fatalf("%q: decoding adds %d U+FFFD, Replacements says %d+%d", lit, added, invalid, surrogates)
		}
	})
}

func TestReplacements(t *testing.T) {
	for lit, want := range map[string][2]int{
		`"plain"`:          {0, 0},
		`"\ud83d\ude00"`:   {0, 0},
		`"\ud800"`:         {0, 1},
		`"\ud800\ud800"`:   {0, 2},
		`"\udc00x"`:        {0, 1},
		`"\\ud800"`:        {0, 0},
		"\"a\xffb\xfe\"":   {2, 0},
		"\"\xe2\x82\"":     {2, 0}, // a cut sequence: one U+FFFD per byte, as encoding/json writes
		"\"\xff\\ud800\"":  {1, 1},
		"\"\xef\xbf\xbd\"": {0, 0},
	} {
		i, s := Replacements([]byte(lit))
		if [2]int{i, s} != want {
			t.Errorf("Replacements(%q) = %d, %d; want %v", lit, i, s, want)
		}
	}
}
