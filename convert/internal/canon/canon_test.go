package canon

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/rlog-ls/rlog-ls/convert/internal/jsonw"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// appendReference is Append as it was written first (members collected,
// then sort.SliceStable; strings a byte at a time): the reference
// FuzzAppend holds Append to.
func appendReference(dst, v []byte) []byte {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return append(dst, "null"...)
	}
	switch v[0] {
	case '{':
		var kvs []member
		jsonscan.Members(v, func(k, val []byte) error {
			kvs = append(kvs, member{jsonscan.Key(k), val})
			return nil
		})
		sort.SliceStable(kvs, func(i, j int) bool { return kvs[i].k < kvs[j].k })
		dst = append(dst, '{')
		n := 0
		for i, m := range kvs {
			if i+1 < len(kvs) && kvs[i+1].k == m.k {
				continue
			}
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst = stringReference(dst, m.k)
			dst = append(dst, ':')
			dst = appendReference(dst, m.v)
		}
		return append(dst, '}')
	case '[':
		dst = append(dst, '[')
		jsonscan.Array(v, func(i int, el []byte) error {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendReference(dst, el)
			return nil
		})
		return append(dst, ']')
	case '"':
		s, _ := jsonscan.String(v)
		return stringReference(dst, s)
	default:
		return append(dst, v...)
	}
}

const hexDigits = "0123456789abcdef"

// stringReference is String as it was written first, a byte at a time
// (then runs found by jsonw.PlainASCII, then jsonw's escaping loop): the
// reference FuzzString holds String to.
func stringReference(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"':
				dst = append(dst, '\\', '"')
			case c == '\\':
				dst = append(dst, '\\', '\\')
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c == '\b':
				dst = append(dst, '\\', 'b')
			case c == '\f':
				dst = append(dst, '\\', 'f')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, "\uFFFD"...)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

var seeds = []string{
	`{"b":1,"a":[true,null,{"d":"x\"y","c":2.50}],"a":"dup"}`,
	`{"z":{"y":{"x":{}}},"é":"\u00e9\ud83d\ude00","A":"\u0001\b\f\t","":[]}`,
	` [ 1 , "two\u2028" , { } ] `, `"s\\u"`, `12e3`, `null`, `{}`,
	`{"file_path":"src/a.go","pattern":"λ x","bad":"\xff\xfe","ctl":"a\tb","q":"a\"b"}`,
	`{"p01":1,"p02":2,"p03":3,"p04":4,"p05":5,"p06":6,"p07":7,"p08":8,"p09":9,"p10":10,"p11":11,"p12":12,"p13":13,"p14":14,"p15":15,"p16":16,"p17":17,"p00":0}`,
}

func FuzzAppend(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		if !json.Valid(v) {
			return
		}
		if got, want := Append(nil, v), appendReference(nil, v); !bytes.Equal(got, want) {
			t.Fatalf("Append(%s) = %s, want %s", v, got, want)
		}
	})
}

// FuzzObject: an Object built member by member writes what Append makes
// of the object written out in the order the members were set.
func FuzzObject(f *testing.F) {
	f.Add("event\x00ToolCall\x00t\x002025\x00id\x00x\"y\x00event\x00again", `{"b":[1,{"d":2,"c":3}]}`, int64(-7))
	f.Add("é\x00\xff\x00\x00\x00a\x00b", `"x"`, int64(1)<<62)
	f.Add("a\x00x\"y\x00p\x00{}\x00i\x000\x00h\x00z\x00g\x00p\x00f\x00a", `{"z":[1, {"b":2,"a":1}]}`, int64(3))
	f.Fuzz(func(t *testing.T, pairs, raw string, n int64) {
		if !json.Valid([]byte(raw)) {
			return
		}
		var o Object
		o.Reset()
		var doc bytes.Buffer
		doc.WriteByte('{')
		parts := strings.Split(pairs, "\x00")
		// set is each key's value as the document holds it, for HashOf.
		set := map[string][]byte{}
		for i := 0; i+1 < len(parts); i += 2 {
			k, v := parts[i], parts[i+1]
			if !utf8.ValidString(k) {
				continue
			}
			var vj []byte
			switch i / 2 % 5 {
			case 0:
				o.String(k, v)
				vj, _ = json.Marshal(v)
			case 1:
				o.Raw(k, []byte(raw))
				vj = []byte(raw)
			case 2:
				o.Int(k, n)
				vj, _ = json.Marshal(n)
			case 3:
				o.HashString(k, v)
				vj, _ = json.Marshal(HashString(v))
			case 4:
				// The hash of the value of the key v names, if set.
				of, ok := set[v]
				o.HashOf(k, v)
				if !ok {
					continue
				}
				vj, _ = json.Marshal(Hash(of))
			}
			set[k] = vj
			if doc.Len() > 1 {
				doc.WriteByte(',')
			}
			kj, _ := json.Marshal(k)
			doc.Write(kj)
			doc.WriteByte(':')
			doc.Write(vj)
		}
		doc.WriteByte('}')
		if got, want := o.AppendTo(nil), appendReference(nil, doc.Bytes()); !bytes.Equal(got, want) {
			t.Fatalf("Object = %s, want %s (from %s)", got, want, doc.Bytes())
		}
	})
}

