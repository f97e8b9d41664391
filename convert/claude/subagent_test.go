package claude_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/claude"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

// recordedSubagent copies the recorded sub-agent scenario (Claude Code
// 2.1.328: an Agent call run in the background, its transcript in
// SESSION/subagents/ with its meta file) into a folder of its own, the
// main transcript changed by edit, and returns the main transcript's path.
func recordedSubagent(t *testing.T, edit func([]byte) []byte) string {
	t.Helper()
	m, _ := filepath.Glob("../../testdata/agents/claude-code/2.1.328/subagent/claude/projects/*/*.jsonl")
	if len(m) != 1 {
		t.Fatalf("the recorded subagent scenario: %v", m)
	}
	src := m[0]
	dir := t.TempDir()
	main := filepath.Join(dir, filepath.Base(src))
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(main, edit(b), 0o644); err != nil {
		t.Fatal(err)
	}
	subs, _ := filepath.Glob(filepath.Join(filepath.Dir(src), "*", "subagents", "*"))
	for _, p := range subs {
		rel, _ := filepath.Rel(filepath.Dir(src), p)
		dst := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(dst), 0o755)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(dst, b, 0o644)
	}
	return main
}

// TestBackgroundSubagent: a sub-agent run in the background is framed by
// its start after the Agent call, with its type from its meta file, and
// its end at the task notification that reports it back, its result the
// summary; found by the meta file's toolUseId when the launch's result
// names no agentId.
func TestBackgroundSubagent(t *testing.T) {
	for name, edit := range map[string]func([]byte) []byte{
		"as written": func(b []byte) []byte { return b },
		"no agentId in the result": func(b []byte) []byte {
			return regexp.MustCompile(`"agentId":"[0-9a-f]+",`).ReplaceAll(b, nil)
		},
	} {
		path := recordedSubagent(t, edit)
		var c model.Collector
		if err := claude.ReadFile(path, &c, &model.Report{}); err != nil {
			t.Fatal(err)
		}
		var frames []model.Subagent
		subTurns := 0
		for _, e := range c.Session.Events {
			if e.Kind == model.KindSubagent {
				frames = append(frames, *e.Subagent)
			} else if e.AgentID == "ad1d58fb8290d2b47" {
				subTurns++
			}
		}
		if len(frames) != 2 || subTurns == 0 {
			t.Fatalf("%s: frames %+v, %d turns of the sub-agent", name, frames, subTurns)
		}
		start, done := frames[0], frames[1]
		if start.Status != "started" || start.ID != "toolu_sub_agent" || start.Type != "general-purpose" ||
			done.Status != "done" || done.ID != "toolu_sub_agent" || done.Summary != "The folder is at version 1.4.2." {
			t.Errorf("%s: start %+v, done %+v", name, start, done)
		}
	}
}
