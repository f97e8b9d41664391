package claudecode

import (
	"fmt"

	"github.com/rlog-ls/rlog-ls/internal/producers/anthropic"
	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
)

// A Scenario is one scripted session: the files of the working directory,
// the prompts given to the CLI one run after the other, and the rules by
// which the stand-in answers the CLI's requests.
type Scenario struct {
	Name  string
	About string            // what it shows, one paragraph (the fixtures' README)
	Files map[string][]byte // the working directory before the first step
	Steps []Step
	Rules []anthropic.Rule
	// Expect are files the CLI must have written, as patterns relative to
	// its project folder (besides each run's session transcript).
	Expect []string
	// Ends names, for each session of the scenario, the rule whose answer
	// ends it: resuming the session's transcript must give the CLI that
	// request's conversation followed by the answer.
	Ends []string
}

// A Step is one run of the CLI.
type Step struct {
	Prompt string
	// Args are more flags: --allowedTools, --disallowedTools,
	// --permission-prompts, --autocompact ...
	Args []string
	// Resume continues the session of the previous step (--resume);
	// Fork makes that a new session copying it (--fork-session).
	Resume, Fork bool
	// Input, when set, is sent on stdin as stream-json messages (one JSON
	// value each) instead of Prompt: a prompt with an image.
	Input []string
	// Interrupt answers every permission request of a streaming step
	// (permission prompts go to the host, --permission-prompt-tool stdio)
	// by denying it with interrupt, as a user pressing Esc at the prompt.
	Interrupt bool
	// Fails says the CLI is expected to end this step with is_error.
	Fails bool
}

// Dir is the scenario's folder in the sandbox: its Home, Work and Tmp are
// the CLI's HOME, working directory and CLAUDE_CODE_TMPDIR.
func (s *Scenario) Dir() harness.Folder { return harness.FolderOf("claude", s.Name) }

// sessionID is the fixed session id of step i (given with --session-id),
// so that re-recording gives the same file names: a UUID made from the
// scenario's name and the step.
func (s *Scenario) sessionID(i int) string {
	return harness.FixedUUID(fmt.Sprintf("rlog-ls/producers/claude/%s/%d", s.Name, i))
}
