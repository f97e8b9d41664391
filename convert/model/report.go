package model

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
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
)

// Loc is where something is in the input (or output): a 1-based line
// number, a JSON path, or both.
type Loc struct {
	Line int    `json:"line,omitempty"`
	Path string `json:"path,omitempty"`
}

func (l Loc) String() string {
	switch {
	case l.Line > 0 && l.Path != "":
		return "line " + strconv.Itoa(l.Line) + " " + l.Path
	case l.Line > 0:
		return "line " + strconv.Itoa(l.Line)
	case l.Path != "":
		return l.Path
	}
	return "-"
}

// IsZero reports whether the location is unknown.
func (l Loc) IsZero() bool { return l.Line == 0 && l.Path == "" }

// MaxLocations is how many locations a Loss keeps; the Count is exact.
const MaxLocations = 5

// Loss is one kind of loss with a detail (a field name, a record type, an
// error message), its exact count and the first few locations.
type Loss struct {
	Kind      LossKind `json:"kind"`
	Detail    string   `json:"detail"`
	Count     int      `json:"count"`
	Locations []Loc    `json:"locations,omitempty"`
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
}

type lossKey struct {
	kind   LossKind
	detail string
}

// Add records one occurrence.
func (r *Report) Add(kind LossKind, detail string, loc Loc) { r.AddN(kind, detail, loc, 1) }

// AddN records n occurrences at one location.
func (r *Report) AddN(kind LossKind, detail string, loc Loc, n int) {
	if r == nil || n <= 0 {
		return
	}
	if r.index == nil {
		r.index = make(map[lossKey]int)
		for i, l := range r.Losses {
			r.index[lossKey{l.Kind, l.Detail}] = i
		}
	}
	k := lossKey{kind, detail}
	i, ok := r.index[k]
	if !ok {
		i = len(r.Losses)
		r.index[k] = i
		r.Losses = append(r.Losses, &Loss{Kind: kind, Detail: detail})
	}
	l := r.Losses[i]
	l.Count += n
	if len(l.Locations) < MaxLocations && !loc.IsZero() {
		l.Locations = append(l.Locations, loc)
	}
}

// Malformed records an input line that could not be parsed.
func (r *Report) Malformed(line int, err error) {
	msg := "unparseable"
	if err != nil {
		msg = err.Error()
		if len(msg) > 120 {
			msg = msg[:117] + "..."
		}
	}
	r.Add(LossMalformed, msg, Loc{Line: line})
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
func (r *Report) Merge(o *Report) {
	if o == nil {
		return
	}
	for _, l := range o.Losses {
		first := true
		for _, loc := range l.Locations {
			n := 1
			if first {
				n = l.Count - len(l.Locations) + 1
				first = false
			}
			r.AddN(l.Kind, l.Detail, loc, n)
		}
		if len(l.Locations) == 0 {
			r.AddN(l.Kind, l.Detail, Loc{}, l.Count)
		}
	}
	r.Events += o.Events
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
	total := 0
	for _, l := range r.Losses {
		total += l.Count
	}
	fmt.Fprintf(&b, "%s%d events, %d losses of %d kinds\n", dir, r.Events, total, len(r.Losses))
	for _, l := range r.Losses {
		fmt.Fprintf(&b, "  %s: %s ×%d", l.Kind, l.Detail, l.Count)
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
		b.WriteByte('\n')
	}
	return b.String()
}

// JSON renders the report as one JSON object:
// {"from","to","events","losses":[{"kind","detail","count","locations":[{"line","path"}]}]}.
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
// whose format has no place for the source's own fields. Keys starting with
// "_" are reader hints, not data, and are not reported.
func (r *Report) DropExtras(e *Event) {
	for _, f := range e.Extra {
		if len(f.Key) > 0 && f.Key[0] == '_' {
			continue
		}
		r.Add(LossDroppedField, e.Kind.String()+" field "+f.Key, e.Loc)
	}
}

// DropHeaderExtras reports every header Extra key as dropped.
func (r *Report) DropHeaderExtras(h *Header) {
	for _, f := range h.Extra {
		if len(f.Key) > 0 && f.Key[0] == '_' {
			continue
		}
		r.Add(LossDroppedField, "header field "+f.Key, Loc{})
	}
}
