package rlogfmt

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/grammar"
)

// The header fields the reader and the writer map to the model's are
// rlog/1's own (grammar.FieldSpecs), each with the type its model field
// holds.
func TestModelHeaderFieldsAreNamed(t *testing.T) {
	want := map[string]grammar.FieldType{fieldFormat: grammar.FieldString, fieldID: grammar.FieldString, fieldRepoSHA: grammar.FieldString}
	for _, f := range agentFields {
		want[f.name] = grammar.FieldString
	}
	for _, f := range totalFields {
		want[f.name] = grammar.FieldCount
	}
	if len(want) != len(modelHeaderFields) {
		t.Errorf("modelHeaderFields %v, want the names of %v", modelHeaderFields, want)
	}
	for name, typ := range want {
		spec, ok := grammar.FieldSpecNamed(name)
		if !ok || spec.Type != typ || !modelHeaderFields[name] {
			t.Errorf("header field %s: %+v (named %v), want type %d", name, spec, ok, typ)
		}
	}
}

// A line's metadata is what grammar's key table says: its trailing pairs
// of Trailing keys, and before a call's arrow the CallMeta keys; any other
// pair there is an argument.
func TestLineMetadataFollowsKeyTable(t *testing.T) {
	for _, k := range grammar.Keys() {
		line := "t!:Run " + k.String() + "=v → [running] " + k.String() + "=w"
		p := split([]byte(line))
		if got, ok := p.metaGet(k); ok != k.Trailing() || ok && got != "w" {
			t.Errorf("%q: trailing %s = %q, %v; want it read: %v", line, k, got, ok, k.Trailing())
		}
		if isArg(t, k.String()) == k.CallMeta() {
			t.Errorf("%s before a call's arrow: an argument %v, want %v", k, !k.CallMeta(), !k.CallMeta())
		}
	}
	if !isArg(t, "file_path") {
		t.Error("file_path= before a call's arrow is an argument")
	}
}

// isArg reports whether the reader takes key=v before a call's arrow as an
// argument of the call.
func isArg(t *testing.T, key string) bool {
	t.Helper()
	var c model.Collector
	if err := Read(strings.NewReader("---\nformat: rlog/1\n---\nt!:Run "+key+"=v → [running]\n"), &c, &model.Report{}); err != nil {
		t.Fatal(err)
	}
	for _, e := range c.Session.Events {
		if e.Call != nil {
			var in map[string]any
			_ = json.Unmarshal(e.Call.Input, &in)
			_, ok := in[key]
			return ok
		}
	}
	t.Fatalf("%s=: no call read", key)
	return false
}
