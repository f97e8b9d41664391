package jsonscan

import (
	"bytes"
	"testing"
)

// FuzzRecorded holds Index.Recorded to MemberSpans: every object of an
// input the index validated (ObjectSpans), at every depth, listed with
// Recorded gives the members MemberSpans finds scanning a copy, each key
// decoded as Key decodes it and each value the same bytes. Two inputs
// are indexed by turns, so that a list's keys are looked for in strings
// kept for other lists (the same hash, other keys: a miss at the first,
// a middle or the last key, or the kept keys longer than the list's), and
// Len is the object's own count of members.
func FuzzRecorded(f *testing.F) {
	f.Add([]byte(`{"step_id":1,"extra":{"a":1,"b":[{"c":2},{"c":3,"d":{}}]}}`), []byte(`{"x":{"a":1,"b":2}}`))
	// The same first, second and last keys: one slot.
	f.Add([]byte(`{"o":{"ab":1,"cd":2,"ef":3}}`), []byte(`{"o":{"ab":1,"cd":2,"zz":0,"ef":3}}`))
	f.Add([]byte(`{"o":{"ab":1,"cd":2,"ef":3,"ef":4}}`), []byte(`{"o":{"ab":1,"cd":2,"ef":3}}`))
	f.Add([]byte(`{"o":{"ab":1,"cd":2}}`), []byte(`{"o":{"xb":1,"cd":2}}`))
	// Empty keys lay no bytes: the kept keys of the first are those of the
	// second, which has fewer members (Len is the object's own count).
	f.Add([]byte(`{"o":{"ab":1,"cd":2,"":0,"":0,"":0,"ef":3}}`), []byte(`{"o":{"ab":1,"cd":2,"ef":3}}`))
	f.Add([]byte(`{"o":{"\u0061":1,"b\n":{}},"p":{"":1},"q":{"é":2}}`), []byte("{\"o\":{\"\xff\":1}}"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var ix Index
		type kept struct{ s, want string }
		var all []kept
		for _, in := range [][]byte{a, b, a, b, a} {
			if _, err := ix.ObjectSpans(in, nil); err != nil {
				continue
			}
			root := true
			var objects func(v []byte)
			objects = func(v []byte) {
				switch v[0] {
				case '[':
					Array(v, func(_ int, e []byte) error { objects(e); return nil })
					return
				case '{':
				default:
					return
				}
				spans, err := MemberSpans(bytes.Clone(v), nil)
				if err != nil {
					t.Fatalf("%q: MemberSpans: %v", v, err)
				}
				// The input's own members are ObjectSpans's, not recorded.
				r, ok := ix.Recorded(v)
				if ok && root || !root && ok != (len(spans) > 0) {
					t.Fatalf("%q in %q: Recorded says %v, %d members", v, in, ok, len(spans))
				}
				if ok && r.Len() != len(spans) {
					t.Fatalf("%q: Recorded.Len %d, want %d", v, r.Len(), len(spans))
				}
				root = false
				for i, m := range spans {
					if !ok {
						objects(v[m.ValueStart:m.ValueEnd])
						continue
					}
					key, value, ok := r.Next()
					if !ok {
						t.Fatalf("%q: Recorded ends after %d members of %d", v, i, len(spans))
					}
					if want := Key(v[m.KeyStart:m.KeyEnd]); key != want {
						t.Fatalf("%q: member %d key %q, want %q", v, i, key, want)
					}
					if want := v[m.ValueStart:m.ValueEnd]; !bytes.Equal(value, want) || cap(value) != len(want) {
						t.Fatalf("%q: member %d value %q (cap %d), want %q", v, i, value, cap(value), want)
					}
					all = append(all, kept{key, string([]byte(key))})
					objects(v[m.ValueStart:m.ValueEnd])
				}
				if ok {
					if _, _, more := r.Next(); more {
						t.Fatalf("%q: Recorded has more than %d members", v, len(spans))
					}
				}
			}
			objects(in[skipWS(in, 0):])
		}
		for _, k := range all {
			if k.s != k.want {
				t.Fatalf("a key Recorded gave changed: %q, was %q", k.s, k.want)
			}
		}
	})
}
