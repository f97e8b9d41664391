package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The write path of `rlog-ls convert` (issue 7): a symbolic link where the
// output would go is never written through, with or without --force; a
// refused or failed conversion leaves no file and no temporary file; the
// input itself is replaced only atomically and only with --force.
func TestConvertWriteSafety(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	in := writeFile(t, dir, "s.rlog", sampleRlog)
	victim := writeFile(t, outside, "victim.json", "keep")

	// The default output name is a symlink to a file elsewhere.
	link := filepath.Join(dir, "s.atif.json")
	if err := os.Symlink(victim, link); err != nil {
		t.Skip("no symlinks:", err)
	}
	for _, args := range [][]string{
		{"convert", "--to", "atif", in},
		{"convert", "--to", "atif", "--force", in},
		{"convert", "--to", "atif", "--force", "-o", link, in},
	} {
		_, stderr, code := runCLI(t, args...)
		if code != 2 || strings.Contains(stderr, "goroutine") {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
		if b, _ := os.ReadFile(victim); string(b) != "keep" {
			t.Fatalf("%v: wrote through the symlink", args)
		}
	}
	// A folder that is not there: nothing written anywhere.
	if _, _, code := runCLI(t, "convert", "--to", "replay", "-o", filepath.Join(dir, "missing", "x.jsonl"), in); code != 2 {
		t.Errorf("into a missing folder: exit %d", code)
	}
	// Nothing but the input and the link, and no temporary file.
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("left in the folder: %v", ents)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Errorf("left outside: %v", ents)
	}
	// Converting a file over itself is refused, --force or not (see
	// TestOutputNeverTheInput).
	self := writeFile(t, dir, "self.rlog", sampleRlog)
	for _, args := range [][]string{{"convert", "--to", "rlog", "-o", self, self}, {"convert", "--to", "rlog", "--force", "-o", self, self}} {
		if _, stderr, code := runCLI(t, args...); code != 2 || !strings.Contains(stderr, "is the input") {
			t.Errorf("%v: %d %s", args, code, stderr)
		}
	}
	if b, _ := os.ReadFile(self); string(b) != sampleRlog {
		t.Errorf("input replaced by %q", b)
	}
}
