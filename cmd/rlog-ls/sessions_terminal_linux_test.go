package main

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// A listing that reads sessions shows its progress on a terminal's
// stderr, on one line it clears at the end; nowhere else
// (TestSessionsCommand: nothing on stderr when it is not a terminal).
func TestSessionsProgressOnATerminal(t *testing.T) {
	master, slave := openPTY(t)
	defer master.Close()
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(master) // until the slave is closed
		got <- string(b)
	}()
	var out bytes.Buffer
	code := run([]string{"sessions", "--index", filepath.Join(t.TempDir(), "idx.json"), "../../testdata/agents/claude-code"}, strings.NewReader(""), &out, slave)
	slave.Close()
	shown := <-got
	if code != 0 || !strings.Contains(out.String(), "Create greet.sh") {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}
	if !strings.Contains(shown, "reading sessions: ") || !strings.HasSuffix(shown, "\r\033[K") {
		t.Errorf("on the terminal: %q", shown)
	}
}
