package claudecode

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/rlog-ls/rlog-ls/internal/producers/anthropic"
	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
	"github.com/rlog-ls/rlog-ls/internal/producers/sandbox"
	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

// ConfigDirName is the folder of a recorded scenario holding what the CLI
// wrote (a Claude config folder: claude/projects/ENCODED-CWD/), beside
// harness.ResultsName (each step's arguments and JSON), harness.RequestsName
// (one RequestSummary a line) and harness.CCUsageName (ccusage claude
// session --json --offline -z UTC).
const ConfigDirName = "claude"

// Results is what a scenario's runs gave (the version: claude --version;
// Unscripted: the Messages requests no rule matched).
type Results = harness.Results[StepResult]

const scenarioJobName = "claude-code/scenario"

func init() { sandbox.Register(scenarioJobName, sandbox.JobOf(runScenarioJob)) }

// Record runs scenario s with the claude binary in a sandbox and writes
// its recording into out (which must not exist yet): the claude/ tree,
// results.json, requests.jsonl, and ccusage.json when ccusage is given.
func Record(ctx context.Context, s *Scenario, binary, ccusage, out string, bodies bool) (*Results, error) {
	job := harness.ScenarioJob{Scenario: s.Name, Binary: binary, CCUsage: ccusage, Out: out, Bodies: bodies}
	return harness.RecordScenario[Results](ctx, scenarioJobName, s.Name, len(s.Steps), stepTimeout, out,
		job.Missing("claude", BinaryEnv), &job, job.Paths()...)
}

func runScenarioJob(ctx context.Context, job harness.ScenarioJob) (any, error) {
	s := ScenarioNamed(job.Scenario)
	if s == nil {
		return nil, fmt.Errorf("no scenario %q", job.Scenario)
	}
	if err := harness.MakeDirs(s.Dir().Home(), s.Dir().Work(), s.Dir().Tmp()); err != nil {
		return nil, err
	}
	if err := harness.WriteFiles(s.Dir().Work(), s.Files); err != nil {
		return nil, err
	}
	api, err := anthropic.Start(s.Rules)
	if err != nil {
		return nil, err
	}
	defer api.Close()

	res := Results{Scenario: s.Name}
	if res.Version, err = cliVersion(ctx, job.Binary, s.Dir().Home()); err != nil {
		return nil, err
	}
	envv := env(s.Dir().Home(), s.Dir().Tmp(), api.URL())
	prev := ""
	for i := range s.Steps {
		r := runCLI(ctx, job.Binary, s.Dir().Work(), envv, s.stepArgs(i, prev), s.Steps[i])
		res.Steps = append(res.Steps, r)
		if id := r.sessionID(); id != "" {
			prev = id
		}
	}
	if err := api.Err(); err != nil {
		return nil, err
	}
	res.Unused = api.Unused()

	if err := os.MkdirAll(job.Out, 0o755); err != nil {
		return nil, err
	}
	config := filepath.Join(job.Out, ConfigDirName)
	projects := filepath.Join(s.Dir().Home(), ".claude", "projects")
	if err := harness.CopyTree(projects, filepath.Join(config, "projects")); err != nil {
		return nil, fmt.Errorf("copying what the CLI wrote: %w", err)
	}
	if err := harness.WriteResults(job.Out, &res, api.Exchanges(), job.Bodies, false, func(ex standin.Exchange) (any, bool) {
		sum := summarize(ex)
		return sum, ex.URLPath() == "/v1/messages" && sum.Rule == ""
	}); err != nil {
		return nil, err
	}
	// ccusage reads the Claude config folder the transcripts were copied to.
	if err := harness.WriteCCUsage(ctx, job.CCUsage,
		[]string{"HOME=" + s.Dir().Join("ccusage-home"), "CLAUDE_CONFIG_DIR=" + config},
		[]string{"claude", "session", "--json", "--offline", "-z", "UTC"}, filepath.Join(job.Out, harness.CCUsageName)); err != nil {
		return nil, err
	}
	return res, nil
}

// cliVersion runs `claude --version` ("2.1.328 (Claude Code)").
func cliVersion(ctx context.Context, binary, home string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "--version")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + home, "DISABLE_AUTOUPDATER=1"}
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", binary, err)
	}
	v, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	return v, nil
}
