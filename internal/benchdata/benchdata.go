// Package benchdata gives benchmarks generated sessions, cached per size
// within a process, and the floor they are measured against: splitting the
// same bytes into lines with bytes.IndexByte.
package benchdata

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// Huge enables the 1 GB benchmarks (go test -bench . -args -rlog.huge).
var Huge = flag.Bool("rlog.huge", false, "also run the 1 GB benchmarks")

// Sizes are the document sizes the benchmarks cover.
func Sizes() []int64 {
	s := []int64{1 << 20, 10 << 20, 100 << 20}
	if *Huge {
		s = append(s, 1<<30)
	}
	return s
}

// Name is a size as a benchmark name: 1MB, 100MB, 1GB.
func Name(n int64) string {
	switch {
	case n >= 1<<30:
		return itoa(n>>30) + "GB"
	case n >= 1<<20:
		return itoa(n>>20) + "MB"
	}
	return itoa(n>>10) + "KB"
}

func itoa(n int64) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

var (
	mu    sync.Mutex
	cache = map[sessionKey][]byte{}
)

type sessionKey struct {
	n     int64
	timed bool
}

// Session returns a generated session of about n bytes with 1% finding
// lines. The slice is shared: do not modify it.
func Session(b testing.TB, n int64) []byte { return session(b, n, false) }

// TimedSession is Session with a ts= on every tool call's start and
// result, as converted Claude Code sessions have (gen.Options.Timed): what
// the latency hints and the session view's timeline need.
func TimedSession(b testing.TB, n int64) []byte { return session(b, n, true) }

func session(b testing.TB, n int64, timed bool) []byte {
	b.Helper()
	mu.Lock()
	defer mu.Unlock()
	key := sessionKey{n, timed}
	if src, ok := cache[key]; ok {
		return src
	}
	var buf bytes.Buffer
	buf.Grow(int(n) + 4096)
	if err := gen.Write(&buf, gen.Options{Bytes: n, FindingRate: 0.01, Seed: 1, Timed: timed}); err != nil {
		b.Fatal(err)
	}
	cache[key] = buf.Bytes()
	return cache[key]
}

// Floor measures, in this run, how long the fastest reasonable pass over src
// takes: finding every line with bytes.IndexByte. It is the best of a few
// runs, so load on the machine inflates it as little as possible.
func Floor(src []byte) time.Duration {
	best := time.Duration(1<<63 - 1)
	for range 5 {
		start := time.Now()
		for b := src; len(b) > 0; {
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				break
			}
			b = b[i+1:]
		}
		if d := time.Since(start); d < best {
			best = d
		}
	}
	return best
}

// ReportVsFloor reports the time per operation as a multiple of the floor.
func ReportVsFloor(b *testing.B, floor time.Duration) {
	per := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(per)/float64(floor), "x-floor")
}

// MeasureRead is a reader's benchmark: read reads in whole, again and
// again, measured in MB/s of in and in x-floor against Floor(in).
func MeasureRead(b *testing.B, in []byte, read func(io.Reader) error) {
	floor := Floor(in)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if err := read(bytes.NewReader(in)); err != nil {
			b.Fatal(err)
		}
	}
	ReportVsFloor(b, floor)
}

// ParseSize reads a size as the benchmarks' flags and variables write it:
// a number of bytes, or with KB, MB or GB (1024-based).
func ParseSize(s string) (int64, error) {
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

// Human writes a number of bytes as the memory benchmarks' tables do:
// 1.53 GB, 48 MB, 887 KB.
func Human(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KB", n>>10)
}

// WriteSession writes a session generated with o to the file at path,
// unless the file exists (the memory benchmarks keep their logs in
// $RLOG_RSS_DIR between runs). It streams: a session of any size costs
// no memory.
func WriteSession(t testing.TB, path string, o gen.Options) {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := gen.Write(w, o); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// RSSBinary is the rlog-ls the memory benchmarks measure: $RLOG_RSS_BIN
// (a binary built already), or one built from this tree into dir.
func RSSBinary(t testing.TB, dir string) string {
	t.Helper()
	if bin := os.Getenv("RLOG_RSS_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(dir, "rlog-ls")
	build := exec.Command("go", "build", "-o", bin, "github.com/rlog-ls/rlog-ls/cmd/rlog-ls")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building rlog-ls: %v\n%s", err, out)
	}
	return bin
}
