package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestHelp(t *testing.T) {
	for _, arg := range []string{"-h", "--help"} {
		var out, errOut bytes.Buffer
		if code := run([]string{arg}, &out, &errOut); code != 0 || errOut.Len() != 0 ||
			!strings.HasPrefix(out.String(), "Usage: rlog-gen ") || !strings.Contains(out.String(), "-size size") {
			t.Fatalf("%s: %d %q %q", arg, code, out.String(), errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"-nope"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "-nope") {
		t.Fatalf("%d %q", code, errOut.String())
	}
}

// TestHelpNamesTheProgram: go run builds a binary at a temporary path;
// the help must not show that path as the program's name.
func TestHelpNamesTheProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "exe", "main")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--help").CombinedOutput()
	if err != nil || strings.Contains(string(out), bin) || !strings.HasPrefix(string(out), "Usage: rlog-gen") {
		t.Fatalf("%v\n%s", err, out)
	}
}

func TestGenerates(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"-size", "4KB", "-seed", "3"}, &out, &errOut); code != 0 || out.Len() < 3000 || !strings.HasPrefix(out.String(), "---\n") {
		t.Fatalf("%d %d %q", code, out.Len(), errOut.String())
	}
}

func TestGeneratesAPair(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "s.rlog")
	var out, errOut bytes.Buffer
	if code := run([]string{"-companion", "-size", "256KB", "-o", log}, &out, &errOut); code != 0 {
		t.Fatalf("%d %q", code, errOut.String())
	}
	for _, p := range []string{log, filepath.Join(dir, "s.jsonl")} {
		if info, err := os.Stat(p); err != nil || info.Size() < 8<<10 {
			t.Fatalf("%s: %v", p, err)
		}
	}
	// The companion is never written over.
	errOut.Reset()
	if code := run([]string{"-companion", "-o", log}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "exists") {
		t.Fatalf("%d %q", code, errOut.String())
	}
	if code := run([]string{"-companion"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "needs -o FILE.rlog") {
		t.Fatalf("%d %q", code, errOut.String())
	}
}
