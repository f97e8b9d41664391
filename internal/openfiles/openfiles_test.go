package openfiles

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// holder starts a process that holds f open (as its descriptor 3) until
// the test ends.
func holder(t *testing.T, f *os.File) int {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	cmd.ExtraFiles = []*os.File{f}
	if err := cmd.Start(); err != nil {
		t.Skip("cannot start sleep:", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

func TestWriters(t *testing.T) {
	if !Supported {
		t.Skip("this system does not say which processes hold a file")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "s.rlog")
	if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	// This process holding it for writing does not count: it is the one
	// that asks.
	own, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	defer own.Close()
	// A reader does not count either.
	r, _ := os.Open(p)
	holder(t, r)
	r.Close()
	if ws, err := Writers(fi); err != nil || len(ws) != 0 {
		t.Fatalf("no other writer: %v %v", ws, err)
	}
	// Another file held for writing does not count.
	other, _ := os.Create(filepath.Join(dir, "other.rlog"))
	holder(t, other)
	other.Close()
	w, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	pid := holder(t, w)
	w.Close()
	ws, err := Writers(fi)
	if err != nil || len(ws) != 1 || ws[0].PID != pid || ws[0].Command != "sleep" {
		t.Fatalf("Writers = %v, %v; want pid %d (sleep)", ws, err, pid)
	}
	// Read-write counts; a hard link is the same file.
	link := filepath.Join(dir, "link.rlog")
	os.Link(p, link)
	rw, _ := os.OpenFile(link, os.O_RDWR, 0)
	holder(t, rw)
	rw.Close()
	if ws, _ := Writers(fi); len(ws) != 2 {
		t.Errorf("with a read-write holder through a hard link: %v", ws)
	}
}

func TestList(t *testing.T) {
	ps := []Process{{1, "init"}, {12, "claude"}, {40, ""}, {41, "tee"}, {42, "tee"}}
	for n, want := range []string{"", "pid 1 (init)", "pid 1 (init) and pid 12 (claude)", "pid 1 (init), pid 12 (claude) and pid 40",
		"pid 1 (init), pid 12 (claude), pid 40 and 1 more", "pid 1 (init), pid 12 (claude), pid 40 and 2 more"} {
		if got := List(ps[:n]); got != want {
			t.Errorf("List of %d = %q, want %q", n, got, want)
		}
	}
	if !strings.Contains(Process{7, "x"}.String(), "pid 7") {
		t.Error(Process{7, "x"})
	}
}
