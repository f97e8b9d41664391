package codex

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"

	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
)

// FixturesDir is where the recordings live, relative to the module root:
// one folder per Codex version, one folder per scenario in it.
const FixturesDir = "testdata/agents/codex"

// A Recording is one scenario recorded: its results and what Check found
// wrong with it.
type Recording = harness.Recording[*Scenario, Results]

// driver is this driver as the harness sees it.
var driver = &harness.Driver[*Scenario, StepResult]{
	Command: "codex", Version: Version, Scenarios: Scenarios, Heading: (*Scenario).heading,
	Written: CodexHomeName, Take: TakeInventory, Vocabulary: vocabulary, Check: Check,
}

func (s *Scenario) heading() (name, about string) { return s.Name, s.About }

// RecordAll records every scenario into dir/NAME (dir must not hold them
// yet), running at most parallel at once, and checks each recording. With
// bodies, each request's whole body and headers are kept in NAME/bodies/.
func RecordAll(ctx context.Context, binary, ccusage, dir string, parallel int, bodies bool) []Recording {
	return driver.RecordAll(dir, parallel, func(s *Scenario, out string) (*Results, error) {
		return Record(ctx, s, binary, ccusage, out, bodies)
	})
}

// ReadTokens reads a recorded scenario's tokens.json.
func ReadTokens(dir string) (*Tokens, error) {
	var t Tokens
	return &t, harness.ReadJSON(filepath.Join(dir, TokensName), &t)
}

// Readme is the README.md of a version's recordings in dir, made from the
// scenarios and what was recorded, so that it is always what the folder
// holds.
func Readme(dir, version string) ([]byte, error) {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Codex CLI %s, recorded\n\n", version)
	p("Written by `go run ./internal/producers/cmd/record codex` (see docs/producers.md); do not edit\n")
	p("anything here by hand: change the scenarios in internal/producers/codex and record again.\n\n")
	p("Each folder is one scenario: the real Codex CLI %s (npm `@openai/codex`, the native binary of\n", version)
	p("`@openai/codex-linux-x64`) run with `codex exec --json` in a private network namespace against the\n")
	p("Responses API stand-in (internal/producers/openai), which answers each request from the scenario's\n")
	p("script. HOME, CODEX_HOME, the working directory and TMPDIR are\n")
	p("`/tmp/rlog-producers/codex/SCENARIO/{home,codex-home,work,tmp}` on every run, and the model is %s.\n", Model)
	p("Codex names threads itself (UUIDv7, from the clock), so recording again changes the rollouts' names\n")
	p("and ids, not their shape. The rollouts are ours: we ran the program.\n\n")
	p("A scenario's folder holds:\n\n")
	p("- `%s/sessions/YYYY/MM/DD/rollout-TIME-THREAD.jsonl`: what the CLI wrote under CODEX_HOME, one\n", CodexHomeName)
	p("  rollout per thread (a sub-agent's is its own);\n")
	p("- `%s`: the CLI's version and, for each run, its arguments, exit code, `--json` events and stderr;\n", harness.ResultsName)
	p("- `%s`: every request the stand-in received, in brief (the agent asking, which rule answered, the\n", harness.RequestsName)
	p("  last input items, the answer);\n")
	p("- `%s`: the CLI's own accounting: for each rollout the sum of its `token_usage_record` lines (one per\n", TokensName)
	p("  API response) and its last `token_count` total, and for each run its last `turn.completed` usage\n")
	p("  (the main thread's running total);\n")
	p("- `%s`: ccusage %s's `codex session --json --offline -z UTC` on `%s/` (it skips sub-agents' rollouts).\n\n", harness.CCUsageName, harness.CCUsageVersion, CodexHomeName)
	p("## Scenarios\n\n")
	total, err := driver.WriteScenarios(&b, dir,
		[]string{LineType, ResponseItemType, EventType, ItemType}, func(s *Scenario, sdir string, res *Results, inv *harness.Inventory) error {
			tokens, err := ReadTokens(sdir)
			if err != nil {
				return err
			}
			for i, r := range res.Steps {
				p("%d. `codex %s` (exit code %d)\n", i+1, harness.ShellWords(r.Args), r.ExitCode)
			}
			p("\n%s, %d lines: %s.\n\n", harness.Plural(inv.Files, "rollout"), harness.Sum(inv.Kinds[LineType]), harness.Counts(inv.Kinds[LineType]))
			for _, th := range tokens.Threads {
				role := "main thread"
				if th.Subagent {
					role = "sub-agent"
				}
				p("- %s: %d tokens in %s (%d input, %d of them cached; %d output, %d of them reasoning)\n", role,
					th.Usage.Total, harness.Plural(th.Records, "token usage record"), th.Usage.Input, th.Usage.Cached, th.Usage.Output, th.Usage.Reasoning)
			}
			p("\n")
			return nil
		})
	if err != nil {
		return nil, err
	}
	p("## What %s wrote, over all scenarios\n\n", version)
	p("Every name is listed, with what it holds, in convert/codex/records.\n\n")
	harness.WriteTables(&b, total, "Lines",
		harness.Table{Title: "Line type (`type`)", Category: LineType},
		harness.Table{Title: "Response item (`payload.type` of `response_item`)", Category: ResponseItemType},
		harness.Table{Title: "Event (`payload.type` of `event_msg`)", Category: EventType},
		harness.Table{Title: "Item (`payload.item.type` of `item_completed`)", Category: ItemType})
	return b.Bytes(), nil
}

// DriftReport compares the recordings of another version (in fresh) with
// the pinned fixtures (in pinned): the names and fields it wrote that the
// fixtures never show, those it no longer wrote, and the names the records
// package does not know.
func DriftReport(pinned, fresh string) (string, error) {
	return driver.DriftReport(pinned, fresh)
}
