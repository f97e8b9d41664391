package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/rlog-ls/rlog-ls/convert/claude/records"
)

// FixturesDir is where the recordings live, relative to the module root:
// one folder per Claude Code version, one folder per scenario in it.
const FixturesDir = "testdata/agents/claude-code"

// A Recording is one scenario recorded: its results and what Check found
// wrong with it.
type Recording struct {
	Scenario *Scenario
	Results  *Results
	Problems []string
	Err      error // the run itself failed
}

// RecordAll records every scenario into dir/NAME (dir must not hold them
// yet), running at most parallel at once, and checks each recording. With
// bodies, each request's whole body is kept in NAME/bodies/SEQ.json.
func RecordAll(ctx context.Context, binary, ccusage, dir string, parallel int, bodies bool) []Recording {
	recs := make([]Recording, len(Scenarios))
	sem := make(chan struct{}, max(parallel, 1))
	var wg sync.WaitGroup
	for i, s := range Scenarios {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out := filepath.Join(dir, s.Name)
			res, err := Record(ctx, s, binary, ccusage, out, bodies)
			recs[i] = Recording{Scenario: s, Results: res, Err: err}
			if err == nil {
				recs[i].Problems = Check(s, res, out)
			}
		}()
	}
	wg.Wait()
	return recs
}

// ReadResults reads a recorded scenario's results.json.
func ReadResults(dir string) (*Results, error) {
	b, err := os.ReadFile(filepath.Join(dir, ResultsName))
	if err != nil {
		return nil, err
	}
	var res Results
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ResultsName), err)
	}
	return &res, nil
}

// ReplaceDir puts the folder fresh in the place of dest: the old one is
// moved aside first and removed only once the new one is in place.
func ReplaceDir(fresh, dest string) error {
	old := dest + ".old"
	if err := os.RemoveAll(old); err != nil {
		return err
	}
	hadOld := true
	if err := os.Rename(dest, old); err != nil {
		if !os.IsNotExist(err) {
			return err
		}
		hadOld = false
	}
	if err := os.Rename(fresh, dest); err != nil {
		if hadOld {
			os.Rename(old, dest)
		}
		return err
	}
	return os.RemoveAll(old)
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
	p("- `%s`: the CLI's version and, for each run, its arguments, exit code and JSON result\n", ResultsName)
	p("  (`usage`, `modelUsage`, `total_cost_usd`: the CLI's own accounting);\n")
	p("- `%s`: every request the stand-in received, in brief (which rule answered, the last message, the answer);\n", RequestsName)
	p("- `%s`: ccusage %s's `claude session --json --offline -z UTC` on `%s/`.\n\n", CCUsageName, CCUsageVersion, ConfigDirName)
	p("## Scenarios\n\n")
	total := &Inventory{Records: map[string]int{}, Attachments: map[string]int{}, SystemSubtypes: map[string]int{}, Fields: map[string]int{}}
	for _, s := range Scenarios {
		sdir := filepath.Join(dir, s.Name)
		res, err := ReadResults(sdir)
		if err != nil {
			return nil, err
		}
		inv, err := TakeInventory(filepath.Join(sdir, ConfigDirName))
		if err != nil {
			return nil, err
		}
		total.Add(inv)
		p("### %s\n\n%s\n\n", s.Name, s.About)
		for i, r := range res.Steps {
			stdin := ""
			if i < len(s.Steps) && s.Steps[i].Input != nil {
				stdin = ", the prompt as stream-json on stdin"
			}
			p("%d. `claude %s`%s\n", i+1, shellWords(r.Args), stdin)
		}
		p("\n%s, %d records: %s.\n\n", plural(inv.Files, "transcript file"), sum(inv.Records), counts(inv.Records))
	}
	p("## What %s wrote, over all scenarios\n\n", version)
	p("Every type is listed, with what it holds, in convert/claude/records.\n\n")
	for _, t := range []struct {
		title  string
		counts map[string]int
		lookup func(string) (records.Type, bool)
	}{
		{"Record type (`type`)", total.Records, records.Record},
		{"Attachment type (`attachment.type`)", total.Attachments, records.Attachment},
		{"System subtype (`subtype`)", total.SystemSubtypes, records.SystemSubtype},
	} {
		p("| %s | Records |\n| --- | ---: |\n", t.title)
		for _, name := range sortedKeys(t.counts) {
			p("| `%s` | %d |\n", name, t.counts[name])
		}
		p("\n")
	}
	return b.Bytes(), nil
}

// shellWords quotes args as a shell would need them, for reading.
func shellWords(args []string) string {
	var out []string
	for _, a := range args {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`*?()[]{}<>|&;#!~") {
			out = append(out, a)
			continue
		}
		out = append(out, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
	}
	return strings.Join(out, " ")
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// counts is "N name, …", the largest first.
func counts(m map[string]int) string {
	keys := sortedKeys(m)
	sort.SliceStable(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return strings.Join(parts, ", ")
}

// inventoryOf is the inventory of every scenario's transcripts in a
// version's folder.
func inventoryOf(dir string) (*Inventory, error) {
	total := &Inventory{Records: map[string]int{}, Attachments: map[string]int{}, SystemSubtypes: map[string]int{}, Fields: map[string]int{}}
	for _, s := range Scenarios {
		inv, err := TakeInventory(filepath.Join(dir, s.Name, ConfigDirName))
		if err != nil {
			return nil, err
		}
		total.Add(inv)
	}
	return total, nil
}

// DriftReport compares the recordings of another version (in fresh) with
// the pinned fixtures (in pinned): the record types, attachment types,
// system subtypes and fields it wrote that the fixtures never show, and
// those it no longer wrote.
func DriftReport(pinned, fresh string) (string, error) {
	base, err := inventoryOf(pinned)
	if err != nil {
		return "", fmt.Errorf("the pinned fixtures: %w", err)
	}
	now, err := inventoryOf(fresh)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	list := func(title string, items []string) {
		fmt.Fprintf(&b, "%s: %d\n", title, len(items))
		for _, it := range items {
			fmt.Fprintf(&b, "  %s\n", it)
		}
	}
	list("New (written now, never in the pinned fixtures)", now.NewSince(base))
	list("Gone (in the pinned fixtures, not written now)", base.NewSince(now))
	list("Types the records package does not know", now.Unknown())
	return b.String(), nil
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
