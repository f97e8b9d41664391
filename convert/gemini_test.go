package convert_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/gemini"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/golden"
	"github.com/rlog-ls/rlog-ls/usage"
)

// geminiScenarios are the folders of the recorded Gemini CLI scenarios
// (testdata/agents/gemini-cli/VERSION/SCENARIO).
func geminiScenarios(t *testing.T) []string {
	t.Helper()
	dirs, _ := filepath.Glob("../testdata/agents/gemini-cli/*/*/tokens.json")
	if len(dirs) == 0 {
		t.Fatal("no recorded Gemini CLI scenario in testdata/agents/gemini-cli")
	}
	for i, d := range dirs {
		dirs[i] = filepath.Dir(d)
	}
	return dirs
}

// geminiSessionFiles are a scenario's session files (not the sub-agents').
func geminiSessionFiles(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, "gemini", "tmp", "*", "chats", "session-*.json*"))
	return m
}

// TestGeminiScenariosToRlog: what the reader makes of every session file
// Gemini CLI wrote in the recorded scenarios, with its sub-agents, written
// as rlog with the loss report (go test -update rewrites them). No record
// is unknown or malformed, every format that can be written takes it, and
// the rlog view checks clean (no error or warning).
func TestGeminiScenariosToRlog(t *testing.T) {
	for _, dir := range geminiScenarios(t) {
		for _, path := range geminiSessionFiles(dir) {
			name := filepath.Base(filepath.Dir(dir)) + "_" + filepath.Base(dir) + "_" + filepath.Base(path) + ".rlog"
			for _, to := range convert.Formats() {
				if !to.CanWrite() {
					continue
				}
				var out bytes.Buffer
				rep, err := convert.ConvertFile(path, convert.Gemini, to.Name, &out, convert.Options{Now: fixedNow})
				if err != nil {
					t.Fatalf("%s -> %s: %v", path, to.Name, err)
				}
				for _, l := range rep.Losses {
					if l.Kind == model.LossPassthrough || l.Kind == model.LossMalformed {
						t.Errorf("%s -> %s: %s %s", path, to.Name, l.Kind, l.Detail)
					}
				}
				if to.Name == convert.Rlog {
					golden.CheckFile(t, filepath.Join("testdata", "gemini-cli", name), []byte(out.String()+"\n# loss report\n"+commentLines(rep.Text())))
					// The rlog view checks clean: no error or warning.
					for _, f := range analysis.Check(grammar.Parse(out.Bytes()), analysis.Config{}) {
						if f.Severity <= analysis.Warning {
							t.Errorf("%s as rlog, line %d: %s %s", path, f.Line+1, f.Code, f.Message)
						}
					}
				}
			}
		}
	}
}

// geminiAccounting is what tokens.json holds that the test compares: the
// CLI's own account by role (summed over its runs), and each session's
// files.
type geminiAccounting struct {
	Roles    map[string]geminiStats `json:"roles"`
	Sessions []struct {
		Session string   `json:"session"`
		Kind    string   `json:"kind"`
		Files   []string `json:"files"`
		Tokens  struct {
			Input, Output, Cached, Thoughts, Tool, Total int64
		} `json:"tokens"`
	} `json:"sessions"`
}

// geminiStats is a role's tokens in the CLI's --output-format json stats:
// input is prompt less cached.
type geminiStats struct {
	Input, Prompt, Candidates, Total, Cached, Thoughts, Tool int64
}

// counts is the CLI's account as the usage rule counts it.
func (s geminiStats) counts() usage.Counts {
	return usage.Gemini(usage.Clamp(s.Prompt), usage.Clamp(s.Candidates), usage.Clamp(s.Cached), usage.Clamp(s.Thoughts), usage.Clamp(s.Tool))
}

