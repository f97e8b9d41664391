package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// walkAll walks the whole document with w, descending into every object
// and array, and returns each leaf as "path=value" plus each key's place.
func walkAll(w *Walker) ([]string, error) {
	var out []string
	var walk func(path string) error
	walk = func(path string) error {
		switch w.Kind() {
		case '{':
			return w.Object(func(key []byte, at Pos) error {
				k := Key(key)
				out = append(out, fmt.Sprintf("%s.%s@%d:%d:%d", path, k, at.Offset, at.Line, at.Col))
				return walk(path + "." + k)
			})
		case '[':
			return w.Elems(func(i int, at Pos) error {
				return walk(fmt.Sprintf("%s[%d]", path, i))
			})
		}
		v, _, err := w.Value()
		if err != nil {
			return err
		}
		var x any
		if err := json.Unmarshal(v, &x); err != nil {
			// A number too large for a float64 (1E700) is valid JSON all
			// the same: keep its text.
			dec := json.NewDecoder(bytes.NewReader(v))
			dec.UseNumber()
			if err := dec.Decode(&x); err != nil {
				return err
			}
		}
		out = append(out, fmt.Sprintf("%s=%v", path, x))
		return nil
	}
	if err := walk("$"); err != nil {
		return out, err
	}
	return out, w.End()
}

// place is the line and character column of offset off in doc, counted
// the slow way.
func place(doc string, off int) (int, int) {
	line, col := 1, 1
	for _, r := range strings.TrimPrefix(doc[:off], "\xef\xbb\xbf") {
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

const sampleDoc = "\xef\xbb\xbf{\r\n  \"schema_version\": \"ATIF-v1.5\",\n  \"agent\": {\"name\": \"日本語 → x\", \"version\": \"1\"},\n\t\"steps\": [\n    {\"step_id\": 1, \"message\": \"a \\\"quoted\\\" 😀\", \"n\": -1.5e3},\n    {\"step_id\": 2, \"tool_calls\": [], \"x\": {}, \"ok\": true, \"no\": null}\n  ],\n  \"final_metrics\": {\"total_steps\": 2}\n}\n"

func TestWalkerVisitsEveryValueWithPlaces(t *testing.T) {
	for _, size := range []int{1, 3, 7, 64, walkerBuffer} {
		for _, oneByte := range []bool{false, true} {
			var r io.Reader = strings.NewReader(sampleDoc)
			if oneByte {
				r = iotest.OneByteReader(r)
			}
			w := NewWalker(r, true)
			w.buf = make([]byte, size)
			got, err := walkAll(w)
			if err != nil {
				t.Fatalf("size %d: %v", size, err)
			}
			var values []string
			for _, g := range got {
				if k, at, ok := strings.Cut(g, "@"); ok {
					var off, l, c int
					fmt.Sscanf(at, "%d:%d:%d", &off, &l, &c)
					name := k[strings.LastIndexByte(k, '.')+1:]
					if !strings.HasPrefix(sampleDoc[off:], `"`+name+`"`) {
						t.Fatalf("key %s at %d: %q", k, off, sampleDoc[off:min(off+20, len(sampleDoc))])
					}
					if wl, wc := place(sampleDoc, off); wl != l || wc != c {
						t.Fatalf("key %s at %d:%d, want %d:%d", k, l, c, wl, wc)
					}
					continue
				}
				values = append(values, g)
			}
			want := []string{"$.schema_version=ATIF-v1.5", "$.agent.name=日本語 → x", "$.agent.version=1",
				"$.steps[0].step_id=1", "$.steps[0].message=a \"quoted\" 😀", "$.steps[0].n=-1500",
				"$.steps[1].step_id=2", "$.steps[1].ok=true", "$.steps[1].no=<nil>", "$.final_metrics.total_steps=2"}
			got = values
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("size %d one byte %v:\n%s", size, oneByte, strings.Join(got, "\n"))
			}
		}
	}
	// The places agree with counting by hand.
	for _, want := range []string{`"schema_version"`, `"name"`, `"total_steps"`, `"no"`} {
		off := strings.Index(sampleDoc, want)
		l, c := place(sampleDoc, off)
		w := NewWalker(strings.NewReader(sampleDoc), true)
		got, _ := walkAll(w)
		tag := fmt.Sprintf(".%s@%d:%d:%d", strings.Trim(want, `"`), off, l, c)
		found := false
		for _, g := range got {
			found = found || strings.HasSuffix(g, tag)
		}
		if !found {
			t.Errorf("no key at %s in %v", tag, got)
		}
	}
}

func TestWalkerErrorsAtTheirOffset(t *testing.T) {
	for _, doc := range []string{
		`{"a": [1, 2,, 3]}`,
		`{"a": "unterminated`,
		`{"a": {"b": tru}}`,
		`{"a": 1 "b": 2}`,
		`{"a": 1} x`,
		`{"a": "bad \q escape"}`,
		`{"a": [1, 2`,
		`{"a":`,
		`{"a" 1}`,
		`{1: 2}`,
		"{\"a\": \"ctl \x01\"}",
		`{"a": 01}`,
		``,
	} {
		w := NewWalker(strings.NewReader(doc), true)
		w.buf = make([]byte, 4)
		_, err := walkAll(w)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: error %v, want a syntax error", doc, err)
			continue
		}
		if se.Offset < 0 || se.Offset > len(doc) {
			t.Errorf("%q: offset %d outside the document", doc, se.Offset)
		}
		if json.Valid([]byte(doc)) {
			t.Errorf("%q is valid JSON", doc)
		}
	}
	// The offset is where encoding/json stops too, for a typical break.
	doc := `{"steps": [{"a": 1}, {"a": 2,}]}`
	w := NewWalker(strings.NewReader(doc), false)
	_, err := walkAll(w)
	var se *SyntaxError
	if !errors.As(err, &se) || doc[se.Offset] != '}' || se.Offset != strings.Index(doc, ",}")+1 {
		t.Errorf("error %v at %d", err, se.Offset)
	}
}

