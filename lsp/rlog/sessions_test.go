package rlog

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/lsp"
	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
	"github.com/rlog-ls/rlog-ls/sessions"
)

// rlog/sessions lists the workspace folder's sessions from the agents'
// stores, as `rlog-ls sessions --format json` does; with touched, the
// calls that changed a file; and once asked, the server tells the client
// when a session grew.
func TestSessionsRequest(t *testing.T) {
	home := t.TempDir()
	claude := filepath.Join(home, ".claude")
	if err := os.CopyFS(claude, os.DirFS("../../testdata/agents/claude-code/2.1.328/write-edit/claude")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	t.Setenv(sessions.IndexEnv, filepath.Join(home, "cache", "sessions.json"))
	defer func(p time.Duration) { sessionsPoll = p }(sessionsPoll)
	sessionsPoll = 20 * time.Millisecond

	c := lsptest.Start(t, func(ctx context.Context, rwc io.ReadWriteCloser) int {
		return lsp.Serve(ctx, rwc, lsp.Options[Doc]{Features: Features(), Name: "rlog-ls", Version: "test"})
	})
	params := lsptest.DefaultInitializeParams()
	const work = "/tmp/rlog-producers/claude/write-edit/work"
	params["rootUri"] = "file://" + work
	c.Initialize(params)

	var doc sessions.Doc
	if err := c.Call(MethodSessions, map[string]any{}, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != 1 || len(doc.Sessions) != 1 || !strings.HasPrefix(doc.Sessions[0].Title, "Create greet.sh") || doc.Sessions[0].ToolCalls != 2 {
		t.Fatalf("%+v", doc)
	}
	file := doc.Sessions[0].File
	var touched sessions.TouchedDoc
	if err := c.Call(MethodSessions, map[string]any{"touched": "greet.sh"}, &touched); err != nil {
		t.Fatal(err)
	}
	if touched.File != work+"/greet.sh" || len(touched.Changes) != 2 || touched.Changes[0].Tool != "Write" || touched.Changes[0].File != file {
		t.Fatalf("%+v", touched)
	}
	var byPath sessions.Doc
	if err := c.Call(MethodSessions, map[string]any{"paths": []string{"file://" + file}}, &byPath); err != nil || len(byPath.Sessions) != 1 {
		t.Fatalf("by path: %v %+v", err, byPath)
	}
	if n := len(c.Notifications(MethodSessionsChanged)); n != 0 {
		t.Fatalf("%d notifications before a change", n)
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"user","message":{"role":"user","content":"more"},"uuid":"u-more","timestamp":"2026-11-27T09:30:00.000Z"}` + "\n")
	f.Close()
	c.WaitFrame("rlog/sessionsChanged", func(fr lsptest.Frame) bool { return fr.Method == MethodSessionsChanged })
	var again sessions.Doc
	if err := c.Call(MethodSessions, map[string]any{"paths": []string{file}}, &again); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(again.Sessions[0].End)
	if !strings.Contains(string(b), "09:30:00") {
		t.Errorf("the grown session ends at %s", b)
	}
}

// Workspace symbols find the sessions of the agents' stores for the
// workspace folder (by their title) and the calls that changed a file
// (by tool and target), at the session file's line.
func TestWorkspaceSymbolsFindIndexedSessions(t *testing.T) {
	home := t.TempDir()
	if err := os.CopyFS(filepath.Join(home, ".claude"), os.DirFS("../../testdata/agents/claude-code/2.1.328/write-edit/claude")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv(sessions.IndexEnv, filepath.Join(home, "sessions.json"))
	c := lsptest.Start(t, func(ctx context.Context, rwc io.ReadWriteCloser) int {
		return lsp.Serve(ctx, rwc, lsp.Options[Doc]{Features: Features(), Name: "rlog-ls", Version: "test"})
	})
	params := lsptest.DefaultInitializeParams()
	params["rootUri"] = "file:///tmp/rlog-producers/claude/write-edit/work"
	c.Initialize(params)
	type symbol struct {
		Name, ContainerName string
		Kind                int
		Location            struct {
			URI   string
			Range struct{ Start struct{ Line int } }
		}
	}
	find := func(query string) []symbol {
		var syms []symbol
		if err := c.Call("workspace/symbol", map[string]any{"query": query}, &syms); err != nil {
			t.Fatal(err)
		}
		return syms
	}
	// The session, by its title, and its prompt, at the prompt's record.
	s := find("greet.sh prints hello")
	if len(s) != 2 || !strings.HasPrefix(s[0].Name, "Create greet.sh") || !strings.HasSuffix(s[0].Location.URI, ".jsonl") ||
		!strings.HasPrefix(s[0].ContainerName, "claude-code 2026-11-27") || s[0].Location.Range.Start.Line != 0 {
		t.Errorf("the session: %+v", s)
	} else if p := s[1]; p.Kind != int(protocol.SymbolKindEvent) || p.Location.Range.Start.Line != 2 {
		t.Errorf("the prompt: %+v", p)
	}
	// Fuzzy, as editors expect: the Write call matches too.
	s = find("Edit greet")
	i := slices.IndexFunc(s, func(x symbol) bool { return x.Name == "Edit /tmp/rlog-producers/claude/write-edit/work/greet.sh" })
	if i < 0 || s[i].Location.Range.Start.Line != 27 {
		t.Errorf("the Edit call: %+v", s)
	}
}

// Workspace symbols find the phases (compactions) and the calls that
// change no file of the sessions of Claude Code, Codex CLI and Gemini CLI
// the editor has not opened, by name and by tool and target, each at the
// session file's line that holds it.
func TestWorkspaceSymbolsFindIndexedPhasesAndCalls(t *testing.T) {
	for _, c := range []struct {
		agent, store, home, work string
		phase                    string // the query, and the line's mark
		call, callMark           string
	}{
		{"claude", "claude-code/2.1.328/compaction/claude", ".claude", "/tmp/rlog-producers/claude/compaction/work",
			"@compact auto", "Bash ls | wc -l", `"name":"Bash"`},
		{"codex", "codex/0.169.0/compaction/codex-home", ".codex", "/tmp/rlog-producers/codex/compaction/work",
			"@compact", "exec_command echo big", `"name":"exec_command"`},
		{"gemini", "gemini-cli/0.61.0/compression/gemini", ".gemini", "/tmp/rlog-producers/gemini/compression/work",
			"@compact auto", "run_shell_command echo second", `"name":"run_shell_command"`},
	} {
		t.Run(c.agent, func(t *testing.T) {
			home, cl := serveAgentStore(t, c.store, c.home, c.work)
			type symbol struct {
				Name, ContainerName string
				Kind                protocol.SymbolKind
				Location            protocol.Location
			}
			find := func(query, name string, kind protocol.SymbolKind, mark string) {
				t.Helper()
				var syms []symbol
				if err := cl.Call("workspace/symbol", map[string]any{"query": query}, &syms); err != nil {
					t.Fatal(err)
				}
				i := slices.IndexFunc(syms, func(s symbol) bool { return s.Name == name && s.Kind == kind })
				if i < 0 {
					t.Fatalf("%q: no %s among %+v", query, name, syms)
				}
				s := syms[i]
				path, ok := lsp.FilePath(s.Location.URI)
				if !ok || !strings.HasPrefix(path, filepath.Join(home, c.home)) || s.ContainerName == "" {
					t.Fatalf("%q: %+v", query, s)
				}
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				lines := strings.Split(string(b), "\n")
				if l := int(s.Location.Range.Start.Line); l >= len(lines) || !strings.Contains(lines[l], mark) {
					t.Errorf("%q: line %d of %s does not hold %s", query, l+1, filepath.Base(path), mark)
				}
			}
			compaction := map[string]string{"claude": `"compact_boundary"`, "codex": `"type":"compacted"`, "gemini": "<state_snapshot>"}[c.agent]
			find(c.phase, c.phase, protocol.SymbolKindNamespace, compaction)
			find(c.call, c.call, protocol.SymbolKindFunction, c.callMark)
		})
	}
}

// Workspace symbols find a sub-agent's calls in its own session file (a
// child of its parent's session, not a row of the index) for Claude Code's
// subagents/, Codex CLI's sub-agent rollout and Gemini CLI's child file.
func TestWorkspaceSymbolsFindSubagentCalls(t *testing.T) {
	for _, c := range []struct {
		agent, store, home, work string
		call, mark, file         string // the call, its line's mark, the sub-agent file's
	}{
		{"claude", "claude-code/2.1.328/subagent/claude", ".claude", "/tmp/rlog-producers/claude/subagent/work",
			"Bash cat VERSION", `"name":"Bash"`, "/subagents/agent-"},
		{"codex", "codex/0.169.0/subagent/codex-home", ".codex", "/tmp/rlog-producers/codex/subagent/work",
			"exec_command ls | wc -l", `"name":"exec_command"`, "01a21c67-9d75-7080-b481-7627893935f7"},
		{"gemini", "gemini-cli/0.61.0/subagent/gemini", ".gemini", "/tmp/rlog-producers/gemini/subagent/work",
			"run_shell_command ls | wc -l", `"name":"run_shell_command"`, "/887c44e3-04f8-423e-bcfd-fd8605af5163/"},
	} {
		t.Run(c.agent, func(t *testing.T) {
			_, cl := serveAgentStore(t, c.store, c.home, c.work)
			var syms []protocol.SymbolInformation
			if err := cl.Call("workspace/symbol", map[string]any{"query": c.call}, &syms); err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(syms, func(s protocol.SymbolInformation) bool {
				return s.Name == c.call && s.Kind == protocol.SymbolKindFunction
			})
			if i < 0 {
				t.Fatalf("no %s among %+v", c.call, syms)
			}
			path, _ := lsp.FilePath(syms[i].Location.URI)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(b), "\n")
			if l := int(syms[i].Location.Range.Start.Line); !strings.Contains(path, c.file) || l >= len(lines) || !strings.Contains(lines[l], c.mark) {
				t.Errorf("%s at line %d of %s", c.call, l+1, path)
			}
		})
	}
}

// serveAgentStore starts a server whose workspace folder is work, in a
// home (returned) that holds a recorded agent store of testdata/agents
// (store) as home's folder dir (.claude, .codex, .gemini), with an index
// of its own.
func serveAgentStore(t *testing.T, store, dir, work string) (string, *lsptest.Client) {
	t.Helper()
	home := t.TempDir()
	if err := os.CopyFS(filepath.Join(home, dir), os.DirFS("../../testdata/agents/"+store)); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	t.Setenv(sessions.IndexEnv, filepath.Join(home, "sessions.json"))
	cl := lsptest.Start(t, func(ctx context.Context, rwc io.ReadWriteCloser) int {
		return lsp.Serve(ctx, rwc, lsp.Options[Doc]{Features: Features(), Name: "rlog-ls", Version: "test"})
	})
	params := lsptest.DefaultInitializeParams()
	params["rootUri"] = "file://" + work
	cl.Initialize(params)
	return home, cl
}
