// Package usage is the one rule for counting the token usage of a
// session: which usage records are one model message, what a message's
// usage is when it is written several times, and the totals. The session
// statistics (analysis: stats, hover, lenses, the session view) and every
// conversion (convert/model's Ledger, behind every writer's totals) count
// through Tally, so a figure is the same wherever it is shown.
//
// The rule:
//
//   - Records with the same message id are one message. Writers repeat a
//     model response's usage on every line or block that came from it
//     (Claude Code and the Agent SDK on each content block, autopilot on
//     each rlog line, the converters on each split entry).
//   - A record without a message id is the same message as the record just
//     before it when that one has no message id either and the same input
//     and cache counts (SameRequest): autopilot logs repeat a response's
//     usage on its lines without an id, and its output count grows while
//     the response streams (tokens_out=1, then 433). Otherwise it is a
//     message of its own.
//   - A message's usage is the counter-wise maximum of its records. The
//     early copies Claude Code wrote were streaming snapshots
//     (output_tokens 1, then the real count), so the largest is the final
//     one; a repeat never lowers a count.
//   - The totals are the sum over messages. A session's summary of its own
//     totals (rlog's @end, a header's tokens_total_*) is not a record: the
//     caller does not add it.
//
// A Tally with Window 0 remembers every message: the editor holds the
// whole document anyway, and `rlog-ls stats` and `report`, which read a
// log a window at a time, keep every message id as they keep the call ids,
// so that they count what the whole document counts. A streaming
// conversion needs constant memory: a Tally with a Window remembers the
// last Window messages only, and a message id that comes back after Window
// other messages is taken for a new message. Both give the same totals whenever
// each message's records lie within Window messages of its first, which
// holds for every writer known (they write a response's blocks together)
// and for every file rlog-ls writes.
package usage

import (
	"math"
	"math/bits"
)

// Counts are the token counts of one usage record, or totals.
type Counts struct {
	In, Out, Cached, CacheCreate uint64
}

// Add is the counter-wise sum.
func (c Counts) Add(o Counts) Counts {
	return Counts{c.In + o.In, c.Out + o.Out, c.Cached + o.Cached, c.CacheCreate + o.CacheCreate}
}

// Max is the counter-wise maximum.
func (c Counts) Max(o Counts) Counts {
	return Counts{max(c.In, o.In), max(c.Out, o.Out), max(c.Cached, o.Cached), max(c.CacheCreate, o.CacheCreate)}
}

// sub is c − o for o ≤ c counter-wise (a message's growth).
func (c Counts) sub(o Counts) Counts {
	return Counts{c.In - o.In, c.Out - o.Out, c.Cached - o.Cached, c.CacheCreate - o.CacheCreate}
}

// IsZero reports whether every count is 0.
func (c Counts) IsZero() bool { return c == Counts{} }

// SameRequest reports whether two usage records without a message id, one
// right after the other, are one message: the same input and cache counts
// (the output count may grow, as a streaming response's does).
func SameRequest(a, b Counts) bool {
	return a.In == b.In && a.Cached == b.Cached && a.CacheCreate == b.CacheCreate
}

// Grow is what merging record c into a message whose usage is m adds: the
// counts by which c exceeds m.
func Grow(m, c Counts) Counts { return m.Max(c).sub(m) }

// Change is what one record did to a Tally.
type Change struct {
	// New says the record is the first of its message.
	New bool
	// Grew is what the totals grew by: the record's counts for a new
	// message, the growth of its message's maximum for a repeat (often
	// nothing).
	Grew Counts
}

// Tally counts usage records by the rule. The zero Tally remembers every
// message; set Window for a bounded one.
type Tally struct {
	// Window, when positive, is how many of the last messages a repeat
	// can still merge with.
	Window int

	total    Counts
	messages int
	// prevKeyed says whether the last record added had a message id (when
	// there is one: havePrev); run is, when it had none, its message's
	// usage so far.
	run       Counts
	prevKeyed bool
	havePrev  bool

	byID map[string]Counts // every message (Window 0)
	// recent is the last Window messages, a ring once full: next is the
	// oldest, which the next new message takes the place of. tags holds
	// a byte of each one's hash (tagOf), eight a word, the byte of
	// recent[i] at byte i%8 of word i/8 (recentIndex tests eight at once).
	recent []entry
	tags   []uint64
	next   int
}

type entry struct {
	id   string
	hash uint64
	c    Counts
}

// Add adds a record of message id ("" for none) with counts c.
func (t *Tally) Add(id string, c Counts) Change {
	var ch Change
	switch {
	case id != "":
		ch = t.addKeyed(id, c)
	case t.havePrev && !t.prevKeyed && SameRequest(t.run, c):
		ch.Grew = Grow(t.run, c)
		t.run = t.run.Add(ch.Grew)
	default:
		ch = Change{New: true, Grew: c}
		t.run = c
	}
	if ch.New {
		t.messages++
	}
	t.total = t.total.Add(ch.Grew)
	t.prevKeyed, t.havePrev = id != "", true
	return ch
}

func (t *Tally) addKeyed(id string, c Counts) Change {
	if old, ok := t.merge(id, c); ok {
		return Change{Grew: Grow(old, c)}
	}
	return Change{New: true, Grew: c}
}

