package jsonscan

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestReplacements(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":"x","b":[1,"y"]}`:                     "",
		"{\"a\":\"x\xff\",\"b\":[1,\"y\xfe\xfe\"]}": "$.a@5:1+0 $.b[1]@17:2+0",
		`{"t":"\ud800"}`:                            "$.t@5:0+1",
		`{"t":"\ud83d\ude00"}`:                      "",
		"{\"k\xff\":1}":                             "$[\"k\uFFFD\"]@1:1+0",
		"{\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"\xc3\"}]}}": "$.message.content[0].text@45:1+0",
		"\"\xff\"":       "$@0:1+0",
		"  [ \"\xff\" ]": "$[0]@4:1+0",
	} {
		var got []string
		Replacements([]byte(in), func(r Replacement) {
			got = append(got, fmt.Sprintf("%s@%d:%d+%d", r.Path, r.Offset, r.Invalid, r.Surrogates))
		})
		if g := strings.Join(got, " "); g != want {
			t.Errorf("Replacements(%q) = %s, want %s", in, g, want)
		}
	}
}

// FuzzReplacements: in valid JSON, every invalid UTF-8 sequence is inside
// a string, so the reported strings hold them all; each reported offset
// starts a string literal.
func FuzzReplacements(f *testing.F) {
	for _, s := range []string{`{"a":"b"}`, "{\"a\xff\":[\"\xfe\",{\"c\":\"\\ud800\"}]}", `["\udc00"]`, "\"\xe2\x82\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !Valid(b) {
			return
		}
		invalid := 0
		for rest := b; len(rest) > 0; {
			r, size := utf8.DecodeRune(rest)
			if r == utf8.RuneError && size == 1 {
				invalid++
			}
			rest = rest[size:]
		}
		got := 0
		Replacements(b, func(r Replacement) {
			got += r.Invalid
			if r.Offset >= len(b) || b[r.Offset] != '"' {
				t.Fatalf("%q: offset %d of %s is not a string", b, r.Offset, r.Path)
			}
		})
		if got != invalid {
			t.Fatalf("%q: %d invalid sequences, %d reported", b, invalid, got)
		}
	})
}