func TestObjectDeleteAndHash(t *testing.T) {
	var o Object
	o.String("b", "x")
	o.HashOf("h", "none") // nothing to hash: h is not set
	o.Raw("p", []byte(`{"z":1, "a":[2]}`))
	o.HashOf("h", "p")
	o.Delete("p")
	o.Ints("u", []string{"a", "b"}, []int64{1, -2})
	o.String("a", "y")
	o.Delete("b")
	want := `{"a":"y","h":"` + Hash([]byte(`{"a":[2],"z":1}`)) + `","u":{"a":1,"b":-2}}`
	if got := string(o.AppendTo(nil)); got != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
	if v, ok := o.Get("a"); !ok || string(v) != `"y"` {
		t.Fatalf("Get(a) = %s %v", v, ok)
	}
	o.Reset()
	if got := string(o.AppendTo(nil)); got != `{}` {
		t.Fatalf("after Reset: %s", got)
	}
}

// writeThrough writes the valid JSON value v through the canonical Buf b
// the ways a writer does, chosen by the fuzzer's bits: an object member
// by member (a string with Str, a list of strings with Strings, a nested
// value after Key, any value raw, a key given quoted with RawKey), a list
// element by element, or either raw.
func writeThrough(b *jsonw.Buf, v []byte, bits *[]byte) {
	bit := func() bool {
		if len(*bits) == 0 {
			return false
		}
		c := (*bits)[0]
		*bits = (*bits)[1:]
		return c&1 == 1
	}
	v = bytes.TrimSpace(v)
	switch {
	case len(v) > 0 && v[0] == '{' && !bit():
		o := b.Begin()
		jsonscan.Members(v, func(k, val []byte) error {
			key := jsonscan.Key(k)
			val = bytes.TrimSpace(val)
			switch {
			case val[0] == '"' && bit():
				s, _ := jsonscan.String(val)
				o.Str(key, s)
			case val[0] == '[' && bit() && stringsOf(val) != nil:
				o.Strings(key, stringsOf(val))
			case (val[0] == '{' || val[0] == '[') && bit():
				o.Key(key)
				writeThrough(b, val, bits)
			case bit():
				o.RawKey(append(append([]byte{'"'}, k...), '"'), val)
			default:
				o.Raw(key, val)
			}
			return nil
		})
		o.End()
	case len(v) > 0 && v[0] == '[' && !bit():
		l := b.List()
		jsonscan.Array(v, func(_ int, el []byte) error {
			l.Next()
			writeThrough(b, el, bits)
			return nil
		})
		l.End()
	default:
		b.Raw(v)
	}
}

// stringsOf is the list of strings v holds, nil when v is not one (or is
// empty).
func stringsOf(v []byte) []string {
	var list []string
	ok := true
	jsonscan.Array(v, func(_ int, el []byte) error {
		s, isString := jsonscan.String(bytes.TrimSpace(el))
		ok = ok && isString
		list = append(list, s)
		return nil
	})
	if !ok {
		return nil
	}
	return list
}

