package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
)

// FixturesDir is where the recordings live, relative to the module root:
// one folder per Claude Code version, one folder per scenario in it.
const FixturesDir = "testdata/agents/claude-code"

// A Recording is one scenario recorded: its results and what Check found
// wrong with it.
type Recording = harness.Recording[*Scenario, Results]

// driver is this driver as the harness sees it.
var driver = &harness.Driver[*Scenario, StepResult]{
	Command: "claude", Version: Version, Scenarios: Scenarios, Heading: (*Scenario).heading,
	Written: ConfigDirName, Take: TakeInventory, Vocabulary: vocabulary, Check: Check,
}

func (s *Scenario) heading() (name, about string) { return s.Name, s.About }

// RecordAll records every scenario into dir/NAME (dir must not hold them
// yet), running at most parallel at once, and checks each recording. With
// bodies, each request's whole body is kept in NAME/bodies/SEQ.json.
func RecordAll(ctx context.Context, binary, ccusage, dir string, parallel int, bodies bool) []Recording {
	return driver.RecordAll(dir, parallel, func(s *Scenario, out string) (*Results, error) {
		return Record(ctx, s, binary, ccusage, out, bodies)
	})
}

// Readme is the README.md of a version's recordings in dir, made from the
// scenarios and what was recorded, so that it is always what the folder
// holds.
func Readme(dir, version string) ([]byte, error) {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Claude Code %s, recorded\n\n", version)
	p("Written by `go run ./internal/producers/cmd/record claude` (see docs/producers.md); do not edit\n")
	p("anything here by hand: change the scenarios in internal/producers/claudecode and record again.\n\n")
	p("Each folder is one scenario: the real Claude Code %s (npm `@anthropic-ai/claude-code`, the native\n", version)
	p("binary of `@anthropic-ai/claude-code-linux-x64`) run with `-p` in a private network namespace against\n")
	p("the Messages API stand-in (internal/producers/anthropic), which answers each request from the\n")
	p("scenario's script. HOME, the working directory and CLAUDE_CODE_TMPDIR are\n")
	p("`/tmp/rlog-producers/claude/SCENARIO/{home,work,tmp}` on every run, and each new session gets a\n")
	p("fixed id (`--session-id`), so that recording again changes little. The transcripts are ours: we\n")
	p("ran the program.\n\n")
	p("A scenario's folder holds:\n\n")
	p("- `%s/projects/%s/`: what the CLI wrote under `~/.claude/projects/` (a Claude config folder):\n", ConfigDirName, ProjectDirName("/tmp/rlog-producers/claude/SCENARIO/work"))
	p("  `SESSION.jsonl`, `SESSION/subagents/agent-ID.jsonl` with `agent-ID.meta.json`, `SESSION/tool-results/ID.txt`;\n")
	p("- `%s`: the CLI's version and, for each run, its arguments, exit code and JSON result\n", harness.ResultsName)
	p("  (`usage`, `modelUsage`, `total_cost_usd`: the CLI's own accounting);\n")
	p("- `%s`: every request the stand-in received, in brief (which rule answered, the last message, the answer);\n", harness.RequestsName)
	p("- `%s`: ccusage %s's `claude session --json --offline -z UTC` on `%s/`.\n\n", harness.CCUsageName, harness.CCUsageVersion, ConfigDirName)
	p("## Scenarios\n\n")
	total, err := driver.WriteScenarios(&b, dir,
		[]string{RecordType, AttachmentType, SystemSubtype}, func(s *Scenario, _ string, res *Results, inv *harness.Inventory) error {
			for i, r := range res.Steps {
				stdin := ""
				if i < len(s.Steps) && s.Steps[i].Input != nil {
					stdin = ", the prompt as stream-json on stdin"
				}
				p("%d. `claude %s`%s\n", i+1, harness.ShellWords(r.Args), stdin)
			}
			p("\n%s, %d records: %s.\n\n", harness.Plural(inv.Files, "transcript file"), harness.Sum(inv.Kinds[RecordType]), harness.Counts(inv.Kinds[RecordType]))
			return nil
		})
	if err != nil {
		return nil, err
	}
	p("## What %s wrote, over all scenarios\n\n", version)
	p("Every type is listed, with what it holds, in convert/claude/records.\n\n")
	harness.WriteTables(&b, total, "Records",
		harness.Table{Title: "Record type (`type`)", Category: RecordType},
		harness.Table{Title: "Attachment type (`attachment.type`)", Category: AttachmentType},
		harness.Table{Title: "System subtype (`subtype`)", Category: SystemSubtype})
	return b.Bytes(), nil
}

// DriftReport compares the recordings of another version (in fresh) with
// the pinned fixtures (in pinned): the record types, attachment types,
// system subtypes and fields it wrote that the fixtures never show, and
// those it no longer wrote.
func DriftReport(pinned, fresh string) (string, error) {
	return driver.DriftReport(pinned, fresh)
}

// Accounting is what Claude Code itself says a session used: the token
// counts of its JSON result's modelUsage, summed over the models, and its
// total_cost_usd.
type Accounting struct {
	In, Out, Cached, CacheCreate uint64
	CostUSD                      float64
}

// ReadAccounting reads a recorded scenario's results.json into the CLI's
// accounting of each session it ran: the last run's (the CLI carries a
// session's totals over from run to run, a compaction's call included).
func ReadAccounting(dir string) (map[string]Accounting, error) {
	res, err := harness.ReadResults[StepResult](dir)
	if err != nil {
		return nil, err
	}
	out := map[string]Accounting{}
	for _, st := range res.Steps {
		var o struct {
			SessionID  string  `json:"session_id"`
			TotalCost  float64 `json:"total_cost_usd"`
			ModelUsage map[string]struct {
				In          uint64 `json:"inputTokens"`
				Out         uint64 `json:"outputTokens"`
				Cached      uint64 `json:"cacheReadInputTokens"`
				CacheCreate uint64 `json:"cacheCreationInputTokens"`
			} `json:"modelUsage"`
		}
		if err := json.Unmarshal(st.Output, &o); err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
		a := Accounting{CostUSD: o.TotalCost}
		for _, m := range o.ModelUsage {
			a.In, a.Out, a.Cached, a.CacheCreate = a.In+m.In, a.Out+m.Out, a.Cached+m.Cached, a.CacheCreate+m.CacheCreate
		}
		out[o.SessionID] = a
	}
	return out, nil
}
