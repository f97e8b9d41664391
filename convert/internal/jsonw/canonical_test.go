package jsonw

import (
	"strings"
	"testing"
)

// TestBeginInOrderAsBegin: an object begun in order (BeginInOrder) whose
// members come in their keys' order writes what Begin's object writes,
// compact, indented, quoted and canonical, with an object of any order
// inside it (sorted by a canonical Buf) and inside an object of any
// order itself (its members sorted around it); with inOrder false, it
// is Begin's.
func TestBeginInOrderAsBegin(t *testing.T) {
	modes := map[string]func(b *Buf){
		"compact":   func(*Buf) {},
		"indented":  func(b *Buf) { b.Indent(0) },
		"quoted":    func(b *Buf) { b.Quote() },
		"canonical": func(b *Buf) { b.WriteCanonical(AppendString, func(dst, v []byte) []byte { return append(dst, v...) }) },
	}
	write := func(b *Buf, begin func() *Obj) {
		outer := b.Begin()
		outer.Str("z", "last")
		outer.Key("m")
		o := begin()
		o.Str("a", "x")
		o.Key("b")
		n := b.Begin()
		n.Int("z", 1)
		n.Int("y", 2)
		n.End()
		o.Str("c", "é\n\"")
		o.Strings("d", []string{"p", "q\x01"})
		o.Key("e")
		in := begin()
		in.Bool("f", true)
		in.End()
		o.End()
		outer.Str("a", "first")
		outer.End()
	}
	for name, mode := range modes {
		for _, inOrder := range []bool{true, false} {
			var got, want Buf
			mode(&got)
			mode(&want)
			write(&got, func() *Obj { return got.BeginInOrder(inOrder) })
			write(&want, want.Begin)
			if got.String() != want.String() {
				t.Fatalf("%s, in order %v:\n%s\nwant\n%s", name, inOrder, got.String(), want.String())
			}
		}
	}
}

// FuzzWholeNames holds the members of Names in a canonical object written
// in order (BeginInOrder), which store their keys and values whole as a
// compact object does when their compact forms are canonical's
// (wholeNames), to the same members written by Str, Key and Strings in a
// canonical object whose members are noted and sorted (Begin): with
// serde_json's escaping (str nil) and with another's, into buffers with
// no free room, a little and more, first in the object and after a
// nested object. The keys are k with a digit after it, in order.
func FuzzWholeNames(f *testing.F) {
	f.Add("kind", "tool_call", "v", uint8(0))
	f.Add("k\"ey", "v\\al\x00ue ü \xff", "\u2028", uint8(5))
	f.Add("a\bb", "\f", "x\x08", uint8(2))
	f.Add("", "", "", uint8(40))
	f.Fuzz(checkWholeNames)
}

// Every byte that ends a run, and the two serde_json escapes otherwise
// (a backspace, a form feed), at every place of keys and values of 0 to
// 34 bytes (a Name's padded block holds 32), each written as
// checkWholeNames requires.
func TestWholeNamesEveryStop(t *testing.T) {
	for m := 0; m <= 34; m++ {
		base := strings.Repeat("k", m)
		for at := -1; at < m; at++ {
			for _, c := range []byte{0, 0x1f, '"', '\\', 0x80, 0xff, '\n', '\b', '\f', 0x7f, ' '} {
				k := base
				if at >= 0 {
					k = base[:at] + string(c) + base[at+1:]
				}
				checkWholeNames(t, k, "v", "a value of more than thirty-two bytes", 2)
				checkWholeNames(t, "type", k, k, 3)
			}
		}
	}
}

// checkWholeNames is FuzzWholeNames' test.
func checkWholeNames(t *testing.T, k, v, s string, bits uint8) {
	t.Helper()
	var keys [10]Name
	for i := range keys {
		keys[i] = NewName(k + string(rune('0'+i)))
	}
	vn, sn := NewName(v), NewName(s)
	if want := string(append(AppendSerdeString(nil, v), ':')) == vn.compact; vn.canonical != want {
		t.Fatalf("NewName(%q).canonical = %v", v, vn.canonical)
	}
	modes := []func(b *Buf){
		func(b *Buf) { b.WriteCanonical(nil, func(dst, v []byte) []byte { return append(dst, v...) }) },
		func(b *Buf) { b.WriteCanonical(AppendString, func(dst, v []byte) []byte { return append(dst, v...) }) },
	}
	nested := bits&1 != 0
	for mi, mode := range modes {
		for _, room := range []int{0, 1, 3*len(k) + len(v) + len(s) + 8, 8*(len(k)+len(v)+len(s)) + 200} {
			got, want := Buf{}, Buf{}
			got.Grow(room)
			mode(&got)
			mode(&want)
			gOuter, wOuter := got.Begin(), want.Begin()
			gOuter.Str("z", "after")
			wOuter.Str("z", "after")
			gOuter.Key("m")
			wOuter.Key("m")
			g, w := got.BeginInOrder(true), want.Begin()
			if nested {
				// A nested object of any order first, noted and sorted:
				// the members after it are in order again.
				g.Key("")
				w.Key("")
				for _, b := range []*Buf{&got, &want} {
					n := b.Begin()
					n.Str("y", s)
					n.Str("x", v)
					n.End()
				}
			}
			g.StrName(&keys[0], s)
			w.Str(keys[0].s, s)
			g.NameName(&keys[1], &vn)
			w.Str(keys[1].s, v)
			g.KeyName(&keys[2])
			w.Key(keys[2].s)
			got.Raw([]byte("1"))
			want.Raw([]byte("1"))
			g.NamesName(&keys[3], []*Name{&vn, &sn, &vn})
			w.Strings(keys[3].s, []string{v, s, v})
			g.NamesName(&keys[4], nil)
			w.Strings(keys[4].s, nil)
			g.IntName(&keys[5], -12)
			w.Int(keys[5].s, -12)
			g.BoolName(&keys[6], bits&2 != 0)
			w.Bool(keys[6].s, bits&2 != 0)
			g.RawName(&keys[7], []byte("[1]"))
			w.Raw(keys[7].s, []byte("[1]"))
			g.StrName(&keys[8], v)
			w.Str(keys[8].s, v)
			g.NameName(&keys[9], &sn)
			w.Str(keys[9].s, s)
			g.End()
			w.End()
			gOuter.Str("a", "before")
			wOuter.Str("a", "before")
			gOuter.End()
			wOuter.End()
			if got.String() != want.String() {
				t.Fatalf("mode %d, key %q, value %q, string %q, room %d:\n%q\nwant\n%q", mi, k, v, s, room, got.String(), want.String())
			}
		}
	}
}