// FuzzWriterEqualsAppend holds a Buf writing canonical JSON (Writer),
// which sorts each object's members when it ends, to Append of the same
// value: any valid JSON written through it any way a writer writes.
func FuzzWriterEqualsAppend(f *testing.F) {
	for i, s := range seeds {
		f.Add([]byte(s), []byte{byte(i), 1, 0, 1, 1, 0, 0, 1})
	}
	f.Add([]byte(`{"z":["b","a"],"y":{"k":"\u0000","j":[{"b":1,"a":2}]},"x":"\"","x":1,"\u00e9":true,"e":null}`), []byte{0, 0, 1, 0, 1, 0, 0, 0, 1, 1, 0, 1})
	f.Fuzz(func(t *testing.T, v, bits []byte) {
		if !json.Valid(v) || !utf8.Valid(v) {
			// (Invalid UTF-8 in keys: Append sorts them by their bytes,
			// a Buf by what the canonical form writes, U+FFFD; the writers'
			// rests are held to Append through FuzzWriteRest.)
			return
		}
		var b jsonw.Buf
		Writer(&b)
		writeThrough(&b, v, &bits)
		if want := Append(nil, v); !bytes.Equal(b.Bytes(), want) {
			t.Fatalf("written canonical: %s\nwant %s", b.Bytes(), want)
		}
	})
}

// TestWriterSortsKeysAsWritten: a key that is not UTF-8 is sorted as the
// canonical JSON writes it (each invalid byte U+FFFD), so that two keys
// written alike are one key, the last kept: what Append makes of the
// object written compact (jsonw writes such a byte \ufffd).
func TestWriterSortsKeysAsWritten(t *testing.T) {
	keys := []string{"\xff", "\uFFFC", "a\xfe", "a\uFFFD", "b", "\xfe\xff"}
	var c, compact jsonw.Buf
	Writer(&c)
	for _, b := range []*jsonw.Buf{&c, &compact} {
		o := b.Begin()
		for i, k := range keys {
			o.Int(k, int64(i))
		}
		o.End()
	}
	want := Append(nil, compact.Bytes())
	if !bytes.Equal(c.Bytes(), want) {
		t.Fatalf("written canonical: %q\nwant %q", c.Bytes(), want)
	}
}

// FuzzString holds String to stringReference for any string (invalid
// UTF-8 included) appended after other bytes into a buffer with no room,
// with just the string's room (the short strings' words) and with more.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "abc", "type", "ToolCall", "sha256:0123456789abcdef", "a\bb\fc\x00\x1f\x7f", "é\xff\xc3", "\"q\\", strings.Repeat("plain ", 9)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := stringReference([]byte("x"), s)
		for _, room := range []int{0, len(s) + 3, 2*len(s) + 40} {
			dst := append(make([]byte, 0, 1+room), 'x')
			if got := String(dst, s); !bytes.Equal(got, want) {
				t.Fatalf("String(%q) with room for %d = %s, want %s", s, room, got, want)
			}
		}
	})
}

// Every byte that String escapes or replaces (and a plain one), at every
// place of strings of 0 to 40 bytes, with room for the string and without.
func TestStringEveryStop(t *testing.T) {
	for n := 0; n <= 40; n++ {
		base := strings.Repeat("a", n)
		for at := -1; at < n; at++ {
			for _, c := range []byte{0, '\b', '\f', '\t', '\n', '\r', 0x1f, '"', '\\', 0x7f, 0x80, 0xc3, 0xff, ' '} {
				s := base
				if at >= 0 {
					s = base[:at] + string(c) + base[at+1:]
				}
				want := stringReference(nil, s)
				for _, room := range []int{0, n + 2} {
					if got := String(make([]byte, 0, room), s); !bytes.Equal(got, want) {
						t.Fatalf("String(%q), room %d = %s, want %s", s, room, got, want)
					}
				}
			}
		}
	}
}

