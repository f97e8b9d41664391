package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/rlog-ls/rlog-ls/convert/internal/jsonw"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// FuzzMustJSONString: the string's shortcut (AppendStringJSON, StringJSON,
// Quote) writes what the encoder writes, after any bytes already there.
func FuzzMustJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "/Users/x/code/", "tab\there", `q"uote`, `back\slash`, "é→", "\u2028", "a\u2029b", "\x7f", "\xff", "<&>",
		"a\bb\fc\x00\x1f", "\xe2\x80", "\xe2\x80\xa8x", "naïve 日本語 😀 \xf0\x9f", "t~:Edit id=x k=\"v\" [2/3 passed]\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := encodeJSON(t, s)
		if got := MustJSON(s); !bytes.Equal(got, want) {
			t.Fatalf("MustJSON(%q) = %s, want %s", s, got, want)
		}
		if got := StringJSON(s); !bytes.Equal(got, want) {
			t.Fatalf("StringJSON(%q) = %s, want %s", s, got, want)
		}
		if got := Quote(s); got != string(want) {
			t.Fatalf("Quote(%q) = %s, want %s", s, got, want)
		}
		for _, before := range []string{"", "x", "[1,"} {
			if got := AppendStringJSON([]byte(before), s); string(got) != before+string(want) {
				t.Fatalf("AppendStringJSON(%q, %q) = %s, want %s%s", before, s, got, before, want)
			}
		}
	})
}

// TestMustJSONStringEdges holds the string's shortcut to the encoder for
// every prefix of strings with each byte it escapes, at each place
// around a run of eight plain bytes (PlainASCII's word).
func TestMustJSONStringEdges(t *testing.T) {
	special := []string{"\"", "\\", "\b", "\f", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "\xff", "\xe2\x80\xa8", "\xe2\x80\xa9",
		"\xe2\x80", "é", "→", "😀", "\xf0\x9f\x98", "<", "&"}
	for _, sp := range special {
		for _, s := range []string{sp, "abcdefgh" + sp, sp + "abcdefgh", "abc" + sp + "defghijklmnop" + sp + sp + "q", strings.Repeat(sp+"0123456", 3)} {
			for n := 0; n <= len(s); n++ {
				want := encodeJSON(t, s[:n])
				if got := MustJSON(s[:n]); !bytes.Equal(got, want) {
					t.Fatalf("MustJSON(%q) = %s, want %s", s[:n], got, want)
				}
			}
		}
	}
}

// FuzzFieldsAppendJSON: Fields.AppendJSON writes what encoding/json
// writes for the Fields (its MarshalJSON, compacted by the encoder), for
// every two members whose values are valid JSON.
func FuzzFieldsAppendJSON(f *testing.F) {
	for _, c := range [][4]string{
		{"message_id", `"msg_1"`, "todos", `[{"a": 1},  {"b":"x \" y"}]`},
		{"<&>", `{"k":"v"}`, "é", "\n{\r\n\t\"a\" : [ 1 , 2 ]\n}"},
		{"a\u2028", `"\\"`, "\xff", ``},
		{"", `null`, "x", ` "s p" `},
		{"q\"k", `"<&> \u2028"`, "t\tk", `1.5e3`},
	} {
		f.Add(c[0], c[1], c[2], c[3])
	}
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		fs := Fields{{Key: k1, Value: json.RawMessage(v1)}, {Key: k2, Value: json.RawMessage(v2)}}
		for _, fl := range fs {
			if len(fl.Value) > 0 && !json.Valid(fl.Value) {
				return
			}
		}
		want := encodeJSON(t, fs)
		if got := fs.AppendJSON([]byte("prefix")); !bytes.Equal(got[len("prefix"):], want) || string(got[:6]) != "prefix" {
			t.Fatalf("AppendJSON(%q) = %s, want %s", fs, got, want)
		}
		if got := MustJSON(fs); !bytes.Equal(got, want) {
			t.Fatalf("MustJSON(%q) = %s, want %s", fs, got, want)
		}
	})
}

