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
	"github.com/rlog-ls/rlog-ls/internal/golden"
	"github.com/rlog-ls/rlog-ls/internal/producers/claudecode"
	"github.com/rlog-ls/rlog-ls/usage"
)

// claudeRecorded holds the scenarios the pinned Claude Code ran in the
// producer harness (docs/producers.md).
const claudeRecorded = "../testdata/agents/claude-code/2.1.328"

// claudeScenario is one recorded scenario: its main transcripts (a
// fork is a transcript of its own), the CLI's accounting by session and
// ccusage's.
type claudeScenario struct {
	name        string
	transcripts []string
	cli         map[string]claudecode.Accounting
	ccusage     map[string]usage.Counts
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
		sc := claudeScenario{name: filepath.Base(dir), ccusage: map[string]usage.Counts{}}
		sc.transcripts, _ = filepath.Glob(filepath.Join(dir, "claude", "projects", "*", "*.jsonl"))
		if sc.cli, err = claudecode.ReadAccounting(dir); err != nil {
			t.Fatal(err)
		}
		var cc struct {
			Sessions []struct {
				SessionID   string `json:"sessionId"`
				In          uint64 `json:"inputTokens"`
				Out         uint64 `json:"outputTokens"`
				Cached      uint64 `json:"cacheReadTokens"`
				CacheCreate uint64 `json:"cacheCreationTokens"`
			} `json:"sessions"`
		}
		b, err := os.ReadFile(filepath.Join(dir, "ccusage.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &cc); err != nil {
			t.Fatal(err)
		}
		for _, s := range cc.Sessions {
			sc.ccusage[s.SessionID] = usage.Counts{In: s.In, Out: s.Out, Cached: s.Cached, CacheCreate: s.CacheCreate}
		}
		out = append(out, sc)
	}
	return out
}

// TestClaudeCodeRecordedReadsWhole: every transcript the pinned Claude Code
// wrote reads (its rlog and loss report are golden files in
// testdata/claude-code/VERSION/) with no record type the reader does not
// know and no JSON in a comment; its rlog checks clean (no error, no
// warning); the tokens its lines count by the usage rule, as `rlog-ls
// stats` counts them, and the cost on its @end are the CLI's own
// accounting (results.json), a compaction's call included; ccusage
// (ccusage.json) counts that less what it cannot see: a compaction's call
// (no assistant record has it) and, in a forked session, the copies of
// its parent's messages (counted once in a projects folder, for the
// parent). A Claude Code export of it reports no loss of what the reader
// added (@resume, the sub-agents' frames).
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
			golden.CheckFile(t, filepath.Join("testdata", "claude-code", records.Version, sc.name+"_"+strings.TrimSuffix(filepath.Base(p), ".jsonl")+".rlog"),
				[]byte(out.String()+"\n# loss report\n"+commentLines(rep.Text())))
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
			cli := usage.Counts{In: want.In, Out: want.Out, Cached: want.Cached, CacheCreate: want.CacheCreate}
			if got := statsTokens(out.Bytes()); got != cli {
				t.Errorf("%s: stats counts %+v tokens, the CLI %+v", name, got, cli)
			}
			if !strings.Contains(out.String(), " cost_usd="+formatCost(want.CostUSD)+" ") {
				t.Errorf("%s: @end has not the CLI's cost %v", name, want.CostUSD)
			}
			// ccusage counts assistant records: not a compaction's call
			// (on the @compact lines), and a message of a projects folder
			// once, for the first session it is in: a fork's copies of
			// its parent's messages are its parent's.
			expect := cli
			for _, c := range compactionTokens(tree) {
				expect = sub(expect, c)
			}
			if parent, ok := tree.Header().Get("forkedFrom"); ok {
				p := sc.cli[parent]
				expect = sub(expect, usage.Counts{In: p.In, Out: p.Out, Cached: p.Cached, CacheCreate: p.CacheCreate})
			}
			if got := sc.ccusage[id]; got != expect {
				t.Errorf("%s: ccusage counts %+v, want the CLI's less what it cannot see, %+v", name, got, expect)
			}
		}
	}
}

