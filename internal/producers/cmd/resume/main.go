// Command resume plants a Claude Code transcript as a session in a fresh
// HOME and resumes it with the real CLI (`claude -p PROMPT --resume ID`)
// against the Messages API stand-in, offline in a private network
// namespace (docs/producers.md). It prints, as JSON, the CLI's result,
// exit code and stderr, and the conversation the CLI rebuilt from the
// transcript (the first request the stand-in received, reduced to roles,
// text, tool calls with their inputs and tool results); -requests adds
// every request's whole body.
//
//	go run ./internal/producers/cmd/resume [-prompt P] [-cwd DIR] [-session ID] [-requests] FILE.jsonl
//
// The CLI is RLOG_CLAUDE_CODE (or -claude). Root is needed.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/rlog-ls/rlog-ls/internal/producers/claudecode"
	"github.com/rlog-ls/rlog-ls/internal/producers/sandbox"
)

func main() {
	sandbox.Main()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "resume:", err)
		os.Exit(1)
	}
}

func run() error {
	var r claudecode.ResumeRequest
	flag.StringVar(&r.Prompt, "prompt", "", "the next prompt (default: Go on.)")
	flag.StringVar(&r.Cwd, "cwd", "", "the working directory to plant under and run in")
	flag.StringVar(&r.SessionID, "session", "", "the session id to plant as (default: the transcript's)")
	binary := flag.String("claude", os.Getenv(claudecode.BinaryEnv), "the claude binary")
	requests := flag.Bool("requests", false, "print every request's body too")
	flag.Parse()
	if flag.NArg() != 1 {
		return errors.New("usage: resume [flags] FILE.jsonl")
	}
	if *binary == "" {
		return fmt.Errorf("no claude binary: set %s or -claude", claudecode.BinaryEnv)
	}
	r.Transcript = flag.Arg(0)
	res, err := claudecode.Resume(context.Background(), *binary, r)
	if err != nil {
		return err
	}
	if !*requests {
		res.Requests = nil
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(res)
}
