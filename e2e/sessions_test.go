package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/sessions"
)

// sessionsHome is a home whose Claude Code store holds the recorded
// write-edit session as run in work (a new folder), and the environment
// that points the server at it, with an index of its own.
func sessionsHome(t *testing.T) (work string, env []string) {
	t.Helper()
	home := t.TempDir()
	work = filepath.Join(home, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	recorded, _ := filepath.Glob(filepath.Join(repoRoot(), "testdata", "agents", "claude-code", "2.1.328", "write-edit", "claude", "projects", "*"))
	if len(recorded) != 1 {
		t.Fatalf("the recorded write-edit scenario: %v", recorded)
	}
	project := filepath.Join(home, ".claude", "projects", sessions.ClaudeProject(work))
	if err := os.CopyFS(project, os.DirFS(recorded[0])); err != nil {
		t.Fatal(err)
	}
	env = append(os.Environ(), "HOME="+home, "CLAUDE_CONFIG_DIR=", "CODEX_HOME=", sessions.IndexEnv+"="+filepath.Join(home, "index.json"))
	return work, env
}

// touchedTarget is the file the recorded session's Write and Edit changed.
const touchedTarget = "/tmp/rlog-producers/claude/write-edit/work/greet.sh"

// TestNeovimSessions: :RlogSessions lists the folder's sessions with
// vim.ui.select and opens the one chosen as its rlog view; :RlogTouched
// fills the quickfix list with the calls that changed a file, at the
// transcript's lines of the calls.
func TestNeovimSessions(t *testing.T) {
	nvim := editor(t, "nvim", "neovim")
	work, env := sessionsHome(t)
	out := filepath.Join(t.TempDir(), "sessions.json")
	cmd := neovimCmd(nvim, filepath.Join(repoRoot(), "e2e", "testdata", "nvim_sessions.lua"))
	cmd.Dir = work
	cmd.Env = append(env, "RLOG_LS="+server(t), "RLOG_OUT="+out, "RLOG_TOUCHED="+touchedTarget)
	runGuarded(t, cmd, 5*time.Minute)
	var res struct {
		Items    []string `json:"items"`
		View     string   `json:"view"`
		Quickfix []struct {
			File string `json:"file"`
			Line int    `json:"line"`
			Text string `json:"text"`
		} `json:"quickfix"`
	}
	readResult(t, out, "Neovim", &res)
	if len(res.Items) != 1 || !strings.Contains(res.Items[0], "claude-code  Create greet.sh") || !strings.Contains(res.Items[0], "(2 calls, $0.0094)") {
		t.Errorf("the list: %q", res.Items)
	}
	if !strings.HasPrefix(res.View, "rlog-view://") || !strings.HasSuffix(res.View, ".jsonl.rlog") {
		t.Errorf("the session opened as %q", res.View)
	}
	if len(res.Quickfix) != 2 || res.Quickfix[0].Line != 20 || res.Quickfix[0].Text != "Write: "+touchedTarget || res.Quickfix[1].Text != "Edit: "+touchedTarget ||
		!strings.HasSuffix(res.Quickfix[0].File, ".jsonl") {
		t.Errorf("the quickfix list: %+v", res.Quickfix)
	}
}

// TestEmacsSessions: M-x rlog-sessions offers the folder's sessions with
// completing-read and opens the one chosen as its rlog view;
// rlog-sessions-touched lists the calls that changed a file in a grep-mode
// buffer whose first match opens the transcript at the call.
func TestEmacsSessions(t *testing.T) {
	emacs := editor(t, "emacs", "emacs-nox")
	needEglot(t, emacs)
	work, env := sessionsHome(t)
	out := filepath.Join(t.TempDir(), "sessions.json")
	cmd := emacsCmd(emacs, filepath.Join(repoRoot(), "editors", "emacs", "test", "sessions.el"))
	cmd.Dir = work
	cmd.Env = append(env, "RLOG_LS="+server(t), "RLOG_OUT="+out, "RLOG_TOUCHED="+touchedTarget)
	runGuarded(t, cmd, 5*time.Minute)
	var res struct {
		Candidates []string `json:"candidates"`
		View       string   `json:"view"`
		Touched    string   `json:"touched"`
		Jump       struct {
			File string `json:"file"`
			Line int    `json:"line"`
		} `json:"jump"`
	}
	readResult(t, out, "Emacs", &res)
	if len(res.Candidates) != 1 || !strings.Contains(res.Candidates[0], "claude-code  Create greet.sh") {
		t.Errorf("the candidates: %q", res.Candidates)
	}
	if !strings.HasPrefix(res.View, "*rlog view: ") {
		t.Errorf("the session opened in %q", res.View)
	}
	if !strings.Contains(res.Touched, ".jsonl:20: Write: "+touchedTarget) || !strings.Contains(res.Touched, ": Edit: "+touchedTarget) {
		t.Errorf("the touched buffer:\n%s", res.Touched)
	}
	if !strings.HasSuffix(res.Jump.File, ".jsonl") || res.Jump.Line != 20 {
		t.Errorf("the first match opened %+v", res.Jump)
	}
}
