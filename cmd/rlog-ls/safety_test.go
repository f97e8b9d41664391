package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// runCLIStdin is runCLI with stdin.
func runCLIStdin(t *testing.T, stdin *os.File, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, stdin, &out, &errb)
	return out.String(), errb.String(), code
}

// stdinFrom is an *os.File holding content, as a shell redirection gives.
func stdinFrom(t *testing.T, content string) *os.File {
	t.Helper()
	p := writeFile(t, t.TempDir(), "stdin", content)
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// assertFolder fails unless dir holds exactly names (no temporary file).
func assertFolder(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("%s holds %v, want %v", dir, got, names)
	}
}

// checkForceReplaces holds a command that writes beside its input in to
// the rule on an existing output: while out exists, command on in refuses
// in one line (exit 2) and leaves out as it was; with --force it replaces
// out with what replaced accepts, and the folder then holds in and out
// alone (no temporary file).
func checkForceReplaces(t *testing.T, in, out string, replaced func([]byte) bool, command ...string) {
	t.Helper()
	if err := os.WriteFile(out, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, slices.Concat(command, []string{in})...)
	if code != 2 || stderr != "rlog-ls "+command[0]+": "+out+" exists; name another output with -o\n" {
		t.Fatalf("overwrite without --force: %d %q", code, stderr)
	}
	if b, _ := os.ReadFile(out); string(b) != "keep" {
		t.Fatal("existing output changed")
	}
	if _, stderr, code = runCLI(t, slices.Concat(command, []string{"--force", in})...); code != 0 {
		t.Fatalf("--force: %d %s", code, stderr)
	}
	if b, _ := os.ReadFile(out); !replaced(b) {
		t.Fatal("--force did not replace the output")
	}
	names := []string{filepath.Base(in), filepath.Base(out)}
	slices.Sort(names)
	assertFolder(t, filepath.Dir(out), names...)
}

// TestOutputNeverTheInput: -o naming the input, by its path, a symbolic
// link or a hard link, is refused with or without --force, by convert and
// redact; so is a file that stdin is redirected from.
func TestOutputNeverTheInput(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "s.rlog", sampleRlog)
	sym, hard := filepath.Join(dir, "sym.rlog"), filepath.Join(dir, "hard.rlog")
	if err := os.Symlink(in, sym); err != nil {
		t.Skip("no symlinks:", err)
	}
	if err := os.Link(in, hard); err != nil {
		t.Skip("no hard links:", err)
	}
	for _, target := range []string{in, sym, hard, filepath.Join(dir, ".", "s.rlog")} {
		for _, force := range []bool{false, true} {
			for _, cmd := range [][]string{{"convert", "--to", "rlog"}, {"redact"}} {
				args := append(append([]string{}, cmd...), "-o", target, in)
				if force {
					args = append(args, "--force")
				}
				_, stderr, code := runCLI(t, args...)
				if code != 2 || !strings.Contains(stderr, target+" is the input; name another output with -o") {
					t.Errorf("%v: exit %d: %s", args, code, stderr)
				}
			}
		}
	}
	// stdin redirected from the file named as output.
	for _, cmd := range [][]string{{"convert", "--to", "rlog"}, {"redact"}} {
		args := append(append([]string{}, cmd...), "--force", "-o", hard, "-")
		f, _ := os.Open(in)
		_, stderr, code := runCLIStdin(t, f, args...)
		f.Close()
		if code != 2 || !strings.Contains(stderr, "is the input") {
			t.Errorf("%v < input: exit %d: %s", args, code, stderr)
		}
	}
	if b, _ := os.ReadFile(in); string(b) != sampleRlog {
		t.Errorf("the input changed: %q", b)
	}
	assertFolder(t, dir, "hard.rlog", "s.rlog", "sym.rlog")
}

