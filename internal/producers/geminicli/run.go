package geminicli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
)

// stepTimeout bounds one run of the CLI: it takes seconds to start, and a
// scripted server error costs a few seconds of back-off.
const stepTimeout = 2 * time.Minute

// A StepResult is what one run of the CLI gave.
type StepResult struct {
	Args     []string `json:"args"`    // after the bundle's path
	Version  string   `json:"version"` // the CLI that ran
	ExitCode int      `json:"exitCode"`
	// Output is the JSON the CLI printed (--output-format json): on
	// stdout, or on stderr when the run failed; the text it printed
	// otherwise (--list-sessions), as a JSON string.
	Output json.RawMessage `json:"output"`
	Stderr string          `json:"stderr,omitempty"`
}

// output is the part of the CLI's JSON the harness reads.
type output struct {
	SessionID string `json:"session_id"`
	Response  string `json:"response"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error"`
	Stats *struct {
		Models map[string]struct {
			Roles map[string]struct {
				Tokens Tokens `json:"tokens"`
			} `json:"roles"`
		} `json:"models"`
	} `json:"stats"`
}

func (r StepResult) output() (o output) {
	json.Unmarshal(r.Output, &o)
	return o
}

// runCLI runs the CLI's bundle with node once in dir with args, stdin
// closed.
func runCLI(ctx context.Context, bundle, dir string, envv, args []string) StepResult {
	stdout, stderr, code, note := harness.RunCLI(ctx, stepTimeout, dir, envv, "node", append([]string{bundle}, args...), nil)
	// Stack traces name the install's folder, which is the machine's.
	install := filepath.Dir(filepath.Dir(bundle))
	res := StepResult{Args: args, ExitCode: code, Stderr: strings.ReplaceAll(string(stderr), install, "GEMINI_CLI") + note}
	out := bytes.TrimSpace(stdout)
	switch {
	case json.Valid(out) && len(out) > 0 && out[0] == '{':
		res.Output = out
	case lastObject(stderr) != nil:
		res.Output = lastObject(stderr)
	default:
		b, _ := json.Marshal(string(out))
		res.Output = b
	}
	return res
}

// lastObject is the last JSON object in b that starts a line (the CLI
// prints its error's JSON among log lines and stack traces), nil when
// there is none.
func lastObject(b []byte) json.RawMessage {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] != '{' || (i > 0 && b[i-1] != '\n') {
			continue
		}
		var v json.RawMessage
		if json.NewDecoder(bytes.NewReader(b[i:])).Decode(&v) == nil && v[0] == '{' {
			var buf bytes.Buffer
			json.Compact(&buf, v)
			return buf.Bytes()
		}
	}
	return nil
}

// cliVersion is the version of the package a bundle is in
// (PACKAGE/bundle/gemini.js): what --version prints, without the seconds
// a start of the CLI takes.
func cliVersion(bundle string) (string, error) {
	var pkg struct{ Name, Version string }
	if err := harness.ReadJSON(filepath.Join(filepath.Dir(filepath.Dir(bundle)), "package.json"), &pkg); err != nil {
		return "", err
	}
	if pkg.Name != cliPackage || pkg.Version == "" {
		return "", fmt.Errorf("%s is not in a %s package", bundle, cliPackage)
	}
	return pkg.Version, nil
}
