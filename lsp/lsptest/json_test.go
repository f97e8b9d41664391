package lsptest

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestJSONEqual(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":[1,2]}`, ` { "b" : [1, 2], "a" : 1 } `, true},
		{`{"a":[]}`, `{"a":null}`, false},
		{`{"a":null}`, `{}`, false},
		{`1`, `1.0`, false},
		{`3000000000`, `3000000000`, true},
		{`"é"`, `"\u00e9"`, true},
		{`{"a":1}`, `{"a":1`, false},
	} {
		if got := JSONEqual([]byte(tc.a), []byte(tc.b)); got != tc.want {
			t.Errorf("JSONEqual(%s, %s) = %v", tc.a, tc.b, got)
		}
	}
}

func TestParseFrame(t *testing.T) {
	f := parseFrame([]byte(`{"jsonrpc":"2.0","id":3000000000,"error":{"code":-32800,"message":"request cancelled"}}`))
	if !f.IsResponse() || f.IsRequest() || f.Error == nil || f.Error.Code != -32800 || !f.hasID("3000000000") {
		t.Fatalf("got %+v", f)
	}
	f = parseFrame([]byte(`{"jsonrpc":"2.0","id":4,"method":"workspace/configuration","params":{"items":[]}}`))
	if f.IsResponse() || !f.IsRequest() || f.Method != "workspace/configuration" {
		t.Fatalf("got %+v", f)
	}
	f = parseFrame([]byte(`{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"untitled:x","diagnostics":[]}}`))
	if p, ok := published(f); !ok || p.URI != "untitled:x" || p.Version != nil || !Cleared(p) {
		t.Fatalf("got %+v", p)
	}
}

// decodeEnvelope reads what json.Unmarshal reads, on messages as servers
// write them and on anything else.
func TestDecodeEnvelopeEqualsUnmarshal(t *testing.T) {
	for _, body := range envelopeSeeds {
		checkEnvelope(t, []byte(body))
	}
}

var envelopeSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"result":[{"name":"a \"}] \\","kind":2,"children":[{"x":[1,{"y":"]}"}]}]}]}`,
	` { "jsonrpc" : "2.0" , "id" : "s\"1" , "error" : { "code" : -32601 , "message" : "m" , "data" : [ null ] } } `,
	`{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"untitled:x","diagnostics":[]}}`,
	`{"jsonrpc":"2.0","id":4,"method":"workspace/configuration","params":{"items":[{}]}}`,
	`{"ID":3,"Method":"m","RESULT":true,"\u0069d":4,"id":null,"result":-1.5e3,"error":null,"params":"\\\\"}`,
	`{"id":1,"result":1,"result":{"a":"b"},"error":{"code":1},"error":{"message":"two"}}`,
	`{"id":1,"method":5}`, `{"id":1,"error":"x"}`, `{"id":1,"error":{"code":"x"}}`, `{}`, `null`, `[1]`, `"x"`, `7`,
	`{"id":1`, ``, `{"id":1} x`, "{\"id\":1,\"result\":\"\xff\"}", `{"result":"\u2028é😀"}`,
}

func FuzzDecodeEnvelope(f *testing.F) {
	for _, body := range envelopeSeeds {
		f.Add([]byte(body))
	}
	f.Fuzz(checkEnvelope)
}

func checkEnvelope(t *testing.T, body []byte) {
	var want envelope
	err := json.Unmarshal(body, &want)
	got, ok := decodeEnvelope(body)
	if ok != (err == nil) {
		t.Fatalf("%q: ok %v, Unmarshal says %v", body, ok, err)
	}
	if ok && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %+v\nwant %+v", body, got, want)
	}
}
