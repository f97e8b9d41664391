package claude

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// restsTextCopied is how an entry's rests were read before restsText: the
// value copied out of the line, then decoded when a string and copied again.
func restsTextCopied(ix *jsonscan.Index, v []byte) []byte {
	list := []byte(ix.Copy(v))
	if s, ok := jsonscan.String(list); ok {
		list = []byte(s)
	}
	return list
}

// FuzzRestsText holds restsText, which decodes the rests in place, to the
// reading that copied them first, on any valid JSON value of a line (valid
// UTF-8 or not).
func FuzzRestsText(f *testing.F) {
	for _, s := range []string{
		`"[{\"kind\":\"user\",\"time\":\"2025-12-19T20:29:03Z\",\"step\":1,\"unset\":[\"id\",\"parent\"]}]"`,
		`[{"kind":"user"}]`, `""`, `"\u00e9\ud800x\\"`, "\"\xff[\xfe]\"", `{"a":"\xff"}`, `null`, `12`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		if !jsonscan.Valid(v) {
			return
		}
		line := append(append([]byte(`{"rests":`), v...), '}')
		var ix jsonscan.Index
		var got, want []byte
		if err := ix.Object(line, func(_, value []byte) error {
			got = restsText(&ix, value, []byte("left from the entry before"))
			want = restsTextCopied(&ix, value)
			return nil
		}); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%q: restsText %q, copied first %q", v, got, want)
		}
		// applyRests reads the rests as valid UTF-8 without checking.
		if !utf8.Valid(got) {
			t.Fatalf("%q: restsText %q is not valid UTF-8", v, got)
		}
	})
}

// FuzzSameAsHeader holds headerField's shortcut to what it skips: whenever
// sameAsHeader says an entry's header value is the header's already,
// setHeaderField changes nothing (not the header, not what it took from
// entries, not the entry's extra).
func FuzzSameAsHeader(f *testing.F) {
	f.Add("cwd", "/home/dev", `"/home/dev"`, true)
	f.Add("userType", "external", `"external"`, false)
	f.Add("gitBranch", "main", `"ma\u0069n"`, true)
	f.Add("slug", "a\xffb", "\"a\xffb\"", false)
	f.Fuzz(func(t *testing.T, key, cur, v string, seen bool) {
		if !jsonscan.Valid([]byte(v)) {
			return
		}
		newState := func() *state {
			st := &state{h: &model.Header{ID: cur, Cwd: cur, AgentVersion: cur, Branch: cur}}
			if seen {
				st.seen = map[string]bool{key: true, "made:" + key: len(cur)%2 == 1}
				st.h.Extra.SetString(key, cur)
			}
			return st
		}
		for _, k := range []string{key, "sessionId", "cwd", "version", "gitBranch", "userType", "slug"} {
			key = k
			st := newState()
			var val []byte
			line := []byte(`{"k":` + v + `}`)
			st.ix.Object(line, func(_, value []byte) error { val = value; return nil })
			if !st.sameAsHeader([]byte(key), val) {
				continue
			}
			before := *st.h
			before.Extra = append(model.Fields(nil), st.h.Extra...)
			seenBefore := len(st.seen)
			st.setHeaderField(key, val)
			if !reflect.DeepEqual(before, *st.h) || len(st.pending) != 0 || len(st.seen) != seenBefore {
				t.Fatalf("key %q, header value %q, entry value %s: sameAsHeader says nothing to do, setHeaderField changed %+v to %+v, extra %v",
					key, cur, v, before, *st.h, st.pending)
			}
		}
	})
}

// blockMade is block as it was, making a string for the type and each key.
func blockMade(ix *jsonscan.Index, b []byte) (typ string, fields model.Fields, ok bool) {
	err := ix.Members(b, func(k, v []byte) error {
		name := jsonscan.KeyBytes(k)
		if string(name) == "type" {
			typ, _ = ix.String(v)
			return nil
		}
		fields = append(fields, model.Field{Key: string(name), Value: v})
		return nil
	})
	return typ, fields, err == nil
}

