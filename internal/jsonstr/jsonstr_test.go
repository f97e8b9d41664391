package jsonstr

import (
	"encoding/json"
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
