package jsonw

import (
	"bytes"
	"encoding/json"
	"iter"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

// stringByBytes is String as it was written first, one byte at a time: the
// reference FuzzString holds String to.
func stringByBytes(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b.WriteString(s[start:i])
			switch c {
			case '"', '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			default:
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString(s[start:i])
			b.WriteString(`\ufffd`)
			i++
			start = i
			continue
		}
		i += size
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}

// plainByBytes is PlainASCII one byte at a time.
func plainByBytes(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return i
		}
	}
	return len(s)
}

// Every byte that ends a run of plain ASCII, at every position of an
// eight-byte word and after it, and the bytes next to them that do not.
func TestPlainASCIIEveryStop(t *testing.T) {
	stops := []byte{0, 0x1f, '"', '\\', 0x80, 0xff, '\n'}
	plain := []byte{0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 'a'}
	for _, fill := range plain {
		for n := 0; n <= 20; n++ {
			base := strings.Repeat(string(fill), n)
			if got := PlainASCII(base); got != n {
				t.Fatalf("PlainASCII(%q) = %d, want %d", base, got, n)
			}
			for at := 0; at < n; at++ {
				for _, c := range stops {
					s := base[:at] + string(c) + base[at+1:]
					if got := PlainASCII(s); got != at {
						t.Fatalf("PlainASCII(%q) = %d, want %d", s, got, at)
					}
				}
			}
		}
	}
}

// Every byte that ends a run, at every place of strings of 0 to 72
// bytes (copyPlain's steps of sixteen and its last, overlapping one),
// escaped by appendEscaped with room in dst (the short strings' words)
// and without.
func TestAppendStringEveryStop(t *testing.T) {
	for n := 0; n <= 72; n++ {
		base := strings.Repeat("a", n)
		for at := -1; at < n; at++ {
			for _, c := range []byte{0, 0x1f, '"', '\\', 0x80, 0xff, '\n', 0x7f, ' '} {
				s := base
				if at >= 0 {
					s = base[:at] + string(c) + base[at+1:]
				}
				var want bytes.Buffer
				stringByBytes(&want, s)
				for _, room := range []int{0, n + 2} {
					if got := AppendString(make([]byte, 0, room), s); string(got) != want.String() {
						t.Fatalf("AppendString(%q), room %d = %s, want %s", s, room, got, want.String())
					}
				}
			}
		}
	}
}

func FuzzString(f *testing.F) {
	for _, s := range []string{"", "plain text of some length", "a\"b\\c\nd\re\tf\x00g\x1f", "naïve → 日本語 😀 \u2028",
		"\xff\xfe bad \xc3 utf-8", strings.Repeat("0123456\"", 4), strings.Repeat("plain text, then ü and \n 😀 ", 5), "<html>&amp;</html>", "\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := PlainASCII(s), plainByBytes(s); got != want {
			t.Fatalf("PlainASCII(%q) = %d, want %d", s, got, want)
		}
		var got Buffer
		var want bytes.Buffer
		String(&got, s)
		stringByBytes(&want, s)
		if got.String() != want.String() {
			t.Fatalf("String(%q) = %s, want %s", s, got.String(), want.String())
		}
		var ofBytes Buffer
		StringOfBytes(&ofBytes, []byte(s))
		if ofBytes.String() != want.String() {
			t.Fatalf("StringOfBytes(%q) = %s, want %s", s, ofBytes.String(), want.String())
		}
		// Appended where dst has room (the short strings' path) or has
		// none, after what dst holds.
		for _, room := range []int{0, len(s), len(s) + 8} {
			dst := append(make([]byte, 0, 3+room+2), "ab:"...)
			if a := AppendString(dst, s); string(a) != "ab:"+want.String() {
				t.Fatalf("AppendString(%q) with room for %d = %s, want %s", s, room, a[3:], want.String())
			}
		}
		// Escaped twice in one pass, as escaping the string's JSON again
		// writes it.
		if q, want := appendQuotedString(nil, s), AppendString(nil, got.String()); string(q) != string(want[1:len(want)-1]) {
			t.Fatalf("appendQuotedString(%q) = %s, want %s", s, q, want[1:len(want)-1])
		}
		// What encoding/json writes (without HTML escaping), for a
		// string without the bytes it escapes otherwise: \b and \f
		// (\u0008 and \u000c here), U+2028 and U+2029.
		if !strings.ContainsAny(s, "\b\f\u2028\u2029") {
			var enc bytes.Buffer
			e := json.NewEncoder(&enc)
			e.SetEscapeHTML(false)
			if err := e.Encode(s); err != nil || got.String()+"\n" != enc.String() {
				t.Fatalf("String(%q) = %s, encoding/json writes %s (%v)", s, got.String(), enc.String(), err)
			}
		}
		var back string
		if err := json.Unmarshal(got.Bytes(), &back); err != nil || back != strings.ToValidUTF8(s, "\ufffd") && utf8.ValidString(s) {
			t.Fatalf("String(%q) = %s does not decode back: %q %v", s, got.String(), back, err)
		}
	})
}

