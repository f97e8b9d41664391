package companion

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// FuzzCompanion: whatever a companion holds (bytes of any kind, cut
// anywhere, for any of its names) and whatever its log says, indexing,
// joining and reading records never panic, and every record is inside the
// file.
func FuzzCompanion(f *testing.F) {
	for _, p := range []string{"sdk/222000-fix-locked-login.jsonl", "claude/5c1e9f27-0d3b-4a8e-b6f2-91c4d7a3e850.jsonl", "disagree/224500-disagree.jsonl"} {
		b, _ := os.ReadFile(filepath.Join(fixtures, p))
		f.Add(b[:min(len(b), 1500)], []byte("t!:Read id=v678oiff x → [running]\no: id=v678oiff → [ok] x\na: I'll start"), false)
	}
	b, _ := os.ReadFile(filepath.Join(fixtures, "trajectory/1610-list-the-cargo-files.json"))
	f.Add(b, []byte("th: The user\nt!:Glob id=toolu_01 → [running]\nx:Explore id=toolu_01 → [started]"), true)
	f.Add([]byte("{\"type\":\"user\",\"message\":{\"content\":\"\\u00e9\\ud800\"}}\n\xff\x00\n{}"), []byte("u: é\no: id=_2 → [ok]"), false)
	// Files indexed through their reader: a Gemini CLI session of each
	// form, and a Codex CLI rollout's lines after its long session_meta.
	for _, c := range []struct {
		path   string
		asJSON bool
	}{
		{"../testdata/agents/gemini-cli/0.61.0/shell/gemini/tmp/work/chats/session-2026-11-27T10-03-95b180fc.jsonl", false},
		{"../testdata/agents/gemini-cli/0.61.0/legacy/gemini/tmp/work/chats/session-2026-11-27T10-02-1ac2218e.json", true},
		{"../testdata/agents/" + codexShell, false},
	} {
		b, err := os.ReadFile(c.path)
		if err != nil {
			f.Fatal(err)
		}
		if !c.asJSON {
			lines := strings.SplitAfter(string(b), "\n")
			b = []byte(strings.Join(lines[min(6, len(lines)):], ""))
		}
		f.Add(b, []byte("u: List the files\nt!:exec_command id=call_shell_exec x → [running]\no: id=call_shell_exec → [ok] x\na: The folder"), c.asJSON)
	}
	// One folder for the whole run: a folder per input would cost more
	// than the input.
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data, body []byte, asJSON bool) {
		name := "s.jsonl"
		if asJSON {
			name = "s.json"
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ix, err := Build(path)
		if err != nil {
			return // not a companion: an error, never a panic
		}
		for i := range ix.Len() {
			r := ix.Record(i)
			if r.Off < 0 || r.End() > int64(len(data)) {
				t.Fatalf("record %d at %d+%d in a %d-byte file", i, r.Off, r.Len, len(data))
			}
		}
		log := "---\nformat: rlog/1\nid: x\nrepo_sha: abcdef1\n---\n" + strings.ToValidUTF8(string(body), "?")
		tr := grammar.Parse([]byte(log))
		s := &Snapshot{Files: []*Index{ix}, IDs: []string{""}}
		p := Join(tr, s)
		for n, ref := range p.Links() {
			if back, ok := p.Line(ref); !ok || back < 0 || back >= tr.LineCount() {
				t.Fatalf("line %d: record %v joins back to %d", n, ref, back)
			}
			s.Content(ref) // may fail; must not panic
		}
		for _, f := range p.Findings() {
			if f.Span.Start < 0 || f.Span.End > tr.Len() {
				t.Fatalf("finding outside the log: %+v", f)
			}
		}
	})
}
