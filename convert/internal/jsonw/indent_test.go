package jsonw

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
)

// indentRef is the reference AppendIndent is held to: json.Indent of the
// compacted value, each line after the first prefixed as the value's
// depth indents it.
func indentRef(t *testing.T, v []byte, depth int) []byte {
	t.Helper()
	var compact, want bytes.Buffer
	if err := json.Compact(&compact, v); err != nil {
		t.Fatal(err)
	}
	if err := json.Indent(&want, compact.Bytes(), strings.Repeat("  ", depth), "  "); err != nil {
		t.Fatal(err)
	}
	return want.Bytes()
}

// AppendIndent writes a value as json.Indent writes it at its depth, white
// space between its tokens or not.
func TestAppendIndentMatchesJSONIndent(t *testing.T) {
	docs := []string{
		`{"a":1,"b":[],"c":{},"d":[1,{"e":"x\"y\\","f":[[]]}],"g":"{[,:]}","h":null}`,
		`[]`, `{}`, `"s"`, `12.5e-3`, `true`, `[{"a":{"b":{"c":[1,2,3]}}}]`,
		`{"t":"naïve → 日本語 \u00e9 \\\""}`,
		// As Python writes JSON, and white space where it may be.
		`{"a": 1, "b": [1, 2], "c": {}}`, `{ }`, `[ ]`, "[\n  1,\n  {\n  }\n]\n",
		" {\t\"a\" :\r\n[ true , false,null ] } ",
	}
	for _, doc := range docs {
		for _, depth := range []int{0, 1, 3} {
			want := indentRef(t, []byte(doc), depth)
			if got := AppendIndent(nil, []byte(doc), depth); !bytes.Equal(got, want) {
				t.Errorf("%q at depth %d:\n%s\nwant\n%s", doc, depth, got, want)
			}
		}
	}
}

func FuzzAppendIndent(f *testing.F) {
	f.Add(`{"a":[1,{}],"b":"x"}`, 3)
	f.Add(`{ "a" : [ 1 , { } ] , "b\"" : "x\\" }`, 0)
	f.Fuzz(func(t *testing.T, doc string, depth int) {
		if !json.Valid([]byte(doc)) {
			return
		}
		depth = max(depth%8, 0)
		want := indentRef(t, []byte(doc), depth)
		if got := AppendIndent(nil, []byte(doc), depth); !bytes.Equal(got, want) {
			t.Fatalf("%q at depth %d:\n%s\nwant\n%s", doc, depth, got, want)
		}
	})
}

// Indentation deeper than appendNewline's ready-made prefix (64 levels)
// is written level by level, as json.Indent writes it.
func TestAppendIndentDeep(t *testing.T) {
	for _, depth := range []int{63, 64, 65, 80} {
		doc := strings.Repeat(`{"a":[`, depth) + `1` + strings.Repeat(`]}`, depth)
		if got, want := AppendIndent(nil, []byte(doc), 0), indentRef(t, []byte(doc), 0); !bytes.Equal(got, want) {
			t.Fatalf("depth %d: output differs from json.Indent", depth)
		}
	}
}

