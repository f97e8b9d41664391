package analysis

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"testing"
	"testing/iotest"
	"time"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// streamSession builds the statistics of src window by window.
func streamSession(t testing.TB, r io.Reader, opts grammar.StreamOptions, sopts SessionOptions) *Session {
	t.Helper()
	s := grammar.NewStream(r, opts)
	ss := NewSessionStream(sopts)
	for {
		w, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ss.Window(w)
	}
	return ss.End()
}

// assertSameSession compares a streamed session with BuildSession's: every
// number, place and list, but the calls, which it does not keep (it counts
// them, and keeps each tool's latencies).
func assertSameSession(t testing.TB, got, want *Session, context string) {
	t.Helper()
	if got.Calls != nil || got.CallCount() != len(want.Calls) || want.CallCount() != len(want.Calls) {
		t.Fatalf("%s: %d calls kept, %d counted; BuildSession %d", context, len(got.Calls), got.CallCount(), len(want.Calls))
	}
	for _, ts := range want.Tools {
		if g, w := got.Latencies(ts.Tool), want.Latencies(ts.Tool); !slices.Equal(g, w) || len(w) != ts.Latency.Measured {
			t.Fatalf("%s: %s's latencies %v, BuildSession %v", context, ts.Tool, g, w)
		}
	}
	g, w := *got, *want
	g.Calls, g.byResult, g.latencies = nil, nil, nil
	w.Calls, w.byResult, w.latencies = nil, nil, nil
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("%s: the streamed session differs\n got  %+v\n want %+v", context, g, w)
	}
}

// TestSessionStreamEqualsBuildSession: statistics built window by window
// are BuildSession's, whatever the windows and chunks, on every log the
// tests have, with and without a companion's counts.
func TestSessionStreamEqualsBuildSession(t *testing.T) {
	docs := streamCorpus(t)
	companion := &ActionCounts{Source: "c.jsonl", Messages: 3, ToolCalls: 4,
		Start: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2025, 1, 1, 0, 10, 0, 0, time.UTC)}
	for _, tiny := range []bool{false, true} {
		if tiny {
			t.Cleanup(grammar.SetChunkLimitsForTest(3, 80))
		}
		for name, src := range docs {
			tree := grammar.Parse(bytes.Clone(src))
			for _, opts := range []SessionOptions{{}, {MinGap: time.Second, Companion: companion}, {MinGap: -1}} {
				want := BuildSession(tree, opts)
				for _, window := range []int{1, 700, 0} {
					got := streamSession(t, iotest.HalfReader(bytes.NewReader(src)), grammar.StreamOptions{WindowBytes: window}, opts)
					assertSameSession(t, got, want, fmt.Sprintf("%s, options %+v, window %d, tiny chunks %v", name, opts, window, tiny))
				}
			}
		}
	}
}

func FuzzSessionStream(f *testing.F) {
	f.Add([]byte(okHeader+"@phase a\nt!:Read id=a ts=2025-01-01T00:00:00Z\n@phase b\no: id=a ts=2025-01-01T00:00:05Z → [error]\n"), uint16(20), false)
	f.Add([]byte(okHeader+"t!:R id=x\nt!:R id=x\nx:Explore id=s → [started]\nx:Explore id=s → [done]\no: id=x\n"), uint16(9), true)
	f.Add([]byte("u: tokens_in=3 message_id=m\na: tokens_in=3\n---\nid: late\n---\nu: tokens_in=3\n"), uint16(3), true)
	f.Fuzz(func(t *testing.T, src []byte, window uint16, tiny bool) {
		if tiny {
			t.Cleanup(grammar.SetChunkLimitsForTest(2, 40))
		}
		want := BuildSession(grammar.Parse(bytes.Clone(src)), SessionOptions{})
		got := streamSession(t, iotest.HalfReader(bytes.NewReader(src)), grammar.StreamOptions{WindowBytes: int(window)}, SessionOptions{})
		assertSameSession(t, got, want, "fuzz")
	})
}