// encodeJSON is encoding/json's encoding of v without HTML escaping, as
// MustJSON wrote it before its shortcuts.
func encodeJSON(t *testing.T, v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// FuzzFieldsWriteJSONWith holds WriteJSONWith, which writes one member's
// value where it goes, to WriteJSON of the fields with that member set
// first (Fields.Set), compact, indented at any depth and quoted.
func FuzzFieldsWriteJSONWith(f *testing.F) {
	f.Add("rests", `[1]`, "message_id", `"m"`, `[{"kind":"agent"},null]`, uint8(2))
	f.Add("x", `{ "a" : 1 }`, "rests", `"old"`, `[]`, uint8(0))
	f.Add("<&>", "\n[1,\n2]", "é", ``, `{"k":[{}]}`, uint8(5))
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2, v string, depth uint8) {
		fs := Fields{{Key: k1, Value: json.RawMessage(v1)}, {Key: k2, Value: json.RawMessage(v2)}}
		for _, fl := range fs {
			if len(fl.Value) > 0 && !json.Valid(fl.Value) {
				return
			}
		}
		if !json.Valid([]byte(v)) {
			return
		}
		const key = "rests"
		// The value as WriteJSON writes it: compacted whole when compact.
		value := func(b *jsonw.Buf) {
			if !b.Indenting() {
				b.Write(appendValue(nil, []byte(v)))
				return
			}
			b.Raw([]byte(v))
		}
		set := slices.Clone(fs)
		set.Set(key, json.RawMessage(v))
		for _, mode := range []string{"compact", "indented", "quoted"} {
			var got, want jsonw.Buf
			switch mode {
			case "indented":
				got.Indent(int(depth % 8))
				want.Indent(int(depth % 8))
			case "quoted":
				got.Quote()
				want.Quote()
			}
			got.WriteString("prefix")
			fs.WriteJSONWith(&got, key, value)
			set.WriteJSON(&want)
			if string(got.Bytes()[:6]) != "prefix" || !bytes.Equal(got.Bytes()[6:], want.Bytes()) {
				t.Fatalf("%s %q with %s = %s:\n%s\nwant\n%s", mode, fs, key, v, got.Bytes(), want.Bytes())
			}
		}
	})
}

// FuzzParseFields holds parseFields, which appends a key unless its bit
// says it may be there already, to setting every member in turn
// (Fields.Set, which looks for the key first), in each of its four modes:
// the same keys in the same order, the last value of a key named twice.
func FuzzParseFields(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"b":2,"a":3}`,
		`{"id":"x","type":"user","di":1,"":0,"":[],"\u0069d":{"k":"v"}}`,
		`{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k1":"last"}`,
		` {"\xff":1,"\ufffd":2} `,
		`null`, `[1]`, `{"a":}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want Fields
		err := jsonscan.Object(b, func(k, v []byte) error {
			want.Set(jsonscan.Key(k), v)
			return nil
		})
		got, gotErr := ParseFieldsView(b)
		if err != nil {
			if gotErr == nil && len(got) > 0 {
				t.Fatalf("%q: %v, members %q", b, err, got)
			}
			return
		}
		if gotErr != nil {
			t.Fatalf("%q: %v", b, gotErr)
		}
		valid, _ := ParseValidFieldsView(b)
		copied, _ := ParseFields(b)
		validCopied, _ := ParseValidFields(b)
		for mode, fs := range []Fields{got, valid, copied, validCopied} {
			if len(fs) != len(want) {
				t.Fatalf("%q: %q, set one by one %q", b, fs, want)
			}
			for i := range fs {
				v := want[i].Value
				if mode >= 2 {
					v = jsonscan.Copy(v)
				}
				if fs[i].Key != want[i].Key || !bytes.Equal(fs[i].Value, v) {
					t.Fatalf("%q (mode %d): %q, set one by one %q", b, mode, fs, want)
				}
			}
		}
	})
}

// FuzzParseIn holds the indexed member lists to the scanned ones: a record
// parsed with ParseRecord, in each of its four modes, is what ParseFields
// and its modes make of it (or the same error), and every object inside
// it, at every depth, parsed with ParseIn (jumping over nested values with
// the index), is what ParseValidFields or ParseValidFieldsView make of it;
// in the copying modes those objects are copies, which ParseIn scans.
// Each list is made again in a Scratch, whose room held other lists
// before (a longer one first), and must be the same.
func FuzzParseIn(f *testing.F) {
	for _, s := range []string{
		`{"a":{"b":[1,{"c":"}"}],"d":{"e":{}}},"f":[[{"g":1}]]}`,
		` { "step" : { "message" : { "content" : [ { "type" : "text" } ] } , "a" : { "a" : 1 , "a" : [ ] } } } `,
		"{\"x\":{\"\xff\":{\"y\":\"\xc3\"}},\"z\":[{\"\\u0069\":{}}]}",
		`null`, `[{"a":1}]`, `{"a":{"b":}}`,
		// Two objects whose keys lay the same bytes (empty keys lay none).
		`{"x":{"ab":1,"cd":2,"":0,"":0,"":0,"":0,"ef":3},"y":{"ab":1,"cd":2,"ef":3}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var ix, roomIx jsonscan.Index
		var record, inner Scratch
		record.ParseRecord(&roomIx, []byte(`{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10}`), true, false)
		inner.ParseIn(nil, []byte(`{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6}`), false)
		for mode := range 4 {
			copyValues, validated := mode&1 != 0, mode&2 != 0
			if validated && !jsonscan.Valid(b) {
				continue
			}
			want, wantErr := [...]func([]byte) (Fields, error){ParseFieldsView, ParseFields, ParseValidFieldsView, ParseValidFields}[mode](b)
			got, err := ParseRecord(&ix, b, copyValues, validated)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) || !sameFields(got, want) {
				t.Fatalf("%q (mode %d): ParseRecord %q %v, unindexed %q %v", b, mode, got, err, want, wantErr)
			}
			reused, err := record.ParseRecord(&roomIx, b, copyValues, validated)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) || !sameFields(reused, want) || !record.tailClear() {
				t.Fatalf("%q (mode %d): Scratch.ParseRecord %q %v, unindexed %q %v", b, mode, reused, err, want, wantErr)
			}
			if err == nil {
				parseInEveryObject(t, &ix, &inner, b, got, copyValues)
			}
		}
	})
}

