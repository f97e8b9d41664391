package codex

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
	"github.com/rlog-ls/rlog-ls/internal/producers/openai"
	"github.com/rlog-ls/rlog-ls/internal/producers/sandbox"
	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

// The files a recorded scenario holds that are Codex's own, beside
// harness.ResultsName (each run's arguments, exit code and --json events),
// harness.RequestsName (one RequestSummary a line) and harness.CCUsageName
// (ccusage codex session --json --offline -z UTC).
const (
	// CodexHomeName is a CODEX_HOME holding sessions/YYYY/MM/DD/rollout-*.jsonl
	// as the CLI wrote them.
	CodexHomeName = "codex-home"
	TokensName    = "tokens.json" // Tokens: the CLI's own accounting
)

// Results is what a scenario's runs gave (the version: codex --version).
type Results = harness.Results[StepResult]

const scenarioJobName = "codex/scenario"

func init() { sandbox.Register(scenarioJobName, sandbox.JobOf(runScenarioJob)) }

// Record runs scenario s with the codex binary in a sandbox and writes its
// recording into out (which must not exist yet): the codex-home/ tree,
// results.json, requests.jsonl, tokens.json, and ccusage.json when
// ccusage is given.
func Record(ctx context.Context, s *Scenario, binary, ccusage, out string, bodies bool) (*Results, error) {
	job := harness.ScenarioJob{Scenario: s.Name, Binary: binary, CCUsage: ccusage, Out: out, Bodies: bodies}
	return harness.RecordScenario[Results](ctx, scenarioJobName, s.Name, len(s.Steps), stepTimeout, out,
		job.Missing("codex", BinaryEnv), &job, job.Paths()...)
}

func runScenarioJob(ctx context.Context, job harness.ScenarioJob) (any, error) {
	s := ScenarioNamed(job.Scenario)
	if s == nil {
		return nil, fmt.Errorf("no scenario %q", job.Scenario)
	}
	if err := harness.MakeDirs(s.Dir().Home(), CodexHome(s.Dir()), s.Dir().Work(), s.Dir().Tmp()); err != nil {
		return nil, err
	}
	if err := harness.WriteFiles(s.Dir().Work(), s.Files); err != nil {
		return nil, err
	}
	api, err := openai.Start(s.Rules)
	if err != nil {
		return nil, err
	}
	defer api.Close()
	if err := os.WriteFile(filepath.Join(CodexHome(s.Dir()), "config.toml"), []byte(config(api.URL())), 0o644); err != nil {
		return nil, err
	}
	envv := env(s.Dir().Home(), CodexHome(s.Dir()), s.Dir().Tmp())
	res := Results{Scenario: s.Name}
	if res.Version, err = cliVersion(ctx, job.Binary, envv); err != nil {
		return nil, err
	}
	thread := ""
	for i := range s.Steps {
		r := runCLI(ctx, job.Binary, s.Dir().Work(), envv, s.stepArgs(i, thread))
		res.Steps = append(res.Steps, r)
		if thread == "" {
			thread = r.ThreadID()
		}
	}
	if err := api.Err(); err != nil {
		return nil, err
	}
	res.Unused = api.Unused()
	if err := writeRecording(ctx, s, job, api, &res); err != nil {
		return nil, err
	}
	return res, nil
}

// writeRecording copies what the CLI wrote into the job's folder, with
// the results, the stand-in's summary, the CLI's accounting and ccusage's.
func writeRecording(ctx context.Context, s *Scenario, job harness.ScenarioJob, api *openai.StandIn, res *Results) error {
	home := filepath.Join(job.Out, CodexHomeName)
	if err := harness.CopyTree(filepath.Join(CodexHome(s.Dir()), "sessions"), filepath.Join(home, "sessions")); err != nil {
		return fmt.Errorf("copying what the CLI wrote: %w", err)
	}
	// With the bodies, the headers say which agent asked and what for.
	if err := harness.WriteResults(job.Out, res, api.Exchanges(), job.Bodies, true, func(ex standin.Exchange) (any, bool) {
		sum := summarize(ex)
		return sum, ex.URLPath() == "/v1/responses" && sum.Rule == ""
	}); err != nil {
		return err
	}
	tokens, err := CountTokens(home, res.Steps)
	if err != nil {
		return err
	}
	if err := harness.WriteJSON(filepath.Join(job.Out, TokensName), tokens); err != nil {
		return err
	}
	return harness.WriteCCUsage(ctx, job.CCUsage,
		[]string{"HOME=" + s.Dir().Join("ccusage-home"), "CODEX_HOME=" + home},
		[]string{"codex", "session", "--json", "--offline", "-z", "UTC"}, filepath.Join(job.Out, harness.CCUsageName))
}
