package lsp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

// serveStdioEnv makes the test binary a real stdio server: the stdio tests
// start it as a child process, as an editor starts rlog-ls.
const serveStdioEnv = "RLOG_LS_LSP_TEST_SERVE_STDIO"

func TestMain(m *testing.M) {
	if os.Getenv(serveStdioEnv) == "1" {
		os.Exit(serveStdio())
	}
	os.Exit(m.Run())
}

func serveStdio() int {
	log, trace, closeLog, err := (&Flags{LogLevel: "debug", Trace: true}).Loggers()
	if err != nil {
		return 2
	}
	defer closeLog() //nolint:errcheck
	return Serve(context.Background(), Stdio(), Options[*plainText]{
		Features:            toyFeatures(),
		Name:                "rlog-ls",
		Version:             "stdio",
		Logger:              log,
		Trace:               trace,
		ProcessPollInterval: 20 * time.Millisecond,
	})
}

// startStdioServer runs the server in a child process, its stdin and stdout
// joined to the test client; it returns the client and the child's stderr.
func startStdioServer(t *testing.T) (*lsptest.Client, *syncBuffer) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the stdio tests start a child process the Unix way")
	}
	stderr := &syncBuffer{}
	c := lsptest.Start(t, func(_ context.Context, rwc io.ReadWriteCloser) int {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		// GORACE: a race-enabled child otherwise sleeps a second at exit.
		cmd.Env = append(os.Environ(), serveStdioEnv+"=1", "GORACE=atexit_sleep_ms=0")
		cmd.Stderr = stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Error(err)
			return -1
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Error(err)
			return -1
		}
		if err := cmd.Start(); err != nil {
			t.Error(err)
			return -1
		}
		go func() {
			_, _ = io.Copy(stdin, rwc) // ends when the test client closes
			_ = stdin.Close()
		}()
		_, _ = io.Copy(rwc, stdout) // ends when the child exits
		err = cmd.Wait()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		if err != nil {
			t.Error(err)
			return -1
		}
		return 0
	})
	return c, stderr
}

// syncBuffer is a bytes.Buffer that a server's goroutines may write to
// while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Over real stdio: stdout carries only frames (the client would fail on
// anything else), the logs and the trace go to stderr, and shutdown + exit
// is exit status 0.
func TestStdioSession(t *testing.T) {
	c, stderr := startStdioServer(t)
	c.Initialize(initParams(noDebounce))
	openDoc(c, "untitled:stdio", 1, "TODO")
	if p := c.WaitDiagnostics("untitled:stdio", nil); len(p.Diagnostics) != 1 {
		t.Fatalf("got %s", p.Raw)
	}
	if code := c.Shutdown(); code != 0 {
		t.Fatalf("exit status %d\n%s", code, stderr)
	}
	for _, want := range []string{"initialize", "rpc received", "textDocument/didOpen"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// An editor that dies closes the server's stdin: the server exits, with
// status 1 as there was no shutdown.
func TestStdioExitsWhenStdinCloses(t *testing.T) {
	c, stderr := startStdioServer(t)
	c.Initialize(nil)
	c.CloseInput()
	if code := c.ExitCode(); code != 1 {
		t.Fatalf("exit status %d\n%s", code, stderr)
	}
}

// An editor that dies without closing the pipes (it left them to a child
// of its own) is noticed through initialize's processId.
func TestStdioExitsWhenClientProcessDies(t *testing.T) {
	editor := exec.Command("sleep", "60")
	if err := editor.Start(); err != nil {
		t.Skipf("cannot start a stand-in editor: %v", err)
	}
	c, stderr := startStdioServer(t)
	params := initParams(nil)
	params["processId"] = editor.Process.Pid
	c.Initialize(params)
	_ = editor.Process.Kill()
	_ = editor.Wait()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr)
		}
	})
	if code := c.ExitCode(); code != 1 {
		t.Fatalf("exit status %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr.String(), "the client's process is gone") {
		t.Errorf("stderr:\n%s", stderr)
	}
}
