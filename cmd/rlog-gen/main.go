// Command rlog-gen writes a realistic rlog/1 session of a given size, for
// benchmarks, load tests and trying rlog-ls on large logs:
//
//	rlog-gen -size 100MB -findings 0.01 -o big.rlog
//	rlog-gen -companion -size 100MB -o big.rlog   # and big.jsonl beside it
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/rlog-ls/rlog-ls/internal/gen"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `Usage: rlog-gen [-size SIZE] [-findings FRACTION] [-seed N] [-timed] [-streamed] [-o FILE]
       rlog-gen -companion [-size SIZE] [-seed N] -o FILE.rlog

Write a realistic rlog/1 session of about SIZE bytes, for benchmarks, load
tests and trying rlog-ls on large logs. The same seed and size give the same
file. With -companion, write an autopilot session instead: the log, cut
short as the autopilot writes it, to FILE.rlog, and its companion (the full
record, about SIZE bytes of Agent SDK messages) to FILE.jsonl beside it,
which must not exist yet.

Flags:
`

// run is main without the process: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	// The flag set is named, so messages say rlog-gen, not the path of a
	// temporary binary that go run built.
	fl := flag.NewFlagSet("rlog-gen", flag.ContinueOnError)
	fl.SetOutput(stderr)
	size := fl.String("size", "1MB", "approximate `size`: a number of bytes, or with KB, MB or GB")
	findings := fl.Float64("findings", 0.01, "`fraction` of lines written to have findings (0 to 1)")
	seed := fl.Uint64("seed", 1, "`seed`; the same seed and size give the same file")
	timed := fl.Bool("timed", false, "write a ts= on every tool call's start and result, as converted sessions have")
	streamed := fl.Bool("streamed", false, "give each response a message_id=, its first line a streaming snapshot of its usage, as older Claude Code wrote")
	out := fl.String("o", "-", "output `file`, or - for stdout")
	pair := fl.Bool("companion", false, "write an autopilot log and its companion FILE.jsonl (needs -o)")
	fl.Usage = func() {} // the flag package's error line is enough; help is asked for
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			fl.SetOutput(stdout)
			fl.PrintDefaults()
			return 0
		}
		fmt.Fprintln(stderr, "rlog-gen -h for help")
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "rlog-gen: unexpected argument %q (rlog-gen -h for help)\n", fl.Arg(0))
		return 2
	}
	n, err := parseSize(*size)
	if err != nil || *findings < 0 || *findings > 1 {
		fmt.Fprintf(stderr, "rlog-gen: bad -size %q or -findings %v\n", *size, *findings)
		return 2
	}
	if *pair {
		return writePair(*out, n, *seed, stderr)
	}
	var w io.Writer = stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(stderr, "rlog-gen:", err)
			return 2
		}
		defer f.Close()
		w = f
	}
	if err := gen.Write(w, gen.Options{Bytes: n, FindingRate: *findings, Seed: *seed, Timed: *timed, Streamed: *streamed}); err != nil {
		fmt.Fprintln(stderr, "rlog-gen:", err)
		return 1
	}
	return 0
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	u := strings.ToUpper(strings.TrimSpace(s))
	for suffix, m := range map[string]int64{"KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30} {
		if strings.HasSuffix(u, suffix) {
			u, mult = strings.TrimSuffix(u, suffix), m
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(u), 10, 64)
	return n * mult, err
}

// writePair writes an autopilot log to out and its companion beside it.
// The companion's name is derived, not given: it is never written over an
// existing file.
func writePair(out string, size int64, seed uint64, stderr io.Writer) int {
	if out == "-" || !strings.HasSuffix(out, ".rlog") {
		fmt.Fprintln(stderr, "rlog-gen: -companion needs -o FILE.rlog (the companion is FILE.jsonl)")
		return 2
	}
	record := strings.TrimSuffix(out, ".rlog") + ".jsonl"
	rf, err := os.OpenFile(record, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		fmt.Fprintln(stderr, "rlog-gen:", err)
		return 2
	}
	defer rf.Close()
	lf, err := os.Create(out)
	if err != nil {
		fmt.Fprintln(stderr, "rlog-gen:", err)
		return 2
	}
	defer lf.Close()
	if err := gen.WritePair(lf, rf, size, seed); err != nil {
		fmt.Fprintln(stderr, "rlog-gen:", err)
		return 1
	}
	return 0
}
