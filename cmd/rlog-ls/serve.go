package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/rlog-ls/rlog-ls/lsp"
	"github.com/rlog-ls/rlog-ls/lsp/rlog"
)

func serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("serve", flag.ContinueOnError)
	fl.SetOutput(stderr)
	var flags lsp.Flags
	flags.Bind(fl)
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "rlog-ls serve: unexpected argument %q (the server speaks LSP on stdin/stdout)\n", fl.Arg(0))
		return 2
	}
	log, trace, closeLogs, err := flags.Loggers()
	if err != nil {
		fmt.Fprintf(stderr, "rlog-ls serve: %v\n", err)
		return 2
	}
	defer closeLogs()
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
