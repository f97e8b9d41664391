package atif

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// FuzzStepIdentity holds what parseStep makes of a step's number and
// source without fmt and without decoding (the step's id and the message
// id made up of it, one string; the source, one of three constants) to
// fmt.Sprintf and Fields.String, and mappedStepKey to stepFields, on any
// number and any JSON value of source.
func FuzzStepIdentity(f *testing.F) {
	for _, s := range []string{`"agent"`, `"user"`, `"system"`, ` "agent" `, `"ag\u0065nt"`, `"other"`, `5`, `null`, `"\xff"`} {
		f.Add(int64(4), []byte(s), "reasoning_effort")
	}
	f.Add(int64(-1), []byte(`"user"`), "step_id")
	f.Add(int64(1<<62), []byte(`"system"`), "")
	f.Fuzz(func(t *testing.T, n int64, source []byte, key string) {
		if !jsonscan.Valid(source) {
			return
		}
		step := []byte(`{"step_id":` + strconv.FormatInt(n, 10) + `,"source":` + string(source) + `}`)
		fs, err := model.ParseFields(step)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		var st reader
		var sp stepParts
		st.parseStep(&sp, fs, model.Loc{})
		wantID := fmt.Sprintf("step-%d", n)
		if sp.base.ID != wantID || sp.msgID != model.SyntheticMessagePrefix+wantID {
			t.Fatalf("%s: id %q, message id %q, want %q", step, sp.base.ID, sp.msgID, wantID)
		}
		if want, _ := fs.String("source"); sp.source != want {
			t.Fatalf("%s: source %q, Fields.String %q", step, sp.source, want)
		}
		want := false
		for _, sf := range stepFields {
			if sf.key == key {
				want = sf.mapped
			}
		}
		if got := mappedStepKey(key); got != want {
			t.Fatalf("mappedStepKey(%q) = %v, stepFields says %v", key, got, want)
		}
	})
}

// TestMappedStepKey holds mappedStepKey's switch to stepFields on every
// key of the table, and on keys near them.
func TestMappedStepKey(t *testing.T) {
	for _, sf := range stepFields {
		if got := mappedStepKey(sf.key); got != sf.mapped {
			t.Errorf("mappedStepKey(%q) = %v, stepFields says %v", sf.key, got, sf.mapped)
		}
		for _, near := range []string{sf.key[1:], sf.key[:len(sf.key)-1], sf.key + "s", "x" + sf.key[1:], strings.ToUpper(sf.key)} {
			if mappedStepKey(near) {
				t.Errorf("mappedStepKey(%q) = true, not a key of stepFields", near)
			}
		}
	}
	if mappedStepKey("") {
		t.Error(`mappedStepKey("") = true`)
	}
}

