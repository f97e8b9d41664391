// Command record runs the producer harness: the real agent CLIs, offline
// against the API stand-ins, through the scripted scenarios
// (docs/producers.md). AGENT is claude, codex, gemini, or all (each in
// turn).
//
//	go run ./internal/producers/cmd/record AGENT
//	    records every scenario with the pinned CLI and, when all pass
//	    their checks, replaces testdata/agents/CLI/VERSION/
//	go run ./internal/producers/cmd/record AGENT -drift
//	    runs them with the newest published version into a temporary
//	    folder and lists what it wrote that the fixtures never show (a
//	    report: it fails only when it cannot run)
//	go run ./internal/producers/cmd/record AGENT -only NAME -out DIR
//	    records one scenario into DIR, to look at (-bodies: every request
//	    body too)
//	go run ./internal/producers/cmd/record AGENT -install
//	    installs the pinned CLI and ccusage and prints the exports that
//	    name them, for the gated tests: eval "$(go run … -install)"
//	go run ./internal/producers/cmd/record AGENT -readme
//	    writes the fixtures' README.md again from what they hold
//	go run ./internal/producers/cmd/record all -install -pins 'claude-code@2.1.328 …'
//	    fails unless the pinned versions are these (.ci/run states
//	    every version it runs; this holds them to the harness's)
//
// The CLIs and ccusage are installed with npm into the user's cache
// folder unless their variables (RLOG_CLAUDE_CODE, RLOG_CODEX,
// RLOG_GEMINI_CLI, RLOG_GEMINI_CLI_LEGACY, RLOG_CCUSAGE) name them.
// Scenarios run inside a private network namespace: root is needed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlog-ls/rlog-ls/internal/producers/geminicli"
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

const usage = "usage: record claude|codex|gemini|all [-drift] [-only NAME -out DIR [-bodies]] [-install] [-readme] [-parallel N] [-pins 'NAME@VERSION ...']"

func run() error {
	if len(os.Args) < 2 {
		return errors.New(usage)
	}
	var chosen []*agent
	for _, a := range agents {
		if os.Args[1] == a.name || os.Args[1] == "all" {
			chosen = append(chosen, a)
		}
	}
	if len(chosen) == 0 {
		return errors.New(usage)
	}
	fs := flag.NewFlagSet("record "+os.Args[1], flag.ExitOnError)
	var o options
	fs.BoolVar(&o.drift, "drift", false, "run the newest published version and report what is new")
	fs.StringVar(&o.only, "only", "", "record only this scenario (with -out)")
	fs.StringVar(&o.out, "out", "", "with -only: the folder to record into")
	fs.BoolVar(&o.bodies, "bodies", false, "with -only: also write every request's body into OUT/bodies/")
	installOnly := fs.Bool("install", false, "only install the pinned CLIs and ccusage, and print the shell exports that name them")
	readmeOnly := fs.Bool("readme", false, "only write the pinned fixtures' README.md again, from what they hold")
	fs.IntVar(&o.parallel, "parallel", 3, "scenarios run at once")
	pins := fs.String("pins", "", "fail unless these NAME@VERSION pairs are the pinned versions (names: "+strings.Join(harness.SortedKeys(pinned()), ", ")+")")
	fs.Parse(os.Args[2:])
	if *pins != "" {
		if err := checkPins(*pins); err != nil {
			return err
		}
	}
	if o.only != "" && len(chosen) > 1 {
		return errors.New("-only names a scenario of one agent")
	}
	ctx := context.Background()
	if *installOnly {
		exports := map[string]string{}
		for _, a := range chosen {
			bins, err := install(ctx, a, a.version)
			if err != nil {
				return err
			}
			for k, v := range bins {
				exports[k] = v
			}
		}
		var words []string
		for _, k := range harness.SortedKeys(exports) {
			words = append(words, k+"='"+strings.ReplaceAll(exports[k], "'", `'\''`)+"'")
		}
		fmt.Printf("export %s\n", strings.Join(words, " "))
		return nil
	}
	// The fixtures are found from the module's root, which only -only
	// does without.
	root := ""
	if o.only == "" {
		var err error
		if root, err = harness.ModuleRoot(); err != nil {
			return err
		}
	}
	failed := false
	for _, a := range chosen {
		pinned := filepath.Join(root, a.fixtures, a.version)
		if *readmeOnly {
			readme, err := a.readme(pinned, a.version)
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(pinned, "README.md"), readme, 0o644); err != nil {
				return err
			}
			continue
		}
		if err := sandbox.Available(); err != nil {
			return err
		}
		if err := record(ctx, a, o, pinned); err != nil {
			fmt.Printf("%s: %v\n", a.title, err)
			failed = true
		}
	}
	if failed {
		return errors.New("not every agent recorded")
	}
	return nil
}

