package replay

import (
	"bytes"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/convert/claude"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// FuzzIndexedLine holds Read's indexed path to the plain one it replaced:
// for a line parsed with model.ParseRecord, each value read through the
// index (Fields.StringIn, Index.Copy, readUsage, model.ApplyRestIn) is what
// the same value read without it gives (Fields.String, jsonscan.Copy,
// claude.ParseUsage, model.ApplyRest), invalid UTF-8 included.
func FuzzIndexedLine(f *testing.F) {
	for _, s := range []string{
		`{"event":"Message","kind":"agent","rest":{"kind":"agent","time":""},"t":"2025-12-19T20:29:03Z","text":"agent λ","usage":{"cache_creation_input_tokens":0,"cache_read_input_tokens":18416,"input_tokens":415,"output_tokens":161}}`,
		`{"event":"ToolCall","id":"qnJKpCfy","params":{"a":[1,{"b":"\u00e9"}]},"rest":{"kind":"tool_call","text":"","unset":["step"]},"step_id":"step-1","t":"x","tool":"TodoWrite"}`,
		`{"event":"ToolResult","exit_code":null,"id":"q","output_preview":"a\"b\\c","rest":{"kind":"tool_result","result":{},"text":""}}`,
		"{\"event\":\"Message\",\"text\":\"bad \xff\xfe utf-8\",\"rest\":{\"kind\":\"user\",\"text\":\"\xc3\"},\"usage\":{\"input_tokens\":\"\xff\"}}",
		`{"usage":[1,2],"rest":5,"t":null}`,
		`{"usage":{"cache_creation_input_tokens":0,"cache_read_input_tokens":123456789012345678,"input_tokens":1234567890123456789,"output_tokens":7}}`,
		`{"usage":{"cache_creation_input_tokens":1.5,"cache_read_input_tokens":-2,"input_tokens":3e2,"output_tokens":0}}`,
		`{"usage":{"cache_creation_input_tokens":1,"cache_read_input_tokens":2,"input_tokens":3,"output_tokens":4,"service_tier":"x"}}`,
		`{"usage":{"cache_creation_input_tokens":1,"cache_read_input_tokens":2,"input_tokens":3,"output_tokens":4} }`,
		`{"usage":{"cache_creation_input_tokens":1,"cache_read_input_tokens":2,"input_tokens":3}}`,
		`{"usage":{"input_tokens":1e3,"output_tokens":-4},"model":"m","message_id":"msg"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var ix jsonscan.Index
		indexed, err := model.ParseRecord(&ix, line, false, false)
		plain, perr := model.ParseFieldsView(line)
		if (err == nil) != (perr == nil) || len(indexed) != len(plain) {
			t.Fatalf("ParseRecord %v (%d fields), ParseFieldsView %v (%d)", err, len(indexed), perr, len(plain))
		}
		if err != nil {
			return
		}
		if got, want := ix.InputValidUTF8(), utf8.Valid(line); got != want {
			t.Fatalf("InputValidUTF8 %v, want %v", got, want)
		}
		for i, fl := range indexed {
			if fl.Key != plain[i].Key || !bytes.Equal(fl.Value, plain[i].Value) {
				t.Fatalf("field %d: %q=%s, want %q=%s", i, fl.Key, fl.Value, plain[i].Key, plain[i].Value)
			}
			gs, gok := indexed.StringIn(&ix, fl.Key)
			ws, wok := plain.String(fl.Key)
			if gs != ws || gok != wok {
				t.Errorf("StringIn(%q) = %q %v, want %q %v", fl.Key, gs, gok, ws, wok)
			}
			if g, w := ix.Copy(fl.Value), jsonscan.Copy(fl.Value); !bytes.Equal(g, w) {
				t.Errorf("Copy(%s) = %s, want %s", fl.Value, g, w)
			}
			if g, w := readUsage(&ix, fl.Value), claude.ParseUsage(fl.Value); !reflect.DeepEqual(g, w) {
				t.Errorf("readUsage(%s) = %+v, want %+v", fl.Value, g, w)
			}
			var ge, we model.Event
			gerr, werr := model.ApplyRestIn(&ix, &ge, fl.Value), model.ApplyRest(&we, fl.Value)
			if (gerr == nil) != (werr == nil) || !reflect.DeepEqual(ge, we) {
				t.Errorf("ApplyRestIn(%s) = %+v %v, want %+v %v", fl.Value, ge, gerr, we, werr)
			}
		}
	})
}
