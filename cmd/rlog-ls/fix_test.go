package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const fixable = "---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\nrunner: ci\n---\n" +
	"@start id=s ts=2025-01-01T00:00:00Z\n" +
	"a: one step=2\n" +
	"t:Read x -> [ok] step=1\n" +
	"a: done step=3\n"

const fixed = "---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\nrunner: ci\n---\n" +
	"@start id=s ts=2025-01-01T00:00:00Z\n" +
	"a: one step=1\n" +
	"t:Read x → [ok] step=2\n" +
	"a: done step=3\n" +
	"@end\n"

// applyPatch applies a unified diff with patch -p0 in dir, as a user would.
func applyPatch(t *testing.T, dir, diff string) {
	t.Helper()
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("patch is not installed")
	}
	cmd := exec.Command("patch", "-p0", "--quiet")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(diff)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("patch: %v\n%s\n%s", err, out, diff)
	}
}

func TestFixDryRunPrintsADiffThatPatchApplies(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "s.rlog", fixable)
	t.Chdir(dir)
	out, errOut, code := runCLI(t, "fix", "s.rlog")
	want := "diff s.rlog.orig s.rlog\n--- s.rlog.orig\n+++ s.rlog\n@@ -5,6 +5,7 @@\n runner: ci\n ---\n @start id=s ts=2025-01-01T00:00:00Z\n" +
		"-a: one step=2\n-t:Read x -> [ok] step=1\n+a: one step=1\n+t:Read x → [ok] step=2\n a: done step=3\n+@end\n"
	if code != 0 || out != want {
		t.Fatalf("%d\n%s\nwant\n%s", code, out, want)
	}
	if errOut != "s.rlog:1: I002 Add @end at the end of the session\ns.rlog:9: W011 Replace -> with the result arrow →\n"+
		"s.rlog:9: W004 Renumber every step= 1..N\nrlog-ls fix: would apply 3 fixes\n" {
		t.Fatalf("stderr %q", errOut)
	}
	if b, _ := os.ReadFile("s.rlog"); string(b) != fixable {
		t.Fatal("a dry run changed the file")
	}
	applyPatch(t, dir, out)
	if b, _ := os.ReadFile("s.rlog"); string(b) != fixed {
		t.Fatalf("patched:\n%s", b)
	}
}

// TestFixDiffEdges: hunks far apart, a last line without a line break,
// CRLF line breaks; patch turns each file into what --write writes.
func TestFixDiffEdges(t *testing.T) {
	var far strings.Builder
	far.WriteString(cleanHeader + "t:Read a -> [ok]\n")
	for i := range 40 {
		fmt.Fprintf(&far, "a: line %d\n", i)
	}
	far.WriteString("t:Read b -> [ok]\n")
	for name, src := range map[string]string{
		"far.rlog":      far.String(),
		"nobreak.rlog":  cleanHeader + "@start id=s\na: one\nt:Read x -> [ok]",
		"crlf.rlog":     strings.ReplaceAll(fixable, "\n", "\r\n"),
		"header.rlog":   "---\nrepo_sha: abcdef\n---\nu: hi\n",
		"emptyend.rlog": cleanHeader + "@start id=s\n\n\n",
	} {
		dir := t.TempDir()
		writeFile(t, dir, name, src)
		t.Chdir(dir)
		diff, _, code := runCLI(t, "fix", name)
		if code != 0 || diff == "" {
			t.Fatalf("%s: %d %q", name, code, diff)
		}
		if name == "far.rlog" && strings.Count(diff, "@@ -") != 2 {
			t.Errorf("far apart changes make two hunks:\n%s", diff)
		}
		if name == "nobreak.rlog" && !strings.Contains(diff, "\\ No newline at end of file") {
			t.Errorf("no line break at the end:\n%s", diff)
		}
		want, _, _ := runCLI(t, "fix", "-o", "-", name)
		applyPatch(t, dir, diff)
		if b, _ := os.ReadFile(name); string(b) != want {
			t.Errorf("%s: patch gives\n%q\nfix -o - gives\n%q\ndiff:\n%s", name, b, want, diff)
		}
		if name == "crlf.rlog" && !strings.HasSuffix(want, "@end\r\n") {
			t.Errorf("CRLF kept: %q", want)
		}
	}
}