// Obj.Strings writes what encoding/json writes for the same list (of
// valid UTF-8 without U+2028 or U+2029), [] for none.
func TestStringsMatchesEncoder(t *testing.T) {
	for _, list := range [][]string{nil, {}, {"U0"}, {"U0", "S1", "T12"}, {`q"b\s`, "tab\t", "é→", "<&>", "\x01"}} {
		var got Buf
		o := got.Begin()
		o.Strings("input", list)
		o.End()
		enc := list
		if enc == nil {
			enc = []string{}
		}
		var want bytes.Buffer
		e := json.NewEncoder(&want)
		e.SetEscapeHTML(false)
		e.Encode(map[string][]string{"input": enc})
		if got.String()+"\n" != want.String() {
			t.Errorf("Strings(%q) = %s, want %s", list, got.String(), want.String())
		}
	}
}

// TestWritingKeepsArgumentsOnTheStack: an Obj's methods pass on or keep
// nothing they are given, so that a writer's keys, strings and values
// made on the stack stay there (a canonical Buf copies what goes to
// canon's functions): writing them allocates nothing.
func TestWritingKeepsArgumentsOnTheStack(t *testing.T) {
	var b Buf
	b.Grow(1 << 12)
	allocs := testing.AllocsPerRun(100, func() {
		b.Reset()
		var kb, sb [16]byte
		key := string(append(kb[:0], "key"...))
		s := string(append(sb[:0], "value"...))
		o := b.Begin()
		o.Str(key, s)
		o.Raw(s, []byte("null"))
		o.Strings(key, []string{s, key})
		o.End()
	})
	if allocs != 0 {
		t.Fatalf("writing allocates %v times", allocs)
	}
}

// TestCanonicalLetsGoOfLargeCopies: the copy a canonical Buf makes of a
// large value to hand it on is not kept (small ones are, to be reused).
func TestCanonicalLetsGoOfLargeCopies(t *testing.T) {
	var b Buf
	b.WriteCanonical(AppendString, func(dst, v []byte) []byte { return append(dst, v...) })
	o := b.Begin()
	o.Str("small", "é") // (not plain: a plain string is not copied)
	if b.canon.arg == nil {
		t.Fatal("the copy of a small string is not kept for the next")
	}
	o.Str("large", strings.Repeat("x", 1<<17))
	o.Raw("raw", []byte(`"`+strings.Repeat("y", 1<<17)+`"`))
	o.End()
	if b.canon.arg != nil {
		t.Fatalf("a copy of %d bytes is kept", cap(b.canon.arg))
	}
}

// Obj.Members writes what writing the same members one by one writes,
// compact, indented, quoted and canonical, first in an object or after
// other members.
func TestMembersAsWrittenOneByOne(t *testing.T) {
	members := func(b *Buf, o *Obj) {
		o.Str("userType", "external")
		o.Str("cwd", `C:\dir "q"`)
		o.Int("n", 7)
		o.Key("nested")
		no := b.Begin()
		no.Str("a", "b")
		no.End()
	}
	var src Buf // the members encoded, compact
	so := src.Begin()
	members(&src, so)
	so.End()
	modes := map[string]func(b *Buf){
		"compact":   func(*Buf) {},
		"indented":  func(b *Buf) { b.Indent(0) },
		"quoted":    func(b *Buf) { b.Quote() },
		"canonical": func(b *Buf) { b.WriteCanonical(AppendString, func(dst, v []byte) []byte { return append(dst, v...) }) },
	}
	for name, mode := range modes {
		for _, before := range []bool{false, true} {
			var got, want Buf
			mode(&got)
			mode(&want)
			g, w := got.Begin(), want.Begin()
			if before {
				g.Str("type", "user")
				w.Str("type", "user")
			}
			g.Members(src.Bytes(), so.Len())
			members(&want, w)
			g.Str("z", "last")
			w.Str("z", "last")
			g.End()
			w.End()
			if got.String() != want.String() {
				t.Errorf("%s, members after another %v: Members wrote\n%s\nwant\n%s", name, before, got.String(), want.String())
			}
		}
	}
}

