package model

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// The rest of an event is what it says that a target format has no field
// for: its time when the format keeps one per step, its entry ids, its
// sub-agent, the source's own fields, how the source wrote it. A writer
// keeps it beside what the format does say (an ATIF step's extra, a
// trajectory step's field, a mini-prophet message's extra), and the reader
// of that format gives it back, so that a round trip through the format
// restores the event instead of losing it. RestOf makes it, ApplyRest
// reads it; docs/conversions.md names where each format keeps it.
//
// The rest is a JSON object whose keys are the event's fields: kind, time,
// id, parent, message_id, model, text, signature, name, call, result,
// subagent, compaction, todos, agent_id, sidechain, meta, step, raw_type,
// raw, parts, extra and form. Usage is never in it: every format that
// counts tokens keeps them its own way.
type rest struct {
	Kind       string          `json:"kind,omitempty"`
	Time       *string         `json:"time,omitempty"`
	ID         string          `json:"id,omitempty"`
	ParentID   string          `json:"parent,omitempty"`
	MessageID  string          `json:"message_id,omitempty"`
	Model      string          `json:"model,omitempty"`
	Text       *string         `json:"text,omitempty"`
	Signature  string          `json:"signature,omitempty"`
	Name       string          `json:"name,omitempty"`
	Call       *restCall       `json:"call,omitempty"`
	Result     *restResult     `json:"result,omitempty"`
	Subagent   *restSubagent   `json:"subagent,omitempty"`
	Compaction *restCompaction `json:"compaction,omitempty"`
	Todos      []restTodo      `json:"todos,omitempty"`
	AgentID    string          `json:"agent_id,omitempty"`
	Sidechain  bool            `json:"sidechain,omitempty"`
	Meta       bool            `json:"meta,omitempty"`
	Step       int64           `json:"step,omitempty"`
	RawType    string          `json:"raw_type,omitempty"`
	Raw        json.RawMessage `json:"raw,omitempty"`
	Parts      json.RawMessage `json:"parts,omitempty"`
	Extra      json.RawMessage `json:"extra,omitempty"`
	Form       *restForm       `json:"form,omitempty"`
	// Unset names the fields the writer made up or the record gives every
	// event it holds (id, parent, message_id, model, time, usage, step):
	// the event has none.
	Unset []string `json:"unset,omitempty"`
}

type restCall struct {
	ID      string          `json:"id,omitempty"`
	Name    string          `json:"name,omitempty"`
	Input   json.RawMessage `json:"input,omitempty"`
	Summary string          `json:"summary,omitempty"`
}

type restResult struct {
	CallID  string          `json:"call_id,omitempty"`
	IsError bool            `json:"is_error,omitempty"`
	Content *string         `json:"content,omitempty"`
	Raw     json.RawMessage `json:"raw,omitempty"`
	Status  string          `json:"status,omitempty"`
}

type restSubagent struct {
	ID             string `json:"id,omitempty"`
	AgentID        string `json:"agent_id,omitempty"`
	Type           string `json:"type,omitempty"`
	Status         string `json:"status,omitempty"`
	Summary        string `json:"summary,omitempty"`
	SessionID      string `json:"session_id,omitempty"`
	TrajectoryPath string `json:"trajectory_path,omitempty"`
}

type restCompaction struct {
	Trigger   string `json:"trigger,omitempty"`
	PreTokens int64  `json:"pre_tokens,omitempty"`
}

type restTodo struct {
	ID       string `json:"id,omitempty"`
	Content  string `json:"content,omitempty"`
	Status   string `json:"status,omitempty"`
	Priority string `json:"priority,omitempty"`
}

type restForm struct {
	Content    string `json:"content,omitempty"`
	NoOutput   bool   `json:"no_output,omitempty"`
	Inline     bool   `json:"inline,omitempty"`
	Prefix     string `json:"prefix,omitempty"`
	WholeInput bool   `json:"whole_input,omitempty"`
	Keys       string `json:"keys,omitempty"`
}

