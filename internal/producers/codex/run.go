package codex

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
)

// stepTimeout bounds one run of the CLI; a scenario's steps take seconds.
const stepTimeout = 2 * time.Minute

// A StepResult is what one run of the CLI gave: its arguments, exit code,
// the events it printed with --json (one JSON value a line) and its
// stderr.
type StepResult struct {
	Args     []string          `json:"args"`
	ExitCode int               `json:"exitCode"`
	Events   []json.RawMessage `json:"events"`
	Stderr   string            `json:"stderr,omitempty"`
}

// event is the part of a --json event the harness reads.
type event struct {
	Type     string `json:"type"`
	ThreadID string `json:"thread_id"`
	Usage    *Usage `json:"usage"`
}

// ThreadID is the thread the run names (its thread.started event).
func (r StepResult) ThreadID() string {
	for _, e := range r.Events {
		var ev event
		if json.Unmarshal(e, &ev) == nil && ev.Type == "thread.started" {
			return ev.ThreadID
		}
	}
	return ""
}

// has says whether the run printed an event of type typ.
func (r StepResult) has(typ string) bool {
	for _, e := range r.Events {
		var ev event
		if json.Unmarshal(e, &ev) == nil && ev.Type == typ {
			return true
		}
	}
	return false
}

// TurnUsage is the usage of the run's last turn.completed event (the
// thread's running total, not the turn's own), nil when no turn completed.
func (r StepResult) TurnUsage() *Usage {
	var last *Usage
	for _, e := range r.Events {
		var ev event
		if json.Unmarshal(e, &ev) == nil && ev.Type == "turn.completed" {
			last = ev.Usage
		}
	}
	return last
}

// runCLI runs the CLI once in dir with args, stdin closed.
func runCLI(ctx context.Context, binary, dir string, envv, args []string) StepResult {
	stdout, stderr, code, note := harness.RunCLI(ctx, stepTimeout, dir, envv, binary, args, nil)
	res := StepResult{Args: args, ExitCode: code, Stderr: string(stderr) + note}
	for _, line := range strings.Split(string(stdout), "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		if !json.Valid([]byte(line)) {
			b, _ := json.Marshal(line) // kept, as a string, for the check to show
			line = string(b)
		}
		res.Events = append(res.Events, json.RawMessage(line))
	}
	return res
}

// cliVersion runs `codex --version` ("codex-cli 0.169.0").
func cliVersion(ctx context.Context, binary string, envv []string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "--version")
	cmd.Env = envv
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", binary, err)
	}
	fields := strings.Fields(string(out))
	if len(fields) == 0 {
		return "", fmt.Errorf("%s --version printed nothing", binary)
	}
	return fields[len(fields)-1], nil
}
