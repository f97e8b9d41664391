// Package atif reads and writes ATIF, the Agent Trajectory Interchange
// Format (Harbor RFC 0001; docs/conversions.md#atif-atif-atif-jsonl): v1.0 to v1.7 documents, the
// streaming ATIF-JSONL variant (a `__header__` line, then one step per
// line), and the non-conformant "ATIF-ish" files seen in the wild. It also
// validates documents with Harbor's rules (Validate, ValidateJSONL).
package atif

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/rlog-ls/rlog-ls/convert/internal/strblock"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// Format names used by the CLI.
const (
	Name      = "atif"
	NameJSONL = "atif-jsonl"
)

// Read reads one ATIF document, one step at a time. Root fields after the
// steps (final_metrics, extra) complete the header by the time the sink's
// End is called.
func Read(r io.Reader, sink model.Sink, rep *model.Report) error {
	h := &model.Header{SourceFormat: Name}
	st := newReader(h, sink, rep)
	return model.Document{
		Format: "atif",
		List:   "steps",
		Elem:   func(i int, b []byte, loc model.Loc) error { return st.step(b, true, loc) },
		Root:   func(key string, v json.RawMessage) { rootField(h, key, v) },
		Index:  &st.ix,
	}.ReadTo(r, rep, sink, h)
}

// ReadJSONL streams an ATIF-JSONL file.
func ReadJSONL(r io.Reader, sink model.Sink, rep *model.Report) error {
	h := &model.Header{SourceFormat: NameJSONL}
	st := newReader(h, sink, rep)
	first := true
	err := model.Lines(r, rep, func(line []byte, n int) error {
		if first {
			first = false
			f, err := model.ParseFields(line)
			if err == nil && f != nil {
				if _, ok := f.Get("__header__"); ok {
					rep.InvalidUTF8(line, model.Loc{Line: n})
					for _, fl := range f {
						switch fl.Key {
						case "__header__":
						case "created_at":
							h.Started, _ = jsonscan.String(fl.Value)
						default:
							rootField(h, fl.Key, fl.Value)
						}
					}
					return nil
				}
			}
			rep.Add(model.LossMalformed, "first line is not a __header__ record", model.Loc{Line: n})
		}
		return st.step(line, false, model.Loc{Line: n})
	})
	if err != nil {
		return err
	}
	return sink.End(h)
}

// headerKeys are the header fields the writer keeps in root extra (or,
// when they are learned after the steps, in final_metrics.extra); reading
// puts them back.
var headerKeys = map[string]bool{"repo_sha": true, "branch": true, "cwd": true, "prompt": true, "started_at": true, "ended_at": true, "outcome": true}

// rootField puts one root field of the document (or the JSONL header) in
// the header.
func rootField(h *model.Header, key string, v json.RawMessage) {
	switch key {
	case "schema_version":
		h.SourceVersion, _ = jsonscan.String(v)
	case "session_id":
		h.ID, _ = jsonscan.String(v)
	case "agent":
		af, _ := model.ParseValidFields(v)
		h.AgentName, _ = af.String("name")
		h.AgentVersion, _ = af.String("version")
		h.Model, _ = af.String("model_name")
		modelKey := "model_name"
		if h.Model == "" {
			// Non-conformant files say agent.model.
			h.Model, _ = af.String("model")
			modelKey = "model"
		}
		for _, f := range af {
			switch f.Key {
			case "name", "version", modelKey:
			default:
				h.Extra.Set("agent."+f.Key, f.Value)
			}
		}
	case "final_metrics":
		if jsonscan.IsNull(v) {
			return
		}
		f, _ := model.ParseValidFields(v)
		prompt, hasPrompt := intOf(f, "total_prompt_tokens")
		out, hasOut := intOf(f, "total_completion_tokens")
		cached, _ := intOf(f, "total_cached_tokens")
		var create int64
		summed := false
		if x, ok := f.Get("extra"); ok {
			xf, _ := model.ParseValidFields(x)
			create, _ = intOf(xf, "cache_creation_input_tokens")
			var rest model.Fields
			for _, fl := range xf {
				switch {
				case fl.Key == "cache_creation_input_tokens":
				case fl.Key == "made_up":
					// This package's writer's sum of the steps: not
					// totals the source stated.
					summed = bytes.Contains(fl.Value, []byte(`"totals"`))
				case headerKeys[fl.Key] || fl.Key == "source_format" || fl.Key == "source_version":
					headerExtra(h, fl)
				default:
					rest = append(rest, fl)
				}
			}
			if len(rest) > 0 {
				h.Extra.Set("final_metrics.extra", model.MustJSON(rest))
			}
		}
		if (hasPrompt || hasOut) && !summed {
			h.Totals = &model.Usage{Input: max(prompt-cached-create, 0), Output: out, CacheRead: cached, CacheCreate: create}
		}
		h.TotalsKeys = presentKeys(f, "total_prompt_tokens", "total_completion_tokens", "total_cached_tokens")
		if c, ok := f.Get("total_cost_usd"); ok {
			if v, ok := jsonscan.Float(c); ok {
				h.CostUSD = &v
			}
		}
		for _, fl := range f {
			switch fl.Key {
			case "total_prompt_tokens", "total_completion_tokens", "total_cached_tokens", "total_cost_usd", "extra":
			case "total_steps":
				if h.Origin == "" || h.Origin == Name || h.Origin == NameJSONL {
					// Written from another format, it counts the steps
					// written: nothing of the session's.
					h.Extra.Set("final_metrics."+fl.Key, fl.Value)
				}
			default:
				h.Extra.Set("final_metrics."+fl.Key, fl.Value)
			}
		}
	case "extra":
		xf, err := model.ParseValidFields(v)
		if err != nil {
			h.Extra.Set("atif.extra", v)
		}
		for _, f := range xf {
			headerExtra(h, f)
		}
	default:
		h.Extra.Set("atif."+key, v)
	}
}

