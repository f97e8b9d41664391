package lsp

import (
	"os"
	"os/exec"
	"runtime"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// A pid that now belongs to another process (the client died and the pid
// was reused) is not the client: the server stops.
func TestServerExitsWhenClientPIDIsReused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var reused atomic.Bool
		opts := testOptions(t)
		opts.processAlive = func(int) bool { return true }
		opts.processStart = func(int) string {
			if reused.Load() {
				return "98765"
			}
			return "12345"
		}
		c := startWatched(t, opts)
		time.Sleep(11 * time.Second)
		synctest.Wait()
		exitsByNextPoll(t, c, func() { reused.Store(true) })
	})
}

// Where the start time is unknown ("" at initialize), only the probe counts.
func TestUnknownStartTimeIsNotAChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var calls atomic.Int32
		opts := testOptions(t)
		opts.processAlive = func(int) bool { return true }
		opts.processStart = func(int) string {
			if calls.Add(1) == 1 {
				return ""
			}
			return "later-known"
		}
		c := startWatched(t, opts)
		time.Sleep(time.Minute)
		synctest.Wait()
		alive(t, c)
	})
}

// The real probes: a process's start time is stable while it lives and
// differs between processes; a zombie (exited, not yet reaped) is gone.
func TestProcessIdentityProbes(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("start times and zombies are read from /proc")
	}
	self := processStartTime(os.Getpid())
	if self == "" || processStartTime(os.Getpid()) != self {
		t.Fatalf("own start time %q unstable or unknown", self)
	}
	child := exec.Command("sh", "-c", "exit 0")
	if err := child.Start(); err != nil {
		t.Skipf("cannot start a child: %v", err)
	}
	pid := child.Process.Pid
	// Not waited for: once it has exited it is a zombie.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if state, _, ok := procStat(pid); ok && state == 'Z' {
			break
		}
		if time.Now().After(deadline) { // a guard against a hang only
			t.Fatal("the child never became a zombie")
		}
	}
	if processAlive(pid) {
		t.Error("a zombie counts as alive")
	}
	_ = child.Wait()
	if processAlive(pid) || processStartTime(pid) != "" {
		t.Error("a reaped child counts as alive")
	}
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Skip(err)
	}
	defer other.Process.Kill()
	if st := processStartTime(other.Process.Pid); st == "" || !processAlive(other.Process.Pid) {
		t.Errorf("a running child: start %q", st)
	}
}