// TestWalkerHoldsOneElement: walking an array of many elements keeps the
// buffer at the size of the largest element, not the document.
func TestWalkerHoldsOneElement(t *testing.T) {
	var doc bytes.Buffer
	doc.WriteString(`{"head": "x", "steps": [`)
	elem := `{"text": "` + strings.Repeat("é", 3000) + `"}`
	for i := range 2000 {
		if i > 0 {
			doc.WriteByte(',')
		}
		doc.WriteString(elem)
	}
	doc.WriteString(`], "tail": 1}`)
	w := NewWalker(bytes.NewReader(doc.Bytes()), true)
	n := 0
	err := w.Object(func(key []byte, _ Pos) error {
		if string(key) == "steps" {
			return w.Array(func(i int, v []byte, at Pos) error {
				if string(v) != elem {
					return fmt.Errorf("element %d differs", i)
				}
				if at.Col != utf8.RuneCountInString(`{"head": "x", "steps": [`)+1+i*(utf8.RuneCountInString(elem)+1) {
					return fmt.Errorf("element %d at column %d", i, at.Col)
				}
				n++
				return nil
			})
		}
		return nil
	})
	if err != nil || n != 2000 {
		t.Fatalf("%d elements, %v", n, err)
	}
	if len(w.buf) > walkerBuffer {
		t.Errorf("buffer grew to %d for %d-byte elements", len(w.buf), len(elem))
	}
}

func TestWalkerSkipsUnreadValues(t *testing.T) {
	doc := `{"a": {"deep": [1, {"x": [true]}]}, "b": "keep", "c": [[], {}]}`
	w := NewWalker(strings.NewReader(doc), false)
	var got []string
	err := w.Object(func(key []byte, _ Pos) error {
		if string(key) == "b" {
			v, _, err := w.Value()
			got = append(got, string(v))
			return err
		}
		return nil
	})
	if err != nil || len(got) != 1 || got[0] != `"keep"` {
		t.Fatalf("%v %v", got, err)
	}
	if err := w.End(); err != nil {
		t.Fatal(err)
	}
	// Skipped values are validated all the same.
	w = NewWalker(strings.NewReader(`{"a": {"deep": [1, {"x": [tru]}]}}`), false)
	if err := w.Object(func([]byte, Pos) error { return nil }); err == nil {
		t.Error("an invalid skipped value was accepted")
	}
}

