package model

import (
	"fmt"
	"testing"
)

func TestLedgerCountsEachMessageOnce(t *testing.T) {
	var l Ledger
	// A response's usage repeated on its blocks, the first a streaming
	// snapshot; then another response; then an unkeyed usage, a message
	// of its own.
	l.AddUsage("m1", Usage{Input: 10, Output: 1, CacheCreate: 100})
	l.AddUsage("m1", Usage{Input: 10, Output: 30, CacheCreate: 100})
	l.AddUsage("m2", Usage{Input: 5, Output: 7, CacheRead: 100})
	l.AddUsage("m1", Usage{Input: 10, Output: 30, CacheCreate: 100}) // back within the window
	l.AddUsage("", Usage{Output: 2})
	if got, want := l.Total(), (Usage{Input: 15, Output: 39, CacheRead: 100, CacheCreate: 100}); got != want {
		t.Errorf("total %+v, want %+v", got, want)
	}
	if u, ok := l.Message("m1"); !ok || u.Output != 30 {
		t.Errorf("m1 = %+v %v", u, ok)
	}
	if l.Messages() != 3 || l.Empty() {
		t.Errorf("%d messages", l.Messages())
	}
}

// The ledger keeps a window of messages, not every one: 200,000
// messages cost no more than a hundred, and each still counts once.
func TestLedgerIsBounded(t *testing.T) {
	var l Ledger
	for i := range 200_000 {
		id := fmt.Sprintf("m%d", i)
		l.AddUsage(id, Usage{Output: 1})
		l.AddUsage(id, Usage{Output: 2}) // the repeat, adjacent
	}
	if got := l.Total().Output; got != 400_000 {
		t.Errorf("total output %d, want 400000", got)
	}
	if _, ok := l.Message("m0"); ok {
		t.Error("m0 is still remembered after 200,000 other messages")
	}
	// A repeat after the window has moved on counts again, as documented.
	l.AddUsage("m0", Usage{Output: 2})
	if got := l.Total().Output; got != 400_002 {
		t.Errorf("total output %d after a late repeat", got)
	}
}

// Heap after a million messages: the ledger's window, not a map of every
// message.
func TestLedgerHeapIsConstant(t *testing.T) {
	var l Ledger
	ids := make([]string, 1000)
	for i := range ids {
		ids[i] = fmt.Sprintf("message-%d", i)
	}
	for i := range 1000 {
		l.AddUsage(ids[i], Usage{Output: 1})
	}
	allocs := testing.AllocsPerRun(5, func() {
		for i := range 1000 {
			l.AddUsage(ids[i], Usage{Output: 1})
		}
	})
	if allocs > 0 {
		t.Errorf("%.0f allocations for 1,000 messages: the ledger grows", allocs)
	}
}

func TestLookaheadHoldsTheFirstEvents(t *testing.T) {
	var c Collector
	seen := 0
	probe := sinkFunc(func(h *Header, e *Event) error {
		seen++
		if h.Cwd != "/w" {
			t.Errorf("event %d reached the writer before the header was complete", seen)
		}
		return c.Event(h, e)
	})
	l := &Lookahead{Sink: probe, MaxEvents: 3, MaxBytes: 1 << 20}
	h := &Header{}
	l.Event(h, &Event{Kind: KindPassthrough}) // a record before the header fields
	h.Cwd = "/w"
	for range 5 {
		l.Event(h, &Event{Kind: KindUser})
	}
	l.End(h)
	if len(c.Session.Events) != 6 || seen != 6 {
		t.Errorf("%d events passed on", len(c.Session.Events))
	}
}

type sinkFunc func(h *Header, e *Event) error

func (f sinkFunc) Event(h *Header, e *Event) error { return f(h, e) }
func (f sinkFunc) End(*Header) error               { return nil }
