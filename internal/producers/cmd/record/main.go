// Command record runs the producer harness: the real agent CLIs, offline
// against the API stand-ins, through the scripted scenarios
// (docs/producers.md).
//
//	go run ./internal/producers/cmd/record claude
//	    records every scenario with the pinned Claude Code and, when all
//	    pass their checks, replaces testdata/agents/claude-code/VERSION/
//	go run ./internal/producers/cmd/record claude -drift
//	    runs them with the newest published version into a temporary
//	    folder and lists what it wrote that the fixtures never show (a
//	    report: it fails only when it cannot run)
//	go run ./internal/producers/cmd/record claude -only NAME -out DIR
//	    records one scenario into DIR, to look at (-bodies: every request
//	    body too)
//	go run ./internal/producers/cmd/record claude -install
//	    installs the pinned CLI and ccusage and prints the exports that
//	    name them, for the gated tests: eval "$(go run … -install)"
//	go run ./internal/producers/cmd/record claude -readme
//	    writes the fixtures' README.md again from what they hold
//
// The CLI and ccusage are installed with npm into the user's cache folder
// unless -claude and -ccusage (or RLOG_CLAUDE_CODE and RLOG_CCUSAGE) name
// them. Scenarios run inside a private network namespace: root is needed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlog-ls/rlog-ls/internal/producers/claudecode"
	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
	"github.com/rlog-ls/rlog-ls/internal/producers/sandbox"
)

func main() {
	sandbox.Main()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "record:", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) < 2 || os.Args[1] != "claude" {
		return errors.New("usage: record claude [-drift] [-only NAME -out DIR [-bodies]] [-parallel N] [-claude BIN] [-ccusage BIN]")
	}
	fs := flag.NewFlagSet("record claude", flag.ExitOnError)
	drift := fs.Bool("drift", false, "run the newest published version and report what is new")
	only := fs.String("only", "", "record only this scenario (with -out)")
	out := fs.String("out", "", "with -only: the folder to record into")
	bodies := fs.Bool("bodies", false, "with -only: also write every request's body into OUT/bodies/")
	installOnly := fs.Bool("install", false, "only install the pinned CLI and ccusage, and print the shell exports that name them")
	readmeOnly := fs.Bool("readme", false, "only write the pinned fixtures' README.md again, from what they hold")
	parallel := fs.Int("parallel", 3, "scenarios run at once")
	binary := fs.String("claude", os.Getenv(claudecode.BinaryEnv), "the claude binary (default: install the pinned version)")
	ccusage := fs.String("ccusage", os.Getenv(harness.CCUsageEnv), "the ccusage binary (default: install the pinned version)")
	fs.Parse(os.Args[2:])
	ctx := context.Background()
	// The fixtures are found from the module's root, which only -only and
	// -install do without.
	var pinned string
	if *only == "" && !*installOnly {
		root, err := moduleRoot()
		if err != nil {
			return err
		}
		pinned = filepath.Join(root, claudecode.FixturesDir, claudecode.Version)
	}
	if *readmeOnly {
		readme, err := claudecode.Readme(pinned, claudecode.Version)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(pinned, "README.md"), readme, 0o644)
	}
	if !*installOnly {
		if err := sandbox.Available(); err != nil {
			return err
		}
	}
	version := claudecode.Version
	if *drift {
		var err error
		if version, err = claudecode.LatestVersion(ctx); err != nil {
			return err
		}
		*binary = "" // the newest, installed below
	}
	if *installOnly {
		*binary, *ccusage = "", ""
	}
	if *binary == "" || *ccusage == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return err
		}
		prefix := filepath.Join(cache, "rlog-ls", "producers", "claude-code-"+version)
		fmt.Fprintf(os.Stderr, "Claude Code %s and ccusage %s: npm install into %s (reused when there)\n", version, harness.CCUsageVersion, prefix)
		b, c, err := claudecode.Install(ctx, prefix, version)
		if err != nil {
			return err
		}
		if *binary == "" {
			*binary = b
		}
		if *ccusage == "" {
			*ccusage = c
		}
	}

	if *installOnly {
		quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
		fmt.Printf("export %s=%s %s=%s\n", claudecode.BinaryEnv, quote(*binary), harness.CCUsageEnv, quote(*ccusage))
		return nil
	}

	if *only != "" {
		s := claudecode.ScenarioNamed(*only)
		if s == nil || *out == "" {
			return errors.New("-only needs a scenario's name and -out DIR")
		}
		res, err := claudecode.Record(ctx, s, *binary, *ccusage, *out, *bodies)
		if err != nil {
			return err
		}
		report(s.Name, res.Version, claudecode.Check(s, res, *out))
		return nil
	}

	if *drift {
		tmp, err := os.MkdirTemp("", "rlog-producers-drift-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		for _, r := range claudecode.RecordAll(ctx, *binary, *ccusage, tmp, *parallel, false) {
			report(r.Scenario.Name, version, r.Problems)
			if r.Err != nil {
				fmt.Printf("%s: %v\n", r.Scenario.Name, r.Err)
			}
		}
		text, err := claudecode.DriftReport(pinned, tmp)
		if err != nil {
			return err
		}
		fmt.Printf("\nClaude Code %s against the fixtures of %s\n%s", version, claudecode.Version, text)
		return nil
	}

	parent := filepath.Dir(pinned)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, ".record-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	failed := false
	for _, r := range claudecode.RecordAll(ctx, *binary, *ccusage, tmp, *parallel, false) {
		switch {
		case r.Err != nil:
			fmt.Printf("%s: %v\n", r.Scenario.Name, r.Err)
			failed = true
		case r.Results.Version != claudecode.Version:
			fmt.Printf("%s: ran Claude Code %s, not the pinned %s\n", r.Scenario.Name, r.Results.Version, claudecode.Version)
			failed = true
		default:
			report(r.Scenario.Name, r.Results.Version, r.Problems)
			failed = failed || len(r.Problems) > 0
		}
	}
	if failed {
		return errors.New("the fixtures are left as they were")
	}
	readme, err := claudecode.Readme(tmp, claudecode.Version)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, "README.md"), readme, 0o644); err != nil {
		return err
	}
	if err := harness.ReplaceDir(tmp, pinned); err != nil {
		return err
	}
	fmt.Printf("rewrote %s\n", pinned)
	return nil
}

func report(name, version string, problems []string) {
	if len(problems) == 0 {
		fmt.Printf("%s: ok (Claude Code %s)\n", name, version)
		return
	}
	fmt.Printf("%s: %d problems (Claude Code %s)\n", name, len(problems), version)
	for _, p := range problems {
		fmt.Printf("  %s\n", p)
	}
}

// moduleRoot is the folder holding go.mod, at or above the working
// directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the module (no go.mod above the working directory)")
		}
		dir = parent
	}
}
