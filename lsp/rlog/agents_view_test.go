package rlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

// agentSession copies the one session file the pattern (under
// testdata/agents) names into a new folder and returns the copy's path.
func agentSession(t *testing.T, pattern string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join("../../testdata/agents", pattern))
	if len(m) != 1 {
		t.Fatalf("the recorded session %s: %v", pattern, m)
	}
	data, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), filepath.Base(m[0]))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSessionViewsOfCodexAndGeminiAreJoined: the rlog view of a Codex CLI
// rollout and of a Gemini CLI session (JSONL, and the older single JSON)
// is joined to the file's records as a Claude Code transcript's is: no
// finding says they disagree, the hover on a line the view cut short shows
// its record in full, Go to Definition lands on the record's line (for
// Gemini CLI, the last write of the message, which it writes again when
// its tool calls finish), and the record leads back to the view's line.
func TestSessionViewsOfCodexAndGeminiAreJoined(t *testing.T) {
	for _, tc := range []struct {
		name, pattern string
		// line is a line of the view the record of which holds full;
		// record a text of the record's line in the file.
		line, full, record string
	}{
		{"codex", "codex/0.169.0/shell/codex-home/sessions/*/*/*/rollout-*.jsonl",
			"o: id=call_shell_exec → [ok] Chunk ID: a2abe3 ...", "Wall time: 0.0000 seconds", `"type":"function_call_output"`},
		{"gemini", "gemini-cli/0.61.0/shell/gemini/tmp/work/chats/session-*.jsonl",
			"u: <session_context> ...", "This is the Gemini CLI", `"$set":{"messages"`},
		{"gemini rewritten", "gemini-cli/0.61.0/shell/gemini/tmp/work/chats/session-*.jsonl",
			`t!:run_shell_command id=un_shell_command_1795773819595_0 command=`, `"command": "printf 'hello\\n' > a.txt; ls; cat a.txt"`, `"status":"success"`},
		{"gemini json", "gemini-cli/0.61.0/legacy/gemini/tmp/work/chats/session-*.json",
			"o: id=write_file_1795773761639_0 → [ok] Successfully created", "Successfully created and wrote to new file", `"id": "write_file_1795773761639_0"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := agentSession(t, tc.pattern)
			c := start(t, "", nil)
			v, err := requestView(t, c, fileURI(path))
			if err != nil {
				t.Fatal(err)
			}
			if !v.Joined {
				t.Fatalf("the view of %s says it is not joined", filepath.Base(path))
			}
			open(t, c, v.URI, v.Text)
			for _, d := range c.WaitDiagnostics(v.URI, lsptest.AtVersion(1)).Diagnostics {
				if d.Code == "W014" || d.Code == "I005" || d.Code == "I006" || d.Code == "W015" {
					t.Errorf("the view and its file disagree: %s %s", d.Code, d.Message)
				}
			}
			at := posOf(t, v.Text, tc.line, len(tc.line)-5, false) // on the line's text, not its id
			h := hoverText(t, c, v.URI, at)
			if !strings.Contains(h, "in full, from `"+filepath.Base(path)+"` line ") || !strings.Contains(h, tc.full) {
				t.Errorf("hover:\n%s\nwant the record's %q", h, tc.full)
			}
			locs := definitions(t, c, v.URI, at)
			if len(locs) != 1 || locs[0].URI != fileURI(path) {
				t.Fatalf("definition: %+v", locs)
			}
			data, _ := os.ReadFile(path)
			lines := strings.Split(string(data), "\n")
			r := locs[0].Range
			if int(r.End.Line) >= len(lines) || r.End.Line < r.Start.Line {
				t.Fatalf("definition range %+v", r)
			}
			record := strings.Join(lines[r.Start.Line:r.End.Line+1], "\n")
			if !strings.Contains(record, tc.record) {
				t.Errorf("definition lands on %.300s, want the record with %s", record, tc.record)
			}

			// Back from the file to the view's line.
			open(t, c, fileURI(path), string(data))
			back := definitions(t, c, fileURI(path), protocol.Position{Line: r.Start.Line, Character: r.Start.Character + 1})
			if len(back) != 1 || back[0].URI != v.URI || back[0].Range.Start.Line != at.Line {
				t.Errorf("back from the file: %+v, want line %d of the view", back, at.Line)
			}

			h = hoverText(t, c, v.URI, protocol.Position{Line: 0, Character: 1})
			if !strings.Contains(h, "Its lines are joined to the file's records") {
				t.Errorf("header hover:\n%s", h)
			}
		})
	}
}

// TestCodexViewSubagentLinks: in the view of a Codex CLI rollout that
// spawned a sub-agent, Go to Definition on an x: line opens the
// sub-agent's own rollout beside it (and the line's record), and the line
// links to it.
func TestCodexViewSubagentLinks(t *testing.T) {
	m, _ := filepath.Glob("../../testdata/agents/codex/0.169.0/subagent/codex-home/sessions/*/*/*/rollout-*.jsonl")
	if len(m) != 2 {
		t.Fatalf("the recorded Codex subagent scenario: %v", m)
	}
	dir := t.TempDir()
	for _, p := range m {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, filepath.Base(p)), data, 0o644)
	}
	parent := filepath.Join(dir, filepath.Base(m[0]))
	child := filepath.Join(dir, filepath.Base(m[1]))
	if !strings.Contains(m[0], "9be1") {
		parent, child = child, parent
	}
	c := start(t, "", nil)
	v := openView(t, c, parent)
	c.WaitDiagnostics(v.URI, lsptest.AtVersion(1))
	locs := definitions(t, c, v.URI, posOf(t, v.Text, "x:counter id=call_sub_spawn → [started]", 30, false))
	var uris []protocol.DocumentURI
	for _, l := range locs {
		uris = append(uris, l.URI)
	}
	if len(locs) != 2 || locs[0].URI != fileURI(child) || locs[1].URI != fileURI(parent) {
		t.Errorf("definition of the x: line: %v, want %s and the record in %s", uris, filepath.Base(child), filepath.Base(parent))
	}
	res := call(t, c, protocol.MethodTextDocumentDocumentLink, map[string]any{"textDocument": map[string]any{"uri": v.URI}})
	if !strings.Contains(string(res), string(fileURI(child))) {
		t.Errorf("document links: %s", res)
	}
}
