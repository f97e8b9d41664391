// Package sandbox runs a job of this program in a private network, mount
// and PID namespace, so that the real agent CLIs the producer harness
// drives can reach nothing but the stand-in serving on the namespace's own
// loopback, write under fixed paths (Root) that no other run shares, and
// leave nothing running when the job ends.
//
// The program re-executes itself: Run starts os.Executable in new
// namespaces with the job's name in the environment; the child's main (or
// TestMain) calls Main first thing, which sees the name, brings the
// loopback interface up, checks that it is the only interface, mounts a
// private tmpfs on Root, runs the registered job with the input it was
// given and exits. Jobs are registered by the packages that define them
// (Register, from an init function).
package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"
)

// Root is where a job may write: a tmpfs of its own, gone when the job
// ends. Scenarios keep their working directories and homes under it, so the
// paths the agents record are the same on every run and every machine.
const Root = "/tmp/rlog-producers"

// jobEnv names the job a child process runs; its input is on stdin.
const jobEnv = "RLOG_PRODUCERS_SANDBOX_JOB"

// A Job runs inside the sandbox. Its input and output are JSON; what it
// prints on stderr is passed through to the caller's stderr.
type Job func(ctx context.Context, input json.RawMessage) (output any, err error)

var (
	jobsMu sync.Mutex
	jobs   = map[string]Job{}
)

// JobOf is the Job that decodes its input into an In and runs run with it.
func JobOf[In any](run func(ctx context.Context, in In) (output any, err error)) Job {
	return func(ctx context.Context, input json.RawMessage) (any, error) {
		var in In
		if err := json.Unmarshal(input, &in); err != nil {
			return nil, err
		}
		return run(ctx, in)
	}
}

// Register makes a job runnable by name. It panics on a name used twice.
func Register(name string, job Job) {
	jobsMu.Lock()
	defer jobsMu.Unlock()
	if _, dup := jobs[name]; dup {
		panic("sandbox: job registered twice: " + name)
	}
	jobs[name] = job
}

// Main runs the job named in the environment and exits, or returns at once
// when this process is not a sandbox child. Call it first in main or
// TestMain.
func Main() {
	name := os.Getenv(jobEnv)
	if name == "" {
		return
	}
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sandbox job %s: its input: %v\n", name, err)
		os.Exit(1)
	}
	out, err := runChild(name, input)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sandbox job %s: %v\n", name, err)
		os.Exit(1)
	}
	if _, err := os.Stdout.Write(out); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

func runChild(name string, input []byte) ([]byte, error) {
	jobsMu.Lock()
	job, ok := jobs[name]
	jobsMu.Unlock()
	if !ok {
		return nil, fmt.Errorf("no such job (registered: %s)", strings.Join(jobNames(), ", "))
	}
	if err := enter(); err != nil {
		return nil, err
	}
	ctx := context.Background()
	out, err := job(ctx, input)
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

func jobNames() []string {
	var names []string
	for n := range jobs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ErrUnavailable says the sandbox cannot be made on this machine (not
// root, or not Linux); callers skip and say why.
var ErrUnavailable = errors.New("sandbox unavailable")

// Run runs the job name with input in a new sandbox and decodes its JSON
// output into out. The child's stderr goes to stderr (may be nil; a failed
// job's error ends with its last line). The
// timeout bounds the whole job; the child is killed when it expires or
// when this process dies.
func Run(ctx context.Context, name string, input any, out any, stderr *bytes.Buffer, timeout time.Duration) error {
	if err := Available(); err != nil {
		return err
	}
	in, err := json.Marshal(input)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(Root, 0o755); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), jobEnv+"="+name)
	cmd.Stdin = bytes.NewReader(in)
	cmd.SysProcAttr = childAttr()
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if stderr == nil {
		stderr = new(bytes.Buffer)
	}
	cmd.Stderr = stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("sandbox job %s: killed after %s", name, timeout)
		}
		return fmt.Errorf("sandbox job %s: %w: %s", name, err, lastLine(stderr.Bytes()))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		return fmt.Errorf("sandbox job %s: its output: %w", name, err)
	}
	return nil
}

// lastLine is the last non-empty line of b, where a failed job says why.
func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}