// FuzzObjectLines: one Object written line after line, each line's keys
// picked from one list of strings (the same strings again and again, as
// a writer's constants are, so that AppendTo finds the orders it sorted
// before), writes for each line what Append makes of its object written
// in the order the keys were set. Keys picked with the high bit are
// strings over a buffer whose bytes are reversed after every line: the
// same places, other bytes, sorted as their bytes say now.
func FuzzObjectLines(f *testing.F) {
	f.Add("event\x00t\x00id\x00tool\x00params", []byte{0, 1, 2, 255, 0, 1, 2, 255, 3, 1, 0, 255, 0, 1, 2})
	f.Add("ab\x00ba\x00a\x00b", []byte{128, 129, 255, 128, 129, 255, 130, 131, 255, 128, 129})
	f.Add("z\x00y\x00x\x00\x00é", []byte{0, 1, 2, 3, 4, 255, 4, 3, 2, 1, 0, 255, 0, 1, 2, 3, 4, 255, 0, 1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, pool string, picks []byte) {
		keys := strings.Split(pool, "\x00")
		buf := []byte(pool)
		over := make([]string, 0, len(keys))
		at := 0
		for _, k := range keys {
			over = append(over, unsafe.String(unsafe.SliceData(buf[at:]), len(k)))
			at += len(k) + 1
		}
		var o Object
		for _, line := range bytes.Split(picks, []byte{255}) {
			o.Reset()
			var doc bytes.Buffer
			doc.WriteByte('{')
			for n, p := range line {
				k := keys[int(p&0x7f)%len(keys)]
				if p&0x80 != 0 {
					k = over[int(p&0x7f)%len(keys)]
				}
				if !utf8.ValidString(k) {
					continue
				}
				o.Int(k, int64(n))
				if doc.Len() > 1 {
					doc.WriteByte(',')
				}
				kj, _ := json.Marshal(k)
				doc.Write(kj)
				doc.WriteByte(':')
				doc.WriteString(strconv.Itoa(n))
			}
			doc.WriteByte('}')
			if got, want := o.AppendTo(nil), appendReference(nil, doc.Bytes()); !bytes.Equal(got, want) {
				t.Fatalf("line %v: Object = %s, want %s (from %s)", line, got, want, doc.Bytes())
			}
			slices.Reverse(buf)
		}
	})
}

// FuzzWriterLines: one canonical Buf (Writer) writing object after
// object, reset between them as a writer's lines are, each object's keys
// picked from one list (so that the key orders it sorted before are
// found again), some with an object of the keys before it nested, writes
// each as Append makes the same object written compact. A line's first 64
// keys are written.
func FuzzWriterLines(f *testing.F) {
	f.Add("kind\x00text\x00call.id\x00b\x00a", []byte{0, 1, 2, 255, 0, 1, 2, 255, 3, 0x84, 1, 0, 255, 0, 1, 2, 1})
	f.Add("z\x00y\x00x\x00\x00é\x00zz", []byte{0, 1, 2, 3, 4, 5, 255, 4, 3, 2, 1, 0, 255, 0, 0x81, 2, 3, 4, 255, 5, 1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, pool string, picks []byte) {
		keys := strings.Split(pool, "\x00")
		var b jsonw.Buf
		Writer(&b)
		for _, line := range bytes.Split(picks, []byte{255}) {
			line = line[:min(len(line), 64)] // (each nested object holds the keys before it)
			b.Reset()
			var doc bytes.Buffer
			o := b.Begin()
			doc.WriteByte('{')
			n := 0
			for i, p := range line {
				k := keys[int(p&0x7f)%len(keys)]
				if !utf8.ValidString(k) {
					continue
				}
				if n > 0 {
					doc.WriteByte(',')
				}
				n++
				kj, _ := json.Marshal(k)
				doc.Write(kj)
				doc.WriteByte(':')
				if p&0x80 == 0 {
					o.Int(k, int64(i))
					doc.WriteString(strconv.Itoa(i))
					continue
				}
				// An object of the line's keys so far, nested.
				o.Key(k)
				in := b.Begin()
				doc.WriteByte('{')
				for j, q := range line[:i] {
					kk := keys[int(q&0x7f)%len(keys)]
					if !utf8.ValidString(kk) {
						continue
					}
					if doc.Bytes()[doc.Len()-1] != '{' {
						doc.WriteByte(',')
					}
					in.Int(kk, int64(j))
					kkj, _ := json.Marshal(kk)
					doc.Write(kkj)
					doc.WriteByte(':')
					doc.WriteString(strconv.Itoa(j))
				}
				in.End()
				doc.WriteByte('}')
			}
			o.End()
			doc.WriteByte('}')
			if want := Append(nil, doc.Bytes()); !bytes.Equal(b.Bytes(), want) {
				t.Fatalf("line %v: written %s, want %s (from %s)", line, b.Bytes(), want, doc.Bytes())
			}
		}
	})
}

