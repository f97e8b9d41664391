package codex

import (
	"fmt"
	"strings"
	"testing"
)

// FuzzPayloadMembers holds members of a line's payload, walked once and
// kept for the line, to walking it each time (walkMembers): the same keys
// and values in the same order, asked for twice, and asked for again (and
// for a nested object) from inside fn, as sessionMeta does.
func FuzzPayloadMembers(f *testing.F) {
	f.Add(`{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}`)
	f.Add(`{"type":"a","type":"b","git":{"branch":"main"},"\u0074ype":"c"}`)
	f.Add(`{}`)
	f.Add(`{"a":1,` + strings.Repeat(`"k":0,`, maxPayloadMembers) + `"z":2}`)
	f.Fuzz(func(t *testing.T, payload string) {
		b := []byte(payload)
		st := &state{}
		if st.ix.Object(b, func(k, v []byte) error { return nil }) != nil {
			return
		}
		walk := func(b []byte, walk func([]byte, func(string, []byte))) string {
			var out strings.Builder
			walk(b, func(key string, v []byte) {
				fmt.Fprintf(&out, "%q:%q;", key, v)
				if len(v) > 0 && v[0] == '{' {
					walk(v, func(key string, v []byte) { fmt.Fprintf(&out, "(%q:%q)", key, v) })
				}
			})
			return out.String()
		}
		want := walk(b, st.walkMembers)
		st.payload, st.payloadWalked = b, false
		for i := range 2 {
			if got := walk(b, st.members); got != want {
				t.Fatalf("call %d: members\n%s\nwant\n%s", i, got, want)
			}
		}
		var inner []string
		st.members(b, func(string, []byte) {
			inner = append(inner, walk(b, st.members))
		})
		for _, got := range inner {
			if got != want {
				t.Fatalf("members within members\n%s\nwant\n%s", got, want)
			}
		}
		if got := st.str(b, "type"); got != (&state{}).str(b, "type") {
			t.Fatalf("str(type) = %q, walked %q", got, (&state{}).str(b, "type"))
		}
	})
}