// FuzzBlock holds block, which names known types and keys with the
// package's strings and reuses its caller's buffer, to blockMade, on the
// blocks of a content list that is any valid JSON (the buffer reused from
// block to block, as the readers do).
func FuzzBlock(f *testing.F) {
	for _, s := range []string{
		`[{"type":"text","text":"hi"},{"type":"tool_use","id":"t","name":"Bash","input":{"c":1}}]`,
		`[{"type":"thinking","thinking":"x","signature":"s"},{"type":"t\u0065xt","te\u0078t":"y"},{"type":"text\xff","text\xff":1}]`,
		`[{"type":1},"str",{"text":"no type","type":"image","source":{}},{"type":"tool_result","tool_use_id":"t","content":[],"is_error":true,"other":2}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		if !jsonscan.Valid(content) {
			return
		}
		var ix jsonscan.Index
		var list []byte
		line := append(append([]byte(`{"content":`), content...), '}')
		if ix.Object(line, func(_, v []byte) error { list = v; return nil }) != nil {
			t.Fatalf("%q: not valid", line)
		}
		var scratch model.Fields
		ix.Array(list, func(i int, b []byte) error {
			typ, fields, ok := block(&ix, b, scratch[:0])
			scratch = fields
			wantTyp, wantFields, wantOK := blockMade(&ix, b)
			if typ != wantTyp || ok != wantOK || len(fields) != len(wantFields) {
				t.Fatalf("block %d of %s: %q %v %v, made %q %v %v", i, list, typ, fields, ok, wantTyp, wantFields, wantOK)
			}
			for j := range fields {
				if fields[j].Key != wantFields[j].Key || !bytes.Equal(fields[j].Value, wantFields[j].Value) {
					t.Fatalf("block %d of %s: field %d %q=%s, made %q=%s", i, list, j, fields[j].Key, fields[j].Value, wantFields[j].Key, wantFields[j].Value)
				}
			}
			return nil
		})
	})
}

// readLazyOrEager reads a transcript as Read does, its entries' extra made
// only for the types that keep it (the reader's path) or for every entry
// (eager: the reference).
func readLazyOrEager(data []byte, eager bool) (model.Session, *model.Report) {
	var c model.Collector
	rep := &model.Report{}
	h := &model.Header{SourceFormat: Name, AgentName: "claude-code"}
	st := &state{h: h, sink: &c, rep: rep, rd: &Reader{}, costs: &costs{}, eagerExtra: eager}
	st.readStream(bytes.NewReader(data), "")
	st.closeInline(model.Event{})
	c.End(h)
	return c.Session, rep
}

// FuzzLazyExtra holds the reader's pending fields (an entry's extra copied
// out of the line only when its type keeps it; an attachment's type found
// in the line) to the reading that copied every entry's extra: the same
// events, header and report, whatever the transcript.
func FuzzLazyExtra(f *testing.F) {
	f.Add([]byte(`{"parentUuid":null,"isSidechain":false,"attachment":{"type":"date","date":"2026-11-27"},"type":"attachment","uuid":"a","timestamp":"2026-11-27T09:21:58.485Z","sessionId":"s","cwd":"/w","version":"2.1.328"}` + "\n" +
		`{"type":"api-request","sessionId":"s","id":"r","params":{"model":"m"},"tail":["x"]}` + "\n" +
		`{"parentUuid":"a","type":"user","message":{"role":"user","content":"hi"},"uuid":"u","cwd":"/other","entrypoint":"cli","promptId":"p","slug":"s-1"}` + "\n" +
		`{"type":"cost-state","sessionId":"s","totalCostUSD":0.5,"modelUsage":{}}` + "\n" +
		`{"type":"summary","summary":"done","leafUuid":"u","extra":{"k":1}}`))
	f.Add([]byte(`{"type":"attachment","attachment":{"type":"prompt_snapshot","systemPrompt":["a\u0000"]},"cwd":7,"gitBranch":"\u00e9"}` + "\n" +
		`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto"},"requestId":"q","isMeta":false}` + "\n" +
		"{\"type\":\"assistant\",\"requestId\":\"r\xff\",\"message\":{\"id\":\"m\",\"content\":[{\"type\":\"text\",\"text\":\"t\"}]},\"x\":\"\xfe\"}"))
	// The recorded transcripts of the real CLI: its attachments and
	// bookkeeping records.
	recorded, _ := filepath.Glob("../../testdata/agents/claude-code/*/*/claude/projects/*/*.jsonl")
	for _, p := range append([]string{"testdata/session.jsonl", "../testdata/fixtures/claude/edge-cases.jsonl", "../testdata/fixtures/claude/continued.jsonl"}, recorded...) {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
			// Three times over: more lines than the head holds, so that
			// the lines after it are read as they come too.
			f.Add(bytes.Repeat(data, 3))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lazy, lazyRep := readLazyOrEager(data, false)
		eager, eagerRep := readLazyOrEager(data, true)
		if !reflect.DeepEqual(lazy, eager) {
			t.Fatalf("events differ:\nlazy  %+v\neager %+v", lazy, eager)
		}
		if !reflect.DeepEqual(lazyRep, eagerRep) {
			t.Fatalf("reports differ:\nlazy  %+v\neager %+v", lazyRep, eagerRep)
		}
	})
}
