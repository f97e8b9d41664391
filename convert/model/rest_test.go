package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/convert/internal/canon"
	"github.com/rlog-ls/rlog-ls/convert/internal/jsonw"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// TestRestRestoresWhatTheFormatDoesNotCarry: the rest of an event, applied
// to what a reader makes of the fields a format carries, gives the event
// back.
func TestRestRestoresWhatTheFormatDoesNotCarry(t *testing.T) {
	for _, e := range []Event{
		{Kind: KindToolCall, Time: "2025-06-22T14:31:48.310Z", ID: "u1", ParentID: "u0", MessageID: "msg_1", Model: "m",
			Call:    &ToolCall{ID: "toolu_1", Name: "Read", Input: json.RawMessage(`{"file_path":"a"}`), Summary: "file_path=a"},
			AgentID: "a1", Sidechain: true, Step: 4, Extra: Fields{{Key: "requestId", Value: json.RawMessage(`"req_1"`)}}, Form: Form{Inline: true}},
		{Kind: KindToolResult, Result: &ToolResult{CallID: "toolu_1", IsError: true, Content: "", Status: "2 issues"}, Meta: true},
		{Kind: KindSubagent, Subagent: &Subagent{ID: "t", AgentID: "a1", Type: "Explore", Status: "done", Summary: "s"}},
		{Kind: KindCompaction, Text: "", Compaction: &Compaction{Trigger: "auto", PreTokens: 9}},
		{Kind: KindTodos, Todos: []Todo{{Content: "x", Status: "pending"}}},
		{Kind: KindPassthrough, RawType: "t", Raw: json.RawMessage(`{"type":"t"}`)},
		{Kind: KindLifecycle, Name: "phase", Text: "implement"},
	} {
		carried := []string{"call.input", "result.content"}
		r := RestOf(&e, carried...)
		// What a reader of the format makes: the carried fields, and a
		// time and text of its own, which the rest overrides.
		got := Event{Kind: KindSystem, Time: "2000-01-01T00:00:00Z", Text: "x"}
		if e.Call != nil {
			got.Call = &ToolCall{Input: e.Call.Input}
		}
		if e.Result != nil {
			got.Result = &ToolResult{Content: e.Result.Content}
		}
		if err := ApplyRest(&got, r); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, e) {
			t.Errorf("rest %s\n gave %+v\nwant %+v", r, got, e)
		}
	}
	if r := RestOf(&Event{Kind: KindUser}, "time", "text", "extra", "form"); string(r) != `{"kind":"user"}` {
		t.Errorf("nothing left but the kind, yet %s", r)
	}
	if err := ApplyRest(&Event{}, []byte(`[1]`)); err == nil {
		t.Error("a rest that is not an object is not an error")
	}
}

// TestRestKeepsEveryFormField: every field of Form survives a rest (a
// field added to Form without a key in the rest was lost by every round
// trip: rlog's UsageInText wrote the usage a text holds a second time).
func TestRestKeepsEveryFormField(t *testing.T) {
	var f Form
	v := reflect.ValueOf(&f).Elem()
	for i := range v.NumField() {
		switch fv := v.Field(i); fv.Kind() {
		case reflect.Bool:
			fv.SetBool(true)
		case reflect.String:
			fv.SetString("x")
		default:
			t.Fatalf("Form.%s: a %s the test does not fill", v.Type().Field(i).Name, fv.Kind())
		}
	}
	e := Event{Kind: KindAgent, Text: "t", Form: f}
	var got Event
	if err := ApplyRest(&got, RestOf(&e)); err != nil {
		t.Fatal(err)
	}
	if got.Form != f {
		t.Errorf("form %+v came back as %+v", f, got.Form)
	}
}

