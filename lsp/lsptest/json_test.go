package lsptest

import "testing"

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
