package atif

import (
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/model"
)

// appendJSONString and appendJSONStrings write what model.MustJSON
// writes (the step extra's members they make used to be made by it), after
// what dst holds.
func checkJSONString(t *testing.T, s string) {
	t.Helper()
	if got, want := string(appendJSONString([]byte("ab:"), s)), "ab:"+string(model.MustJSON(s)); got != want {
		t.Fatalf("appendJSONString(%q) = %s, want %s", s, got, want)
	}
	list := []string{s, "x", s + "\u2028"}
	if got, want := string(appendJSONStrings([]byte("ab:"), list)), "ab:"+string(model.MustJSON(list)); got != want {
		t.Fatalf("appendJSONStrings(%q) = %s, want %s", list, got, want)
	}
}

func TestAppendJSONStringEdges(t *testing.T) {
	for _, s := range []string{"", "a", "toolu_01", "call_4_5#2", `q"u\o`, "a\bb", "a\fb", "\u2028", "x\u2029y", "→", "\xe2", "\xe2\x80", "\xe2\x80\xa8",
		"\xff\xfe bad", "naïve 日本語 😀", "<&>", "\x00\x1f\x7f", "\r\n\t", strings.Repeat("é\b", 20)} {
		checkJSONString(t, s)
		for n := range len(s) {
			checkJSONString(t, s[:n])
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "toolu_01", `q"u\o`, "a\bb\fc", "\u2028\u2029", "→ naïve 😀", "\xff\xe2\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkJSONString(t, s) })
}
