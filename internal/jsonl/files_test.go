package jsonl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHeadAndGrep(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.jsonl")
	if err := os.WriteFile(p, []byte("{\"a\":1}\n\n{\"b\":2}\n{\"a\":3}\n{\"c\":4}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := Head(p, 2, func(l []byte) bool { got = append(got, string(l)); return true }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != `{"a":1} {"b":2}` {
		t.Errorf("Head(2) = %q", got)
	}
	got = nil
	Head(p, 10, func(l []byte) bool { got = append(got, string(l)); return false })
	if len(got) != 1 {
		t.Errorf("Head stopped by fn = %q, want one line", got)
	}
	got = nil
	if err := Grep(p, []byte(`"a"`), func(l []byte) bool { got = append(got, string(l)); return true }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != `{"a":1} {"a":3}` {
		t.Errorf("Grep = %q", got)
	}
	got = nil
	Grep(p, []byte(`"a"`), func(l []byte) bool { got = append(got, string(l)); return false })
	if len(got) != 1 {
		t.Errorf("Grep stopped by fn = %q, want one line", got)
	}
	if err := Grep(filepath.Join(t.TempDir(), "none"), []byte("x"), func([]byte) bool { return true }); err == nil {
		t.Error("Grep of a missing file: no error")
	}
}
