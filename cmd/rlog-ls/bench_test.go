package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/internal/benchdata"
	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// BenchmarkCheckFolder checks a folder of 1,000 logs the way `rlog-ls check
// DIR` does, and reports how busy it kept the cores: CPU time over wall
// time times GOMAXPROCS (1 means every core busy all the time).
func BenchmarkCheckFolder(b *testing.B) {
	dir := b.TempDir()
	var total int64
	for i := range 1000 {
		var buf bytes.Buffer
		if err := gen.Write(&buf, gen.Options{Bytes: 8<<10 + int64(i%64)<<10, FindingRate: 0.01, Seed: uint64(i)}); err != nil {
			b.Fatal(err)
		}
		total += int64(buf.Len())
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%04d.rlog", i)), buf.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	paths, _ := collect("check", []string{dir}, os.Stderr)
	b.SetBytes(total)
	b.ResetTimer()
	cpu0, wall0 := cpuTime(), time.Now()
	for range b.N {
		for _, r := range checkAll(paths, analysis.Config{}, func(p string) (io.ReadCloser, error) { return os.Open(p) }) {
			if r.err != nil {
				b.Fatal(r.err)
			}
		}
	}
	b.StopTimer()
	busy := float64(cpuTime()-cpu0) / float64(time.Since(wall0)) / float64(runtime.GOMAXPROCS(0))
	b.ReportMetric(busy, "cores-busy")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkReport is `rlog-ls report FILE -o OUT --force` on logs whose
// calls are timed, from reading the log to the page written.
func BenchmarkReport(b *testing.B) {
	for _, size := range benchdata.Sizes() {
		b.Run(benchdata.Name(size), func(b *testing.B) {
			dir := b.TempDir()
			in := filepath.Join(dir, "session.rlog")
			if err := os.WriteFile(in, benchdata.TimedSession(b, size), 0o644); err != nil {
				b.Fatal(err)
			}
			out := filepath.Join(dir, "session.report.html")
			b.SetBytes(size)
			b.ResetTimer()
			for range b.N {
				var stderr bytes.Buffer
				if code := run([]string{"report", in, "-o", out, "--force"}, nil, io.Discard, &stderr); code != 0 {
					b.Fatalf("exit %d: %s", code, stderr.String())
				}
			}
			b.StopTimer()
			if fi, err := os.Stat(out); err == nil {
				b.ReportMetric(float64(fi.Size())/float64(size), "page/log")
			}
		})
	}
}
