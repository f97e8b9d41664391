package lsp

import (
	"os"
	"os/exec"
	"runtime"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

// The server exits by itself once the client's process is gone.
func TestServerExitsWhenClientProcessDies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var dead atomic.Bool
		var probed atomic.Int32
		opts := testOptions(t)
		opts.processAlive = func(pid int) bool {
			if pid != 4242 {
				t.Errorf("probed pid %d", pid)
			}
			probed.Add(1)
			return !dead.Load()
		}
		c := startWatched(t, opts)

		time.Sleep(12 * time.Second) // two polls: still alive, still serving
		synctest.Wait()
		if probed.Load() != 2 {
			t.Fatalf("probed %d times in 12s, want 2", probed.Load())
		}
		exitsByNextPoll(t, c, func() { dead.Store(true) })
	})
}

// exitsByNextPoll checks that c still serves, makes its client go (gone),
// and checks that the server has exited with 1 a poll (5 s) later.
func exitsByNextPoll(t *testing.T, c *lsptest.Client, gone func()) {
	t.Helper()
	alive(t, c)
	gone()
	time.Sleep(5 * time.Second)
	if code := c.ExitCode(); code != 1 {
		t.Fatalf("exit code %d", code)
	}
}

// Without a processId (null, or 0) nothing is watched.
func TestNoProcessIDNoWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		opts := testOptions(t)
		opts.processAlive = func(int) bool {
			t.Error("probed without a processId")
			return false
		}
		c := startServer(t, opts)
		c.Initialize(nil)
		time.Sleep(time.Minute)
		synctest.Wait()
		alive(t, c)
	})
}

func TestProcessAliveProbe(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no signal-0 probe on Windows")
	}
	if !processAlive(os.Getpid()) {
		t.Fatal("this process is not alive")
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start a child: %v", err)
	}
	pid := cmd.Process.Pid
	if !processAlive(pid) {
		t.Fatal("running child is not alive")
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait() // reaped: the pid is free
	if processAlive(pid) {
		t.Fatal("dead child is alive")
	}
}