// merge raises message id's counts to at least c and returns what they
// were, or reports that id is not a message the tally remembers, in which
// case it now is, with c.
func (t *Tally) merge(id string, c Counts) (Counts, bool) {
	if t.Window <= 0 {
		if t.byID == nil {
			t.byID = map[string]Counts{}
		}
		old, ok := t.byID[id]
		t.byID[id] = old.Max(c)
		return old, ok
	}
	h := hashID(id)
	if i := t.recentIndex(id, h); i >= 0 {
		e := &t.recent[i]
		old := e.c
		e.c = old.Max(c)
		return old, true
	}
	t.remember(entry{id, h, c})
	return Counts{}, false
}

// remember adds a message to recent: after the others while there are
// fewer than Window, else in the place of the oldest, which is forgotten
// (no entry is moved).
func (t *Tally) remember(e entry) {
	i := len(t.recent)
	if i < t.Window {
		t.recent = append(t.recent, e)
		if i%8 == 0 {
			t.tags = append(t.tags, 0)
		}
	} else {
		i = t.next
		t.recent[i] = e
		if t.next++; t.next == len(t.recent) {
			t.next = 0
		}
	}
	shift := uint(i%8) * 8
	w := &t.tags[i/8]
	*w = *w&^(0xff<<shift) | uint64(tagOf(e.hash))<<shift
}

// tagOf is the byte of a hash that tags keeps.
func tagOf(h uint64) byte { return byte(h >> 56) }

// recentIndex is the index in recent of message id, whose hash is h, or
// -1. Eight tags are tested at once (the tag in each byte of a word is
// xored out and the bytes that become 0 found, as in a Swiss table's
// group); only a message whose tag is id's is compared, by hash and then
// id. The ids in recent differ, so the order they are tried in does not
// matter.
func (t *Tally) recentIndex(id string, h uint64) int {
	want := uint64(tagOf(h)) * lowBits
	for w, tags := range t.tags {
		x := tags ^ want
		// (A byte after a zero byte may be marked too: each candidate
		// is compared.)
		for m := (x - lowBits) &^ x & highBits; m != 0; m &= m - 1 {
			i := 8*w + bits.TrailingZeros64(m)/8
			if i < len(t.recent) {
				if e := &t.recent[i]; e.hash == h && e.id == id {
					return i
				}
			}
		}
	}
	return -1
}

const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// hashID is a hash of message id, for recent's tags and a first test
// of equality: its first, middle and last eight bytes (or its bytes, when
// fewer) and its length, mixed. (Ids that agree there are compared
// whole: no input costs more than comparing each remembered id, as the
// window did before it had tags.)
func hashID(id string) uint64 {
	n := len(id)
	var a, b, c uint64
	if n >= 8 {
		a, b, c = word(id), word(id[n/2-4:]), word(id[n-8:])
	} else {
		for i := range n {
			a = a<<8 | uint64(id[i])
		}
	}
	h := (a^bits.RotateLeft64(b, 21)^bits.RotateLeft64(c, 42)^uint64(n))*0x9e3779b97f4a7c15 + uint64(n)
	h ^= h >> 29
	return h * 0xbf58476d1ce4e5b9
}

// word is the first eight bytes of s, little endian: one load.
func word(s string) uint64 {
	s = s[:8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// Total is the sum of the messages' usage so far.
func (t *Tally) Total() Counts { return t.total }

// Messages is how many messages were counted.
func (t *Tally) Messages() int { return t.messages }

// Empty reports whether no record was added.
func (t *Tally) Empty() bool { return !t.havePrev }

// Message is the usage of message id so far, when the tally remembers it.
func (t *Tally) Message(id string) (Counts, bool) {
	if t.Window <= 0 {
		c, ok := t.byID[id]
		return c, ok
	}
	if i := t.recentIndex(id, hashID(id)); i >= 0 {
		return t.recent[i].c, true
	}
	return Counts{}, false
}

// Reset empties the tally for reuse, keeping its Window and the room of
// its recent messages (not their ids: a tally reset keeps no string of
// its past alive).
func (t *Tally) Reset() {
	clear(t.recent)
	clear(t.tags)
	*t = Tally{Window: t.Window, recent: t.recent[:0], tags: t.tags[:0]}
}

// State is what a Tally's answers for the records to come depend on,
// besides the messages it remembers: a tally resumed from a State and the
// messages those records repeat counts them as the tally would.
type State struct {
	Total    Counts
	Messages int
	// Run is the usage of the last record's message when that record has
	// no message id (PrevKeyed false), HavePrev whether there is one.
	Run       Counts
	PrevKeyed bool
	HavePrev  bool
}

// State is t's state.
func (t *Tally) State() State {
	return State{Total: t.total, Messages: t.messages, Run: t.run, PrevKeyed: t.prevKeyed, HavePrev: t.havePrev}
}

// Resume is a tally (Window 0) in state s that remembers the messages of
// known, with their usage so far: the messages the records to come can
// repeat.
func Resume(s State, known map[string]Counts) Tally {
	t := Tally{total: s.Total, messages: s.Messages, run: s.Run, prevKeyed: s.PrevKeyed, havePrev: s.HavePrev,
		byID: make(map[string]Counts, len(known))}
	for id, c := range known {
		t.byID[id] = c
	}
	return t
}

// Clamp is n as a count: a negative n (which no writer means) is 0.
func Clamp(n int64) uint64 { return uint64(max(n, 0)) }

// Int64 is a count as an int64, saturated at math.MaxInt64.
func Int64(n uint64) int64 { return int64(min(n, math.MaxInt64)) }