// FuzzStrMember holds a compact object's Str, which appends its member
// in one body, and its members of other values (Int, Float, Bool, Raw,
// Key: appendKey), whose short plain keys are stored as words (putKey),
// to the members written byte by byte: the separator, the key and the
// value escaped (stringByBytes), into buffers with no free room, with
// just the member's room, and with more.
func FuzzStrMember(f *testing.F) {
	f.Add("type", "user")
	f.Add("sessionId", "0123456789abcdef0123456789abcdef")
	f.Add("k\"ey", "v\\al\x00ue ü \xff")
	f.Add("", "")
	f.Fuzz(checkStrMembers)
}

// Every byte that ends a run, at every place of keys of 0 to 20 bytes (a
// compact Str, Int, Raw or Key stores keys of 4 to 16 as words, putKey),
// each written as checkStrMembers requires, with a short and a long value.
func TestStrMemberEveryStop(t *testing.T) {
	for k := range everyStop(20) {
		checkStrMembers(t, k, "v")
		checkStrMembers(t, k, "a value of more than thirty-two bytes")
	}
}

// everyStop is the keys of 0 to n bytes: each plain throughout, and with
// each byte that ends a run of PlainASCII (and a plain one) at each place.
func everyStop(n int) iter.Seq[string] {
	return func(yield func(string) bool) {
		for m := 0; m <= n; m++ {
			base := strings.Repeat("k", m)
			for at := -1; at < m; at++ {
				for _, c := range []byte{0, 0x1f, '"', '\\', 0x80, 0xff, '\n', 0x7f, ' '} {
					k := base
					if at >= 0 {
						k = base[:at] + string(c) + base[at+1:]
					}
					if !yield(k) {
						return
					}
				}
			}
		}
	}
}

// checkStrMembers writes two string members of key k and value s in a
// compact object, then members of k with an integer, a number, a boolean,
// a raw value and one Key starts, into buffers with no free room, with a
// little, with the member's room and with more, and requires them written
// byte by byte: the separator, the key and the value escaped
// (stringByBytes).
func checkStrMembers(t *testing.T, k, s string) {
	t.Helper()
	var key, member bytes.Buffer
	key.WriteByte(',')
	stringByBytes(&key, k)
	key.WriteByte(':')
	member.Write(key.Bytes())
	stringByBytes(&member, s)
	ks := key.String()
	want := "{" + member.String()[1:] + member.String() +
		ks + "-12" + ks + "1.5" + ks + "true" + ks + "[1]" + ks + "{}" + "}"
	for _, room := range []int{0, 1, 9, len(k) + len(s) + 8, 2*(len(k)+len(s)) + 40} {
		b := &Buffer{buf: make([]byte, 0, room)}
		o := Begin(b)
		o.Str(k, s)
		o.Str(k, s)
		o.Int(k, -12)
		o.Float(k, 1.5)
		o.Bool(k, true)
		o.Raw(k, []byte("[1]"))
		o.Key(k)
		Begin(b).End()
		o.End()
		if b.String() != want {
			t.Fatalf("Str(%q, %q) with room for %d: %s, want %s", k, s, room, b.String(), want)
		}
	}
}

// FuzzIndentedMember holds an indented object's members, whose line break,
// indentation and plain short keys are stored a word at a time, to the
// members written byte by byte (checkIndentedMembers), at depths from 0 to
// past what one word of indentation holds.
func FuzzIndentedMember(f *testing.F) {
	f.Add("step_id", "user", uint8(2))
	f.Add("tool_call_id", "call_0123456789abcdef", uint8(3))
	f.Add("name", "x", uint8(0))
	f.Add("reasoning_content", "ü", uint8(7))
	f.Add("k\"ey", "v\\al\x00ue \xff", uint8(40))
	f.Add("", "", uint8(1))
	f.Fuzz(func(t *testing.T, k, s string, depth uint8) {
		checkIndentedMembers(t, k, s, int(depth%48))
	})
}

