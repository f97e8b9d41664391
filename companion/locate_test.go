package companion

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLocateInAnyFolder: a log's companion and sub-agent files are found
// in a folder whose name holds a glob's metacharacters (app[2]), and from
// a path given as ./NAME.rlog, where each sub-agent keeps its own id; a
// Claude Code sub-agent's transcript in DIR/subagents/ leads back to its
// session's log there.
func TestLocateInAnyFolder(t *testing.T) {
	root := filepath.Join(t.TempDir(), "app[2]*?")
	for name, text := range map[string]string{
		"run.rlog":                 "",
		"run.jsonl":                "",
		"run.sub-a1.jsonl":         "",
		"run.sub-a1.sub-b2.jsonl":  "",
		"other.sub-zz.jsonl":       "",
		"subagents/agent-c3.jsonl": "",
		"session.rlog":             "",
		"session.jsonl":            "",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(root, name), text)
	}
	check := func(t *testing.T, log, main, dir string) {
		t.Helper()
		f, ok := Locate(log)
		if !ok || f.Main != main {
			t.Fatalf("Locate(%s) = %+v, %v; want its run.jsonl", log, f, ok)
		}
		want := map[string]string{
			"a1":        filepath.Join(dir, "run.sub-a1.jsonl"),
			"a1.sub-b2": filepath.Join(dir, "run.sub-a1.sub-b2.jsonl"),
			"c3":        filepath.Join(dir, "subagents", "agent-c3.jsonl"),
		}
		if len(f.Subagents) != len(want) {
			t.Fatalf("sub-agents %v, want %v", f.Subagents, want)
		}
		for id, p := range want {
			if f.Subagents[id] != p {
				t.Errorf("sub-agent %s at %q, want %q (all: %v)", id, f.Subagents[id], p, f.Subagents)
			}
		}
	}
	t.Run("absolute", func(t *testing.T) { check(t, filepath.Join(root, "run.rlog"), filepath.Join(root, "run.jsonl"), root) })
	t.Run("relative", func(t *testing.T) {
		t.Chdir(root)
		check(t, "./run.rlog", "./run.jsonl", ".")
	})
	t.Run("back from a sub-agent", func(t *testing.T) {
		sub := filepath.Join(root, "subagents", "agent-c3.jsonl")
		if got, ok := RlogFor(sub); !ok || got != filepath.Join(root, "run.rlog") {
			t.Fatalf("RlogFor(%s) = %q, %v; want run.rlog", sub, got, ok)
		}
	})
}