// headerExtra puts one field of root extra in the header: the writer's
// header fields where they belong, anything else as a header extra.
func headerExtra(h *model.Header, f model.Field) {
	s, isStr := jsonscan.String(f.Value)
	switch {
	case f.Key == "repo_sha" && isStr:
		h.RepoSHA = s
	case f.Key == "branch" && isStr:
		h.Branch = s
	case f.Key == "cwd" && isStr:
		h.Cwd = s
	case f.Key == "prompt" && isStr:
		h.Prompt = s
	case f.Key == "started_at" && isStr:
		h.Started = s
	case f.Key == "ended_at" && isStr:
		h.Ended = s
	case f.Key == "source_format" && isStr:
		// Written by this package's writer from another format.
		h.Origin = s
	case f.Key == "source_version" && isStr:
		h.OriginVersion = s
	case f.Key == "made_up":
		// Required values this package's writer made up: not the
		// source's.
		var names []string
		json.Unmarshal(f.Value, &names)
		model.Unmake(h, names)
	case f.Key == "outcome":
		var out model.Outcome
		if json.Unmarshal(f.Value, &out) == nil {
			h.Outcome = &out
		} else {
			h.Extra.Set(f.Key, f.Value)
		}
	default:
		h.Extra.Set(f.Key, f.Value)
	}
}

func intOf(f model.Fields, key string) (int64, bool) {
	v, ok := f.Get(key)
	if !ok || jsonscan.IsNull(v) {
		return 0, false
	}
	return jsonscan.Int(v)
}

// intValue is intOf's number of a member's value v, 0 when it has none.
func intValue(v []byte) int64 {
	if jsonscan.IsNull(v) {
		return 0
	}
	n, _ := jsonscan.Int(v)
	return n
}

type reader struct {
	h    *model.Header
	sink model.Sink
	rep  *model.Report
	// ix indexes the step being read (model.ParseRecord), so that its
	// message, metrics, tool calls and observation are each listed
	// without passing over what is nested in them again (model.ParseIn).
	ix jsonscan.Index
	// Room for the lists a step is read with and does not keep (what the
	// events keep of them is copied): the step itself, its metrics, a
	// tool call, its observation, a result of it and the result's extra,
	// and the members of a rest. Each is the room of one list at a time.
	record, metrics, call, obs, result, resultExtra model.Scratch
	restMembers                                     []jsonscan.Span
	// extra is room for the step's extra (parseStep), which its first
	// event keeps: nearly always empty once its rests are taken out, it
	// is made a list of its own only when it is not (ownExtra).
	extra model.Scratch
	// calls and results are the step's tool calls and its observation's
	// results (step), room kept for the next step's when not larger than
	// maxListed.
	calls, results [][]byte
	// strs is where the strings of the steps' values that the events
	// keep are made (the index's String, MakeStrings), many to an
	// allocation; ids is where those a consumer may keep after their
	// event are (the times, models, message and call ids: the index's
	// ID, MakeIDs; the made-up message ids), so that an id a writer keeps
	// (its recent call ids) keeps a block of ids alive, not one of texts.
	strs, ids strblock.Room
	// borrows says the sink borrows events (model.BorrowsEvents): a step's
	// events and its calls and results are then made in events and pairs,
	// the room of the step before, emptied (eventsFor, pairsFor), not in
	// new slices each step.
	borrows bool
	events  []model.Event
	pairs   []callResult
}