func FuzzWalker(f *testing.F) {
	f.Add(sampleDoc)
	f.Add(`{"a": [1, 2,, 3]}`)
	f.Add(`[{"a": "\u00e9"}, 1e5, -0.5, null]`)
	f.Fuzz(func(t *testing.T, doc string) {
		w := NewWalker(strings.NewReader(doc), true)
		w.buf = make([]byte, 5)
		_, err := walkAll(w)
		valid := json.Valid(bytes.TrimPrefix([]byte(doc), []byte("\xef\xbb\xbf")))
		if (err == nil) != valid {
			t.Fatalf("walker error %v, encoding/json valid %v", err, valid)
		}
	})
}

func TestLocate(t *testing.T) {
	doc := `{"a": {"b": [10, {"c": "x"}, [1]], "d": null}, "e": "f"}`
	for _, c := range []struct {
		path string
		want string
		ok   bool
	}{
		{"a", `"a"`, true},
		{"a.b", `"b"`, true},
		{"a.b.0", `10`, true},
		{"a.b.1", `{`, true},
		{"a.b.1.c", `"c"`, true},
		{"a.b.2.0", `1`, true},
		{"e", `"e"`, true},
		{"a.missing", `{`, false}, // the object a
		{"a.b.7", `[`, false},
		{"a.b.x", `[`, false},
		{"e.deeper", `"`, false},
		{"", `{`, true},
	} {
		var path []string
		if c.path != "" {
			path = strings.Split(c.path, ".")
		}
		s, e, ok := Locate([]byte(doc), path)
		if got := doc[s:e]; got != c.want || ok != c.ok {
			t.Errorf("Locate(%s) = %q %v, want %q %v", c.path, got, ok, c.want, c.ok)
		}
	}
}

func TestFloatRejectsNull(t *testing.T) {
	for _, v := range []string{"null", `"1"`, "true", ""} {
		if _, ok := Float([]byte(v)); ok {
			t.Errorf("Float(%s) ok", v)
		}
	}
	if f, ok := Float([]byte("-1.5e2")); !ok || f != -150 {
		t.Errorf("Float(-1.5e2) = %v %v", f, ok)
	}
}

// TestWalkerDepthComesBack: an empty object or array, and a value of
// another kind asked for as one, leave the depth where it was, however
// many there are (more than the nesting allowed).
func TestWalkerDepthComesBack(t *testing.T) {
	doc := "[" + strings.Repeat(`{}, [], 1, "s", `, maxDepth) + "null]"
	w := NewWalker(strings.NewReader(doc), false)
	err := w.Elems(func(i int, _ Pos) error {
		var err error
		if i%2 == 0 {
			err = w.Object(func([]byte, Pos) error { return nil })
		} else {
			err = w.Elems(func(int, Pos) error { return nil })
		}
		if err == ErrNotObject || err == ErrNotArray {
			return nil
		}
		return err
	})
	if err != nil || w.depth != 0 {
		t.Fatalf("error %v, depth %d after the walk", err, w.depth)
	}
}