func TestFixWrite(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "s.rlog", fixable)
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "fix", p, "--write")
	if code != 0 || out != "" || !strings.HasSuffix(errOut, "rlog-ls fix: applied 3 fixes\n") {
		t.Fatalf("%d %q %q", code, out, errOut)
	}
	if b, _ := os.ReadFile(p); string(b) != fixed {
		t.Fatalf("written:\n%s", b)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Fatalf("permissions %v", fi.Mode())
	}
	// Again: nothing to fix, nothing written.
	before, _ := os.Stat(p)
	if _, errOut, code := runCLI(t, "fix", "-w", p); code != 0 || errOut != "rlog-ls fix: "+p+": nothing to fix\n" {
		t.Fatalf("%d %q", code, errOut)
	}
	if after, _ := os.Stat(p); !after.ModTime().Equal(before.ModTime()) {
		t.Fatal("rewritten with nothing to fix")
	}
	// Never through a symbolic link: the link and its target stay.
	target := writeFile(t, t.TempDir(), "target.rlog", fixable)
	link := filepath.Join(dir, "link.rlog")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runCLI(t, "fix", "--write", link); code != 2 || !strings.Contains(errOut, "is a symbolic link") {
		t.Fatalf("%d %q", code, errOut)
	}
	if b, _ := os.ReadFile(target); string(b) != fixable {
		t.Fatal("written through the link")
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

func TestFixOutputAndSelection(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "s.rlog", fixable)
	o := filepath.Join(dir, "out.rlog")
	if _, _, code := runCLI(t, "fix", "-o", o, p); code != 0 {
		t.Fatal(code)
	}
	if b, _ := os.ReadFile(o); string(b) != fixed {
		t.Fatalf("%s", b)
	}
	if b, _ := os.ReadFile(p); string(b) != fixable {
		t.Fatal("-o changed the input")
	}
	if _, errOut, code := runCLI(t, "fix", "-o", o, p); code != 2 || !strings.Contains(errOut, "exists; name another output with -o") || strings.Contains(errOut, "--force") {
		t.Fatalf("%d %q", code, errOut)
	}
	if _, _, code := runCLI(t, "fix", "-o", o, "--force", "--arrows", p); code != 0 {
		t.Fatal(code)
	}
	if b, _ := os.ReadFile(o); string(b) != strings.Replace(fixable, "->", "→", 1) {
		t.Fatalf("--arrows only:\n%s", b)
	}
	out, _, _ := runCLI(t, "fix", "-o", "-", "--renumber-steps", "--add-end", p)
	if out != strings.Replace(fixed, "→", "->", 1) {
		t.Fatalf("--renumber-steps --add-end:\n%s", out)
	}
	for _, args := range [][]string{
		{"fix", "--write", "-o", o, p},
		{"fix", "--force", p},
		{"fix"},
		{"fix", p, p},
		{"fix", dir},
		{"fix", filepath.Join(dir, "missing.rlog")},
	} {
		if _, errOut, code := runCLI(t, args...); code != 2 || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: %d %q", args, code, errOut)
		}
	}
	bin := filepath.Join(dir, "bin.rlog")
	if err := os.WriteFile(bin, []byte("\x00\x01\x02\x03\x00\x00\x00\x00\x00"+strings.Repeat("\x00\xff", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runCLI(t, "fix", "--write", bin); code != 2 || !strings.Contains(errOut, "Binary file") {
		t.Fatalf("%d %q", code, errOut)
	}
}

// TestFixReadsStdin: `fix -` used to say "no such file" while check,
// convert, redact and report read standard input. It prints the diff, or
// with -o the fixed text; --write has no file to replace.
func TestFixReadsStdin(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, name := range []string{"-", "/dev/stdin"} {
		stdout, stderr, code := runCLIStdin(t, stdinFrom(t, fixable), "fix", name)
		if code != 0 || !strings.HasPrefix(stdout, "diff <stdin>.orig <stdin>\n--- <stdin>.orig\n+++ <stdin>\n") ||
			!strings.Contains(stdout, "+@end\n") || !strings.Contains(stderr, "<stdin>:1: I002") {
			t.Errorf("fix %s: exit %d\n%s\n%s", name, code, stdout, stderr)
		}
	}
	if stdout, stderr, code := runCLIStdin(t, stdinFrom(t, fixable), "fix", "-o", "-", "-"); code != 0 || stdout != fixed {
		t.Errorf("fix -o - -: exit %d %q\n%s", code, stderr, stdout)
	}
	if _, stderr, code := runCLIStdin(t, stdinFrom(t, fixable), "fix", "-o", "out.rlog", "-"); code != 0 || !strings.Contains(stderr, "applied 3 fixes") {
		t.Errorf("fix -o out.rlog -: exit %d %q", code, stderr)
	}
	if b, _ := os.ReadFile("out.rlog"); string(b) != fixed {
		t.Errorf("out.rlog: %q", b)
	}
	for _, args := range [][]string{{"fix", "--write", "-"}, {"fix", "-w", "/dev/stdin"}} {
		if _, stderr, code := runCLIStdin(t, stdinFrom(t, fixable), args...); code != 2 || strings.Count(stderr, "\n") != 1 ||
			!strings.Contains(stderr, "standard input is no file to replace") {
			t.Errorf("%v: exit %d %q", args, code, stderr)
		}
	}
	assertFolder(t, dir, "out.rlog")
}