// Every byte that ends a run, at every place of keys of 0 to 20 bytes
// (the words' keys are 4 to 16), at depths 0 to 20, each written as
// checkIndentedMembers requires.
func TestIndentedMemberEveryStop(t *testing.T) {
	for k := range everyStop(20) {
		for d := 0; d <= 20; d++ {
			checkIndentedMembers(t, k, "v", d)
		}
	}
}

// checkIndentedMembers writes members of key k (strings s, an integer and
// a boolean) in an object at depth d of a Buf that indents, into buffers
// with no free room, with a little and with more, and requires the
// members written byte by byte: the separator, a line break and two
// spaces a level, the key escaped (stringByBytes), ": " and the value.
func checkIndentedMembers(t *testing.T, k, s string, d int) {
	t.Helper()
	line := "\n" + strings.Repeat("  ", d+1)
	var member bytes.Buffer
	member.WriteString(line)
	stringByBytes(&member, k)
	member.WriteString(": ")
	m := member.String()
	var str bytes.Buffer
	stringByBytes(&str, s)
	want := "{" + m + str.String() + "," + m + str.String() + "," + m + "-12," + m + "true" +
		"\n" + strings.Repeat("  ", d) + "}"
	for _, room := range []int{0, 1, 9, len(k) + len(s) + 2*d + 16, 2*(len(k)+len(s)) + 4*d + 80} {
		var b Buf
		b.Grow(room)
		b.Indent(d)
		o := b.Begin()
		o.Str(k, s)
		o.Str(k, s)
		o.Int(k, -12)
		o.Bool(k, true)
		o.End()
		if b.String() != want {
			t.Fatalf("members (%q, %q) at depth %d with room for %d: %q, want %q", k, s, d, room, b.String(), want)
		}
	}
}

// FuzzNameMembers holds the members of a Name (StrName, NameName, KeyName,
// StringsName, NamesName, IntName, BoolName, RawName), whose keys and values are escaped once and stored a word at
// a time, and NamesAt of Names, to what Str, Key and Strings write of
// the Name's string, the
// reference: in every way a Buf writes (compact, quoted, indented at a depth,
// canonical), into buffers with no free room, with a little and with more,
// each member written twice (the second after a separator).
func FuzzNameMembers(f *testing.F) {
	f.Add("kind", "tool_call", "v", uint8(0))
	f.Add("message_id", "user", "msg_0123", uint8(1))
	f.Add("id", "parent", "", uint8(2))
	f.Add("unset", "ab", "cdefghijklmnopqrstu", uint8(3))
	f.Add("k\"ey", "v\\al\x00ue ü \xff", "\u2028", uint8(5))
	f.Add("", "", "", uint8(40))
	f.Fuzz(checkNameMembers)
}

// Every byte that ends a run, at every place of keys and values of 0 to
// 34 bytes (a Name's forms are stored as a padded block of 32 bytes when
// they fit in it, nameMember, and appended when not), each written as
// checkNameMembers requires.
func TestNameMembersEveryStop(t *testing.T) {
	for k := range everyStop(34) {
		checkNameMembers(t, k, "v", "a value of more than thirty-two bytes", 2)
		checkNameMembers(t, "type", k, k, 3)
	}
}