// TestRestOfAnotherKind: a rest that makes an event another kind gives it
// what writers of that kind read, even when it says nothing of it (a file
// that lies does not crash a writer).
func TestRestOfAnotherKind(t *testing.T) {
	for _, kind := range []string{"tool_call", "tool_result", "subagent"} {
		e := Event{Kind: KindSystem, Text: "x"}
		if err := ApplyRest(&e, []byte(`{"kind":"`+kind+`"}`)); err != nil {
			t.Fatal(err)
		}
		if e.Kind.String() != kind || e.Kind == KindToolCall && e.Call == nil || e.Kind == KindToolResult && e.Result == nil || e.Kind == KindSubagent && e.Subagent == nil {
			t.Errorf("%s: %+v", kind, e)
		}
	}
	for _, bad := range []string{`null`, `{"time":3}`, `{"call":[1]}`, `{"unset":{}}`, `{"step":"x"}`} {
		if err := ApplyRest(&Event{}, []byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// restSeeds are rests of the shapes the writers make, and the ones the
// fast reading hands to the reference.
var restSeeds = []string{
	`{"kind":"tool_call","time":"t","call":{"id":"c","name":"Read","input":{"a":1},"summary":"s"},"extra":{"x":1,"_h":true},"form":{"inline":true,"keys":"a"}}`,
	`{"kind":"tool_result","result":{"call_id":"c","is_error":true,"content":"x\n","raw":[1],"status":"ok"},"unset":["id","result.call_id"]}`,
	`{"kind":"subagent","subagent":{"id":"t","type":"Explore"},"usage":[1,2,3,4],"step":3,"meta":true,"sidechain":true}`,
	`{"kind":"todos","todos":[{"id":"1","content":"c","status":"s","priority":"p"}],"parts":[{"type":"text"}],"raw":{"type":"x"}}`,
	`{"kind":"compaction","compaction":{"trigger":"auto","pre_tokens":9,"post_tokens":1},"text":"","time":"t"}`,
	`{"kind":"user","kind":"agent","text":"a"}`,
	`{"k\u0069nd":"agent","KIND":"user","text":"\u00e9"}`,
	`{"kind":"agent","text":"\xff"}`,
	`{"extra":{"a":1},"extra":{"_b":2}}`,
	`{"usage":[1,2,3]}`, `{"step":"x"}`, `{"call":5}`, `{"time":1}`, `null`, `[1]`, `{}`, ` {"kind" : "init" } `,
	// The kind in another case, and the last kind not a string.
	`{"Kind":"agent","kind":"user","KIND":1,"text":"k"}`, `{"kind":"agent","KinD":"thinking"}`, `{"kind":"user","kind":2}`,
	// More members than restKeys holds.
	`{"kind":"agent","a1":1,"a2":2,"a3":3,"a4":4,"a5":5,"a6":6,"a7":7,"a8":8,"a9":9,"b1":1,"b2":2,"b3":3,"b4":4,"b5":5,"b6":6,"b7":7,"b8":8,"b9":9,"c1":1,"c2":2,"c3":3,"c4":4,"c5":5,"c6":6,"c7":7,"c8":8,"c9":9,"d1":1,"d2":2,"d3":3,"d4":4,"text":"many"}`,
	// Unset lists the quotes alone read, and ones they do not.
	"{\"kind\":\"agent\",\"id\":\"i\",\"model\":\"m\",\"unset\": [\n  \"id\" ,\n\t\"model\", 1, null, \"\"\n]}",
	`{"kind":"agent","id":"i","model":"m","unset":["x[","id"]}`, `{"kind":"agent","id":"i","unset":[{"id":1},"model"]}`, `{"kind":"agent","id":"i","unset":["a\"id","i\u0064"]}`,
}

// FuzzApplyRest holds ApplyRest, which reads a rest's members where they
// are, equal to applyRestFields, which decodes the rest into fields first.
func FuzzApplyRest(f *testing.F) {
	for _, s := range restSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		start := func() Event {
			return Event{Kind: KindSystem, Time: "x", Text: "y", Extra: Fields{{Key: "_hint", Value: json.RawMessage(`1`)}, {Key: "k", Value: json.RawMessage(`2`)}},
				Call: &ToolCall{ID: "c0"}, Form: Form{Inline: true}}
		}
		got, want := start(), start()
		gotErr, wantErr := ApplyRest(&got, raw), applyRestFields(&want, raw)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("%s: error %v, reference %v", raw, gotErr, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\n got %+v\nwant %+v", raw, got, want)
		}
		// The rest inside an indexed record (ApplyRestIn), its nested
		// values jumped over: the same.
		var ix jsonscan.Index
		record := []byte(`{"a":[{}],"rest":` + string(raw) + `}`)
		f, err := ParseRecord(&ix, record, false, false)
		if err != nil {
			return
		}
		indexed := start()
		v, _ := f.Get("rest")
		if err := ApplyRestIn(&ix, &indexed, v); fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(indexed, want) {
			t.Fatalf("%s indexed: %v\n got %+v\nwant %+v", raw, err, indexed, want)
		}
	})
}

// FuzzRestKindName holds restKindName to encoding/json's decoding of the
// kind.
func FuzzRestKindName(f *testing.F) {
	for _, s := range restSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		var k struct {
			Kind string `json:"kind"`
		}
		json.Unmarshal(raw, &k)
		// The names agree but where the string holds invalid UTF-8, which
		// encoding/json replaces and no kind's name has: the kinds agree.
		got := restKindName(raw)
		a, aok := KindOf(got)
		b, bok := KindOf(k.Kind)
		if a != b || aok != bok || (got != k.Kind && utf8.ValidString(got)) {
			t.Fatalf("%s: %q, encoding/json %q", raw, got, k.Kind)
		}
	})
}

// FuzzRestList holds RestList to decoding into []json.RawMessage.
func FuzzRestList(f *testing.F) {
	for _, s := range []string{`[` + restSeeds[0] + `, ` + restSeeds[1] + `]`, `null`, `[]`, ` [ 1 , "a" ] `, `{}`, `"x"`, `[1,`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want []json.RawMessage
		wantErr := json.Unmarshal(b, &want)
		got, err := RestList(b, false)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, encoding/json %v", b, err, wantErr)
		}
		if err == nil && (len(got) != len(want) || fmt.Sprint(got) != fmt.Sprint(want)) {
			t.Fatalf("%q: %q, encoding/json %q", b, got, want)
		}
		if json.Valid(b) {
			if got2, err2 := RestList(b, true); fmt.Sprint(got2, err2 != nil) != fmt.Sprint(got, err != nil) {
				t.Fatalf("%q: validated %q %v, not %q %v", b, got2, err2, got, err)
			}
		}
	})
}

// applyRestsTwoScans is ApplyRests as it was: each rest's members found
// once for its kind (restKindName) and again for its fields (ApplyRest).
func applyRestsTwoScans(events []Event, rests []json.RawMessage, own bool, base Event, bad func(error)) []Event {
	return applyRestsEach(events, rests, own, base, bad, ApplyRest)
}

