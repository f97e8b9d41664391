package main

import (
	"context"
	"fmt"

	"github.com/rlog-ls/rlog-ls/internal/producers/claudecode"
	"github.com/rlog-ls/rlog-ls/internal/producers/codex"
	"github.com/rlog-ls/rlog-ls/internal/producers/geminicli"
	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
)

// An agent is what record needs of one CLI's driver package.
type agent struct {
	name, title string
	pkgName     string   // its npm package's name, without the scope
	version     string   // the pinned version
	fixtures    string   // the fixtures' folder, relative to the module root
	cache       string   // the install's folder name in the cache, before -VERSION
	envs        []string // the variables naming its binaries (ccusage's besides)
	install     func(ctx context.Context, prefix, version string) (map[string]string, error)
	latest      func(ctx context.Context) (string, error)
	recordAll   func(ctx context.Context, bins map[string]string, dir string, parallel int) []outcome
	recordOne   func(ctx context.Context, scenario string, bins map[string]string, out string, bodies bool) outcome
	readme      func(dir, version string) ([]byte, error)
	drift       func(pinned, fresh string) (string, error)
}

// An outcome is one scenario recorded.
type outcome struct {
	scenario, version string
	problems          []string
	err               error
}

var agents = []*agent{claude, codexAgent, geminiAgent}

var claude = &agent{
	name: "claude", pkgName: "claude-code", title: "Claude Code", version: claudecode.Version, fixtures: claudecode.FixturesDir,
	cache: "claude-code", envs: []string{claudecode.BinaryEnv},
	install: func(ctx context.Context, prefix, version string) (map[string]string, error) {
		bin, ccusage, err := claudecode.Install(ctx, prefix, version)
		return map[string]string{claudecode.BinaryEnv: bin, harness.CCUsageEnv: ccusage}, err
	},
	latest: claudecode.LatestVersion,
	recordAll: func(ctx context.Context, bins map[string]string, dir string, parallel int) []outcome {
		return outcomes(claudecode.RecordAll(ctx, bins[claudecode.BinaryEnv], bins[harness.CCUsageEnv], dir, parallel, false),
			func(s *claudecode.Scenario) string { return s.Name })
	},
	recordOne: func(ctx context.Context, name string, bins map[string]string, out string, bodies bool) outcome {
		return recordOne(name, out, claudecode.ScenarioNamed, func(s *claudecode.Scenario) (*claudecode.Results, error) {
			return claudecode.Record(ctx, s, bins[claudecode.BinaryEnv], bins[harness.CCUsageEnv], out, bodies)
		}, claudecode.Check)
	},
	readme: claudecode.Readme,
	drift:  claudecode.DriftReport,
}

var codexAgent = &agent{
	name: "codex", pkgName: "codex", title: "Codex CLI", version: codex.Version, fixtures: codex.FixturesDir,
	cache: "codex", envs: []string{codex.BinaryEnv},
	install: func(ctx context.Context, prefix, version string) (map[string]string, error) {
		bin, ccusage, err := codex.Install(ctx, prefix, version)
		return map[string]string{codex.BinaryEnv: bin, harness.CCUsageEnv: ccusage}, err
	},
	latest: codex.LatestVersion,
	recordAll: func(ctx context.Context, bins map[string]string, dir string, parallel int) []outcome {
		return outcomes(codex.RecordAll(ctx, bins[codex.BinaryEnv], bins[harness.CCUsageEnv], dir, parallel, false),
			func(s *codex.Scenario) string { return s.Name })
	},
	recordOne: func(ctx context.Context, name string, bins map[string]string, out string, bodies bool) outcome {
		return recordOne(name, out, codex.ScenarioNamed, func(s *codex.Scenario) (*codex.Results, error) {
			return codex.Record(ctx, s, bins[codex.BinaryEnv], bins[harness.CCUsageEnv], out, bodies)
		}, codex.Check)
	},
	readme: codex.Readme,
	drift:  codex.DriftReport,
}

var geminiAgent = &agent{
	name: "gemini", pkgName: "gemini-cli", title: "Gemini CLI", version: geminicli.Version, fixtures: geminicli.FixturesDir,
	cache: "gemini-cli", envs: []string{geminicli.BinaryEnv, geminicli.LegacyEnv},
	// The legacy scenario also needs the last version that wrote single-JSON
	// sessions, pinned whatever version runs the rest.
	install: func(ctx context.Context, prefix, version string) (map[string]string, error) {
		bundle, ccusage, err := geminicli.Install(ctx, prefix, version)
		if err != nil {
			return nil, err
		}
		legacyPrefix, err := harness.CachePrefix("gemini-cli-" + geminicli.LegacyVersion)
		if err != nil {
			return nil, err
		}
		legacy, _, err := geminicli.Install(ctx, legacyPrefix, geminicli.LegacyVersion)
		return map[string]string{geminicli.BinaryEnv: bundle, geminicli.LegacyEnv: legacy, harness.CCUsageEnv: ccusage}, err
	},
	latest: geminicli.LatestVersion,
	recordAll: func(ctx context.Context, bins map[string]string, dir string, parallel int) []outcome {
		return outcomes(geminicli.RecordAll(ctx, geminiBundles(bins), bins[harness.CCUsageEnv], dir, parallel, false),
			func(s *geminicli.Scenario) string { return s.Name })
	},
	recordOne: func(ctx context.Context, name string, bins map[string]string, out string, bodies bool) outcome {
		return recordOne(name, out, geminicli.ScenarioNamed, func(s *geminicli.Scenario) (*geminicli.Results, error) {
			return geminicli.Record(ctx, s, geminiBundles(bins), bins[harness.CCUsageEnv], out, bodies)
		}, geminicli.Check)
	},
	readme: geminicli.Readme,
	drift:  geminicli.DriftReport,
}

func geminiBundles(bins map[string]string) geminicli.Bundles {
	return geminicli.Bundles{Current: bins[geminicli.BinaryEnv], Legacy: bins[geminicli.LegacyEnv]}
}

// outcomes are a driver's recordings of every scenario (named by name).
func outcomes[S, Step any](recs []harness.Recording[S, harness.Results[Step]], name func(S) string) []outcome {
	var out []outcome
	for _, r := range recs {
		out = append(out, outcomeOf(name(r.Scenario), r.Results, r.Problems, r.Err))
	}
	return out
}

// recordOne records the scenario a driver names name into out and checks
// the recording.
func recordOne[Scenario, Step any](name, out string, named func(string) *Scenario,
	record func(*Scenario) (*harness.Results[Step], error), check func(*Scenario, *harness.Results[Step], string) []string) outcome {
	s := named(name)
	if s == nil {
		return outcome{scenario: name, err: fmt.Errorf("no scenario %q", name)}
	}
	res, err := record(s)
	var problems []string
	if err == nil {
		problems = check(s, res, out)
	}
	return outcomeOf(name, res, problems, err)
}

func outcomeOf[Step any](scenario string, res *harness.Results[Step], problems []string, err error) outcome {
	o := outcome{scenario: scenario, problems: problems, err: err}
	if res != nil {
		o.version = res.Version
	}
	return o
}
