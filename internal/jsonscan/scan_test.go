package jsonscan

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"strings"
	"testing"
	"unsafe"
)

func TestObjectValidates(t *testing.T) {
	valid := []string{`{}`, ` {"a":1} `, `{"a":[1,2,{"b":null}],"c":"x\"y","d":-1.5e3,"e":true}`, `{"\u00e9":"\ud83d\ude00"}`}
	for _, s := range valid {
		n := 0
		if err := Object([]byte(s), func(k, v []byte) error { n++; return nil }); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	invalid := []string{``, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":01}`, `{"a":"\x01"}`, `{"a":"\q"}`, `{"a":1} x`, `{"a":tru}`, `{"a":[1 2]}`, `{"a":"\u12"}`, `{a:1}`, strings.Repeat("[", 20000)}
	for _, s := range invalid {
		called := false
		err := Object([]byte(s), func(k, v []byte) error { called = true; return nil })
		if err == nil || called {
			t.Errorf("%q accepted (called=%v)", s, called)
		}
	}
	for _, s := range []string{`"x"`, `42`, `[1]`} {
		if err := Object([]byte(s), func(k, v []byte) error { return nil }); err != ErrNotObject {
			t.Errorf("%s: %v, want ErrNotObject", s, err)
		}
	}
}

func TestMembersAgreeWithEncodingJSON(t *testing.T) {
	in := `{"a" : "x\\\"}" , "b":{"c":[1,"]",{"d":"}"}]},"e":-0.5E+2,"f":"tab\there","g":"\ud83d\ude00 \u00e9 \/"}`
	var want map[string]json.RawMessage
	if err := json.Unmarshal([]byte(in), &want); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	if err := Object([]byte(in), func(k, v []byte) error { got[Key(k)] = string(v); return nil }); err != nil {
		t.Fatal(err)
	}
	for k, v := range want {
		if got[k] != string(v) {
			t.Errorf("%s: %s, want %s", k, got[k], v)
		}
		var ws string
		if json.Unmarshal(v, &ws) == nil {
			if gs, ok := String([]byte(got[k])); !ok || gs != ws {
				t.Errorf("String(%s) = %q, want %q", v, gs, ws)
			}
		}
	}
}

func TestStringInvalidUTF8(t *testing.T) {
	s, ok := String([]byte("\"a\xffb\""))
	if !ok || s != "a\uFFFDb" {
		t.Errorf("got %q %v", s, ok)
	}
	s, ok = String([]byte(`"\ud800x"`))
	if !ok || s != "\uFFFDx" {
		t.Errorf("lone surrogate: %q %v", s, ok)
	}
}

func FuzzObject(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"c\n"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		err := Object(b, func(k, v []byte) error {
			if !Valid(v) {
				t.Fatalf("member value %q not valid", v)
			}
			return nil
		})
		if err == nil && !json.Valid(b) {
			t.Fatalf("accepted invalid JSON %q", b)
		}
		if err != nil && err != ErrNotObject && json.Valid(b) {
			t.Fatalf("rejected valid JSON %q: %v", b, err)
		}
		// On a valid object, MemberSpans finds what ObjectSpans finds.
		if validated, err := ObjectSpans(b, nil); err == nil {
			found, err := MemberSpans(b, nil)
			if err != nil || fmt.Sprint(found) != fmt.Sprint(validated) {
				t.Fatalf("%q: MemberSpans %v %v, ObjectSpans %v", b, found, err, validated)
			}
		}
	})
}

// FuzzString: String decodes every valid JSON string as encoding/json does.
func FuzzString(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\"b\\c\/d\n\t\r\b\f"`, `"\u00e9\u2192 x"`, `"\ud83d\ude00!"`, `"\ud800\ud800"`, "\"\xff\xfe→\\n\"", `"\ud83dx"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want string
		if json.Unmarshal(b, &want) != nil || len(b) == 0 || b[0] != '"' {
			return
		}
		got, ok := String(bytes.TrimSpace(b)) // String takes the value itself, as the scanner hands it out
		if !ok || got != want {
			t.Fatalf("String(%q) = %q, %v; encoding/json: %q", b, got, ok, want)
		}
	})
}

