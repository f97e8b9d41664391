package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// LossKind classifies what a conversion could not carry over.
type LossKind string

// The loss kinds. Each has a stable name used in JSON reports.
const (
	// LossMalformed: an input line or value that could not be parsed. The
	// rest of the input still converts.
	LossMalformed LossKind = "malformed_input"
	// LossTruncated: text shortened to fit the target (rlog line limits).
	LossTruncated LossKind = "truncated_text"
	// LossDroppedField: a source field the target has no place for.
	LossDroppedField LossKind = "dropped_field"
	// LossDroppedEvent: a whole event the target cannot express.
	LossDroppedEvent LossKind = "dropped_event"
	// LossRenumbered: step numbers rewritten (ATIF requires 1..N).
	LossRenumbered LossKind = "renumbered_step"
	// LossIDUnique: a duplicate id rewritten to stay unique (`<id>#n`).
	LossIDUnique LossKind = "id_made_unique"
	// LossPassthrough: a record type the reader does not know, carried
	// through opaquely (`extra` in JSON formats, `#` comments in rlog).
	LossPassthrough LossKind = "unknown_record_passthrough"
	// LossMoved: an event moved to satisfy the target's structure (an ATIF
	// observation moved back to the step of its tool call).
	LossMoved LossKind = "moved"
	// LossSynthesized: a value the target requires but the source lacks,
	// filled with a placeholder or derived value (uuids, hashes, versions).
	LossSynthesized LossKind = "synthesized_value"
	// LossUnfaithful: a derived value that cannot be exact (hashes over
	// truncated text).
	LossUnfaithful LossKind = "unfaithful_value"
	// LossInvalidUTF8: bytes that are not UTF-8, replaced by U+FFFD; one
	// entry per string or line where it happened.
	LossInvalidUTF8 LossKind = "invalid_utf8"
)

// Loc is where something is in the input (or output): a 1-based line
// number, a JSON path, or both, and the file when it is not the main input
// (a sub-agent transcript merged into its session).
type Loc struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Path string `json:"path,omitempty"`
}

