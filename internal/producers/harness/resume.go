package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/rlog-ls/rlog-ls/internal/producers/sandbox"
	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

// Resumed is what resuming a session with a real CLI gave: the CLI's
// run (a Step, the driver's), and what the stand-in received, the
// conversation the CLI rebuilt from the session first.
type Resumed[Step any] struct {
	Version string
	Run     Step
	// Conversation is the conversation of the first request to the
	// model, the resumed session followed by the new prompt.
	Conversation []standin.Turn
	// Requests are the bodies of every request to the model, in order.
	Requests []json.RawMessage
}

// ResumeDefaults fills in what a resume request left out: the working
// directory (cwd), the one the session recorded when that is under the
// sandbox root, else the folder's; and the prompt, "Go on.".
func ResumeDefaults(cwd, prompt *string, recorded string, dir Folder) {
	if *cwd == "" {
		*cwd = dir.Work()
		if strings.HasPrefix(recorded, sandbox.Root+"/") {
			*cwd = recorded
		}
	}
	if *prompt == "" {
		*prompt = "Go on."
	}
}

// Collect takes into out what the stand-in received of a resumed run
// that ended with exitCode: the bodies of the requests to the model
// (path) and the conversation the first carries (parse). A run that
// succeeded without asking the model anything is an error.
func (out *Resumed[Step]) Collect(exchanges []standin.Exchange, path string, exitCode int,
	parse func(ex standin.Exchange) ([]standin.Turn, error)) error {
	for _, ex := range exchanges {
		if ex.URLPath() != path {
			continue
		}
		out.Requests = append(out.Requests, json.RawMessage(ex.Body))
		if out.Conversation == nil {
			conv, err := parse(ex)
			if err != nil {
				return fmt.Errorf("the CLI's first request: %w", err)
			}
			out.Conversation = conv
		}
	}
	if out.Conversation == nil && exitCode == 0 {
		return errors.New("the CLI succeeded without asking the stand-in anything")
	}
	return nil
}
