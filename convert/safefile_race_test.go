package convert

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// raceAfterCheck makes the next WriteFileAtomic call run f between its
// checks and its write.
func raceAfterCheck(t *testing.T, f func()) {
	t.Helper()
	afterCheck = func() {
		afterCheck = nil
		f()
	}
	t.Cleanup(func() { afterCheck = nil })
}

func symlinkOrSkip(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skip("symlinks unsupported:", err)
	}
}

// A subdirectory swapped for a symlink to elsewhere after the checks: the
// write still lands in the directory that was checked, never outside.
func TestWriteFileAtomicSubdirSwappedForSymlink(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	raceAfterCheck(t, func() {
		if err := os.Rename(sub, sub+".moved"); err != nil {
			t.Fatal(err)
		}
		symlinkOrSkip(t, outside, sub)
	})
	if _, err := WriteFileAtomic(dir, "sub/out.json", []byte("data"), false); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("written outside: %v", ents)
	}
	if b, err := os.ReadFile(filepath.Join(sub+".moved", "out.json")); err != nil || string(b) != "data" {
		t.Fatalf("not in the checked directory: %q %v", b, err)
	}
}

// The target swapped for a symlink after the checks: the write fails
// (nothing is overwritten): without force because something is there, with
// force because the file replaced is not the one that was checked. The
// file the link points to is untouched either way.
func TestWriteFileAtomicTargetSwappedForSymlink(t *testing.T) {
	for _, force := range []bool{false, true} {
		dir, outside := t.TempDir(), t.TempDir()
		victim := filepath.Join(outside, "victim")
		os.WriteFile(victim, []byte("keep"), 0o600)
		target := filepath.Join(dir, "out.json")
		if force {
			os.WriteFile(target, []byte("old"), 0o600)
		}
		raceAfterCheck(t, func() {
			os.Remove(target)
			symlinkOrSkip(t, victim, target)
		})
		_, err := WriteFileAtomic(dir, "out.json", []byte("new"), force)
		if b, _ := os.ReadFile(victim); string(b) != "keep" {
			t.Fatalf("force=%v: the file behind the symlink changed: %q", force, b)
		}
		if !force && !errors.Is(err, ErrExists) {
			t.Errorf("without force: %v, want ErrExists", err)
		}
		if force && !errors.Is(err, ErrChanged) {
			t.Errorf("with force: %v, want ErrChanged", err)
		}
		if fi, err := os.Lstat(target); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("force=%v: the link was replaced: %v %v", force, fi, err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("force=%v: left behind: %v", force, ents)
		}
	}
}

// A file that appears at the name after the checks is not overwritten
// without force.
func TestWriteFileAtomicTargetAppears(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.json")
	raceAfterCheck(t, func() { os.WriteFile(target, []byte("theirs"), 0o644) })
	if _, err := WriteFileAtomic(dir, "out.json", []byte("ours"), false); !errors.Is(err, ErrExists) {
		t.Fatalf("%v, want ErrExists", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "theirs" {
		t.Fatalf("overwritten: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
}

// A symlinked subdirectory that stays inside is fine; one that leads out,
// or a chain of them, is refused; so is a dir argument that is itself a
// symlink's target outside (dir is resolved first, and is what counts).
func TestWriteFileAtomicSymlinkedSubdirs(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(dir, "real"), 0o755)
	symlinkOrSkip(t, "real", filepath.Join(dir, "inside"))
	symlinkOrSkip(t, outside, filepath.Join(dir, "out"))
	symlinkOrSkip(t, "out", filepath.Join(dir, "chain"))
	if _, err := WriteFileAtomic(dir, "inside/a.json", []byte("a"), false); err != nil {
		t.Errorf("symlink inside: %v", err)
	}
	for _, name := range []string{"out/a.json", "chain/a.json", "real/../out/a.json"} {
		if _, err := WriteFileAtomic(dir, name, []byte("x"), true); !errors.Is(err, ErrOutsideDir) {
			t.Errorf("%s: %v, want ErrOutsideDir", name, err)
		}
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("written outside: %v", ents)
	}
}

// A failed write leaves nothing: not the target, not a temporary file.
func TestWriteFileAtomicFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	if _, err := WriteFileAtomic(dir, "missing/a.json", []byte("a"), false); err == nil {
		t.Fatal("wrote into a missing folder")
	}
	raceAfterCheck(t, func() { os.Chmod(dir, 0o500) })
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	_, err := WriteFileAtomic(dir, "a.json", []byte("a"), false)
	os.Chmod(dir, 0o755)
	if os.Geteuid() == 0 {
		return // root writes anyway
	}
	if err == nil {
		t.Fatal("wrote into a read-only folder")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
}
