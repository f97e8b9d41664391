package convert_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/internal/benchdata"
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
	bin := benchdata.RSSBinary(t, dir)
	var targets []convert.Format
	for _, f := range convert.Formats() {
		if f.CanWrite() {
			targets = append(targets, f.Name)
		}
	}
	var table strings.Builder
	table.WriteString("| input | conversion | output | peak RSS | time |\n| --- | --- | --- | --- | --- |\n")
	for _, size := range strings.Split(spec, ",") {
		n, err := benchdata.ParseSize(size)
		if err != nil {
			t.Fatal(err)
		}
		in := filepath.Join(dir, "gen-"+size+".rlog")
		benchdata.WriteSession(t, in, gen.Options{Bytes: n, FindingRate: 0.01, Seed: 1})
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
				fmt.Fprintf(&table, "| %s | %s | %s | %s | %.1f s |\n", size, run.name, benchdata.Human(info.Size()), benchdata.Human(rss), took.Seconds())
				if rss > maxRSS {
					t.Errorf("%s on %s: peak RSS %s, over %s", run.name, size, benchdata.Human(rss), benchdata.Human(maxRSS))
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
