package codex

import (
	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
	"github.com/rlog-ls/rlog-ls/internal/producers/openai"
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

// Dir is the scenario's folder in the sandbox: its Home, Work and Tmp are
// the CLI's HOME, working directory and TMPDIR, and CodexHome its
// CODEX_HOME.
func (s *Scenario) Dir() harness.Folder { return harness.FolderOf("codex", s.Name) }

// CodexHome is the CODEX_HOME in a folder.
func CodexHome(dir harness.Folder) string { return dir.Join("codex-home") }

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
func ScenarioNamed(name string) *Scenario { return driver.Named(name) }