// applyRestsEach is ApplyRests with each rest's kind read by restKindName
// and its fields set by apply: ApplyRest, or applyRestFields (the plain
// reading, which decodes each rest whole).
func applyRestsEach(events []Event, rests []json.RawMessage, own bool, base Event, bad func(error), apply func(*Event, []byte) error) []Event {
	j := 0
	if own && len(rests) > 0 && len(events) > 0 {
		if string(bytes.TrimSpace(rests[0])) == "null" {
			events = events[1:]
		} else if err := apply(&events[0], rests[0]); err != nil {
			bad(err)
		} else {
			j = 1
		}
		rests = rests[1:]
	}
	for _, r := range rests {
		kind, _ := KindOf(restKindName(r))
		at := j
		for at < len(events) && events[at].Kind != kind {
			at++
		}
		if at == len(events) {
			events = slices.Insert(events, j, base)
			at = j
		}
		if err := apply(&events[at], r); err != nil {
			bad(err)
		}
		j = at + 1
	}
	return events
}

// fuzzRecordEvents are the events of a record the rests fuzzers apply
// rests to (events of a few kinds), and fuzzBase the record's event.
func fuzzRecordEvents() []Event {
	return []Event{{Kind: KindSystem, Name: "s"}, {Kind: KindAgent, Text: "a"}, {Kind: KindToolCall, Call: &ToolCall{ID: "c"}}, {Kind: KindUser}}
}

var fuzzBase = Event{Time: "t", Loc: Loc{Line: 3}}

// FuzzApplyRests holds ApplyRests, which finds a rest's members once, to
// applyRestsTwoScans, on any valid list of rests and events of a few kinds;
// and the rests of an indexed record, listed first (RestListIn,
// ApplyRestsIn) or walked once (ApplyRestListIn), to them.
func FuzzApplyRests(f *testing.F) {
	f.Add([]byte(`[`+strings.Join(restSeeds, ",")+`]`), false)
	f.Add([]byte(`[{"kind":"tool_call","call":{"id":"c","input":{"a":[1,{"b":"}"}]}}},{"KIND":"agent","text":"x"},null,{"kind":"user","kind":"thinking"}]`), true)
	f.Fuzz(func(t *testing.T, list []byte, own bool) {
		rests, err := RestList(list, false)
		if err != nil {
			return
		}
		var gotBad, wantBad []string
		got := ApplyRests(fuzzRecordEvents(), rests, own, fuzzBase, func(err error) { gotBad = append(gotBad, err.Error()) })
		want := applyRestsTwoScans(fuzzRecordEvents(), rests, own, fuzzBase, func(err error) { wantBad = append(wantBad, err.Error()) })
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotBad, wantBad) {
			t.Fatalf("%s:\n got %+v %q\nwant %+v %q", list, got, gotBad, want, wantBad)
		}
		// The plain reading: each rest's kind by restKindName, its fields
		// decoded whole (applyRestFields), not from the one walk over its
		// keys (restKeys) nor its unset list by its quotes.
		var plainBad []string
		plain := applyRestsEach(fuzzRecordEvents(), rests, own, fuzzBase, func(err error) { plainBad = append(plainBad, err.Error()) }, applyRestFields)
		if !reflect.DeepEqual(got, plain) || !reflect.DeepEqual(gotBad, plainBad) {
			t.Fatalf("%s:\n got %+v %q\nplain %+v %q", list, got, gotBad, plain, plainBad)
		}
		// The list inside an indexed record (RestListIn, ApplyRestsIn),
		// each rest and its values jumped over: the same.
		var ix jsonscan.Index
		f, err := ParseRecord(&ix, []byte(`{"rests":`+string(list)+`,"b":{"c":[]}}`), false, false)
		if err != nil {
			return
		}
		v, _ := f.Get("rests")
		indexedRests, err := RestListIn(&ix, v, nil)
		if err != nil || !reflect.DeepEqual(indexedRests, rests) {
			t.Fatalf("%s: RestListIn %q %v, RestList %q", list, indexedRests, err, rests)
		}
		// In a room that held a longer list before: the same.
		room := []json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`{"a":1}`), nil, json.RawMessage(`[]`)}
		if inRoom, err := RestListIn(&ix, v, &room); err != nil || len(inRoom) != len(rests) || (len(rests) > 0 && !reflect.DeepEqual(inRoom, rests)) {
			t.Fatalf("%s: RestListIn in a room %q %v, RestList %q", list, inRoom, err, rests)
		}
		var indexedBad []string
		indexed := ApplyRestsIn(&ix, fuzzRecordEvents(), indexedRests, own, fuzzBase, func(err error) { indexedBad = append(indexedBad, err.Error()) })
		if !reflect.DeepEqual(indexed, want) || !reflect.DeepEqual(indexedBad, wantBad) {
			t.Fatalf("%s indexed:\n got %+v %q\nwant %+v %q", list, indexed, indexedBad, want, wantBad)
		}
		// The list walked once, each rest's members found where the walk
		// finds it (RestListAt, ApplyRestListIn), in room that held other
		// members and in none: the same.
		at, err := RestListAt(v)
		if err != nil || (at == nil) != (indexedRests == nil) {
			t.Fatalf("%s: RestListAt %q %v, RestListIn %q", list, at, err, indexedRests)
		}
		for _, spans := range []*[]jsonscan.Span{{{KeyStart: 1, KeyEnd: 2, ValueStart: 3, ValueEnd: 4}}, nil} {
			var walkedBad []string
			walked := ApplyRestListIn(&ix, fuzzRecordEvents(), at, own, fuzzBase, func(err error) { walkedBad = append(walkedBad, err.Error()) }, spans)
			if !reflect.DeepEqual(walked, want) || !reflect.DeepEqual(walkedBad, wantBad) {
				t.Fatalf("%s walked once:\n got %+v %q\nwant %+v %q", list, walked, walkedBad, want, wantBad)
			}
		}
	})
}