// NotPlainASCII8 finds the first byte the byte table stops at, in words
// mixing plain and special bytes wherever they sit, and NotPlain8 the first
// of them below 0x80.
func TestNotPlain8(t *testing.T) {
	samples := []byte{0x00, 0x01, 0x1f, 0x20, 0x21, '"', '#', '[', '\\', ']', 'a', 0x7f, 0x80, 0xa2, 0xdc, 0xff}
	var word [8]byte
	for _, fill := range samples {
		for pos := 0; pos < 8; pos++ {
			for _, c := range samples {
				for _, c2 := range samples {
					for k := range word {
						word[k] = fill
					}
					word[pos] = c
					word[7-pos] = c2
					want, wantASCII := 8, 8
					for k, x := range word {
						if !plain[x] && x < 0x80 && want == 8 {
							want = k
						}
						if !plain[x] && wantASCII == 8 {
							wantASCII = k
						}
					}
					got, gotASCII := 8, 8
					if m := NotPlain8(binary.LittleEndian.Uint64(word[:])); m != 0 {
						got = bits.TrailingZeros64(m) / 8
					}
					if m := NotPlainASCII8(binary.LittleEndian.Uint64(word[:])); m != 0 {
						gotASCII = bits.TrailingZeros64(m) / 8
					}
					if got != want || gotASCII != wantASCII {
						t.Errorf("%q: first special byte at %d, want %d; with the bytes of 0x80 or more at %d, want %d", word, got, want, gotASCII, wantASCII)
					}
				}
			}
		}
	}
}

// FuzzNotPlain8 holds NotPlain8, whose two tests share one &^ w, to the
// two tests written out, each with its own &^ y: every mark the same, not
// only the lowest; and NotPlainASCII8 to NotPlain8 with the high bits.
func FuzzNotPlain8(f *testing.F) {
	for _, w := range []string{"\\\\]]\"#\x00\x7f", "\xa2\xdc\xff\x80!#[]", "\x1f \x01\x02\x03\x21\x22\x23"} {
		f.Add(binary.LittleEndian.Uint64([]byte(w)))
	}
	f.Fuzz(func(t *testing.T, w uint64) {
		cq := w ^ (ones * 0x02)
		cq = (cq - ones*0x21) &^ cq
		bs := w ^ (ones * '\\')
		bs = (bs - ones) &^ bs
		if got, want := NotPlain8(w), (cq|bs)&highs; got != want {
			t.Fatalf("NotPlain8(%#x) = %#x, the two tests %#x", w, got, want)
		}
		if got, want := NotPlainASCII8(w), (cq|bs|w)&highs; got != want {
			t.Fatalf("NotPlainASCII8(%#x) = %#x, the two tests and the high bits %#x", w, got, want)
		}
	})
}

