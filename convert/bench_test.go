package convert_test

import (
	"bufio"
	"bytes"
	"flag"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/benchdata"
	"github.com/rlog-ls/rlog-ls/internal/corpus"
)

// benchInputs is the largest corpus file of each readable format.
var benchInputs = []struct {
	from convert.Format
	file string
}{
	{convert.Claude, "claude-code-jsonl/openagents/claude-code-example.jsonl"},
	{convert.SDKJSONL, "autopilot-sdk-jsonl/openagents-docs-logs/20251223/082302-call-issue-ready-now-to.jsonl"},
	{convert.Trajectory, "autopilot-trajectory-json/openagents-docs-logs/20251220/020941-start-working.json"},
	{convert.ATIF, "atif/harbor-trajectories/Hermes-70B-t-bench-ext/et-3794839e__CFGFY8g/trajectory.json"},
	{convert.ATIFJSONL, "atif-jsonl/openagents/20251205/session-2025-12-05T07-45-57-649Z-x8251x.atif.jsonl"},
	{convert.Rlog, "rlog/openagents-docs-logs/20251220/103818-call-issue-ready-now-to.rlog"},
	{convert.MiniSWE, "mini-swe-agent/harbor-trajectories/2026-02-09__12-22-47/107_jawah__charset_normalizer__s__eQqxHiY/mini-swe-agent.trajectory.json"},
}

// nullSink keeps nothing but does not say so (model.Borrower): readers
// allocate for it as for a sink that keeps every event.
type nullSink struct{}

func (nullSink) Event(*model.Header, *model.Event) error { return nil }
func (nullSink) End(*model.Header) error                 { return nil }

// borrowingSink keeps nothing and says so: readers may reuse their events,
// as they do for the CLI's streaming sinks that borrow them.
type borrowingSink struct{ nullSink }

func (borrowingSink) BorrowsEvents() bool { return true }

