package convert_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/internal/benchdata"
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
	bench := benchdata.StartRSS(t, "10MB,100MB,1GB", "| input | conversion | output | peak RSS | time |\n| --- | --- | --- | --- | --- |\n")
	var targets []convert.Format
	for _, f := range convert.Formats() {
		if f.CanWrite() {
			targets = append(targets, f.Name)
		}
	}
	for _, size := range bench.Sizes {
		in := bench.Log(t, size)
		for _, to := range targets {
			out := filepath.Join(bench.Dir, "out-"+size+"."+string(to))
			back := filepath.Join(bench.Dir, "back-"+size+".rlog")
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
				m := bench.Run(t, run.name+" ("+size+")", "convert", "--from", string(run.from), "--to", string(run.to), "--force", "-o", run.dst, run.src)
				info, _ := os.Stat(run.dst)
				fmt.Fprintf(&bench.Table, "| %s | %s | %s | %s | %.1f s |\n", size, run.name, benchdata.Human(info.Size()), benchdata.Human(m.PeakRSS), m.Wall.Seconds())
				if m.PeakRSS > maxRSS {
					t.Errorf("%s on %s: peak RSS %s, over %s", run.name, size, benchdata.Human(m.PeakRSS), benchdata.Human(maxRSS))
				}
			}
			os.Remove(out)
		}
	}
	bench.Finish(t)
}
