package jsonw

import (
	"bytes"
	"strings"
	"testing"
)

// writeAt writes one object at depth with a Buf that indents there,
// members by kinds[i] (a byte each: string, key and a value, raw, int,
// bool, string again) whose keys are k, either through the At methods
// with a Key made for keyDepth, or through Str, Key, ... with k's string
// (at false): the reference the At methods are held to. (A literal's
// kind writes one of literals, LiteralAt's values.)
func writeAt(k string, keyDepth, depth int, kinds []byte, s string, at bool) []byte {
	var b Buf
	b.Indent(depth)
	key := NewKey(k, keyDepth)
	o := b.Begin()
	for i, c := range kinds {
		switch c % 7 {
		case 0:
			if at {
				o.StrAt(&key, s)
			} else {
				o.Str(k, s)
			}
		case 1:
			if at {
				o.KeyAt(&key)
			} else {
				o.Key(k)
			}
			b.Raw([]byte(`{"a":[1,2]}`))
		case 2:
			if at {
				o.RawAt(&key, nil)
			} else {
				o.Raw(k, nil)
			}
		case 3:
			if at {
				o.IntAt(&key, int64(i)-3)
			} else {
				o.Int(k, int64(i)-3)
			}
		case 4:
			if at {
				o.BoolAt(&key, i%2 == 0)
			} else {
				o.Bool(k, i%2 == 0)
			}
		case 5:
			if at {
				o.BytesAt(&key, []byte(s))
			} else {
				o.Str(k, s)
			}
		case 6:
			v := literals[i%len(literals)]
			if at {
				o.LiteralAt(&key, v)
			} else {
				o.Raw(k, v)
			}
		}
	}
	o.End()
	return b.Bytes()
}

// literals are LiteralAt's values in the tests: numbers (a unix time's
// form), literals and none (null).
var literals = [][]byte{[]byte("1766176142.000000"), nil, []byte("-1"), []byte("true"), []byte("null"), []byte("0"), []byte("1.5e-7"), []byte("false")}

// A Key's members write what Str, Key, Raw, Int and Bool write with its
// string: at its own depth (its line stored whole) and at any other (the
// slow way), for keys of every length around the padded block's, escaped
// keys, deep objects whose line does not fit the block, and compact,
// quoting and canonical objects.
func TestKeyAtMatchesStr(t *testing.T) {
	kinds := []byte{0, 1, 2, 3, 4, 5, 6, 0, 0, 3, 6, 6, 6, 6, 6, 6, 6}
	var keys []string
	for n := 0; n <= 50; n++ {
		keys = append(keys, strings.Repeat("k", n))
	}
	keys = append(keys, `a"b`, "tab\there", "é", "\xff", "\u2028", `\`)
	for _, k := range keys {
		for depth := 0; depth <= 20; depth++ {
			for _, keyDepth := range []int{depth, depth + 1, depth - 1, 0} {
				want := writeAt(k, keyDepth, depth, kinds, "v\n\"", false)
				if got := writeAt(k, keyDepth, depth, kinds, "v\n\"", true); !bytes.Equal(got, want) {
					t.Fatalf("key %q at %d, object at %d:\ngot  %s\nwant %s", k, keyDepth, depth, got, want)
				}
			}
		}
	}
	// Objects that do not indent: compact, quoting, canonical.
	key := NewKey("name", 1)
	for _, mode := range []string{"compact", "quote", "canonical"} {
		build := func(at bool) []byte {
			var b Buf
			switch mode {
			case "quote":
				b.Quote()
			case "canonical":
				b.WriteCanonical(AppendString, func(dst, v []byte) []byte { return append(dst, v...) })
			}
			write := func(b *Buf) {
				o := b.Begin()
				if at {
					o.StrAt(&key, "x")
					o.IntAt(&key, 1)
					o.BoolAt(&key, true)
					o.RawAt(&key, []byte(`[1]`))
					o.BytesAt(&key, []byte("y"))
					o.LiteralAt(&key, []byte("1.50"))
					o.LiteralAt(&key, nil)
					o.KeyAt(&key)
				} else {
					o.Str("name", "x")
					o.Int("name", 1)
					o.Bool("name", true)
					o.Raw("name", []byte(`[1]`))
					o.Str("name", "y")
					o.Raw("name", []byte("1.50"))
					o.Raw("name", nil)
					o.Key("name")
				}
				b.Raw([]byte(`"z"`))
				o.End()
			}
			write(&b)
			return b.Bytes()
		}
		if got, want := build(true), build(false); !bytes.Equal(got, want) {
			t.Fatalf("%s: got %s, want %s", mode, got, want)
		}
	}
}

// FuzzKeyAt holds the At methods to Str, Key, ... (writeAt) for any key,
// value, depths and sequence of members.
func FuzzKeyAt(f *testing.F) {
	f.Add("role", 4, 4, []byte{0, 1, 2, 3, 4, 5, 6}, "assistant")
	f.Add("timestamp", 5, 5, []byte{6, 6, 6, 6, 6, 6, 6, 6, 6}, "")
	f.Add("tool_call_id", 7, 6, []byte{0, 0}, "x\"y")
	f.Add(strings.Repeat("k", 40), 3, 3, []byte{5, 1}, "\xff")
	f.Fuzz(func(t *testing.T, k string, keyDepth, depth int, kinds []byte, s string) {
		keyDepth, depth = keyDepth&31, depth&31
		if len(kinds) > 64 {
			kinds = kinds[:64]
		}
		want := writeAt(k, keyDepth, depth, kinds, s, false)
		if got := writeAt(k, keyDepth, depth, kinds, s, true); !bytes.Equal(got, want) {
			t.Fatalf("key %q at %d, object at %d:\ngot  %s\nwant %s", k, keyDepth, depth, got, want)
		}
	})
}