// TestExistingOutputHint: when the output exists (a log's companion file,
// say), the hint is -o; following --force would have replaced it.
func TestExistingOutputHint(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "1609-x.rlog", sampleRlog)
	companion := writeFile(t, dir, "1609-x.json", `{"session_id":"lossless original"}`)
	for _, args := range [][]string{
		{"convert", "--to", "trajectory", "-o", companion, in},
		{"redact", "-o", companion, in},
	} {
		_, stderr, code := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, "exists; name another output with -o") || strings.Contains(stderr, "--force") {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	if b, _ := os.ReadFile(companion); string(b) != `{"session_id":"lossless original"}` {
		t.Errorf("companion changed: %s", b)
	}
}

// TestStdin: "-" and /dev/stdin read standard input in convert, check and
// redact, with the format detected from what is read; without -o the output
// goes to stdout, never to a file beside /dev/stdin.
func TestStdin(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, name := range []string{"-", "/dev/stdin"} {
		stdout, stderr, code := runCLIStdin(t, stdinFrom(t, sampleRlog), "convert", "--to", "replay", name)
		if code != 0 || !strings.HasPrefix(stdout, `{"created_at":`) || !strings.Contains(stderr, "rlog -> replay:") {
			t.Errorf("convert %s: exit %d\n%s\n%s", name, code, stdout, stderr)
		}
		stdout, stderr, code = runCLIStdin(t, stdinFrom(t, leakySession), "redact", name)
		if code != 0 || !strings.Contains(stdout, "[redacted:") || !strings.Contains(stderr, "<stdin>:") {
			t.Errorf("redact %s: exit %d\n%s\n%s", name, code, stdout, stderr)
		}
		stdout, _, code = runCLIStdin(t, stdinFrom(t, cleanHeader+"o: id=nope → [ok]\n"), "check", name)
		if code != 0 || !strings.Contains(stdout, "<stdin>:7:") || !strings.Contains(stdout, "W002") {
			t.Errorf("check %s: exit %d\n%s", name, code, stdout)
		}
	}
	assertFolder(t, dir) // nothing written beside anything
	// Claude Code JSONL on stdin is detected; -o writes a file.
	claude := `{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"user","content":"hi"}}` + "\n"
	if _, stderr, code := runCLIStdin(t, stdinFrom(t, claude), "convert", "--to", "rlog", "-o", "out.rlog", "-"); code != 0 {
		t.Errorf("claude on stdin: %d %s", code, stderr)
	}
	if b, _ := os.ReadFile("out.rlog"); !strings.Contains(string(b), "u: hi") {
		t.Errorf("out.rlog: %s", b)
	}
	// ATIF on stdin is checked with its validator.
	stdout, _, code := runCLIStdin(t, stdinFrom(t, `{"schema_version":"ATIF-v1.5","session_id":"s","agent":{"name":"a","version":"1"},"steps":[{"step_id":2,"source":"user","message":"hi"}]}`), "check", "-")
	if code != 1 || !strings.Contains(stdout, "<stdin>:") || !strings.Contains(stdout, "ATIF") {
		t.Errorf("check ATIF on stdin: exit %d\n%s", code, stdout)
	}
	// Empty stdin: one clear line.
	if _, stderr, code := runCLIStdin(t, stdinFrom(t, ""), "convert", "--to", "rlog", "-"); code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "stdin") {
		t.Errorf("empty stdin: %d %q", code, stderr)
	}
	if _, stderr, code := runCLIStdin(t, stdinFrom(t, sampleRlog), "check", "-", "/dev/stdin"); code != 2 || !strings.Contains(stderr, "more than once") {
		t.Errorf("stdin twice: %d %q", code, stderr)
	}
}

// TestProgressOnlyOnATerminal: a conversion to a pipe or a file shows no
// progress; the progress line says how much of the input is read.
func TestProgressOnlyOnATerminal(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "s.rlog", sampleRlog)
	_, stderr, _ := runCLI(t, "convert", "--to", "replay", "-o", filepath.Join(dir, "o.jsonl"), in)
	if strings.Contains(stderr, "\r") || strings.Contains(stderr, "% of") {
		t.Errorf("progress on a non-terminal: %q", stderr)
	}
	p := &progress{cmd: "convert", total: 4 << 30, read: func() int64 { return 1 << 30 }, written: func() int64 { return 3 << 20 }, start: time.Unix(0, 0)}
	if got := p.line(time.Unix(67, 0)); got != "rlog-ls convert: 25% of 4.0 GB read, 3.0 MB written, 67s" {
		t.Errorf("progress line %q", got)
	}
}