// FuzzPlainEnd holds plainEnd, which tests eight bytes and then sixteen
// at a time, to a loop over every byte, from every start.
func FuzzPlainEnd(f *testing.F) {
	for _, s := range []string{`0123456789abcdef0123456789abcdef"`, "0123456789abcdef\\n0123456789abcdef\x01", "\xe2\x86\x92 0123456789abcdef0123456789\"", `\\]#"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := 0; i <= len(b); i++ {
			want := i
			for want < len(b) && plain[b[want]] {
				want++
			}
			if got := plainEnd(b, i); got != want {
				t.Fatalf("%q from %d: %d, want %d", b, i, got, want)
			}
		}
	})
}

// FuzzPlainKey holds PlainKey, eight bytes at a time, to a loop over
// every byte.
func FuzzPlainKey(f *testing.F) {
	for _, s := range []string{"timestamp", "toolCalls\\", "0123456789abcdef\xc3\xa9", "]]]]]]]]\\", "\\\\\\\\]]]]]]]]]", "\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x80"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, k []byte) {
		want := true
		for _, c := range k {
			if c == '\\' || c >= 0x80 {
				want = false
			}
		}
		if got := PlainKey(k); got != want {
			t.Fatalf("PlainKey(%q) = %v, want %v", k, got, want)
		}
	})
}

// strByByte is the plain byte-by-byte string validator str must agree
// with, errors and offsets included.
func strByByte(b []byte, i int) (int, error) {
	start := i
	i++
	for i < len(b) {
		switch c := b[i]; {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			if i+1 >= len(b) {
				return i, &SyntaxError{i, "unterminated escape"}
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return i, &SyntaxError{i, "short \\u escape"}
				}
				for _, h := range b[i+2 : i+6] {
					if !isHex(h) {
						return i, &SyntaxError{i, "invalid \\u escape"}
					}
				}
				i += 6
			default:
				return i, &SyntaxError{i, "invalid escape"}
			}
		case c < 0x20:
			return i, &SyntaxError{i, "control character in string"}
		default:
			i++
		}
	}
	return start, &SyntaxError{start, "unterminated string"}
}

func FuzzValidateString(f *testing.F) {
	for _, s := range []string{`"plain" "next"`, `"a\"b\\" x"`, "\"tab\there\"", `"\u00e9\q"`, `"\u12`, `"abc\`, `"unterminated`, "\"0123456789abcdef\x01\"", `"\\\\\""`, "\"\xff\xfe\"\"\\n\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || b[0] != '"' {
			return
		}
		end, err := str(b, 0, nil)
		wantEnd, wantErr := strByByte(b, 0)
		if end != wantEnd || fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("str(%q) = %d, %v; byte by byte: %d, %v", b, end, err, wantEnd, wantErr)
		}
	})
}

// walk lists every member and element under v, as "path=value" lines,
// using Members and Array of ix (nil: the package's).
func walk(ix *Index, v []byte, path string, out *[]string) {
	*out = append(*out, path+"="+string(v))
	// Decoded and copied as the index does it: the same as without it.
	var str string
	var ok bool
	var copied []byte
	if ix != nil {
		str, ok = ix.String(v)
		copied = ix.Copy(v)
	} else {
		str, ok = String(v)
		copied = Copy(v)
	}
	*out = append(*out, fmt.Sprintf("%q %v %q", str, ok, copied))
	switch {
	case len(v) > 0 && v[0] == '{':
		ix.Members(v, func(k, val []byte) error {
			walk(ix, val, path+"."+string(k), out)
			return nil
		})
	case len(v) > 0 && v[0] == '[':
		ix.Array(v, func(i int, val []byte) error {
			walk(ix, val, fmt.Sprintf("%s[%d]", path, i), out)
			return nil
		})
	}
}

// FuzzIndex: walking an indexed input finds what walking it without the
// index finds, and an Index reused for another input forgets the first;
// an input Object walks records no members.
func FuzzIndex(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"c\n"}],"d":{"e":[[],{}],"f":"}]"}}`), []byte(`{"x":[{"y":1}]}`))
	f.Add([]byte(` { "m" : { "content" : [ { "type" : "text" , "text" : "hi" } ] } } `), []byte(`{}`))
	f.Add([]byte("{\"a\":\"\xff\\n\",\"b\":[\"\xc3\"]}"), []byte(`{"a":"\u00e9→"}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var ix Index
		for _, in := range [][]byte{a, b, a} {
			var plain, indexed []string
			errPlain := Object(in, func(k, v []byte) error {
				walk(nil, v, string(k), &plain)
				return nil
			})
			errIndexed := ix.Object(in, func(k, v []byte) error {
				walk(&ix, v, string(k), &indexed)
				return nil
			})
			if len(ix.recorded) > 0 || len(ix.lists) > 0 {
				// Object's callers walk with Members and Array: members
				// recorded would be work for nothing.
				t.Fatalf("%q: Object recorded %d members", in, len(ix.recorded))
			}
			if fmt.Sprint(errPlain) != fmt.Sprint(errIndexed) {
				t.Fatalf("%q: errors %v and %v", in, errPlain, errIndexed)
			}
			if strings.Join(plain, "\n") != strings.Join(indexed, "\n") {
				t.Fatalf("%q:\nplain:   %q\nindexed: %q", in, plain, indexed)
			}
		}
	})
}

