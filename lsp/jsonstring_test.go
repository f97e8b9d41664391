package lsp

import (
	"bytes"
	stdjson "encoding/json"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

func TestUnquoteJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`""`, ""},
		{`"plain"`, "plain"},
		{`"a\"b\\c\/d"`, `a"b\c/d`},
		{`"\b\f\n\r\t"`, "\b\f\n\r\t"},
		{`"\u00e9\u2192"`, "é→"},
		{`"\ud83d\ude00"`, "😀"},
		{`"\uD83D\uDE00x"`, "😀x"},
		{`"\ud83dx"`, "\uFFFDx"},
		{`"\ude00\ud83d"`, "\uFFFD\uFFFD"},
		{`"\ud83d\u0041"`, "\uFFFDA"},
		{"\"raw é 😀 \xff\"", "raw é 😀 \xff"}, // invalid UTF-8 is kept
	} {
		got, err := unquoteJSON([]byte(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("unquoteJSON(%s) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{``, `"`, `x`, `"abc`, `"\"`, `"\x"`, `"\u12"`, `"\u12g4"`} {
		if _, err := unquoteJSON([]byte(bad)); err == nil {
			t.Errorf("unquoteJSON(%s) accepted", bad)
		}
	}
}

// For every valid string the result is encoding/json's.
func TestUnquoteJSONMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		checkUnquote(t, randomJSONString(r))
	}
}

func FuzzUnquoteJSON(f *testing.F) {
	f.Add([]byte(`"a\"b\ud83d\ude00\ud83d\n"`))
	f.Fuzz(func(t *testing.T, b []byte) { checkUnquote(t, b) })
}

func checkUnquote(t *testing.T, lit []byte) {
	t.Helper()
	lit = bytes.TrimSpace(lit) // the codec hands over the literal alone
	var want string
	if stdjson.Unmarshal(lit, &want) != nil || !utf8.Valid(lit) {
		_, _ = unquoteJSON(lit) // must not panic
		return
	}
	got, err := unquoteJSON(lit)
	if err != nil || string(got) != want {
		t.Fatalf("unquoteJSON(%s) = %q, %v; encoding/json says %q", lit, got, err, want)
	}
}

// randomJSONString writes a JSON string literal mixing raw characters with
// every kind of escape, surrogates alone and in pairs included.
func randomJSONString(r *rand.Rand) []byte {
	pieces := []string{"a", " ", "é", "😀", `\"`, `\\`, `\/`, `\n`, `\t`, `\r`, `\b`, `\f`,
		`\u0041`, `\u00E9`, `\ud83d\ude00`, `\ud83d`, `\ude00`, `\uFFFF`, `\u0000`}
	b := []byte{'"'}
	for range r.IntN(20) {
		b = append(b, pieces[r.IntN(len(pieces))]...)
	}
	return append(b, '"')
}
