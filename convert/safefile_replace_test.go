//go:build unix

package convert_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/internal/openfiles"
)

// nobody is the user and group a test gives a file, as another user's.
const nobody = 65534

func owner(t *testing.T, path string) (uid, gid uint32, mode os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return st.Uid, st.Gid, fi.Mode()
}

// Replacing another user's file, as root does, keeps its owner, group and
// mode: `fix -w` run by root on nobody's 0640 log left it root's.
func TestReplaceKeepsOwnerGroupAndMode(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a file to another user needs root")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "f.rlog")
	os.WriteFile(p, []byte("old"), 0o600)
	if err := os.Chown(p, nobody, nobody); err != nil {
		t.Skip("chown:", err)
	}
	os.Chmod(p, 0o640)
	if _, err := convert.WriteFileAtomic(dir, "f.rlog", []byte("new"), true); err != nil {
		t.Fatal(err)
	}
	uid, gid, mode := owner(t, p)
	if uid != nobody || gid != nobody || mode.Perm() != 0o640 {
		t.Errorf("after replacing: uid %d gid %d mode %v, want %d %d -rw-r-----", uid, gid, mode, nobody, nobody)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("content %q", b)
	}
	// convert.ReplaceAtomic, too.
	fi, _ := os.Stat(p)
	f, err := convert.ReplaceAtomic(dir, "f.rlog", fi)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("newer"))
	if _, err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if uid, gid, mode := owner(t, p); uid != nobody || gid != nobody || mode.Perm() != 0o640 {
		t.Errorf("after convert.ReplaceAtomic: uid %d gid %d mode %v", uid, gid, mode)
	}
	assertOnly(t, dir, "f.rlog")
}

// A file that changes between the reading (or the checks) and the commit
// is not replaced: what was appended meanwhile stays.
func TestReplaceRefusedWhenTheFileChanged(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.rlog")
	os.WriteFile(p, []byte("line 1\n"), 0o644)
	read, _ := os.Stat(p)
	appendTo := func(s string) {
		w, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
		w.WriteString(s)
		w.Close()
	}

	// Appended after the commit's checks began: convert.CreateAtomic with force.
	f, err := convert.CreateAtomic(dir, "s.rlog", true)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("fixed 1\n"))
	appendTo("line 2\n")
	if _, err := f.Commit(); !errors.Is(err, convert.ErrChanged) || !strings.Contains(err.Error(), "7 bytes were added") {
		t.Errorf("Commit after an append: %v, want convert.ErrChanged", err)
	}

	// Appended after the reading, before convert.ReplaceAtomic: refused at once.
	if _, err := convert.ReplaceAtomic(dir, "s.rlog", read); !errors.Is(err, convert.ErrChanged) {
		t.Errorf("convert.ReplaceAtomic of a file that grew since it was read: %v", err)
	}

	// Rewritten at the same size: the times tell.
	read, _ = os.Stat(p)
	f, err = convert.ReplaceAtomic(dir, "s.rlog", read)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, []byte("LINE 1\nLINE 2\n"), 0o644)
	if _, err := f.Commit(); !errors.Is(err, convert.ErrChanged) {
		t.Errorf("Commit after a rewrite: %v, want convert.ErrChanged", err)
	}

	// Replaced by another file, or removed.
	read, _ = os.Stat(p)
	f, _ = convert.ReplaceAtomic(dir, "s.rlog", read)
	os.Rename(p, p+".old")
	os.WriteFile(p, []byte("LINE 1\nLINE 2\n"), 0o644)
	if _, err := f.Commit(); !errors.Is(err, convert.ErrChanged) {
		t.Errorf("Commit after the file was replaced: %v, want convert.ErrChanged", err)
	}
	os.Remove(p + ".old")
	read, _ = os.Stat(p)
	f, _ = convert.ReplaceAtomic(dir, "s.rlog", read)
	os.Remove(p)
	if _, err := f.Commit(); !errors.Is(err, convert.ErrChanged) {
		t.Errorf("Commit after the file was removed: %v, want convert.ErrChanged", err)
	}
	if _, err := convert.ReplaceAtomic(dir, "s.rlog", read); !errors.Is(err, convert.ErrChanged) {
		t.Errorf("convert.ReplaceAtomic of a removed file: %v, want convert.ErrChanged", err)
	}
	assertOnly(t, dir)

	// Unchanged: replaced.
	os.WriteFile(p, []byte("a\n"), 0o644)
	read, _ = os.Stat(p)
	f, _ = convert.ReplaceAtomic(dir, "s.rlog", read)
	f.Write([]byte("b\n"))
	if _, err := f.Commit(); err != nil {
		t.Errorf("Commit of an unchanged file: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "b\n" {
		t.Errorf("content %q", b)
	}
}

// A file another process holds open for writing is not replaced: that
// process would go on writing to the old, unlinked file.
func TestReplaceRefusedWhileAnotherProcessWrites(t *testing.T) {
	if !openfiles.Supported {
		t.Skip("this system does not say which processes hold a file")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "s.rlog")
	os.WriteFile(p, []byte("line 1\n"), 0o644)
	read, _ := os.Stat(p)
	f, err := convert.ReplaceAtomic(dir, "s.rlog", read)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	cmd := exec.Command("sleep", "60")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Skip("cannot start sleep:", err)
	}
	w.Close()
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	want := "is open for writing by pid " + strconv.Itoa(cmd.Process.Pid) + " (sleep)"
	if _, err := f.Commit(); !errors.Is(err, convert.ErrOpenForWriting) || !strings.Contains(err.Error(), want) {
		t.Errorf("Commit: %v, want %q", err, want)
	}
	if _, err := convert.ReplaceAtomic(dir, "s.rlog", read); !errors.Is(err, convert.ErrOpenForWriting) {
		t.Errorf("convert.ReplaceAtomic: %v, want convert.ErrOpenForWriting", err)
	}
	assertOnly(t, dir, "s.rlog")
}

// Abort from another goroutine stops a long Write within a chunk and wins
// over a Commit that has not renamed: a report page is one Write.
func TestAbortStopsOneLongWrite(t *testing.T) {
	dir := t.TempDir()
	f, err := convert.CreateAtomic(dir, "page.html", false)
	if err != nil {
		t.Fatal(err)
	}
	page := bytes.Repeat([]byte("x"), 64<<20)
	type result struct {
		n   int
		err error
	}
	done := make(chan result)
	go func() {
		n, err := f.Write(page)
		done <- result{n, err}
	}()
	for f.Written() == 0 {
	}
	f.Abort()
	r := <-done
	if !errors.Is(r.err, convert.ErrAborted) || r.n == len(page) {
		t.Errorf("Write after Abort: %d of %d bytes, %v; want it stopped with convert.ErrAborted", r.n, len(page), r.err)
	}
	if _, err := f.Commit(); !errors.Is(err, convert.ErrAborted) {
		t.Errorf("Commit after Abort: %v", err)
	}
	assertOnly(t, dir)
}