// The index knows the values of its own input, and only those.
func TestIndexFindsContainers(t *testing.T) {
	in := []byte(`{"a":{"b":[1,{"c":"]"}]},"d":"x"}`)
	var ix Index
	var a []byte
	if err := ix.Object(in, func(k, v []byte) error {
		if string(k) == "a" {
			a = v
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(ix.containers) != 3 {
		t.Fatalf("indexed %d containers, want 3: %v", len(ix.containers), ix.containers)
	}
	off := ix.offset(a)
	if off != 5 {
		t.Fatalf("offset of a = %d, want 5", off)
	}
	if end, _ := ix.jump(a, off, 0, -1); end != len(a) {
		t.Errorf("skip over a ends at %d, want %d", end, len(a))
	}
	if got := ix.offset(append([]byte(nil), a...)); got != -1 {
		t.Errorf("offset of a copy = %d, want -1", got)
	}
	if got := ix.offset(in[len(in)-1:]); got != len(in)-1 {
		t.Errorf("offset of the last byte = %d", got)
	}
}

// Past maxContainers the index stops growing, and what it left out is
// still walked right.
func TestIndexBound(t *testing.T) {
	in := []byte(`{"a":[` + strings.Repeat(`[{"b":[1]}],`, maxContainers) + `"end"]}`)
	var ix Index
	var plain, indexed []string
	Object(in, func(k, v []byte) error { walk(nil, v, string(k), &plain); return nil })
	if err := ix.Object(in, func(k, v []byte) error { walk(&ix, v, string(k), &indexed); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(ix.containers) != maxContainers {
		t.Errorf("indexed %d containers, want %d", len(ix.containers), maxContainers)
	}
	if strings.Join(plain, "\n") != strings.Join(indexed, "\n") {
		t.Error("walks differ")
	}
	var plainSpans, validSpans []string
	walkSpans(nil, in, "$", &plainSpans)
	if _, err := ix.ValidSpans(in, nil); err != nil {
		t.Fatal(err)
	}
	if len(ix.containers) != maxContainers {
		t.Errorf("ValidSpans indexed %d containers, want %d", len(ix.containers), maxContainers)
	}
	walkSpans(&ix, in, "$", &validSpans)
	if strings.Join(plainSpans, "\n") != strings.Join(validSpans, "\n") {
		t.Error("member lists differ")
	}
}

// FuzzStructural holds structural, eight bytes at a time, to a loop over
// every byte, from every start.
func FuzzStructural(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2, {"b": "c"}],  "d":  null}`, "        \n    ]", "\x80\xff{[\x7b\x5b\x7d\x5d\"", "0123456789abcdef{", ";;;;;;;;;;;;;;;;;;;;;;;;[", "\xfb\xfd\xdb\xdd\xa2\x02{"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := 0; i <= len(b); i++ {
			want := i
			for want < len(b) && !bytes.ContainsRune([]byte(`"{[}]`), rune(b[want])) {
				want++
			}
			if got := structural(b, i); got != want {
				t.Fatalf("%q from %d: %d, want %d", b, i, got, want)
			}
		}
	})
}

