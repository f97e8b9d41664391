package convert_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
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
	// A subdirectory inside is fine; a folder is no file to write.
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	if _, err := convert.WriteFileAtomic(dir, "sub/b.json", []byte("b"), false); err != nil {
		t.Errorf("subdirectory: %v", err)
	}
	for _, force := range []bool{false, true} {
		if _, err := convert.WriteFileAtomic(dir, "sub", []byte("b"), force); !errors.Is(err, convert.ErrIsFolder) {
			t.Errorf("a folder, force=%v: %v, want ErrIsFolder", force, err)
		}
	}
}

// TestAtomicFile: an output streamed into an AtomicFile appears whole on
// Commit and not at all before it or after Abort.
func TestAtomicFile(t *testing.T) {
	dir := t.TempDir()
	f, err := convert.CreateAtomic(dir, "out.jsonl", false)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := f.Write([]byte("line\n")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("target visible before Commit: %v", err)
	}
	if f.Written() != 15 {
		t.Errorf("Written() = %d", f.Written())
	}
	p, err := f.Commit()
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "line\nline\nline\n" {
		t.Errorf("content %q", b)
	}
	f.Abort() // after Commit: nothing happens
	if _, err := os.Stat(p); err != nil {
		t.Errorf("Abort after Commit removed the file: %v", err)
	}

	// Abort: nothing left, and writes fail from then on.
	g, err := convert.CreateAtomic(dir, "gone.jsonl", false)
	if err != nil {
		t.Fatal(err)
	}
	g.Write([]byte("partial"))
	g.Abort()
	g.Abort()
	if _, err := g.Write([]byte("x")); !errors.Is(err, convert.ErrAborted) {
		t.Errorf("Write after Abort: %v", err)
	}
	if _, err := g.Commit(); !errors.Is(err, convert.ErrAborted) {
		t.Errorf("Commit after Abort: %v", err)
	}
	assertOnly(t, dir, "out.jsonl")

	// A file that appears at the target meanwhile is kept, and the
	// temporary file goes.
	h, err := convert.CreateAtomic(dir, "late.jsonl", false)
	if err != nil {
		t.Fatal(err)
	}
	h.Write([]byte("mine"))
	os.WriteFile(filepath.Join(dir, "late.jsonl"), []byte("theirs"), 0o644)
	if _, err := h.Commit(); !errors.Is(err, convert.ErrExists) {
		t.Errorf("Commit over a file that appeared: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "late.jsonl")); string(b) != "theirs" {
		t.Errorf("the file that appeared was replaced: %q", b)
	}
	assertOnly(t, dir, "late.jsonl", "out.jsonl")
}

// TestAtomicFileAbortWhileWriting: Abort from another goroutine (a signal
// handler) while a writer is busy leaves nothing behind.
func TestAtomicFileAbortWhileWriting(t *testing.T) {
	dir := t.TempDir()
	f, err := convert.CreateAtomic(dir, "big.jsonl", false)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	errc := make(chan error)
	go func() {
		for {
			if _, err := f.Write(chunk); err != nil {
				errc <- err
				return
			}
		}
	}()
	for f.Written() < 1<<20 {
		runtime.Gosched()
	}
	f.Abort()
	if err := <-errc; !errors.Is(err, convert.ErrAborted) {
		t.Errorf("writer ended with %v", err)
	}
	assertOnly(t, dir)
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("folder holds %v, want %v", got, names)
	}
}
