package model

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/internal/jsonw"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// The source object is the header of a session written from another
// format, kept by the writer of a format that has no place for it (a
// trajectory's or mini-prophet's root, REPLAY's ReplayHeader, Claude
// Code's session record), so that its reader gives the header back. Its
// start (SourceOf) is written before the events: the format the session
// came from and what the header says then; its end (SourceEndOf) after
// them: what the header says only at the end, and the values the writer
// made up that the session has not (MadeUp names). ApplySource reads
// either.
//
// The keys: format, version, agent, agent_version, model, repo_sha,
// branch, cwd, prompt, started, ended, totals, cost, outcome, extra,
// made_up. A writer leaves out (omit) those its format has a place for.

// SourceOf is the start of h's source object, without the keys in omit
// (an extra field: "extra.<key>"),
// with the values the writer made up before the events (madeUp, as for
// SourceEndOf). agent, agent_version and started are written even when
// empty: the reader's own values (its format's agent) give way to them.
// The extra fields written are added to extraKeys.
func SourceOf(h *Header, extraKeys map[string]bool, madeUp []string, omit ...string) json.RawMessage {
	var b jsonw.Buffer
	o := jsonw.Begin(&b)
	format, version := h.First()
	o.Str("format", format)
	if version != "" {
		o.Str("version", version)
	}
	want := func(k string) bool { return !slices.Contains(omit, k) }
	for _, kv := range [...][2]string{{"agent", h.AgentName}, {"agent_version", h.AgentVersion}, {"model", h.Model}, {"repo_sha", h.RepoSHA},
		{"branch", h.Branch}, {"cwd", h.Cwd}, {"prompt", h.Prompt}, {"started", h.Started}} {
		always := kv[0] == "agent" || kv[0] == "agent_version" || kv[0] == "started"
		if want(kv[0]) && (kv[1] != "" || always) {
			o.Str(kv[0], kv[1])
		}
	}
	var x Fields
	if want("extra") {
		for _, f := range ownExtra(h.Extra) {
			if want("extra." + f.Key) {
				x = append(x, f)
				extraKeys[f.Key] = true
			}
		}
	}
	if len(x) > 0 {
		o.Raw("extra", MustJSON(x))
	}
	if len(madeUp) > 0 {
		o.Strings("made_up", madeUp)
	}
	o.End()
	return b.Bytes()
}

// SourceEndOf is the end of h's source object: its end, totals, cost and
// outcome, the extra fields not in the start (extraKeys), and the values
// the writer made up (madeUp: "id", "agent", "agent_version", "started",
// "totals", "cost", "outcome", "outcome.success", "extra.<key>"), without
// the keys in omit.
func SourceEndOf(h *Header, extraKeys map[string]bool, madeUp []string, omit ...string) json.RawMessage {
	var b jsonw.Buffer
	o := jsonw.Begin(&b)
	want := func(k string) bool { return !slices.Contains(omit, k) }
	if want("ended") {
		o.Str("ended", h.Ended)
	}
	if h.Totals != nil && want("totals") {
		o.Any("totals", h.Totals)
	}
	if h.CostUSD != nil && want("cost") {
		o.Float("cost", *h.CostUSD)
	}
	if h.Outcome != nil && want("outcome") {
		o.Any("outcome", h.Outcome)
	}
	var late Fields
	for _, f := range ownExtra(h.Extra) {
		if !extraKeys[f.Key] {
			late = append(late, f)
		}
	}
	if len(late) > 0 && want("extra") {
		o.Raw("extra", MustJSON(late))
	}
	if len(madeUp) > 0 {
		o.Strings("made_up", madeUp)
	}
	o.End()
	return b.Bytes()
}

// WithMember is the JSON object obj with the member key: value first, for
// a writer that adds a field of its own to a source object (the session's
// id, when the target could not keep it as the session's).
func WithMember(obj json.RawMessage, key string, value []byte) json.RawMessage {
	var b jsonw.Buffer
	b.WriteByte('{')
	jsonw.String(&b, key)
	b.WriteByte(':')
	b.Write(value)
	if rest := bytes.TrimSpace(obj[1:]); len(rest) > 0 && rest[0] != '}' {
		b.WriteByte(',')
	}
	b.Write(obj[1:])
	return b.Bytes()
}