// FuzzElementSpans holds ElementSpans, which validates a list and finds
// its elements and their members in one pass, to Valid, Array and
// MemberSpans of each element, on any input.
func FuzzElementSpans(f *testing.F) {
	for _, s := range []string{`[{"kind":"user","time":"t"},null,1,"x",[{}],{}]`, ` [ { "a" : { "b" : [1] } } , true ] `, `[]`, `null`, `{"a":1}`, `[1,]`, `[{"a":1}`, `[{"a":1}] x`, "[{\"\\u006bind\":\"a\xff\"}]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		spans, elems, err := ElementSpans(b, nil, nil)
		if valid := Valid(b); valid != (err == nil || err == ErrNotArray) {
			t.Fatalf("%q: Valid %v, ElementSpans %v", b, valid, err)
		}
		if err != nil {
			return
		}
		var want []Element
		var wantSpans []Span
		Array(bytes.TrimSpace(b), func(_ int, v []byte) error {
			start := int(uintptr(unsafe.Pointer(unsafe.SliceData(v))) - uintptr(unsafe.Pointer(unsafe.SliceData(b))))
			e := Element{Start: start, End: start + len(v), First: len(wantSpans), N: -1}
			if found, err := MemberSpans(v, nil); err == nil {
				wantSpans = append(wantSpans, found...)
				e.N = len(found)
			}
			want = append(want, e)
			return nil
		})
		for k := range want {
			if want[k].N < 0 {
				want[k].First = elems[k].First // unused where there are no members
			}
		}
		if fmt.Sprint(elems) != fmt.Sprint(want) || fmt.Sprint(spans) != fmt.Sprint(wantSpans) {
			t.Fatalf("%q:\n got %v %v\nwant %v %v", b, elems, spans, want, wantSpans)
		}
	})
}

// FuzzIndexRestore: an input indexed once, kept, another indexed, and the
// first given back (Restore) is walked as the first indexing walked it,
// without validating it again; a kept input that failed restores nothing,
// and a restored index given another input validates that one.
func FuzzIndexRestore(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"c\n"}],"d":{"e":[[],{}],"f":"}]"}}`), []byte(`{"x":[{"y":1}]}`))
	f.Add([]byte(` { "m" : { "content" : [ { "type" : "text" , "text" : "hi" } ] } } `), []byte(`{"a":`))
	f.Add([]byte(`{"a":`), []byte(`{}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var ix, other Index
		var first, again []string
		errFirst := ix.Object(a, func(k, v []byte) error {
			walk(&ix, v, string(k), &first)
			return nil
		})
		kept := ix.Keep()
		ix.Object(b, func(k, v []byte) error { return nil })
		other.Object(b, func(k, v []byte) error { return nil })
		other.Restore(kept)
		errAgain := other.Object(a, func(k, v []byte) error {
			walk(&other, v, string(k), &again)
			return nil
		})
		if fmt.Sprint(errFirst) != fmt.Sprint(errAgain) || strings.Join(first, "\n") != strings.Join(again, "\n") {
			t.Fatalf("%q:\nfirst:    %v %q\nrestored: %v %q", a, errFirst, first, errAgain, again)
		}
		// Restored, then given another input: that one is validated.
		other.Restore(kept)
		var plain []string
		errB := Object(b, func(k, v []byte) error { walk(nil, v, string(k), &plain); return nil })
		var indexed []string
		copyB := append([]byte(nil), b...)
		errIndexed := other.Object(copyB, func(k, v []byte) error { walk(&other, v, string(k), &indexed); return nil })
		if fmt.Sprint(errB) != fmt.Sprint(errIndexed) || strings.Join(plain, "\n") != strings.Join(indexed, "\n") {
			t.Fatalf("%q after restoring %q:\nplain:   %v %q\nindexed: %v %q", b, a, errB, plain, errIndexed, indexed)
		}
	})
}

