package convert_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// maxRSS is the peak resident memory a conversion may take at any size.
const maxRSS = 200 << 20

// TestConvertPeakRSS is the memory benchmark of docs/performance.md: it
// builds rlog-ls, generates rlog logs of the sizes in $RLOG_RSS_SIZES
// (e.g. "10MB,100MB,1GB"; the test is skipped without it), converts each
// to every format and each output back to rlog with the real binary
// ($RLOG_RSS_BIN, or one built from this tree), and reads the process's
// peak RSS from the kernel. $RLOG_RSS_DIR keeps the generated logs. Every conversion must stay
// under 200 MB. The table goes to the test log and, with
// $RLOG_RSS_OUT, to that file.
func TestConvertPeakRSS(t *testing.T) {
	spec := os.Getenv("RLOG_RSS_SIZES")
	if spec == "" {
		t.Skip("set RLOG_RSS_SIZES=10MB,100MB,1GB to run the memory benchmark")
	}
	dir := os.Getenv("RLOG_RSS_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	bin := os.Getenv("RLOG_RSS_BIN") // a binary built already
	if bin == "" {
		bin = filepath.Join(dir, "rlog-ls")
		build := exec.Command("go", "build", "-o", bin, "github.com/rlog-ls/rlog-ls/cmd/rlog-ls")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("building rlog-ls: %v\n%s", err, out)
		}
	}
	var targets []convert.Format
	for _, f := range convert.Formats() {
		if f.CanWrite() {
			targets = append(targets, f.Name)
		}
	}
	var table strings.Builder
	table.WriteString("| input | conversion | output | peak RSS | time |\n| --- | --- | --- | --- | --- |\n")
	for _, size := range strings.Split(spec, ",") {
		n, err := parseSize(size)
		if err != nil {
			t.Fatal(err)
		}
		in := filepath.Join(dir, "gen-"+size+".rlog")
		if _, err := os.Stat(in); err != nil {
			f, err := os.Create(in)
			if err != nil {
				t.Fatal(err)
			}
			if err := gen.Write(f, gen.Options{Bytes: n, FindingRate: 0.01, Seed: 1}); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
		for _, to := range targets {
			out := filepath.Join(dir, "out-"+size+"."+string(to))
			back := filepath.Join(dir, "back-"+size+".rlog")
			for _, run := range []struct {
				name     string
				src, dst string
				from, to convert.Format
			}{
				{"rlog -> " + string(to), in, out, convert.Rlog, to},
				{string(to) + " -> rlog", out, back, to, convert.Rlog},
			} {
				if run.from == run.to && run.src == out {
					continue // rlog -> rlog once
				}
				os.Remove(run.dst)
				cmd := exec.Command(bin, "convert", "--from", string(run.from), "--to", string(run.to), "--force", "-o", run.dst, run.src)
				start := time.Now()
				outText, err := cmd.CombinedOutput()
				took := time.Since(start)
				if cmd.ProcessState == nil || !cmd.ProcessState.Exited() || cmd.ProcessState.ExitCode() == 2 {
					t.Fatalf("%s (%s): %v\n%.2000s", run.name, size, err, outText)
				}
				rss := int64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) << 10 // KB on Linux
				info, _ := os.Stat(run.dst)
				fmt.Fprintf(&table, "| %s | %s | %s | %s | %.1f s |\n", size, run.name, human(info.Size()), human(rss), took.Seconds())
				if rss > maxRSS {
					t.Errorf("%s on %s: peak RSS %s, over %s", run.name, size, human(rss), human(maxRSS))
				}
			}
			os.Remove(out)
		}
	}
	t.Logf("\n%s", table.String())
	if p := os.Getenv("RLOG_RSS_OUT"); p != "" {
		if err := os.WriteFile(p, []byte(table.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func parseSize(s string) (int64, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, x := range []struct {
		suffix string
		m      int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}} {
		if strings.HasSuffix(u, x.suffix) {
			u, mult = strings.TrimSuffix(u, x.suffix), x.m
			break
		}
	}
	n, err := strconv.ParseInt(u, 10, 64)
	return n * mult, err
}

func human(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KB", n>>10)
}
