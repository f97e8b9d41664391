package jsonw

import (
	"bytes"
	"encoding/json"
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