// walkSpans lists every member and element under v as walk does, finding
// an object's members with MemberSpans of ix (nil: the package's).
func walkSpans(ix *Index, v []byte, path string, out *[]string) {
	*out = append(*out, path+"="+string(v))
	switch {
	case len(v) > 0 && v[0] == '{':
		var spans []Span
		var err error
		if ix != nil {
			spans, err = ix.MemberSpans(v, nil)
		} else {
			spans, err = MemberSpans(v, nil)
		}
		*out = append(*out, fmt.Sprint(spans, err))
		for _, m := range spans {
			walkSpans(ix, v[m.ValueStart:m.ValueEnd], path+"."+string(v[m.KeyStart:m.KeyEnd]), out)
		}
	case len(v) > 0 && v[0] == '[':
		// Each element's members: as Objects finds them in its walk over
		// the list (indexed; in room that held other spans), or as
		// MemberSpans of each element of Array finds them.
		element := func(el []byte, spans []Span, err error) {
			*out = append(*out, fmt.Sprintf("%s element %s: %v %v", path, el, spans, err))
		}
		if ix != nil {
			room := []Span{{1, 2, 3, 4}, {5, 6, 7, 8}}
			if err := ix.Objects(v, room, element); err != nil {
				*out = append(*out, "Objects: "+err.Error())
			}
		} else {
			Array(v, func(_ int, el []byte) error {
				spans, err := MemberSpans(el, nil)
				element(el, spans, err)
				return nil
			})
		}
		ix.Array(v, func(i int, val []byte) error {
			walkSpans(ix, val, fmt.Sprintf("%s[%d]", path, i), out)
			return nil
		})
	}
}

