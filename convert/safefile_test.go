package convert_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	p, err := convert.WriteFileAtomic(dir, "a.json", []byte("one"), false)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "one" {
		t.Fatalf("content %q", b)
	}
	if _, err := convert.WriteFileAtomic(dir, "a.json", []byte("two"), false); !errors.Is(err, convert.ErrExists) {
		t.Errorf("overwrite without force: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "one" {
		t.Errorf("refused write changed the file: %q", b)
	}
	if _, err := convert.WriteFileAtomic(dir, "a.json", []byte("two"), true); err != nil {
		t.Errorf("force: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Errorf("forced content %q", b)
	}
	for _, name := range []string{"../x", "/etc/x", "", ".", "a/../../x"} {
		if _, err := convert.WriteFileAtomic(dir, name, nil, true); !errors.Is(err, convert.ErrOutsideDir) {
			t.Errorf("%q: %v, want ErrOutsideDir", name, err)
		}
	}
	// A symlinked subdirectory pointing outside, and a symlink as target.
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Skip("symlinks unsupported:", err)
	}
	if _, err := convert.WriteFileAtomic(dir, "out/x.json", []byte("x"), true); !errors.Is(err, convert.ErrOutsideDir) {
		t.Errorf("through a symlinked dir: %v", err)
	}
	os.WriteFile(filepath.Join(outside, "target"), []byte("keep"), 0o644)
	os.Symlink(filepath.Join(outside, "target"), filepath.Join(dir, "link.json"))
	if _, err := convert.WriteFileAtomic(dir, "link.json", []byte("x"), true); !errors.Is(err, convert.ErrOutsideDir) {
		t.Errorf("symlink target: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "target")); string(b) != "keep" {
		t.Errorf("file behind a symlink was changed: %q", b)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Errorf("files appeared outside: %v", ents)
	}
	// No temporary files are left behind.
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != "a.json" && e.Name() != "out" && e.Name() != "link.json" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	// A subdirectory inside is fine.
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	if _, err := convert.WriteFileAtomic(dir, "sub/b.json", []byte("b"), false); err != nil {
		t.Errorf("subdirectory: %v", err)
	}
}
