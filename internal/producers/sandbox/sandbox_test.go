package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	Register("probe", probe)
	Main()
	os.Exit(m.Run())
}

type probeResult struct {
	Interfaces []string
	Echo       string
	Served     bool
}

// probe reports what a job sees: its interfaces, whether it can serve
// and reach itself on loopback, and it leaves a file in Root.
func probe(_ context.Context, input json.RawMessage) (any, error) {
	var in string
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, err
	}
	var res probeResult
	res.Echo = in
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