// newReader is a reader of one file's steps, for sink.
func newReader(h *model.Header, sink model.Sink, rep *model.Report) *reader {
	st := &reader{h: h, sink: sink, rep: rep, strs: strblock.New(stringBlock, maxBlockString), ids: strblock.New(idBlock, maxBlockID), borrows: model.BorrowsEvents(sink)}
	st.ix.MakeStrings(&st.strs)
	st.ix.MakeIDs(&st.ids)
	return st
}

// stringBlock is the size of the blocks a reader makes its strings in,
// and maxBlockString the longest string made in one: a longer one (a
// long tool output) is an allocation of its own, so that a block is
// mostly filled before the next is made.
const (
	stringBlock    = 16 << 10
	maxBlockString = 1 << 10
)

// idBlock and maxBlockID are stringBlock and maxBlockString for the ids
// and times: a block of about a hundred, as the rlog reader's.
const (
	idBlock    = 2 << 10
	maxBlockID = 64
)

// maxListed bounds the room of a step's list of calls or results that a
// reader keeps for the next step.
const maxListed = 64

// emptied is a step's list of calls or results made empty for the next
// step's: its room kept when it is not larger than maxListed, with no
// view left in it (a view kept there would keep its step's bytes, a
// line's buffer or the document, until the read ends).
func emptied(list [][]byte) [][]byte {
	if len(list) > maxListed {
		return nil
	}
	if len(list) == 1 {
		// Most steps' one call, or one result: clear's call costs more
		// than the store (0.3M instructions a read of the generated
		// 1 MB session).
		list[0] = nil
	} else {
		clear(list)
	}
	return list[:0]
}

// eventsFor is room for a step's n events (and more, appended): a new
// slice, or, for a sink that borrows events, the room the step before
// had, every event in it zeroed, so that nothing of the events before is
// left in it or kept alive by it.
func (st *reader) eventsFor(n int) []model.Event {
	if !st.borrows || cap(st.events) < n {
		return make([]model.Event, 0, n)
	}
	clear(st.events)
	return st.events[:0]
}

// pairsFor is room for a step's k calls and results, zeroed: a new slice,
// or, for a sink that borrows events, the room the step before had.
func (st *reader) pairsFor(k int) []callResult {
	if !st.borrows || cap(st.pairs) < k {
		p := make([]callResult, k)
		if st.borrows && k <= maxListed {
			st.pairs = p[:cap(p)]
		}
		return p
	}
	clear(st.pairs)
	return st.pairs[:k]
}

// keepRoom keeps the room of events, a step's, for the next step's
// (eventsFor) when the sink borrows events and it is not larger than
// maxListed. All of it, not only its length: events a step's rests
// dropped may lie past the length.
func (st *reader) keepRoom(events []model.Event) {
	if st.borrows && cap(events) <= maxListed {
		st.events = events[:cap(events)]
	}
}

// callResult is a tool call and a tool result: a step's calls and results
// are made in one slice of them (step), not one allocation each.
type callResult struct {
	call   model.ToolCall
	result model.ToolResult
}

func (st *reader) emit(e *model.Event) error {
	st.rep.Events++
	return st.sink.Event(st.h, e)
}

// partsText renders a v1.6 content-part list as text: text parts as they
// are, images as `[image <path>]`.
func partsText(b []byte) string {
	var parts []string
	jsonscan.Array(b, func(i int, v []byte) error {
		// Parts are only decoded: no need to copy their values.
		f, err := model.ParseValidFieldsView(v)
		if err != nil {
			return nil
		}
		switch typ, _ := f.String("type"); typ {
		case "text":
			s, _ := f.String("text")
			parts = append(parts, s)
		case "image":
			src, _ := f.Get("source")
			sf, _ := model.ParseValidFields(src)
			p, _ := sf.String("path")
			parts = append(parts, "[image "+p+"]")
		default:
			parts = append(parts, "["+typ+"]")
		}
		return nil
	})
	return strings.Join(parts, "\n")
}

