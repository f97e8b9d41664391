// Package replay reads, writes and validates REPLAY.jsonl v1, the canonical
// `event`-tagged replay log of OpenAgents (crates/dsrs/docs/REPLAY.md in
// OpenAgentsInc/openagents): one event per line, keys sorted, no whitespace,
// `sha256:` hashes over canonical JSON, a ReplayHeader first and every
// ToolResult after its ToolCall.
//
// REPLAY has no event for conversation text. The writer keeps user, agent
// and thinking text as `Message` extension events, which REPLAY consumers
// must ignore ("consumers ignore unknown events and fields"), so that a
// round trip through REPLAY keeps them.
package replay

import (
	"errors"
	"github.com/rlog-ls/rlog-ls/convert/internal/idset"
	"github.com/rlog-ls/rlog-ls/convert/internal/recent"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/convert/claude"
	"github.com/rlog-ls/rlog-ls/convert/internal/canon"
	"github.com/rlog-ls/rlog-ls/convert/internal/jsonw"
	"github.com/rlog-ls/rlog-ls/convert/internal/strblock"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// Name is the format name used by the CLI.
const Name = "replay"

// PreviewLimit is the `output_preview` limit of the spec: the first and
// last 1000 characters around "...".
const PreviewLimit = 2000

// Read streams a REPLAY.jsonl file.
func Read(r io.Reader, sink model.Sink, rep *model.Report) error {
	h := &model.Header{SourceFormat: Name}
	// made are the values this package's writer made up for a session
	// from another format (its source object says which): not the
	// session's.
	var made []string
	// ix indexes the line being read (model.ParseRecord), so that its
	// rest's members are copied out of the index rather than scanned
	// again, and the line is checked for UTF-8 once.
	var ix jsonscan.Index
	// The strings the events keep are made many to an allocation: the
	// ids and times (which a consumer may keep after their event: a
	// writer's recent call ids) in a room apart from the texts'.
	strs, ids := strblock.New(stringBlock, maxBlockString), strblock.New(idBlock, maxBlockID)
	ix.MakeStrings(&strs)
	ix.MakeIDs(&ids)
	// record is room for the line's list of members, which nothing keeps
	// past the line (what an event keeps of it is copied).
	var record model.Scratch
	// room is where a line's event is made when the sink borrows events
	// (model.Borrower): the same event each line, zeroed. nil: a new
	// event each line.
	var room *eventRoom
	if model.BorrowsEvents(sink) {
		room = &eventRoom{}
	}
	err := model.Lines(r, rep, func(line []byte, n int) error {
		// The record's values are decoded where they are; event copies
		// those it keeps.
		f, perr := record.ParseRecord(&ix, line, false, false)
		if perr != nil || f == nil {
			if perr == nil {
				perr = errors.New("null")
			}
			rep.Malformed(n, perr)
			return nil
		}
		if !ix.InputValidUTF8() {
			rep.InvalidUTF8(line, model.Loc{Line: n})
		}
		ev, ok := event(&ix, h, &made, f, model.Loc{Line: n}, rep, room)
		if !ok {
			return nil
		}
		rep.Events++
		return sink.Event(h, ev)
	})
	if err != nil {
		return err
	}
	return sink.End(h)
}

// stringBlock and maxBlockString are the size of the blocks Read makes
// the events' texts in and the longest made in one (a longer one is an
// allocation of its own); idBlock and maxBlockID the same for the ids
// and times: as the ATIF reader's.
const (
	stringBlock    = 16 << 10
	maxBlockString = 1 << 10
	idBlock        = 2 << 10
	maxBlockID     = 64
)

// eventRoom is where Read makes each line's event, and the call, result
// and usage behind it, for a sink that borrows events: zeroed for each
// line (event), so that nothing of the line before is left in it.
type eventRoom struct {
	ev     model.Event
	call   model.ToolCall
	result model.ToolResult
	usage  model.Usage
	// extra is room for the event's extras (recordEvent's rest).
	extra model.Fields
}

// event is a new event, or room's, zeroed with all it holds.
func (r *eventRoom) event() *model.Event {
	if r == nil {
		return &model.Event{}
	}
	extra := r.extra
	clear(extra[:cap(extra)]) // an event's own appends may lie past its length
	*r = eventRoom{extra: extra[:0]}
	return &r.ev
}

// toolCall, toolResult and usage are a new value, or room's (zeroed by
// event).
func (r *eventRoom) toolCall() *model.ToolCall {
	if r == nil {
		return &model.ToolCall{}
	}
	return &r.call
}

func (r *eventRoom) toolResult() *model.ToolResult {
	if r == nil {
		return &model.ToolResult{}
	}
	return &r.result
}

func (r *eventRoom) usageRoom() *model.Usage {
	if r == nil {
		return nil
	}
	return &r.usage
}

func event(ix *jsonscan.Index, h *model.Header, made *[]string, f model.Fields, loc model.Loc, rep *model.Report, room *eventRoom) (*model.Event, bool) {
	ev, ok := recordEvent(ix, h, made, f, loc, rep, room)
	if r, has := f.Get("rest"); has && ok && h.Origin != "" {
		// This package's writer's, from another format: what the line
		// does not hold of the event; null: the line is the writer's own
		// (a SessionStart or SessionEnd REPLAY requires), no event.
		if jsonscan.IsNull(r) {
			return nil, false
		}
		ev.Name, ev.Step = "", 0
		if err := model.ApplyRestIn(ix, ev, r); err != nil {
			rep.Add(model.LossMalformed, "rest: "+err.Error(), loc)
		}
	}
	return ev, ok
}

// usagePrefixes are what comes before each of the four counters of a
// usage object as the writer writes it, canonical JSON (keys sorted, no
// white space): cache creation, cache read, input, output.
var usagePrefixes = [4]string{`{"cache_creation_input_tokens":`, `,"cache_read_input_tokens":`, `,"input_tokens":`, `,"output_tokens":`}

// readUsage is claude.ParseUsage of v, a value of the record ix indexed
// last. A usage object as the writer writes it (nearly every one a REPLAY
// file holds) is read by its shape, its four counters' digits in place,
// in a tenth of the instructions of walking its members; anything else
// (another order, more members, a number that is not a plain integer of
// at most 18 digits) is walked as before. FuzzIndexedLine holds the two
// equal.
func readUsage(ix *jsonscan.Index, v []byte) *model.Usage {
	return readUsageIn(ix, v, nil)
}

// readUsageIn is readUsage, a usage of the writer's shape made in room
// when it is not nil.
func readUsageIn(ix *jsonscan.Index, v []byte, room *model.Usage) *model.Usage {
	var n [4]int64
	i := 0
	for k, prefix := range usagePrefixes {
		if len(v)-i < len(prefix) || string(v[i:i+len(prefix)]) != prefix {
			return claude.ParseUsageIn(ix, v)
		}
		i += len(prefix)
		start := i
		for i < len(v) && v[i]-'0' <= 9 && i-start < 18 {
			n[k] = n[k]*10 + int64(v[i]-'0')
			i++
		}
		if i == start {
			return claude.ParseUsageIn(ix, v)
		}
	}
	if i != len(v)-1 || v[i] != '}' {
		return claude.ParseUsageIn(ix, v)
	}
	if room == nil {
		room = new(model.Usage)
	}
	*room = model.Usage{CacheCreate: n[0], CacheRead: n[1], Input: n[2], Output: n[3]}
	return room
}

// recordEvent is the event of one REPLAY line (ok false for none), f the
// fields of the line ix indexed last.
func recordEvent(ix *jsonscan.Index, h *model.Header, made *[]string, f model.Fields, loc model.Loc, rep *model.Report, room *eventRoom) (*model.Event, bool) {
	typ, _ := f.StringIn(ix, "event")
	t, _ := f.IDIn(ix, "t")
	ev := room.event()
	ev.Time, ev.Loc = t, loc
	extension := false
	if typ != EventHeader && typ != EventSessionStart && typ != EventSessionEnd {
		// The writer's extension fields: usage, model and message id.
		ev.MessageID, _ = f.IDIn(ix, "message_id")
		ev.Model, _ = f.IDIn(ix, "model")
		if v, ok := f.Get("usage"); ok {
			ev.Usage = readUsageIn(ix, v, room.usageRoom())
		}
		extension = ev.MessageID != "" || ev.Model != "" || ev.Usage != nil
	}
	// rest is the event's extras: the fields its own fields do not take
	// (the tag, the time, the writer's rest and, when read, its extension
	// fields; then skip), copied, in one slice of their number.
	rest := func(skip ...string) model.Fields {
		var kept [16]model.Field
		out := kept[:0]
	next:
		for i := range f {
			fl := &f[i]
			switch fl.Key {
			case "event", "t", "rest":
				continue
			case "message_id", "model", "usage":
				if extension {
					continue
				}
			}
			for _, s := range skip {
				if fl.Key == s {
					continue next
				}
			}
			out = append(out, model.Field{Key: fl.Key, Value: ix.Copy(fl.Value)})
		}
		if len(out) == 0 {
			return nil
		}
		if room != nil && len(out) <= len(kept) {
			room.extra = append(room.extra[:0], out...)
			return room.extra
		}
		return append(model.Fields(nil), out...)
	}
	switch typ {
	case EventHeader:
		h.SourceVersion, _ = f.StringIn(ix, "replay_version")
		if v, ok := f.Get("replay_version"); ok {
			h.SourceVersion = string(ix.Copy(v))
		}
		if src, ok := f.Get("source"); ok {
			// This package's writer's, from another format: the producer
			// and time are the conversion's, not the session's.
			sourceHeader(h, made, src, rep, loc)
			return nil, false
		}
		if p, ok := f.StringIn(ix, "producer"); ok {
			h.Extra.SetString("producer", p)
		}
		if c, ok := f.StringIn(ix, "created_at"); ok {
			h.Extra.SetString("created_at", c)
		}
		return nil, false
	case eventSourceEnd:
		b, _ := withoutRead(f, extension).Copy().MarshalJSON()
		sourceHeader(h, made, b, rep, loc)
		return nil, false
	case EventSessionStart:
		h.ID, _ = f.IDIn(ix, "session_id")
		if m, ok := f.StringIn(ix, "model"); ok && h.Model == "" {
			h.Model = m
		}
		if h.Started == "" {
			h.Started = t
		}
		ev.Kind = model.KindLifecycle
		ev.Name = "start"
		for _, fl := range rest("session_id", "model") {
			h.Extra.Set(fl.Key, fl.Value)
		}
		model.Unmake(h, *made)
		return ev, true
	case EventToolCall:
		ev.Kind = model.KindToolCall
		c := room.toolCall()
		c.ID, _ = f.IDIn(ix, "id")
		c.Name, _ = f.StringIn(ix, "tool")
		if p, ok := f.Get("params"); ok {
			c.Input = ix.Copy(p)
		}
		ev.Call = c
		if sid, ok := f.StringIn(ix, "step_id"); ok {
			if n, err := strconv.ParseInt(strings.TrimPrefix(sid, "step-"), 10, 64); err == nil {
				ev.Step = n
			}
		}
		ev.Extra = rest("id", "tool", "params")
		return ev, true
	case EventToolResult:
		ev.Kind = model.KindToolResult
		r := room.toolResult()
		r.CallID, _ = f.IDIn(ix, "id")
		r.Content, _ = f.StringIn(ix, "output_preview")
		if x, ok := f.Get("exit_code"); ok && !jsonscan.IsNull(x) {
			code, _ := jsonscan.Int(x)
			r.IsError = code != 0
		}
		r.Status, _ = f.StringIn(ix, "status")
		ev.Result = r
		ev.Extra = rest("id", "output_preview", "status")
		return ev, true
	case EventSessionEnd:
		ev.Kind = model.KindLifecycle
		ev.Name = "end"
		status, _ := f.StringIn(ix, "status")
		ok := status == "Success"
		h.Outcome = &model.Outcome{Success: &ok}
		h.Ended = t
		ev.Extra = rest()
		return ev, true
	case EventMessage:
		kind, _ := f.StringIn(ix, "kind")
		ev.Text, _ = f.StringIn(ix, "text")
		switch kind {
		case "user":
			ev.Kind = model.KindUser
		case "agent":
			ev.Kind = model.KindAgent
		case "thinking":
			ev.Kind = model.KindThinking
			ev.Signature, _ = f.StringIn(ix, "signature")
		default:
			if messageEvent(ev, kind, f) {
				break
			}
			ev.Kind = model.KindSystem
			ev.Name = kind
			if n, ok := f.StringIn(ix, "name"); ok {
				ev.Name = n // the writer's name of a system message
			}
		}
		ev.Extra = rest("kind", "text", "signature", "name", kind)
		return ev, true
	case "":
		rep.Add(model.LossMalformed, "line without an event tag", loc)
		return nil, false
	default:
		if isLifecycle(typ) {
			ev.Kind = model.KindLifecycle
			ev.Name = typ
			ev.Extra = rest()
			return ev, true
		}
		ev.Kind = model.KindPassthrough
		ev.RawType = typ
		ev.Raw, _ = withoutRead(f, extension).Copy().MarshalJSON()
		rep.Passthrough(ev, "replay event "+typ)
		return ev, true
	}
}

// sourceHeader reads the header fields this package's writer keeps for a
// session from another format: the ReplayHeader's source object, and the
// SourceEnd line. made gathers the values it names made up: SessionStart,
// read after the source object, takes them out again.
func sourceHeader(h *model.Header, made *[]string, raw []byte, rep *model.Report, loc model.Loc) {
	f, err := model.ApplySource(h, raw)
	if err != nil {
		rep.Add(model.LossMalformed, "source: "+err.Error(), loc)
		return
	}
	*made = append(*made, model.MadeUp(f)...)
	model.Unmake(h, *made)
}

// messageEvent reads back a Message of this writer's for an event REPLAY
// has no event for, from its kind and the extension field named after it
// (see Writer.structured); false when the Message is not one.
func messageEvent(ev *model.Event, kind string, f model.Fields) bool {
	x, _ := f.Get(kind)
	xf, _ := model.ParseValidFields(x)
	switch kind {
	case "status":
		ev.Kind = model.KindStatus
	case "comment":
		ev.Kind = model.KindComment
	case "init":
		ev.Kind = model.KindInit
		if m, ok := strings.CutPrefix(ev.Text, "init model="); ok && ev.Model == "" {
			ev.Model = m
		}
		ev.Text = ""
	case "compaction":
		ev.Kind = model.KindCompaction
		if xf != nil {
			c := &model.Compaction{}
			c.Trigger, _ = xf.String("trigger")
			if v, ok := xf.Get("pre_tokens"); ok {
				c.PreTokens, _ = jsonscan.Int(v)
			}
			ev.Compaction = c
		}
	case "subagent":
		if xf == nil {
			return false
		}
		sa := &model.Subagent{}
		sa.ID, _ = xf.String("id")
		sa.AgentID, _ = xf.String("agent_id")
		sa.Type, _ = xf.String("type")
		sa.Status, _ = xf.String("status")
		sa.Summary, _ = xf.String("summary")
		sa.SessionID, _ = xf.String("session_id")
		sa.TrajectoryPath, _ = xf.String("trajectory_path")
		ev.Kind, ev.Subagent, ev.Text = model.KindSubagent, sa, ""
	case "todos":
		if xf == nil && len(x) == 0 {
			return false
		}
		ev.Kind = model.KindTodos
		jsonscan.Array(x, func(_ int, v []byte) error {
			tf, _ := model.ParseValidFields(v)
			var td model.Todo
			td.ID, _ = tf.String("id")
			td.Content, _ = tf.String("content")
			td.Status, _ = tf.String("status")
			td.Priority, _ = tf.String("priority")
			ev.Todos = append(ev.Todos, td)
			return nil
		})
		ev.Text = ""
	case "tool_result":
		// A result whose call was not before it (REPLAY's ToolResult
		// must follow its ToolCall).
		r := &model.ToolResult{Content: ev.Text}
		r.CallID, _ = xf.String("call_id")
		r.Status, _ = xf.String("status")
		if v, ok := xf.Get("is_error"); ok {
			r.IsError, _ = jsonscan.Bool(v)
		}
		ev.Kind, ev.Result, ev.Text = model.KindToolResult, r, ""
	default:
		return false
	}
	return true
}

// withoutRead returns f, in a new slice, without the fields an event's
// own fields take: rest, and the writer's extension fields (message_id,
// model, usage) when extension says they were read. One pass, each key
// asked once.
func withoutRead(f model.Fields, extension bool) model.Fields {
	out := make(model.Fields, 0, len(f))
	for _, fl := range f {
		switch fl.Key {
		case "rest":
			continue
		case "message_id", "model", "usage":
			if extension {
				continue
			}
		}
		out = append(out, fl)
	}
	return out
}

// Writer writes REPLAY.jsonl as events arrive.
type Writer struct {
	w       io.Writer
	rep     *model.Report
	opt     model.Options
	started bool
	h       *model.Header
	last    string // last timestamp seen, for events without one
	// calls has the id written and the time of the last calls, by source
	// id; seen a hash of every call id (a result needs its call before
	// it): neither grows with the session beyond 8 bytes a call.
	calls   *recent.Map[callRef]
	seen    idset.Set
	ncalls  int64
	latency int64
	ended   bool
	obj     canon.Object  // the line being built, reused
	restBuf jsonw.Buf     // rest's, reused; writes canonical JSON
	members canon.Members // a line written direct, its keys in order
	buf     []byte
	tmp     []byte // a cut output's canonical string, for its hash
	err     error
	// other is set for a session from another format, whose lines carry
	// the rests of their events; madeUp names the values the writer made
	// up that the session has not, extraKeys the header extras the
	// ReplayHeader's source object holds.
	other     bool
	madeUp    []string
	extraKeys map[string]bool
	// firstStart says the session's first event is a start event, which
	// the SessionStart line holds; startDone that it has been met.
	firstStart, startDone bool
}

type callRef struct{ id, t string }

// NewWriter returns a streaming REPLAY writer (a model.Sink).
func NewWriter(w io.Writer, rep *model.Report, opt model.Options) *Writer {
	wr := &Writer{w: w, rep: rep, opt: opt, calls: recent.New[callRef](4096)}
	canon.Writer(&wr.restBuf)
	return wr
}

// Write writes a whole session.
func Write(w io.Writer, s *model.Session, rep *model.Report, opt model.Options) error {
	return model.Replay(s, NewWriter(w, rep, opt))
}

// line writes wr.obj as one line, keys sorted (canon.Object). sourced is
// set when members were copied from the source as they were.
func (wr *Writer) line(sourced bool) {
	if wr.err != nil {
		return
	}
	f := &wr.obj
	// A hash carried over from the source (a passed-through event, extra
	// fields) that is not sha256:<64 hex> would make the file invalid.
	// The writer's own are valid.
	for _, k := range hashFields {
		if !sourced {
			break
		}
		v, ok := f.Get(k)
		if !ok || len(v) == 0 || v[0] != '"' {
			continue
		}
		if h, _ := jsonscan.String(v); !validHash(h) {
			f.Delete(k)
			wr.rep.Add(model.LossDroppedField, k+" that is not sha256:<64 hex>", model.Loc{})
		}
	}
	wr.buf = f.AppendTo(wr.buf[:0])
	wr.buf = append(wr.buf, '\n')
	_, wr.err = wr.w.Write(wr.buf)
}

func (wr *Writer) start(h *model.Header, first *model.Event) {
	wr.started = true
	wr.h = h
	origin, _ := h.First()
	wr.other = origin != Name
	t := ""
	if first != nil {
		t = first.Time
	}
	producer := wr.opt.ProducerName()
	if first, _ := h.First(); first == "rlog" {
		// rlog keeps truncated output: hashes cannot be over the full value.
		producer += " (truncated-source)"
		wr.rep.Add(model.LossUnfaithful, "output_hash over truncated rlog text, not the full output", model.Loc{})
	}
	hd := &wr.obj
	hd.Reset()
	hd.String("event", EventHeader)
	hd.Int("replay_version", 1)
	created := wr.opt.Time().Format(time.RFC3339)
	if !wr.other {
		// A REPLAY source's own header, as it was.
		if p, ok := h.Extra.String("producer"); ok {
			producer = p
		}
		if c, ok := h.Extra.String("created_at"); ok {
			created = c
		}
	}
	hd.String("producer", producer)
	hd.String("created_at", created)
	if wr.other {
		// Where the session came from, the header fields REPLAY has no
		// place for, and the values SessionStart needs that the session
		// has not, in an extension field consumers ignore.
		if h.Started == "" {
			wr.madeUp = append(wr.madeUp, "started")
		}
		if h.ID == "" {
			wr.madeUp = append(wr.madeUp, "id")
		}
		if _, ok := h.Extra.Get("policy_bundle_id"); !ok {
			wr.madeUp = append(wr.madeUp, "extra.policy_bundle_id")
		}
		wr.extraKeys = map[string]bool{}
		hd.Raw("source", model.SourceOf(h, wr.extraKeys, wr.madeUp, "model", "started"))
		wr.madeUp = wr.madeUp[:0]
	}
	wr.line(false)
	ss := &wr.obj
	ss.Reset()
	ss.String("event", EventSessionStart)
	ss.String("t", pickTime(h.Started, t, created))
	id := h.ID
	if id == "" {
		id = "unknown"
		wr.made("session_id \"unknown\"", model.Loc{})
	}
	ss.String("session_id", id)
	if h.Model != "" {
		// An extension field, as the usage of events (see Writer.usage).
		ss.String("model", h.Model)
	}
	if _, ok := h.Extra.Get("policy_bundle_id"); !ok {
		ss.String("policy_bundle_id", "unknown")
		wr.made("policy_bundle_id \"unknown\" (required, the source has none)", model.Loc{})
	}
	for _, f := range h.Extra {
		switch f.Key {
		case "policy_bundle_id", "issue_number":
			ss.Raw(f.Key, f.Value)
		}
	}
	if wr.other {
		// The source's own start event, when it begins with one, is this
		// line; otherwise the line is the writer's.
		if first != nil && first.Kind == model.KindLifecycle && first.Name == "start" {
			wr.firstStart = true
			ss.Canonical("rest", wr.rest(first, &carries.none))
		} else {
			ss.Raw("rest", []byte("null"))
		}
	}
	wr.line(false)
}

// made reports a value the writer makes up, unless the source is a REPLAY
// file, which had it already.
func (wr *Writer) made(detail string, loc model.Loc) {
	if wr.h.SourceFormat != Name {
		wr.rep.Add(model.LossSynthesized, detail, loc)
	}
}

// rest is the rest of e on its line (model.RestOf): what the line does
// not hold of it, canonical as the line is. It is written canonical where
// it goes (canon.Writer: keys sorted as each object ends), not compact and
// then read again, in a buffer the writer reuses, valid until the next
// call (canon.Object copies a value as it is set).
func (wr *Writer) rest(e *model.Event, c *model.Carried) []byte {
	wr.restBuf.Reset()
	model.WriteRestCarried(&wr.restBuf, e, nil, c)
	return wr.restBuf.Bytes()
}

// The bits of carries.call's index: the names a ToolCall's rest says its
// event has none of, the writer's own id and step_id.
const (
	unsetCallID = 1 << iota
	unsetStep
)

// carries are what each kind of line holds of its event (the fields its
// rest carries, model.WriteRestCarried), each made into a model.Carried
// once instead of a list of names a line matched again at every rest:
// a ToolCall's with the four lists of names its rest may say the event
// has none of (unsetCallID, unsetStep), a ToolResult's with and without
// its content and its call id, a Message of text's, and what a line adds
// (its time, finish's message id and model). Only the lists a line
// starts from have unset names: what it adds (Add) has none, so nothing
// is appended to a shared list.
var carries = func() (c struct {
	call                                           [4]model.Carried
	result, resultContent                          [2]model.Carried
	orphanResult, text, time, messageIDModel, none model.Carried
}) {
	call := model.CarriedOf("call.id", "call.name", "call.input")
	for i, u := range model.CarriedUnsets("-call.id", "-step") {
		c.call[i] = u
		c.call[i].Add(&call)
	}
	result := model.CarriedOf("result.call_id", "result.is_error", "result.status")
	content := model.CarriedOf("result.content")
	for i, u := range model.CarriedUnsets("-result.call_id") {
		c.result[i] = u
		c.result[i].Add(&result)
		c.resultContent[i] = c.result[i]
		c.resultContent[i].Add(&content)
	}
	c.orphanResult = model.CarriedOf("result.call_id", "result.is_error", "result.status", "result.content")
	c.text = model.CarriedOf("text", "signature")
	c.time = model.CarriedOf("time")
	c.messageIDModel = model.CarriedOf("message_id", "model")
	return c
}()

func pickTime(ts ...string) string {
	for _, t := range ts {
		if t != "" {
			return t
		}
	}
	return ""
}

// BorrowsEvents implements model.Borrower: a line is written as its event
// comes; the writer keeps calls' ids and times (strings).
func (*Writer) BorrowsEvents() bool { return true }

// Event implements model.Sink. It makes the event's line (REPLAY's own
// event for it, or a Message of this writer's for one REPLAY has none for)
// and then carries over what the line does not hold (finish).
func (wr *Writer) Event(h *model.Header, e *model.Event) error {
	wr.h = h
	if !wr.started {
		wr.start(h, e)
	}
	carried := &carries.none // what the line holds of e, for its rest
	t := wr.lineTime(e)
	if wr.direct(t, e) {
		return wr.err
	}
	f := &wr.obj
	f.Reset()
	switch e.Kind {
	case model.KindToolCall:
		carried = wr.toolCall(f, t, e)
	case model.KindToolResult:
		if carried = wr.toolResult(f, t, e); carried == nil {
			return wr.err // a Message written direct (messageLine)
		}
	case model.KindUser, model.KindAgent, model.KindThinking:
		f.String("event", EventMessage)
		f.String("t", t)
		f.String("kind", e.Kind.String())
		f.String("text", e.Text)
		if e.Signature != "" {
			f.String("signature", e.Signature)
		}
		carried = &carries.text
	case model.KindLifecycle:
		if wr.lifecycleLine(f, t, e) {
			return wr.err
		}
	case model.KindPassthrough:
		if wr.passthroughLine(f, t, e) {
			return wr.err
		}
	default:
		if wr.directMessage(t, e) {
			return wr.err
		}
		wr.message(f, t, e)
	}
	wr.finish(f, e, carried)
	return wr.err
}

// lineTime is the time of e's line: its own, or the last one seen.
func (wr *Writer) lineTime(e *model.Event) string {
	if e.Time != "" {
		wr.last = e.Time
		return e.Time
	}
	if wr.last != "" {
		return wr.last
	}
	return pickTime(wr.h.Started, wr.opt.Time().Format(time.RFC3339))
}

// finish carries over what e's line f does not hold, and writes it: the
// usage as extension fields, and for a session from another format the
// event's rest (carried is what the line's kind holds of e), for a REPLAY
// source its fields as they were.
func (wr *Writer) finish(f *canon.Object, e *model.Event, carried *model.Carried) {
	wr.usage(f, e)
	if wr.other {
		c := *carried // (its unset names shared: what is added has none)
		if e.Time != "" {
			c.Add(&carries.time)
		}
		c.Add(&carries.messageIDModel)
		f.Canonical("rest", wr.rest(e, &c))
	} else {
		for _, x := range e.Extra {
			if _, set := f.Get(x.Key); !set {
				f.Raw(x.Key, x.Value)
			}
		}
	}
	wr.line(!wr.other || e.Kind == model.KindLifecycle)
}

// toolCall makes the ToolCall of a call: the source's id (or a made-up
// one), params and their hash, and a step id. It returns what the line
// holds of e.
func (wr *Writer) toolCall(f *canon.Object, t string, e *model.Event) *model.Carried {
	f.String("event", EventToolCall)
	f.String("t", t)
	id, unset := wr.callID(t, e)
	f.String("id", id)
	f.String("tool", e.Call.Name)
	f.Raw("params", callParams(e))
	f.HashOf("params_hash", "params")
	hash, _ := f.Get("params_hash")
	wr.checkParamsHash(e, hash)
	if sid, ok := e.Extra.String("step_id"); ok {
		f.String("step_id", sid)
	} else if e.Step > 0 {
		f.String("step_id", "step-"+strconv.FormatInt(e.Step, 10))
	} else {
		f.String("step_id", "step-"+strconv.FormatInt(wr.ncalls, 10))
	}
	return &carries.call[unset]
}

// callID is the id of the ToolCall of e, the source's or one made up,
// noted for its result, and what of the line is the writer's own
// (unsetCallID, unsetStep).
func (wr *Writer) callID(t string, e *model.Event) (id string, unset int) {
	id = e.Call.ID
	seen := idset.Hash(id) // (hashed once for the test and the note)
	if id != "" && wr.seen.HasHash(seen) {
		wr.rep.Add(model.LossIDUnique, "tool call id reused (ToolResult matches the latest)", e.Loc)
	}
	if id == "" {
		id = "tc_" + strconv.FormatInt(wr.ncalls+1, 10)
		wr.rep.Add(model.LossSynthesized, "ToolCall id for a call without one", e.Loc)
		unset |= unsetCallID // the writer's
	}
	wr.calls.Set(e.Call.ID, callRef{id: id, t: t})
	wr.seen.AddHash(seen)
	wr.ncalls++
	if e.Step == 0 {
		unset |= unsetStep // the writer's step_id
	}
	return id, unset
}

// callParams are the params of e's ToolCall: its input, or {}.
func callParams(e *model.Event) []byte {
	if len(e.Call.Input) == 0 {
		return values.emptyObject
	}
	return e.Call.Input
}

// values are the constant values callParams, exitCode and stepUtility
// give, made once (a []byte("null") a function returns is allocated at
// each call), never written to.
var values = struct{ emptyObject, null, one, zeroUtility, true []byte }{
	[]byte("{}"), []byte("null"), []byte("1"), []byte("0.0"), []byte("true"),
}

// checkParamsHash reports a params_hash of the source's that is not
// hash, the one written (a JSON string).
func (wr *Writer) checkParamsHash(e *model.Event, hash []byte) {
	if src, ok := e.Extra.String("params_hash"); ok && string(hash[1:len(hash)-1]) != src {
		wr.rep.Add(model.LossUnfaithful, "params_hash recomputed over params differs from the source's", e.Loc)
	}
}

// toolResult makes the ToolResult of a result whose call was written
// before it (its hash, exit code, latency and preview), or a Message of
// this writer's for one whose call was not. It returns what the line
// holds of e, or nil when it wrote the Message itself (messageLine).
func (wr *Writer) toolResult(f *canon.Object, t string, e *model.Event) *model.Carried {
	ref, known := wr.resultCall(e)
	if !known {
		// REPLAY wants a ToolResult after its ToolCall: the result
		// goes on a Message of this writer's, as other events REPLAY
		// has no event for.
		if wr.h.SourceFormat != Name {
			// (From REPLAY it was such a Message already.)
			wr.rep.Add(model.LossMoved, "tool result without a prior ToolCall, written as a Message extension event (a ToolResult needs its ToolCall before it)", e.Loc)
		}
		if wr.other && directLines {
			wr.messageLine(t, e, "tool_result", e.Result.Content, false, &carries.orphanResult)
			return nil // written
		}
		f.String("event", EventMessage)
		f.String("t", t)
		f.String("kind", "tool_result")
		f.String("text", e.Result.Content)
		f.Raw("tool_result", wr.structured(e))
		return &carries.orphanResult
	}
	f.String("event", EventToolResult)
	f.String("t", t)
	f.String("id", ref.id)
	preview, cut := preview(e.Result.Content)
	f.String("output_preview", preview)
	if src, ok := e.Extra.String("output_hash"); ok && !wr.other && validHash(src) {
		// A REPLAY source keeps only a preview: its hash is the faithful one.
		f.String("output_hash", src)
	} else {
		if ok && !wr.other {
			wr.rep.Add(model.LossUnfaithful, "output_hash of the source is not sha256:<64 hex>; recomputed over the preview", e.Loc)
		}
		if cut {
			f.HashString("output_hash", e.Result.Content)
		} else {
			// The preview is the whole output, made canonical already.
			f.HashOf("output_hash", "output_preview")
		}
	}
	f.Raw("exit_code", wr.exitCode(e))
	f.Raw("step_utility", stepUtility(e))
	f.Int("latency_ms", wr.latencyOf(e, ref, t))
	if e.Result.Status != "" {
		// A status other than ok or error (rlog's `[2 issues]`).
		f.String("status", e.Result.Status)
	}
	if cut && !wr.other {
		wr.rep.Lose(model.LossTruncated, "tool_result.result.content", "tool output (REPLAY keeps a hash and a 2000-character preview)", e.Loc)
	}
	return resultCarried(e, cut)
}

// resultCall is the call of the result e, written before it, and whether
// there is one.
func (wr *Writer) resultCall(e *model.Event) (callRef, bool) {
	ref, known := wr.calls.Get(e.Result.CallID)
	if !known && wr.seen.Has(e.Result.CallID) {
		// A call older than the ids remembered: its id as the source
		// had it, and no latency from the times.
		ref, known = callRef{id: e.Result.CallID}, e.Result.CallID != ""
	}
	return ref, known
}

// resultCarried is what a ToolResult line holds of e (cut: its preview
// is not the whole output).
func resultCarried(e *model.Event, cut bool) *model.Carried {
	unset := 0
	if e.Result.CallID == "" {
		unset = 1 // "-result.call_id": the writer's id of its call
	}
	if !cut {
		return &carries.resultContent[unset]
	}
	return &carries.result[unset]
}

// exitCode is the exit_code of the result e: the source's, 1 for a
// failed tool (made up), or null.
func (wr *Writer) exitCode(e *model.Event) []byte {
	if x, ok := e.Extra.Get("exit_code"); ok {
		return x
	}
	if e.Result.IsError {
		wr.made("exit_code 1 for a failed tool (the source has no exit code)", e.Loc)
		return values.one
	}
	return values.null
}

// stepUtility is the step_utility of the result e: the source's, or 0.0.
func stepUtility(e *model.Event) []byte {
	if x, ok := e.Extra.Get("step_utility"); ok {
		return x
	}
	return values.zeroUtility
}

// latencyOf is the latency_ms of the result e at t, of its call ref: the
// source's, or the time from the call to it; it counts in the session's.
func (wr *Writer) latencyOf(e *model.Event, ref callRef, t string) int64 {
	lat := int64(0)
	if x, ok := e.Extra.Get("latency_ms"); ok {
		lat, _ = jsonscan.Int(x)
	} else if a, err1 := time.Parse(time.RFC3339Nano, ref.t); err1 == nil {
		if b, err2 := time.Parse(time.RFC3339Nano, t); err2 == nil && b.After(a) {
			lat = b.Sub(a).Milliseconds()
		}
	}
	wr.latency += lat
	return lat
}

// directLines is false only in the tests, which hold the lines written
// direct to the lines built in a canon.Object (TestDirectLines).
var directLines = true

// direct writes the line of e at t when it is one whose keys are known
// ahead (a session from another format's ToolCall, ToolResult after its
// call, and user, agent and thinking Message), in their sorted order
// (canon.Members), instead of building it in a canon.Object that sorts
// them; it reports whether it did. Each line's members are the ones its
// Object path sets (toolCall, toolResult, Event, finish), the same
// bytes.
func (wr *Writer) direct(t string, e *model.Event) bool {
	if !wr.other || !directLines {
		return false
	}
	switch e.Kind {
	case model.KindToolCall:
		wr.callLine(t, e)
	case model.KindToolResult:
		ref, known := wr.resultCall(e)
		if !known {
			return false
		}
		wr.resultLine(t, e, ref)
	case model.KindUser, model.KindAgent, model.KindThinking:
		wr.textLine(t, e)
	default:
		return false
	}
	return true
}

// directMessage writes, when lines are written direct, the Message of an
// event from another format that REPLAY has no event for (message and
// finish), its keys in order (messageLine), and reports whether it did.
func (wr *Writer) directMessage(t string, e *model.Event) bool {
	if !wr.other || !directLines {
		return false
	}
	wr.messageLine(t, e, e.Kind.String(), describe(e), e.Kind == model.KindSystem && e.Name != "", &carries.none)
	return true
}

// messageLine writes a Message (message, or toolResult's of a result
// without its call) of e at t, and its rest (finish; carried is what the
// line holds of e), its keys in order: kind and text as given, the name
// of e when name says so, and the extension field of the event's kind
// (extension), placed by its name among the others.
func (wr *Writer) messageLine(t string, e *model.Event, kind, text string, name bool, carried *model.Carried) {
	m := &wr.members
	m.Begin(wr.buf[:0])
	x := extensionOf(e)
	at := func(next string) {
		// The extension field goes before the first key after its name.
		if x != nil && x.name < next {
			wr.extension(m, x, e)
			x = nil
		}
	}
	at("event")
	m.String(&lineKeys.event, EventMessage)
	at("kind")
	m.String(&lineKeys.kind, kind)
	at("message_id")
	wr.messageModel(m, e) // message_id, model
	at("name")
	if name {
		m.String(&lineKeys.name, e.Name)
	}
	at("rest")
	wr.restMember(m, e, carried)
	at("t")
	m.String(&lineKeys.t, t)
	at("text")
	m.String(&lineKeys.text, text)
	at("usage")
	wr.usageMember(m, e)
	if x != nil {
		wr.extension(m, x, e)
	}
	wr.endLine(m)
}

// extensionKey is the extension field of a Message of an event REPLAY has
// no event for (structured): its name, the event's kind's, and its key.
type extensionKey struct {
	name string
	key  canon.Key
}

// extensionKeys are the extension fields structured writes, by the kind
// they are of.
var extensionKeys = struct{ subagent, compaction, todos, toolResult extensionKey }{
	extensionKey{model.KindSubagent.String(), canon.NewKey(model.KindSubagent.String())},
	extensionKey{model.KindCompaction.String(), canon.NewKey(model.KindCompaction.String())},
	extensionKey{model.KindTodos.String(), canon.NewKey(model.KindTodos.String())},
	extensionKey{model.KindToolResult.String(), canon.NewKey(model.KindToolResult.String())},
}

// extensionOf is the extension field of e's Message, or nil when it has
// none (structured's nil).
func extensionOf(e *model.Event) *extensionKey {
	switch e.Kind {
	case model.KindSubagent:
		return &extensionKeys.subagent
	case model.KindCompaction:
		if e.Compaction != nil {
			return &extensionKeys.compaction
		}
	case model.KindTodos:
		return &extensionKeys.todos
	case model.KindToolResult:
		return &extensionKeys.toolResult
	}
	return nil
}

// structuredKeys are the keys of structured's objects, each escaped once.
var structuredKeys = struct {
	agentID, callID, content, id, isError, preTokens, priority, sessionID, status, summary, trajectoryPath, trigger, typ canon.Key
}{
	canon.NewKey("agent_id"), canon.NewKey("call_id"), canon.NewKey("content"), canon.NewKey("id"),
	canon.NewKey("is_error"), canon.NewKey("pre_tokens"), canon.NewKey("priority"), canon.NewKey("session_id"),
	canon.NewKey("status"), canon.NewKey("summary"), canon.NewKey("trajectory_path"), canon.NewKey("trigger"),
	canon.NewKey("type"),
}

// extension writes the extension field x of e's Message: what structured
// makes of e, canonical, its keys in order, written where it goes
// instead of encoded, then read again and made canonical.
func (wr *Writer) extension(m *canon.Members, x *extensionKey, e *model.Event) {
	m.Key(&x.key)
	var o canon.Members
	str := func(k *canon.Key, v string) {
		if v != "" {
			o.String(k, v)
		}
	}
	switch e.Kind {
	case model.KindSubagent:
		sa := e.Subagent
		o.Begin(m.B)
		str(&structuredKeys.agentID, sa.AgentID)
		str(&structuredKeys.id, sa.ID)
		str(&structuredKeys.sessionID, sa.SessionID)
		str(&structuredKeys.status, sa.Status)
		str(&structuredKeys.summary, sa.Summary)
		str(&structuredKeys.trajectoryPath, sa.TrajectoryPath)
		str(&structuredKeys.typ, sa.Type)
	case model.KindCompaction:
		o.Begin(m.B)
		o.Int(&structuredKeys.preTokens, e.Compaction.PreTokens)
		str(&structuredKeys.trigger, e.Compaction.Trigger)
	case model.KindTodos:
		m.B = append(m.B, '[')
		for i, t := range e.Todos {
			if i > 0 {
				m.B = append(m.B, ',')
			}
			o.Begin(m.B)
			o.String(&structuredKeys.content, t.Content)
			str(&structuredKeys.id, t.ID)
			str(&structuredKeys.priority, t.Priority)
			o.String(&structuredKeys.status, t.Status)
			m.B = o.End()
		}
		m.B = append(m.B, ']')
		return
	case model.KindToolResult:
		o.Begin(m.B)
		str(&structuredKeys.callID, e.Result.CallID)
		if e.Result.IsError {
			o.Canonical(&structuredKeys.isError, values.true)
		}
		str(&structuredKeys.status, e.Result.Status)
	}
	m.B = o.End()
}

// lineKeys are the keys of the lines written direct, each escaped once.
var lineKeys = struct {
	event, exitCode, id, kind, latencyMS, messageID, model, name, outputHash, outputPreview,
	params, paramsHash, rest, signature, status, stepID, stepUtility, t, text, tool, usage canon.Key
}{
	canon.NewKey("event"), canon.NewKey("exit_code"), canon.NewKey("id"), canon.NewKey("kind"),
	canon.NewKey("latency_ms"), canon.NewKey("message_id"), canon.NewKey("model"), canon.NewKey("name"),
	canon.NewKey("output_hash"), canon.NewKey("output_preview"), canon.NewKey("params"),
	canon.NewKey("params_hash"), canon.NewKey("rest"), canon.NewKey("signature"),
	canon.NewKey("status"), canon.NewKey("step_id"), canon.NewKey("step_utility"),
	canon.NewKey("t"), canon.NewKey("text"), canon.NewKey("tool"), canon.NewKey("usage"),
}

// callLine writes the ToolCall of e at t (toolCall), its keys in order.
func (wr *Writer) callLine(t string, e *model.Event) {
	id, unset := wr.callID(t, e)
	m := &wr.members
	m.Begin(wr.buf[:0])
	m.String(&lineKeys.event, EventToolCall)
	m.String(&lineKeys.id, id)
	wr.messageModel(m, e)
	wr.checkParamsHash(e, m.RawHashed(&lineKeys.params, &lineKeys.paramsHash, callParams(e)))
	wr.restMember(m, e, &carries.call[unset])
	if sid, ok := e.Extra.String("step_id"); ok {
		m.String(&lineKeys.stepID, sid)
	} else {
		n := e.Step
		if n <= 0 {
			n = wr.ncalls
		}
		m.StringInt(&lineKeys.stepID, "step-", n)
	}
	m.String(&lineKeys.t, t)
	m.String(&lineKeys.tool, e.Call.Name)
	wr.usageMember(m, e)
	wr.endLine(m)
}

// resultLine writes the ToolResult of e at t, whose call ref was written
// before it (toolResult), its keys in order.
func (wr *Writer) resultLine(t string, e *model.Event, ref callRef) {
	m := &wr.members
	m.Begin(wr.buf[:0])
	m.String(&lineKeys.event, EventToolResult)
	m.Raw(&lineKeys.exitCode, wr.exitCode(e))
	m.String(&lineKeys.id, ref.id)
	m.Int(&lineKeys.latencyMS, wr.latencyOf(e, ref, t))
	wr.messageModel(m, e)
	preview, cut := preview(e.Result.Content)
	if cut {
		wr.tmp = canon.String(wr.tmp[:0], e.Result.Content)
		m.Hash(&lineKeys.outputHash, wr.tmp)
		m.String(&lineKeys.outputPreview, preview)
	} else {
		// The preview is the whole output, hashed as it is written.
		m.HashedString(&lineKeys.outputHash, &lineKeys.outputPreview, preview)
	}
	wr.restMember(m, e, resultCarried(e, cut))
	if e.Result.Status != "" {
		m.String(&lineKeys.status, e.Result.Status)
	}
	m.Raw(&lineKeys.stepUtility, stepUtility(e))
	m.String(&lineKeys.t, t)
	wr.usageMember(m, e)
	wr.endLine(m)
}

// textLine writes the Message of a user, agent or thinking event e at t
// (Event), its keys in order.
func (wr *Writer) textLine(t string, e *model.Event) {
	m := &wr.members
	m.Begin(wr.buf[:0])
	m.String(&lineKeys.event, EventMessage)
	m.String(&lineKeys.kind, e.Kind.String())
	wr.messageModel(m, e)
	wr.restMember(m, e, &carries.text)
	if e.Signature != "" {
		m.String(&lineKeys.signature, e.Signature)
	}
	m.String(&lineKeys.t, t)
	m.String(&lineKeys.text, e.Text)
	wr.usageMember(m, e)
	wr.endLine(m)
}

// messageModel writes the message id and model of e a line carries
// (usage).
func (wr *Writer) messageModel(m *canon.Members, e *model.Event) {
	if e.MessageID != "" && !model.SyntheticMessageID(e.MessageID) {
		m.String(&lineKeys.messageID, e.MessageID)
	}
	if e.Model != "" && e.Model != wr.h.Model {
		m.String(&lineKeys.model, e.Model)
	}
}

// usageLineKeys are usageKeys escaped once.
var usageLineKeys = [len(usageKeys)]canon.Key{
	canon.NewKey(usageKeys[0]), canon.NewKey(usageKeys[1]), canon.NewKey(usageKeys[2]), canon.NewKey(usageKeys[3]),
}

// usageMember writes the usage of e a line carries (usage), as an object
// of usageKeys.
func (wr *Writer) usageMember(m *canon.Members, e *model.Event) {
	if u := e.Usage; u != nil {
		m.Ints(&lineKeys.usage, usageLineKeys[:], []int64{u.CacheCreate, u.CacheRead, u.Input, u.Output})
	}
}

// restMember writes the rest of e on its line (finish): what its kind of
// line holds of it is carried.
func (wr *Writer) restMember(m *canon.Members, e *model.Event, carried *model.Carried) {
	c := *carried // (its unset names shared: what is added has none)
	if e.Time != "" {
		c.Add(&carries.time)
	}
	c.Add(&carries.messageIDModel)
	// Written where it goes in the line (rest, without the copy).
	m.Key(&lineKeys.rest)
	own := wr.restBuf.Swap(m.B)
	model.WriteRestCarried(&wr.restBuf, e, nil, &c)
	m.B = wr.restBuf.Swap(own)
}

// endLine ends the line m and writes it (line).
func (wr *Writer) endLine(m *canon.Members) {
	wr.buf = append(m.End(), '\n')
	if wr.err == nil {
		_, wr.err = wr.w.Write(wr.buf)
	}
}

// lifecycleLine makes the line of a lifecycle event: REPLAY's own event
// for one of REPLAY's lifecycle events, the SessionStart or SessionEnd
// line for the session's start and end, a Message for people for others
// (from another format; a REPLAY source's are dropped). done says the
// event needs nothing more: its line is written, or it has none.
func (wr *Writer) lifecycleLine(f *canon.Object, t string, e *model.Event) (done bool) {
	switch {
	case e.Name == "start":
		if !wr.other || wr.startWritten(e) {
			return true // the SessionStart line holds it
		}
	case e.Name == "end":
		wr.end(wr.h, t, e)
		return true
	case isLifecycle(e.Name):
		f.String("event", e.Name)
		f.String("t", t)
		for _, x := range e.Extra {
			f.Raw(x.Key, x.Value)
		}
		wr.usage(f, e)
		wr.line(true)
		return true
	}
	return wr.messageOrDrop(f, t, e, "lifecycle "+e.Name)
}

// passthroughLine makes the line of a record rlog-ls has no kind for: a
// REPLAY source's own line as it was, a Message for one from another
// format (a REPLAY source's without its line are dropped). done as for
// lifecycleLine.
func (wr *Writer) passthroughLine(f *canon.Object, t string, e *model.Event) (done bool) {
	if !wr.other && len(e.Raw) > 0 {
		raw, _ := model.ParseFields(e.Raw)
		for _, x := range raw {
			f.Raw(x.Key, x.Value)
		}
		wr.line(true)
		return true
	}
	return wr.messageOrDrop(f, t, e, "record "+e.RawType)
}

// messageOrDrop makes f the Message for people of an event from another
// format (its rest gives the event back; done is false) and drops a REPLAY
// source's event, what it is named in the loss report.
func (wr *Writer) messageOrDrop(f *canon.Object, t string, e *model.Event, what string) (done bool) {
	if !wr.other {
		wr.rep.DropEvent(e, what+" (no REPLAY event)")
		return true
	}
	if wr.directMessage(t, e) {
		return true
	}
	wr.message(f, t, e)
	return false
}

// message makes f the Message of an event REPLAY has no event for: its
// kind, its text for people (describe) and its fields in an extension
// field named after the kind (structured).
func (wr *Writer) message(f *canon.Object, t string, e *model.Event) {
	f.String("event", EventMessage)
	f.String("t", t)
	f.String("kind", e.Kind.String())
	f.String("text", describe(e))
	if e.Kind == model.KindSystem && e.Name != "" {
		f.String("name", e.Name)
	}
	if x := wr.structured(e); x != nil {
		f.Raw(e.Kind.String(), x)
	}
}

// startWritten reports whether the start event e is the one the
// SessionStart line holds (the session's first event).
func (wr *Writer) startWritten(e *model.Event) bool {
	if wr.startDone {
		return false
	}
	wr.startDone = true
	return wr.firstStart
}

// usage carries an event's token usage, model and message id as
// extension fields (`usage`, `model`, `message_id`), which REPLAY consumers
// ignore as the spec says they must: REPLAY has no event for them, and
// without them a round trip through REPLAY would lose every token count.
// The usage object has Anthropic's names, as Claude Code writes it.
// usageKeys are its keys, sorted.
var usageKeys = [...]string{"cache_creation_input_tokens", "cache_read_input_tokens", "input_tokens", "output_tokens"}

func (wr *Writer) usage(f *canon.Object, e *model.Event) {
	if e.MessageID != "" && !model.SyntheticMessageID(e.MessageID) {
		f.String("message_id", e.MessageID)
	}
	if e.Model != "" && e.Model != wr.h.Model {
		f.String("model", e.Model)
	}
	if u := e.Usage; u != nil {
		f.Ints("usage", usageKeys[:], []int64{u.CacheCreate, u.CacheRead, u.Input, u.Output})
	}
}

// structured is what a Message of an event REPLAY has no event for keeps
// beside its text, under the event's kind (`"subagent":{…}`), so reading
// it back gives the event: a sub-agent's ids, type, status and summary, a
// compaction's trigger and token count, a todo list, an orphan tool
// result's call id and status. Nil when there is nothing to keep.
func (wr *Writer) structured(e *model.Event) []byte {
	var x model.Fields
	str := func(k, v string) {
		if v != "" {
			x.SetString(k, v)
		}
	}
	switch e.Kind {
	case model.KindSubagent:
		sa := e.Subagent
		str("id", sa.ID)
		str("agent_id", sa.AgentID)
		str("type", sa.Type)
		str("status", sa.Status)
		str("summary", sa.Summary)
		str("session_id", sa.SessionID)
		str("trajectory_path", sa.TrajectoryPath)
		if x == nil {
			return []byte("{}")
		}
	case model.KindCompaction:
		if e.Compaction == nil {
			return nil
		}
		str("trigger", e.Compaction.Trigger)
		x.SetAny("pre_tokens", e.Compaction.PreTokens)
	case model.KindTodos:
		var list []model.Fields
		for _, t := range e.Todos {
			var tf model.Fields
			tf.SetString("content", t.Content)
			tf.SetString("status", t.Status)
			if t.ID != "" {
				tf.SetString("id", t.ID)
			}
			if t.Priority != "" {
				tf.SetString("priority", t.Priority)
			}
			list = append(list, tf)
		}
		if list == nil {
			return []byte("[]")
		}
		return model.MustJSON(list)
	case model.KindToolResult:
		str("call_id", e.Result.CallID)
		str("status", e.Result.Status)
		if e.Result.IsError {
			x.Set("is_error", []byte("true"))
		}
		if x == nil {
			return []byte("{}")
		}
	default:
		return nil
	}
	return model.MustJSON(x)
}

func describe(e *model.Event) string {
	switch e.Kind {
	case model.KindSubagent:
		return strings.TrimSpace(e.Subagent.Type + " " + e.Subagent.ID + " " + e.Subagent.Status + " " + e.Subagent.Summary)
	case model.KindTodos:
		var parts []string
		for _, t := range e.Todos {
			parts = append(parts, "["+t.Status+"] "+t.Content)
		}
		return strings.Join(parts, "; ")
	case model.KindCompaction:
		return pickTime(e.Text, "context compaction")
	}
	return model.Describe(e)
}

func (wr *Writer) end(h *model.Header, t string, e *model.Event) error {
	if wr.ended {
		if wr.other && e != nil {
			// A second end event: a Message, which its rest gives back.
			f := &wr.obj
			f.Reset()
			f.String("event", EventMessage)
			f.String("t", t)
			f.String("kind", "lifecycle")
			f.String("text", describe(e))
			wr.usage(f, e)
			f.Canonical("rest", wr.rest(e, &carries.none))
			wr.line(false)
		}
		return wr.err
	}
	wr.ended = true
	f := &wr.obj
	f.Reset()
	f.String("event", EventSessionEnd)
	f.String("t", t)
	status := "Success"
	if h.Outcome != nil && h.Outcome.Success != nil && !*h.Outcome.Success {
		status = "Failed"
	}
	f.String("status", status)
	f.Raw("confidence", []byte("0.0"))
	f.Int("total_tool_calls", wr.ncalls)
	f.Int("total_latency_ms", wr.latency)
	if e != nil && !wr.other {
		// A REPLAY source's own SessionEnd fields (its confidence).
		for _, x := range e.Extra {
			if x.Key == "confidence" {
				f.Raw(x.Key, x.Value)
			}
		}
	}
	if wr.other {
		// The source's end event, or none: the writer's line.
		if e != nil {
			f.Canonical("rest", wr.rest(e, &carries.none))
		} else {
			f.Raw("rest", []byte("null"))
		}
		if h.Outcome == nil {
			wr.madeUp = append(wr.madeUp, "outcome")
		}
	}
	wr.line(false)
	return wr.err
}

// End implements model.Sink: a session with an outcome gets a SessionEnd.
func (wr *Writer) End(h *model.Header) error {
	if !wr.started {
		wr.start(h, nil)
	}
	if h.Outcome != nil && !wr.ended {
		wr.end(h, pickTime(h.Ended, wr.last, h.Started), nil)
	}
	if wr.other {
		wr.sourceEnd(h)
	}
	return wr.err
}

// sourceEnd writes the last line of a session from another format: what
// its header says only now, and the values the writer made up.
func (wr *Writer) sourceEnd(h *model.Header) {
	f := &wr.obj
	f.Reset()
	f.String("event", eventSourceEnd)
	f.String("t", pickTime(wr.last, h.Ended, h.Started, wr.opt.Time().Format(time.RFC3339)))
	src, _ := model.ParseValidFields(model.SourceEndOf(h, wr.extraKeys, wr.madeUp))
	for _, x := range src {
		f.Raw(x.Key, x.Value)
	}
	wr.line(false)
}

// Preview cuts s to the spec's output_preview: the first 1000 and the last
// 1000 characters around "...". An invalid byte counts as one character
// and is kept as it is (the JSON string it goes into writes U+FFFD).
func Preview(s string) string {
	p, _ := preview(s)
	return p
}

// preview is Preview, and whether it cut s.
func preview(s string) (string, bool) {
	if len(s) <= PreviewLimit || utf8.RuneCountInString(s) <= PreviewLimit {
		return s, false
	}
	head, tail := 0, len(s)
	for range PreviewLimit / 2 {
		_, size := utf8.DecodeRuneInString(s[head:])
		head += size
	}
	for range PreviewLimit / 2 {
		_, size := utf8.DecodeLastRuneInString(s[:tail])
		tail -= size
	}
	if s[head:tail] == "..." {
		// s is a preview already (a REPLAY source's): nothing is cut.
		return s, false
	}
	return s[:head] + "..." + s[tail:], true
}
