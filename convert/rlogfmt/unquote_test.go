package rlogfmt

import (
	"encoding/json"
	"testing"
)

// unquoteByEncodingJSON is what unquote did before it used jsonscan.
func unquoteByEncodingJSON(raw string) string {
	if len(raw) >= 2 && raw[0] == '"' {
		var s string
		if json.Unmarshal([]byte(raw), &s) == nil {
			return s
		}
		if raw[len(raw)-1] == '"' {
			return raw[1 : len(raw)-1]
		}
		return raw[1:]
	}
	return raw
}

func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`"git status"`, `"a\"b"`, `"x\ny"`, `"\u00e9"`, `"a"b"`, `"a\nb"c"`, `"open`, `"`, `plain`, `"tab	in"`, "\"\xff\"", `"\ud800"`, `"x" `, `"\q"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if got, want := unquote(raw), unquoteByEncodingJSON(raw); got != want {
			t.Fatalf("unquote(%q) = %q, encoding/json way: %q", raw, got, want)
		}
	})
}

// FuzzRawString holds rawString to json.Unmarshal into a string, which the
// writer used to decode a passed-through rlog line.
func FuzzRawString(f *testing.F) {
	for _, s := range []string{`"t~:Edit id=x [1/2 passed]"`, `null`, ` "a" `, `"a\"b\u00e9\ud800"`, "\"\xff\"", `1`, `{}`, `"open`, ``, ` null `, `nul`, "\u00a0null", "\u0085\"x\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var want string
		werr := json.Unmarshal([]byte(raw), &want)
		got, ok := rawString(json.RawMessage(raw))
		if ok != (werr == nil) || ok && got != want {
			t.Fatalf("rawString(%q) = %q, %v; json.Unmarshal: %q, %v", raw, got, ok, want, werr)
		}
	})
}

// FuzzIDPrefix: idPrefix's ASCII loop gives what decoding every rune
// gives.
func FuzzIDPrefix(f *testing.F) {
	for _, s := range []string{"", "toolu_01ABC", "abc-def", "a.b", "日本_1", "x\u0301y z", "ab\xffcd", "a1é2-", "_"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := idPrefix(s), idPrefixRunes(s); got != want {
			t.Fatalf("idPrefix(%q) = %q, want %q", s, got, want)
		}
	})
}
