//go:build unix

package main

import (
	"bytes"
	"encoding/json"
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
	cat := lookCat(t)
	src := generatedLog(t, 8<<20)
	dir := t.TempDir()
	for i, tries := 0, 0; tries < 30; i++ {
		if i == 60 {
			t.Fatalf("cat was still writing when the signal came in %d of %d tries", tries, i)
		}
		// Signal the group mid-stream: once the output is being written,
		// after a few milliseconds that vary from try to try.
		ps, _, stderr, whole := interruptPipeline(t, cat, bin, src, dir, []string{"convert", "--to", "claude", "-", "-o", "out.jsonl"},
			func() bool { return hasTemp(dir) }, time.Duration(i%6)*time.Millisecond)
		if whole {
			// cat had written it all: the input was whole, and the
			// signal may have come after the commit. Not a try.
			os.Remove(filepath.Join(dir, "out.jsonl"))
			continue
		}
		tries++
		if code := ps.ExitCode(); code != 130 || !strings.Contains(stderr, "stopped by interrupt; out.jsonl not written") {
			t.Errorf("try %d: exit %d, %q", tries, code, stderr)
		}
		assertFolder(t, dir)
		if t.Failed() {
			return
		}
	}
}

// TestInterruptedPipelineReadersCommitNothing: the commands that read
// standard input a window at a time (report, check, stats) and act only at
// its end stop at Ctrl-C in a pipeline without acting on the input that
// cat left cut short: report writes no page and leaves no temporary file,
// check and stats print nothing of it. A command that ended before the
// signal came read all of its input, and its output is the whole log's;
// one the signal stopped while it printed printed the start of that.
func TestInterruptedPipelineReadersCommitNothing(t *testing.T) {
	bin := processTest(t)
	cat := lookCat(t)
	src := generatedLog(t, 8<<20)
	for _, args := range [][]string{{"report", "-", "-o", "out.html"}, {"check", "-"}, {"stats", "-"}} {
		// What the command makes of the whole log, read from a pipe.
		dir := t.TempDir()
		ps, wantOut, stderr, _ := interruptPipeline(t, cat, bin, src, dir, args, nil, 0)
		wantPage := pageIn(t, dir)
		if ps.ExitCode() != 0 && (args[0] != "check" || ps.ExitCode() != 1) {
			t.Fatalf("%v: %v %s", args, ps, stderr)
		}
		os.Remove(filepath.Join(dir, "out.html"))
		for i, tries := 0, 0; tries < 6; i++ {
			if i == 30 {
				t.Fatalf("%v: the signal came before the end in %d of %d tries", args, tries, i)
			}
			start := time.Now()
			ps, stdout, stderr, _ := interruptPipeline(t, cat, bin, src, dir, args,
				func() bool { return time.Since(start) >= 20*time.Millisecond }, time.Duration(i%6)*time.Millisecond)
			if ps.Exited() && ps.ExitCode() != 130 {
				// It ended before the signal: it had read the whole log.
				if stdout != wantOut || pageIn(t, dir) != wantPage {
					t.Fatalf("%v: exit %d with the output of a log cut short: stdout %.300q, stderr %q", args, ps.ExitCode(), stdout, stderr)
				}
				os.Remove(filepath.Join(dir, "out.html"))
				continue
			}
			tries++
			ws, _ := ps.Sys().(syscall.WaitStatus)
			killed := ws.Signaled() && ws.Signal() == syscall.SIGINT
			// Killed while it printed what it had read whole (the signal
			// came after the input's end and the moment given to a signal
			// on its way): what it printed is the start of the whole log's
			// output, never a cut-short log's.
			printedWhole := killed && strings.HasPrefix(wantOut, stdout)
			if !killed && !strings.Contains(stderr, "stopped by interrupt; out.html not written") || stdout != "" && !printedWhole {
				t.Errorf("%v, try %d: exit %d (signal %v), stdout %.200q, stderr %q", args, tries, ps.ExitCode(), ws.Signal(), stdout, stderr)
			}
			assertFolder(t, dir)
			if t.Failed() {
				return
			}
		}
	}
}

// pageIn is the data of the page out.html in dir, "" when there is none.
func pageIn(t *testing.T, dir string) string {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(dir, "out.html"))
	if err != nil {
		return ""
	}
	d, err := json.Marshal(reportData(t, string(page)))
	if err != nil {
		t.Fatal(err)
	}
	return string(d)
}

// lookCat is the path of cat, to feed a pipeline.
func lookCat(t *testing.T) string {
	t.Helper()
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat to feed the pipeline")
	}
	return cat
}

// interruptPipeline runs cat src | bin args in dir as a shell runs a
// pipeline (one process group, cat leading it), and sends the group SIGINT,
// as Ctrl-C does, delay after ready says so (never when ready is nil).
// whole says cat had written all of src: the signal may then have come
// after the command was done.
func interruptPipeline(t *testing.T, cat, bin, src, dir string, args []string, ready func() bool, delay time.Duration) (ps *os.ProcessState, stdout, stderr string, whole bool) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	feed := exec.Command(cat, src)
	feed.Stdout = w
	feed.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := feed.Start(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdin = r
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: feed.Process.Pid}
	if err := cmd.Start(); err != nil {
		feed.Process.Kill()
		t.Fatal(err)
	}
	r.Close()
	w.Close()
	if ready != nil {
		deadline := time.Now().Add(30 * time.Second)
		for !ready() && time.Now().Before(deadline) {
		}
		time.Sleep(delay)
		syscall.Kill(-feed.Process.Pid, syscall.SIGINT)
	}
	feed.Wait()
	cmd.Wait()
	return cmd.ProcessState, out.String(), errb.String(), feed.ProcessState.Success()
}
