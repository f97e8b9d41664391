package jsonw

import "testing"

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
