package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A recordedPair is one of the harness's recorded compare pairs: the same
// task run twice by an agent with one scripted answer changed (compare-b
// counts the words of notes.txt, compare-a its lines), and the lines of
// each side's masked view that differ.
type recordedPair struct {
	agent   string      // the agent's folder under testdata/agents, with its version
	pattern string      // the session file in a scenario's folder
	changed [2][]string // the starts of A's and B's lines that differ
}

var recordedPairs = []recordedPair{
	{"claude-code/2.1.328", "claude/projects/*/*.jsonl", [2][]string{
		{"a: Counting the lines.", `t!:Bash id=… cmd="wc -l notes.txt"`},
		{"a: Counting the words.", `t!:Bash id=… cmd="wc -w notes.txt"`},
	}},
	{"gemini-cli/0.61.0", "gemini/tmp/*/chats/*.jsonl", [2][]string{
		{"a: Counting the lines.", `t!:run_shell_command id=… command="wc -l notes.txt"`},
		{"a: Counting the words.", `t!:run_shell_command id=… command="wc -w notes.txt"`},
	}},
}

// files are the pair's two session files.
func (p recordedPair) files(t *testing.T) (a, b string) {
	t.Helper()
	var pair [2]string
	for i, side := range []string{"compare-a", "compare-b"} {
		m, _ := filepath.Glob(filepath.Join(repoRoot(), "testdata", "agents", p.agent, side, p.pattern))
		if len(m) != 1 {
			t.Fatalf("the recorded %s scenario of %s: %v", side, p.agent, m)
		}
		pair[i] = m[0]
	}
	return pair[0], pair[1]
}

// unmasked finds what masking takes out of a view: a time, a UUID, an
// id= value, a token count.
var unmasked = regexp.MustCompile(`20\d\d-\d\d-\d\dT|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-|\bid=[^…\s]|tokens_in=\d`)

// checkMaskedSides checks the two sides of a comparison of p: masked,
// each the whole view, and the changed lines, and only they, marked.
func checkMaskedSides(t *testing.T, editor string, p recordedPair, texts, marked [2][]string) {
	t.Helper()
	want := p.changed
	for i := range 2 {
		text := strings.Join(texts[i], "\n")
		if !strings.HasPrefix(text, "---\nformat: rlog/1\n") || !strings.Contains(text, "\n@end ") {
			t.Errorf("%s: side %d is not a whole rlog view:\n%s", editor, i, text)
		}
		if m := unmasked.FindString(text); m != "" {
			t.Errorf("%s: side %d shows %q unmasked:\n%s", editor, i, m, text)
		}
		if len(marked[i]) != len(want[i]) {
			t.Errorf("%s: side %d marks %q, want %q", editor, i, marked[i], want[i])
			continue
		}
		for j, w := range want[i] {
			if !strings.HasPrefix(marked[i][j], w) {
				t.Errorf("%s: side %d marks %q, want %q", editor, i, marked[i][j], w)
			}
		}
	}
}

// TestNeovimCompare: on each recorded pair, :RlogCompare on a transcript opens a tab page with
// both sessions' masked rlog views in diff mode, read only, named by side
// and file, not given to the server (a file that is no session gets a
// message instead); diff mode marks the changed answer's
// two lines on each side, and no id or time is left.
func TestNeovimCompare(t *testing.T) {
	nvim := editor(t, "nvim", "neovim")
	for _, p := range recordedPairs {
		t.Run(filepath.Dir(p.agent), func(t *testing.T) { neovimCompare(t, nvim, p) })
	}
}