// text returns a message or content value as text and, when it was not a
// plain string, the value itself, copied; a value of the step st.ix
// indexed is decoded and copied without checking its UTF-8 again.
func (st *reader) text(v []byte) (string, []byte) {
	if s, ok := st.ix.String(v); ok {
		return s, nil
	}
	if len(v) == 0 || jsonscan.IsNull(v) {
		return "", nil
	}
	v = st.ix.Copy(v)
	if v[0] == '[' {
		return partsText(v), v
	}
	// Non-conformant files put objects here.
	return string(v), v
}

// step reads one step; validated says b is part of a document validated
// already.
func (st *reader) step(b []byte, validated bool, loc model.Loc) error {
	// When b is valid UTF-8, every value is byte for byte what copying it
	// would give, so the values stay in b and the reader copies those it
	// keeps (with jsonscan.Copy); a step's text is mostly decoded, not
	// kept. Otherwise they are copied, and re-encoded where invalid, as
	// ParseFields does. The index checks b once, for the rests too.
	f, err := st.record.ParseRecord(&st.ix, b, false, validated)
	var valid bool
	if f != nil {
		valid = st.ix.InputValidUTF8()
		if !valid {
			f.CopyValues()
		}
	} else {
		valid = utf8.Valid(b)
	}
	if !validated && !valid && (err == nil || errors.Is(err, model.ErrNotObject)) {
		// A JSONL line of valid JSON (Document reports a document's
		// steps).
		st.rep.InvalidUTF8(b, loc)
	}
	if err != nil || f == nil {
		if err == nil {
			err = errors.New("null step")
		}
		st.rep.Add(model.LossMalformed, "step is not a JSON object: "+err.Error(), loc)
		return nil
	}
	// Filled where it stands: a stepParts (an event and more) is large
	// to copy out of a call.
	var sp stepParts
	st.parseStep(&sp, f, loc)
	// The step's tool calls and its observation's results are listed
	// first, so that its events are made in one slice of their number
	// (not grown as they come), and its calls and results in one more.
	obs, hasObs := f.Get("observation")
	hasObs = hasObs && !jsonscan.IsNull(obs)
	n, of, obsErr := st.list(f, &sp, obs, hasObs, valid)
	var pairs []callResult
	if k := max(len(st.calls), len(st.results)); k > 0 {
		pairs = st.pairsFor(k)
	}
	events := st.eventsFor(n)
	switch sp.source {
	case "agent":
		events = st.agentEvents(events, f, &sp, pairs)
	case "user":
		ev := sp.base
		ev.Kind = model.KindUser
		ev.Text, ev.Parts = sp.text, sp.parts
		events = append(events, ev)
	default:
		events = append(events, st.systemEvent(&sp))
	}
	if hasObs {
		events = st.observation(events, obs, of, obsErr, pairs, valid, sp.base, loc)
	}
	st.calls, st.results = emptied(st.calls), emptied(st.results)
	restoreOrphanID(events, &sp.extra)
	markToolStatuses(events, &sp.extra)
	markToolErrors(events, &sp.extra)
	restoreCallIDs(events, &sp.extra)
	if sp.hasRests {
		events = st.applyRests(events, sp.rests, &sp)
	}
	if len(events) == 0 {
		return nil
	}
	events[0].Extra = st.ownExtra(sp.extra, events[0].Extra)
	st.keepRoom(events)
	for i := range events {
		if err := st.emit(&events[i]); err != nil {
			return err
		}
	}
	return nil
}

// ownExtra is append(x, more...) for x, a step's extra listed in the
// reader's room with its values views of the step (parseStep), on a list
// of its own with x's values copied (st.ix.Copy, as the list's values
// were copied when it was made; those that the step's reading deletes,
// as a system step's event and name, are not): nil stays nil, and an
// empty list stays an empty list, on no allocation when more is empty
// too.
func (st *reader) ownExtra(x, more model.Fields) model.Fields {
	if len(x) == 0 && len(more) == 0 {
		if x == nil {
			return nil
		}
		return model.Fields{} // not x[:0:0], which would keep the room
	}
	out := make(model.Fields, len(x), len(x)+len(more))
	for i, fl := range x {
		out[i] = model.Field{Key: fl.Key, Value: st.ix.Copy(fl.Value)}
	}
	return append(out, more...)
}

