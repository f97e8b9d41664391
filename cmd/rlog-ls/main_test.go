package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// TestMain lets the test binary be the writer process some tests need:
// with RLOG_LS_TEST_APPEND=N:INTERVAL:PATH it opens PATH for appending,
// as an agent holds its log open, says "ready" on stdout, and appends N
// lines (appendedLine) INTERVAL apart.
func TestMain(m *testing.M) {
	if spec := os.Getenv("RLOG_LS_TEST_APPEND"); spec != "" {
		os.Exit(appendLines(spec))
	}
	code := m.Run()
	cleanupShared()
	os.Exit(code)
}

// appendedLine is the i-th line the writer appends.
func appendedLine(i int) string { return fmt.Sprintf("u: appended while fixing, line %d\n", i) }

func appendLines(spec string) int {
	parts := strings.SplitN(spec, ":", 3)
	n, err1 := strconv.Atoi(parts[0])
	interval, err2 := time.ParseDuration(parts[1])
	if len(parts) != 3 || err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "RLOG_LS_TEST_APPEND=N:INTERVAL:PATH")
		return 2
	}
	f, err := os.OpenFile(parts[2], os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer f.Close()
	w := bufio.NewWriter(os.Stdout)
	w.WriteString("ready\n")
	w.Flush()
	for i := range n {
		if _, err := f.WriteString(appendedLine(i)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		time.Sleep(interval)
	}
	return 0
}

var shared struct {
	mu   sync.Mutex
	dir  string
	logs map[int64]string
}

// processTest skips a test that drives the built binary as a process
// (signals, pipelines) under -short, and returns the binary.
func processTest(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary and drives it as a process")
	}
	return builtBinary(t)
}

// generatedLog is a generated session of about size bytes (internal/gen,
// seed 1), made once and shared by the tests: they only read it.
func generatedLog(t *testing.T, size int64) string {
	t.Helper()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if p, ok := shared.logs[size]; ok {
		return p
	}
	if shared.dir == "" {
		dir, err := os.MkdirTemp("", "rlog-ls-logs-")
		if err != nil {
			t.Fatal(err)
		}
		shared.dir, shared.logs = dir, map[int64]string{}
	}
	p := filepath.Join(shared.dir, fmt.Sprintf("gen-%d.rlog", size))
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := gen.Write(f, gen.Options{Bytes: size, Seed: 1, FindingRate: 0.01}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	shared.logs[size] = p
	return p
}

// cleanupShared removes the generated logs and the built binary.
func cleanupShared() {
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
}
