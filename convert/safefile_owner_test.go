//go:build unix

package convert

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// When the owner cannot be kept (a user who is not root, replacing a file
// of another group), the file is not replaced and nothing is left.
func TestReplaceRefusedWhenTheOwnerCannotBeKept(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.rlog")
	os.WriteFile(p, []byte("theirs"), 0o644)
	refused := 0
	chown = func(*os.File, int, int) error {
		refused++
		return &os.PathError{Op: "chown", Path: "x", Err: syscall.EPERM}
	}
	t.Cleanup(func() { chown = (*os.File).Chown })
	// The temporary file is the process's; the target another's.
	fi, _ := os.Stat(p)
	if os.Geteuid() == 0 {
		os.Chown(p, 65534, 65534) // nobody
		fi, _ = os.Stat(p)
	} else if st := fi.Sys().(*syscall.Stat_t); int(st.Uid) == os.Geteuid() && int(st.Gid) == os.Getegid() {
		t.Skip("no file of another owner to replace")
	}
	_, err := WriteFileAtomic(dir, "f.rlog", []byte("ours"), true)
	if !errors.Is(err, ErrOwner) || refused != 1 || !strings.Contains(err.Error(), "operation not permitted") {
		t.Fatalf("err %v (chown called %d times), want ErrOwner", err, refused)
	}
	if _, err := ReplaceAtomic(dir, "f.rlog", fi); !errors.Is(err, ErrOwner) {
		t.Errorf("ReplaceAtomic: %v, want ErrOwner", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "theirs" {
		t.Errorf("replaced: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
}