// parseInEveryObject parses each object among the values of fs (in arrays
// too) with ParseIn, with room's ParseIn and with ParseValidFields or its
// view, then the objects inside those.
func parseInEveryObject(t *testing.T, ix *jsonscan.Index, room *Scratch, record []byte, fs Fields, copyValues bool) {
	var values func(v []byte)
	values = func(v []byte) {
		v = bytes.TrimSpace(v)
		switch {
		case len(v) > 0 && v[0] == '{':
			got, err := ParseIn(ix, v, copyValues)
			want, wantErr := ParseValidFieldsView(v)
			if copyValues {
				want, wantErr = ParseValidFields(v)
			}
			if fmt.Sprint(err) != fmt.Sprint(wantErr) || !sameFields(got, want) {
				t.Fatalf("%q: ParseIn(%q) = %q %v, unindexed %q %v", record, v, got, err, want, wantErr)
			}
			// The list is made at the object's size, not at another's
			// the index saw before it (events keep their lists).
			if spans, err := jsonscan.MemberSpans(v, nil); err == nil && cap(got) > len(spans) {
				t.Fatalf("%q: ParseIn(%q) made room for %d members, it has %d", record, v, cap(got), len(spans))
			}
			reused, err := room.ParseIn(ix, v, copyValues)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) || !sameFields(reused, want) || !room.tailClear() {
				t.Fatalf("%q: Scratch.ParseIn(%q) = %q %v, unindexed %q %v", record, v, reused, err, want, wantErr)
			}
			for _, fl := range got {
				values(fl.Value)
			}
		case len(v) > 0 && v[0] == '[':
			jsonscan.Array(v, func(_ int, e []byte) error { values(e); return nil })
		}
	}
	for _, fl := range fs {
		values(fl.Value)
	}
}