// list lists step f's tool calls (an agent step's) in st.calls and the
// results of its observation obs (hasObs: it has one) in st.results,
// and returns how many events the step makes of its own fields (a user
// or system step's own, an agent step's reasoning, message and calls or
// the one event it has, each result), with the observation's list and
// its error (ParseIn reports nothing: step reports its losses where it
// reads it).
func (st *reader) list(f model.Fields, sp *stepParts, obs []byte, hasObs, valid bool) (int, model.Fields, error) {
	st.calls, st.results = st.calls[:0], st.results[:0]
	n := 1
	if sp.source == "agent" {
		if tc, ok := f.Get("tool_calls"); ok && len(tc) > 0 && tc[0] == '[' {
			st.ix.Array(tc, func(_ int, v []byte) error {
				st.calls = append(st.calls, v)
				return nil
			})
		}
		n = len(st.calls)
		if rc, ok := f.Get("reasoning_content"); ok && string(rc) != `""` {
			n++
		}
		if sp.text != "" || sp.parts != nil {
			n++
		}
		n = max(n, 1)
	}
	if !hasObs {
		return n, nil, nil
	}
	of, err := st.obs.ParseIn(&st.ix, obs, !valid)
	if res, ok := of.Get("results"); ok {
		st.ix.Array(res, func(_ int, v []byte) error {
			st.results = append(st.results, v)
			return nil
		})
	}
	return n + max(len(st.results), 1), of, err
}

// stepParts is what every step has: the base of its events, its source,
// message and extra (with the fields this reader has no place for).
type stepParts struct {
	base      model.Event
	source    string
	msgID     string
	signature string
	text      string
	parts     json.RawMessage
	extra     model.Fields
	// rests is extra.rests (hasRests: it has one), the step's own bytes
	// (read, not kept).
	rests    []byte
	hasRests bool
}

// parseStep fills sp, a zero stepParts, with what step f has.
func (st *reader) parseStep(sp *stepParts, f model.Fields, loc model.Loc) {
	stepN, _ := intOf(f, "step_id")
	ts, _ := f.IDIn(&st.ix, "timestamp")
	modelName, _ := f.IDIn(&st.ix, "model_name")
	// The step's id, step-N, and the message id made up of it, one
	// string: the id is its end.
	var idBuf [32]byte
	msgID := st.ids.Of(strconv.AppendInt(append(idBuf[:0], model.SyntheticMessagePrefix+"step-"...), stepN, 10))
	id := msgID[len(model.SyntheticMessagePrefix):]
	sp.base.Time, sp.base.Step, sp.base.ID, sp.base.Model, sp.base.Loc = ts, stepN, id, modelName, loc
	sp.msgID = msgID
	sp.source = sourceOf(f)
	if x, ok := f.Get("extra"); ok {
		// The rests are read where they are, not kept; the rest of the
		// extra is the events', listed in the reader's room and copied
		// when the step's reading has taken out what it reads
		// (ownExtra).
		sp.extra, _ = st.extra.ParseIn(&st.ix, x, false)
		sp.rests, sp.hasRests = sp.extra.Get("rests")
		sp.extra.Delete("rests")
		if s, ok := sp.extra.StringIn(&st.ix, "signature"); ok {
			sp.signature = s
			sp.extra.Delete("signature")
		}
		// The source's message id, which this package's writer keeps.
		if s, ok := sp.extra.IDIn(&st.ix, "message_id"); ok && s != "" {
			sp.msgID = s
			sp.extra.Delete("message_id")
		}
	}
	for _, fl := range f {
		if !mappedStepKey(fl.Key) {
			sp.extra.Set("atif."+fl.Key, fl.Value) // copied with the extra (ownExtra)
		}
	}
	if m, ok := f.Get("message"); ok {
		sp.text, sp.parts = st.text(m)
	}
}

// sourceOf is the step's source, as f.String("source") gives it: one of
// ATIF's three without a string made of its bytes each step.
func sourceOf(f model.Fields) string {
	v, _ := f.Get("source")
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		// A list's values are exact, quotes first and last (StringIn).
		v = bytes.TrimSpace(v)
	}
	switch string(v) {
	case `"agent"`:
		return "agent"
	case `"user"`:
		return "user"
	case `"system"`:
		return "system"
	}
	s, _ := f.String("source")
	return s
}