// checkNameMembers is FuzzNameMembers' test: each member of a Name
// written as the member of its string.
func checkNameMembers(t *testing.T, k, v, s string, depth uint8) {
	t.Helper()
	{
		kn, vn, sn := NewName(k), NewName(v), NewName(s)
		// Lists of 0 to 3 names, as long as depth picks.
		names, strs := []*Name{&sn, &kn, &vn}, []string{s, k, v}
		if kn.String() != k {
			t.Fatalf("NewName(%q).String() = %q", k, kn.String())
		}
		modes := []func(b *Buf){
			func(*Buf) {},
			func(b *Buf) { b.Quote() },
			func(b *Buf) { b.Indent(int(depth % 48)) },
			func(b *Buf) { b.WriteCanonical(AppendString, func(dst, v []byte) []byte { return append(dst, v...) }) },
		}
		// A Names whose member was made at another depth first (in an
		// object that indents: written as NamesName writes it after).
		other := NewNames([]*Name{&vn, &sn})
		var ob Buf
		ob.Indent(int(depth%48) + 1)
		ob.Begin().NamesAt(&kn, other)
		for mi, mode := range modes {
			for _, room := range []int{0, 1, len(k) + len(v) + len(s) + 8, 4*(len(k)+len(v)+len(s)) + 80} {
				got, want := Buf{}, Buf{}
				got.Grow(room)
				mode(&got)
				mode(&want)
				g, w := got.Begin(), want.Begin()
				// Made here (its member made at its first write, stored
				// at the second), and written with another key after.
				fresh := NewNames(names[:int(depth)%4])
				for range 2 {
					g.NamesAt(&kn, fresh)
					w.Strings(k, strs[:int(depth)%4])
					g.NamesAt(&vn, fresh)
					w.Strings(v, strs[:int(depth)%4])
					g.NamesAt(&kn, other)
					w.Strings(k, []string{v, s})
					g.StrName(&kn, s)
					w.Str(k, s)
					g.StrName(&kn, s)
					w.Str(k, s)
					g.NameName(&kn, &vn)
					w.Str(k, v)
					g.KeyName(&kn)
					w.Key(k)
					got.Raw([]byte("1"))
					want.Raw([]byte("1"))
					g.StringsName(&kn, []string{v, s})
					w.Strings(k, []string{v, s})
					g.NamesName(&kn, []*Name{&vn, &sn, &vn})
					w.Strings(k, []string{v, s, v})
					g.NamesName(&kn, names[:int(depth)%4])
					w.Strings(k, strs[:int(depth)%4])
					g.IntName(&kn, -12)
					w.Int(k, -12)
					g.BoolName(&kn, true)
					w.Bool(k, true)
					g.BoolName(&kn, false)
					w.Bool(k, false)
					g.RawName(&kn, []byte("[1]"))
					w.Raw(k, []byte("[1]"))
					g.RawName(&kn, nil)
					w.Raw(k, nil)
				}
				g.End()
				w.End()
				if got.String() != want.String() {
					t.Fatalf("mode %d, key %q, value %q, string %q, room %d:\n%s\nwant\n%s", mi, k, v, s, room, got.String(), want.String())
				}
			}
		}
	}
}

func FuzzRun(f *testing.F) {
	f.Add("type", "message", "role", "content", "text", uint8(0))
	f.Add("stop_reason", "", "stop_sequence", "usage", "", uint8(1))
	f.Add("k\"ey", "v\\al\x00ue ü \xff", "\u2028", "", "x", uint8(6))
	f.Add("", "", "", "", "", uint8(7))
	f.Add("a key of more than thirty-two bytes", "and a value of more than that", "k", "content", "s", uint8(2))
	f.Fuzz(checkRun)
}

// Every byte that ends a run, at every place of keys and values of 0 to
// 66 bytes (a Run is stored as a padded block of 64 bytes when it fits
// in it, and appended when not), each written as checkRun requires.
func TestRunEveryStop(t *testing.T) {
	for k := range everyStop(66) {
		checkRun(t, "type", k, "role", "content", k, 1)
		checkRun(t, "", "", k, k, "", 6)
	}
}

// checkRun is FuzzRun's test: a Run of members (the first member a
// string, the second null, as many as sel picks, with or without a key)
// written by Run and RunStr as the members one by one, compact, quoted,
// indented and canonical, into buffers with no room, a little and more,
// after no member and after others.
func checkRun(t *testing.T, k1, v1, k2, key, s string, sel uint8) {
	t.Helper()
	var ob Buffer
	c := Begin(&ob)
	if sel&3 > 0 {
		c.Str(k1, v1)
	}
	if sel&3 > 1 {
		c.Raw(k2, nil)
	}
	c.End()
	obj := string(ob.Bytes())
	withKey := sel&4 == 0
	var r Run
	if withKey {
		r = NewRun(obj, key)
	} else {
		r = NewRun(obj)
	}
	modes := []func(b *Buf){
		func(*Buf) {},
		func(b *Buf) { b.Quote() },
		func(b *Buf) { b.Indent(int(sel % 48)) },
		func(b *Buf) { b.WriteCanonical(AppendString, func(dst, v []byte) []byte { return append(dst, v...) }) },
	}
	for mi, mode := range modes {
		for _, room := range []int{0, 1, len(obj) + len(key) + len(s) + 8, 4*(len(obj)+len(key)+len(s)) + 140} {
			for before := range 2 {
				got, want := Buf{}, Buf{}
				got.Grow(room)
				mode(&got)
				mode(&want)
				g, w := got.Begin(), want.Begin()
				if before > 0 {
					g.Str("b", "x")
					w.Str("b", "x")
				}
				// The members one by one; a canonical object's as
				// Members writes them (a key of invalid UTF-8 is the
				// object's "\ufffd", which it writes U+FFFD).
				members := func() {
					if mi == 3 {
						w.Members(ob.Bytes(), r.n)
						return
					}
					if sel&3 > 0 {
						w.Str(k1, v1)
					}
					if sel&3 > 1 {
						w.Raw(k2, nil)
					}
				}
				for range 2 {
					g.Run(&r)
					members()
					if withKey {
						w.Key(key)
						got.Raw([]byte("1"))
						want.Raw([]byte("1"))
						g.RunStr(&r, s)
						members()
						w.Str(key, s)
					}
					g.Str("a", "y")
					w.Str("a", "y")
				}
				if g.Len() != w.Len() {
					t.Fatalf("mode %d, room %d: %d members, want %d", mi, room, g.Len(), w.Len())
				}
				g.End()
				w.End()
				if !bytes.Equal(got.Bytes(), want.Bytes()) {
					t.Fatalf("mode %d, room %d, before %d: run %q key %q s %q\n got %s\nwant %s", mi, room, before, obj, key, s, got.Bytes(), want.Bytes())
				}
			}
		}
	}
}

func FuzzInts(f *testing.F) {
	f.Add("input_tokens", "cache_creation_input_tokens", int64(0), int64(1234567), uint8(0))
	f.Add("k\"ey", "\u2028", int64(-1), int64(math.MinInt64), uint8(3))
	f.Add("", "a", int64(math.MaxInt64), int64(99), uint8(6))
	f.Fuzz(checkInts)
}

// Every byte that ends a run, at every place of keys of 0 to 29 bytes
// (the longest whose text, `,"k":`, fits Ints' block of 32), and numbers
// of every length, each written as checkInts requires.
func TestIntsEveryStop(t *testing.T) {
	for k := range everyStop(29) {
		checkInts(t, k, "output_tokens", 7, -7, 2)
		checkInts(t, "input_tokens", k, 0, math.MaxInt64, 1)
	}
	p := int64(1)
	for range 19 {
		checkInts(t, "a", "cache_read_input_tokens", p-1, -p, 2)
		checkInts(t, "a", "b", p, p+1, 1)
		p *= 10
	}
	defer func() {
		if recover() == nil {
			t.Error("NewInts of a key of 30 bytes did not panic")
		}
	}()
	NewInts(strings.Repeat("k", 30))
}

// checkInts is FuzzInts' test: an Ints of none to three members (as many
// as sel picks, of the keys k1, k2 and k1 again) written by Write as
// Begin, Int of each and End write them, into buffers with no room, a
// little and more. (A key whose text does not fit Ints' block is left
// out: NewInts panics.)
func checkInts(t *testing.T, k1, k2 string, n1, n2 int64, sel uint8) {
	t.Helper()
	keys, ns := []string{k1, k2, k1}, []int64{n1, n2, n1 ^ n2}
	keys, ns = keys[:int(sel)%4], ns[:int(sel)%4]
	for _, k := range keys {
		if len(AppendString(nil, k))+2 > padSize {
			return
		}
	}
	x := NewInts(keys...)
	for _, room := range []int{0, 1, 20, 200} {
		var got, want Buffer
		got.Grow(room)
		got.WriteString("x")
		want.WriteString("x")
		x.Write(&got, ns...)
		w := Begin(&want)
		for i, k := range keys {
			w.Int(k, ns[i])
		}
		w.End()
		if got.String() != want.String() {
			t.Fatalf("keys %q, values %v, room %d:\n%s\nwant\n%s", keys, ns, room, got.String(), want.String())
		}
	}
}