func neovimCompare(t *testing.T, nvim string, p recordedPair) {
	a, b := p.files(t)
	out := filepath.Join(t.TempDir(), "compare.json")
	cmd := neovimCmd(nvim, filepath.Join(repoRoot(), "e2e", "testdata", "nvim_compare.lua"))
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "RLOG_LS="+server(t), "RLOG_OUT="+out, "RLOG_A="+a, "RLOG_B="+b)
	runGuarded(t, cmd, 5*time.Minute)
	var res struct {
		Refused struct {
			Message string `json:"message"`
			Level   int    `json:"level"`
		} `json:"refused"`
		TabsAfterRefusal int  `json:"tabs_after_refusal"`
		NewTab           bool `json:"new_tab"`
		Sides            []struct {
			Name       string   `json:"name"`
			Text       string   `json:"text"`
			Diff       bool     `json:"diff"`
			Modifiable bool     `json:"modifiable"`
			Readonly   bool     `json:"readonly"`
			Syntax     string   `json:"syntax"`
			Clients    int      `json:"clients"`
			Marked     []string `json:"marked"`
		} `json:"sides"`
	}
	readResult(t, out, "Neovim", &res)
	if !strings.HasPrefix(res.Refused.Message, "rlog: cannot compare: ") || res.Refused.Level != 4 || res.TabsAfterRefusal != 1 {
		t.Errorf("a file that is no session: %+v, %d tab pages", res.Refused, res.TabsAfterRefusal)
	}
	if !res.NewTab || len(res.Sides) != 2 {
		t.Fatalf("new tab %v, %d windows", res.NewTab, len(res.Sides))
	}
	var texts, marked [2][]string
	for i, s := range res.Sides {
		file := []string{a, b}[i]
		if want := "rlog-masked://" + "AB"[i:i+1] + "/" + filepath.Base(file); s.Name != want {
			t.Errorf("side %d is named %q, want %q", i, s.Name, want)
		}
		if !s.Diff || s.Modifiable || !s.Readonly || s.Syntax != "rlog" || s.Clients != 0 {
			t.Errorf("side %d: diff %v, modifiable %v, readonly %v, syntax %q, %d servers", i, s.Diff, s.Modifiable, s.Readonly, s.Syntax, s.Clients)
		}
		texts[i], marked[i] = strings.Split(s.Text, "\n"), s.Marked
	}
	checkMaskedSides(t, "Neovim", p, texts, marked)
}

// TestEmacsCompare: on each recorded pair, M-x rlog-compare on a visited transcript opens ediff
// on both sessions' masked rlog views, read-only rlog-mode buffers named by
// side and file, not managed by eglot (a file that is no session is an
// error instead); ediff's one difference is the
// changed answer's two lines, and no id or time is left.
func TestEmacsCompare(t *testing.T) {
	emacs := editor(t, "emacs", "emacs-nox")
	needEglot(t, emacs)
	for _, p := range recordedPairs {
		t.Run(filepath.Dir(p.agent), func(t *testing.T) { emacsCompare(t, emacs, p) })
	}
}

func emacsCompare(t *testing.T, emacs string, p recordedPair) {
	a, b := p.files(t)
	out := filepath.Join(t.TempDir(), "compare.json")
	cmd := emacsCmd(emacs, filepath.Join(repoRoot(), "editors", "emacs", "test", "compare.el"))
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "RLOG_LS="+server(t), "RLOG_OUT="+out, "RLOG_A="+a, "RLOG_B="+b)
	runGuarded(t, cmd, 5*time.Minute)
	var res struct {
		Refused            string `json:"refused"`
		EdiffsAfterRefusal int    `json:"ediffs_after_refusal"`
		Sides              []struct {
			Name     string `json:"name"`
			Text     string `json:"text"`
			Mode     string `json:"mode"`
			Readonly bool   `json:"readonly"`
			Server   bool   `json:"server"`
		} `json:"sides"`
		Differences [][2]string `json:"differences"`
	}
	readResult(t, out, "Emacs", &res)
	if !strings.HasPrefix(res.Refused, "rlog: cannot compare: ") || res.EdiffsAfterRefusal != 0 {
		t.Errorf("a file that is no session: %q, %d ediff sessions", res.Refused, res.EdiffsAfterRefusal)
	}
	if len(res.Sides) != 2 {
		t.Fatalf("%d sides", len(res.Sides))
	}
	var texts, marked [2][]string
	for i, s := range res.Sides {
		file := []string{a, b}[i]
		if want := "*rlog masked " + "AB"[i:i+1] + ": " + filepath.Base(file) + "*"; s.Name != want {
			t.Errorf("side %d is named %q, want %q", i, s.Name, want)
		}
		if s.Mode != "rlog-mode" || !s.Readonly || s.Server {
			t.Errorf("side %d: mode %s, read only %v, managed by eglot %v", i, s.Mode, s.Readonly, s.Server)
		}
		texts[i] = strings.Split(s.Text, "\n")
		for _, d := range res.Differences {
			marked[i] = append(marked[i], strings.Split(strings.TrimSuffix(d[i], "\n"), "\n")...)
		}
	}
	checkMaskedSides(t, "Emacs", p, texts, marked)
}
