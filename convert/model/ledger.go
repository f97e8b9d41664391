package model

import "hash/maphash"

// Ledger totals token usage so that a message whose usage is repeated on
// several events counts once. Events with a MessageID are merged per id
// (counter-wise maximum, see Usage.Max); events without one are each
// counted.
//
// Memory is constant: the ledger keeps the last LedgerWindow messages and
// adds a message to the total when it leaves them. Claude Code and the
// Agent SDK write a response's blocks together, so repeats are adjacent in
// practice; a message id that comes back after LedgerWindow other messages
// is counted again (its later events are taken as a new message).
type Ledger struct {
	recent   []ledgerEntry // the last messages, oldest first
	closed   Usage         // messages that left recent, and unkeyed usage
	any      bool
	messages int
}

type ledgerEntry struct {
	id   string
	hash uint64 // of id, compared first: a new message is compared with every recent one
	u    Usage
}

// ledgerSeed seeds the hashes of message ids (only equality is used).
var ledgerSeed = maphash.MakeSeed()

// LedgerWindow is how many recent messages a Ledger can still merge with.
const LedgerWindow = 64

// Add records the usage of e, if it has any.
func (l *Ledger) Add(e *Event) {
	if e.Usage == nil {
		return
	}
	l.AddUsage(e.MessageID, *e.Usage)
}

// AddUsage records u for messageID ("" for an unkeyed usage).
func (l *Ledger) AddUsage(messageID string, u Usage) {
	l.any = true
	if messageID == "" {
		l.closed = l.closed.Add(u)
		return
	}
	h := maphash.String(ledgerSeed, messageID)
	for i := len(l.recent) - 1; i >= 0; i-- {
		if l.recent[i].hash == h && l.recent[i].id == messageID {
			l.recent[i].u = l.recent[i].u.Max(u)
			return
		}
	}
	l.messages++
	if len(l.recent) == LedgerWindow {
		l.closed = l.closed.Add(l.recent[0].u)
		copy(l.recent, l.recent[1:])
		l.recent = l.recent[:len(l.recent)-1]
	}
	l.recent = append(l.recent, ledgerEntry{messageID, h, u})
}

// Total returns the total so far.
func (l *Ledger) Total() Usage {
	t := l.closed
	for _, e := range l.recent {
		t = t.Add(e.u)
	}
	return t
}

// Message returns the merged usage of one of the recent messages.
func (l *Ledger) Message(id string) (Usage, bool) {
	for i := len(l.recent) - 1; i >= 0; i-- {
		if l.recent[i].id == id {
			return l.recent[i].u, true
		}
	}
	return Usage{}, false
}

// Empty reports whether no usage was recorded.
func (l *Ledger) Empty() bool { return !l.any }

// Messages returns the number of messages counted.
func (l *Ledger) Messages() int { return l.messages }

// Reset empties the ledger for reuse.
func (l *Ledger) Reset() {
	l.recent = l.recent[:0]
	l.closed = Usage{}
	l.any = false
	l.messages = 0
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
