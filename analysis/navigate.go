package analysis

import (
	"bytes"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// SymbolRef is a navigable name under the cursor: a call id or a message id.
type SymbolRef struct {
	Kind RefKind
	Name string
	Span grammar.Span // where it is written
}

// RefKind says what a SymbolRef names.
type RefKind uint8

const (
	CallRef    RefKind = iota + 1 // an id= value: a tool call, subagent, MCP call or question
	MessageRef                    // a parent= value or a message's own id/uuid
)

// Occurrence is one place a symbol is written.
type Occurrence struct {
	Line int
	Span grammar.Span
	// Def marks the place that introduces the symbol: the line that started
	// the call, or the message a parent= names.
	Def bool
}

// RefAt returns the symbol at byte offset off, if the cursor is on an id=,
// parent=, uuid= or id_full= value (or its key).
func RefAt(t *grammar.Tree, off int) (SymbolRef, bool) { return refAt(t, off, false) }

// refAt is RefAt, which reads the pairs of the line up to off; with
// wholeLine it reads all of them (what RefAt must answer the same as).
func refAt(t *grammar.Tree, off int, wholeLine bool) (SymbolRef, bool) {
	l := t.Line(t.LineAt(off))
	if !l.Kind.IsBody() {
		return SymbolRef{}, false
	}
	li, text := t.Info(l.Num)
	rel := off - l.Start
	stop := rel + 1
	if wholeLine {
		stop = len(text)
	}
	for _, p := range grammar.PairsUntil(text, &li, stop) {
		if rel < p.Key.Start || rel > p.Value.End || !p.Value.Valid() {
			continue
		}
		key := string(text[p.Key.Start:p.Key.End])
		val := text[p.Value.Start:p.Value.End]
		switch key {
		case "id":
			// The reference reads the id as \w+ after the first \bid=; use
			// exactly what the rules use so navigation agrees with W002.
			if l.ID.Valid() && l.ID.Start-l.Start == p.Value.Start {
				kind := CallRef
				if l.Kind == grammar.User {
					kind = MessageRef
				}
				return SymbolRef{Kind: kind, Name: string(t.Slice(l.ID.Start, l.ID.End)), Span: l.ID}, true
			}
		case "parent", "parent_full", "uuid", "id_full":
			v := unquote(val)
			if len(v) == 0 {
				continue
			}
			if key == "id_full" && l.Kind != grammar.User {
				// id_full on a tool line is the call's full id.
				if l.ID.Valid() {
					return SymbolRef{Kind: CallRef, Name: string(t.Slice(l.ID.Start, l.ID.End)), Span: p.Value.Shift(l.Start)}, true
				}
				continue
			}
			return SymbolRef{Kind: MessageRef, Name: messageKey(v), Span: p.Value.Shift(l.Start)}, true
		}
	}
	return SymbolRef{}, false
}

// messageKey is the comparable form of a message id: converters write the
// first 8 characters of a UUID in parent= and id=, and the whole in uuid=.
func messageKey(v []byte) string {
	if len(v) > 8 {
		v = v[:8]
	}
	return string(v)
}

func unquote(v []byte) []byte {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		return v[1 : len(v)-1]
	}
	return v
}

// Occurrences finds every place a symbol is written, in file order. For a
// call id the definition is the first t!: line with that id, or else the
// first line that registers it (t:, x:, c:, q:). For a message it is the
// line whose uuid= (or, for user lines, id=) is that message.
func Occurrences(t *grammar.Tree, ref SymbolRef) []Occurrence {
	var out []Occurrence
	name := []byte(ref.Name)
	defIndex, defRank := -1, 0
	for i := range t.ChunkCount() {
		// Skip chunks that cannot mention the symbol: a call id must be in
		// the chunk's summary, a message key in its bytes.
		if ref.Kind == CallRef {
			if summaryOf(t, i).id(ref.Name) == nil {
				continue
			}
		} else if c, _, _ := t.ChunkAt(i); !bytes.Contains(c.Text(), name) {
			continue
		}
		for l, text := range t.ChunkLines(i) {
			if !l.Kind.IsBody() {
				continue
			}
			switch ref.Kind {
			case CallRef:
				if !l.ID.Valid() || l.Kind == grammar.User || !bytes.Equal(text[l.ID.Start-l.Start:l.ID.End-l.Start], name) {
					continue
				}
				out = append(out, Occurrence{Line: l.Num, Span: l.ID})
				rank := 0
				switch {
				case l.Kind == grammar.ToolStart:
					rank = 2
				case l.Kind.RegistersID():
					rank = 1
				}
				if rank > defRank {
					defIndex, defRank = len(out)-1, rank
				}
			case MessageRef:
				if !bytes.Contains(text, name) {
					continue
				}
				out = appendMessageOccurrences(out, l, text, ref.Name)
			}
		}
	}
	if defIndex >= 0 {
		out[defIndex].Def = true
	}
	if ref.Kind == MessageRef {
		// One definition per line: a user line has both id= and id_full=.
		seen := map[int]bool{}
		for i := range out {
			if out[i].Def {
				if seen[out[i].Line] {
					out[i].Def = false
				}
				seen[out[i].Line] = true
			}
		}
	}
	return out
}

func appendMessageOccurrences(out []Occurrence, l grammar.Line, text []byte, key string) []Occurrence {
	li := grammar.ScanLine(text)
	for _, p := range grammar.Pairs(text, &li) {
		if !p.Value.Valid() || messageKey(unquote(text[p.Value.Start:p.Value.End])) != key {
			continue
		}
		switch string(text[p.Key.Start:p.Key.End]) {
		case "parent", "parent_full":
			out = append(out, Occurrence{Line: l.Num, Span: p.Value.Shift(l.Start)})
		case "uuid", "id_full":
			out = append(out, Occurrence{Line: l.Num, Span: p.Value.Shift(l.Start), Def: true})
		case "id":
			if l.Kind == grammar.User {
				out = append(out, Occurrence{Line: l.Num, Span: p.Value.Shift(l.Start), Def: true})
			}
		}
	}
	return out
}

// Definition returns where the symbol at off is introduced.
func Definition(t *grammar.Tree, off int) (Occurrence, bool) {
	ref, ok := RefAt(t, off)
	if !ok {
		return Occurrence{}, false
	}
	for _, o := range Occurrences(t, ref) {
		if o.Def {
			return o, true
		}
	}
	return Occurrence{}, false
}
