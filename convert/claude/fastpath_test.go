package claude

import (
	"bytes"
	"testing"

	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// restsTextCopied is how an entry's rests were read before restsText: the
// value copied out of the line, then decoded when a string and copied again.
func restsTextCopied(ix *jsonscan.Index, v []byte) []byte {
	list := []byte(ix.Copy(v))
	if s, ok := jsonscan.String(list); ok {
		list = []byte(s)
	}
	return list
}

// FuzzRestsText holds restsText, which decodes the rests in place, to the
// reading that copied them first, on any valid JSON value of a line (valid
// UTF-8 or not).
func FuzzRestsText(f *testing.F) {
	for _, s := range []string{
		`"[{\"kind\":\"user\",\"time\":\"2025-12-19T20:29:03Z\",\"step\":1,\"unset\":[\"id\",\"parent\"]}]"`,
		`[{"kind":"user"}]`, `""`, `"\u00e9\ud800x\\"`, "\"\xff[\xfe]\"", `{"a":"\xff"}`, `null`, `12`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		if !jsonscan.Valid(v) {
			return
		}
		line := append(append([]byte(`{"rests":`), v...), '}')
		var ix jsonscan.Index
		var got, want []byte
		if err := ix.Object(line, func(_, value []byte) error {
			got = restsText(&ix, value)
			want = restsTextCopied(&ix, value)
			return nil
		}); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%q: restsText %q, copied first %q", v, got, want)
		}
	})
}