// FuzzIndexSpans holds the member lists of an indexed input, which jump
// over nested values with the index, to those found by scanning, at every
// depth (a list's elements' through Objects too): the input indexed while validated (ObjectSpans) and indexed as
// already valid (ValidSpans, which must record the same containers), an
// Index reused for the next input and reset between. A copy of a value
// is not part of the input and is scanned.
func FuzzIndexSpans(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"c\n"}],"d":{"e":[[],{}],"f":"}]"}}`), []byte(`{"x":[{"y":1}]}`))
	f.Add([]byte(` { "m" : { "content" : [ { "type" : "text" , "text" : "hi" } ] } } `), []byte(`{}`))
	f.Add([]byte("{\"a\":\"\xff\\n\",\"b\":[\"\xc3\"],\"c\":{\"\\\"\":{\"d\":[{}]}}}"), []byte(`[1]`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var ix Index
		for _, in := range [][]byte{a, b, a} {
			spans, err := ObjectSpans(in, nil)
			got, gotErr := ix.ObjectSpans(in, nil)
			if fmt.Sprint(spans, err) != fmt.Sprint(got, gotErr) {
				t.Fatalf("%q: ObjectSpans %v %v, indexed %v %v", in, spans, err, got, gotErr)
			}
			if err != nil {
				if ix.offset(in) >= 0 {
					t.Fatalf("%q: indexed though invalid", in)
				}
				continue
			}
			checkContainers(t, &ix, in)
			var plain, indexed []string
			walkSpans(nil, in, "$", &plain)
			walkSpans(&ix, in, "$", &indexed)
			if strings.Join(plain, "\n") != strings.Join(indexed, "\n") {
				t.Fatalf("%q:\nplain:   %q\nindexed: %q", in, plain, indexed)
			}
			validated := append([]container(nil), ix.containers...)
			validatedMembers := fmt.Sprint(ix.recorded, ix.lists)
			got, gotErr = ix.ValidSpans(in, nil)
			if fmt.Sprint(spans, err) != fmt.Sprint(got, gotErr) {
				t.Fatalf("%q: ObjectSpans %v %v, ValidSpans %v %v", in, spans, err, got, gotErr)
			}
			if fmt.Sprint(validated) != fmt.Sprint(ix.containers) || validatedMembers != fmt.Sprint(ix.recorded, ix.lists) {
				t.Fatalf("%q: validating indexed %v %v, ValidSpans %v %v %v", in, validated, validatedMembers, ix.containers, ix.recorded, ix.lists)
			}
			checkContainers(t, &ix, in)
			indexed = indexed[:0]
			walkSpans(&ix, in, "$", &indexed)
			if strings.Join(plain, "\n") != strings.Join(indexed, "\n") {
				t.Fatalf("%q (ValidSpans):\nplain:   %q\nindexed: %q", in, plain, indexed)
			}
			copied := append([]byte(nil), in...)
			indexed = indexed[:0]
			walkSpans(&ix, copied, "$", &indexed)
			if strings.Join(plain, "\n") != strings.Join(indexed, "\n") {
				t.Fatalf("%q (a copy):\nplain:   %q\nindexed: %q", in, plain, indexed)
			}
			ix.Reset()
			if ix.offset(in) >= 0 {
				t.Fatalf("%q: part of the input after Reset", in)
			}
		}
	})
}

// checkContainers holds the index of in to what the jumps need (a walk
// that scans where they fail finds the same members, only slower): each
// container starts with a bracket, after the one before it, and ends with
// its closing bracket; its next is the first container after its end.
func checkContainers(t *testing.T, ix *Index, in []byte) {
	t.Helper()
	for s, ct := range ix.containers {
		c := struct{ start, end, next int }{int(ct.start), int(ct.end), int(ct.next)}
		if s > 0 && c.start <= int(ix.containers[s-1].start) {
			t.Fatalf("%q: container %d starts at %d, after %d", in, s, c.start, ix.containers[s-1].start)
		}
		if c.end <= c.start || c.end > len(in) || (in[c.start] == '{') != (in[c.end-1] == '}') || (in[c.start] == '[') != (in[c.end-1] == ']') {
			t.Fatalf("%q: container %d is %d to %d", in, s, c.start, c.end)
		}
		next := s + 1
		for next < len(ix.containers) && int(ix.containers[next].start) < c.end {
			next++
		}
		if c.next != next {
			t.Fatalf("%q: container %d's next is %d, want %d", in, s, c.next, next)
		}
	}
}

// FuzzMemberIndex holds the member index to the scan it replaces: each
// object the index records (validated with ObjectSpans, or found by
// ValidSpans in a valid input) lists, from the index alone, the members
// MemberSpans finds by reading the object, and an object not recorded
// (empty, or past the bound) is listed by scanning, the same.
func FuzzMemberIndex(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"c\n","\"":{}}],"d":{"e":[[],{"f":2}],"g":"}]"}}`))
	f.Add([]byte(" {\n  \"m\" : {\n    \"content\" : [ { \"type\" : \"text\" , \"text\" : \"hi\" } ]\n  }\n} "))
	f.Add([]byte(`{"a":{"a":1,"a":{"a":[]}},"b":[{"x":null,"y":true}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		var ix Index
		for _, valid := range []bool{false, true} {
			var err error
			if valid {
				if !Valid(in) {
					return
				}
				_, err = ix.ValidSpans(in, nil)
			} else {
				_, err = ix.ObjectSpans(in, nil)
			}
			if err != nil {
				return
			}
			checkMembers(t, &ix, in)
		}
	})
}

// checkMembers holds each object the index of in records to MemberSpans
// of its bytes (its members listed from the index alone), and every other
// container to being listed by scanning: only objects with members, and
// all of those, are recorded (below the bound).
func checkMembers(t *testing.T, ix *Index, in []byte) {
	t.Helper()
	recorded := 0
	if len(ix.lists) != len(ix.containers) {
		t.Fatalf("%q: %d containers, the member lists of %d", in, len(ix.containers), len(ix.lists))
	}
	for s, ct := range ix.containers {
		v := in[ct.start:ct.end]
		want, wantErr := MemberSpans(v, nil)
		got, gotErr := ix.MemberSpans(v, nil)
		if fmt.Sprint(want, wantErr) != fmt.Sprint(got, gotErr) {
			t.Fatalf("%q at %d: scanned %v %v, indexed %v %v", in, ct.start, want, wantErr, got, gotErr)
		}
		if ix.lists[s].first > 0 {
			recorded++
			if v[0] != '{' || len(want) == 0 {
				t.Fatalf("%q at %d: members recorded for %q", in, ct.start, v)
			}
		} else if v[0] == '{' && len(want) > 0 {
			t.Fatalf("%q at %d: members of %q not recorded", in, ct.start, v)
		}
	}
	if recorded == 0 && len(ix.recorded) > 0 {
		t.Fatalf("%q: %d members recorded for no object", in, len(ix.recorded))
	}
}

// Past maxMembers an object's members are not recorded, and it is listed
// by scanning; what was recorded before stays; an index reset after a
// large input does not keep its room.
func TestMemberIndexBound(t *testing.T) {
	in := []byte(`{"a":[{"k":{"x":1,"y":2}},{"b":{` + strings.Repeat(`"m":1,`, maxMembers) + `"z":[{"last":0}]}}]}`)
	var ix Index
	for _, valid := range []bool{false, true} {
		var err error
		if valid {
			_, err = ix.ValidSpans(in, nil)
		} else {
			_, err = ix.ObjectSpans(in, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(ix.recorded) != maxMembers {
			t.Errorf("valid %v: recorded %d members, want %d", valid, len(ix.recorded), maxMembers)
		}
		var plain, indexed []string
		walkSpans(nil, in, "$", &plain)
		walkSpans(&ix, in, "$", &indexed)
		if strings.Join(plain, "\n") != strings.Join(indexed, "\n") {
			t.Errorf("valid %v: member lists differ", valid)
		}
		first := in[bytes.Index(in, []byte(`{"x"`)):]
		first = first[:bytes.IndexByte(first, '}')+1]
		if c := ix.after(ix.offset(first), -1); ix.lists[c].first <= 0 {
			t.Errorf("valid %v: the members before the bound are not recorded", valid)
		}
		big := in[bytes.Index(in, []byte(`{"m"`)):]
		big = big[:len(big)-len(`]}}]}`)+2]
		if c := ix.after(ix.offset(big), -1); ix.lists[c].first > 0 {
			t.Errorf("valid %v: an object past the bound is recorded", valid)
		}
	}
	ix.Reset()
	if cap(ix.recorded) > keptMembers || cap(ix.containers) > keptContainers || cap(ix.lists) > keptContainers {
		t.Errorf("after Reset the index keeps room for %d members and %d containers", cap(ix.recorded), cap(ix.containers))
	}
}

// FuzzKeys holds Keys to the keys laid end to end, whatever came before:
// lists of two inputs asked in turn, from bytes overwritten after each
// call (a reader's line buffer), give every time the keys of the input
// asked, and a string Keys returned never changes after.
func FuzzKeys(f *testing.F) {
	f.Add([]byte(`{"step_id":1,"source":"agent","message":"hi"}`), []byte(`{"step_id":2,"source":"user","message":"yo"}`))
	f.Add([]byte(`{"a":1,"b":{"c":2}}`), []byte(`{"b":1,"a":{"c":2}}`))
	// Keys that differ only where Keys' hash does not look: the same
	// slot, told apart by comparing them.
	f.Add([]byte(`{"ab":1,"cd":2,"ef":3}`), []byte(`{"ab":1,"cd":2,"gf":3}`))
	f.Add([]byte(`{"abc":1,"def":2}`), []byte(`{"abc":1,"dxf":2}`))
	f.Add([]byte(`{"\u0061":1,"`+strings.Repeat("k", 300)+`":2}`), []byte(`{}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var ix Index
		type kept struct{ s, want string }
		var all []kept
		for _, in := range [][]byte{a, b, a, b, a} {
			spans, err := ObjectSpans(in, nil)
			if err != nil {
				continue
			}
			var want []byte
			for _, m := range spans {
				want = append(want, in[m.KeyStart:m.KeyEnd]...)
			}
			buf := append([]byte(nil), in...)
			got, plain := ix.Keys(buf, spans)
			if plain != PlainKey(want) {
				t.Fatalf("%q: Keys says plain %v, PlainKey %v", in, plain, !plain)
			}
			for i := range buf {
				buf[i] = 'x'
			}
			if got != string(want) {
				t.Fatalf("%q: Keys %q, want %q", in, got, want)
			}
			all = append(all, kept{got, string(want)})
		}
		for _, k := range all {
			if k.s != k.want {
				t.Fatalf("a string Keys returned changed: %q, was %q", k.s, k.want)
			}
		}
	})
}
