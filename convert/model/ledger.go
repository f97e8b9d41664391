package model

import "github.com/rlog-ls/rlog-ls/usage"

// Ledger totals token usage by the one rule (package usage): a message's
// usage repeated on several events counts once, with its largest counts;
// an event without a MessageID that repeats the usage of the event just
// before it (itself without one) is that message.
//
// Memory is constant: the ledger merges a repeat with the last
// LedgerWindow messages only. Claude Code and the Agent SDK write a
// response's blocks together, so repeats are adjacent in practice; a
// message id that comes back after LedgerWindow other messages is counted
// again (its later events are taken as a new message), where `rlog-ls
// stats`, which holds the whole log, counts it once.
type Ledger struct {
	t usage.Tally
}

// LedgerWindow is how many recent messages a Ledger can still merge with.
const LedgerWindow = 64

// Add records the usage of e, if it has any, and says what it changed
// (nothing when it has none).
func (l *Ledger) Add(e *Event) usage.Change {
	if e.Usage == nil {
		return usage.Change{}
	}
	return l.AddUsage(e.MessageID, *e.Usage)
}

// AddUsage records u for messageID ("" for an unkeyed usage) and says
// what it changed: a new message, and what the total grew by.
func (l *Ledger) AddUsage(messageID string, u Usage) usage.Change {
	l.t.Window = LedgerWindow
	return l.t.Add(messageID, u.Counts())
}

// Total returns the total so far.
func (l *Ledger) Total() Usage { return UsageOf(l.t.Total()) }

// Message returns the merged usage of one of the recent messages.
func (l *Ledger) Message(id string) (Usage, bool) {
	c, ok := l.t.Message(id)
	return UsageOf(c), ok
}

// Empty reports whether no usage was recorded.
func (l *Ledger) Empty() bool { return l.t.Empty() }

// Messages returns the number of messages counted.
func (l *Ledger) Messages() int { return l.t.Messages() }

// Reset empties the ledger for reuse.
func (l *Ledger) Reset() { l.t.Reset() }

// Counts is u as the usage rule counts it (a negative count, which no
// writer means, is 0).
func (u Usage) Counts() usage.Counts {
	return usage.Counts{In: usage.Clamp(u.Input), Out: usage.Clamp(u.Output), Cached: usage.Clamp(u.CacheRead),
		CacheCreate: usage.Clamp(u.CacheCreate)}
}

// UsageOf is c as a Usage.
func UsageOf(c usage.Counts) Usage {
	return Usage{Input: usage.Int64(c.In), Output: usage.Int64(c.Out), CacheRead: usage.Int64(c.Cached),
		CacheCreate: usage.Int64(c.CacheCreate)}
}

// Totals returns the totals a writer should report at the end: the
// source's own totals when it stated them, otherwise what l counted.
func Totals(h *Header, l *Ledger) (Usage, bool) {
	if h.Totals != nil {
		return *h.Totals, true
	}
	return l.Total(), !l.Empty()
}

// Totals returns the session's totals, as a writer would report them.
func (s *Session) Totals() (Usage, bool) {
	var l Ledger
	for i := range s.Events {
		l.Add(&s.Events[i])
	}
	return Totals(&s.Header, &l)
}
