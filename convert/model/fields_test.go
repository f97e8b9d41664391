package model

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/internal/jsonw"
)

// FuzzMustJSONString: the plain-string shortcut writes what the encoder
// writes.
func FuzzMustJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "/Users/x/code/", "tab\there", `q"uote`, `back\slash`, "é→", "\u2028", "a\u2029b", "\x7f", "\xff", "<&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := encodeJSON(t, s)
		if got := MustJSON(s); !bytes.Equal(got, want) {
			t.Fatalf("MustJSON(%q) = %s, want %s", s, got, want)
		}
	})
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