// BenchmarkRead measures each reader alone (events go to a sink that keeps
// nothing) on the largest corpus file of its format, in MB/s of input. It
// covers the readers without a writer (SDK JSONL, mini-swe-agent), which
// BenchmarkReader cannot make input for.
func BenchmarkRead(b *testing.B) {
	for _, in := range benchInputs {
		b.Run(string(in.from), func(b *testing.B) {
			data, err := os.ReadFile(corpus.Path(b, in.file))
			if err != nil {
				b.Fatal(err)
			}
			fi, _ := convert.Lookup(in.from)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := fi.Read(bytes.NewReader(data), nullSink{}, &model.Report{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// REPLAY and prophet have no corpus file: read what their writers make.
	for _, to := range []convert.Format{convert.Replay, convert.Prophet} {
		b.Run(string(to), func(b *testing.B) {
			src := readOne(b, corpus.Path(b, benchInputs[0].file), benchInputs[0].from)
			var out bytes.Buffer
			if _, err := convert.Write(&out, src, to, convert.Options{}); err != nil {
				b.Fatal(err)
			}
			fi, _ := convert.Lookup(to)
			b.SetBytes(int64(out.Len()))
			for b.Loop() {
				if err := fi.Read(bytes.NewReader(out.Bytes()), nullSink{}, &model.Report{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// readOne reads the file at path alone (without what lies beside it) as
// format from.
func readOne(tb testing.TB, path string, from convert.Format) *convert.Session {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	s, _, err := convert.Read(f, from)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// The conversion benchmarks of docs/performance.md run on generated
// sessions (internal/gen, as `rlog-gen` writes them) of these sizes, and
// state each figure against a floor measured in the same run on the same
// bytes, as x-floor: a ratio is comparable across machines, MB/s is not.
// (-convert.sizes=2MB measures a smaller one, as an instruction count
// under valgrind wants.)
var convertSizes = flag.String("convert.sizes", "10MB,100MB", "sizes of the generated sessions the conversion benchmarks use")

// benchSizes parses -convert.sizes.
func benchSizes(b *testing.B) []int64 {
	var out []int64
	for _, s := range strings.Split(*convertSizes, ",") {
		n, err := benchdata.ParseSize(s)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// writerBuffer is the bufio size every writer writes through, and so the
// writers' floor's.
const writerBuffer = 64 << 10

// countingDiscard counts what a writer writes and keeps none of it.
type countingDiscard struct{ n int64 }

func (c *countingDiscard) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

var (
	sessionsMu sync.Mutex
	sessions   = map[int64]*convert.Session{}
)

// generatedSession is the generated session of size read into memory once,
// for the writer benchmarks (which then measure the writer alone).
func generatedSession(b *testing.B, size int64) *convert.Session {
	sessionsMu.Lock()
	defer sessionsMu.Unlock()
	if s, ok := sessions[size]; ok {
		return s
	}
	clear(sessions) // one size at a time: 100 MB of events is large
	s, _, err := convert.Read(bytes.NewReader(benchdata.TimedSession(b, size)), convert.Rlog)
	if err != nil {
		b.Fatal(err)
	}
	sessions[size] = s
	return s
}

// writeFloor is the writers' floor: copying n bytes to io.Discard through
// a bufio.Writer of the writers' size, in pieces of the size each event
// writes on average (per events). It is the best of a few runs.
func writeFloor(n int64, events int) time.Duration {
	piece := make([]byte, max(1, n/int64(max(events, 1))))
	best := time.Duration(1<<63 - 1)
	for range 5 {
		start := time.Now()
		w := bufio.NewWriterSize(io.Discard, writerBuffer)
		for left := n; left > 0; left -= int64(len(piece)) {
			w.Write(piece[:min(int64(len(piece)), left)])
		}
		w.Flush()
		if d := time.Since(start); d < best {
			best = d
		}
	}
	return best
}

// writable lists the formats with a writer.
func writable() []convert.Format {
	var out []convert.Format
	for _, f := range convert.Formats() {
		if f.CanWrite() {
			out = append(out, f.Name)
		}
	}
	return out
}

// BenchmarkReader measures each reader that has a writer on a generated
// session written in its format (rlog as generated, the others as the
// rlog writer's conversion makes them), events going to a sink that keeps
// nothing: MB/s of input, and x-floor against splitting the same input
// into lines with bytes.IndexByte.
func BenchmarkReader(b *testing.B) { benchmarkReader(b, nullSink{}) }

// BenchmarkReaderBorrowed is BenchmarkReader into a sink that borrows
// events (model.Borrower), as `convert --to trajectory` and `--to replay`,
// `search`, `compare` and `export` read: the readers that can reuse their
// events do.
func BenchmarkReaderBorrowed(b *testing.B) { benchmarkReader(b, borrowingSink{}) }

func benchmarkReader(b *testing.B, sink model.Sink) {
	for _, f := range writable() {
		for _, size := range benchSizes(b) {
			b.Run(string(f)+"/"+benchdata.Name(size), func(b *testing.B) {
				src := benchdata.TimedSession(b, size)
				in := src
				if f != convert.Rlog {
					var out bytes.Buffer
					if _, err := convert.Convert(bytes.NewReader(src), convert.Rlog, f, &out, convert.Options{}); err != nil {
						b.Fatal(err)
					}
					in = out.Bytes()
				}
				fi, _ := convert.Lookup(f)
				benchdata.MeasureRead(b, in, func(r io.Reader) error { return fi.Read(r, sink, &model.Report{}) })
			})
		}
	}
}

// BenchmarkWriter measures each writer alone: a generated session, read
// into memory before the clock starts, written event by event to a writer
// that discards. MB/s is of the rlog session the events were read from (so
// that writers of wordier formats are held to the same bar: a 100 MB
// session written in 0.5 s is 200 MB/s whatever the output's size);
// out-MB/s is of the output. x-floor is against copying as many bytes as
// the output has through a bufio.Writer of the writers' size (writeFloor).
func BenchmarkWriter(b *testing.B) {
	for _, f := range writable() {
		for _, size := range benchSizes(b) {
			b.Run(string(f)+"/"+benchdata.Name(size), func(b *testing.B) {
				in := int64(len(benchdata.TimedSession(b, size)))
				s := generatedSession(b, size)
				var out countingDiscard
				if _, err := convert.Write(&out, s, f, convert.Options{}); err != nil {
					b.Fatal(err)
				}
				floor := writeFloor(out.n, len(s.Events))
				b.SetBytes(in)
				for b.Loop() {
					if _, err := convert.Write(&countingDiscard{}, s, f, convert.Options{}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(out.n)*float64(b.N)/1e6/b.Elapsed().Seconds(), "out-MB/s")
				benchdata.ReportVsFloor(b, floor)
			})
		}
	}
}

// BenchmarkConvert measures what a user of `rlog-ls convert` waits for:
// a generated rlog session converted to each format, reader and writer
// streaming together. MB/s of the rlog input (out-MB/s is the output's),
// and x-floor against splitting the input into lines.
func BenchmarkConvert(b *testing.B) {
	for _, f := range writable() {
		for _, size := range benchSizes(b) {
			b.Run("rlog-"+string(f)+"/"+benchdata.Name(size), func(b *testing.B) {
				src := benchdata.TimedSession(b, size)
				floor := benchdata.Floor(src)
				var out countingDiscard
				b.SetBytes(int64(len(src)))
				for b.Loop() {
					out.n = 0
					if _, err := convert.Convert(bytes.NewReader(src), convert.Rlog, f, &out, convert.Options{}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(out.n)*float64(b.N)/1e6/b.Elapsed().Seconds(), "out-MB/s")
				benchdata.ReportVsFloor(b, floor)
			})
		}
	}
}
