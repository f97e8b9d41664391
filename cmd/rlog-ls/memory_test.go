package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/internal/benchdata"
	"github.com/rlog-ls/rlog-ls/internal/gen"
	"github.com/rlog-ls/rlog-ls/report"
)

// sampledWriter samples the heap every 256 KB written.
type sampledWriter struct {
	h       *benchdata.HeapPeak
	n, next int64
}

func (w *sampledWriter) Write(b []byte) (int, error) {
	w.n += int64(len(b))
	if w.n >= w.next {
		w.h.Sample()
		w.next = w.n + 256<<10
	}
	return len(b), nil
}

// TestStreamingPeakHeapStaysConstant: checking a log of N bytes and one
// of 4N, their statistics and their reports, peak at the same live heap
// give or take a constant and what must grow: check and stats hold a few
// windows and the call ids (about 45 bytes each, 25,000 in 12 MB), stats
// the message ids the usage rule has counted too (the logs give every
// response one, 6,600 in 12 MB);
// report holds the page's data, and grows no faster than twice the page
// it writes. Holding the 9 MB more of text in any form would exceed
// either. It measures memory, not time.
func TestStreamingPeakHeapStaysConstant(t *testing.T) {
	logs := benchdata.StartHeapTest(t, "checks, counts and reports 15 MB of logs", gen.Options{FindingRate: 0.01, Seed: 7, Timed: true, Streamed: true})
	// Windows of 256 KB: both logs are many windows, more than are ever
	// in flight.
	defer func(w int) { windowBytes = w }(windowBytes)
	windowBytes = 256 << 10
	open := func(p string) (io.ReadCloser, error) { return os.Open(p) }
	var h benchdata.HeapPeak
	defer func() { afterWindow = nil }()
	afterWindow = h.Sample
	measure := func(do func(path string) int64) (peaks, pages [2]uint64) {
		for i, p := range logs {
			h.Reset()
			pages[i] = uint64(do(p))
			h.Sample()
			peaks[i] = h.Peak
		}
		return peaks, pages
	}
	mb := func(n uint64) float64 { return float64(n) / (1 << 20) }
	for _, c := range []struct {
		name string
		do   func(path string) int64
	}{
		{"check", func(p string) int64 {
			if r := checkFile(p, analysis.Config{}, open); r.err != nil {
				t.Fatal(r.err)
			}
			return 0
		}},
		{"stats", func(p string) int64 {
			if r := sessionStats(p, open); r.err != nil {
				t.Fatal(r.err)
			}
			return 0
		}},
	} {
		peaks, _ := measure(c.do)
		benchdata.CheckHeapStaysConstant(t, c.name, peaks)
	}
	peaks, pages := measure(func(p string) int64 {
		_, in, closer, err := openInput(p, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		defer closer.Close()
		d, err := readReport(in, analysis.Config{}, report.Options{Name: filepath.Base(p)})
		if err != nil {
			t.Fatal(err)
		}
		w := &sampledWriter{h: &h}
		if err := report.WriteHTML(w, d, "n0nce"); err != nil {
			t.Fatal(err)
		}
		return w.n
	})
	if grown, allowed := int64(peaks[1])-int64(peaks[0]), 2*int64(pages[1]-pages[0])+2<<20; grown > allowed {
		t.Errorf("report: peak heap %.1f MB for %d MB (a %.1f MB page), %.1f MB for %d MB (a %.1f MB page): it grows faster than twice the page",
			mb(peaks[0]), benchdata.HeapSizes[0]>>20, mb(pages[0]), mb(peaks[1]), benchdata.HeapSizes[1]>>20, mb(pages[1]))
	} else {
		t.Logf("report: peak heap %.1f MB, %.1f MB; pages %.1f MB, %.1f MB", mb(peaks[0]), mb(peaks[1]), mb(pages[0]), mb(pages[1]))
	}
}

// TestStreamingPeakRSS is the memory benchmark of check, stats and report
// in docs/performance.md: it builds rlog-ls, generates logs of the sizes in
// $RLOG_RSS_SIZES (e.g. "10MB,200MB,1GB"; the test is skipped without it),
// runs each command on each with the real binary ($RLOG_RSS_BIN, or one
// built from this tree), and reads the process's peak RSS from the kernel.
// $RLOG_RSS_DIR keeps the generated logs. check and stats must stay under
// 150 MB plus 64 bytes a call id past the 420,000 of a 200 MB log (what
// grows with a log is its set of call ids), report under twice its page
// plus 40 MB (the program, its windows, and the call ids its first
// reading holds: what makes it more than twice a page under 1 GB). The
// table goes to the test log and, with $RLOG_RSS_OUT, to that file.
func TestStreamingPeakRSS(t *testing.T) {
	bench := benchdata.StartRSS(t, "10MB,200MB,1GB", "| input | call ids | command | output | peak RSS | time (user) |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, size := range bench.Sizes {
		in := bench.Log(t, size)
		page := filepath.Join(bench.Dir, "gen-"+size+".report.html")
		ids := 0
		for _, args := range [][]string{{"stats", "--format", "json", in}, {"check", in}, {"report", "--force", "-o", page, in}} {
			m := bench.Run(t, args[0]+" ("+size+")", args...)
			rss := m.PeakRSS
			output, limit := "", int64(0)
			switch args[0] {
			case "stats":
				var doc statsDoc
				if err := json.Unmarshal(m.Stdout, &doc); err != nil || len(doc.Sessions) != 1 {
					t.Fatalf("stats: %v", err)
				}
				ids = doc.Sessions[0].Counters.UniqueCallIDs
			case "report":
				info, err := os.Stat(page)
				if err != nil {
					t.Fatal(err)
				}
				output, limit = "page "+benchdata.Human(info.Size()), 2*info.Size()+40<<20
			}
			if args[0] != "report" {
				// A 200 MB log has about 420,000 call ids.
				limit = 150<<20 + 64*int64(max(ids-420_000, 0))
			}
			fmt.Fprintf(&bench.Table, "| %s | %d | %s | %s | %s | %.1f s (%.1f s) |\n", size, ids, args[0], output, benchdata.Human(rss), m.Wall.Seconds(),
				m.User.Seconds())
			if ids > 0 && rss > limit {
				t.Errorf("%s on %s: peak RSS %s, over %s", args[0], size, benchdata.Human(rss), benchdata.Human(limit))
			}
		}
	}
	bench.Finish(t)
}
