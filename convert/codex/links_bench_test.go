package codex_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/codex"
)

// BenchmarkLinks measures finding a sub-agent's rollout from its session's
// (Subagents) and the session's from the sub-agent's (ParentOf, which
// reads the session's rollout for the spawn call) when the session's
// rollout is 64 MB: the recorded session of the subagent scenario, its
// lines after the first again and again. MB/s of the session's rollout.
func BenchmarkLinks(b *testing.B) {
	day := filepath.Join(recorded, "0.169.0", "subagent", "codex-home", "sessions", "2026", "11", "27")
	const parentName = "rollout-2026-11-27T09-48-01-01a21c67-9be1-7b83-8662-aabac1099a87.jsonl"
	const childName = "rollout-2026-11-27T09-48-02-01a21c67-9d75-7080-b481-7627893935f7.jsonl"
	parent, err := os.ReadFile(filepath.Join(day, parentName))
	if err != nil {
		b.Skipf("recorded rollout missing: %v", err)
	}
	child, err := os.ReadFile(filepath.Join(day, childName))
	if err != nil {
		b.Skipf("recorded rollout missing: %v", err)
	}
	first, rest, _ := bytes.Cut(parent, []byte("\n"))
	big := append(append(first, '\n'), bytes.Repeat(rest, 64<<20/len(rest)+1)...)
	dir := filepath.Join(b.TempDir(), "sessions", "2026", "11", "27")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	p, c := filepath.Join(dir, parentName), filepath.Join(dir, childName)
	if os.WriteFile(p, big, 0o644) != nil || os.WriteFile(c, child, 0o644) != nil {
		b.Fatal("writing the rollouts")
	}
	b.Run("Subagents", func(b *testing.B) {
		b.SetBytes(int64(len(big)))
		for b.Loop() {
			if l, err := codex.Subagents(p); err != nil || len(l) != 1 {
				b.Fatal(l, err)
			}
		}
	})
	b.Run("ParentOf", func(b *testing.B) {
		b.SetBytes(int64(len(big)))
		for b.Loop() {
			if l, ok, err := codex.ParentOf(c); err != nil || !ok || l.CallID == "" {
				b.Fatal(l, ok, err)
			}
		}
	})
}
