package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/rlog-ls/rlog-ls/lsp"
	"github.com/rlog-ls/rlog-ls/lsp/rlog"
)

// terminalNote is what the server says when a person, not an editor, runs
// it in a terminal: otherwise it would wait in silence.
const terminalNote = "rlog-ls: this is the rlog/1 language server, waiting for an editor to speak LSP on stdin " +
	"(rlog-ls --help lists the command-line tools; Ctrl-C quits)\n"

func serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newCommand("serve", "rlog-ls [serve] [flags]",
		"Speak the Language Server Protocol on stdin/stdout: what editors run. Logs go to stderr or --log-file, never to stdout.")
	var flags lsp.Flags
	flags.Bind(cmd.fl)
	if status, done := cmd.noArgs(args, ": the server speaks LSP on stdin/stdout", stdout, stderr); done {
		return status
	}
	log, trace, closeLogs, err := flags.Loggers()
	if err != nil {
		fmt.Fprintf(stderr, "rlog-ls serve: %v\n", err)
		return 2
	}
	defer closeLogs()
	if isTerminal(stdin) {
		fmt.Fprint(stderr, terminalNote)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return lsp.Serve(ctx, lsp.Stream(stdin, stdout), lsp.Options[rlog.Doc]{
		Features: rlog.Features(),
		Name:     "rlog-ls",
		Version:  version(),
		Logger:   log,
		Trace:    trace,
	})
}