// sameFields reports whether a and b have the same keys and values in the
// same order.
func sameFields(a, b Fields) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || !bytes.Equal(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

// tailClear reports whether the room past s's last list holds no member:
// nothing that list's predecessors held is kept from the collector.
func (s *Scratch) tailClear() bool {
	for _, fl := range s.list[len(s.list):cap(s.list)] {
		if fl.Key != "" || fl.Value != nil {
			return false
		}
	}
	return true
}

// TestScratchIsBounded: a list of more than maxScratch members is made
// apart and not kept, so that the room stays at most maxScratch members;
// the next list is made in the room the lists before had, and what they
// held past its end is forgotten.
func TestScratchIsBounded(t *testing.T) {
	var s Scratch
	first, _ := s.ParseIn(nil, []byte(`{"a":1,"b":2,"c":3}`), false)
	var big strings.Builder
	big.WriteString("{")
	for i := range maxScratch + 1 {
		if i > 0 {
			big.WriteString(",")
		}
		fmt.Fprintf(&big, `"k%d":%d`, i, i)
	}
	big.WriteString("}")
	spans := unsafe.SliceData(s.spans)
	if l, _ := s.ParseIn(nil, []byte(big.String()), false); len(l) != maxScratch+1 || cap(s.list) > maxScratch || cap(s.spans) > maxScratch {
		t.Fatalf("a list of %d members: room for %d members and %d spans kept", len(l), cap(s.list), cap(s.spans))
	}
	if unsafe.SliceData(s.spans) != spans {
		t.Fatal("the room for spans a list of many members grew is kept, not the room before")
	}
	again, _ := s.ParseIn(nil, []byte(`{"d":4}`), false)
	if unsafe.SliceData(again) != unsafe.SliceData(first) {
		t.Fatal("the next list is not made in the room the lists before had")
	}
	if len(again) != 1 || again[0].Key != "d" || !s.tailClear() {
		t.Fatalf("the next list %q, its room after it %q", again, s.list[len(s.list):cap(s.list)])
	}
}

// A record that is not an object leaves nothing of the record before in
// the index: a reader's next line may be in the same bytes, and ParseIn
// of its values must not jump by the last line's containers.
func TestParseRecordForgetsTheRecordBefore(t *testing.T) {
	var ix jsonscan.Index
	buf := []byte(`{"a":{"b":[1,2],"c":3}}`)
	if _, err := ParseRecord(&ix, buf, false, false); err != nil {
		t.Fatal(err)
	}
	if !ix.ValidUTF8(buf[5:]) {
		t.Fatal("the record is not indexed")
	}
	for _, next := range []string{`null`, `[1]`, ``, `{"a":`} {
		ParseRecord(&ix, buf, false, false)
		n := copy(buf, next)
		ParseRecord(&ix, buf[:n], false, false)
		if ix.ValidUTF8(buf[:1]) {
			t.Errorf("after %q, the record before is still indexed", next)
		}
		copy(buf, `{"a":{"b":[1,2],"c":3}}`)
	}
}

// FuzzFieldsIn holds the lists of a record read through its index
// (StringIn, CopyValuesIn, ParseRecord and ParseIn with copies), which
// skip the UTF-8 check of a value in a record the index knows to be valid
// UTF-8, to the plain decoding and copying of the same values
// (jsonscan.String, jsonscan.Copy), which check each value, on any bytes:
// invalid UTF-8 in strings and keys must be replaced as before.
func FuzzFieldsIn(f *testing.F) {
	for _, s := range []string{
		`{"type":"text","text":"plain","n":1,"o":{"a":"b","c":[1,"d"]}}`,
		"{\"text\":\"caf\xc3\xa9 \xe2\x82\xac\",\"x\":{\"y\":\"\xf0\x9f\x98\x80\"}}",
		"{\"text\":\"bad \xff here\",\"x\":{\"y\":\"ok\"}}",
		"{\"a\":\"ok\",\"b\":{\"c\":\"cut \xe2\x82\"},\"d\":[\"\xed\xa0\x80\",\"\xc0\xaf\"]}",
		"{\"\xff\":\"key\",\"k\":\"\\u00e9\\ud800\",\"e\":\"\xef\xbf\xbd\"}",
		` { "a" : "spaced" , "a" : "twice" } `,
		`null`, `[]`, `{"a":}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var ix jsonscan.Index
		var room, inner Scratch
		for _, validated := range []bool{false, true} {
			if validated && !jsonscan.Valid(b) {
				continue
			}
			fs, err := room.ParseRecord(&ix, b, false, validated)
			if err != nil || fs == nil {
				continue
			}
			var check func(list Fields)
			check = func(list Fields) {
				for _, fl := range list {
					got, gotOK := list.StringIn(&ix, fl.Key)
					want, wantOK := list.String(fl.Key)
					if got != want || gotOK != wantOK {
						t.Fatalf("%q: StringIn(%q) = %q %v, String %q %v", b, fl.Key, got, gotOK, want, wantOK)
					}
					if got, want := ix.Copy(fl.Value), jsonscan.Copy(fl.Value); !bytes.Equal(got, want) {
						t.Fatalf("%q: Index.Copy(%q) = %q, jsonscan.Copy %q", b, fl.Value, got, want)
					}
				}
				copied := slices.Clone(list)
				copied.CopyValuesIn(&ix)
				plain := slices.Clone(list)
				plain.CopyValues()
				if !sameFields(copied, plain) {
					t.Fatalf("%q: CopyValuesIn %q, CopyValues %q", b, copied, plain)
				}
				for _, fl := range list {
					v := bytes.TrimSpace(fl.Value)
					if len(v) == 0 || v[0] != '{' {
						continue
					}
					withCopies, err := ParseIn(&ix, v, true)
					if err != nil {
						t.Fatalf("%q: ParseIn(%q): %v", b, v, err)
					}
					want, _ := ParseValidFieldsView(v)
					want.CopyValues()
					if !sameFields(withCopies, want) {
						t.Fatalf("%q: ParseIn(%q) with copies %q, copied plainly %q", b, v, withCopies, want)
					}
					view, err := inner.ParseIn(&ix, v, false)
					if err != nil {
						t.Fatalf("%q: ParseIn(%q): %v", b, v, err)
					}
					check(slices.Clone(view))
				}
			}
			check(slices.Clone(fs))
		}
	})
}
