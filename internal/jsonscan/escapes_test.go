package jsonscan

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// escapesByByte is where the strings of b that have an escape are, by a
// walk over every byte: the reference the validator's record
// (Index.escapes) is held to.
func escapesByByte(b []byte) []span32 {
	var out []span32
	start, esc := -1, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case start < 0:
			if c == '"' {
				start, esc = i, false
			}
		case c == '"':
			if esc {
				out = append(out, span32{int32(start), int32(i + 1)})
			}
			start = -1
		case c == '\\':
			esc = true
			i++
		}
	}
	return out
}

// FuzzEscapes holds what an index records of its input's escapes to the
// input: for every way an input is validated into an index (ObjectSpans,
// Object, a Walker's IndexedValue), the strings recorded are those that
// have an escape (escapesByByte), noEscape says yes of a run of the input
// only when it holds no backslash, and String of any run that starts and
// ends with a quote is String of a copy (which looks through it), the
// same with a Maker as without (MakeStrings; the Maker given the string's
// bytes, no more), and of every string the input holds what
// encoding/json decodes.
func FuzzEscapes(f *testing.F) {
	for _, s := range []string{
		`{"a":"plain","b":"one\"two","c":["\\","\\\\\"","x"],"d":{"e\n":"\u00e9\n"}}`,
		`{"a":"\\"}`,
		`{"k\"ey":"v\\\"","l":"\/\b\f\n\r\t"}`,
		"{\"a\":\"\\ud83d\\ude00 \xf0\x9f\x98\x80\",\"b\":\"\xff\\n\"}",
		`[{"a":"x\"y"},"\\\\",{"b":[]}]`,
		`{"t":"0123456789abcdef0123\"456789"}`,
		`{"a":1,"b":"no escape here"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 160 {
			return
		}
		var maker copyMaker
		check := func(how string, ix *Index, in []byte) {
			t.Helper()
			if !ix.escapesKnown {
				t.Fatalf("%s %q: escapes not known after a validation", how, in)
			}
			if want := escapesByByte(in); !slices.Equal(ix.escapes, want) && !(len(ix.escapes) == 0 && len(want) == 0) {
				t.Fatalf("%s %q: escapes %v, by byte %v", how, in, ix.escapes, want)
			}
			for i := 0; i <= len(in); i++ {
				for j := i; j <= len(in); j++ {
					if ix.noEscape(i, j-i) && bytes.IndexByte(in[i:j], '\\') >= 0 {
						t.Fatalf("%s %q: noEscape of %q", how, in, in[i:j])
					}
					v := in[i:j]
					if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
						continue
					}
					got, gotOK := ix.String(v)
					want, wantOK := String(bytes.Clone(v))
					if got != want || gotOK != wantOK {
						t.Fatalf("%s %q: String(%q) = %q, %v; of a copy %q, %v", how, in, v, got, gotOK, want, wantOK)
					}
					ix.MakeStrings(&maker)
					made, madeOK := ix.String(v)
					id, idOK := ix.ID(v)
					ix.MakeStrings(nil)
					if made != got || madeOK != gotOK || id != got || idOK != gotOK {
						t.Fatalf("%s %q: String(%q) = %q, %v with a Maker, ID %q, %v; without %q, %v", how, in, v, made, madeOK, id, idOK, got, gotOK)
					}
					var dec string
					if json.Valid(v) && json.Unmarshal(v, &dec) == nil && (dec != got || !gotOK) {
						t.Fatalf("%s %q: String(%q) = %q, %v; encoding/json %q", how, in, v, got, gotOK, dec)
					}
				}
			}
		}
		var ix Index
		if _, err := ix.ObjectSpans(b, nil); err == nil {
			check("ObjectSpans", &ix, b)
		} else if ix.escapesKnown {
			t.Fatalf("%q: escapes known after an invalid input", b)
		}
		if err := ix.Object(b, func(_, _ []byte) error { return nil }); err == nil {
			check("Object", &ix, b)
		}
		w := NewWalker(bytes.NewReader(b), false)
		if v, _, err := w.IndexedValue(&ix); err == nil {
			check("IndexedValue", &ix, v)
		}
		// An input indexed without validation (ValidSpans) knows none.
		if Valid(b) {
			ix.ValidSpans(b, nil)
			if ix.escapesKnown {
				t.Fatalf("%q: escapes known after ValidSpans", b)
			}
		}
	})
}

// copyMaker is a Maker that makes each string of its own (as the zero
// Index does) and counts them: what String gives it is what it gives
// back.
type copyMaker struct{ n int }

func (m *copyMaker) Of(b []byte) string {
	m.n++
	return string(b)
}

// TestMakeStrings: String makes a plain string of the indexed input with
// the index's Maker, and every other (an escape, invalid UTF-8, not of
// the input, empty) as before; a new input keeps the Maker (Reset).
func TestMakeStrings(t *testing.T) {
	var ix Index
	var m copyMaker
	ix.MakeStrings(&m)
	for _, c := range []struct {
		in    string
		made  int // strings the Maker makes of the input's values
		texts []string
	}{
		{`{"a":"plain","b":"one\"two","c":"","d":"日本語"}`, 2, []string{"plain", `one"two`, "", "日本語"}},
		{"{\"a\":\"x\xffy\",\"b\":\"ok\"}", 0, []string{"x\uFFFDy", "ok"}},
	} {
		b := []byte(c.in)
		spans, err := ix.ObjectSpans(b, nil)
		if err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		m.n = 0
		for i, sp := range spans {
			got, ok := ix.String(b[sp.ValueStart:sp.ValueEnd])
			if !ok || got != c.texts[i] {
				t.Fatalf("%q: String of value %d = %q, %v; want %q", b, i, got, ok, c.texts[i])
			}
		}
		if m.n != c.made {
			t.Fatalf("%q: the Maker made %d strings, want %d", b, m.n, c.made)
		}
	}
	// A copy is not of the input: its string is made as before.
	m.n = 0
	if got, _ := ix.String([]byte(`"ok"`)); got != "ok" || m.n != 0 {
		t.Fatalf("String of a copy = %q, the Maker made %d", got, m.n)
	}
	// ID makes its strings with the Maker of ids (MakeIDs), String
	// still with its own; without one, ID's are String's Maker's, before
	// MakeStrings is called again or after.
	b := []byte(`{"id":"call_1","text":"hello"}`)
	spans, err := ix.ObjectSpans(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	id, text := b[spans[0].ValueStart:spans[0].ValueEnd], b[spans[1].ValueStart:spans[1].ValueEnd]
	var ids, other copyMaker
	for _, c := range []struct {
		set                func()
		idsMade, textsMade int
	}{
		{func() { ix.MakeIDs(&ids) }, 1, 1},
		{func() { ix.MakeStrings(&other) }, 1, 1}, // the ids' Maker stays
		{func() { ix.MakeIDs(nil) }, 0, 2},        // String's Maker makes both
		{func() { ix.MakeStrings(&m) }, 0, 2},
	} {
		c.set()
		ids.n, m.n, other.n = 0, 0, 0
		if s, ok := ix.ID(id); s != "call_1" || !ok {
			t.Fatalf("ID = %q, %v", s, ok)
		}
		if s, ok := ix.String(text); s != "hello" || !ok {
			t.Fatalf("String = %q, %v", s, ok)
		}
		if ids.n != c.idsMade || m.n+other.n != c.textsMade {
			t.Fatalf("the Maker of ids made %d strings, the Maker %d; want %d and %d", ids.n, m.n+other.n, c.idsMade, c.textsMade)
		}
	}
}