type options struct {
	drift, bodies bool
	only, out     string
	parallel      int
}

// install gives the binaries of a's CLI at version and ccusage, by the
// variables that name them: those the environment sets (for the pinned
// version), else a fresh npm install in the user's cache folder.
func install(ctx context.Context, a *agent, version string) (map[string]string, error) {
	bins := map[string]string{}
	missing := version != a.version
	for _, v := range append(a.envs, harness.CCUsageEnv) {
		if bins[v] = os.Getenv(v); bins[v] == "" {
			missing = true
		}
	}
	if !missing {
		return bins, nil
	}
	prefix, err := harness.CachePrefix(a.cache + "-" + version)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "%s %s and ccusage %s: npm install into %s (reused when there)\n", a.title, version, harness.CCUsageVersion, prefix)
	return a.install(ctx, prefix, version)
}

// record records a's scenarios: one into -out, or all of them into the
// fixtures (replaced only when every scenario passes its checks), or with
// -drift the newest version's into a temporary folder, reported.
func record(ctx context.Context, a *agent, o options, pinned string) error {
	version := a.version
	if o.drift {
		var err error
		if version, err = a.latest(ctx); err != nil {
			return err
		}
	}
	bins, err := install(ctx, a, version)
	if err != nil {
		return err
	}
	if o.only != "" {
		if o.out == "" {
			return errors.New("-only needs -out DIR")
		}
		r := a.recordOne(ctx, o.only, bins, o.out, o.bodies)
		report(a, r)
		if r.err != nil {
			return r.err
		}
		return nil
	}
	if o.drift {
		tmp, err := os.MkdirTemp("", "rlog-producers-drift-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		for _, r := range a.recordAll(ctx, bins, tmp, o.parallel) {
			report(a, r)
		}
		text, err := a.drift(pinned, tmp)
		if err != nil {
			return err
		}
		fmt.Printf("\n%s %s against the fixtures of %s\n%s", a.title, version, a.version, text)
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
	for _, r := range a.recordAll(ctx, bins, tmp, o.parallel) {
		report(a, r)
		switch {
		case r.err != nil || len(r.problems) > 0:
			failed = true
		case r.version != a.version:
			fmt.Printf("%s: ran %s %s, not the pinned %s\n", r.scenario, a.title, r.version, a.version)
			failed = true
		}
	}
	if failed {
		return errors.New("the fixtures are left as they were")
	}
	readme, err := a.readme(tmp, a.version)
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

func report(a *agent, r outcome) {
	switch {
	case r.err != nil:
		fmt.Printf("%s: %v\n", r.scenario, r.err)
	case len(r.problems) == 0:
		fmt.Printf("%s: ok (%s %s)\n", r.scenario, a.title, r.version)
	default:
		fmt.Printf("%s: %d problems (%s %s)\n", r.scenario, len(r.problems), a.title, r.version)
		for _, p := range r.problems {
			fmt.Printf("  %s\n", p)
		}
	}
}

// pinned is each program the harness runs, by its npm name's last part,
// with the version it pins.
func pinned() map[string]string {
	m := map[string]string{"ccusage": harness.CCUsageVersion, "gemini-cli-legacy": geminicli.LegacyVersion}
	for _, a := range agents {
		m[a.pkgName] = a.version
	}
	return m
}

// checkPins holds the pairs NAME@VERSION (space-separated) to pinned():
// each pair must be one, and every pinned program must be named.
func checkPins(list string) error {
	want := pinned()
	named := map[string]bool{}
	var wrong []string
	for _, p := range strings.Fields(list) {
		name, version, _ := strings.Cut(p, "@")
		named[name] = true
		switch v, ok := want[name]; {
		case !ok:
			wrong = append(wrong, name+" is not a program the harness runs")
		case v != version:
			wrong = append(wrong, fmt.Sprintf("%s is pinned at %s here, not %s", name, v, version))
		}
	}
	for _, name := range harness.SortedKeys(want) {
		if !named[name] {
			wrong = append(wrong, fmt.Sprintf("%s@%s is not named", name, want[name]))
		}
	}
	if len(wrong) > 0 {
		return errors.New("-pins: " + strings.Join(wrong, "; "))
	}
	return nil
}
