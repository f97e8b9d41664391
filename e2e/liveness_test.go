package e2e

import (
	"fmt"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// An editor that dies without closing the server's pipes (they were
// inherited by another of its processes, or it hung up badly) is noticed
// through initialize's processId: the real binary exits by itself, with
// status 1 as there was no shutdown. Here the "editor" is a real child
// process, killed after initialize, while the test keeps the server's
// stdin open.
func TestStdioExitsWhenEditorProcessDies(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the liveness probe is Unix only")
	}
	editor := exec.Command("sleep", "600")
	if err := editor.Start(); err != nil {
		t.Skipf("cannot start a stand-in editor: %v", err)
	}
	t.Cleanup(func() { _ = editor.Process.Kill() })

	cmd, in, out := startStdio(t)
	send(t, in, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":%d,"rootUri":null,"capabilities":{}}}`, editor.Process.Pid))
	readResponse(t, out, 1)
	send(t, in, `{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	send(t, in, `{"jsonrpc":"2.0","id":2,"method":"workspace/symbol","params":{"query":""}}`)
	readResponse(t, out, 2) // still serving while the editor lives

	_ = editor.Process.Kill()
	_ = editor.Wait() // reaped: the pid is gone

	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("exit without shutdown must be status 1: %v", err)
		}
	case <-time.After(2 * time.Minute): // a guard against a hang; the server polls every 5 s
		t.Fatal("the server is still running after its editor died")
	}
	_ = in.Close()
}
