package lsp

import (
	"reflect"
	"testing"

	"github.com/segmentio/encoding/json"
)

// checkDidOpen requires decodeDidOpen to give the codec's result whenever
// it decodes at all, for params the envelope's decode would accept.
func checkDidOpen(t *testing.T, raw []byte) (fast bool) {
	t.Helper()
	if !json.Valid(raw) {
		decodeDidOpen(raw) // must not panic
		return false
	}
	got, ok := decodeDidOpen(raw)
	var want didOpenParams
	err := decodeParams(raw, &want)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("decodeDidOpen(%s) decoded what the codec rejects: %v", raw, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeDidOpen(%s)\n got %+v\nwant %+v", raw, got, want)
	}
	return true
}

func TestDecodeDidOpen(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		fast bool
	}{
		{`{"textDocument":{"uri":"file:///a.rlog","languageId":"rlog","version":3,"text":"u: x\n\"y\" \\ \u00e9 \ud83d\ude00"}}`, true},
		{` { "textDocument" : { "text" : "a" , "version" : -7 , "uri" : "file:///b" } , "extra" : [1, {"a": "]}\""}] } `, true},
		{"{\"textDocument\":{\"uri\":\"file:///c\",\"text\":\"raw \xff bytes\"}}", true},
		{`{"textDocument":{"uri":"file:///a","text":null}}`, true},
		{`{"textDocument":{"uri":"file:///a"},"textDocument":{"version":2}}`, true},
		{`{}`, true},
		{`{"textDocument":{"URI":"file:///a"}}`, false},      // another case: the codec's rules
		{`{"TextDocument":{"uri":"file:///a"}}`, false},      // idem
		{`{"textDocument":{"\u0075ri":"file:///a"}}`, false}, // an escaped key
		{`{"textDocument":{"version":1.5}}`, false},
		{`{"textDocument":{"version":"1"}}`, false},
		{`{"textDocument":{"text":5}}`, false},
		{`{"textDocument":null}`, false},
		{`null`, false},
		{`[1]`, false},
	} {
		if fast := checkDidOpen(t, []byte(tc.raw)); fast != tc.fast {
			t.Errorf("decodeDidOpen(%s): fast path %v, want %v", tc.raw, fast, tc.fast)
		}
	}
}

func FuzzDecodeDidOpen(f *testing.F) {
	for _, s := range []string{
		`{"textDocument":{"uri":"file:///a.rlog","languageId":"rlog","version":3,"text":"u: x\n\"y\" \\"}}`,
		`{"textDocument":{"uri":"file:///a"},"x":{"y":["\"}",{}]},"textDocument":{"version":2,"text":null}}`,
		`{"textDocument":{"Text":"a","version":2147483648}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkDidOpen(t, raw) })
}