// FuzzIndexedValue: a value a Walker indexed as it validated it is
// indexed as ObjectSpans indexes a line (each container where it is, each
// object's members), its ValidSpans are listed from the index and are
// MemberSpans's, and the member lists at every depth are those found by
// scanning; an invalid value leaves the index empty, and the index
// reused for the next value forgets the one before.
func FuzzIndexedValue(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"c\n"}],"d":{"e":[[],{}],"f":"}]"}}`), []byte(`[{"x":[{"y":1}]}]`))
	f.Add([]byte(" {\n  \"m\" : {\n    \"content\" : [ { \"type\" : \"text\" } ]\n  }\n} "), []byte(`{"a":`))
	f.Add([]byte(`{}`), []byte(`"s"`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var ix Index
		for _, in := range [][]byte{a, b, a} {
			w := NewWalker(bytes.NewReader(in), false)
			v, _, err := w.IndexedValue(&ix)
			if err != nil {
				if ix.input != nil || len(ix.containers) > 0 || len(ix.recorded) > 0 {
					t.Fatalf("%q: indexed though invalid (%v)", in, err)
				}
				continue
			}
			checkContainers(t, &ix, v)
			checkMembers(t, &ix, v)
			var plain, indexed []string
			walkSpans(nil, v, "$", &plain)
			want, wantErr := MemberSpans(v, nil)
			got, gotErr := ix.ValidSpans(v, nil)
			if fmt.Sprint(want, wantErr) != fmt.Sprint(got, gotErr) {
				t.Fatalf("%q: MemberSpans %v %v, ValidSpans %v %v", in, want, wantErr, got, gotErr)
			}
			walkSpans(&ix, v, "$", &indexed)
			if strings.Join(plain, "\n") != strings.Join(indexed, "\n") {
				t.Fatalf("%q:\nplain:   %q\nindexed: %q", in, plain, indexed)
			}
		}
	})
}

// chunkReader hands out at most n bytes a Read, so that a value starts in
// one fill of a Walker's buffer and ends in another.
type chunkReader struct {
	b []byte
	n int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	m := copy(p[:min(len(p), r.n)], r.b)
	r.b = r.b[m:]
	return m, nil
}

// walkTrace walks doc as plan says, value by value (read it, read it
// indexed, descend into it, or leave it to be skipped), and returns what
// the walk saw: each value's bytes, place and error, the index after each
// indexed value, each key's place, and how the walk ended.
func walkTrace(doc []byte, chunk int, buf int, plan []byte, twoPass bool) string {
	w := NewWalker(&chunkReader{doc, chunk}, true)
	w.twoPass = twoPass
	if buf > 0 {
		w.buf = make([]byte, buf)
	}
	var ix Index
	var out strings.Builder
	step := 0
	var walk func() error
	walk = func() error {
		var op byte
		if len(plan) > 0 {
			op = plan[step%len(plan)] % 4
		}
		step++
		switch op {
		case 0, 1:
			var v []byte
			var at Pos
			var err error
			if op == 0 {
				v, at, err = w.IndexedValue(&ix)
				fmt.Fprintf(&out, "indexed %q %v %v handed=%v input=%q %v %v %v\n", v, at, err, ix.handed, ix.input, ix.containers, ix.recorded, ix.lists)
			} else {
				v, at, err = w.Value()
				fmt.Fprintf(&out, "value %q %v %v\n", v, at, err)
			}
			return err
		case 2:
			switch w.Kind() {
			case '{':
				return w.Object(func(key []byte, at Pos) error {
					fmt.Fprintf(&out, "key %q %v\n", key, at)
					return walk()
				})
			case '[':
				return w.Elems(func(i int, at Pos) error {
					fmt.Fprintf(&out, "elem %d %v\n", i, at)
					return walk()
				})
			}
			v, at, err := w.Value()
			fmt.Fprintf(&out, "scalar %q %v %v\n", v, at, err)
			return err
		}
		fmt.Fprintf(&out, "skip %v\n", w.Skip())
		return nil
	}
	err := walk()
	if err == nil {
		err = w.End()
	}
	fmt.Fprintf(&out, "end %v %v", err, w.Pos())
	return out.String()
}

// FuzzOnePassWalk: a Walker that validates an object or array where it
// lies in its buffer, finding its end as it validates it, walks every
// document as the two passes it replaces did (the end found, then the
// value validated): the same values, places, indexes, and the same error
// at the same offset for an invalid one, whatever the reads hand it at a
// time and however small its buffer starts.
func FuzzOnePassWalk(f *testing.F) {
	f.Add([]byte(sampleDoc), uint8(0), uint8(0), []byte{2, 0, 1})
	f.Add([]byte(`{"steps": [{"a": [1, {"b": "c\"}"}]}, {"d": {}}, [], {"e": 1e5}], "x": tru}`), uint8(3), uint8(4), []byte{2, 2, 0})
	f.Add([]byte(`[{"a": [1, 2,, 3]}, {"b": "\u00e9"}]`), uint8(1), uint8(7), []byte{2, 0})
	f.Add([]byte(`{"a": {"b": [}]}, "c": {"d": 1]}`), uint8(0), uint8(0), []byte{2, 0})
	f.Add([]byte("\xef\xbb\xbf [{\"a\":\"\x01\"}, {\"b\"}, 1 2]"), uint8(2), uint8(0), []byte{2, 0, 1, 3})
	f.Fuzz(func(t *testing.T, doc []byte, chunk, buf uint8, plan []byte) {
		n := int(chunk%16) + 1
		if chunk >= 128 {
			n = len(doc) + 1
		}
		b := int(buf % 32)
		one := walkTrace(doc, n, b, plan, false)
		two := walkTrace(doc, n, b, plan, true)
		if one != two {
			t.Fatalf("%q (reads of %d, buffer %d, plan %v):\none pass:\n%s\ntwo passes:\n%s", doc, n, b, plan, one, two)
		}
	})
}