// compactionTokens are the usage on a log's @compact lines.
func compactionTokens(t *grammar.Tree) []usage.Counts {
	var out []usage.Counts
	for u := range t.Usage() {
		l := t.Line(u.Line)
		if l.Kind == grammar.Lifecycle && bytes.HasPrefix(t.Slice(l.Content, l.TrimEnd), []byte(grammar.VerbCompact)) {
			out = append(out, usage.Counts{In: u.In, Out: u.Out, Cached: u.Cached, CacheCreate: u.CacheCreate})
		}
	}
	return out
}

func sub(a, b usage.Counts) usage.Counts {
	return usage.Counts{In: a.In - b.In, Out: a.Out - b.Out, Cached: a.Cached - b.Cached, CacheCreate: a.CacheCreate - b.CacheCreate}
}

func formatCost(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// TestClaudeExportDropsOtherProvidersSignatures: a thinking's signature
// from another provider (a Codex rollout's encrypted reasoning) is not
// written to Claude Code JSONL, which drops a thinking block whose
// signature it did not make, and the loss report says so; a Claude
// model's signature is written as it is.
func TestClaudeExportDropsOtherProvidersSignatures(t *testing.T) {
	rollouts, _ := filepath.Glob("../testdata/agents/codex/*/patch/codex-home/sessions/*/*/*/rollout-*.jsonl")
	if len(rollouts) != 1 {
		t.Fatalf("the recorded Codex patch scenario: %v", rollouts)
	}
	var out bytes.Buffer
	rep, err := convert.ConvertFile(rollouts[0], convert.Codex, convert.Claude, &out, convert.Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out.Bytes(), []byte(`"type":"thinking"`)) || bytes.Contains(out.Bytes(), []byte(`"signature":"stand-in`)) ||
		!strings.Contains(rep.Text(), "thinking signature from another format") {
		t.Errorf("the export keeps Codex's signature or does not say it drops it:\n%s", rep.Text())
	}
	out.Reset()
	if _, err := convert.ConvertFile("../testdata/sample.rlog", convert.Rlog, convert.Claude, &out, convert.Options{Now: fixedNow}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out.Bytes(), []byte(`"signature":"Ep4E`)) {
		t.Errorf("a Claude model's signature is not written")
	}
}

// TestDeniedAndInterruptedThroughEveryFormat: a call a permission rule
// denied and one the user interrupted (the recorded denied and interrupt
// scenarios) are failed results with the status that says so, read from
// Claude Code's fields; every format rlog-ls writes carries the status
// back to its reader, or its loss report names it.
func TestDeniedAndInterruptedThroughEveryFormat(t *testing.T) {
	for _, tc := range []struct{ scenario, call, status string }{
		{"denied", "toolu_denied_rm", grammar.StatusDenied},
		{"interrupt", "toolu_int_write", grammar.StatusInterrupted},
	} {
		m, _ := filepath.Glob(filepath.Join(claudeRecorded, tc.scenario, "claude", "projects", "*", "*.jsonl"))
		if len(m) != 1 {
			t.Fatalf("the recorded %s scenario: %v", tc.scenario, m)
		}
		result := func(s *convert.Session) *model.ToolResult {
			for _, e := range s.Events {
				if e.Result != nil && e.Result.CallID == tc.call {
					return e.Result
				}
			}
			return nil
		}
		src := readOne(t, m[0], convert.Claude)
		if r := result(src); r == nil || !r.IsError || r.Status != tc.status {
			t.Fatalf("%s: the result %+v, want a failure with status %s", tc.scenario, r, tc.status)
		}
		for _, to := range convert.Names(true) {
			var out bytes.Buffer
			rep, err := convert.ConvertFile(m[0], convert.Claude, convert.Format(to), &out, convert.Options{Now: fixedNow})
			if err != nil {
				t.Errorf("%s to %s: %v", tc.scenario, to, err)
				continue
			}
			back, _, err := convert.Read(bytes.NewReader(out.Bytes()), convert.Format(to))
			if err != nil {
				t.Errorf("%s to %s and back: %v", tc.scenario, to, err)
				continue
			}
			r := result(back)
			if r != nil && r.IsError && r.Status == tc.status {
				continue
			}
			if !strings.Contains(rep.Text(), "status") {
				t.Errorf("%s to %s and back: the result %+v, and the loss report does not name the status:\n%s", tc.scenario, to, r, rep.Text())
			}
		}
	}
}
