// Package benchdata gives benchmarks generated sessions, cached per size
// within a process, and the floor they are measured against: splitting the
// same bytes into lines with bytes.IndexByte.
package benchdata

import (
	"bytes"
	"flag"
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
