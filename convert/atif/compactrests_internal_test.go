package atif

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/internal/jsonw"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

// compactRestsStep is a step whose rests hold each raw value an event can
// carry into its rest: an agent step (thinking, text, a call and its
// result) of raws[0..3] as an event's raw record, parts, call input and
// result's raw content, or a system step of its own event with them all;
// the events' texts are text. With keep, each rest carries only its kind's
// fields, so that every raw value is written in it; else the lists that
// carry raw values (carriedRaws) are taken.
func compactRestsStep(agent, keep bool, raws [4]string, text string) *step {
	raw := func(i int) json.RawMessage {
		if raws[i] == "" {
			return nil
		}
		return json.RawMessage(raws[i])
	}
	ev := func(k model.Kind) *model.Event {
		return &model.Event{Kind: k, Text: text, Raw: raw(0), Parts: raw(1),
			Extra: model.Fields{{Key: "x", Value: json.RawMessage(`{"a": [1, 2]}`)}}}
	}
	rest := func(e *model.Event, kept, carried *model.Carried) eventRest {
		if !keep {
			kept = carried
		}
		return eventRest{e: e, carried: *kept, spaced: rawSpaced(e, kept)}
	}
	call := ev(model.KindToolCall)
	call.Call = &model.ToolCall{ID: "c1", Name: "Bash", Input: raw(2)}
	res := ev(model.KindToolResult)
	res.Result = &model.ToolResult{CallID: "c1", Content: text, ContentRaw: raw(3)}
	st := &step{source: "system", extra: model.Fields{{Key: "event", Value: json.RawMessage(`"lifecycle"`)}}}
	if agent {
		st.source = "agent"
		st.thinkRests = []eventRest{rest(ev(model.KindThinking), &carries.text, &carries.raw)}
		st.textRests = []eventRest{rest(ev(model.KindAgent), &carries.text, &carries.textParts)}
		st.calls = []toolCall{{id: "c1", orig: "c1", name: "Bash", rest: rest(call, &carries.callID, &carries.callIDInput)}}
	} else {
		own := ev(model.KindLifecycle)
		own.Call, own.Result = call.Call, res.Result
		st.ownRest = rest(own, &carries.text, &carries.rawParts)
	}
	st.results = []result{{callID: "c1", hasCall: true, content: text, rest: rest(res, &carries.result, &carries.resultRaw)}}
	return st
}

// TestCarriedRaws holds carriedRaws to model.WriteRestCarried: for each of
// the writer's lists of carries, a raw value is written in the rest of an
// event that has all four when the list does not carry it.
func TestCarriedRaws(t *testing.T) {
	lists := map[string]*model.Carried{"text": &carries.text, "textParts": &carries.textParts, "raw": &carries.raw,
		"rawParts": &carries.rawParts, "callID": &carries.callID, "callIDInput": &carries.callIDInput,
		"result": &carries.result, "resultRaw": &carries.resultRaw}
	e := &model.Event{Kind: model.KindToolResult, Raw: json.RawMessage(`["rawmark"]`), Parts: json.RawMessage(`["partsmark"]`),
		Call:   &model.ToolCall{ID: "c", Name: "n", Input: json.RawMessage(`["inputmark"]`)},
		Result: &model.ToolResult{CallID: "c", ContentRaw: json.RawMessage(`["resultmark"]`)}}
	for name, kind := range lists {
		var b jsonw.Buf
		model.WriteRestCarried(&b, e, nil, kind)
		raw, parts, input, resultRaw := carriedRaws(kind)
		for mark, carried := range map[string]bool{"rawmark": raw, "partsmark": parts, "inputmark": input, "resultmark": resultRaw} {
			if written := strings.Contains(string(b.Bytes()), mark); written == carried {
				t.Errorf("carries.%s: %s written %v, carriedRaws says carried %v (%s)", name, mark, written, carried, b.Bytes())
			}
		}
	}
}

// writeCompactBoth writes st's compact extra (after a member before it,
// as in a step) by writeCompactExtra and by writeCompactExtraCopied.
func writeCompactBoth(st *step, extra model.Fields) (got, want string) {
	write := func(copied bool) string {
		var b jsonw.Buf
		var x stepRoom
		o := b.Begin()
		o.Int("step_id", 1)
		o.Key("extra")
		f := append(model.Fields(nil), extra...)
		if copied {
			writeCompactExtraCopied(&b, &f, st, &x)
		} else {
			writeCompactExtra(&b, &f, st, &x)
		}
		o.End()
		return string(b.Bytes())
	}
	return write(false), write(true)
}

