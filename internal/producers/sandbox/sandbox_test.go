package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	Register("probe", JobOf(probe))
	Register("leave-running", JobOf(leaveRunning))
	Main()
	os.Exit(m.Run())
}

type probeResult struct {
	Interfaces []string
	Echo       string
	Served     bool
	PID        int
}

// probe reports what a job sees: its interfaces, whether it can serve
// and reach itself on loopback, and it leaves a file in Root.
func probe(_ context.Context, in string) (any, error) {
	var res probeResult
	res.Echo = in
	res.PID = os.Getpid()
	ifaces, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	for _, ifc := range ifaces {
		res.Interfaces = append(res.Interfaces, ifc.Name)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Write([]byte("x"))
			c.Close()
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 1)
	_, err = c.Read(buf)
	c.Close()
	res.Served = err == nil && buf[0] == 'x'
	if err := os.WriteFile(filepath.Join(Root, "probe-"+in), nil, 0o644); err != nil {
		return nil, err
	}
	return res, nil
}

func TestJobRunsInAPrivateNetwork(t *testing.T) {
	if err := Available(); err != nil {
		t.Skip(err)
	}
	token := time.Now().Format("150405.000000000")
	var res probeResult
	if err := Run(context.Background(), "probe", token, &res, nil, time.Minute); err != nil {
		t.Fatal(err)
	}
	if res.Echo != token {
		t.Errorf("the job's input came back as %q, want %q", res.Echo, token)
	}
	if len(res.Interfaces) != 1 || res.Interfaces[0] != "lo" {
		t.Errorf("interfaces in the sandbox: %v, want only lo", res.Interfaces)
	}
	if res.PID != 1 {
		t.Errorf("the job is process %d of its PID namespace, want 1 (so that what it starts dies with it)", res.PID)
	}
	if !res.Served {
		t.Error("the job could not reach its own server on 127.0.0.1")
	}
	if _, err := os.Stat(filepath.Join(Root, "probe-"+token)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file the job wrote under %s is visible outside it (%v)", Root, err)
	}
}

func TestUnknownJobFails(t *testing.T) {
	if err := Available(); err != nil {
		t.Skip(err)
	}
	err := Run(context.Background(), "no-such-job", nil, nil, nil, time.Minute)
	if err == nil {
		t.Fatal("running an unregistered job succeeded")
	}
}

// leaveRunning starts a process that would outlive the job, named by its
// input so that the test can look for it.
func leaveRunning(_ context.Context, token string) (any, error) {
	cmd := exec.Command("/bin/bash", "-c", "exec -a "+token+" sleep 300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	// Return only once it runs under its name.
	for range 200 {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", cmd.Process.Pid))
		if strings.HasPrefix(string(b), token+"\x00") {
			return cmd.Process.Pid, nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil, errors.New("the process never ran under its name")
}

func TestNothingOutlivesTheJob(t *testing.T) {
	if err := Available(); err != nil {
		t.Skip(err)
	}
	token := "rlog-sandbox-leftover-" + time.Now().Format("150405.000000000")
	if err := Run(context.Background(), "leave-running", token, nil, nil, time.Minute); err != nil {
		t.Fatal(err)
	}
	// The kernel kills the namespace's processes as its first one exits;
	// give it a moment to finish.
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := processesNamed(t, token)
		if left == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d processes the job started are still running", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func processesNamed(t *testing.T, name string) int {
	t.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range dirs {
		b, err := os.ReadFile(p)
		if err == nil && strings.HasPrefix(string(b), name+"\x00") {
			n++
		}
	}
	return n
}

// TestJobOf: the job's input decoded into the run's type, and input that
// does not decode an error before run is called.
func TestJobOf(t *testing.T) {
	called := false
	job := JobOf(func(_ context.Context, in struct{ N int }) (any, error) {
		called = true
		return in.N * 2, nil
	})
	if out, err := job(context.Background(), json.RawMessage(`{"N":21}`)); err != nil || out != 42 {
		t.Errorf("out %v, err %v", out, err)
	}
	called = false
	if _, err := job(context.Background(), json.RawMessage(`{"N":"x"}`)); err == nil || called {
		t.Errorf("a bad input: err %v, run called %v", err, called)
	}
}
