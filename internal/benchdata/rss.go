//go:build unix

package benchdata

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// RSSBench is a memory benchmark of the real binary (docs/performance.md):
// the peak resident memory of rlog-ls runs on generated logs, read from
// the kernel's accounting of each child process.
type RSSBench struct {
	// Bin is the rlog-ls measured: $RLOG_RSS_BIN, or one built from this tree.
	Bin string
	// Dir holds the generated logs: $RLOG_RSS_DIR (kept between runs), or
	// the test's temporary folder.
	Dir string
	// Sizes are the sizes of $RLOG_RSS_SIZES, as written there ("10MB").
	Sizes []string
	// Table is the benchmark's Markdown table, its header written.
	Table strings.Builder
}

// StartRSS starts a memory benchmark, or skips the test unless
// $RLOG_RSS_SIZES names the sizes to run (example is the setting the skip
// suggests). header is the Markdown table's header, its rule line included.
func StartRSS(t *testing.T, example, header string) *RSSBench {
	t.Helper()
	spec := os.Getenv("RLOG_RSS_SIZES")
	if spec == "" {
		t.Skip("set RLOG_RSS_SIZES=" + example + " to run the memory benchmark")
	}
	dir := os.Getenv("RLOG_RSS_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	b := &RSSBench{Bin: RSSBinary(t, dir), Dir: dir, Sizes: strings.Split(spec, ",")}
	b.Table.WriteString(header)
	return b
}

// Log is the generated log of size in Dir (gen-SIZE.rlog: 1 % findings,
// seed 1), written unless it is there.
func (b *RSSBench) Log(t *testing.T, size string) string {
	t.Helper()
	n, err := ParseSize(size)
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(b.Dir, "gen-"+size+".rlog")
	WriteSession(t, in, gen.Options{Bytes: n, FindingRate: 0.01, Seed: 1})
	return in
}

// RSSRun is what one measured run of the binary did.
type RSSRun struct {
	Stdout []byte
	// PeakRSS is the process's peak resident memory in bytes.
	PeakRSS int64
	// Wall is the time from start to exit; User is the CPU time in user mode.
	Wall, User time.Duration
}

// Run runs Bin with args and measures it; a run that did not exit by
// itself, or exited 2 (a usage or fatal error), fails the test, named by
// label.
func (b *RSSBench) Run(t *testing.T, label string, args ...string) RSSRun {
	t.Helper()
	cmd := exec.Command(b.Bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if cmd.ProcessState == nil || !cmd.ProcessState.Exited() || cmd.ProcessState.ExitCode() == 2 {
		t.Fatalf("%s: %v\n%.2000s", label, err, stderr.Bytes())
	}
	usage := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return RSSRun{
		Stdout:  stdout.Bytes(),
		PeakRSS: int64(usage.Maxrss) << 10, // KB on Linux
		Wall:    took,
		User:    time.Duration(usage.Utime.Nano()),
	}
}

// Finish logs the table and, with $RLOG_RSS_OUT, writes it to that file.
func (b *RSSBench) Finish(t *testing.T) {
	t.Helper()
	t.Logf("\n%s", b.Table.String())
	if p := os.Getenv("RLOG_RSS_OUT"); p != "" {
		if err := os.WriteFile(p, []byte(b.Table.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
