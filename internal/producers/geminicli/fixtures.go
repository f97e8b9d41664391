package geminicli

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"

	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
)

// FixturesDir is where the recordings live, relative to the module root:
// one folder per Gemini CLI version, one folder per scenario in it.
const FixturesDir = "testdata/agents/gemini-cli"

// A Recording is one scenario recorded: its results and what Check found
// wrong with it.
type Recording = harness.Recording[*Scenario, Results]

// driver is this driver as the harness sees it.
var driver = &harness.Driver[*Scenario, StepResult]{
	Command: "gemini", Version: Version, Scenarios: Scenarios, Heading: (*Scenario).heading,
	Written: GeminiDirName, Take: TakeInventory, Vocabulary: vocabulary, Check: Check,
}

func (s *Scenario) heading() (name, about string) { return s.Name, s.About }

// RecordAll records every scenario into dir/NAME (dir must not hold them
// yet), running at most parallel at once, and checks each recording. With
// bodies, each request's whole body is kept in NAME/bodies/.
func RecordAll(ctx context.Context, bundles Bundles, ccusage, dir string, parallel int, bodies bool) []Recording {
	return driver.RecordAll(dir, parallel, func(s *Scenario, out string) (*Results, error) {
		return Record(ctx, s, bundles, ccusage, out, bodies)
	})
}

// ReadAccounting reads a recorded scenario's tokens.json.
func ReadAccounting(dir string) (*Accounting, error) {
	var a Accounting
	return &a, harness.ReadJSON(filepath.Join(dir, TokensName), &a)
}

// Readme is the README.md of a version's recordings in dir, made from the
// scenarios and what was recorded, so that it is always what the folder
// holds.
func Readme(dir, version string) ([]byte, error) {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Gemini CLI %s, recorded\n\n", version)
	p("Written by `go run ./internal/producers/cmd/record gemini` (see docs/producers.md); do not edit\n")
	p("anything here by hand: change the scenarios in internal/producers/geminicli and record again.\n\n")
	p("Each folder is one scenario: the real Gemini CLI %s (npm `@google/gemini-cli`, run as\n", version)
	p("`node bundle/gemini.js`; %s for the legacy scenario's first runs) with `-p PROMPT --output-format json`\n", LegacyVersion)
	p("in a private network namespace against the Gemini API stand-in (internal/producers/gemini), which\n")
	p("answers each request from the scenario's script, the CLI's router and compression calls included.\n")
	p("HOME, the working directory and TMPDIR are `/tmp/rlog-producers/gemini/SCENARIO/{home,work,tmp}` on\n")
	p("every run (so the project is `%s`), and a new session gets a fixed id (`--session-id`), so that\n", ProjectName)
	p("recording again changes little but the minute in the file names. The sessions are ours: we ran the program.\n\n")
	p("A scenario's folder holds:\n\n")
	p("- `%s/`: what the CLI wrote under `~/.gemini`: `tmp/%s/chats/session-TIME-ID8.jsonl` (and `.json` for the\n", GeminiDirName, ProjectName)
	p("  older form), a sub-agent's `tmp/%s/chats/PARENT_ID/CHILD_ID.jsonl`, `projects.json`, and the\n", ProjectName)
	p("  `settings.json` the harness gave it;\n")
	p("- `%s`: the CLI's versions and, for each run, its arguments, exit code and JSON (on stderr for a\n", harness.ResultsName)
	p("  failed run; `stats.models.MODEL.roles.ROLE.tokens` is the CLI's own accounting);\n")
	p("- `%s`: every request the stand-in received, in brief (which rule answered, the last content, the answer);\n", harness.RequestsName)
	p("- `%s`: the CLI's accounting summed by role over the runs (`roles`), each run's by model and role,\n", TokensName)
	p("  and each session's sum over its distinct gemini messages (`sessions`): main sessions equal role\n")
	p("  `main`, sub-agents' role `subagent`; the router, compression and summary calls are in no session file;\n")
	p("- `%s`: ccusage %s's `gemini session --json --offline -z UTC` on the CLI's home (one row per file;\n", harness.CCUsageName, harness.CCUsageVersion)
	p("  it counts a migrated session's `.json` and `.jsonl` both).\n\n")
	p("## Scenarios\n\n")
	total, err := driver.WriteScenarios(&b, dir,
		[]string{RecordKind, MessageType, SetKey, ToolStatus}, func(s *Scenario, sdir string, res *Results, inv *harness.Inventory) error {
			acct, err := ReadAccounting(sdir)
			if err != nil {
				return err
			}
			for i, r := range res.Steps {
				p("%d. `gemini %s` (%s, exit code %d)\n", i+1, harness.ShellWords(r.Args), r.Version, r.ExitCode)
			}
			p("\n%s, %d records: %s.\n\n", harness.Plural(inv.Files, "session file"), harness.Sum(inv.Kinds[RecordKind]), harness.Counts(inv.Kinds[RecordKind]))
			for _, ss := range acct.Sessions {
				t := ss.Tokens
				p("- %s session: %d tokens in %s (%d input, %d of them cached; %d output; %d thoughts; %d tool)\n", ss.Kind,
					t.Total, harness.Plural(ss.Messages, "model message"), t.Input, t.Cached, t.Output, t.Thoughts, t.Tool)
			}
			p("\n")
			return nil
		})
	if err != nil {
		return nil, err
	}
	p("## What the CLI wrote, over all scenarios\n\n")
	p("Every name is listed, with what it holds, in convert/gemini/records.\n\n")
	harness.WriteTables(&b, total, "Count",
		harness.Table{Title: "Record", Category: RecordKind},
		harness.Table{Title: "Message (`type`)", Category: MessageType},
		harness.Table{Title: "`$set` key", Category: SetKey},
		harness.Table{Title: "Tool call `status`", Category: ToolStatus})
	return b.Bytes(), nil
}

// DriftReport compares the recordings of another version (in fresh) with
// the pinned fixtures (in pinned): the names and fields it wrote that the
// fixtures never show, those it no longer wrote, and the names the records
// package does not know.
func DriftReport(pinned, fresh string) (string, error) {
	return driver.DriftReport(pinned, fresh)
}
