package analysis

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"slices"
	"testing"
	"testing/iotest"
	"time"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// streamSession builds the statistics of src window by window; the
// calls OnCall hands out are put in the session's Calls, by their numbers.
func streamSession(t testing.TB, r io.Reader, opts grammar.StreamOptions, sopts SessionOptions) (*Session, []Call) {
	t.Helper()
	s := grammar.NewStream(r, opts)
	ss := NewSessionStream(sopts)
	var calls []Call
	handed := map[int]bool{}
	ss.OnCall(func(n int, c *Call) {
		if handed[n] {
			t.Fatalf("call %d handed out twice", n)
		}
		handed[n] = true
		calls = append(calls, make([]Call, max(0, n+1-len(calls)))...)
		calls[n] = *c
	})
	if err := s.Each(ss.Window); err != nil {
		t.Fatal(err)
	}
	session := ss.End()
	if len(handed) != session.CallCount() {
		t.Fatalf("%d calls handed out of %d", len(handed), session.CallCount())
	}
	return session, calls
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
					got, calls := streamSession(t, iotest.HalfReader(bytes.NewReader(src)), grammar.StreamOptions{WindowBytes: window}, opts)
					context := fmt.Sprintf("%s, options %+v, window %d, tiny chunks %v", name, opts, window, tiny)
					assertSameSession(t, got, want, context)
					if !reflect.DeepEqual(calls, want.Calls) && len(calls)+len(want.Calls) > 0 {
						t.Fatalf("%s: the calls handed out differ from BuildSession's", context)
					}
				}
			}
		}
	}
}

func FuzzSessionStream(f *testing.F) {
	f.Add([]byte(okHeader+"@phase a\nt!:Read id=a ts=2025-01-01T00:00:00Z\n@phase b\no: id=a ts=2025-01-01T00:00:05Z → [error]\n"), uint16(20), false)
	f.Add([]byte(okHeader+"t!:R id=x\nt!:R id=x\nx:Explore id=s → [started]\nx:Explore id=s → [done]\no: id=x\n"), uint16(9), true)
	f.Add([]byte("u: tokens_in=3 message_id=m\na: tokens_in=3\n---\nid: late\n---\nu: tokens_in=3\n"), uint16(3), true)
	// Usage the rule merges windows apart: a snapshot then the final count
	// of message m in another phase, a run without ids whose output grows.
	f.Add([]byte(okHeader+"@phase a\nth: s message_id=m tokens_in=9 tokens_out=5\na: r tokens_in=4 tokens_out=1\n"+
		"t!:Read id=c → [running]\n@phase b\na: r tokens_in=4 tokens_out=8\no: id=c → [ok]\n"+
		"a: f message_id=m tokens_in=9 tokens_out=50 tokens_cached=3\na: g message_id=m tokens_out=20\n"), uint16(30), true)
	f.Fuzz(func(t *testing.T, src []byte, window uint16, tiny bool) {
		if tiny {
			t.Cleanup(grammar.SetChunkLimitsForTest(2, 40))
		}
		want := BuildSession(grammar.Parse(bytes.Clone(src)), SessionOptions{})
		got, calls := streamSession(t, iotest.HalfReader(bytes.NewReader(src)), grammar.StreamOptions{WindowBytes: int(window)}, SessionOptions{})
		assertSameSession(t, got, want, "fuzz")
		if !reflect.DeepEqual(calls, want.Calls) && len(calls)+len(want.Calls) > 0 {
			t.Fatal("the calls handed out differ from BuildSession's")
		}
	})
}