// agentEvents appends an agent step's events to events: reasoning,
// message and tool calls, all of one response, with the step's metrics as
// its usage.
func (st *reader) agentEvents(events []model.Event, f model.Fields, sp *stepParts, pairs []callResult) []model.Event {
	base := sp.base
	if m, ok := f.Get("metrics"); ok && !jsonscan.IsNull(m) {
		st.metricsOf(&base, m, sp)
	}
	base.MessageID = sp.msgID
	n := len(events)
	if rc, ok := f.StringIn(&st.ix, "reasoning_content"); ok && rc != "" {
		ev := base
		ev.Kind = model.KindThinking
		ev.Text = rc
		ev.Signature = sp.signature
		events = append(events, ev)
	}
	if sp.text != "" || sp.parts != nil {
		ev := base
		ev.Kind = model.KindAgent
		ev.Text, ev.Parts = sp.text, sp.parts
		events = append(events, ev)
	}
	// The step's calls, listed by step.
	for i, v := range st.calls {
		// A view: what the event keeps of it is copied.
		cf, err := st.call.ParseIn(&st.ix, v, false)
		if err != nil || cf == nil {
			st.rep.Add(model.LossMalformed, "tool call is not an object", model.Loc{Line: base.Loc.Line, Path: fmt.Sprintf("%s.tool_calls[%d]", base.Loc.Path, i)})
			continue
		}
		ev := base
		ev.Kind = model.KindToolCall
		c := &pairs[i].call
		c.ID, _ = cf.IDIn(&st.ix, "tool_call_id")
		c.Name, _ = cf.StringIn(&st.ix, "function_name")
		if a, ok := cf.Get("arguments"); ok {
			c.Input = st.ix.Copy(a)
		}
		if x, ok := cf.Get("extra"); ok {
			ev.Extra.Set("tool_call.extra", st.ix.Copy(x))
		}
		ev.Call = c
		events = append(events, ev)
	}
	if len(events) == n {
		// An agent step with an empty message and nothing else.
		ev := base
		ev.Kind = model.KindAgent
		events = append(events, ev)
	}
	return events
}

// metricsOf gives base, the base of an agent step's events, the step's
// metrics m as its usage, and puts what the usage does not hold in the
// step's extra.
func (st *reader) metricsOf(base *model.Event, m []byte, sp *stepParts) {
	// A view: the counts are read, what the events keep of it is
	// copied (as the list would have copied it).
	mf, _ := st.metrics.ParseIn(&st.ix, m, false)
	// The counts, as intOf reads each (the first member of its key),
	// in one walk.
	var prompt, out, cached int64
	var x []byte
	var seen uint8
	for i := range mf {
		switch fl := &mf[i]; fl.Key {
		case "prompt_tokens":
			if seen&1 == 0 {
				seen |= 1
				prompt = intValue(fl.Value)
			}
		case "completion_tokens":
			if seen&2 == 0 {
				seen |= 2
				out = intValue(fl.Value)
			}
		case "cached_tokens":
			if seen&4 == 0 {
				seen |= 4
				cached = intValue(fl.Value)
			}
		case "extra":
			if seen&8 == 0 {
				seen |= 8
				x = st.ix.Copy(fl.Value)
			}
		}
	}
	var create int64
	var xf model.Fields
	if seen&8 != 0 {
		xf, _ = model.ParseValidFields(x)
		create, _ = intOf(xf, "cache_creation_input_tokens")
		// The usage holds it; the writer writes it back from there.
		xf.Delete("cache_creation_input_tokens")
	}
	base.Usage = &model.Usage{Input: max(prompt-cached-create, 0), Output: out, CacheRead: cached, CacheCreate: create}
	if st.h.Origin == "" {
		base.Form.Keys = presentKeys(mf, "prompt_tokens", "completion_tokens", "cached_tokens")
	}
	for _, fl := range mf {
		switch fl.Key {
		case "prompt_tokens", "completion_tokens", "cached_tokens":
		case "extra":
			if len(xf) > 0 {
				sp.extra.Set("metrics.extra", model.MustJSON(xf))
			}
		default:
			sp.extra.Set("metrics."+fl.Key, fl.Value) // copied with the extra (ownExtra)
		}
	}
}

// systemEvent is a system step's event: a compaction when its extra says
// so, else a system message.
func (st *reader) systemEvent(sp *stepParts) model.Event {
	ev := sp.base
	ev.Kind = model.KindSystem
	ev.Text, ev.Parts = sp.text, sp.parts
	if sp.source != "system" {
		ev.Name = sp.source
		st.rep.Add(model.LossMalformed, fmt.Sprintf("step source %q (expected system, user or agent)", sp.source), sp.base.Loc)
	}
	if cm, ok := sp.extra.Get("context_management"); ok {
		cf, _ := model.ParseValidFields(cm)
		if t, _ := cf.String("type"); t == "compaction" {
			ev.Kind = model.KindCompaction
			ev.Compaction = &model.Compaction{}
		}
	}
	return ev
}