// TestGeminiStatsEqualTheCLIsAccount: `rlog-ls stats` of a Gemini CLI
// session (the rlog conversion of its one file read on its own, with its
// sub-agents) is what the CLI itself counted, role main plus role
// subagent, in every recorded scenario; a sub-agent's file alone is role
// subagent; and each total is the CLI's.
func TestGeminiStatsEqualTheCLIsAccount(t *testing.T) {
	for _, dir := range geminiScenarios(t) {
		b, err := os.ReadFile(filepath.Join(dir, "tokens.json"))
		if err != nil {
			t.Fatal(err)
		}
		var acc geminiAccounting
		if err := json.Unmarshal(b, &acc); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		home := filepath.Join(dir, "gemini")
		stats := func(rel string) usage.Counts {
			var out bytes.Buffer
			if _, err := convert.ConvertFile(filepath.Join(home, rel), convert.Gemini, convert.Rlog, &out, convert.Options{Now: fixedNow}); err != nil {
				t.Fatalf("%s: %v", rel, err)
			}
			return statsTokens(out.Bytes())
		}
		// The files a folder's stats read on their own (gemini.OwnSession:
		// not the sub-agents', which their session reads, nor a migrated
		// .json, nor a resume's stub).
		var main usage.Counts
		files := 0
		for _, s := range acc.Sessions {
			for _, f := range s.Files {
				if gemini.OwnSession(filepath.Join(home, f)) {
					main = main.Add(stats(f))
					files++
				}
			}
		}
		if files != 1 {
			t.Errorf("%s: %d files of the session read on their own, want 1", filepath.Base(dir), files)
		}
		want := acc.Roles["main"].counts().Add(acc.Roles["subagent"].counts())
		if main != want {
			t.Errorf("%s: stats %+v, the CLI counted %+v (main %+v, subagent %+v)", filepath.Base(dir), main, want, acc.Roles["main"], acc.Roles["subagent"])
		}
		if got, total := main.In+main.Out+main.Cached, acc.Roles["main"].Total+acc.Roles["subagent"].Total; got != uint64(total) {
			t.Errorf("%s: stats total %d, the CLI's %d", filepath.Base(dir), got, total)
		}
		var sub usage.Counts
		for _, s := range acc.Sessions {
			if s.Kind == "subagent" {
				sub = sub.Add(stats(s.Files[0]))
			}
		}
		if want := acc.Roles["subagent"].counts(); sub != want {
			t.Errorf("%s: the sub-agents' files count %+v, the CLI %+v", filepath.Base(dir), sub, want)
		}
	}
}

// TestGeminiCcusageAgrees: ccusage (gemini session, ccusage.json beside
// each scenario) counts each session file on its own and rows them by
// session id; read file by file, without splicing sub-agents, the reader's
// counts have the same totals and cache reads per session. (ccusage
// leaves the thoughts out of the output, and so out of its input+output+
// cache; its totalTokens is the API's total, which has them. It counts a
// migrated session's .json and .jsonl both, as this comparison does.)
func TestGeminiCcusageAgrees(t *testing.T) {
	for _, dir := range geminiScenarios(t) {
		b, err := os.ReadFile(filepath.Join(dir, "ccusage.json"))
		if err != nil {
			t.Fatal(err)
		}
		var cc struct {
			Sessions []struct {
				SessionID                    string
				CacheReadTokens, TotalTokens int64
			}
		}
		if err := json.Unmarshal(b, &cc); err != nil {
			t.Fatal(err)
		}
		ours := map[string]model.Usage{}
		m, _ := filepath.Glob(filepath.Join(dir, "gemini", "tmp", "*", "chats", "*.json*"))
		more, _ := filepath.Glob(filepath.Join(dir, "gemini", "tmp", "*", "chats", "*", "*.jsonl"))
		for _, p := range append(m, more...) {
			s := readOne(t, p, convert.Gemini)
			tot, _ := s.Totals()
			ours[s.Header.ID] = ours[s.Header.ID].Add(tot)
		}
		for _, row := range cc.Sessions {
			u := ours[row.SessionID]
			if u.Input+u.Output+u.CacheRead != row.TotalTokens || u.CacheRead != row.CacheReadTokens {
				t.Errorf("%s, session %s: ccusage total %d, cache read %d; ours %+v", filepath.Base(dir), row.SessionID, row.TotalTokens, row.CacheReadTokens, u)
			}
		}
		if len(cc.Sessions) == 0 {
			t.Errorf("%s: ccusage counted no session", filepath.Base(dir))
		}
	}
}
