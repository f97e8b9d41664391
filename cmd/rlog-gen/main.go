// Command rlog-gen writes a realistic rlog/1 session of a given size, for
// benchmarks, load tests and trying rlog-ls on large logs:
//
//	rlog-gen -size 100MB -findings 0.01 -o big.rlog
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/rlog-ls/rlog-ls/internal/gen"
)

func main() {
	size := flag.String("size", "1MB", "approximate size: a number of bytes, or with KB, MB or GB")
	findings := flag.Float64("findings", 0.01, "fraction of lines written to have findings (0 to 1)")
	seed := flag.Uint64("seed", 1, "seed; the same seed and size give the same file")
	out := flag.String("o", "-", "output file, or - for stdout")
	flag.Parse()
	n, err := parseSize(*size)
	if err != nil || *findings < 0 || *findings > 1 {
		fmt.Fprintf(os.Stderr, "rlog-gen: bad -size %q or -findings %v\n", *size, *findings)
		os.Exit(2)
	}
	var w io.Writer = os.Stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "rlog-gen:", err)
			os.Exit(2)
		}
		defer f.Close()
		w = f
	}
	if err := gen.Write(w, gen.Options{Bytes: n, FindingRate: *findings, Seed: *seed}); err != nil {
		fmt.Fprintln(os.Stderr, "rlog-gen:", err)
		os.Exit(1)
	}
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