// applyRests gives the step's events what this package's writer kept of
// them in extra.rests (model.RestOf; see writeRests): a system or user
// step's first element is its own event's (null: the step has none), the
// others go to the events of their kind in order, and an event the step's
// fields could not hold (a second text of one response) comes back from
// its rest alone. The step's id and number are not the events' then.
func (st *reader) applyRests(events []model.Event, raw []byte, sp *stepParts) []model.Event {
	list, err := model.RestListAt(raw)
	if err != nil {
		st.rep.Add(model.LossMalformed, "step extra.rests is not a list", sp.base.Loc)
		return events
	}
	// The step's extra describes the step for people: the rests say it
	// all (a system step's event, its todos), but for the record it passes
	// through.
	record, _ := sp.extra.Get("record")
	if sp.source != "agent" {
		for _, k := range []string{"event", "model", "name", "subagent", "context_management", "record_type", "record", "todos"} {
			sp.extra.Delete(k)
		}
	}
	for i := range events {
		events[i].ID, events[i].Step = "", 0
	}
	if sp.source != "agent" && len(record) > 0 && len(events) > 0 {
		events[0].Raw = jsonscan.Copy(record)
	}
	if sp.source != "agent" && len(events) > 0 {
		events[0].Name = "" // the step's source, not the event's
	}
	base := sp.base
	base.ID, base.Step, base.Text, base.MessageID = "", 0, "", sp.msgID
	if sp.source == "agent" && len(events) > 0 {
		// An event that comes back from its rest alone (a second text of
		// the response) is of the step's response as those made of the
		// step's fields are: the step's metrics are its usage unless its
		// rest says another, as the writer writes it (writeRests).
		base.Usage = events[0].Usage
	}
	return model.ApplyRestListIn(&st.ix, events, list, sp.source != "agent", base, func(err error) {
		st.rep.Add(model.LossMalformed, "step extra.rests: "+err.Error(), sp.base.Loc)
	}, &st.restMembers)
}

// restoreOrphanID gives a result without source_call_id on a system step
// the id this package's writer kept in extra.orphan_call_id (Harbor would
// reject it as source_call_id: its call is not in the step).
func restoreOrphanID(events []model.Event, extra *model.Fields) {
	id, ok := extra.String("orphan_call_id")
	if !ok || id == "" {
		return
	}
	for i := range events {
		if r := events[i].Result; r != nil && r.CallID == "" {
			r.CallID = id
			extra.Delete("orphan_call_id")
			return
		}
	}
}

// markToolStatuses reads extra.tool_statuses ({call id: status}), where
// this package's writer keeps before v1.7 the statuses that are neither ok
// nor error (rlog's `[2 issues]`).
func markToolStatuses(events []model.Event, extra *model.Fields) {
	v, ok := extra.Get("tool_statuses")
	if !ok {
		return
	}
	st, err := model.ParseValidFields(v)
	if err != nil {
		return
	}
	for i := range events {
		if r := events[i].Result; r != nil {
			if s, ok := st.String(r.CallID); ok && s != "" {
				r.Status = s
			}
		}
	}
	extra.Delete("tool_statuses")
}

// markToolErrors reads extra.tool_errors, which this package's writer
// uses before v1.7 (a result has no extra to carry is_error there).
func markToolErrors(events []model.Event, extra *model.Fields) {
	te, ok := extra.Get("tool_errors")
	if !ok {
		return
	}
	var room [8]string
	ids, ok := toolErrorIDs(te, room[:0])
	if !ok {
		return
	}
	for i := range events {
		if r := events[i].Result; r != nil && slices.Contains(ids, r.CallID) {
			r.IsError = true
		}
	}
	extra.Delete("tool_errors")
}

// errNotString stops toolErrorIDs' walk at an element that is not a
// string.
var errNotString = errors.New("not a string")

// toolErrorIDs is json.Unmarshal of te, a valid JSON value, into a list
// of strings: the list, and whether te is one. A list of strings (what
// this package's writer writes) is decoded by the member scanner, which
// decodes a string as encoding/json does, without the reflection, into
// room; anything else (null, a list of something else, not a list) goes
// through json.Unmarshal. FuzzToolErrorIDs holds the two equal.
//
// The ids are only compared: an id that needs no decoding (no escape,
// valid UTF-8) is te's own bytes, not a copy, and so valid while te is.
func toolErrorIDs(te []byte, room []string) ([]string, bool) {
	ids := room
	err := jsonscan.Array(te, func(_ int, v []byte) error {
		if n := len(v); n >= 2 && v[0] == '"' && bytes.IndexByte(v, '\\') < 0 && utf8.Valid(v) {
			ids = append(ids, unsafe.String(&v[1], n-2))
			return nil
		}
		s, ok := jsonscan.String(v)
		if !ok {
			return errNotString
		}
		ids = append(ids, s)
		return nil
	})
	if err == nil {
		return ids, true
	}
	// A list of its own: ids, given to json.Unmarshal, would be on the
	// heap in the fast path too.
	var all []string
	return all, json.Unmarshal(te, &all) == nil
}

