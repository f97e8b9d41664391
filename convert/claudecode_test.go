package convert_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/claude/records"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/usage"
)

// claudeRecorded holds the scenarios the pinned Claude Code ran in the
// producer harness (docs/producers.md).
const claudeRecorded = "../testdata/agents/claude-code/2.1.328"

// cliAccounting is what Claude Code itself says a session used: the
// modelUsage and total_cost_usd of the JSON result of the last run of the
// session (its cost-state: the session's running totals, earlier runs
// and a compaction's own call included).
type cliAccounting struct {
	tokens usage.Counts
	cost   float64
}

// claudeScenario is one recorded scenario: its main transcripts (a
// fork is a transcript of its own) and the CLI's accounting by session.
type claudeScenario struct {
	name        string
	transcripts []string
	cli         map[string]cliAccounting
}

func claudeScenarios(t *testing.T) []claudeScenario {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(claudeRecorded, "*", "results.json"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no recorded Claude Code scenarios under %s (%v)", claudeRecorded, err)
	}
	var out []claudeScenario
	for _, res := range dirs {
		dir := filepath.Dir(res)
		sc := claudeScenario{name: filepath.Base(dir), cli: map[string]cliAccounting{}}
		sc.transcripts, _ = filepath.Glob(filepath.Join(dir, "claude", "projects", "*", "*.jsonl"))
		var doc struct {
			Steps []struct {
				Output struct {
					SessionID  string  `json:"session_id"`
					TotalCost  float64 `json:"total_cost_usd"`
					ModelUsage map[string]struct {
						In          uint64 `json:"inputTokens"`
						Out         uint64 `json:"outputTokens"`
						Cached      uint64 `json:"cacheReadInputTokens"`
						CacheCreate uint64 `json:"cacheCreationInputTokens"`
					} `json:"modelUsage"`
				} `json:"output"`
			} `json:"steps"`
		}
		b, err := os.ReadFile(res)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", res, err)
		}
		for _, st := range doc.Steps {
			var a cliAccounting
			for _, m := range st.Output.ModelUsage {
				a.tokens = a.tokens.Add(usage.Counts{In: m.In, Out: m.Out, Cached: m.Cached, CacheCreate: m.CacheCreate})
			}
			a.cost = st.Output.TotalCost
			sc.cli[st.Output.SessionID] = a // the last run's: the session's running totals
		}
		out = append(out, sc)
	}
	return out
}

// TestClaudeCodeRecordedReadsWhole: every transcript the pinned Claude Code
// wrote reads (its rlog and loss report are golden files in
// testdata/claude-code/VERSION/) with no record type the reader does not know; its rlog
// checks clean (no error, no warning); and the tokens its lines count by
// the usage rule, as `rlog-ls stats` counts them, and the cost on its @end
// are the CLI's own accounting, a compaction's call included. ccusage
// (ccusage.json) agrees where the session is its own: it counts no
// compaction (its calls have no assistant record), and a forked session's
// copied messages once, for the session they were first written in.
func TestClaudeCodeRecordedReadsWhole(t *testing.T) {
	for _, sc := range claudeScenarios(t) {
		if len(sc.transcripts) == 0 {
			t.Errorf("%s: no transcript", sc.name)
		}
		for _, p := range sc.transcripts {
			name := sc.name + "/" + filepath.Base(p)
			var out bytes.Buffer
			rep, err := convert.ConvertFile(p, convert.Claude, convert.Rlog, &out, convert.Options{Now: fixedNow})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, l := range rep.Losses {
				if l.Kind == model.LossPassthrough || l.Kind == model.LossMalformed {
					t.Errorf("%s: %s: %s", name, l.Kind, l.Detail)
				}
			}
			if bytes.Contains(out.Bytes(), []byte("\n# attachment")) || bytes.Contains(out.Bytes(), []byte(": {\"")) {
				t.Errorf("%s: a record written as JSON in a comment:\n%s", name, out.String())
			}
			// What the reader makes of it, to read (go test -update rewrites it).
			golden(t, filepath.Join("testdata", "claude-code", records.Version, sc.name+"_"+strings.TrimSuffix(filepath.Base(p), ".jsonl")+".rlog"),
				out.String()+"\n# loss report\n"+commentLines(rep.Text()))
			tree := grammar.Parse(out.Bytes())
			for _, f := range analysis.Check(tree, analysis.Config{}) {
				if f.Severity <= analysis.Warning {
					t.Errorf("%s: rlog line %d: %s %s", name, f.Line+1, f.Code, f.Message)
				}
			}
			// What the reader adds (@resume, the sub-agents' frames) is no
			// loss of a Claude Code writer's.
			var back bytes.Buffer
			rep2, err := convert.ConvertFile(p, convert.Claude, convert.Claude, &back, convert.Options{Now: fixedNow})
			if err != nil {
				t.Fatalf("%s -> claude: %v", name, err)
			}
			for _, l := range rep2.Losses {
				if strings.Contains(l.Detail, "lifecycle") || strings.Contains(l.Detail, "subagent") {
					t.Errorf("%s -> claude: %s: %s", name, l.Kind, l.Detail)
				}
			}
			id := strings.TrimSuffix(filepath.Base(p), ".jsonl")
			want, ok := sc.cli[id]
			if !ok {
				t.Errorf("%s: no run of session %s in results.json", name, id)
				continue
			}
			if got := statsTokens(out.Bytes()); got != want.tokens {
				t.Errorf("%s: stats counts %+v tokens, the CLI %+v", name, got, want.tokens)
			}
			if !strings.Contains(out.String(), " cost_usd="+formatCost(want.cost)+" ") {
				t.Errorf("%s: @end has not the CLI's cost %v", name, want.cost)
			}
		}
	}
}

func formatCost(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}