// FuzzToolErrorIDs holds toolErrorIDs to json.Unmarshal into a list of
// strings on any valid JSON value: the same ids (escapes, surrogates and
// invalid UTF-8 decoded alike) and the same answer to whether it is one.
func FuzzToolErrorIDs(f *testing.F) {
	for _, s := range []string{`["call_1","call_2"]`, `[]`, ` [ "a" , "b" ] `, `null`, `["a",1]`, `[null]`, `{"a":"b"}`,
		`"a"`, `["\u00e9\ud800x","\ud83d\ude00"]`, "[\"\xff\xfe\"]", `["a\"b\\c\/"]`, `[["a"]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, te []byte) {
		if !jsonscan.Valid(te) {
			return
		}
		got, gotOK := toolErrorIDs(te, []string{"x"}[:0])
		var want []string
		wantOK := json.Unmarshal(te, &want) == nil
		if gotOK != wantOK || wantOK && !slices.Equal(got, want) {
			t.Fatalf("%q: toolErrorIDs %q %v, json.Unmarshal %q %v", te, got, gotOK, want, wantOK)
		}
	})
}

// TestStepListsAreBounded: the room of a step's lists of calls and
// results that a reader keeps for the next step is not that of a step
// with more than maxListed of them, and holds no view of the step's
// bytes, and a step's events are made at their count, each call and
// result where its pair is.
func TestStepListsAreBounded(t *testing.T) {
	step := func(n int) []byte {
		var calls, results []string
		for i := range n {
			calls = append(calls, fmt.Sprintf(`{"tool_call_id":"c%d","function_name":"f","arguments":{}}`, i))
			results = append(results, fmt.Sprintf(`{"source_call_id":"c%d","content":"r"}`, i))
		}
		return []byte(`{"step_id":1,"source":"agent","message":"m","reasoning_content":"r","tool_calls":[` +
			strings.Join(calls, ",") + `],"observation":{"results":[` + strings.Join(results, ",") + `]}}`)
	}
	var c model.Collector
	st := reader{h: &model.Header{}, sink: &c, rep: &model.Report{}}
	for _, n := range []int{3, maxListed + 1, 2} {
		c.Session.Events = nil
		if err := st.step(step(n), false, model.Loc{}); err != nil {
			t.Fatal(err)
		}
		if got, want := len(c.Session.Events), 2+2*n; got != want {
			t.Fatalf("%d calls: %d events, want %d", n, got, want)
		}
		if n > maxListed && (st.calls != nil || st.results != nil) {
			t.Fatalf("%d calls: room of %d calls and %d results kept", n, cap(st.calls), cap(st.results))
		}
		// The room kept holds no view of the step read.
		for _, room := range [][][]byte{st.calls[:cap(st.calls)], st.results[:cap(st.results)]} {
			for i, v := range room {
				if v != nil {
					t.Fatalf("%d calls: the room kept for the next step holds %q at %d", n, v, i)
				}
			}
		}
		for i, e := range c.Session.Events[2 : 2+n] {
			if e.Call == nil || e.Call.ID != fmt.Sprintf("c%d", i) {
				t.Fatalf("%d calls: call %d is %+v", n, i, e.Call)
			}
			if r := c.Session.Events[2+n+i].Result; r == nil || r.CallID != e.Call.ID {
				t.Fatalf("%d calls: result %d is %+v", n, i, r)
			}
		}
	}
}

// keptSink keeps what of each event keep says, as a writer keeps its
// recent call ids, and drops the rest.
type keptSink struct {
	keep func(e *model.Event) []string
	kept []string
}

func (s *keptSink) Event(_ *model.Header, e *model.Event) error {
	s.kept = append(s.kept, s.keep(e)...)
	return nil
}

func (s *keptSink) End(*model.Header) error { return nil }

// TestKeptIDsKeepNoText: the ids and times of a read's events are made
// apart from its texts (the reader's ids room, Index.MakeIDs), so that a
// consumer that keeps them, as the writers keep their recent call ids,
// keeps blocks of ids alive, not the texts made with them. It reads 2,048
// steps of a 900-byte message, a call and its result, keeps every id and
// time, and counts the live heap they hold: about 60 bytes a step where a
// block of texts would hold a kilobyte. Keeping the texts instead shows
// that the count sees them.
func TestKeptIDsKeepNoText(t *testing.T) {
	const steps = 2048
	var b strings.Builder
	b.WriteString(`{"__header__":true,"schema_version":"ATIF-v1.5","session_id":"s"}` + "\n")
	text := strings.Repeat("word ", 180)
	for i := range steps {
		fmt.Fprintf(&b, `{"step_id":%d,"timestamp":"2025-12-19T20:29:%02dZ","source":"agent","model_name":"m","message":"%s%d","tool_calls":[{"tool_call_id":"call_%06d","function_name":"Bash","arguments":{}}],"observation":{"results":[{"source_call_id":"call_%06d","content":"ok %d"}]}}`+"\n",
			i+1, i%60, text, i, i, i, i)
	}
	in := []byte(b.String())
	live := func(keep func(e *model.Event) []string) uint64 {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		s := &keptSink{keep: keep, kept: make([]string, 0, 4*steps)}
		if err := ReadJSONL(bytes.NewReader(in), s, &model.Report{}); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		if len(s.kept) < steps {
			t.Fatalf("kept %d strings of %d steps", len(s.kept), steps)
		}
		runtime.KeepAlive(s)
		runtime.KeepAlive(in) // live in both counts
		return m1.HeapAlloc - min(m0.HeapAlloc, m1.HeapAlloc)
	}
	ids := live(func(e *model.Event) []string {
		switch {
		case e.Call != nil:
			return []string{e.Call.ID, e.Time, e.MessageID}
		case e.Result != nil:
			return []string{e.Result.CallID}
		}
		return nil
	})
	texts := live(func(e *model.Event) []string {
		if e.Kind == model.KindAgent {
			return []string{e.Text}
		}
		return nil
	})
	// The kept list itself is 4*steps strings of 16 bytes.
	t.Logf("kept ids: %d bytes; kept texts: %d bytes", ids, texts)
	if texts < steps*900 {
		t.Fatalf("keeping the texts holds %d bytes, less than the texts: the count does not see them", texts)
	}
	if ids > 4*steps*16+steps*200 {
		t.Fatalf("keeping the ids and times holds %d bytes (the texts: %d): they keep texts alive", ids, texts)
	}
}

// TestStepExtraOwn: a step's extra, listed in the reader's room, is its
// first event's on a list of its own with its values copied, whatever
// the steps after it list there: nil when the step has none, empty (not
// nil) when the step's reading took out all it had, and the members the
// reading does not take out, the step's unknown fields and its metrics'
// after them.
func TestStepExtraOwn(t *testing.T) {
	in := `{"__header__":true,"schema_version":"ATIF-v1.5","session_id":"s"}
{"step_id":1,"source":"user","message":"no extra"}
{"step_id":2,"source":"user","message":"empty","extra":{}}
{"step_id":3,"source":"user","message":"all taken","extra":{"signature":"s","message_id":"m"}}
{"step_id":4,"source":"user","message":"one","extra":{"a":1,"signature":"s"}}
{"step_id":5,"source":"agent","message":"more","extra":{"b":[2],"c":{"d":"e"}},"other":true,"metrics":{"prompt_tokens":1,"logprobs":[0.5]}}
{"step_id":6,"source":"user","message":"unknown only","zz":"y"}
{"step_id":7,"source":"user","message":"last","extra":{"x":"overwrites the room","y":"and more","z":"of it"}}
`
	s := &keptEvents{}
	if err := ReadJSONL(strings.NewReader(in), s, &model.Report{}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"nil",
		"[]",
		"[]",
		`[a=1]`,
		`[b=[2] c={"d":"e"} atif.other=true metrics.logprobs=[0.5]]`,
		`[atif.zz="y"]`,
		`[x="overwrites the room" y="and more" z="of it"]`,
	}
	if len(s.extras) != len(want) {
		t.Fatalf("%d steps' extras, want %d", len(s.extras), len(want))
	}
	for i, x := range s.extras {
		got := "nil"
		if x != nil {
			var parts []string
			for _, fl := range x {
				parts = append(parts, fl.Key+"="+string(fl.Value))
			}
			got = "[" + strings.Join(parts, " ") + "]"
		}
		if got != want[i] {
			t.Errorf("step %d: extra %s, want %s", i+1, got, want[i])
		}
	}
}

// keptEvents keeps the extra of each step's first event.
type keptEvents struct {
	step   int64
	extras []model.Fields
}

func (s *keptEvents) Event(_ *model.Header, e *model.Event) error {
	if e.Step != s.step {
		s.step = e.Step
		s.extras = append(s.extras, e.Extra)
	}
	return nil
}

func (s *keptEvents) End(*model.Header) error { return nil }
