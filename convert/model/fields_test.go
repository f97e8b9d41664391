package model

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzMustJSONString: the plain-string shortcut writes what the encoder
// writes.
func FuzzMustJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "/Users/x/code/", "tab\there", `q"uote`, `back\slash`, "é→", "\u2028", "a\u2029b", "\x7f", "\xff", "<&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimRight(b.Bytes(), "\n")
		if got := MustJSON(s); !bytes.Equal(got, want) {
			t.Fatalf("MustJSON(%q) = %s, want %s", s, got, want)
		}
	})
}
