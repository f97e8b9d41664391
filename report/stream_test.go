package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// reportLogs are the fixture logs, generated sessions (timed, and noisy),
// and logs whose calls, subagents, times and tokens are laid out in the
// unusual ways the data has rules for.
func reportLogs(t *testing.T) map[string][]byte {
	t.Helper()
	logs := map[string][]byte{}
	paths, _ := filepath.Glob("../testdata/logs/*.rlog")
	for _, p := range append(paths, "../testdata/sample.rlog", "../analysis/testdata/stats.rlog", "../analysis/testdata/growing-usage.rlog") {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		logs[filepath.Base(p)] = src
	}
	for i, o := range []gen.Options{{Bytes: 400 << 10, Timed: true, Seed: 2}, {Bytes: 200 << 10, FindingRate: 0.4, Seed: 3},
		{Bytes: 200 << 10, Timed: true, Streamed: true, Seed: 4}} {
		var buf bytes.Buffer
		if err := gen.Write(&buf, o); err != nil {
			t.Fatal(err)
		}
		logs[fmt.Sprintf("generated %d", i)] = buf.Bytes()
	}
	head := "---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\n---\n"
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "a: m%d tokens_in=%d message_id=m%d ts=2025-01-01T00:%02d:%02d.%09dZ\n", i, i%7, i%2900, i/60%60, i%60, i%3)
		if i%500 == 0 {
			fmt.Fprintf(&b, "u: back in time ts=2024-01-01T00:00:00Z\nx:Explore id=x%d → [started] tid=t%d\nt!:Read id=r%d → [running] tid=t%d\n", i, i%3, i, i%3)
		}
		if i%700 == 0 {
			fmt.Fprintf(&b, "o: id=r%d → [ok] tid=t%d latency_ms=40\nx:Explore id=x%d → [done] tid=t%d\n", i/700*700-i%500, i%3, i-i%500, i%3)
		}
	}
	logs["times, tokens, subagents"] = []byte(head + b.String())
	logs["unfinished"] = []byte(head + strings.Repeat("t!:Bash id=c → [running]\nt:Read → [running]\n", 40))
	logs["no header"] = []byte("t!:A id=a → [ok]\nu: x ts=2025-01-01T00:00:00Z\n")
	logs["empty"] = nil
	return logs
}

// streamData makes the data of src read window by window.
func streamData(t *testing.T, r io.Reader, window int, opts Options, sopts analysis.SessionOptions) *Data {
	t.Helper()
	s := grammar.NewStream(r, grammar.StreamOptions{WindowBytes: window})
	st := NewStream(opts, func(*grammar.Tree) analysis.SessionOptions { return sopts })
	sc := analysis.NewStreamChecker(analysis.Config{}, DefaultMaxFindings, func(_ *grammar.Tree, f analysis.Finding) analysis.Finding { return f })
	if err := s.Each(func(w *grammar.Tree) { sc.Window(w); st.Window(w) }); err != nil {
		t.Fatal(err)
	}
	return st.End(sc.End())
}

// TestStreamEqualsBuild: the data of a log read window by window is the
// data Build makes of it read whole, whatever the windows and chunks.
func TestStreamEqualsBuild(t *testing.T) {
	logs := reportLogs(t)
	opts := Options{Name: "x.rlog", Generator: "test", Link: "vscode://file/{path}:{line}", Path: "/tmp/x.rlog"}
	companion := analysis.SessionOptions{Companion: &analysis.ActionCounts{Source: "/tmp/logs/x.jsonl", Messages: 5, ToolCalls: 6,
		Start: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2025, 1, 1, 1, 0, 0, 0, time.UTC)}}
	for _, tiny := range []bool{false, true} {
		if tiny {
			t.Cleanup(grammar.SetChunkLimitsForTest(4, 100))
		}
		for name, src := range logs {
			tree := grammar.Parse(bytes.Clone(src))
			for _, sopts := range []analysis.SessionOptions{{}, companion} {
				findings, more := analysis.NewAnalyzer(tree).FindingsUpTo(analysis.Config{}, DefaultMaxFindings)
				want := Build(tree, analysis.BuildSession(tree, sopts), findings, more, opts)
				if sopts.Companion != nil && want.Summary.APM.Companion != "logs/x.jsonl" {
					t.Fatalf("%s: the companion named %q, not beside the log", name, want.Summary.APM.Companion)
				}
				for _, window := range []int{1, 3000, 0} {
					got := streamData(t, iotest.HalfReader(bytes.NewReader(src)), window, opts, sopts)
					if !reflect.DeepEqual(got, want) {
						g, _ := json.Marshal(got)
						w, _ := json.Marshal(want)
						t.Fatalf("%s, window %d, tiny chunks %v: the streamed data differs\n got  %.3000s\n want %.3000s", name, window, tiny, g, w)
					}
				}
			}
		}
	}
}

