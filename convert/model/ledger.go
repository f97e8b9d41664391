package model

// Ledger totals token usage so that a message whose usage is repeated on
// several events counts once. Events with a MessageID are merged per id
// (counter-wise maximum, see Usage.Max); events without one are each counted.
// Memory is one entry per distinct message, not per event.
type Ledger struct {
	byMessage map[string]Usage
	order     []string
	unkeyed   Usage
	any       bool
}

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
		l.unkeyed = l.unkeyed.Add(u)
		return
	}
	if l.byMessage == nil {
		l.byMessage = make(map[string]Usage)
	}
	prev, seen := l.byMessage[messageID]
	if !seen {
		l.order = append(l.order, messageID)
	}
	l.byMessage[messageID] = prev.Max(u)
}

// Total returns the session total.
func (l *Ledger) Total() Usage {
	t := l.unkeyed
	for _, id := range l.order {
		t = t.Add(l.byMessage[id])
	}
	return t
}

// Message returns the merged usage of one message.
func (l *Ledger) Message(id string) (Usage, bool) {
	u, ok := l.byMessage[id]
	return u, ok
}

// Empty reports whether no usage was recorded.
func (l *Ledger) Empty() bool { return !l.any }

// Messages returns the number of distinct message ids seen.
func (l *Ledger) Messages() int { return len(l.order) }

// SessionTotals returns the totals a writer should report: the source's own
// totals when it stated them, otherwise the ledger total over events.
func SessionTotals(h *Header, events []Event) (Usage, bool) {
	if h.Totals != nil {
		return *h.Totals, true
	}
	var l Ledger
	for i := range events {
		l.Add(&events[i])
	}
	return l.Total(), !l.Empty()
}
