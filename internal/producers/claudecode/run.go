package claudecode

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"time"

	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
)

// stepTimeout bounds one run of the CLI; a scenario's steps take seconds.
const stepTimeout = 2 * time.Minute

// env is the CLI's whole environment: nothing of ours leaks in, nothing
// reaches out (the stand-in's URL is the only address it is given).
func env(home, tmp, baseURL string) []string {
	return []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=" + home,
		"SHELL=/bin/bash",
		"LANG=C.UTF-8",
		"TZ=UTC",
		"TERM=dumb",
		"ANTHROPIC_BASE_URL=" + baseURL,
		"ANTHROPIC_API_KEY=sk-ant-standin-0000",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
		"IS_SANDBOX=1", // root may skip permission prompts
		"CLAUDE_CODE_TMPDIR=" + tmp,
	}
}

// A StepResult is what one run of the CLI gave.
type StepResult struct {
	Args     []string        `json:"args"`
	ExitCode int             `json:"exitCode"`
	Output   json.RawMessage `json:"output"` // the CLI's JSON result
	Stderr   string          `json:"stderr,omitempty"`
}

// sessionID is the session a result names.
func (r StepResult) sessionID() string {
	var out struct {
		SessionID string `json:"session_id"`
	}
	json.Unmarshal(r.Output, &out)
	return out.SessionID
}

// runCLI runs the CLI once in dir with args and returns its result: the
// JSON it printed. A step with Input streams: its messages go to stdin,
// permission requests are answered as the step says, and stdin closes
// when the CLI has printed its result.
func runCLI(ctx context.Context, binary, dir string, envv, args []string, st Step) StepResult {
	var conv func(cmd *exec.Cmd, stdout *bytes.Buffer) error
	if st.Input != nil {
		conv = func(cmd *exec.Cmd, stdout *bytes.Buffer) error { return converse(cmd, st, stdout) }
	}
	stdout, stderr, code, note := harness.RunCLI(ctx, stepTimeout, dir, envv, binary, args, conv)
	return StepResult{Args: args, ExitCode: code, Output: lastResult(stdout), Stderr: string(stderr) + note}
}

// converse runs a streaming step: it writes the step's messages, answers
// each permission request (control_request can_use_tool) by denying it as
// the user would by interrupting, and closes stdin once a result is out.
// Everything the CLI printed is kept in stdout.
func converse(cmd *exec.Cmd, st Step, stdout *bytes.Buffer) error {
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	for _, m := range st.Input {
		io.WriteString(in, m+"\n")
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		stdout.Write(line)
		stdout.WriteByte('\n')
		var msg struct {
			Type      string `json:"type"`
			RequestID string `json:"request_id"`
			Request   struct {
				Subtype string `json:"subtype"`
			} `json:"request"`
		}
		if json.Unmarshal(line, &msg) != nil {
			continue
		}
		switch {
		case msg.Type == "result":
			in.Close()
		case msg.Type == "control_request" && msg.Request.Subtype == "can_use_tool":
			answer, _ := json.Marshal(map[string]any{"type": "control_response", "response": map[string]any{
				"subtype": "success", "request_id": msg.RequestID,
				"response": map[string]any{"behavior": "deny", "message": "The user interrupted the tool use.", "interrupt": true}}})
			in.Write(append(answer, '\n'))
		}
	}
	in.Close()
	return cmd.Wait()
}

// lastResult is the JSON the CLI printed: its one value with
// --output-format json, the last line of type "result" with stream-json.
func lastResult(out []byte) json.RawMessage {
	out = bytes.TrimSpace(out)
	if json.Valid(out) {
		return out
	}
	var last json.RawMessage
	for _, line := range bytes.Split(out, []byte("\n")) {
		var v struct{ Type string }
		if json.Unmarshal(line, &v) == nil && v.Type == "result" {
			last = append(json.RawMessage(nil), line...)
		}
	}
	if last == nil {
		b, _ := json.Marshal(string(out))
		return b
	}
	return last
}

// stepArgs are the CLI's arguments for step i, resuming session prev.
func (s *Scenario) stepArgs(i int, prev string) []string {
	st := s.Steps[i]
	var args []string
	if st.Input != nil {
		args = []string{"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"}
	} else {
		// The prompt comes right after -p: options such as --allowedTools
		// take every argument after them.
		args = []string{"-p", st.Prompt, "--output-format", "json"}
	}
	switch {
	case st.Resume && st.Fork:
		args = append(args, "--resume", prev, "--fork-session", "--session-id", s.sessionID(i))
	case st.Resume:
		args = append(args, "--resume", prev)
	default:
		args = append(args, "--session-id", s.sessionID(i))
	}
	if st.Interrupt {
		args = append(args, "--permission-prompt-tool", "stdio")
	}
	return append(args, st.Args...)
}