// TestCompactExtraMatchesCopied holds writeCompactExtra to
// writeCompactExtraCopied for steps whose raw values have no white space
// between their tokens (rests written where they stand) and have it in
// each place in turn (rests made apart, compacted whole): spaces, tabs,
// line breaks and CRLF, outside strings and inside them only, escaped
// quotes and backslashes before a quote, in an agent step and a system
// step, with the step's extra before and after rests or holding one.
func TestCompactExtraMatchesCopied(t *testing.T) {
	values := []string{``, `{}`, `{"a":1}`, `[1,"x y",{"b":null}]`, `"a \" b"`, `"\\"`, `"\\\\" `,
		`{"a": 1}`, "{\"a\":\t1}", "[1,\n2]", "[1,\r\n2]", ` 1`, `1 `, `{"k":"a\" ,"}`, `"é 😀 \u2028"`, `[ ]`}
	extras := []model.Fields{nil,
		{{Key: "event", Value: json.RawMessage(`"x"`)}},
		{{Key: "rests", Value: json.RawMessage(`"old"`)}, {Key: "a<b", Value: json.RawMessage(`[1, 2]`)}},
		{{Key: "message_id", Value: json.RawMessage(`"m"`)}, {Key: "rests", Value: json.RawMessage(`1`)}, {Key: "z", Value: nil}}}
	texts := []string{"", "a b", "tab\there\nline \"q\" \\"}
	for _, agent := range []bool{true, false} {
		for place := range 4 {
			for _, v := range values {
				for _, extra := range extras {
					for _, text := range texts {
						var raws [4]string
						raws[place] = v
						for _, keep := range []bool{true, false} {
							st := compactRestsStep(agent, keep, raws, text)
							got, want := writeCompactBoth(st, extra)
							if got != want {
								t.Errorf("agent %v, keep %v, raw %d %q, extra %v, text %q: writeCompactExtra wrote\n%s\nwant\n%s", agent, keep, place, v, extra, text, got, want)
							}
							if spaced := model.SpaceBetweenTokens([]byte(v)); keep && restsSpaced(st) != spaced {
								t.Errorf("agent %v, raw %d %q: restsSpaced %v, want %v", agent, place, v, !spaced, spaced)
							}
						}
					}
				}
			}
		}
	}
}

// FuzzCompactExtra holds writeCompactExtra to writeCompactExtraCopied for
// any valid JSON values as an agent or system step's events' raw
// record, parts, call input and result's raw content, and any text, each
// written in the rests or carried.
func FuzzCompactExtra(f *testing.F) {
	f.Add(true, true, `{"a":1}`, `[1, 2]`, `"x"`, "\t{}", "a b")
	f.Add(false, false, ``, `[{"type":"text","text":"x y"}]`, `{"cmd":"ls -l"}`, `"a\"b"`, "\n")
	f.Add(true, false, `[1,"\\"]`, ``, "{\r\n}", ``, "é")
	f.Fuzz(func(t *testing.T, agent, keep bool, raw, parts, input, content, text string) {
		raws := [4]string{raw, parts, input, content}
		for _, r := range raws {
			if r != "" && !json.Valid([]byte(r)) {
				return // (a reader gives only valid JSON)
			}
		}
		st := compactRestsStep(agent, keep, raws, text)
		got, want := writeCompactBoth(st, model.Fields{{Key: "event", Value: json.RawMessage(`"x"`)}})
		if got != want {
			t.Fatalf("raws %q, text %q: writeCompactExtra wrote\n%s\nwant\n%s", raws, text, got, want)
		}
	})
}

// TestKindJSON holds kindJSON to model.MustJSON of the kind's name, for
// every kind and kinds past the table and the names.
func TestKindJSON(t *testing.T) {
	for k := range 2 * len(kindsJSON) { // (before makeKeys, then after)
		if k == len(kindsJSON) {
			keysMade.Do(makeKeys)
		}
		if got, want := string(kindJSON(model.Kind(k))), string(model.MustJSON(model.Kind(k).String())); got != want {
			t.Errorf("kindJSON(%d) = %s, want %s", k, got, want)
		}
	}
}

// subagentTodosStrings are strings at the edges of appendJSONString: the
// bytes encoding/json escapes or writes differently, invalid UTF-8 and
// emoji.
var subagentTodosStrings = []string{"", "x", "a\"b\\c", "\b\f\n\r\t\x00\x1f", "<&>", "\u2028\u2029", "\xe2", "\xe2\x80", "\xff\xfe", "é😀", "a b c"}

