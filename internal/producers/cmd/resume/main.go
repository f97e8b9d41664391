// Command resume plants a session file as a session of its agent's CLI in
// a fresh home and resumes it with the real CLI against the API stand-in,
// offline in a private network namespace (docs/producers.md): a Claude
// Code transcript with `claude -p PROMPT --resume ID`, a Codex rollout
// (-agent codex) with `codex exec resume THREAD PROMPT`. It prints, as
// JSON, the CLI's run (exit code, stderr, its result or events), and the
// conversation the CLI rebuilt from the file (the first request the
// stand-in received, reduced to roles, text, tool calls with their inputs
// and tool results); -requests adds every request's whole body.
//
//	go run ./internal/producers/cmd/resume [-agent claude|codex] [-prompt P] [-cwd DIR] [-session ID] [-requests] FILE.jsonl
//
// The CLI is RLOG_CLAUDE_CODE or RLOG_CODEX (or -bin). Root is needed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/rlog-ls/rlog-ls/internal/producers/claudecode"
	"github.com/rlog-ls/rlog-ls/internal/producers/codex"
	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
	"github.com/rlog-ls/rlog-ls/internal/producers/sandbox"
	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

func main() {
	sandbox.Main()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "resume:", err)
		os.Exit(1)
	}
}

func run() error {
	agent := flag.String("agent", "claude", "the file's agent: claude or codex")
	prompt := flag.String("prompt", "", "the next prompt (default: Go on.)")
	cwd := flag.String("cwd", "", "the working directory to plant under and run in")
	session := flag.String("session", "", "the session (Claude) or thread (Codex) id to plant as (default: the file's)")
	binary := flag.String("bin", "", "the CLI's binary (default: RLOG_CLAUDE_CODE or RLOG_CODEX)")
	requests := flag.Bool("requests", false, "print every request's body too")
	flag.Parse()
	if flag.NArg() != 1 {
		return errors.New("usage: resume [flags] FILE.jsonl")
	}
	ctx := context.Background()
	var res any
	var err error
	switch *agent {
	case "claude":
		res, err = resume(*binary, "claude", claudecode.BinaryEnv, *requests, func(bin string) (*claudecode.Resumed, error) {
			return claudecode.Resume(ctx, bin, claudecode.ResumeRequest{Transcript: flag.Arg(0), SessionID: *session, Cwd: *cwd, Prompt: *prompt})
		})
	case "codex":
		res, err = resume(*binary, "codex", codex.BinaryEnv, *requests, func(bin string) (*codex.Resumed, error) {
			return codex.Resume(ctx, bin, codex.ResumeRequest{Rollout: flag.Arg(0), Thread: *session, Cwd: *cwd, Prompt: *prompt})
		})
	default:
		return fmt.Errorf("-agent %s: claude or codex", *agent)
	}
	if err != nil {
		return err
	}
	os.Stdout.Write(append(standin.MustMarshalIndent(res), '\n'))
	return nil
}

// resume resumes with the CLI's binary (bin, else the one the variable env
// names) and returns what it gave, the requests' bodies only when asked.
func resume[Step any](bin, cli, env string, requests bool, run func(bin string) (*harness.Resumed[Step], error)) (any, error) {
	bin = orEnv(bin, env)
	if bin == "" {
		return nil, fmt.Errorf("no %s binary: set %s or -bin", cli, env)
	}
	r, err := run(bin)
	if err != nil {
		return nil, err
	}
	if !requests {
		r.Requests = nil
	}
	return r, nil
}

func orEnv(v, env string) string {
	if v != "" {
		return v
	}
	return os.Getenv(env)
}
