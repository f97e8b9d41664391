package geminicli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rlog-ls/rlog-ls/internal/producers/gemini"
	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
	"github.com/rlog-ls/rlog-ls/internal/producers/sandbox"
	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

// The files a recorded scenario holds that are Gemini CLI's own, beside
// harness.ResultsName (the versions, each run's arguments, exit code and
// JSON), harness.RequestsName (one RequestSummary a line) and
// harness.CCUsageName (ccusage gemini session --json --offline -z UTC).
const (
	// GeminiDirName is a copy of the CLI's ~/.gemini: tmp/work/chats/… as
	// the CLI wrote them, projects.json and the settings the harness gave
	// it.
	GeminiDirName = "gemini"
	TokensName    = "tokens.json" // Accounting: the CLI's own, and the files' per-session sums
)

// Results is what a scenario's runs gave (Unscripted: the generate
// requests no rule matched).
type Results = harness.Results[StepResult]

// Bundles are the CLI's bundles the scenarios run: the pinned version's
// and, for the legacy scenario, LegacyVersion's.
type Bundles struct {
	Current, Legacy string
}

// scenarioJob is the input of the sandbox job that runs a scenario: its
// Binary is the pinned version's bundle, Legacy LegacyVersion's.
type scenarioJob struct {
	harness.ScenarioJob
	Legacy string
}

const scenarioJobName = "gemini-cli/scenario"

func init() { sandbox.Register(scenarioJobName, sandbox.JobOf(runScenarioJob)) }

// Record runs scenario s with the CLI's bundles in a sandbox and writes
// its recording into out (which must not exist yet): the gemini/ tree,
// results.json, requests.jsonl, tokens.json, and ccusage.json when ccusage
// is given.
func Record(ctx context.Context, s *Scenario, bundles Bundles, ccusage, out string, bodies bool) (*Results, error) {
	var missing error
	if bundles.Current == "" || (bundles.Legacy == "" && s.usesLegacy()) {
		missing = fmt.Errorf("no Gemini CLI bundle: set %s (and %s for the legacy scenario)", BinaryEnv, LegacyEnv)
	}
	job := scenarioJob{harness.ScenarioJob{Scenario: s.Name, Binary: bundles.Current, CCUsage: ccusage, Out: out, Bodies: bodies}, bundles.Legacy}
	return harness.RecordScenario[Results](ctx, scenarioJobName, s.Name, len(s.Steps), stepTimeout, out, missing,
		&job, append(job.Paths(), &job.Legacy)...)
}

func (s *Scenario) usesLegacy() bool {
	for _, st := range s.Steps {
		if st.Legacy {
			return true
		}
	}
	return false
}

func runScenarioJob(ctx context.Context, job scenarioJob) (any, error) {
	s := ScenarioNamed(job.Scenario)
	if s == nil {
		return nil, fmt.Errorf("no scenario %q", job.Scenario)
	}
	dotGemini := filepath.Join(s.Dir().Home(), ".gemini")
	if err := harness.MakeDirs(dotGemini, s.Dir().Work(), s.Dir().Tmp()); err != nil {
		return nil, err
	}
	if err := harness.WriteFiles(s.Dir().Work(), s.Files); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dotGemini, "settings.json"), []byte(settings), 0o644); err != nil {
		return nil, err
	}
	api, err := gemini.Start(s.Rules)
	if err != nil {
		return nil, err
	}
	defer api.Close()
	envv := env(s.Dir().Home(), s.Dir().Tmp(), api.URL())
	res := Results{Scenario: s.Name}
	versions := map[string]string{}
	for _, b := range []string{job.Binary, job.Legacy} {
		if b != "" {
			if versions[b], err = cliVersion(b); err != nil {
				return nil, err
			}
		}
	}
	res.Version = versions[job.Binary]
	for i, st := range s.Steps {
		bundle := job.Binary
		if st.Legacy {
			bundle = job.Legacy
		}
		r := runCLI(ctx, bundle, s.Dir().Work(), envv, s.stepArgs(i))
		r.Version = versions[bundle]
		res.Steps = append(res.Steps, r)
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

// writeRecording copies what the CLI wrote into the job's folder, with the
// results, the stand-in's summary, the accounting and ccusage's figures.
func writeRecording(ctx context.Context, s *Scenario, job scenarioJob, api *gemini.StandIn, res *Results) error {
	dotGemini := filepath.Join(s.Dir().Home(), ".gemini")
	out := filepath.Join(job.Out, GeminiDirName)
	if err := harness.CopyTree(filepath.Join(dotGemini, "tmp"), filepath.Join(out, "tmp")); err != nil {
		return fmt.Errorf("copying what the CLI wrote: %w", err)
	}
	for _, f := range []string{"projects.json", "settings.json"} {
		if data, err := os.ReadFile(filepath.Join(dotGemini, f)); err == nil {
			if err := os.WriteFile(filepath.Join(out, f), data, 0o644); err != nil {
				return err
			}
		}
	}
	if err := harness.WriteResults(job.Out, res, api.Exchanges(), job.Bodies, false, func(ex standin.Exchange) (any, bool) {
		sum := summarize(ex)
		_, method, err := gemini.ParsePath(ex.URLPath())
		return sum, err == nil && method != "countTokens" && sum.Rule == ""
	}); err != nil {
		return err
	}
	acct, err := Count(out, res.Steps)
	if err != nil {
		return err
	}
	if err := harness.WriteJSON(filepath.Join(job.Out, TokensName), acct); err != nil {
		return err
	}
	return harness.WriteCCUsage(ctx, job.CCUsage, []string{"HOME=" + s.Dir().Home()},
		[]string{"gemini", "session", "--json", "--offline", "-z", "UTC"}, filepath.Join(job.Out, harness.CCUsageName))
}