// TestSignalLeavesNothing: SIGINT, SIGTERM and SIGHUP to the running
// binary, in the middle of writing a large conversion, leave neither the
// output nor its temporary file, and the exit status says which signal.
// Then, the same binary on a terminal shows its progress.
func TestSignalLeavesNothing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX signals")
	}
	if testing.Short() {
		t.Skip("builds the binary and a 40 MB input")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "rlog-ls")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	work := filepath.Join(dir, "work")
	os.Mkdir(work, 0o755)
	big, err := os.Create(filepath.Join(work, "big.rlog"))
	if err != nil {
		t.Fatal(err)
	}
	if err := gen.Write(big, gen.Options{Bytes: 40 << 20, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	big.Close()
	for _, c := range []struct {
		sig  syscall.Signal
		to   string
		args []string
	}{
		{syscall.SIGINT, "claude", []string{"convert", "--to", "claude", "-o", "out.jsonl", "big.rlog"}},
		{syscall.SIGTERM, "replay", []string{"convert", "--to", "replay", "big.rlog"}},
		{syscall.SIGHUP, "atif", []string{"convert", "--to", "atif", "--force", "-o", "out.json", "big.rlog"}},
	} {
		cmd := exec.Command(bin, c.args...)
		cmd.Dir = work
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait until the temporary output is being written.
		deadline := time.Now().Add(30 * time.Second)
		for !hasTemp(work) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if !hasTemp(work) {
			cmd.Process.Kill()
			t.Fatalf("%v: no temporary output appeared: %s", c.args, stderr.String())
		}
		cmd.Process.Signal(c.sig)
		err := cmd.Wait()
		code := cmd.ProcessState.ExitCode()
		if code != 128+int(c.sig) {
			t.Errorf("%v after %v: exit %d (%v): %s", c.args, c.sig, code, err, stderr.String())
		}
		if !strings.Contains(stderr.String(), "not written") {
			t.Errorf("%v: stderr %q", c.args, stderr.String())
		}
		assertFolder(t, work, "big.rlog")
	}

	// On a terminal (script(1) gives the command one), progress shows
	// after a second and is cleared at the end. 40 MB to REPLAY (a hash per
	// call) takes seconds.
	script, err := exec.LookPath("script")
	if err != nil {
		t.Log("no script(1): progress on a terminal not tried")
		return
	}
	out, err := exec.Command(script, "-qc", bin+" convert --to replay -o "+filepath.Join(work, "o.jsonl")+" "+filepath.Join(work, "big.rlog"), "/dev/null").CombinedOutput()
	if err != nil {
		t.Fatalf("under script: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("% of 40.0 MB read")) || !bytes.Contains(out, []byte("\r\x1b[K")) {
		t.Errorf("no progress on a terminal:\n%q", out)
	}
}

// hasTemp reports whether dir holds a temporary output.
func hasTemp(dir string) bool {
	ents, _ := os.ReadDir(dir)
	return tempAmong(dir, ents) != ""
}

// tempAmong is the path of the temporary output among dir's entries, or "".
func tempAmong(dir string, ents []os.DirEntry) string {
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			return filepath.Join(dir, e.Name())
		}
	}
	return ""
}

// TestOutputIsAFolder: -o naming a folder used to say "output path leaves
// the target directory"; it says the output is a folder, for every
// command that writes, and writes nothing.
func TestOutputIsAFolder(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "s.rlog", fixable)
	folder := filepath.Join(dir, "out")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"convert", "--to", "atif", "-o", folder, in},
		{"redact", "-o", folder, in},
		{"report", "-o", folder, in},
		{"fix", "-o", folder, in},
		{"convert", "--to", "atif", "--force", "-o", folder, in},
	} {
		_, stderr, code := runCLI(t, args...)
		if code != 2 || !strings.HasSuffix(stderr, ": "+folder+" is a folder; name a file for the output (in it, or elsewhere)\n") ||
			strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
	assertFolder(t, dir, "out", "s.rlog")
	assertFolder(t, folder)
}
