package convert_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// A difference is one thing a round trip changed in the session model:
// the subject it changes (in the loss report's terms, see
// model.Loss.Subject), and an example to show.
type difference struct {
	subject string
	example string
}

// facts is what a session says, as values under subjects: the header's
// fields, each event's fields (the events of each kind in order), and the
// usage of each model message in order.
type facts struct {
	header map[string]string
	events map[model.Kind][]map[string]string
	usage  []string
}

// sessionFacts reads the facts of s. Values are normalized where formats
// may write one fact in several ways: timestamps as UTC instants, JSON
// compact with its keys sorted, an event's model as the header's when it
// names none, a message id made up by a reader as none.
func sessionFacts(s *convert.Session) facts {
	h := &s.Header
	f := facts{header: map[string]string{}, events: map[model.Kind][]map[string]string{}}
	set := func(m map[string]string, k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	for k, v := range map[string]string{
		"id": h.ID, "model": h.Model, "agent": h.AgentName, "agent_version": h.AgentVersion,
		"repo_sha": h.RepoSHA, "branch": h.Branch, "cwd": h.Cwd, "prompt": h.Prompt,
		"started": instant(h.Started), "ended": instant(h.Ended),
	} {
		set(f.header, "header."+k, v)
	}
	if h.Totals != nil && !h.Totals.IsZero() {
		set(f.header, "header.totals", fmt.Sprintf("%+v", *h.Totals))
	}
	if h.CostUSD != nil {
		set(f.header, "header.cost", strconv.FormatFloat(*h.CostUSD, 'g', -1, 64))
	}
	if o := h.Outcome; o != nil {
		if o.Success != nil {
			set(f.header, "header.outcome.success", strconv.FormatBool(*o.Success))
		}
		set(f.header, "header.outcome.duration", nonzero(o.DurationMS))
		set(f.header, "header.outcome.turns", nonzero(o.NumTurns))
		set(f.header, "header.outcome.result", o.ResultText)
		set(f.header, "header.outcome.errors", strings.Join(o.Errors, "\n"))
	}
	for _, x := range h.Extra {
		if !strings.HasPrefix(x.Key, "_") && !jsonscan.IsNull(bytes.TrimSpace(x.Value)) {
			set(f.header, "header.extra."+x.Key, canonical(x.Value))
		}
	}
	var order []string
	usage := map[string]model.Usage{}
	for i := range s.Events {
		e := &s.Events[i]
		m := map[string]string{}
		set(m, "text", e.Text)
		set(m, "time", instant(e.Time))
		set(m, "id", e.ID)
		set(m, "parent", e.ParentID)
		if !model.SyntheticMessageID(e.MessageID) {
			set(m, "message_id", e.MessageID)
		}
		if e.Model != "" && (e.Model != h.Model || e.Kind == model.KindInit) {
			// (An init event's model is what it says, even the header's.)
			set(m, "model", e.Model)
		}
		set(m, "signature", e.Signature)
		set(m, "name", e.Name)
		if c := e.Call; c != nil {
			set(m, "call.id", c.ID)
			set(m, "call.name", c.Name)
			if in := canonical(c.Input); in != "{}" {
				// No arguments, however a format says so.
				set(m, "call.input", in)
			}
		}
		if r := e.Result; r != nil {
			set(m, "result.call_id", r.CallID)
			if r.IsError {
				set(m, "result.is_error", "true")
			}
			set(m, "result.content", r.Content)
			set(m, "result.raw", canonical(r.ContentRaw))
			set(m, "result.status", r.Status)
		}
		if a := e.Subagent; a != nil {
			set(m, "subagent.id", a.ID)
			set(m, "subagent.agent_id", a.AgentID)
			set(m, "subagent.type", a.Type)
			set(m, "subagent.status", a.Status)
			set(m, "subagent.summary", a.Summary)
			set(m, "subagent.session_id", a.SessionID)
			set(m, "subagent.trajectory_path", a.TrajectoryPath)
		}
		if c := e.Compaction; c != nil {
			set(m, "compaction.trigger", c.Trigger)
			set(m, "compaction.pre_tokens", nonzero(c.PreTokens))
		}
		if len(e.Todos) > 0 {
			set(m, "todos", fmt.Sprintf("%+v", e.Todos))
		}
		set(m, "agent_id", e.AgentID)
		if e.Sidechain {
			set(m, "sidechain", "true")
		}
		if e.Meta {
			set(m, "meta", "true")
		}
		set(m, "step", nonzero(e.Step))
		set(m, "raw", canonical(e.Raw))
		set(m, "raw_type", e.RawType)
		set(m, "parts", canonical(e.Parts))
		for _, x := range e.Extra {
			if x.Key == "message.usage" && e.Usage != nil && isUsage(x.Value, *e.Usage) {
				continue // the event's usage, which every format keeps
			}
			if !strings.HasPrefix(x.Key, "_") && !jsonscan.IsNull(bytes.TrimSpace(x.Value)) {
				set(m, "extra."+x.Key, canonical(x.Value))
			}
		}
		set(m, "form.content", e.Form.Content)
		if e.Form.NoOutput {
			set(m, "form.no_output", "true")
		}
		if e.Form.Inline {
			set(m, "form.inline", "true")
		}
		set(m, "form.prefix", e.Form.Prefix)
		if e.Form.WholeInput {
			set(m, "form.whole_input", "true")
		}
		set(m, "form.keys", e.Form.Keys)
		f.events[e.Kind] = append(f.events[e.Kind], m)
		if e.Usage != nil && !e.Usage.IsZero() {
			id := e.MessageID
			if id == "" {
				id = "event " + strconv.Itoa(i)
			}
			if _, ok := usage[id]; !ok {
				order = append(order, id)
			}
			usage[id] = usage[id].Max(*e.Usage)
		}
	}
	for _, id := range order {
		f.usage = append(f.usage, fmt.Sprintf("%+v", usage[id]))
	}
	return f
}

// isUsage reports whether a raw Anthropic usage object is u's four
// counters and nothing else (a writer writes it back from u; see
// model.Report.DropExtras).
func isUsage(raw []byte, u model.Usage) bool {
	var counters map[string]int64
	if json.Unmarshal(raw, &counters) != nil || len(counters) != 4 {
		return false
	}
	return counters["input_tokens"] == u.Input && counters["output_tokens"] == u.Output &&
		counters["cache_read_input_tokens"] == u.CacheRead && counters["cache_creation_input_tokens"] == u.CacheCreate
}

// differences lists what b says differently from a: one entry per
// subject, with the first example.
func differences(a, b facts) []difference {
	seen := map[string]bool{}
	var out []difference
	add := func(subject, format string, args ...any) {
		if !seen[subject] {
			seen[subject] = true
			out = append(out, difference{subject, fmt.Sprintf(format, args...)})
		}
	}
	for _, k := range unionKeys(a.header, b.header) {
		if a.header[k] != b.header[k] {
			add(k, "%.80q became %.80q", a.header[k], b.header[k])
		}
	}
	var kinds []model.Kind
	for k := range a.events {
		kinds = append(kinds, k)
	}
	for k := range b.events {
		if _, ok := a.events[k]; !ok {
			kinds = append(kinds, k)
		}
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		ea, eb := a.events[k], b.events[k]
		if k == model.KindToolResult {
			// A result is the result of its call: formats that keep
			// results with their calls (ATIF) move them, and say so.
			ea, eb = byCall(ea, eb)
		}
		for i := range max(len(ea), len(eb)) {
			switch {
			case i >= len(eb):
				add(k.String(), "%d %s events became %d", len(ea), k, len(eb))
			case i >= len(ea):
				add(k.String(), "%d %s events became %d", len(ea), k, len(eb))
			default:
				for _, f := range unionKeys(ea[i], eb[i]) {
					if ea[i][f] != eb[i][f] {
						add(k.String()+"."+f, "%s event %d: %.80q became %.80q", k, i+1, ea[i][f], eb[i][f])
					}
				}
			}
		}
	}
	if !slices.Equal(a.usage, b.usage) {
		i := 0
		for i < min(len(a.usage), len(b.usage)) && a.usage[i] == b.usage[i] {
			i++
		}
		first := func(u []string) string {
			if i < len(u) {
				return u[i]
			}
			return "none"
		}
		add("usage", "%d messages' usage became %d, the first that differs (message %d): %s became %s", len(a.usage), len(b.usage), i+1, first(a.usage), first(b.usage))
	}
	return out
}

// byCall lines the results of b up with those of a by call id (the n-th
// result of a call with the n-th), the others after them in order.
func byCall(a, b []map[string]string) ([]map[string]string, []map[string]string) {
	key := func(list []map[string]string) []string {
		n := map[string]int{}
		var out []string
		for _, m := range list {
			id := m["result.call_id"]
			n[id]++
			out = append(out, id+"#"+strconv.Itoa(n[id]))
		}
		return out
	}
	ka, kb := key(a), key(b)
	at := map[string]int{}
	for i, k := range kb {
		at[k] = i
	}
	var outA, outB, restA []map[string]string
	used := make([]bool, len(b))
	for i, k := range ka {
		if j, ok := at[k]; ok {
			outA, outB = append(outA, a[i]), append(outB, b[j])
			used[j] = true
		} else {
			restA = append(restA, a[i])
		}
	}
	outA = append(outA, restA...)
	for j := range b {
		if !used[j] {
			outB = append(outB, b[j])
		}
	}
	return outA, outB
}

func unionKeys(a, b map[string]string) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// instant normalizes a timestamp to its instant in UTC; a value that is
// not a timestamp stays as it is.
func instant(s string) string {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC().Format(time.RFC3339Nano)
		}
	}
	return s
}

// canonical is JSON compact with its object keys sorted; other bytes as
// they are.
func canonical(b []byte) string {
	if len(bytes.TrimSpace(b)) == 0 {
		return ""
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return string(b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

func nonzero(n int64) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}

// uncovered are the differences no entry of the reports names.
func uncovered(diffs []difference, reps ...*convert.Report) []difference {
	var out []difference
	for _, d := range diffs {
		covered := false
		for _, r := range reps {
			if r.Covers(d.subject) {
				covered = true
			}
		}
		if !covered {
			out = append(out, d)
		}
	}
	return out
}

// roundTripName names a round trip in messages.
func roundTripName(in input, via convert.Format) string {
	name := filepath.Base(in.path)
	if fi, _ := convert.Lookup(in.format); fi.CanWrite() {
		return fmt.Sprintf("%s: %s -> %s -> %s", name, in.format, via, in.format)
	}
	return fmt.Sprintf("%s: %s -> %s", name, in.format, via)
}
