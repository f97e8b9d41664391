//go:build unix

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// growingLog writes a session of lines lines, cut before its @end (so fix
// has something to do), to dir/name.
func growingLog(t *testing.T, dir, name string, lines int) string {
	t.Helper()
	var b bytes.Buffer
	if err := gen.Write(&b, gen.Options{Bytes: int64(lines) * 160, Seed: 7, FindingRate: 0.01}); err != nil {
		t.Fatal(err)
	}
	all := strings.SplitAfter(b.String(), "\n")
	if len(all) < lines {
		t.Fatalf("generated %d lines, want %d", len(all), lines)
	}
	body := strings.Join(all[:lines], "")
	if strings.Contains(body, "@end") {
		t.Fatal("the cut log still has its @end")
	}
	return writeFile(t, dir, name, body)
}

// startAppender starts a process that holds path open for appending and
// appends n lines, interval apart, as an agent writing its log does; it
// returns once the file is open.
func startAppender(t *testing.T, path string, n int, interval string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("RLOG_LS_TEST_APPEND=%d:%s:%s", n, interval, path))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		t.Fatalf("the appender did not start: %q %s", line, stderr.String())
	}
	return cmd
}

// TestFixWriteKeepsWhatAWriterAppends: `fix --write` on a log that is
// still being written (a 20,000-line log, another process appending 150
// lines 10 ms apart) used to rename the fixed copy over it while the
// writer held the old file open: its later lines went to the unlinked file
// and 21 of the 150 survived. Now fix says who is writing and leaves the
// file alone; every appended line is there, and once the writer is done,
// fix --write keeps them.
func TestFixWriteKeepsWhatAWriterAppends(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux says which processes hold a file open; elsewhere only a change of the file is seen")
	}
	dir := t.TempDir()
	p := growingLog(t, dir, "live.rlog", 20000)
	const n = 150
	writer := startAppender(t, p, n, "10ms")
	_, stderr, code := runCLI(t, "fix", "--write", p)
	if err := writer.Wait(); err != nil {
		t.Fatalf("the appender: %v", err)
	}
	b, _ := os.ReadFile(p)
	kept := 0
	for i := range n {
		if bytes.Contains(b, []byte(appendedLine(i))) {
			kept++
		}
	}
	if kept != n {
		t.Fatalf("%d of the %d appended lines are left (fix exit %d: %s)", kept, n, code, stderr)
	}
	want := fmt.Sprintf("rlog-ls fix: %s is open for writing by pid %d (", p, writer.Process.Pid)
	if code != 2 || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 ||
		!strings.Contains(stderr, "not replaced (name another output with -o)") {
		t.Errorf("fix --write on a log being written: exit %d, %q; want 2 and %q…", code, stderr, want)
	}
	// The writer is done: now it is fixed, and what it appended stays.
	if _, stderr, code := runCLI(t, "fix", "--write", p); code != 0 || !strings.Contains(stderr, "I002") {
		t.Fatalf("fix --write once the writer is done: exit %d, %s", code, stderr)
	}
	fixed, _ := os.ReadFile(p)
	if !bytes.HasPrefix(fixed[bytes.Index(fixed, []byte(appendedLine(0))):], []byte(appendedLine(0))) ||
		!bytes.HasSuffix(fixed, []byte(appendedLine(n-1)+"@end\n")) {
		t.Errorf("the fixed log lost the appended lines: ends %q", fixed[max(0, len(fixed)-200):])
	}
	assertFolder(t, dir, "live.rlog")
}

// TestFixWriteKeepsTheOwner: `fix -w` run by root on another user's log
// (nobody's, mode 0640) used to leave it root's. The new version keeps the
// owner, the group and the mode.
func TestFixWriteKeepsTheOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a file to another user needs root")
	}
	const nobody = 65534
	dir := t.TempDir()
	p := writeFile(t, dir, "f.rlog", fixable)
	if err := os.Chown(p, nobody, nobody); err != nil {
		t.Skip("chown:", err)
	}
	os.Chmod(p, 0o640)
	if _, stderr, code := runCLI(t, "fix", "-w", p); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if st.Uid != nobody || st.Gid != nobody || fi.Mode().Perm() != 0o640 {
		t.Errorf("after fix -w: uid %d gid %d mode %v; want %d, %d, -rw-r-----", st.Uid, st.Gid, fi.Mode(), nobody, nobody)
	}
	if b, _ := os.ReadFile(p); string(b) != fixed {
		t.Errorf("not fixed: %q", b)
	}
	assertFolder(t, dir, "f.rlog")
}

// TestFixWriteRefusesAFileThatChanged: a file that changed between fix's
// reading and its writing (appended to and closed, as echo >> does) is not
// replaced.
func TestFixWriteRefusesAFileThatChanged(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "s.rlog", fixable)
	read, _ := os.Stat(p)
	os.WriteFile(p, []byte(fixable+"a: appended\n"), 0o644)
	o, err := replaceInput("fix", p, read, new(bytes.Buffer))
	if err == nil {
		o.close()
		t.Fatal("replaced a file that changed since it was read")
	}
	if got := outputError(p, err); !strings.Contains(got, p+" changed while rlog-ls worked on it (12 bytes were added); not replaced") {
		t.Errorf("message %q", got)
	}
	assertFolder(t, dir, "s.rlog")
}
