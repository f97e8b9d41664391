package model

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestReportTextCountsKinds(t *testing.T) {
	var r Report
	r.From, r.To, r.Events = "rlog", "replay", 3
	r.Add(LossDroppedField, "a", Loc{Line: 1})
	r.Add(LossDroppedField, "b", Loc{Line: 2})
	r.AddN(LossDroppedField, "b", Loc{}, 2)
	r.Add(LossSynthesized, "c", Loc{})
	first := strings.SplitN(r.Text(), "\n", 2)[0]
	if want := "rlog -> replay: 3 events, 5 losses of 2 kinds"; first != want {
		t.Errorf("summary %q, want %q", first, want)
	}
	var one Report
	one.Add(LossMoved, "x", Loc{})
	one.Add(LossMoved, "y", Loc{})
	if first := strings.SplitN(one.Text(), "\n", 2)[0]; first != "0 events, 2 losses of 1 kind" {
		t.Errorf("summary %q", first)
	}
}

func TestRemedyAndFile(t *testing.T) {
	var r Report
	r.AddRemedy(LossDroppedField, "content parts", Loc{File: "agent-a1.jsonl", Line: 4, Path: "$.message"}, "write --atif-version 1.6 to keep them")
	r.Add(LossDroppedField, "content parts", Loc{Line: 9})
	text := r.Text()
	for _, want := range []string{
		"dropped_field: content parts ×2 (at agent-a1.jsonl line 4 $.message, line 9); write --atif-version 1.6 to keep them",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	var j struct {
		Losses []struct {
			Remedy    string
			Locations []struct {
				File string
				Line int
			}
		}
	}
	if err := json.Unmarshal(r.JSON(), &j); err != nil {
		t.Fatal(err)
	}
	if j.Losses[0].Remedy == "" || j.Losses[0].Locations[0].File != "agent-a1.jsonl" {
		t.Errorf("JSON lacks remedy or file: %s", r.JSON())
	}
	// Merging into another report keeps the remedy; MergeIn names the file.
	var m Report
	m.MergeIn(&r, "sub.jsonl")
	if m.Losses[0].Remedy == "" || m.Losses[0].Count != 2 || m.Losses[0].Locations[1].File != "sub.jsonl" {
		t.Errorf("merged: %+v", m.Losses[0])
	}
}

func TestInvalidUTF8(t *testing.T) {
	var r Report
	r.InvalidUTF8([]byte(`{"a":"ok"}`), Loc{Line: 3})
	if !r.Empty() {
		t.Fatalf("valid record reported: %s", r.Text())
	}
	r.InvalidUTF8([]byte("{\"a\":\"\xff\",\"b\":{\"c\":\"\\ud800\"}}"), Loc{Line: 3, File: "x.jsonl"})
	r.InvalidUTF8([]byte("{\n \"s\": [\n  \"\xfe\"\n ]\n}"), Loc{Path: "$.steps[2]"})
	r.InvalidUTF8Text([]byte("u: caf\xe9"), Loc{Line: 7})
	// The lone surrogate escape ($.b.c) is not invalid UTF-8.
	want := "3 losses of 1 kind\n" +
		"  invalid_utf8: invalid UTF-8 replaced by U+FFFD ×3 (at x.jsonl line 3 $.a, line 3 $.steps[2].s[0], line 7)\n"
	if got := r.Text(); !strings.HasSuffix(got, want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestDropEventRetractsTheReadersEntry(t *testing.T) {
	var r Report
	a := &Event{Kind: KindPassthrough, Loc: Loc{Line: 3}}
	b := &Event{Kind: KindPassthrough, Loc: Loc{Line: 9}}
	r.Passthrough(a, "rlog line t~:")
	r.Passthrough(b, "rlog line t~:")
	r.Add(LossMoved, "x", Loc{})
	r.DropEvent(a, "record t~: (no event)")
	if l := r.Find(LossPassthrough, "rlog line t~:"); l == nil || l.Count != 1 || len(l.Locations) != 1 || l.Locations[0].Line != 9 {
		t.Fatalf("passthrough entry after one drop: %+v", l)
	}
	r.DropEvent(b, "record t~: (no event)")
	if r.Find(LossPassthrough, "rlog line t~:") != nil {
		t.Fatalf("passthrough entry kept after both drops:\n%s", r.Text())
	}
	r.Add(LossMoved, "x", Loc{})
	if l := r.Find(LossDroppedEvent, "record t~: (no event)"); l == nil || l.Count != 2 || r.Find(LossMoved, "x").Count != 2 {
		t.Fatalf("after the drops:\n%s", r.Text())
	}
	// An event no reader reported is just dropped.
	r.DropEvent(&Event{Kind: KindPassthrough}, "record t~: (no event)")
	if r.Find(LossDroppedEvent, "record t~: (no event)").Count != 3 {
		t.Fatalf("%s", r.Text())
	}
}

func TestDropExtrasReportsOnlyWhatIsLost(t *testing.T) {
	var r Report
	e := &Event{Kind: KindAgent, Usage: &Usage{Input: 1, Output: 2, CacheCreate: 30}, Extra: Fields{
		{Key: "_form", Value: []byte(`"string"`)},
		{Key: "message.stop_reason", Value: []byte(`null`)},
		{Key: "requestId", Value: []byte(`"req_1"`)},
		{Key: "message.usage", Value: []byte(`{"input_tokens":1,"cache_creation_input_tokens":30,"cache_creation":{"ephemeral_5m_input_tokens":30,"ephemeral_1h_input_tokens":0},"output_tokens":2,"service_tier":"standard","server_tool_use":null}`)},
	}}
	r.DropExtras(e)
	e.Extra[3].Value = []byte(`{"input_tokens":1,"cache_creation":{"ephemeral_5m_input_tokens":10,"ephemeral_1h_input_tokens":20}}`)
	r.DropExtras(e)
	var got []string
	for _, l := range r.Losses {
		got = append(got, l.Detail+" ×"+Itoa(int64(l.Count)))
	}
	want := "agent field requestId ×2; agent field message.usage.service_tier ×1; agent field message.usage.cache_creation ×1"
	if strings.Join(got, "; ") != want {
		t.Errorf("got %s\nwant %s", strings.Join(got, "; "), want)
	}
}

func TestSubjectCovers(t *testing.T) {
	for _, c := range []struct {
		pattern, subject string
		want             bool
	}{
		{"header.branch", "header.branch", true},
		{"header.outcome", "header.outcome.success", true},
		{"header.outcome", "header.outcomes", false},
		{"lifecycle", "lifecycle.name", true},
		{"*.time", "agent.time", true},
		{"*.time", "agent.extra.time", false},
		{"*.time", "time", false},
		{"*.extra", "user.extra.requestId", true},
		{"", "agent", false},
		{"header.extra.atif.x, header.extra.x", "header.extra.x", true},
		{"header.extra.atif.x, header.extra.x", "header.extra.atif.x", true},
		{"header.extra.atif.x, header.extra.x", "header.extra.y", false},
	} {
		if got := SubjectCovers(c.pattern, c.subject); got != c.want {
			t.Errorf("SubjectCovers(%q, %q) = %v", c.pattern, c.subject, got)
		}
	}
	var r Report
	r.Lose(LossDroppedField, "agent.extra.requestId", "agent field requestId", Loc{Line: 3})
	r.Lose(LossDroppedField, "agent.extra.requestId", "agent field requestId", Loc{Line: 4})
	r.Add(LossDroppedField, "agent field requestId", Loc{Line: 5}) // another entry: no subject
	var o Report
	o.MergeIn(&r, "sub.jsonl")
	if !o.Covers("agent.extra.requestId") || o.Covers("agent.extra") || o.Losses[0].Count != 2 || len(o.Losses) != 2 {
		t.Errorf("merged: %+v", o.Losses[0])
	}
	if j := string(o.JSON()); !strings.Contains(j, `"subject":"agent.extra.requestId"`) {
		t.Errorf("JSON: %s", j)
	}
}

// referenceReport is Report's add and retract as a list searched by the
// keys' contents: what a report holds, in its order, whatever add finds
// in its index or among its recent entries.
type referenceReport struct{ losses []*Loss }

func (r *referenceReport) add(kind LossKind, detail, subject string, loc Loc, n int) {
	var l *Loss
	for _, x := range r.losses {
		if x.Kind == kind && x.Detail == detail && x.Subject == subject {
			l = x
			break
		}
	}
	if l == nil {
		l = &Loss{Kind: kind, Detail: detail, Subject: subject}
		r.losses = append(r.losses, l)
	}
	l.Count += n
	if len(l.Locations) < MaxLocations && !loc.IsZero() {
		l.Locations = append(l.Locations, loc)
	}
}

func (r *referenceReport) retract(kind LossKind, detail string, loc Loc) {
	for i, l := range r.losses {
		if l.Kind != kind || l.Detail != detail {
			continue
		}
		l.Count--
		for j, at := range l.Locations {
			if at == loc {
				l.Locations = append(l.Locations[:j], l.Locations[j+1:]...)
				break
			}
		}
		if l.Count <= 0 {
			r.losses = append(r.losses[:i], r.losses[i+1:]...)
		}
		return
	}
}

// FuzzReportAddEqualsReference holds add, which looks among its recent
// entries by the strings' data before its index, to a list searched by
// the keys' contents: each byte of the input is one add (or, now and
// then, a retract) of keys drawn from constants, copies of them elsewhere
// in memory, strings that share their data but not their length, and
// empty ones, more of them than the recent entries hold.
func FuzzReportAddEqualsReference(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 255, 0, 1})
	f.Add([]byte("the same few losses again and again, and others"))
	details := []string{"uuid and parentUuid", "timestamp (the source has none)", "message.id", "", "x", "uuid", "field a", "field b", "field c", "field d", "field e"}
	details = append(details, strings.Clone(details[0]), strings.Clone(details[1]), details[0][:4], details[1][:9])
	subjects := []string{"", "header.branch", "thinking", "header.branch"[:6], strings.Clone("thinking")}
	kinds := []LossKind{LossSynthesized, LossDroppedField, LossTruncated, LossKind(strings.Clone(string(LossSynthesized)))}
	f.Fuzz(func(t *testing.T, ops []byte) {
		var got Report
		var want referenceReport
		for i, op := range ops {
			kind := kinds[int(op>>6)%len(kinds)]
			detail := details[int(op)%len(details)]
			subject := subjects[int(op>>3)%len(subjects)]
			loc := Loc{Line: i % 3}
			if op%17 == 16 {
				got.retract(kind, detail, loc)
				want.retract(kind, detail, loc)
				continue
			}
			n := 1 + int(op>>5)%2
			got.add(kind, detail, subject, loc, n)
			want.add(kind, detail, subject, loc, n)
		}
		if want.losses == nil {
			want.losses = []*Loss{}
		}
		wantJSON, err := json.Marshal(want.losses)
		if err != nil {
			t.Fatal(err)
		}
		got.JSON() // makes Losses non-nil, as the reference's
		gotJSON, err := json.Marshal(got.Losses)
		if err != nil {
			t.Fatal(err)
		}
		if string(gotJSON) != string(wantJSON) {
			t.Fatalf("ops %v:\ngot  %s\nwant %s", ops, gotJSON, wantJSON)
		}
	})
}

// FuzzPassthroughEqualsReference holds Passthrough (its detail's JSON made
// once an entry and shared, an event's Extra made in the report's blocks)
// and DropEvent (the detail found by that JSON's bytes) to the plain
// ones: Add and SetString of the detail, and DropEvent retracting the
// detail decoded from the event's Extra. Each byte of the input is one
// call on one of a few events, which start with no Extra, an empty one,
// one of another member or of the key already, or room for more: a
// Passthrough of a detail drawn from constants, copies of them, one with
// quotes and one not UTF-8; a DropEvent; or a sink's change to the
// event's Extra (a member appended, the key set again, the key deleted),
// which must not reach another event's. The reports' JSON and the
// events' Extra must be the same.
func FuzzPassthroughEqualsReference(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 64, 65, 128, 129, 192, 193, 8, 9, 10})
	f.Add([]byte("passed through, dropped, and passed through again"))
	f.Add([]byte{24, 128, 25, 25, 129}) // a detail not UTF-8, not retracted
	details := []string{"rlog line t~: (no event kind in the model; kept whole)", "claude record type \"x-probe\"", "", "replay event Custom\xff", "trajectory step type note"}
	details = append(details, strings.Clone(details[0]), strings.Clone(details[1]))
	starts := func() []Fields {
		return []Fields{nil, {}, {{Key: "a", Value: json.RawMessage(`1`)}}, {{Key: passthroughKey, Value: json.RawMessage(`"old"`)}},
			make(Fields, 0, 4), nil, nil, nil}
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		var got Report
		var want referenceReport
		gotEvs, wantEvs := make([]Event, 8), make([]Event, 8)
		for i, x := range starts() {
			gotEvs[i] = Event{Kind: KindPassthrough, Loc: Loc{Line: i + 1}, Extra: x}
		}
		for i, x := range starts() {
			wantEvs[i] = Event{Kind: KindPassthrough, Loc: Loc{Line: i + 1}, Extra: x}
		}
		for _, op := range ops {
			g, w := &gotEvs[op&7], &wantEvs[op&7]
			detail := details[int(op>>3)%len(details)]
			switch op >> 6 {
			case 0, 1:
				got.Passthrough(g, detail)
				want.add(LossPassthrough, detail, "", w.Loc, 1)
				w.Extra.SetString(passthroughKey, detail)
			case 2:
				got.DropEvent(g, "dropped")
				if was, ok := w.Extra.String(passthroughKey); ok {
					want.retract(LossPassthrough, was, w.Loc)
				}
				want.add(LossDroppedEvent, "dropped", w.Kind.String(), w.Loc, 1)
			default:
				switch op >> 3 & 3 {
				case 0:
					g.Extra = append(g.Extra, Field{Key: "b", Value: json.RawMessage(`2`)})
					w.Extra = append(w.Extra, Field{Key: "b", Value: json.RawMessage(`2`)})
				case 1:
					g.Extra.SetString(passthroughKey, "set by a sink")
					w.Extra.SetString(passthroughKey, "set by a sink")
				default:
					g.Extra.Delete(passthroughKey)
					w.Extra.Delete(passthroughKey)
				}
			}
		}
		if want.losses == nil {
			want.losses = []*Loss{}
		}
		wantJSON, err := json.Marshal(want.losses)
		if err != nil {
			t.Fatal(err)
		}
		got.JSON()
		gotJSON, err := json.Marshal(got.Losses)
		if err != nil {
			t.Fatal(err)
		}
		if string(gotJSON) != string(wantJSON) {
			t.Fatalf("ops %v:\ngot  %s\nwant %s", ops, gotJSON, wantJSON)
		}
		for i := range gotEvs {
			if g, w := gotEvs[i].Extra.AppendJSON(nil), wantEvs[i].Extra.AppendJSON(nil); string(g) != string(w) || (gotEvs[i].Extra == nil) != (wantEvs[i].Extra == nil) {
				t.Fatalf("ops %v: event %d's extra %s, want %s", ops, i, g, w)
			}
		}
	})
}

// TestPassthroughWithoutReport: a nil report records nothing and the
// event still says what it was passed through as.
func TestPassthroughWithoutReport(t *testing.T) {
	var r *Report
	e := &Event{Kind: KindPassthrough}
	r.Passthrough(e, "rlog line t~:")
	if v, ok := e.Extra.String(passthroughKey); !ok || v != "rlog line t~:" || len(e.Extra) != 1 {
		t.Fatalf("extra %v", e.Extra)
	}
}