func (l Loc) String() string {
	var parts []string
	if l.File != "" {
		parts = append(parts, l.File)
	}
	if l.Line > 0 {
		parts = append(parts, "line "+strconv.Itoa(l.Line))
	}
	if l.Path != "" {
		parts = append(parts, l.Path)
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

// IsZero reports whether the location is unknown.
func (l Loc) IsZero() bool { return l.Line == 0 && l.Path == "" && l.File == "" }

// MaxLocations is how many locations a Loss keeps; the Count is exact.
const MaxLocations = 5

// Loss is one kind of loss with a detail (a field name, a record type, an
// error message), its exact count and the first few locations. Remedy,
// when set, says how to avoid the loss ("write --atif-version 1.6 to keep
// it").
type Loss struct {
	Kind   LossKind `json:"kind"`
	Detail string   `json:"detail"`
	// Subject names what the loss changes in the session model's terms,
	// for a program that checks a conversion: a header field
	// (`header.branch`, `header.extra.mode`), the events of a kind
	// (`thinking`), or one field of them (`tool_call.input`,
	// `agent.extra.requestId`); `*` stands for any kind (`*.time`). A loss
	// that changes several (a field moved from one key to another) names
	// each, separated by ", ".
	// docs/conversions.md lists them. "" for a loss that changes nothing
	// the model holds (a malformed line, a value made up for the target
	// that does not come back).
	Subject   string `json:"subject,omitempty"`
	Count     int    `json:"count"`
	Locations []Loc  `json:"locations,omitempty"`
	Remedy    string `json:"remedy,omitempty"`

	// quoted is Detail as a JSON string, made the first time Passthrough
	// reports the entry and given to every event it reports: the value
	// of their passthroughKey.
	quoted json.RawMessage
}

// Report is what a conversion could not carry over. The zero value is ready
// to use. Entries keep the order in which each (kind, detail) first occurred.
type Report struct {
	From   string  `json:"from,omitempty"`
	To     string  `json:"to,omitempty"`
	Losses []*Loss `json:"losses"`
	// Events counts the events read, for the summary line.
	Events int `json:"events"`

	index map[lossKey]int
	// recent holds the entries the last adds found or made, and next is
	// where the next one found in index goes (round robin). A writer
	// reports the same few losses event after event, each with the same
	// string constants, so add looks here first and compares the strings'
	// data and lengths (sameString), a few instructions a key, before it
	// hashes the key for index; a key built anew each time misses here
	// and is found in index as before.
	recent [8]*Loss
	next   uint8

	// extras is the room Passthrough makes an event's Extra of when it
	// has none (passthroughExtra), and extrasBlock the length of the
	// last block made for it.
	extras      []Field
	extrasBlock int
}

type lossKey struct {
	kind            LossKind
	detail, subject string
}

// Add records one occurrence.
func (r *Report) Add(kind LossKind, detail string, loc Loc) { r.AddN(kind, detail, loc, 1) }

// AddRemedy records one occurrence of a loss that the user can avoid, and
// how: remedy is shown with the entry.
func (r *Report) AddRemedy(kind LossKind, detail string, loc Loc, remedy string) {
	if l := r.add(kind, detail, "", loc, 1); l != nil && l.Remedy == "" {
		l.Remedy = remedy
	}
}

// AddN records n occurrences at one location.
func (r *Report) AddN(kind LossKind, detail string, loc Loc, n int) { r.add(kind, detail, "", loc, n) }

// Lose records one occurrence of a loss that changes subject (see
// Loss.Subject).
func (r *Report) Lose(kind LossKind, subject, detail string, loc Loc) {
	r.LoseN(kind, subject, detail, loc, 1)
}

// LoseN records n occurrences at one location of a loss that changes
// subject.
func (r *Report) LoseN(kind LossKind, subject, detail string, loc Loc, n int) {
	r.add(kind, detail, subject, loc, n)
}

// LoseRemedy is Lose for a loss the user can avoid, and how (remedy).
func (r *Report) LoseRemedy(kind LossKind, subject, detail string, loc Loc, remedy string) {
	if l := r.add(kind, detail, subject, loc, 1); l != nil && l.Remedy == "" {
		l.Remedy = remedy
	}
}

// Covers reports whether an entry's subject names subject, or a whole of
// which subject is part (see SubjectCovers).
func (r *Report) Covers(subject string) bool {
	for _, l := range r.Losses {
		if SubjectCovers(l.Subject, subject) {
			return true
		}
	}
	return false
}

// SubjectCovers reports whether the loss subject pattern names subject or
// a whole of which it is part: `lifecycle` covers `lifecycle.name`,
// `header.outcome` covers `header.outcome.success`, and a pattern starting
// `*.` stands for every kind (`*.time` covers `agent.time`, not
// `agent.extra.time`).
func SubjectCovers(pattern, subject string) bool {
	if pattern == "" {
		return false
	}
	if one, more, ok := strings.Cut(pattern, ", "); ok {
		// A loss that changes several things (a field moved from one key
		// to another) names each.
		return SubjectCovers(one, subject) || SubjectCovers(more, subject)
	}
	if rest, ok := strings.CutPrefix(pattern, "*."); ok {
		_, after, found := strings.Cut(subject, ".")
		if !found {
			return false
		}
		pattern, subject = rest, after
	}
	return subject == pattern || strings.HasPrefix(subject, pattern+".")
}

func (r *Report) add(kind LossKind, detail, subject string, loc Loc, n int) *Loss {
	if r == nil || n <= 0 {
		return nil
	}
	if r.index == nil {
		r.index = make(map[lossKey]int)
		for i, l := range r.Losses {
			r.index[lossKey{l.Kind, l.Detail, l.Subject}] = i
		}
	}
	var l *Loss
	for _, x := range &r.recent {
		if x != nil && sameString(string(x.Kind), string(kind)) && sameString(x.Detail, detail) && sameString(x.Subject, subject) {
			l = x
			break
		}
	}
	if l == nil {
		k := lossKey{kind, detail, subject}
		i, ok := r.index[k]
		if !ok {
			i = len(r.Losses)
			r.index[k] = i
			r.Losses = append(r.Losses, &Loss{Kind: kind, Detail: detail, Subject: subject})
		}
		l = r.Losses[i]
		r.recent[r.next%uint8(len(r.recent))] = l
		r.next++
	}
	l.Count += n
	if len(l.Locations) < MaxLocations && !loc.IsZero() {
		l.Locations = append(l.Locations, loc)
	}
	return l
}

// sameString reports whether a and b are the same string in memory: the
// same length and, unless empty, the same data. Equal strings elsewhere in
// memory are not the same (add then looks them up in its index).
func sameString(a, b string) bool {
	return len(a) == len(b) && (len(a) == 0 || unsafe.StringData(a) == unsafe.StringData(b))
}

// Malformed records an input line that could not be parsed.
func (r *Report) Malformed(line int, err error) { r.MalformedAt(Loc{Line: line}, err) }

// MalformedAt records input at loc that could not be parsed.
func (r *Report) MalformedAt(loc Loc, err error) {
	msg := "unparseable"
	if err != nil {
		msg = err.Error()
		if len(msg) > 120 {
			msg = msg[:117] + "..."
		}
	}
	r.Add(LossMalformed, msg, loc)
}

// Count returns the total count of kind, over all details.
func (r *Report) Count(kind LossKind) int {
	n := 0
	for _, l := range r.Losses {
		if l.Kind == kind {
			n += l.Count
		}
	}
	return n
}

// Find returns the entry for (kind, detail), or nil.
func (r *Report) Find(kind LossKind, detail string) *Loss {
	for _, l := range r.Losses {
		if l.Kind == kind && l.Detail == detail {
			return l
		}
	}
	return nil
}

// Empty reports whether nothing was lost.
func (r *Report) Empty() bool { return len(r.Losses) == 0 }

// Merge appends the entries of o.
func (r *Report) Merge(o *Report) { r.MergeIn(o, "") }

// MergeIn appends the entries of o, whose locations are in file (a file
// read into the same session, such as a sub-agent transcript); "" keeps
// their own.
func (r *Report) MergeIn(o *Report, file string) {
	if o == nil {
		return
	}
	for _, l := range o.Losses {
		var last *Loss
		for i, loc := range l.Locations {
			n := 1
			if i == 0 {
				n = l.Count - len(l.Locations) + 1
			}
			if file != "" {
				loc.File = file
			}
			last = r.add(l.Kind, l.Detail, l.Subject, loc, n)
		}
		if len(l.Locations) == 0 {
			last = r.add(l.Kind, l.Detail, l.Subject, Loc{}, l.Count)
		}
		if last != nil && last.Remedy == "" {
			last.Remedy = l.Remedy
		}
	}
	r.Events += o.Events
}

// Kinds returns the number of distinct kinds among the entries.
func (r *Report) Kinds() int {
	seen := map[LossKind]bool{}
	for _, l := range r.Losses {
		seen[l.Kind] = true
	}
	return len(seen)
}

// Total returns the number of losses: the sum of the entries' counts.
func (r *Report) Total() int {
	n := 0
	for _, l := range r.Losses {
		n += l.Count
	}
	return n
}

// Text renders the report for a terminal: a summary line, then one line per
// entry with the first locations.
func (r *Report) Text() string {
	var b strings.Builder
	dir := ""
	if r.From != "" || r.To != "" {
		dir = r.From + " -> " + r.To + ": "
	}
	if len(r.Losses) == 0 {
		fmt.Fprintf(&b, "%s%d events, nothing lost\n", dir, r.Events)
		return b.String()
	}
	kinds := "kinds"
	if r.Kinds() == 1 {
		kinds = "kind"
	}
	fmt.Fprintf(&b, "%s%d events, %d losses of %d %s\n", dir, r.Events, r.Total(), r.Kinds(), kinds)
	for _, l := range r.Losses {
		fmt.Fprintf(&b, "  %s: %s", l.Kind, l.Detail)
		if l.Subject != "" {
			fmt.Fprintf(&b, " [%s]", l.Subject)
		}
		fmt.Fprintf(&b, " ×%d", l.Count)
		if len(l.Locations) > 0 {
			locs := make([]string, len(l.Locations))
			for i, loc := range l.Locations {
				locs[i] = loc.String()
			}
			more := ""
			if l.Count > len(l.Locations) {
				more = ", …"
			}
			fmt.Fprintf(&b, " (at %s%s)", strings.Join(locs, ", "), more)
		}
		if l.Remedy != "" {
			fmt.Fprintf(&b, "; %s", l.Remedy)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// JSON renders the report as one JSON object:
// {"from","to","events","losses":[{"kind","detail","count","locations":[{"file","line","path"}],"remedy"}]}.
func (r *Report) JSON() []byte {
	type out Report // drop methods, keep tags
	if r.Losses == nil {
		r.Losses = []*Loss{}
	}
	b, err := json.Marshal((*out)(r))
	if err != nil {
		// Only strings and ints are in a report; this cannot fail.
		panic(err)
	}
	return b
}

// DropExtras reports every Extra key of e as a dropped field, for writers
// whose format has no place for the source's own fields. Not reported:
// keys starting with "_" (reader hints, not data), null values (nothing is
// lost), and the token counters of a raw "message.usage", which every
// writer carries from e.Usage (its other members are reported one by one).
func (r *Report) DropExtras(e *Event) {
	for _, f := range e.Extra {
		if len(f.Key) > 0 && f.Key[0] == '_' || jsonscan.IsNull(bytes.TrimSpace(f.Value)) {
			continue
		}
		if f.Key == "message.usage" && e.Usage != nil {
			beyond := usageBeyondCounters(f.Value, *e.Usage)
			for _, k := range beyond {
				r.Lose(LossDroppedField, e.Kind.String()+".extra.message.usage", e.Kind.String()+" field message.usage."+k, e.Loc)
			}
			if len(beyond) == 0 && !allCounters(f.Value) {
				r.Lose(LossUnfaithful, e.Kind.String()+".extra.message.usage", e.Kind.String()+" message.usage, written back with all four counters", e.Loc)
			}
			continue
		}
		r.Lose(LossDroppedField, e.Kind.String()+".extra."+f.Key, e.Kind.String()+" field "+f.Key, e.Loc)
	}
}

// allCounters reports whether a usage object has the four counters a
// writer writes back from the event's usage.
func allCounters(raw []byte) bool {
	n := 0
	jsonscan.Members(raw, func(k, v []byte) error {
		if usageCounter(string(k)) {
			n++
		}
		return nil
	})
	return n == 4
}

// usageCounter reports whether key is one of the four counters of an
// Anthropic usage object, the ones Usage holds.
func usageCounter(key string) bool {
	switch key {
	case "input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens":
		return true
	}
	return false
}

// usageBeyondCounters lists the members of an Anthropic usage object that u
// does not hold: anything but the four counters and null members, and the
// cache_creation split when it says more than u.CacheCreate (1-hour cache
// writes).
func usageBeyondCounters(raw []byte, u Usage) []string {
	var out []string
	jsonscan.Members(raw, func(k, v []byte) error {
		switch key := string(k); {
		case usageCounter(key):
		case key == "cache_creation":
			var fiveMin, oneHour int64
			jsonscan.Members(v, func(k, v []byte) error {
				switch string(k) {
				case "ephemeral_5m_input_tokens":
					fiveMin, _ = jsonscan.Int(v)
				case "ephemeral_1h_input_tokens":
					oneHour, _ = jsonscan.Int(v)
				}
				return nil
			})
			if oneHour != 0 || fiveMin != u.CacheCreate {
				out = append(out, key)
			}
		default:
			if !jsonscan.IsNull(v) {
				out = append(out, jsonscan.Key(k))
			}
		}
		return nil
	})
	return out
}

// DropHeaderExtras reports every header Extra key as dropped but the
// carried ones, which the writer wrote elsewhere.
func (r *Report) DropHeaderExtras(h *Header, carried ...string) {
	for _, f := range h.Extra {
		if len(f.Key) > 0 && f.Key[0] == '_' || slices.Contains(carried, f.Key) {
			continue
		}
		r.Lose(LossDroppedField, "header.extra."+f.Key, "header field "+f.Key, Loc{})
	}
}

// passthroughKey is the Extra key (a reader hint, not data) where
// Passthrough leaves the detail it reported for an event.
const passthroughKey = "_passthrough"

// Passthrough records that a reader passes e, a record it does not know,
// through whole (LossPassthrough with detail, at e's location). A writer
// that cannot carry e reports it with DropEvent, so that the record is
// reported dropped rather than both carried and dropped.
//
// A reader passes every record of a kind through with the same detail, so
// its JSON is made once, kept with the entry (Loss.quoted) and shared by
// the events, and an event without an Extra gets one made in a block the
// report keeps (passthroughExtra): no allocation a record for either.
func (r *Report) Passthrough(e *Event, detail string) {
	l := r.add(LossPassthrough, detail, "", e.Loc, 1)
	if l == nil {
		e.Extra.SetString(passthroughKey, detail)
		return
	}
	if l.quoted == nil {
		if !utf8.ValidString(detail) {
			// Decoded, its JSON would not give detail back, which
			// DropEvent's retraction looks for (passedThrough).
			e.Extra.SetString(passthroughKey, detail)
			return
		}
		q := StringJSON(detail)
		l.quoted = q[:len(q):len(q)] // an append to it is made elsewhere
	}
	if cap(e.Extra) == 0 {
		e.Extra = r.passthroughExtra(l.quoted)
		return
	}
	e.Extra.Set(passthroughKey, l.quoted)
}

// passthroughExtra is an Extra of the one member passthroughKey: value,
// made in a block of Fields the report keeps (its first blocks of 2, 4,
// 8... members, then of maxExtrasBlock). Each is as long as its room (its
// cap is 1), so that an append to it is made elsewhere and never over the
// next one; a sink that keeps the event keeps the block with it.
func (r *Report) passthroughExtra(value json.RawMessage) Fields {
	if len(r.extras) == 0 {
		r.extrasBlock = min(max(2*r.extrasBlock, 2), maxExtrasBlock)
		r.extras = make([]Field, r.extrasBlock)
	}
	f := r.extras[:1:1]
	r.extras = r.extras[1:]
	f[0] = Field{Key: passthroughKey, Value: value}
	return f
}

// maxExtrasBlock is the most Fields passthroughExtra makes at once (40
// bytes each).
const maxExtrasBlock = 64

// DropEvent reports that a writer drops e: a LossDroppedEvent entry with
// detail. When the reader reported e passed through whole (Passthrough),
// that entry no longer counts it.
func (r *Report) DropEvent(e *Event, detail string) {
	if was, ok := r.passedThrough(e); ok {
		r.retract(LossPassthrough, was, e.Loc)
	}
	r.Lose(LossDroppedEvent, e.Kind.String(), detail, e.Loc)
}

// passedThrough is the detail Passthrough reported e with, when it did:
// its passthroughKey's value decoded, or, when the value is the JSON
// Passthrough made for an entry of this report (the same bytes, not
// decoded again), that entry's detail.
func (r *Report) passedThrough(e *Event) (string, bool) {
	v, ok := e.Extra.Get(passthroughKey)
	if !ok {
		return "", false
	}
	if r != nil && len(v) > 0 {
		for _, l := range r.Losses {
			if l.Kind == LossPassthrough && len(l.quoted) == len(v) && &l.quoted[0] == &v[0] {
				return l.Detail, true
			}
		}
	}
	return e.Extra.String(passthroughKey)
}

// retract takes one occurrence at loc back from the entry (kind, detail).
func (r *Report) retract(kind LossKind, detail string, loc Loc) {
	l := r.Find(kind, detail)
	if l == nil {
		return
	}
	l.Count--
	for i, at := range l.Locations {
		if at == loc {
			l.Locations = append(l.Locations[:i], l.Locations[i+1:]...)
			break
		}
	}
	if l.Count > 0 {
		return
	}
	for i, x := range r.Losses {
		if x == l {
			r.Losses = append(r.Losses[:i], r.Losses[i+1:]...)
			r.index = nil // rebuilt by the next add
			r.recent = [len(r.recent)]*Loss{}
			return
		}
	}
}