// ApplySource sets on h what a source object (start or end) says, and
// takes out the values it names made up; it returns the object's fields,
// for a reader that reads some of them its own way.
func ApplySource(h *Header, raw []byte) (Fields, error) {
	f, err := ParseValidFields(raw)
	if err != nil {
		return nil, err
	}
	for _, fl := range f {
		s, isStr := jsonscan.String(fl.Value)
		switch fl.Key {
		case "id":
			if isStr && s != "" {
				h.ID = s
			}
		case "format":
			h.Origin = s
		case "version":
			h.OriginVersion = s
		case "agent":
			h.AgentName = s
		case "agent_version":
			h.AgentVersion = s
		case "started":
			h.Started = s
		case "ended":
			h.Ended = s
		case "model", "repo_sha", "branch", "cwd", "prompt":
			if isStr && s != "" {
				*headerString(h, fl.Key) = s
			}
		case "totals":
			var u Usage
			if json.Unmarshal(fl.Value, &u) == nil {
				h.Totals = &u
			}
		case "cost":
			if c, ok := jsonscan.Float(fl.Value); ok {
				h.CostUSD = &c
			}
		case "outcome":
			var out Outcome
			if json.Unmarshal(fl.Value, &out) == nil {
				h.Outcome = &out
			}
		case "extra":
			x, _ := ParseValidFields(fl.Value)
			for _, e := range x {
				h.Extra.Set(e.Key, e.Value)
			}
		}
	}
	Unmake(h, MadeUp(f))
	return f, nil
}

// MadeUp is the made_up list of a source object's fields.
func MadeUp(f Fields) []string {
	var names []string
	if v, ok := f.Get("made_up"); ok {
		json.Unmarshal(v, &names)
	}
	return names
}

// Unmake takes out of h the values a writer made up (see SourceEndOf).
func Unmake(h *Header, names []string) {
	for _, n := range names {
		switch n {
		case "id":
			h.ID = ""
		case "agent":
			h.AgentName = ""
		case "agent_version":
			h.AgentVersion = ""
		case "started":
			h.Started = ""
		case "totals":
			h.Totals = nil
		case "cost":
			h.CostUSD = nil
		case "outcome":
			h.Outcome = nil
		case "outcome.success":
			if h.Outcome != nil {
				h.Outcome.Success = nil
			}
		default:
			if k, ok := strings.CutPrefix(n, "extra."); ok {
				h.Extra.Delete(k)
			}
		}
	}
}

func headerString(h *Header, key string) *string {
	switch key {
	case "model":
		return &h.Model
	case "repo_sha":
		return &h.RepoSHA
	case "branch":
		return &h.Branch
	case "cwd":
		return &h.Cwd
	}
	return &h.Prompt
}

// ownExtra is extra without reader hints.
func ownExtra(extra Fields) Fields {
	var out Fields
	for _, f := range extra {
		if len(f.Key) > 0 && f.Key[0] != '_' {
			out = append(out, f)
		}
	}
	return out
}

// Describe is what a record of a format that has none for e's kind shows
// people, as rlog writes it: `@phase implement`, `init model=…`,
// `subagent Explore done: …`, `todos: [done] …`, `record queue-operation`,
// else e's text. The event itself comes back from its rest.
func Describe(e *Event) string {
	switch e.Kind {
	case KindLifecycle:
		return strings.TrimSpace("@" + e.Name + " " + e.Text)
	case KindInit:
		return "init model=" + e.Model
	case KindSubagent:
		if e.Subagent == nil {
			return "subagent"
		}
		return strings.TrimSpace("subagent " + e.Subagent.Type + " " + e.Subagent.Status + ": " + e.Subagent.Summary)
	case KindTodos:
		var items []string
		for _, t := range e.Todos {
			items = append(items, "["+t.Status+"] "+t.Content)
		}
		return "todos: " + strings.Join(items, " ")
	case KindPassthrough:
		return "record " + e.RawType
	}
	return e.Text
}
