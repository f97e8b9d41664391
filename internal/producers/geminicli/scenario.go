package geminicli

import (
	"github.com/rlog-ls/rlog-ls/internal/producers/gemini"
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
	Rules []gemini.Rule
	// Sessions and Subagents are how many sessions, of kind main and
	// subagent, the CLI must write (a session may take more than one
	// file: a resume can leave a stub, a migrated one keeps its .json).
	Sessions, Subagents int
}

// A Step is one run of the CLI.
type Step struct {
	Prompt string
	// Args are more options: -m MODEL.
	Args []string
	// Resume continues the first step's session: "latest", or "id" to
	// name it by its id.
	Resume string
	// Legacy runs LegacyVersion, which writes the single-JSON form.
	Legacy bool
	// Default runs in the default approval mode (no --yolo), in which the
	// tools that need approval are not offered.
	Default bool
	// ListSessions runs --list-sessions instead of a prompt.
	ListSessions bool
	// Fails says the CLI is expected to end this step with an error.
	Fails bool
}

// Dir is the scenario's folder in the sandbox: its Home, Work and Tmp are
// the CLI's HOME, working directory and TMPDIR.
func (s *Scenario) Dir() harness.Folder { return harness.FolderOf("gemini", s.Name) }

// ProjectName is the folder of a working directory's sessions under
// ~/.gemini/tmp (the CLI names it after the directory, in
// ~/.gemini/projects.json): "work" for every scenario.
const ProjectName = "work"

// SessionID is the fixed id of the scenario's session (--session-id; the
// legacy version has no such option and makes its own), so that
// re-recording gives the same file names but for their minute: a UUID
// made from the scenario's name.
func (s *Scenario) SessionID() string {
	return harness.FixedUUID("rlog-ls/producers/gemini/" + s.Name)
}

// stepArgs are the CLI's arguments for step i (after the bundle's path).
func (s *Scenario) stepArgs(i int) []string {
	st := s.Steps[i]
	if st.ListSessions {
		return []string{"--list-sessions"}
	}
	args := []string{"-p", st.Prompt, "--output-format", "json"}
	if !st.Legacy {
		args = append(args, "--skip-trust")
	}
	if !st.Default {
		args = append(args, "--yolo")
	}
	switch {
	case st.Resume == "id":
		args = append(args, "--resume", s.SessionID())
	case st.Resume != "":
		args = append(args, "--resume", st.Resume)
	case !st.Legacy:
		args = append(args, "--session-id", s.SessionID())
	}
	return append(args, st.Args...)
}

// ScenarioNamed is the scenario called name, or nil.
func ScenarioNamed(name string) *Scenario { return driver.Named(name) }