// RestOf is the rest of e for a format that carries the fields named in
// carried (the keys above; "call.input", "result.content" for a part of
// one): a JSON object of its kind and every other field e has. time and
// text, when not carried, are written even when empty, so
// that the reader does not give the event a time or text of the place it
// reads them from (an ATIF step's timestamp).
//
// A field named with a leading "-" in carried is one the writer made up
// for the target (a uuid, a message id a consumer needs): the rest says
// the event has none, and the reader takes it out.
func RestOf(e *Event, carried ...string) json.RawMessage {
	has := func(k string) bool { return slices.Contains(carried, k) }
	var r rest
	for _, k := range carried {
		if name, ok := strings.CutPrefix(k, "-"); ok {
			r.Unset = append(r.Unset, name)
		}
	}
	str := func(key, v string, dst *string) {
		if !has(key) {
			*dst = v
		}
	}
	// The kind is always there: a reader lines rests up with its events
	// by it (ApplyRests).
	r.Kind = e.Kind.String()
	if !has("time") {
		t := e.Time
		r.Time = &t
	}
	str("id", e.ID, &r.ID)
	str("parent", e.ParentID, &r.ParentID)
	// A message id a reader made up is kept too: it says which events
	// are one response, which a format that groups them (ATIF's steps)
	// needs back.
	str("message_id", e.MessageID, &r.MessageID)
	str("model", e.Model, &r.Model)
	if !has("text") {
		t := e.Text
		r.Text = &t
	}
	str("signature", e.Signature, &r.Signature)
	str("name", e.Name, &r.Name)
	if c := e.Call; c != nil && !has("call") {
		var rc restCall
		str("call.id", c.ID, &rc.ID)
		str("call.name", c.Name, &rc.Name)
		if !has("call.input") {
			rc.Input = c.Input
		}
		str("call.summary", c.Summary, &rc.Summary)
		if rc.ID != "" || rc.Name != "" || rc.Summary != "" || len(rc.Input) > 0 {
			r.Call = &rc
		}
	}
	if res := e.Result; res != nil && !has("result") {
		var rr restResult
		str("result.call_id", res.CallID, &rr.CallID)
		rr.IsError = res.IsError && !has("result.is_error")
		if !has("result.content") {
			c := res.Content
			rr.Content = &c
		}
		if !has("result.raw") {
			rr.Raw = res.ContentRaw
		}
		str("result.status", res.Status, &rr.Status)
		r.Result = &rr
	}
	if sa := e.Subagent; sa != nil && !has("subagent") {
		s := restSubagent(*sa)
		r.Subagent = &s
	}
	if c := e.Compaction; c != nil && !has("compaction") {
		rc := restCompaction(*c)
		r.Compaction = &rc
	}
	if len(e.Todos) > 0 && !has("todos") {
		for _, t := range e.Todos {
			r.Todos = append(r.Todos, restTodo(t))
		}
	}
	str("agent_id", e.AgentID, &r.AgentID)
	r.Sidechain = e.Sidechain && !has("sidechain")
	r.Meta = e.Meta && !has("meta")
	if !has("step") {
		r.Step = e.Step
	}
	str("raw_type", e.RawType, &r.RawType)
	if !has("raw") {
		r.Raw = e.Raw
	}
	if !has("parts") {
		r.Parts = e.Parts
	}
	if !has("extra") {
		// Always there: the reader's own extras of the event give way to
		// these.
		var x Fields
		for _, f := range e.Extra {
			if len(f.Key) > 0 && f.Key[0] != '_' {
				x = append(x, f)
			}
		}
		r.Extra = MustJSON(x)
		if len(x) == 0 {
			r.Extra = json.RawMessage("{}")
		}
	}
	if !has("form") {
		// Always there: the reader's form of the event gives way.
		rf := restForm(e.Form)
		r.Form = &rf
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil
	}
	return b
}

