package atif_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/atif"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

// A call whose result never comes holds its step, and the steps after it,
// only up to the bound; then the step is written without it, the result
// that comes later goes on a system step, both are reported, and the
// document is valid.
func TestHeldStepsAreBounded(t *testing.T) {
	var out bytes.Buffer
	rep := &model.Report{}
	w, err := atif.NewWriter(&out, rep, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := &model.Header{ID: "s", AgentName: "a", AgentVersion: "1"}
	ev := func(e model.Event) {
		if err := w.Event(h, &e); err != nil {
			t.Fatal(err)
		}
	}
	ev(model.Event{Kind: model.KindToolCall, MessageID: "m0", Call: &model.ToolCall{ID: "slow", Name: "Bash"}})
	for i := range 600 {
		id := fmt.Sprintf("c%d", i)
		ev(model.Event{Kind: model.KindToolCall, MessageID: "m" + id, Call: &model.ToolCall{ID: id, Name: "Read"}})
		ev(model.Event{Kind: model.KindToolResult, Result: &model.ToolResult{CallID: id, Content: "ok"}})
	}
	ev(model.Event{Kind: model.KindToolResult, Result: &model.ToolResult{CallID: "slow", Content: "finally"}})
	if err := w.End(h); err != nil {
		t.Fatal(err)
	}
	var findings []model.Finding
	if err := atif.Validate(bytes.NewReader(out.Bytes()), func(f model.Finding) { findings = append(findings, f) }); err != nil || len(findings) > 0 {
		t.Fatalf("invalid output: %v %v", findings, err)
	}
	text := rep.Text()
	if !strings.Contains(text, "step written before the results of its tool calls") ||
		!strings.Contains(text, "observation that came after its call's step was written") {
		t.Errorf("the bound is not reported:\n%s", text)
	}
	if !bytes.Contains(out.Bytes(), []byte(`"orphan_call_id": "slow"`)) {
		t.Error("the late result is not on a system step")
	}
}

// Results that arrive after other steps are moved back to their call's
// step while it is held.
func TestResultsMoveBackToTheirStep(t *testing.T) {
	var out bytes.Buffer
	rep := &model.Report{}
	w, _ := atif.NewWriter(&out, rep, model.Options{})
	h := &model.Header{ID: "s", AgentName: "a", AgentVersion: "1"}
	for _, e := range []model.Event{
		{Kind: model.KindToolCall, MessageID: "m1", Call: &model.ToolCall{ID: "a", Name: "Task"}},
		{Kind: model.KindUser, Text: "meanwhile"},
		{Kind: model.KindToolResult, Result: &model.ToolResult{CallID: "a", Content: "done"}},
	} {
		w.Event(h, &e)
	}
	w.End(h)
	if rep.Find(model.LossMoved, "observation moved back to the step of its tool call") == nil {
		t.Errorf("not reported:\n%s", rep.Text())
	}
	i, j := bytes.Index(out.Bytes(), []byte(`"source_call_id": "a"`)), bytes.Index(out.Bytes(), []byte(`"meanwhile"`))
	if i < 0 || j < 0 || i > j {
		t.Errorf("the result is not in the call's step (before the user step):\n%s", out.Bytes())
	}
}

// A result's status other than ok or error (rlog's `[2 issues]`) and the
// id of a result without a call come back from ATIF at every version: in
// the result's extra from v1.7, in the step's extra before; no loss is
// reported for them, and the document is valid.
func TestStatusAndOrphanIDRoundTrip(t *testing.T) {
	for _, ver := range atif.WriteVersions {
		var out bytes.Buffer
		rep := &model.Report{}
		w, err := atif.NewWriter(&out, rep, model.Options{ATIFVersion: ver})
		if err != nil {
			t.Fatal(err)
		}
		h := &model.Header{ID: "s", AgentName: "a", AgentVersion: "1"}
		for _, e := range []model.Event{
			{Kind: model.KindToolCall, MessageID: "m1", Call: &model.ToolCall{ID: "c1", Name: "github.issues"}},
			{Kind: model.KindToolResult, Result: &model.ToolResult{CallID: "c1", Status: "2 issues"}},
			{Kind: model.KindToolResult, Result: &model.ToolResult{CallID: "gone", Status: "3 rows", Content: "x"}},
		} {
			if err := w.Event(h, &e); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.End(h); err != nil {
			t.Fatal(err)
		}
		var findings []model.Finding
		if err := atif.Validate(bytes.NewReader(out.Bytes()), func(f model.Finding) { findings = append(findings, f) }); err != nil || len(findings) > 0 {
			t.Fatalf("%s: invalid output: %v %v", ver, findings, err)
		}
		for _, l := range rep.Losses {
			if l.Kind == model.LossDroppedField {
				t.Errorf("%s: %s reported dropped", ver, l.Detail)
			}
		}
		var c model.Collector
		if err := atif.Read(bytes.NewReader(out.Bytes()), &c, &model.Report{}); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range c.Session.Events {
			if r := e.Result; r != nil {
				got = append(got, r.CallID+" "+r.Status)
			}
		}
		if want := "c1 2 issues,gone 3 rows"; strings.Join(got, ",") != want {
			t.Errorf("%s: results %q, want %q\n%s", ver, got, want, out.String())
		}
	}
}

// refCallIDs is what the writer makes of one step's calls' source ids,
// the simple way: a call without an id is call_<step>_<n>, an id the step
// has already is <source id>#n, n from 2 the first not taken.
func refCallIDs(step int, src []string) []string {
	var ids []string
	taken := func(x string) bool { return slices.Contains(ids, x) }
	for _, id := range src {
		orig := id
		if id == "" {
			id = fmt.Sprintf("call_%d_%d", step, len(ids)+1)
		}
		if taken(id) {
			n := 2
			for taken(fmt.Sprintf("%s#%d", orig, n)) {
				n++
			}
			id = fmt.Sprintf("%s#%d", orig, n)
		}
		ids = append(ids, id)
	}
	return ids
}

// A step's calls get the ids refCallIDs makes, and its results answer the
// calls of one source id in order (a second result of a call answered
// goes to the last one): steps with no call, one, many, ids that repeat,
// that need escaping, that collide with a made one, and none.
func TestCallIDsMadeUnique(t *testing.T) {
	for _, calls := range [][]string{
		{},
		{"a"},
		{""},
		{"x", "x", "x", "x#2", "x"},
		{"", "", "call_2_1", ""},
		{`q"u\o`, `q"u\o`, "é\u2028", "é\u2028", "x#2", "x", "x"},
		{"#2", "", "", "#2"},
	} {
		var out bytes.Buffer
		w, err := atif.NewWriter(&out, &model.Report{}, model.Options{ATIFVersion: "1.7"})
		if err != nil {
			t.Fatal(err)
		}
		h := &model.Header{ID: "s", AgentName: "a", AgentVersion: "1"}
		events := []model.Event{{Kind: model.KindUser, Text: "go"}}
		for _, id := range calls {
			events = append(events, model.Event{Kind: model.KindToolCall, MessageID: "m", Call: &model.ToolCall{ID: id, Name: "Bash"}})
		}
		// Each source id answered once for each of its calls, and once more.
		var answers []string
		for _, id := range calls {
			if id != "" {
				answers = append(answers, id)
			}
		}
		if len(calls) > 0 && calls[0] != "" {
			answers = append(answers, calls[0])
		}
		for _, id := range answers {
			events = append(events, model.Event{Kind: model.KindToolResult, Result: &model.ToolResult{CallID: id, Content: id}})
		}
		for _, e := range events {
			if err := w.Event(h, &e); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.End(h); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Steps []struct {
				ToolCalls []struct {
					ID string `json:"tool_call_id"`
				} `json:"tool_calls"`
				Observation struct {
					Results []struct {
						ID      string `json:"source_call_id"`
						Content string `json:"content"`
					} `json:"results"`
				} `json:"observation"`
			} `json:"steps"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		var got []string
		var results []string
		for _, s := range doc.Steps {
			for _, c := range s.ToolCalls {
				got = append(got, c.ID)
			}
			for _, r := range s.Observation.Results {
				results = append(results, r.Content+"="+r.ID)
			}
		}
		want := refCallIDs(2, calls)
		if !slices.Equal(got, want) {
			t.Errorf("calls %q: ids %q, want %q", calls, got, want)
		}
		// The reference's answers: the n-th result of a source id answers
		// its n-th call; one more answers the last.
		var wantResults []string
		seen := map[string]int{}
		for _, id := range answers {
			var of []string
			for i, c := range calls {
				if c == id {
					of = append(of, want[i])
				}
			}
			n := seen[id]
			seen[id]++
			wantResults = append(wantResults, id+"="+of[min(n, len(of)-1)])
		}
		if !slices.Equal(results, wantResults) {
			t.Errorf("calls %q: results %q, want %q", calls, results, wantResults)
		}
	}
}
