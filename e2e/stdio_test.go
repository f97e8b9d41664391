package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

func send(t *testing.T, w io.Writer, msg string) {
	t.Helper()
	if _, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(msg), msg); err != nil {
		t.Fatal(err)
	}
}

// readResponse reads frames until the response with the given id.
func readResponse(t *testing.T, r *bufio.Reader, id int) map[string]any {
	t.Helper()
	for {
		n := 0
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("reading from the server: %v", err)
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				n, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			t.Fatal(err)
		}
		var msg map[string]any
		if err := json.Unmarshal(body, &msg); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		if v, ok := msg["id"].(float64); ok && int(v) == id && msg["method"] == nil {
			return msg
		}
	}
}

func startStdio(t *testing.T) (*exec.Cmd, io.WriteCloser, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(server(t), "--stdio")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd, in, bufio.NewReader(out)
}

// The binary over real pipes: initialize, a request, shutdown and exit end
// the process with status 0, as the specification asks.
func TestStdioLifecycle(t *testing.T) {
	cmd, in, out := startStdio(t)
	send(t, in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`)
	if res := readResponse(t, out, 1); res["result"] == nil {
		t.Fatalf("initialize: %v", res)
	}
	send(t, in, `{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	send(t, in, `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"untitled:x","languageId":"rlog","version":1,"text":"---\nid: a\n---\nt!:R id=c1\no: id=c1 → [ok]\n"}}}`)
	send(t, in, `{"jsonrpc":"2.0","id":2,"method":"textDocument/definition","params":{"textDocument":{"uri":"untitled:x"},"position":{"line":4,"character":7}}}`)
	res := readResponse(t, out, 2)
	if locs, _ := res["result"].([]any); len(locs) != 1 {
		t.Fatalf("definition over stdio: %v", res)
	}
	send(t, in, `{"jsonrpc":"2.0","id":3,"method":"shutdown"}`)
	readResponse(t, out, 3)
	send(t, in, `{"jsonrpc":"2.0","method":"exit"}`)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after shutdown must be status 0: %v", err)
	}
}

// A client that goes away without shutdown closes stdin: the server notices
// and exits by itself, with status 1.
func TestStdioClientGone(t *testing.T) {
	cmd, in, out := startStdio(t)
	send(t, in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`)
	readResponse(t, out, 1)
	_ = in.Close()
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit without shutdown must be status 1: %v", err)
	}
}
