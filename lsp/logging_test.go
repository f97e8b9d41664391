package lsp

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

func TestFlags(t *testing.T) {
	var f Flags
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	f.Bind(fs)
	if err := fs.Parse([]string{"--stdio", "--log-level", "debug", "--log-file", "/tmp/x.log", "--trace"}); err != nil {
		t.Fatal(err)
	}
	if f != (Flags{LogLevel: "debug", LogFile: "/tmp/x.log", Trace: true}) {
		t.Fatalf("got %+v", f)
	}
	if _, _, _, err := (&Flags{LogLevel: "loud"}).Loggers(); err == nil {
		t.Fatal("a bad level was accepted")
	}
	if _, _, _, err := (&Flags{LogLevel: "info", LogFile: filepath.Join(t.TempDir(), "no", "such", "dir", "x.log")}).Loggers(); err == nil {
		t.Fatal("an unwritable log file was accepted")
	}
}

// --trace logs every message both ways, also after an error reply (protocol's
// LoggingStream deadlocks there: pitfall 9), and at any log level.
func TestTraceToLogFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.log")
	f := Flags{LogLevel: "error", LogFile: path, Trace: true}
	log, trace, closeLog, err := f.Loggers()
	if err != nil {
		t.Fatal(err)
	}
	opts := testOptions(t)
	opts.Logger, opts.Trace = log, trace
	c := lsptest.Start(t, func(ctx context.Context, rwc io.ReadWriteCloser) int { return Serve(ctx, rwc, opts) })
	c.Initialize(nil)
	c.RawRequest(`{"jsonrpc":"2.0","id":1000,"method":"no/such/method"}`)
	c.RawRequest(`{"jsonrpc":"2.0","id":1001,"method":"toy/text","params":{"textDocument":{"uri":"untitled:traced"}}}`)
	if code := c.Shutdown(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if err := closeLog(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The message JSON sits in a JSON field of the log line: quotes escaped.
	for _, want := range []string{"rpc received", "rpc sent", `\"method\":\"initialize\"`, `-32601`, `untitled:traced`, `\"id\":1001,\"result\":null`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("trace lacks %q:\n%s", want, b)
		}
	}
	if bytes.Contains(b, []byte("INFO\tinitialize")) {
		t.Error("info lines logged at level error")
	}
}

// Logs go to stderr, never to stdout, which carries the protocol.
func TestLogsGoToStderr(t *testing.T) {
	stdout, stderr := capture(t, func() {
		log, trace, closeLog, err := (&Flags{LogLevel: "debug", Trace: true}).Loggers()
		if err != nil {
			t.Fatal(err)
		}
		log.Info("hello from the server")
		trace.Info("rpc received")
		_ = closeLog()
	})
	if stdout != "" {
		t.Fatalf("stdout got %q", stdout)
	}
	if !strings.Contains(stderr, "hello from the server") || !strings.Contains(stderr, "rpc received") {
		t.Fatalf("stderr got %q", stderr)
	}
}

// capture runs f with os.Stdout and os.Stderr redirected to pipes.
func capture(t *testing.T, f func()) (stdout, stderr string) {
	t.Helper()
	read := func(target **os.File) func() string {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		saved := *target
		*target = w
		done := make(chan string)
		go func() {
			b, _ := io.ReadAll(r)
			done <- string(b)
		}()
		return func() string {
			*target = saved
			_ = w.Close()
			return <-done
		}
	}
	restoreOut, restoreErr := read(&os.Stdout), read(&os.Stderr)
	f()
	return restoreOut(), restoreErr()
}