// FuzzMembers holds Members (its keys stored as padded blocks, putKey;
// Int's and Ints' numbers written in place, appendInt; StringInt's
// string made where it goes) to an Object of the same members: keys k
// with a digit after it, in order, into buffers with no free room, a
// little and more.
func FuzzMembers(f *testing.F) {
	f.Add("event", "step-", int64(0))
	f.Add("cache_creation_input_tokens", "", int64(99999999))
	f.Add("a_key_longer_than_thirty_two_bytes", "pré\"fix\x01", int64(-1))
	f.Add("", "\xff", int64(100000000))
	f.Fuzz(checkMembers)
}

// Numbers at every change of appendInt's (a digit more, the room of
// eight, the sign) and keys of every length around a block's 32 bytes.
func TestMembersEveryEdge(t *testing.T) {
	var ns []int64
	for p := int64(1); p <= 1e18; p *= 10 {
		ns = append(ns, p-1, p, p+1, -p)
	}
	ns = append(ns, math.MaxInt64, math.MinInt64)
	for _, n := range ns {
		for l := 0; l <= 34; l++ {
			checkMembers(t, strings.Repeat("k", l), "step-", n)
		}
	}
}

// checkMembers is FuzzMembers' test.
func checkMembers(t *testing.T, k, prefix string, n int64) {
	t.Helper()
	if !utf8.ValidString(k) {
		return // (an Object's keys are valid: the writers' constants)
	}
	var keys [6]Key
	names := make([]string, len(keys))
	for i := range keys {
		names[i] = k + string(rune('0'+i))
		keys[i] = NewKey(names[i])
	}
	vals := []int64{n, n / 7, -n, 3}
	for _, room := range []int{0, 1, 40, 4 * (len(k) + len(prefix) + 80)} {
		var m Members
		m.Begin(make([]byte, 0, room))
		m.Int(&keys[0], n)
		m.Key(&keys[1])
		m.B = append(m.B, "null"...)
		m.Ints(&keys[2], keys[3:], vals[:3])
		m.StringInt(&keys[3], prefix, n)
		m.String(&keys[4], prefix)
		m.Ints(&keys[5], nil, nil)
		got := m.End()
		var o Object
		o.Int(names[0], n)
		o.Raw(names[1], []byte("null"))
		o.Ints(names[2], names[3:], vals[:3])
		o.String(names[3], prefix+strconv.FormatInt(n, 10))
		o.String(names[4], prefix)
		o.Ints(names[5], nil, nil)
		if want := o.AppendTo(nil); !bytes.Equal(got, want) {
			t.Fatalf("key %q, prefix %q, n %d, room %d: Members wrote\n%s\nwant\n%s", k, prefix, n, room, got, want)
		}
	}
}

// TestAppendNotValidJSON: a string value that is not valid JSON (a
// call's input as a source gave it) is written as before Append's fast
// paths, without a panic.
func TestAppendNotValidJSON(t *testing.T) {
	for _, v := range []string{`"`, `"ab`, `"a\`, `"a"b"`, `"\xff"`, `"é`} {
		if got, want := Append(nil, []byte(v)), appendReference(nil, []byte(v)); !bytes.Equal(got, want) {
			t.Errorf("Append(%q) = %q, want %q", v, got, want)
		}
	}
}

// TestAppendHashEveryByte: appendHash writes each byte's digits as
// hex.EncodeToString does, every byte value at every place, after other
// bytes in a buffer with no room and with room.
func TestAppendHashEveryByte(t *testing.T) {
	for start := 0; start < 256; start += 32 {
		var sum [sha256.Size]byte
		for i := range sum {
			sum[i] = byte(start + i)
		}
		for _, sum := range [][sha256.Size]byte{sum, sha256.Sum256(sum[:])} {
			want := `x"sha256:` + hex.EncodeToString(sum[:]) + `"`
			for _, room := range []int{1, 200} {
				if got := appendHash(append(make([]byte, 0, room), 'x'), &sum); string(got) != want {
					t.Fatalf("appendHash = %s, want %s", got, want)
				}
			}
		}
	}
}