// A value that is not JSON (which a writer never passes) is copied
// without a panic, however it closes more than it opens or ends inside a
// string.
func TestAppendIndentInvalid(t *testing.T) {
	for _, v := range []string{`]]]}`, `{"a":"b`, `"x\`, `[1,`, `}{`} {
		AppendIndent(nil, []byte(v), 0)
	}
}

// FuzzStringRun: the word-at-a-time search finds the first quote or
// backslash, as a byte loop does.
func FuzzStringRun(f *testing.F) {
	for _, s := range []string{"", "plain text here", "ab\"cd", "abcdefghij\\k", "\x01\x02\x03\x04\x05\x06\x07\x08\x09\"", "é日本語\"", "\x7f\x80\xff\\"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		want := len(p)
		for i, c := range p {
			if c == '"' || c == '\\' {
				want = i
				break
			}
		}
		if got := stringRun(p); got != want {
			t.Fatalf("stringRun(%q) = %d, want %d", p, got, want)
		}
	})
}

// replay writes a JSON document through Obj and List, choosing between
// the ways to write each value with the bits it is given: a nested value
// member by member or raw, a string decoded or raw, a key quoted
// already, a list of strings at once, the document cut into pieces
// written out between a list's elements.
type replay struct {
	b    *Buf
	out  bytes.Buffer
	bits []byte
	i    int
}

func (r *replay) bit() bool {
	if len(r.bits) == 0 {
		return false
	}
	i := r.i
	r.i++
	return r.bits[i%len(r.bits)]>>(i/len(r.bits)%8)&1 == 1
}

// value writes the valid JSON value v where a value goes.
func (r *replay) value(v json.RawMessage) {
	v = bytes.TrimSpace(v)
	switch v[0] {
	case '{':
		o := r.b.Begin()
		dec := json.NewDecoder(bytes.NewReader(v))
		dec.Token()
		for dec.More() {
			k, _ := dec.Token()
			var m json.RawMessage
			dec.Decode(&m)
			r.member(o, k.(string), m)
		}
		o.End()
	case '[':
		var list []json.RawMessage
		json.Unmarshal(v, &list)
		l := r.b.List()
		for _, e := range list {
			l.Next()
			r.value(e)
			if r.bit() {
				r.out.Write(r.b.Bytes())
				r.b.Reset()
			}
		}
		l.End()
	case '"':
		var s string
		json.Unmarshal(v, &s)
		if r.b.Quoting() {
			// A string where a value goes is written whole (a quoting
			// Buf has no String of its own).
			r.b.Raw(AppendString(nil, s))
			return
		}
		String(&r.b.Buffer, s)
	default:
		r.b.Raw(v)
	}
}

func (r *replay) member(o *Obj, k string, v json.RawMessage) {
	v = bytes.TrimSpace(v)
	var strs []string
	switch {
	case r.bit():
		q, _ := json.Marshal(k)
		o.RawKey(q, v)
	case v[0] == '[' && json.Unmarshal(v, &strs) == nil && r.bit():
		o.Strings(k, strs)
	case v[0] == '{' || v[0] == '[':
		if r.bit() {
			o.Raw(k, v)
			return
		}
		o.Key(k)
		r.value(v)
	case v[0] == '"':
		var s string
		json.Unmarshal(v, &s)
		o.Str(k, s)
	case v[0] == 't' || v[0] == 'f':
		o.Bool(k, v[0] == 't')
	case v[0] == 'n':
		o.Raw(k, nil)
	default:
		o.Raw(k, v)
	}
}

// What an indenting Buf writes is json.Indent of what a compact one
// writes, however the document is written.
func FuzzIndentedEqualsIndent(f *testing.F) {
	f.Add(`{"a":[1,{},[]],"b":"x","c":{"d":[{"e":null,"f":true}],"g":["h","i"]},"j":{ "k" : [ 1 , 2 ] }}`, []byte{0x5a, 0x33})
	f.Add(`[[],{},"s",[{"a":[]}]]`, []byte{0xff})
	f.Add(`{"<&>":"\u2028","x":"\ud800"}`, []byte{0x01})
	f.Fuzz(func(t *testing.T, doc string, bits []byte) {
		if !json.Valid([]byte(doc)) {
			return
		}
		compact := &replay{b: &Buf{}, bits: bits}
		compact.value(json.RawMessage(doc))
		compact.out.Write(compact.b.Bytes())
		indented := &replay{b: &Buf{}, bits: bits}
		indented.b.Indent(0)
		indented.value(json.RawMessage(doc))
		indented.out.Write(indented.b.Bytes())
		var want bytes.Buffer
		if err := json.Indent(&want, compact.out.Bytes(), "", "  "); err != nil {
			t.Fatalf("compact output %q: %v", compact.out.Bytes(), err)
		}
		if got := indented.out.Bytes(); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("%q:\n%s\nwant\n%s", doc, got, want.Bytes())
		}
		if indented.b.depth != 0 {
			t.Fatalf("depth %d after the document", indented.b.depth)
		}
		// A quoting Buf writes the compact document escaped as a string's
		// bytes, in one pass.
		quoted := &replay{b: &Buf{}, bits: bits}
		quoted.b.Quote()
		quoted.value(json.RawMessage(doc))
		quoted.out.Write(quoted.b.Bytes())
		if got, want := quoted.out.Bytes(), appendStringBody(nil, compact.out.String()); !bytes.Equal(got, want) {
			t.Fatalf("%q quoted:\n%s\nwant\n%s", doc, got, want)
		}
	})
}

// checkAppendInt requires AppendInt(dst, n) to be strconv.AppendInt's,
// for dst with no free room, with one byte too few for n's digits, with
// just enough and with more.
func checkAppendInt(t *testing.T, prefix string, n int64) {
	t.Helper()
	want := strconv.AppendInt([]byte(prefix), n, 10)
	digits := len(want) - len(prefix)
	for _, room := range []int{0, digits - 1, digits, digits + 9} {
		dst := append(make([]byte, 0, len(prefix)+max(room, 0)), prefix...)
		if got := AppendInt(dst, n); string(got) != string(want) {
			t.Fatalf("AppendInt(%q with room %d, %d) = %q, want %q", prefix, room, n, got, want)
		}
	}
}

// Every power of ten, one less and one more (where decimalLen's length
// steps), 0 to 1000, the largest and the negative.
func TestAppendIntEveryLength(t *testing.T) {
	for n := range int64(1001) {
		checkAppendInt(t, "", n)
	}
	p := int64(1)
	for range 19 {
		for _, n := range []int64{p - 1, p, p + 1, -p, -p - 1} {
			checkAppendInt(t, "x", n)
		}
		p *= 10
	}
	for _, n := range []int64{math.MaxInt64, math.MaxInt64 - 1, math.MinInt64, math.MinInt64 + 1, 1 << 62, 1<<53 + 1} {
		checkAppendInt(t, "\"k\": ", n)
	}
}

func FuzzAppendInt(f *testing.F) {
	f.Add("", int64(0))
	f.Add("ab", int64(1732000000))
	f.Add("\"A", int64(99))
	f.Add("", int64(math.MaxInt64))
	f.Add("-", int64(math.MinInt64))
	f.Fuzz(func(t *testing.T, prefix string, n int64) {
		checkAppendInt(t, prefix, n)
	})
}

// putNewline appends what appendNewline appends at every depth, given
// the room it asks for (2*depth+33 bytes) and no more, and leaves the
// bytes before alone; with a byte less it panics, storing nothing.
func TestPutNewlineEveryDepth(t *testing.T) {
	for depth := range 80 {
		want := appendNewline([]byte("ab"), depth)
		buf := append(make([]byte, 0, 2+2*depth+33), "ab"...)
		if got := putNewline(buf, depth); string(got) != string(want) {
			t.Fatalf("putNewline at depth %d = %q, want %q", depth, got, want)
		}
		short := append(make([]byte, 0, 2+2*depth+32), "ab"...)
		func() {
			defer func() {
				if recover() == nil {
					t.Fatalf("putNewline at depth %d with %d bytes of room did not panic", depth, cap(short)-2)
				}
			}()
			putNewline(short, depth)
		}()
	}
}

// Every member, element and end of an indented object or list at depths
// 0 to 40, an empty key and value among them, the buffer cut to no free
// room before each element and end, is what json.Indent writes.
func TestIndentedEndsEveryDepth(t *testing.T) {
	for depth := range 41 {
		var b Buf
		b.Indent(depth)
		tight := func() { b.buf = b.buf[:len(b.buf):len(b.buf)] }
		o := b.Begin()
		o.Raw("", []byte("{}"))
		o.Key("")
		l := b.List()
		tight()
		l.Next()
		no := b.Begin()
		no.Str("", "")
		tight()
		no.End()
		tight()
		l.Next()
		b.List().End()
		tight()
		l.End()
		o.Int("n", 1)
		tight()
		o.End()
		var want bytes.Buffer
		json.Indent(&want, []byte(`{"":{},"":[{"":""},[]],"n":1}`), strings.Repeat("  ", depth), "  ")
		if got := b.String(); got != want.String() {
			t.Fatalf("depth %d:\n%s\nwant\n%s", depth, got, want.String())
		}
	}
}