// checkSubagentTodos holds appendSubagentJSON and appendTodosJSON to
// model.MustJSON for a sub-agent and a list of todos made of the strings.
func checkSubagentTodos(t *testing.T, strs []string) {
	at := func(i int) string { return strs[i%len(strs)] }
	sa := &model.Subagent{ID: at(0), AgentID: at(1), Type: at(2), Status: at(3), Summary: at(4), SessionID: at(5), TrajectoryPath: at(6)}
	if got, want := string(appendSubagentJSON([]byte("<"), sa)), "<"+string(model.MustJSON(sa)); got != want {
		t.Errorf("appendSubagentJSON(%q) = %s, want %s", strs, got, want)
	}
	for n := range 3 {
		todos := make([]model.Todo, n)
		for i := range todos {
			todos[i] = model.Todo{ID: at(4 * i), Content: at(4*i + 1), Status: at(4*i + 2), Priority: at(4*i + 3)}
		}
		if got, want := string(appendTodosJSON([]byte("<"), todos)), "<"+string(model.MustJSON(todos)); got != want {
			t.Errorf("appendTodosJSON(%q) = %s, want %s", todos, got, want)
		}
	}
}

// TestSubagentTodosJSON holds appendSubagentJSON and appendTodosJSON to
// model.MustJSON: none (null), an empty list of todos, and each edge string
// in each field.
func TestSubagentTodosJSON(t *testing.T) {
	if got := string(appendSubagentJSON(nil, nil)); got != string(model.MustJSON((*model.Subagent)(nil))) {
		t.Errorf("appendSubagentJSON(nil) = %s", got)
	}
	if got := string(appendTodosJSON(nil, nil)); got != string(model.MustJSON([]model.Todo(nil))) {
		t.Errorf("appendTodosJSON(nil) = %s", got)
	}
	for i := range subagentTodosStrings {
		checkSubagentTodos(t, append(subagentTodosStrings[i:], subagentTodosStrings[:i]...))
	}
}

// FuzzSubagentTodosJSON holds appendSubagentJSON and appendTodosJSON to
// model.MustJSON for any strings in their fields.
func FuzzSubagentTodosJSON(f *testing.F) {
	for _, s := range subagentTodosStrings {
		f.Add(s, "b")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		checkSubagentTodos(t, []string{a, b, a + b, b + a})
	})
}

// TestRecycleEmptiesStep holds recycle to what newStep needs: every field
// of a step set (reflection says whether the test set each, so that a
// field added to step fails it until set here) is zero after it, but the
// slices it keeps (emptied, their arrays kept), the ledger (emptied) and
// the time it worked out (timeOf, stepTime).
func TestRecycleEmptiesStep(t *testing.T) {
	x := "x"
	e := &model.Event{}
	s := &step{parts: json.RawMessage("[]"), fields: make(model.Fields, 1, 4), metricExtra: make(model.Fields, 1, 4),
		source: x, time: x, message: x, model: x, reasoning: make([]string, 1, 4), texts: make([]string, 1, 4),
		calls: make([]toolCall, 1, 4), results: make([]result, 1, 4), grew: model.Usage{Input: 2}, counted: true,
		extra: make(model.Fields, 1, 4), key: x, msgID: x, srcID: x, keys: x, loc: model.Loc{Line: 3}, origStep: 1,
		answered: 1, closed: true, size: 1, ownRest: eventRest{e: e, spaced: true},
		thinkRests: make([]eventRest, 1, 4), textRests: make([]eventRest, 1, 4), orphans: true, timeOf: x, stepTime: x}
	s.ledger.AddUsage("m", model.Usage{Input: 1})
	v := reflect.ValueOf(s).Elem()
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("step.%s: a field the test does not set", v.Type().Field(i).Name)
		}
	}
	var wr Writer
	wr.recycle(s)
	kept := map[string]bool{"fields": true, "metricExtra": true, "extra": true, "reasoning": true, "texts": true, "calls": true,
		"results": true, "thinkRests": true, "textRests": true}
	for i := range v.NumField() {
		f, name := v.Field(i), v.Type().Field(i).Name
		switch {
		case kept[name]:
			if f.Len() != 0 || f.Cap() != 4 {
				t.Errorf("step.%s: len %d, cap %d after recycle, want 0 and 4", name, f.Len(), f.Cap())
			}
		case name == "timeOf" || name == "stepTime":
			if f.String() != "x" {
				t.Errorf("step.%s not kept", name)
			}
		case name == "ledger":
			if !s.ledger.Empty() {
				t.Errorf("step.ledger not emptied")
			}
		case !f.IsZero():
			t.Errorf("step.%s = %v after recycle, want zero", name, f)
		}
	}
}
