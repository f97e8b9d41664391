package paths

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// FuzzGlobEscape: an escaped name matches itself and nothing else.
func FuzzGlobEscape(f *testing.F) {
	for _, s := range []string{"", "a", "*", "?", "[", "]", "[a-z]", `\`, `a\*b`, "[!x]", "[^]", "a[1]*?.jsonl", "日本[語]"} {
		f.Add(s, s+"x")
	}
	f.Fuzz(func(t *testing.T, name, other string) {
		pattern := GlobEscape(name)
		if ok, err := filepath.Match(pattern, name); !ok || err != nil {
			t.Fatalf("Match(%q, %q) = %v, %v", pattern, name, ok, err)
		}
		if ok, _ := filepath.Match(pattern, other); ok && other != name {
			t.Fatalf("Match(%q, %q) is true", pattern, other)
		}
	})
}

// TestGlobEscapeFolder: a folder whose name has the characters of a
// pattern is listed by a pattern that starts with it escaped.
func TestGlobEscapeFolder(t *testing.T) {
	name := "a[1]*?"
	if runtime.GOOS != "windows" {
		name += `\b` // not a name Windows allows
	}
	dir := filepath.Join(t.TempDir(), name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(want, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if m, err := filepath.Glob(filepath.Join(GlobEscape(dir), "*.jsonl")); err != nil || len(m) != 1 || m[0] != want {
		t.Errorf("Glob = %q, %v; want %s", m, err, want)
	}
	if !IsFile(want) || IsFile(dir) || IsFile(filepath.Join(dir, "none")) {
		t.Errorf("IsFile: %v for the file, %v for its folder, %v for no file", IsFile(want), IsFile(dir), IsFile(filepath.Join(dir, "none")))
	}
}