// ApplyRest sets the fields rest names on e, over what the reader made of
// the format's own fields. A rest that is not an object of them is an
// error, and changes nothing.
func ApplyRest(e *Event, raw []byte) error {
	var r rest
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	if r.Kind != "" {
		if k, ok := KindOf(r.Kind); ok {
			e.Kind = k
		}
	}
	if r.Time != nil {
		e.Time = *r.Time
	}
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&e.ID, r.ID)
	set(&e.ParentID, r.ParentID)
	set(&e.MessageID, r.MessageID)
	set(&e.Model, r.Model)
	if r.Text != nil {
		e.Text = *r.Text
	}
	set(&e.Signature, r.Signature)
	set(&e.Name, r.Name)
	if rc := r.Call; rc != nil {
		if e.Call == nil {
			e.Call = &ToolCall{}
		}
		set(&e.Call.ID, rc.ID)
		set(&e.Call.Name, rc.Name)
		if len(rc.Input) > 0 {
			e.Call.Input = rc.Input
		}
		set(&e.Call.Summary, rc.Summary)
	}
	if rr := r.Result; rr != nil {
		if e.Result == nil {
			e.Result = &ToolResult{}
		}
		set(&e.Result.CallID, rr.CallID)
		e.Result.IsError = e.Result.IsError || rr.IsError
		if rr.Content != nil {
			e.Result.Content = *rr.Content
		}
		if len(rr.Raw) > 0 {
			e.Result.ContentRaw = rr.Raw
		}
		set(&e.Result.Status, rr.Status)
	}
	if r.Subagent != nil {
		sa := Subagent(*r.Subagent)
		e.Subagent = &sa
	}
	if r.Compaction != nil {
		c := Compaction(*r.Compaction)
		e.Compaction = &c
	}
	if len(r.Todos) > 0 {
		e.Todos = e.Todos[:0]
		for _, t := range r.Todos {
			e.Todos = append(e.Todos, Todo(t))
		}
	}
	set(&e.AgentID, r.AgentID)
	e.Sidechain = e.Sidechain || r.Sidechain
	e.Meta = e.Meta || r.Meta
	if r.Step != 0 {
		e.Step = r.Step
	}
	set(&e.RawType, r.RawType)
	if len(r.Raw) > 0 {
		e.Raw = r.Raw
	}
	if len(r.Parts) > 0 {
		e.Parts = r.Parts
	}
	if r.Extra != nil {
		var x Fields
		if err := json.Unmarshal(r.Extra, &x); err != nil {
			return err
		}
		// Reader hints stay: they are not the source's.
		var hints Fields
		for _, f := range e.Extra {
			if len(f.Key) > 0 && f.Key[0] == '_' {
				hints = append(hints, f)
			}
		}
		e.Extra = append(x, hints...)
		if len(e.Extra) == 0 {
			e.Extra = nil
		}
	}
	if r.Form != nil {
		e.Form = Form(*r.Form)
	}
	for _, k := range r.Unset {
		switch k {
		case "id":
			e.ID = ""
		case "parent":
			e.ParentID = ""
		case "message_id":
			e.MessageID = ""
		case "model":
			e.Model = ""
		case "usage":
			e.Usage = nil
		case "step":
			e.Step = 0
		case "time":
			e.Time = ""
		}
	}
	return nil
}

// ApplyRests gives the events a reader made of one record of a format
// (an ATIF step, a Claude Code entry) the rests its writer kept for them
// (RestOf), in order. With own, the first rest is the record's own
// event's, whatever kind the reader made of it (a system step that was a
// lifecycle event), and null says the record has none (a step made for
// results only): that event is left out. The others go to the events of
// their kind in order; a rest whose event the record could not hold (a
// second text of one response) gives an event of its own, base with the
// rest applied. bad reports a rest that cannot be read.
func ApplyRests(events []Event, rests []json.RawMessage, own bool, base Event, bad func(error)) []Event {
	j := 0
	if own && len(rests) > 0 && len(events) > 0 {
		if string(bytes.TrimSpace(rests[0])) == "null" {
			events = events[1:]
		} else if err := ApplyRest(&events[0], rests[0]); err != nil {
			bad(err)
		} else {
			j = 1
		}
		rests = rests[1:]
	}
	for _, r := range rests {
		var k struct {
			Kind string `json:"kind"`
		}
		json.Unmarshal(r, &k)
		kind, _ := KindOf(k.Kind)
		at := j
		for at < len(events) && events[at].Kind != kind {
			at++
		}
		if at == len(events) {
			events = slices.Insert(events, j, base)
			at = j
		}
		if err := ApplyRest(&events[at], r); err != nil {
			bad(err)
		}
		j = at + 1
	}
	return events
}

// KindOf is the kind named s (Kind.String's name).
func KindOf(s string) (Kind, bool) {
	for k, name := range kindNames {
		if k > 0 && name == s {
			return Kind(k), true
		}
	}
	return 0, false
}
