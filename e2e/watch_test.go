//go:build unix

package e2e

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The built binary's watch reports a line appended to a log, and Ctrl-C
// (SIGINT) ends it cleanly with check's exit status: 1, as the appended
// line holds a credential (S001, an error).
func TestWatchBinaryInterrupted(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "s.rlog")
	if err := os.WriteFile(log, []byte("---\nformat: rlog/1\nid: s\nrepo_sha: abcdef1\nrunner: ci\n---\nu: go\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(server(t), "watch", log)
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "rlog-ls watch: following ") {
				close(ready)
			}
		}
	}()
	// A guard against a hang, not a timing.
	select {
	case <-ready:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("watch did not start")
	}
	f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("a: token ghp_Zx81kQ2mN4pL7rT9vB3cD6fH0jS5wY2aE1uK\n")
	f.Close()
	select {
	case line := <-lines:
		if !strings.HasPrefix(line, log+":8:10: error S001: ") {
			t.Fatalf("reported %q", line)
		}
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("the appended line was not reported")
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("after Ctrl-C: %v, want exit status 1", err)
	}
}
