package lsptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// canonical re-encodes JSON with sorted keys and no spaces, keeping numbers
// as written; invalid JSON is returned as is.
func canonical(raw []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return b
}

// JSONEqual reports whether two JSON texts are the same value. Key order
// and spacing do not matter; everything else does: null is not [], an
// absent key is not a null one, 1 is not 1.0.
func JSONEqual(a, b []byte) bool {
	return json.Valid(a) && json.Valid(b) && bytes.Equal(canonical(a), canonical(b))
}

// AssertJSON fails the test unless got is the JSON value want. Use it for
// the wire shapes clients are strict about.
func AssertJSON(t testing.TB, got []byte, want string) {
	t.Helper()
	if !JSONEqual(got, []byte(want)) {
		t.Errorf("wire JSON differs\n got: %s\nwant: %s", canonical(got), canonical([]byte(want)))
	}
}

// RawString quotes s as a JSON string the way a sloppy client might:
// invalid UTF-8 goes through as raw bytes (encoding/json would turn it
// into U+FFFD). The server keeps such bytes, one column each.
func RawString[S ~string | ~[]byte](s S) string {
	var out strings.Builder
	out.Grow(len(s) + 2)
	out.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			out.WriteByte('\\')
			out.WriteByte(c)
		case c < 0x20:
			fmt.Fprintf(&out, "\\u%04x", c)
		default:
			out.WriteByte(c)
		}
	}
	out.WriteByte('"')
	return out.String()
}