// TestWriteJSONIsMarshal: the page's data is written as json.Marshal
// writes it, numbers of every size, nil and empty lists, escaped strings
// and omitted fields included.
func TestWriteJSONIsMarshal(t *testing.T) {
	var all []*Data
	for name, src := range reportLogs(t) {
		d := build(t, string(src))
		d.File = name + " </script> & \u2028"
		all = append(all, d)
	}
	odd := build(t, "u: hi\n")
	odd.Calls = Calls{LatencyMS: []float64{0, 1e-7, -1e-7, 1e21, 123456789.125, 1e20, 5e-324, math.MaxFloat64, math.Copysign(0, -1)}, Tool: []int32{}}
	odd.Times = Times{MS: []float64{1.5, 2.25e-6}, Line: nil}
	odd.Generator, odd.Link = "", ""
	all = append(all, odd, &Data{})
	for i, d := range all {
		want, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		if err := writeJSON(w, d); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		if !bytes.Equal(b.Bytes(), want) {
			t.Fatalf("data %d (%s):\n got  %.2000s\n want %.2000s", i, d.File, b.Bytes(), want)
		}
	}
	var b bytes.Buffer
	if err := writeJSON(bufio.NewWriter(&b), &Data{Times: Times{MS: []float64{math.NaN()}}}); err == nil {
		t.Error("NaN written")
	}
}

// timesAsBefore is how Data.Times was made from the whole list of timed
// lines: the rule timeAnchors keeps while reading them in order.
func timesAsBefore(t *grammar.Tree, start time.Time) Times {
	out := Times{Line: []int32{}, MS: []float64{}}
	latest := math.Inf(-1)
	for _, lt := range analysis.LineTimes(t) {
		v := Millis(lt.Time.Sub(start))
		latest = max(latest, v)
		n := len(out.MS)
		if n >= 2 && out.MS[n-1] == latest && out.MS[n-2] == latest {
			out.Line[n-1] = int32(lt.Line + 1)
			continue
		}
		out.Line = append(out.Line, int32(lt.Line+1))
		out.MS = append(out.MS, latest)
	}
	return out
}

// Times made while the lines are read, before the start is known, are
// those of the whole list: runs of one instant, of instants less than a
// microsecond apart (one value), times that go back, odd years.
func TestTimeAnchorsKeepTheRule(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 2))
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for round := range 200 {
		var b strings.Builder
		at := base
		for range r.IntN(60) {
			switch r.IntN(6) {
			case 0:
				at = at.Add(time.Duration(r.IntN(2000)) * time.Nanosecond)
			case 1:
				at = at.Add(-time.Duration(r.IntN(5)) * time.Second)
			case 2:
				at = at.Add(time.Duration(r.IntN(3)) * time.Second)
			}
			ts := at.Format(time.RFC3339Nano)
			if round%10 == 0 {
				ts = at.AddDate(-2000, 0, 0).Format(time.RFC3339Nano)
			}
			fmt.Fprintf(&b, "u: x ts=%s\n", ts)
			if r.IntN(4) == 0 {
				b.WriteString("u: untimed\n")
			}
		}
		tree := grammar.Parse([]byte(b.String()))
		for _, start := range []time.Time{base, base.Add(317 * time.Nanosecond), base.AddDate(-2000, 0, 0)} {
			var ta timeAnchors
			for _, lt := range analysis.LineTimes(tree) {
				ta.add(lt.Line, lt.Time)
			}
			if got, want := ta.times(start), timesAsBefore(tree, start); !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d, start %v:\n got  %v\n want %v\n%s", round, start, got, want, b.String())
			}
		}
	}
}

// The token points: all of them up to maxTokenPoints messages, never more
// than that, every stride-th message's, and the last.
func TestTokenPoints(t *testing.T) {
	for _, n := range []int{0, 1, maxTokenPoints - 1, maxTokenPoints, maxTokenPoints + 1, 2*maxTokenPoints + 1, 5*maxTokenPoints + 3, 64 * maxTokenPoints} {
		var tp tokenPoints
		for i := 1; i <= n; i++ {
			tp.add(i, uint64(i), 0, 0)
		}
		s := tp.series()
		switch {
		case n <= maxTokenPoints && len(s.Line) != n,
			len(s.Line) > maxTokenPoints,
			n > maxTokenPoints && len(s.Line) < maxTokenPoints/2,
			n > 0 && s.Line[len(s.Line)-1] != n:
			t.Fatalf("%d messages: %d points, the last after %v", n, len(s.Line), s.Line[max(len(s.Line)-1, 0):])
		}
		for i := 0; i+1 < len(s.Line); i++ {
			if s.Line[i]%tp.stride != 0 || i > 0 && s.Line[i]-s.Line[i-1] != tp.stride {
				t.Fatalf("%d messages: point %d after message %d, stride %d", n, i, s.Line[i], tp.stride)
			}
		}
	}
}