// restoreCallIDs turns the ids this package's writer made unique in a
// step (<id>#n, listed in extra.original_call_ids) back into the source's.
func restoreCallIDs(events []model.Event, extra *model.Fields) {
	v, ok := extra.Get("original_call_ids")
	if !ok {
		return
	}
	orig, _ := model.ParseValidFields(v)
	for i := range events {
		if c := events[i].Call; c != nil {
			if o, ok := orig.String(c.ID); ok {
				c.ID = o
			}
		}
		if r := events[i].Result; r != nil {
			if o, ok := orig.String(r.CallID); ok {
				r.CallID = o
			}
		}
	}
	extra.Delete("original_call_ids")
}

// observation appends the events of a step's observation obs to events
// (the step's events before it: one slice, not a slice of its own
// appended after): of and err are its list (ParseIn, as step made it),
// its results are st.results, each made in pairs; validUTF8 says the
// step is valid UTF-8 (read in place, as step says).
func (st *reader) observation(events []model.Event, obs []byte, of model.Fields, err error, pairs []callResult, validUTF8 bool, base model.Event, loc model.Loc) []model.Event {
	base.Usage = nil
	base.MessageID = ""
	base.Form = model.Form{}
	if err != nil || of == nil {
		st.rep.Add(model.LossMalformed, "observation is not an object", loc)
		return events
	}
	if _, ok := of.Get("results"); !ok {
		// Non-conformant: {type, content, result} instead of results[].
		ev := base
		ev.Kind = model.KindToolResult
		r := &model.ToolResult{}
		if c, ok := of.Get("content"); ok {
			r.Content, r.ContentRaw = st.text(c)
		}
		if x, ok := of.Get("result"); ok {
			rf, _ := model.ParseIn(&st.ix, x, true)
			if s, ok := rf.Get("success"); ok {
				b, _ := jsonscan.Bool(s)
				r.IsError = !b
			}
		}
		ev.Result = r
		ev.Extra.Set("atif.observation", st.ix.Copy(obs))
		st.rep.Add(model.LossMalformed, "observation without results[] (non-conformant ATIF)", loc)
		return append(events, ev)
	}
	// Its results, listed by step.
	for i, v := range st.results {
		rf, err := st.result.ParseIn(&st.ix, v, !validUTF8)
		if err != nil || rf == nil {
			st.rep.Add(model.LossMalformed, "observation result is not an object", loc)
			continue
		}
		ev := base
		ev.Kind = model.KindToolResult
		r := &pairs[i].result
		r.CallID, _ = rf.IDIn(&st.ix, "source_call_id")
		if c, ok := rf.Get("content"); ok {
			r.Content, r.ContentRaw = st.text(c)
		}
		if x, ok := rf.Get("extra"); ok {
			xf, _ := st.resultExtra.ParseIn(&st.ix, x, true)
			if s, ok := xf.String("status"); ok && s != "" {
				// This package's writer's status (v1.7), neither ok nor
				// error.
				r.Status = s
				xf.Delete("status")
			}
			if e, ok := xf.Get("is_error"); ok {
				r.IsError, _ = jsonscan.Bool(e)
				if r.IsError {
					// The writer writes it back from IsError; a false one
					// stays in the extra as it was.
					xf.Delete("is_error")
				}
			}
			if len(xf) > 0 {
				ev.Extra.Set("result.extra", model.MustJSON(xf))
			}
		}
		if refs, ok := rf.Get("subagent_trajectory_ref"); ok && !jsonscan.IsNull(refs) {
			ev.Extra.Set("subagent_trajectory_ref", st.ix.Copy(refs))
		}
		ev.Result = r
		events = append(events, ev)
	}
	return events
}

// presentKeys lists which of keys f has, so that writing the same format
// back does not add counters the source left out.
// It is "," when f has none of them ("" would mean "not recorded").
func presentKeys(f model.Fields, keys ...string) string {
	var out []string
	for _, k := range keys {
		if _, ok := f.Get(k); ok {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		return ","
	}
	return strings.Join(out, ",")
}
