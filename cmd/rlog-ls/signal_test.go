//go:build unix

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// copyFile copies src to dir/name.
func copyFile(t *testing.T, src, dir, name string) string {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	p := filepath.Join(dir, name)
	out, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// interruptWhileWriting runs the binary with args in a new folder that
// prepare fills, sends it sig as soon as its temporary output appears
// there, and calls check with the folder, the exit status and stderr.
// Only a run whose temporary file held less than half of the output
// (output, written by a first run without a signal) when the signal was
// sent counts: the command was still writing, well before its commit. A
// run that the signal caught later proves nothing either way (the
// commit and the signal can cross) and is run again; check sees times
// runs that count, within 20.
func interruptWhileWriting(t *testing.T, bin string, sig syscall.Signal, times int, prepare func(dir string), output string, args []string, check func(dir string, code int, stderr string)) {
	t.Helper()
	ref := t.TempDir()
	prepare(ref)
	cmd := exec.Command(bin, args...)
	cmd.Dir = ref
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	fi, err := os.Stat(filepath.Join(ref, output))
	if err != nil {
		t.Fatal(err)
	}
	full := fi.Size()
	counted := 0
	for run := 0; counted < times; run++ {
		if run == 20 {
			t.Fatalf("%v: the signal came while it wrote the first half in %d of %d runs", args, counted, run)
		}
		dir := t.TempDir()
		prepare(dir)
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		deadline := time.Now().Add(60 * time.Second)
		written := int64(-1)
		for written < 0 {
			if tmp := tempIn(dir); tmp != "" {
				if fi, err := os.Stat(tmp); err == nil {
					written = fi.Size()
				}
			}
			select {
			case <-exited:
				written = full // done before its output was seen
			default:
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("%v: no temporary output appeared: %s", args, stderr.String())
			}
		}
		cmd.Process.Signal(sig)
		<-exited
		if written >= full/2 {
			t.Logf("%v: run %d: signalled with %d of %d bytes written: not counted", args, run+1, written, full)
			continue
		}
		counted++
		check(dir, cmd.ProcessState.ExitCode(), stderr.String())
	}
}

// tempIn is the path of a temporary output in dir, or "".
func tempIn(dir string) string {
	ents, _ := os.ReadDir(dir)
	return tempAmong(dir, ents)
}

// TestFixInterruptedLeavesNothing: fix --write and fix -o, interrupted
// while they write, leave neither a temporary file (they used to leave a
// full-size .NAME.rlog.tmp-…: fix wrote without the signal guard) nor a
// changed input, and exit 128+N.
func TestFixInterruptedLeavesNothing(t *testing.T) {
	bin := processTest(t)
	src := generatedLog(t, 16<<20)
	want, _ := os.ReadFile(src)
	for _, c := range []struct {
		sig       syscall.Signal
		args      []string
		output    string
		untouched string
	}{
		{syscall.SIGINT, []string{"fix", "--write", "big.rlog"}, "big.rlog", "big.rlog left as it was"},
		{syscall.SIGTERM, []string{"fix", "-o", "out.rlog", "big.rlog"}, "out.rlog", "out.rlog not written"},
	} {
		interruptWhileWriting(t, bin, c.sig, 1, func(dir string) { copyFile(t, src, dir, "big.rlog") }, c.output, c.args,
			func(dir string, code int, stderr string) {
				if code != 128+int(c.sig) || !strings.Contains(stderr, "rlog-ls fix: stopped by "+c.sig.String()+"; "+c.untouched) {
					t.Errorf("%v after %v: exit %d, %q", c.args, c.sig, code, stderr)
				}
				assertFolder(t, dir, "big.rlog")
				if got, _ := os.ReadFile(filepath.Join(dir, "big.rlog")); !bytes.Equal(got, want) {
					t.Errorf("%v: the input changed", c.args)
				}
			})
	}
}

// TestReportAndRedactInterruptedCommitNothing: report and redact,
// interrupted while they write, used to finish the file, commit it and
// then exit 130. They stop, remove the temporary file and commit nothing.
func TestReportAndRedactInterruptedCommitNothing(t *testing.T) {
	bin := processTest(t)
	src := generatedLog(t, 64<<20)
	for _, args := range [][]string{
		{"report", "-o", "out.html", "big.rlog"},
		{"redact", "-o", "out.rlog", "big.rlog"},
	} {
		interruptWhileWriting(t, bin, syscall.SIGINT, 2, func(dir string) { copyFile(t, src, dir, "big.rlog") }, args[2], args,
			func(dir string, code int, stderr string) {
				if code != 130 || !strings.Contains(stderr, "stopped by interrupt; out.") || strings.Contains(stderr, "wrote") {
					t.Errorf("%v after SIGINT: exit %d, %q", args, code, stderr)
				}
				assertFolder(t, dir, "big.rlog")
			})
	}
}

// TestInterruptedPipelineCommitsNothing: Ctrl-C in a pipeline (cat
// big.rlog | rlog-ls convert --to claude - -o out.jsonl) signals both;
// cat dies, and the converter can see the end of its input before its
// guard has the signal. It used to commit the truncated output then ("stopped
// by interrupt after writing out.jsonl"), in 1 to 3 of 6 tries. Once the
// signal has arrived nothing is committed: no output, no temporary file,
// exit 130, every time.
func TestInterruptedPipelineCommitsNothing(t *testing.T) {
	bin := processTest(t)
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat to feed the pipeline")
	}
	src := generatedLog(t, 8<<20)
	dir := t.TempDir()
	for i, tries := 0, 0; tries < 30; i++ {
		if i == 60 {
			t.Fatalf("cat was still writing when the signal came in %d of %d tries", tries, i)
		}
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		// One process group, as a shell makes for a pipeline: cat leads it.
		feed := exec.Command(cat, src)
		feed.Stdout = w
		feed.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := feed.Start(); err != nil {
			t.Fatal(err)
		}
		conv := exec.Command(bin, "convert", "--to", "claude", "-", "-o", "out.jsonl")
		conv.Dir = dir
		conv.Stdin = r
		var stderr bytes.Buffer
		conv.Stderr = &stderr
		conv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: feed.Process.Pid}
		if err := conv.Start(); err != nil {
			feed.Process.Kill()
			t.Fatal(err)
		}
		r.Close()
		w.Close()
		// Signal the group mid-stream: once the output is being written,
		// after a few milliseconds that vary from try to try.
		deadline := time.Now().Add(30 * time.Second)
		for !hasTemp(dir) && time.Now().Before(deadline) {
		}
		time.Sleep(time.Duration(i%6) * time.Millisecond)
		syscall.Kill(-feed.Process.Pid, syscall.SIGINT)
		feed.Wait()
		conv.Wait()
		if feed.ProcessState.Success() {
			// cat had written it all: the input was whole, and the
			// signal may have come after the commit. Not a try.
			os.Remove(filepath.Join(dir, "out.jsonl"))
			continue
		}
		tries++
		if code := conv.ProcessState.ExitCode(); code != 130 || !strings.Contains(stderr.String(), "stopped by interrupt; out.jsonl not written") {
			t.Errorf("try %d: exit %d, %q", tries, code, stderr.String())
		}
		assertFolder(t, dir)
		if t.Failed() {
			return
		}
	}
}
