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

// stdioConn joins the process's stdin and stdout into the server's stream.
// A read from a terminal or pipe in blocking mode cannot be interrupted by
// closing the file, so stdin is pumped through an io.Pipe: closing the
// connection (after exit) ends the pending read at once, and the end of
// stdin (the client has gone) still reaches the server as EOF.
type stdioConn struct {
	in  *io.PipeReader
	out io.Writer
}

func newStdioConn(stdin io.Reader, stdout io.Writer) stdioConn {
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, stdin)
		pw.CloseWithError(err) // nil: EOF
	}()
	return stdioConn{in: pr, out: stdout}
}

func (c stdioConn) Read(p []byte) (int, error)  { return c.in.Read(p) }
func (c stdioConn) Write(p []byte) (int, error) { return c.out.Write(p) }
func (c stdioConn) Close() error                { return c.in.Close() }

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
	return lsp.Serve(ctx, newStdioConn(stdin, stdout), lsp.Options[rlog.Doc]{
		Features: rlog.Features(),
		Name:     "rlog-ls",
		Version:  version(),
		Logger:   log,
		Trace:    trace,
	})
}
