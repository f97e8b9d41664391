package jsonw

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// The Indenter gives json.Indent's output however the input is cut.
func TestIndenterMatchesJSONIndent(t *testing.T) {
	docs := []string{
		`{"a":1,"b":[],"c":{},"d":[1,{"e":"x\"y\\","f":[[]]}],"g":"{[,:]}","h":null}`,
		`[]`, `{}`, `"s"`, `[{"a":{"b":{"c":[1,2,3]}}}]`,
		`{"t":"naïve → 日本語 \u00e9 \\\""}`,
	}
	for _, doc := range docs {
		var want bytes.Buffer
		if err := json.Indent(&want, []byte(doc), "", "  "); err != nil {
			t.Fatal(err)
		}
		for cut := 1; cut <= len(doc); cut++ {
			var got bytes.Buffer
			x := NewIndenter(&got)
			for i := 0; i < len(doc); i += cut {
				x.Write([]byte(doc[i:min(i+cut, len(doc))]))
			}
			x.Flush()
			if got.String() != want.String() {
				t.Fatalf("%s cut every %d:\n%s\nwant\n%s", doc, cut, got.String(), want.String())
			}
		}
	}
}

func FuzzIndenter(f *testing.F) {
	f.Add(`{"a":[1,{}],"b":"x"}`, 3)
	f.Fuzz(func(t *testing.T, doc string, cut int) {
		var compact bytes.Buffer
		if json.Compact(&compact, []byte(doc)) != nil {
			return
		}
		var want bytes.Buffer
		json.Indent(&want, compact.Bytes(), "", "  ")
		cut = max(cut%64, 1)
		var got bytes.Buffer
		x := NewIndenter(&got)
		src := compact.Bytes()
		for i := 0; i < len(src); i += cut {
			x.Write(src[i:min(i+cut, len(src))])
		}
		x.Flush()
		if got.String() != want.String() {
			t.Fatalf("%q cut every %d:\n%s\nwant\n%s", src, cut, got.String(), want.String())
		}
	})
}

// Indentation deeper than newline's ready-made prefix (64 levels) is
// written level by level, as json.Indent writes it.
func TestIndenterDeep(t *testing.T) {
	for _, depth := range []int{63, 64, 65, 80} {
		doc := strings.Repeat(`{"a":[`, depth) + `1` + strings.Repeat(`]}`, depth)
		var want, got bytes.Buffer
		if err := json.Indent(&want, []byte(doc), "", "  "); err != nil {
			t.Fatal(err)
		}
		x := NewIndenter(&got)
		x.Write([]byte(doc))
		x.Flush()
		if got.String() != want.String() {
			t.Fatalf("depth %d: output differs from json.Indent", depth)
		}
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

// An Indenter's output larger than its buffer comes out whole, and a
// failed write is returned by Flush.
func TestIndenterLargeAndFailing(t *testing.T) {
	var doc strings.Builder
	doc.WriteString(`[`)
	for i := range 20000 {
		if i > 0 {
			doc.WriteString(`,`)
		}
		doc.WriteString(`{"k":"a value \"quoted\" \\ and long enough","n":[1,2]}`)
	}
	// Strings longer than the buffer, with and without escapes, and a
	// long list of numbers.
	doc.WriteString(`,"` + strings.Repeat("x", 200<<10) + `","` + strings.Repeat(`a\"b`, 50<<10) + `",[`)
	for i := range 30000 {
		if i > 0 {
			doc.WriteString(`,`)
		}
		doc.WriteString(`12345`)
	}
	doc.WriteString(`]]`)
	var want, got bytes.Buffer
	json.Indent(&want, []byte(doc.String()), "", "  ")
	x := NewIndenter(&got)
	x.Write([]byte(doc.String()))
	if err := x.Flush(); err != nil || got.String() != want.String() || want.Len() < 500<<10 {
		t.Fatalf("large document: err %v, output equal %v", err, got.String() == want.String())
	}
	x = NewIndenter(failingWriter{})
	x.Write([]byte(doc.String()))
	if err := x.Flush(); err == nil {
		t.Fatal("Flush after a failed write returned nil")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrShortWrite }
