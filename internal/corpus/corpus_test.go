package corpus

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNoCorpusGivesNothing: without a corpus every sweep gives nothing and
// the test goes on (it is not skipped).
func TestNoCorpusGivesNothing(t *testing.T) {
	for _, env := range []string{"none", filepath.Join(t.TempDir(), "absent")} {
		t.Setenv("RLOG_CORPUS", env)
		if _, ok := Sweep(t); ok {
			t.Errorf("RLOG_CORPUS=%s: Sweep found a corpus", env)
		}
		if got := SweepFiles(t, ".rlog", "rlog"); got != nil {
			t.Errorf("RLOG_CORPUS=%s: SweepFiles = %v", env, got)
		}
		if got := SweepGlob(t, "rlog/*.rlog"); got != nil {
			t.Errorf("RLOG_CORPUS=%s: SweepGlob = %v", env, got)
		}
		if p, ok := SweepFile(t, "rlog/a.rlog"); ok {
			t.Errorf("RLOG_CORPUS=%s: SweepFile = %s", env, p)
		}
		if _, ok := Find(); ok || Root() != "" {
			t.Errorf("RLOG_CORPUS=%s: Find or Root found a corpus", env)
		}
	}
}

// TestSweepFindsFiles: with a corpus, the sweeps give its files; a folder
// or file the corpus lacks gives nothing.
func TestSweepFindsFiles(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"rlog/day1/a.rlog", "rlog/day2/b.rlog", "rlog/day2/notes.txt", "claude/s.jsonl"} {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("RLOG_CORPUS", root)
	rel := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			r, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(r))
		}
		return out
	}
	if got := rel(SweepFiles(t, ".rlog", "rlog", "missing")); len(got) != 2 || got[0] != "rlog/day1/a.rlog" || got[1] != "rlog/day2/b.rlog" {
		t.Errorf("SweepFiles = %v", got)
	}
	if got := rel(SweepGlob(t, "*/*.jsonl")); len(got) != 1 || got[0] != "claude/s.jsonl" {
		t.Errorf("SweepGlob = %v", got)
	}
	if p, ok := SweepFile(t, "claude/s.jsonl"); !ok || p != filepath.Join(root, "claude", "s.jsonl") {
		t.Errorf("SweepFile = %s, %v", p, ok)
	}
	if _, ok := SweepFile(t, "claude/other.jsonl"); ok {
		t.Error("SweepFile found a file the corpus lacks")
	}
	if dir, ok := Find(); !ok || dir != root {
		t.Errorf("Find = %s, %v", dir, ok)
	}
}
