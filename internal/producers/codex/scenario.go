package codex

import (
	"path"

	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
	"github.com/rlog-ls/rlog-ls/internal/producers/openai"
	"github.com/rlog-ls/rlog-ls/internal/producers/sandbox"
)

// A Scenario is one scripted session: the files of the working directory,
// the prompts given to the CLI one run after the other, and the rules by
// which the stand-in answers the CLI's requests.
type Scenario struct {
	Name  string
	About string            // what it shows, one paragraph (the fixtures' README)
	Files map[string][]byte // the working directory before the first step
	Steps []Step
	Rules []openai.Rule
	// Threads is how many rollouts the CLI must write: one per thread,
	// a sub-agent's included.
	Threads int
	// Ends names the rule whose answer ends the main thread: resuming its
	// rollout must give the CLI that request's conversation followed by
	// the answer ("" when the session does not end in an answer).
	Ends string
}

// A Step is one run of the CLI: `codex exec --json PROMPT`, or with
// Resume `codex exec resume THREAD PROMPT` on the thread of the first
// step.
type Step struct {
	Prompt string
	// Args are more options, before the prompt: -c KEY=VALUE, --enable
	// FEATURE.
	Args   []string
	Resume bool
	// Fails says the CLI is expected to end this step with a failed turn
	// (turn.failed, exit code 1).
	Fails bool
}

// Dir is the scenario's folder under the sandbox root: its home, CODEX_HOME,
// working directory and temporary folder are under it, the same on every
// run.
func (s *Scenario) Dir() string { return path.Join(sandbox.Root, "codex", s.Name) }

// Home, CodexHome, Work and Tmp are the CLI's HOME, CODEX_HOME, working
// directory and TMPDIR.
func (s *Scenario) Home() string      { return path.Join(s.Dir(), "home") }
func (s *Scenario) CodexHome() string { return path.Join(s.Dir(), "codex-home") }
func (s *Scenario) Work() string      { return path.Join(s.Dir(), "work") }
func (s *Scenario) Tmp() string       { return path.Join(s.Dir(), "tmp") }

// stepArgs are the CLI's arguments for step i of the thread thread.
func (s *Scenario) stepArgs(i int, thread string) []string {
	st := s.Steps[i]
	args := []string{"exec", "--skip-git-repo-check", "--json"}
	args = append(args, st.Args...)
	if st.Resume {
		args = append(args, "resume", thread)
	}
	return append(args, st.Prompt)
}

// ScenarioNamed is the scenario called name, or nil.
func ScenarioNamed(name string) *Scenario { return harness.Named(Scenarios, (*Scenario).name, name) }