// FuzzRestKindField holds restField's reading of a kind, which looks the
// bytes up in place, to decoding the string first, on any valid JSON value.
func FuzzRestKindField(f *testing.F) {
	for _, s := range []string{`"user"`, `"tool_call"`, `"us\u0065r"`, `""`, "\"user\xff\"", `1`, `null`, `"nope"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		if !json.Valid(v) {
			return
		}
		got := Event{Kind: KindSystem}
		gotErr := restField(nil, &got, restKind, v)
		want := Event{Kind: KindSystem}
		var wantErr error
		if s, ok := jsonscan.String(v); !ok {
			wantErr = errors.New("not a string")
		} else if k, ok := KindOf(s); ok {
			want.Kind = k
		}
		if got.Kind != want.Kind || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("%s: kind %v, error %v; decoded first: %v, %v", v, got.Kind, gotErr, want.Kind, wantErr)
		}
	})
}

// FuzzReadRests holds ReadRests and Apply, which read a list of rests in
// one pass, to RestList and ApplyRests, on any input: the same error, and
// the same events and reports.
func FuzzReadRests(f *testing.F) {
	f.Add([]byte(`[`+strings.Join(restSeeds, ",")+`]`), false)
	f.Add([]byte(`[{"kind":"tool_call","call":{"id":"c","input":{"a":[1,{"b":"}"}]}}},{"KIND":"agent","text":"x"},null,{"kind":"user","kind":"thinking"}]`), true)
	f.Add([]byte(` null `), true)
	f.Add([]byte(`{"kind":"user"}`), false)
	f.Add([]byte("[{\"kind\":\"user\",\"text\":\"a\xffb\"},1,\"x\",[]]"), true)
	f.Fuzz(func(t *testing.T, list []byte, own bool) {
		rests, wantErr := RestList(list, false)
		var read Rests
		// Read over a list read before: nothing of it stays.
		read.Read([]byte(`[{"kind":"agent","text":"before"},{"kind":"user"}]`), true)
		// The events keep nothing of the list (a reader reuses its
		// room): overwritten after Apply, it changes none of them.
		buf := bytes.Clone(list)
		gotErr := read.Read(buf, false)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("%q: ReadRests %v, RestList %v", list, gotErr, wantErr)
		}
		if wantErr != nil {
			return
		}
		var gotBad, wantBad []string
		got := read.Apply(fuzzRecordEvents(), own, fuzzBase, func(err error) { gotBad = append(gotBad, err.Error()) })
		for i := range buf {
			buf[i] = 'x'
		}
		want := ApplyRests(fuzzRecordEvents(), rests, own, fuzzBase, func(err error) { wantBad = append(wantBad, err.Error()) })
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotBad, wantBad) {
			t.Fatalf("%s:\n got %+v %q\nwant %+v %q", list, got, gotBad, want, wantBad)
		}
		if utf8.Valid(list) {
			var valid Rests
			valid.Read(list, true)
			gotBad = nil
			if got := valid.Apply(fuzzRecordEvents(), own, fuzzBase, func(err error) { gotBad = append(gotBad, err.Error()) }); !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotBad, wantBad) {
				t.Fatalf("%s, known valid UTF-8:\n got %+v %q\nwant %+v %q", list, got, gotBad, want, wantBad)
			}
		}
	})
}

// FuzzRestUnsetField holds restField's reading of a rest's unset list,
// which looks each name up in place, to reading the names decoded first
// (written again without an escape), on any valid JSON array.
func FuzzRestUnsetField(f *testing.F) {
	for _, s := range []string{`["id","parent","message_id"]`, `["\u0069d","time"]`, "[\"i\xffd\",\"model\"]", `["usage","step",1,null]`, `[]`, `["call.id","result.call_id",""]`,
		"[\n  \"id\",\n  \"time\"\n]", `[["id"],"time"]`, `[{"id":"model"}]`, `["[","id"]`, `["\"id","time"]`, `[1,true,"step"]`, `["id" , "parent"]`} {
		f.Add([]byte(s))
	}
	full := func() Event {
		return Event{ID: "i", ParentID: "p", MessageID: "m", Time: "t", Model: "o", Usage: &Usage{Input: 1}, Step: 2,
			Call: &ToolCall{ID: "c"}, Result: &ToolResult{CallID: "c"}}
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		if !json.Valid(v) || !bytes.HasPrefix(bytes.TrimSpace(v), []byte("[")) {
			return
		}
		var plain bytes.Buffer
		plain.WriteByte('[')
		jsonscan.Array(bytes.TrimSpace(v), func(i int, n []byte) error {
			if i > 0 {
				plain.WriteByte(',')
			}
			if s, ok := jsonscan.String(n); ok {
				enc := json.NewEncoder(&plain)
				enc.SetEscapeHTML(false)
				enc.Encode(s)
				plain.Truncate(plain.Len() - 1) // Encode's line break
			} else {
				plain.Write(n)
			}
			return nil
		})
		plain.WriteByte(']')
		got, want := full(), full()
		gotErr := restField(nil, &got, restUnset, v)
		wantErr := restField(nil, &want, restUnset, plain.Bytes())
		if !reflect.DeepEqual(got, want) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("%s: %+v %v; decoded first (%s): %+v %v", v, got, gotErr, plain.Bytes(), want, wantErr)
		}
		// unsetPlainList, when it reads the list, is the walk over its
		// elements, each name decoded.
		byQuotes, byWalk := full(), full()
		if unsetPlainList(&byQuotes, v) {
			jsonscan.Array(v, func(_ int, n []byte) error {
				name, _ := jsonscan.String(n)
				unsetField(&byWalk, name)
				return nil
			})
			if !reflect.DeepEqual(byQuotes, byWalk) {
				t.Fatalf("%s: by its quotes %+v, walked %+v", v, byQuotes, byWalk)
			}
		}
	})
}

// restCarriedKeys are what FuzzWriteRest's mask picks carried from.
var restCarriedKeys = []string{"time", "text", "id", "message_id", "model", "call", "call.id", "call.input",
	"result.content", "result.raw", "-id", "-parent", "+usage", "raw", "parts", "signature"}

// FuzzWriteRest holds WriteRestCarried, which writes a rest where it goes, to
// the compact rest RestOf makes apart: indented, it is that rest indented
// where it stands (jsonw.AppendIndent); quoted, that rest escaped as a
// string's bytes (jsonw.AppendString without its quotes); with a usage,
// withUsage of it; canonical (canon.Writer, as REPLAY writes it), what
// canon.Append makes of it. The events are what ApplyRest makes of any
// rest.
func FuzzWriteRest(f *testing.F) {
	for i, s := range restSeeds {
		f.Add([]byte(s), uint16(i*0x1111), uint8(i))
	}
	f.Add([]byte(`{"kind":"agent","text":"a\"b\\c\u0001\n\u2028 é","extra":{"k":{ "a" : [1, 2] },"q\"":"\n"}}`), uint16(0), uint8(3))
	f.Add([]byte(`{"kind":"tool_call","call":{"id":"c","name":"n","input":{"z":{"y":1,"b":[{"d":1,"c":2}]},"a":"\b\f\u007f"}},"extra":{"\u00ff":1,"a\u0008":2,"z":[3],"B":{"k":1,"K":2}},"usage":[1,2,3,4]}`), uint16(1<<12), uint8(0))
	f.Fuzz(func(t *testing.T, raw []byte, mask uint16, depth uint8) {
		var e Event
		if !json.Valid(raw) || ApplyRest(&e, raw) != nil {
			return
		}
		var carried []string
		for i, k := range restCarriedKeys {
			if mask>>i&1 == 1 {
				carried = append(carried, k)
			}
		}
		compact := RestOf(&e, carried...)
		d := int(depth % 8)
		var in jsonw.Buf
		in.Indent(d)
		writeRestNames(&in, &e, nil, carried...)
		if want := jsonw.AppendIndent(nil, compact, d); !bytes.Equal(in.Bytes(), want) {
			t.Fatalf("%s indented at %d:\n%s\nwant\n%s", compact, d, in.Bytes(), want)
		}
		var q jsonw.Buf
		q.Quote()
		writeRestNames(&q, &e, nil, carried...)
		if want := jsonw.AppendString(nil, string(compact)); !bytes.Equal(q.Bytes(), want[1:len(want)-1]) {
			t.Fatalf("%s quoted:\n%s\nwant\n%s", compact, q.Bytes(), want[1:len(want)-1])
		}
		u := Usage{Input: int64(mask), Output: int64(depth), CacheRead: 3, CacheCreate: 4}
		var w jsonw.Buf
		writeRestNames(&w, &e, &u, carried...)
		if want := withUsage(compact, u); !bytes.Equal(w.Bytes(), want) {
			t.Fatalf("%s with usage:\n%s\nwant\n%s", compact, w.Bytes(), want)
		}
		// Canonical, with a usage or not (written twice with "+usage":
		// the last one is kept).
		for _, u := range []*Usage{nil, &u} {
			var c jsonw.Buf
			canon.Writer(&c)
			writeRestNames(&c, &e, u, carried...)
			want := compact
			if u != nil {
				want = withUsage(compact, *u)
			}
			if want := canon.Append(nil, want); !bytes.Equal(c.Bytes(), want) {
				t.Fatalf("%s canonical:\n%s\nwant\n%s", compact, c.Bytes(), want)
			}
		}
	})
}

// writeRestNames is WriteRestCarried with carried's names (CarriedOf),
// as RestOf writes them.
func writeRestNames(b *jsonw.Buf, e *Event, usage *Usage, carried ...string) {
	c := CarriedOf(carried...)
	WriteRestCarried(b, e, usage, &c)
}

// withUsage is rest (made by RestOf without "+usage") with the event's
// usage u appended, as the ATIF writer added it before writeRest wrote it
// (FuzzWriteRest's reference).
func withUsage(rest json.RawMessage, u Usage) json.RawMessage {
	r := bytes.TrimRight(rest, " \t\r\n")
	if len(r) < 2 || r[len(r)-1] != '}' {
		return rest
	}
	out := make([]byte, 0, len(r)+48)
	out = append(out, r[:len(r)-1]...)
	if len(r) > 2 {
		out = append(out, ',')
	}
	out = append(out, `"usage":`...)
	out = append(out, usageJSON(u)...)
	return append(out, '}')
}

// carriedNames is each field name writeRest looks for in carried, with
// the bit carriedFields gives it (FuzzCarriedFields' reference).
var carriedNames = []struct {
	name string
	bit  carriedSet
}{
	{"time", carryTime}, {"id", carryID}, {"parent", carryParent}, {"message_id", carryMessageID},
	{"model", carryModel}, {"text", carryText}, {"signature", carrySignature}, {"name", carryName},
	{"call", carryCall}, {"call.id", carryCallID}, {"call.name", carryCallName}, {"call.input", carryCallInput},
	{"call.summary", carryCallSummary}, {"result", carryResult}, {"result.call_id", carryResultCallID},
	{"result.is_error", carryResultIsError}, {"result.content", carryResultContent}, {"result.raw", carryResultRaw},
	{"result.status", carryResultStatus}, {"subagent", carrySubagent}, {"compaction", carryCompaction},
	{"todos", carryTodos}, {"agent_id", carryAgentID}, {"sidechain", carrySidechain}, {"meta", carryMeta},
	{"step", carryStep}, {"raw_type", carryRawType}, {"raw", carryRaw}, {"parts", carryParts}, {"+usage", carryUsage},
}

// TestCarriedNamesEveryBit: each of carriedSet's bits is one name's, so
// that FuzzCarriedFields' reference covers every field writeRest tests.
func TestCarriedNamesEveryBit(t *testing.T) {
	var all carriedSet
	for _, c := range carriedNames {
		if c.bit == 0 || c.bit&(c.bit-1) != 0 || all&c.bit != 0 {
			t.Errorf("%q: bit %#x is not a bit of its own", c.name, c.bit)
		}
		all |= c.bit
	}
	if all != carryUsage<<1-1 {
		t.Errorf("the names' bits are %#x, want every bit up to carryUsage's (%#x)", all, carryUsage<<1-1)
	}
}

// FuzzCarriedFields holds carriedFields, which CarriedOf asks once a
// list, to what writeRest asked of carried before, field by field: a
// field is carried when carried holds its name (slices.Contains), and
// the names unset are carried's with a leading "-", in its order (the
// strings of the names it gives). The
// names are picked from the fields', the same with "-", names close to
// them, and any string.
func FuzzCarriedFields(f *testing.F) {
	f.Add([]byte{0, 1, 2, 30, 31, 60, 61, 62}, "x")
	f.Add([]byte{29, 59, 255, 70, 71, 72, 73}, "-")
	f.Add([]byte{255, 255, 5}, "call.id")
	f.Fuzz(func(t *testing.T, picks []byte, any string) {
		carried := pickCarried(picks, any)
		set, unset := carriedFields(carried, nil)
		var want carriedSet
		for _, c := range carriedNames {
			if slices.Contains(carried, c.name) {
				want |= c.bit
			}
		}
		var wantUnset []string
		for _, k := range carried {
			if name, ok := strings.CutPrefix(k, "-"); ok {
				wantUnset = append(wantUnset, name)
			}
		}
		var unsetStrings []string
		for _, n := range unset {
			unsetStrings = append(unsetStrings, n.String())
		}
		if set != want || !slices.Equal(unsetStrings, wantUnset) {
			t.Fatalf("carriedFields(%q) = %#x, %q; want %#x, %q", carried, set, unsetStrings, want, wantUnset)
		}
	})
}

// pickCarried is a carried list of a fuzz target: each pick one of the
// fields' names, the same with "-", a name close to them, or any.
func pickCarried(picks []byte, any string) []string {
	near := []string{"", "-", "--id", "tim", "times", "Time", "call.", "result.call", "usage", "-usage", "+", "+usage ", "raw_", "rawtype", "-+usage"}
	var carried []string
	for _, p := range picks {
		switch i := int(p); {
		case i < len(carriedNames):
			carried = append(carried, carriedNames[i].name)
		case i < 2*len(carriedNames):
			carried = append(carried, "-"+carriedNames[i-len(carriedNames)].name)
		case i < 2*len(carriedNames)+len(near):
			carried = append(carried, near[i-2*len(carriedNames)])
		default:
			carried = append(carried, any)
		}
	}
	return carried
}

// unsetStrings are the strings of a Carried's unset names.
func unsetStrings(c *Carried) []string {
	var s []string
	for _, n := range c.unset {
		s = append(s, n.String())
	}
	return s
}

// FuzzCarriedAdd holds a Carried made of lists (CarriedOf each, added to
// one reset after other use, as the Claude Code writer makes a rest's) to
// CarriedOf of the lists one after the other, and WriteRestCarried with
// it to WriteRestCarried with CarriedOf of those names (writeRestNames),
// compact, quoted and indented at two depths, for an event ApplyRest
// makes of any rest; the lists added are left as they were.
// cuts says after which of the names a list ends.
func FuzzCarriedAdd(f *testing.F) {
	f.Add([]byte{0, 1, 2, 30, 31, 60, 61, 62}, uint64(0b1010), "x", []byte(restSeeds[0]))
	f.Add([]byte{31, 32, 33, 34, 1, 2, 3, 30, 31}, uint64(0b11011), "-", []byte(restSeeds[1]))
	f.Add([]byte{59, 31, 58, 33, 40}, uint64(0b111), "-model", []byte(`{"kind":"agent","id":"i","parent":"p","model":"m","text":"t\"","usage":[1,2,3,4]}`))
	f.Fuzz(func(t *testing.T, picks []byte, cuts uint64, any string, raw []byte) {
		var e Event
		if !json.Valid(raw) || ApplyRest(&e, raw) != nil {
			return
		}
		// (At most 64 names, as many as cuts has bits: a list of any
		// length is the same lists added, and a long one of a long name
		// escaped at each made the target spend its time on one input.)
		carried := pickCarried(picks[:min(len(picks), 64)], any)
		var lists []Carried
		var strs [][]string
		start := 0
		for i := range carried {
			if cuts>>i&1 == 1 || i == len(carried)-1 {
				lists = append(lists, CarriedOf(carried[start:i+1]...))
				strs = append(strs, unsetStrings(&lists[len(lists)-1]))
				start = i + 1
			}
		}
		var c Carried
		other := CarriedOf("-id", "-parent", "-message_id", "-usage", "-model", "text")
		c.Add(&other)
		c.Reset()
		for i := range lists {
			c.Add(&lists[i])
		}
		for i := range lists {
			if got := unsetStrings(&lists[i]); !slices.Equal(got, strs[i]) {
				t.Fatalf("list %d's unset names are %q after it was added, were %q", i, got, strs[i])
			}
		}
		want := CarriedOf(carried...)
		if c.set != want.set || !slices.Equal(unsetStrings(&c), unsetStrings(&want)) {
			t.Fatalf("%q added in %d lists: %#x, %q; want %#x, %q", carried, len(lists), c.set, unsetStrings(&c), want.set, unsetStrings(&want))
		}
		// Its names' jsonw.Names, when it keeps one, are its names.
		if c.names != 0 && !slices.Equal(unsetLists.names[c.names-1].Load().List(), c.unset) {
			t.Fatalf("%q added in %d lists: names %d, unset %d", carried, len(lists), len(unsetLists.names[c.names-1].Load().List()), len(c.unset))
		}
		// Compact, quoted, and indented at two depths (the second
		// written as NamesName writes it: the names' member was made at
		// the first), each twice.
		for mode := range 4 {
			for range 2 {
				var got, ref jsonw.Buf
				switch mode {
				case 1:
					got.Quote()
					ref.Quote()
				case 2, 3:
					got.Indent(mode * 3)
					ref.Indent(mode * 3)
				}
				WriteRestCarried(&got, &e, nil, &c)
				writeRestNames(&ref, &e, nil, carried...)
				if !bytes.Equal(got.Bytes(), ref.Bytes()) {
					t.Fatalf("%q (mode %d): WriteRestCarried wrote\n%s\nWriteRest\n%s", carried, mode, got.Bytes(), ref.Bytes())
				}
			}
		}
	})
}

// TestKindShapesDiffer holds every kind's name to a place of its own in
// kindsByShape: a kind added whose shape is another's fails here (change
// kindShape's mix).
func TestKindShapesDiffer(t *testing.T) {
	seen := map[int]string{}
	for k := 1; k < len(kindNames); k++ {
		name := kindNames[k]
		if other, ok := seen[kindShape(name)]; ok {
			t.Fatalf("%q and %q have the same shape %d", name, other, kindShape(name))
		}
		seen[kindShape(name)] = name
		if got, ok := KindOf(name); !ok || got != Kind(k) {
			t.Fatalf("KindOf(%q) = %v, %v", name, got, ok)
		}
	}
}

// FuzzKindOf holds KindOf, which compares s with the one name of its
// shape, to comparing it with every kind's name.
func FuzzKindOf(f *testing.F) {
	for _, s := range append(kindNames[:], "unknown", "User", "users", "tool_cal", "x", "\xff", "status\x00") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want Kind
		for k := 1; k < len(kindNames); k++ {
			if kindNames[k] == s {
				want = Kind(k)
			}
		}
		if got, ok := KindOf(s); got != want || ok != (want != 0) {
			t.Fatalf("KindOf(%q) = %v, %v; each name compared: %v", s, got, ok, want)
		}
	})
}

// CarriedUnsets' list at i is CarriedOf of the names whose bit is set in
// i, in their order (the ATIF and mini-prophet writers pick a rest's
// unset names by these bits), and its place in unsetLists.
func TestCarriedUnsetsAreCarriedOfEachSubset(t *testing.T) {
	names := []string{"-message_id", "-id", "-usage", "text"}
	lists := CarriedUnsets(names...)
	if len(lists) != 16 {
		t.Fatalf("%d lists, want 16", len(lists))
	}
	for i, got := range lists {
		var sub []string
		for j, n := range names {
			if i&(1<<j) != 0 {
				sub = append(sub, n)
			}
		}
		// (With its place in unsetLists, whose Names are its names.)
		if got.names != 0 {
			if l := unsetLists.names[got.names-1].Load().List(); !slices.Equal(l, got.unset) {
				t.Errorf("list %d's Names are %v, want %v", i, l, got.unset)
			}
			got.names = 0
		}
		if want := CarriedOf(sub...); !reflect.DeepEqual(got, want) {
			t.Errorf("list %d = %+v, want CarriedOf(%q) = %+v", i, got, sub, want)
		}
	}
}

// TestWriteRestInOrderEveryMember: a rest of every member, nested
// objects with every member, written canonical (writeRestInOrder, keys
// in their order) is canon.Append of it written compact; with each
// field carried in turn (and none), with a usage given and carried.
func TestWriteRestInOrderEveryMember(t *testing.T) {
	e := Event{
		Kind: KindToolCall, Time: "t", ID: "i", ParentID: "p", MessageID: "m", Model: "mo", Text: "x\x01\xff",
		Signature: "s", Name: "n", AgentID: "a", Sidechain: true, Meta: true, Step: 3, RawType: "rt",
		Raw: json.RawMessage(`{"b":1,"a":[{"d":1,"c":2}]}`), Parts: json.RawMessage(`[{"z":1,"y":2}]`),
		Call:       &ToolCall{ID: "ci", Name: "cn", Input: json.RawMessage(`{"q":1,"p":2}`), Summary: "cs"},
		Result:     &ToolResult{CallID: "rc", IsError: true, Content: "rco", ContentRaw: json.RawMessage(`{"y":1,"x":2}`), Status: "rs"},
		Subagent:   &Subagent{ID: "si", AgentID: "sa", Type: "st", Status: "ss", Summary: "su", SessionID: "se", TrajectoryPath: "tp"},
		Compaction: &Compaction{Trigger: "tr", PreTokens: 1, PostTokens: 2},
		Todos:      []Todo{{ID: "ti", Content: "tc", Status: "ts", Priority: "tp"}, {Content: "only"}},
		Extra:      Fields{{Key: "z", Value: json.RawMessage(`1`)}, {Key: "_note", Value: json.RawMessage(`2`)}, {Key: "a", Value: json.RawMessage(`{"k":1,"b":2}`)}},
		Form:       Form{Content: "fc", NoOutput: true, Inline: true, Prefix: "fp", WholeInput: true, Keys: "fk", UsageInText: true},
		Usage:      &Usage{Input: 1, Output: 2, CacheRead: 3, CacheCreate: 4},
	}
	given := &Usage{Input: 5, Output: 6, CacheRead: 7, CacheCreate: 8}
	lists := [][]string{nil, {"+usage", "-id", "-step"}}
	for _, k := range restCarriedKeys {
		lists = append(lists, []string{k})
	}
	for _, carried := range lists {
		for _, u := range []*Usage{nil, given} {
			var compact, c jsonw.Buf
			writeRestNames(&compact, &e, u, carried...)
			canon.Writer(&c)
			writeRestNames(&c, &e, u, carried...)
			if want := canon.Append(nil, compact.Bytes()); !bytes.Equal(c.Bytes(), want) {
				t.Fatalf("carried %q, usage %v:\n%s\nwant\n%s", carried, u, c.Bytes(), want)
			}
		}
	}
}

// formIsZero is f == Form{}: for the zero Form, and for a Form with any
// one field set (each field, found by reflection, so that a field added
// to Form and not to formIsZero fails here).
func TestFormIsZero(t *testing.T) {
	if !formIsZero(&Form{}) {
		t.Fatal("formIsZero(Form{}) = false")
	}
	for i := range reflect.TypeFor[Form]().NumField() {
		var f Form
		v := reflect.ValueOf(&f).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString("x")
		case reflect.Bool:
			v.SetBool(true)
		default:
			t.Fatalf("Form.%s is a %s: formIsZero does not test it", reflect.TypeFor[Form]().Field(i).Name, v.Kind())
		}
		if formIsZero(&f) != (f == Form{}) {
			t.Errorf("formIsZero with Form.%s set = %v", reflect.TypeFor[Form]().Field(i).Name, formIsZero(&f))
		}
	}
}

// A writer's unset lists (CarriedUnsets, and one added to a Carried
// without names) written indented at one depth, then at another (whose
// member NamesAt does not store: it was made at the first), then at the
// first again: each what AppendIndent makes of RestOf's compact rest.
func TestRestUnsetNamesAtTwoDepths(t *testing.T) {
	e := Event{Kind: KindAgent, Text: "t", Time: "2025-01-01T00:00:00Z"}
	names := []string{"-message_id", "-id", "-usage"}
	for i, u := range CarriedUnsets(names...) {
		var carried []string
		for j, n := range names {
			if i&(1<<j) != 0 {
				carried = append(carried, n)
			}
		}
		text := CarriedOf("text")
		c := u
		c.Add(&text)
		d := text
		d.Add(&u)
		for _, depth := range []int{7, 3, 7, 0} {
			want := jsonw.AppendIndent(nil, RestOf(&e, append(carried, "text")...), depth)
			for _, c := range []*Carried{&c, &d} {
				var b jsonw.Buf
				b.Indent(depth)
				WriteRestCarried(&b, &e, nil, c)
				if !bytes.Equal(b.Bytes(), want) {
					t.Fatalf("%q at depth %d:\n%s\nwant\n%s", carried, depth, b.Bytes(), want)
				}
			}
		}
	}
}
