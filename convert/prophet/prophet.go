// Package prophet reads and writes mini-prophet trajectory.json:
// {messages:[{key, message}], steps:[{input:[keys], output:key}],
// trajectory_format:"mini-prophet-v<version>"}, with OpenAI chat messages
// keyed S0, U0, A0, T0, O0 (one counter per role: system, user,
// assistant, tool, anything else).
//
// Both directions stream. The reader hands out one message at a time and
// passes over the steps. The writer writes each message as it comes and the
// steps after them; a step's input lists the messages that are new since
// the step before (the first step's: everything before it), so the steps
// grow with the session, not with its square. mini-prophet itself lists
// the whole context window in each input; no other format records that
// window, and the difference is reported.
package prophet

import (
	"encoding/binary"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rlog-ls/rlog-ls/convert/internal/jsonw"
	"github.com/rlog-ls/rlog-ls/convert/internal/strblock"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// Name is the format name used by the CLI.
const Name = "prophet"

// DefaultFormat is the trajectory_format written for other sources.
const DefaultFormat = "mini-prophet-v0.1.10"

// Read reads a mini-prophet trajectory, one message at a time, in the
// order of the messages list (the order the recorder first saw them). The
// per-step context windows (steps[].input) have no place in the model and
// are reported as dropped. Root fields after the messages
// (trajectory_format) complete the header by the sink's End.
func Read(r io.Reader, sink model.Sink, rep *model.Report) error {
	rd := &reader{sink: sink, rep: rep, h: &model.Header{SourceFormat: Name, AgentName: "mini-prophet"},
		strs: strblock.New(stringBlock, maxBlockString), ids: strblock.New(idBlock, maxBlockID)}
	rd.ix.MakeStrings(&rd.strs)
	rd.ix.MakeIDs(&rd.ids)
	err := model.Document{
		Format: "prophet",
		List:   "messages",
		Elem:   func(i int, b []byte, loc model.Loc) error { return rd.message(b, loc) },
		Root:   rd.root,
		Index:  &rd.ix,
		Skip:   []string{"steps"},
		Skipped: func(key string, n int) {
			if n > 0 {
				rep.Add(model.LossDroppedField, "steps[].input (context window per step)", model.Loc{Path: "$.steps"})
			}
		},
	}.Read(r, rep)
	if err != nil {
		return err
	}
	return sink.End(rd.h)
}

type reader struct {
	sink model.Sink
	rep  *model.Report
	h    *model.Header
	// ix indexes the message entry being read (model.ParseRecord), so
	// that its message, extra and tool calls are each listed without
	// passing over what is nested in them again (model.ParseIn).
	ix jsonscan.Index
	// Room for the lists an entry is read with and does not keep (what
	// the events keep of them is copied): the entry, its message, a tool
	// call and its function, the response, and the members of a rest.
	// Each is the room of one list at a time.
	entry, msg, call, function, response model.Scratch
	restMembers                          []jsonscan.Span
	// strs is where the strings of the entries' values that the events
	// keep are made (the index's String), many to an allocation; ids is
	// where the call ids are (the index's ID), so that a call id a writer
	// keeps (its recent call ids) keeps a block of call ids alive, not
	// one of texts.
	strs, ids strblock.Room
}

// stringBlock and maxBlockString are the size of the blocks a reader
// makes its strings in and the longest string made in one (a longer one
// is an allocation of its own, so that a block is mostly filled before
// the next is made); idBlock and maxBlockID are the same for the ids: a
// block of about a hundred. As the ATIF readers'.
const (
	stringBlock    = 16 << 10
	maxBlockString = 1 << 10
	idBlock        = 2 << 10
	maxBlockID     = 64
)

func (rd *reader) root(key string, v json.RawMessage) {
	h := rd.h
	switch key {
	case "trajectory_format":
		h.SourceVersion, _ = jsonscan.String(v)
		if h.Origin == "" {
			// Written from another format, it is this package's writer's
			// version, not the session's agent.
			h.AgentVersion = strings.TrimPrefix(h.SourceVersion, "mini-prophet-v")
		}
	case "session_id":
		h.ID, _ = jsonscan.String(v)
	case "model":
		h.Model, _ = jsonscan.String(v)
	case "source", "source_end":
		// This package's writer's, from another format: where the
		// session came from, and the header fields the root has no key
		// for.
		if _, err := model.ApplySource(h, v); err != nil {
			rd.rep.Add(model.LossMalformed, key+": "+err.Error(), model.Loc{Path: "$." + key})
		}
	default:
		h.Extra.Set(key, v)
	}
}

func (rd *reader) emit(e *model.Event) error {
	rd.rep.Events++
	if rd.h.Started == "" && e.Time != "" && rd.h.Origin == "" {
		rd.h.Started = e.Time
	}
	return rd.sink.Event(rd.h, e)
}

// emitAll emits the events of one message, first giving them what this
// package's writer kept of them in the message's extra.rests (a session
// written from another format; model.ApplyRests).
func (rd *reader) emitAll(events []model.Event, rests json.RawMessage, loc model.Loc) error {
	if rests != nil {
		if list, err := model.RestListAt(rests); err != nil {
			rd.rep.Add(model.LossMalformed, "message extra.rests is not a list", loc)
		} else {
			base := model.Event{Loc: loc}
			if len(events) > 0 {
				// The message's usage is each of its events' (the rest of
				// one that had none says so): the response's, on whichever
				// line or block of it the source had it.
				if u := events[0].Usage; u != nil {
					for i := 1; i < len(events); i++ {
						if events[i].Usage == nil {
							c := *u
							events[i].Usage = &c
						}
					}
				}
				events[0].Name = "" // the message's role, not the event's
				base = events[0]
				base.Call, base.Result, base.Text, base.ID = nil, nil, "", ""
			}
			events = model.ApplyRestListIn(&rd.ix, events, list, true, base, func(err error) {
				rd.rep.Add(model.LossMalformed, "message extra.rests: "+err.Error(), loc)
			}, &rd.restMembers)
		}
	}
	for i := range events {
		if err := rd.emit(&events[i]); err != nil {
			return err
		}
	}
	return nil
}

// readInPlace is false only in the tests, which hold reading in place to
// reading copies (FuzzReadInPlace).
var readInPlace = true

// message reads one {key, message} entry.
func (rd *reader) message(b []byte, loc model.Loc) error {
	// When the entry is valid UTF-8, its objects are read in place (every
	// value is byte for byte what copying it would give) and only what
	// the events keep is copied: the extra, the strings. The index checks
	// the entry once, for the rests too.
	wrap, err := rd.entry.ParseRecord(&rd.ix, b, false, true)
	if err != nil || wrap == nil {
		rd.rep.Add(model.LossMalformed, "message entry is not an object", loc)
		return nil
	}
	inPlace := readInPlace && rd.ix.InputValidUTF8()
	if !inPlace {
		wrap.CopyValues()
	}
	// parse lists an object of the entry into room.
	parse := func(room *model.Scratch, raw []byte) (model.Fields, error) {
		return room.ParseIn(&rd.ix, raw, !inPlace)
	}
	key, _ := wrap.StringIn(&rd.ix, "key")
	mraw, _ := wrap.Get("message")
	m, err := parse(&rd.msg, mraw)
	if err != nil || m == nil {
		rd.rep.Add(model.LossMalformed, "message is not an object", loc)
		return nil
	}
	role, _ := m.StringIn(&rd.ix, "role")
	content, _ := m.StringIn(&rd.ix, "content")
	var extra model.Fields
	var restList json.RawMessage
	if x, ok := m.Get("extra"); ok {
		// The rests are read where they are, not kept; the rest of the
		// extra is the events', copied.
		extra, _ = model.ParseIn(&rd.ix, x, false)
		restList, _ = extra.Get("rests")
		extra.Delete("rests")
		extra.CopyValuesIn(&rd.ix)
	}
	ev := &model.Event{Loc: loc, ID: key, Text: content}
	if ts, ok := extra.Get("timestamp"); ok {
		ev.Time = rfc3339(ts)
		extra.Delete("timestamp")
	}
	switch role {
	case "system":
		ev.Kind = model.KindSystem
		ev.Name = "system"
	case "user":
		ev.Kind = model.KindUser
		if _, ok := extra.Get("interrupt_type"); ok {
			ev.Meta = true
		}
	case "assistant":
		return rd.assistant(ev, m, extra, key, loc, restList, parse)
	case "tool":
		ev.Kind = model.KindToolResult
		id, _ := m.IDIn(&rd.ix, "tool_call_id")
		isErr := false
		if e, ok := extra.Get("error"); ok && !jsonscan.IsNull(e) && string(e) != "false" {
			isErr = true
		}
		extra.Delete("error")
		status, _ := extra.String("status")
		if status != "" {
			// This writer's: a status other than ok or error.
			extra.Delete("status")
		}
		ev.Result = &model.ToolResult{CallID: id, Content: content, IsError: isErr, Status: status}
		ev.Text = ""
	case "exit":
		ev.Kind = model.KindLifecycle
		ev.Name = "end"
		out := &model.Outcome{ResultText: content}
		status, _ := extra.String("exit_status")
		ok := status == "Submitted" || status == "submitted"
		out.Success = &ok
		if o, has := extra.Get("outcome"); has && json.Unmarshal(o, out) == nil {
			// This package's writer's: the outcome as it was.
			*out = model.Outcome{}
			json.Unmarshal(o, out)
			for _, k := range []string{"outcome", "exit_status", "submission"} {
				extra.Delete(k)
			}
		}
		rd.h.Outcome = out
	default:
		ev.Kind = model.KindSystem
		ev.Name = role
	}
	ev.Extra = extra
	return rd.emitAll([]model.Event{*ev}, restList, loc)
}

// assistant reads an assistant message: an agent event with the turn's
// usage, then one event per tool call.
func (rd *reader) assistant(ev *model.Event, m, extra model.Fields, key string, loc model.Loc, restList json.RawMessage, parse func(*model.Scratch, []byte) (model.Fields, error)) error {
	ev.Kind = model.KindAgent
	// Without one, the message's key ties its events together, made up.
	ev.MessageID = model.SyntheticMessagePrefix + key
	if id, ok := extra.String("message_id"); ok && id != "" {
		ev.MessageID = id
	}
	ev.Model, _ = extra.String("model")
	if ev.Model == "" {
		if resp, ok := extra.Get("response"); ok {
			rf, _ := parse(&rd.response, resp)
			ev.Model, _ = rf.StringIn(&rd.ix, "model")
		}
	}
	if rd.h.Model == "" {
		rd.h.Model = ev.Model
	}
	u := &model.Usage{}
	prompt, _ := intOf(extra, "prompt_tokens")
	u.Output, _ = intOf(extra, "completion_tokens")
	u.CacheRead, _ = intOf(extra, "cached_tokens")
	u.CacheCreate, _ = intOf(extra, "cache_creation_tokens")
	u.Input = max(prompt-u.CacheRead-u.CacheCreate, 0)
	if !u.IsZero() {
		ev.Usage = u
	}
	for _, k := range []string{"prompt_tokens", "completion_tokens", "cached_tokens", "cache_creation_tokens", "total_tokens", "actions", "message_id", "model"} {
		extra.Delete(k)
	}
	ev.Extra = extra
	events := []model.Event{*ev}
	tc, ok := m.Get("tool_calls")
	if !ok || jsonscan.IsNull(tc) {
		return rd.emitAll(events, restList, loc)
	}
	err := rd.ix.Array(tc, func(j int, cb []byte) error {
		cf, _ := parse(&rd.call, cb)
		call := &model.ToolCall{}
		call.ID, _ = cf.IDIn(&rd.ix, "id")
		if fn, ok := cf.Get("function"); ok {
			ff, _ := parse(&rd.function, fn)
			call.Name, _ = ff.StringIn(&rd.ix, "name")
			args, _ := ff.StringIn(&rd.ix, "arguments")
			if jsonscan.Valid([]byte(args)) {
				call.Input = json.RawMessage(args)
			} else if args != "" {
				call.Input = model.MustJSON(model.Fields{{Key: "input", Value: model.MustJSON(args)}})
				rd.rep.Add(model.LossMalformed, "tool call arguments are not JSON", loc)
			}
		}
		events = append(events, model.Event{Kind: model.KindToolCall, Time: ev.Time, ID: key, MessageID: ev.MessageID, Model: ev.Model, Call: call, Loc: loc})
		return nil
	})
	if err != nil {
		return err
	}
	return rd.emitAll(events, restList, loc)
}

// rfc3339 turns mini-prophet's unix timestamp (a float, read from its
// digits, not through a float64) into RFC 3339 in UTC, with milliseconds
// unless it has finer digits. The form nearly every timestamp has is
// written from its digits (rfc3339Digits); any other goes through time
// (rfc3339ByTime), which FuzzRFC3339 holds the digits to.
func rfc3339(v []byte) string {
	if s, ok := rfc3339Digits(v); ok {
		return s
	}
	return rfc3339ByTime(v)
}

// maxDigitsUnix is 10000-01-01T00:00:00Z in unix seconds: rfc3339Digits
// writes years of four digits.
const maxDigitsUnix = 253402300800

// rfc3339Digits is rfc3339(v) for the form nearly every timestamp has, up
// to twelve digits of seconds before 10000-01-01 and a fraction of at
// most nine digits, or none, worked out from the digits without strconv
// and time.Format (which cost the reader about 7% of its instructions,
// once a message). ok is false for any other v.
func rfc3339Digits(v []byte) (s string, ok bool) {
	var sec int64
	i := 0
	for ; i < len(v) && v[i] != '.'; i++ {
		c := v[i] - '0'
		if c > 9 || i == 12 {
			return "", false
		}
		sec = sec*10 + int64(c)
	}
	if i == 0 || sec >= maxDigitsUnix {
		return "", false
	}
	nanos := 0
	if i < len(v) {
		frac := v[i+1:]
		if len(frac) > 9 {
			return "", false
		}
		for j := range 9 {
			nanos *= 10
			if j < len(frac) {
				c := frac[j] - '0'
				if c > 9 {
					return "", false
				}
				nanos += int(c)
			}
		}
	}
	y, mo, d := civilFromDays(sec / 86400)
	day := int(sec % 86400)
	var buf [32]byte
	b := append(buf[:0], byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-')
	b = append(appendTwo(append(appendTwo(b, mo), '-'), d), 'T')
	b = append(appendTwo(append(appendTwo(append(appendTwo(b, day/3600), ':'), day/60%60), ':'), day%60), '.')
	// Milliseconds when the time has no finer digits, else microseconds
	// (time.Format cuts, not rounds, what is finer).
	if nanos%1e6 == 0 {
		ms := nanos / 1e6
		b = append(b, byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
	} else {
		us := nanos / 1e3
		b = append(b, byte('0'+us/100000), byte('0'+us/10000%10), byte('0'+us/1000%10),
			byte('0'+us/100%10), byte('0'+us/10%10), byte('0'+us%10))
	}
	return string(append(b, 'Z')), true
}

// appendTwo appends n, below 100, as two digits.
func appendTwo(b []byte, n int) []byte { return append(b, byte('0'+n/10), byte('0'+n%10)) }

// rfc3339ByTime is rfc3339 for any v, through strconv and time.Format.
func rfc3339ByTime(v []byte) string {
	s := string(v)
	secText, fracText, _ := strings.Cut(s, ".")
	sec, err := strconv.ParseInt(secText, 10, 64)
	if err != nil {
		return ""
	}
	fracText = (fracText + "000000000")[:9]
	nanos, err := strconv.ParseInt(fracText, 10, 64)
	if err != nil {
		return ""
	}
	t := time.Unix(sec, nanos).UTC()
	if nanos%1e6 == 0 {
		return t.Format("2006-01-02T15:04:05.000Z")
	}
	return t.Format("2006-01-02T15:04:05.000000Z")
}

func intOf(f model.Fields, k string) (int64, bool) {
	v, ok := f.Get(k)
	if !ok {
		return 0, false
	}
	return jsonscan.Int(v)
}

// roles are the message key prefixes, in the order of Writer.counters.
const roles = "SUATO"

// Writer writes a mini-prophet trajectory as events arrive. Each model
// turn (agent text and its tool calls, one response) becomes one
// assistant message A<n> and one step; tool results become T<n>, user
// messages U<n>, system messages S<n>, and the outcome an exit O<n>. It
// holds back the events of one turn, and keeps the order of the message
// roles (a few bytes per turn) to write the steps after the messages.
type Writer struct {
	// buf is the document written since it was last handed to out, 64
	// KB or more at a time (flush); the messages' entries are built in
	// it where they stand (beginMessage, endMessage): no message is
	// copied before it is written.
	buf jsonw.Buf
	// texts, calls and ledger are a held turn's (writeTurn): reused.
	texts []string
	calls []*model.Event
	// args are where writeCalls wrote each call's arguments in buf
	// (writeActions copies them): reused.
	args   []argsSpan
	ledger model.Ledger
	times  times
	out    io.Writer
	rep    *model.Report
	opt    model.Options
	h      *model.Header
	same   bool
	err    error

	begun    bool
	counters [len(roles)]int
	messages int
	// turn is the model turn being held; turnGrew is what its events add
	// to the session's count (counted), turnCounted whether they count a
	// message or add to one.
	turn        []*model.Event
	counted     model.Ledger
	turnGrew    model.Usage
	turnCounted bool
	// order is the sequence of message roles so far, as runs: a role
	// index and a count (uvarint), so that a turn's tool results cost two
	// bytes.
	order    []byte
	lastRole int
	runLen   int
	// carried are the header fields written elsewhere than the header
	// (mini-swe-agent's exit status on the exit message): not dropped.
	carried []string
	// rests and callRests are turnRests' lists: reused, as a message is
	// written before the next is built.
	rests, callRests []eventRest
	// idWritten and modelWritten are set when the root's head has them;
	// extraKeys are the header's extras the source object holds.
	idWritten, modelWritten bool
	extraKeys               map[string]bool
}

// NewWriter returns a streaming mini-prophet writer (a model.Sink).
func NewWriter(w io.Writer, rep *model.Report, opt model.Options) *Writer {
	wr := &Writer{out: w, rep: rep, opt: opt, lastRole: -1}
	keysMade.Do(makeKeys)
	wr.buf.Indent(0)
	return wr
}

// Write writes a whole session.
func Write(w io.Writer, s *model.Session, rep *model.Report, opt model.Options) error {
	return model.Replay(s, NewWriter(w, rep, opt))
}

// writerKeys are the keys the writer writes (keys), each in its indented
// form at the depth of the object it stands in (jsonw.Key): an entry's
// and a step's (3, in the root's lists), a message's (4), its extra's
// (5), a tool call's (6), its function's and an action's (7). They are
// made by makeKeys when the first writer is (keysMade), not at load: a
// process that writes no mini-prophet makes none; every writer reads
// them after its keysMade.Do, at the fixed place makeKeys wrote them.
type writerKeys struct {
	key, message, input, output                                jsonw.Key
	role, content, toolCallID, toolCalls, extra                jsonw.Key
	actions, timestamp, model, messageID, rests, error, status jsonw.Key
	promptTokens, completionTokens, totalTokens, cachedTokens  jsonw.Key
	cacheCreationTokens, exitStatus, submission                jsonw.Key
	id, typ, function                                          jsonw.Key
	name, arguments, actionCallID                              jsonw.Key
}

var (
	keys     writerKeys
	keysMade sync.Once
)

func makeKeys() {
	keys = writerKeys{
		key: jsonw.NewKey("key", 3), message: jsonw.NewKey("message", 3),
		input: jsonw.NewKey("input", 3), output: jsonw.NewKey("output", 3),
		role: jsonw.NewKey("role", 4), content: jsonw.NewKey("content", 4),
		toolCallID: jsonw.NewKey("tool_call_id", 4), toolCalls: jsonw.NewKey("tool_calls", 4),
		extra:   jsonw.NewKey("extra", 4),
		actions: jsonw.NewKey("actions", 5), timestamp: jsonw.NewKey("timestamp", 5),
		model: jsonw.NewKey("model", 5), messageID: jsonw.NewKey("message_id", 5),
		rests: jsonw.NewKey("rests", 5), error: jsonw.NewKey("error", 5),
		status:       jsonw.NewKey("status", 5),
		promptTokens: jsonw.NewKey("prompt_tokens", 5), completionTokens: jsonw.NewKey("completion_tokens", 5),
		totalTokens: jsonw.NewKey("total_tokens", 5), cachedTokens: jsonw.NewKey("cached_tokens", 5),
		cacheCreationTokens: jsonw.NewKey("cache_creation_tokens", 5),
		exitStatus:          jsonw.NewKey("exit_status", 5), submission: jsonw.NewKey("submission", 5),
		id: jsonw.NewKey("id", 6), typ: jsonw.NewKey("type", 6), function: jsonw.NewKey("function", 6),
		name: jsonw.NewKey("name", 7), arguments: jsonw.NewKey("arguments", 7),
		actionCallID: jsonw.NewKey("tool_call_id", 7),
	}
	makeHeads()
}

// maxTurnEvents bounds a held turn; a longer one is written in parts.
const maxTurnEvents = 4096

// flushSize is how much of the document buf holds before it is
// written out.
const flushSize = 64 << 10

// flush hands what buf holds to out.
func (wr *Writer) flush() {
	if wr.err == nil {
		var n int
		n, wr.err = wr.out.Write(wr.buf.Bytes())
		if wr.err == nil && n < wr.buf.Len() {
			wr.err = io.ErrShortWrite
		}
	}
	wr.buf.Reset()
}

func (wr *Writer) begin(h *model.Header) {
	wr.begun = true
	wr.h = h
	origin, _ := h.First()
	wr.same = origin == Name
	b := &wr.buf
	o := b.Begin()
	if wr.same {
		o.Key("messages")
		b.List() // its elements are the messages' entries (beginMessage)
		return
	}
	// From another format, what the header says goes first, so that a
	// reader knows it before the messages: the session id and model, and
	// where the session came from with the header fields the root has no
	// key for (the source object, which the reader gives back).
	if h.ID != "" {
		o.Str("session_id", h.ID)
		wr.idWritten = true
	}
	if h.Model != "" {
		o.Str("model", h.Model)
		wr.modelWritten = true
	}
	wr.extraKeys = map[string]bool{}
	o.Raw("source", model.SourceOf(h, wr.extraKeys, nil, "model"))
	o.Key("messages")
	b.List() // its elements are the messages' entries (beginMessage)
}

// eventRest is the rest of one event (model.RestOf), decided when its
// message is put together and written where it stands in it
// (writeRests): the event (nil: null) and what the message carries of it.
type eventRest struct {
	e       *model.Event
	carried model.Carried
}

// rest is the rest of e in a message (model.RestOf): what the message
// does not hold of it, c (sets made once, carries) and the names unset
// says e has none of (carries.unset's bits); to those it adds the time
// when it is the message's (a message's own time is its first event's),
// and -id and -usage when e has none. No list of names is made or matched
// per event (model.Carried).
func (wr *Writer) rest(e *model.Event, time string, c model.Carried, unset int) eventRest {
	if e.Time == time && wr.times.readBack(time) {
		// (The reader's spelling of it: another spelling of the instant
		// stays in the rest.)
		c.Add(&carries.time)
	}
	if e.ID == "" {
		unset |= unsetID // not the message key
	}
	if e.Usage == nil {
		unset |= unsetUsage // not the message's
	}
	// (The unset names are carries.unset's, shared and never appended
	// to: c has no names of its own to add.)
	r := carries.unset[unset]
	r.Add(&c)
	return eventRest{e, r}
}

// The bits of carries.unset's index: the names a rest says its event has
// none of, in the order the rests name them.
const (
	unsetMessageID = 1 << iota
	unsetID
	unsetUsage
)

// carries are the lists of fields the rests carry (model.RestOf's
// carried), each made into a model.Carried once, and the eight lists of
// names a rest says its event has none of (unsetMessageID, ...).
var carries = func() (c struct {
	none, model, messageID, plusUsage, text, call, result, time model.Carried
	unset                                                       []model.Carried
}) {
	c.model = model.CarriedOf("model")
	c.messageID = model.CarriedOf("message_id")
	c.plusUsage = model.CarriedOf("+usage")
	c.text = model.CarriedOf("text")
	c.call = model.CarriedOf("call.id", "call.name", "call.input")
	c.result = model.CarriedOf("result.call_id", "result.content", "result.is_error", "result.status")
	c.time = model.CarriedOf("time")
	c.unset = model.CarriedUnsets("-message_id", "-id", "-usage") // (unsetMessageID, ...)
	return c
}()

// endWithRests writes a message's extra.rests where it goes in buf (its
// key written: the last member of the extra, the message's last), each
// rest written indented where it stands (model.WriteRestCarried), null
// for none (list has one or more), and ends the list, the extra, the
// message and its entry (endMessage).
//
// Those four ends are the same at every message (the list's closing
// bracket on the extra's line, ...): made once by the calls that wrote
// them (makeHeads) and stored, where those calls wrote each line and
// bracket again.
func (wr *Writer) endWithRests(list ...eventRest) {
	b := &wr.buf
	l := b.List()
	for _, r := range list {
		l.Next()
		if r.e == nil {
			b.Raw([]byte("null"))
			continue
		}
		model.WriteRestCarried(b, r.e, nil, &r.carried)
	}
	if storeBlocks {
		b.Keep(append(b.Free(len(restsTail)), restsTail...))
		b.Indent(messageDepth - 2)
	} else {
		writeRestsTail(b)
	}
	if b.Len() >= flushSize {
		wr.flush()
	}
}

// writeRestsTail ends a message's rests list (one element or more), its
// extra, the message and its entry, through jsonw's calls: the bytes
// restsTail stores.
func writeRestsTail(b *jsonw.Buf) {
	b.ContinueList(1).End()
	b.Continue(1).End()
	b.Continue(1).End()
	b.Continue(2).End()
}

// restsTail is what endWithRests stores, made by makeHeads of what
// writeRestsTail writes.
var restsTail string

// Event implements model.Sink.
func (wr *Writer) Event(h *model.Header, e *model.Event) error {
	if !wr.begun {
		wr.begin(h)
	}
	ch := wr.counted.Add(e)
	if isTurn(e.Kind) {
		if len(wr.turn) > 0 && !joinsTurn(wr.turn, e) || len(wr.turn) >= maxTurnEvents {
			wr.writeTurn()
		}
		wr.turn = append(wr.turn, e)
		wr.turnGrew = wr.turnGrew.Add(model.UsageOf(ch.Grew))
		wr.turnCounted = wr.turnCounted || ch.New || !ch.Grew.IsZero()
		return wr.err
	}
	wr.writeTurn()
	wr.other(e)
	return wr.err
}

func isTurn(k model.Kind) bool {
	return k == model.KindAgent || k == model.KindThinking || k == model.KindToolCall
}

// joinsTurn reports whether e belongs to the held turn: the same response
// (or no message ids), and text or reasoning only before the calls.
func joinsTurn(turn []*model.Event, e *model.Event) bool {
	first := turn[0]
	if e.MessageID != "" && first.MessageID != "" && e.MessageID != first.MessageID {
		return false
	}
	if e.Kind != model.KindToolCall {
		for _, x := range turn {
			if x.Kind == model.KindToolCall {
				return false
			}
		}
	}
	return true
}

// End implements model.Sink.
func (wr *Writer) End(h *model.Header) error {
	wr.h = h
	if !wr.begun {
		wr.begin(h)
	}
	wr.writeTurn()
	if out := h.Outcome; out != nil && !wr.same {
		wr.exit(out)
	}
	wr.endRun()
	b := &wr.buf
	b.ContinueList(wr.messages).End()
	o := b.Continue(1)
	o.Key("steps")
	wr.steps()
	format := DefaultFormat
	if _, version := h.First(); wr.same && version != "" {
		format = version
	}
	o.Str("trajectory_format", format)
	if wr.same {
		for _, f := range h.Extra {
			o.Raw(f.Key, f.Value)
		}
	} else {
		if h.ID != "" && !wr.idWritten {
			o.Str("session_id", h.ID)
		}
		if h.Model != "" && !wr.modelWritten {
			o.Str("model", h.Model)
		}
		// What the header says only now, for the reader.
		o.Raw("source_end", model.SourceEndOf(h, wr.extraKeys, nil, "outcome"))
	}
	o.End()
	wr.flush()
	return wr.err
}

// beginMessage begins the {key, message} entry of the next message, of
// role (a byte of roles), in buf, up to the message's role: the caller
// writes the rest of the message into what it returns (b.Continue(1):
// the message object, its role written), indented where it stands
// (inside the root, its messages list and the entry), and ends it with
// endMessage.
//
// What comes before the key's number and after it up to the role is
// the same at every message of a role (the entry stands at the same
// depth in every document): made once by the calls that wrote it
// (makeHeads) and stored, where those calls wrote each line, key and
// bracket again (about 300 instructions a message).
func (wr *Writer) beginMessage(role byte) *jsonw.Buf {
	b := &wr.buf
	r := strings.IndexByte(roles, role)
	if storeBlocks {
		h := &heads[r]
		dst := b.Free(len(h.key) + len(h.message) + 24)
		if wr.messages > 0 {
			dst = append(dst, ',')
		}
		dst = jsonw.AppendInt(append(dst, h.key...), int64(wr.counters[r]))
		b.Keep(append(dst, h.message...))
		b.Indent(messageDepth)
	} else {
		writeMessageHead(b, wr.messages, r, wr.counters[r])
	}
	wr.messages++
	wr.counters[r]++
	if r != wr.lastRole {
		wr.endRun()
		wr.lastRole = r
	}
	wr.runLen++
	return b
}

// storeBlocks is false only in the tests, which hold the blocks the
// writer stores (heads) and the arguments it copies (writeActions) to
// what jsonw's calls write (FuzzWriteBlocks).
var storeBlocks = true

// roleNames are the roles' names in a message (its "role"), in the order
// of roles.
var roleNames = [len(roles)]string{"system", "user", "assistant", "tool", "exit"}

// messageDepth is the depth of a message's members: inside the root,
// its messages list, the entry and the message.
const messageDepth = 4

// writeMessageHead writes the entry of the message of role r (an index
// of roles) and number n, the list's element after n others, up to its
// role, through jsonw's calls: the bytes heads stores.
func writeMessageHead(b *jsonw.Buf, n, r, number int) {
	b.ContinueList(n).Next()
	o := b.Begin()
	o.KeyAt(&keys.key)
	writeMessageKey(b, r, number)
	o.KeyAt(&keys.message)
	b.Begin().StrAt(&keys.role, roleNames[r])
}

// messageHead is what beginMessage stores of the entry of a message of
// one role (after the separator): its first line up to the key's
// number, and from the number's closing quote to the message's role.
type messageHead struct{ key, message string }

// heads are each role's messageHead (an index of roles), made by
// makeHeads with keys.
var heads [len(roles)]messageHead

// makeHeads makes heads of what writeMessageHead writes, in a Buf at the
// messages list's depth: the first element's entry, up to the key's
// number and from it on.
func makeHeads() {
	for r := range roles {
		var b jsonw.Buf
		b.Indent(messageDepth - 2)
		writeMessageHead(&b, 0, r, 0)
		text := string(b.Bytes())
		at := strings.Index(text, `"`+roles[r:r+1]+`0"`) + 2 // the number
		heads[r] = messageHead{text[:at], text[at+1:]}
	}
	var b jsonw.Buf
	b.Indent(messageDepth + 2) // in the rests list, in the extra
	writeRestsTail(&b)
	restsTail = string(b.Bytes())
}

// endMessage ends the entry beginMessage began (its two members
// written), and writes buf out when it holds flushSize.
func (wr *Writer) endMessage() {
	b := &wr.buf
	b.Continue(2).End()
	if b.Len() >= flushSize {
		wr.flush()
	}
}

// writeMessageKey writes the key of the message of role r (an index of
// roles) and number n, as a string: what Str writes of
// string(roles[r]) + strconv.Itoa(n), made without the string, in
// place in b's room (no copy from a stack array through memmove).
func writeMessageKey(b *jsonw.Buf, r, n int) {
	dst := append(b.Free(24), '"', roles[r])
	b.Keep(append(jsonw.AppendInt(dst, int64(n)), '"'))
}

// endRun records the run of the last role.
func (wr *Writer) endRun() {
	if wr.runLen > 0 {
		wr.order = append(wr.order, byte(wr.lastRole))
		wr.order = binary.AppendUvarint(wr.order, uint64(wr.runLen))
	}
	wr.runLen = 0
}

// steps writes the steps list: one step per assistant message, whose
// input is the messages since the step before.
func (wr *Writer) steps() {
	b := &wr.buf
	l := b.List()
	var seen [len(roles)]int
	// input is the messages since the step before: a run of each role,
	// from its first message's number on (runs as order has them).
	type run struct{ r, first, count int }
	var input []run
	n := 0
	for order := wr.order; len(order) > 0; {
		r := int(order[0])
		count, size := binary.Uvarint(order[1:])
		order = order[1+size:]
		if roles[r] != 'A' {
			input = append(input, run{r, seen[r], int(count)})
			seen[r] += int(count)
			continue
		}
		for range count {
			n++
			l.Next()
			so := b.Begin()
			so.KeyAt(&keys.input) // the message keys, as Strings writes them
			il := b.List()
			for _, in := range input {
				for i := range in.count {
					il.Next()
					writeMessageKey(b, in.r, in.first+i)
				}
			}
			il.End()
			so.KeyAt(&keys.output)
			writeMessageKey(b, r, seen[r])
			seen[r]++
			so.End()
			input = input[:0]
			if b.Len() >= flushSize {
				wr.flush()
			}
		}
	}
	l.End()
	if n > 1 {
		wr.rep.AddN(model.LossUnfaithful, "steps[].input lists the messages new to each step, not the whole context window (no source records it)", model.Loc{Path: "$.steps"}, n-1)
	}
}

// writeTurn writes the held turn as one assistant message: text joined,
// tool calls, usage once per response, time.
func (wr *Writer) writeTurn() {
	turn := wr.turn
	if len(turn) == 0 {
		return
	}
	wr.turn = wr.turn[:0]
	first := turn[0]
	texts, calls, ledger := wr.texts[:0], wr.calls[:0], &wr.ledger
	ledger.Reset()
	for _, x := range turn {
		switch x.Kind {
		case model.KindAgent:
			texts = append(texts, x.Text)
		case model.KindThinking:
			if wr.same {
				wr.rep.DropEvent(x, "thinking (mini-prophet has no reasoning field)")
			}
		case model.KindToolCall:
			calls = append(calls, x)
		}
		if x.Usage != nil && !x.Usage.IsZero() && x.MessageID == "" && !ledger.Empty() && !wr.same {
			wr.rep.Lose(model.LossUnfaithful, "usage", "usage of a turn's events without a message id added up on its one message", x.Loc)
		}
		ledger.Add(x)
	}
	// The turn's usage: the message's, when the turn carries its id (a
	// reader merges the turns of one message by id); otherwise what the
	// turn adds to the session's count, so that a message whose turns
	// carry no id counts once.
	u, hasUsage := ledger.Total(), !ledger.Empty()
	if id := first.MessageID; id == "" || id == first.ID || model.SyntheticMessageID(id) {
		u, hasUsage = wr.turnGrew, wr.turnCounted
	}
	wr.turnGrew, wr.turnCounted = model.Usage{}, false
	var restList []eventRest
	if !wr.same {
		restList = wr.turnRests(turn, len(texts), u, hasUsage)
	}
	clear(turn)
	b := wr.beginMessage('A')
	o := b.Continue(1)
	o.StrAt(&keys.content, strings.Join(texts, "\n\n"))
	o.KeyAt(&keys.toolCalls)
	wr.args = writeCalls(b, calls, wr.args[:0])
	o.KeyAt(&keys.extra)
	xo := b.Begin()
	xo.KeyAt(&keys.actions)
	writeActions(b, calls, wr.args)
	// (The texts and events are the session's, not to be held.)
	clear(texts)
	clear(calls)
	wr.texts, wr.calls = texts, calls
	if hasUsage {
		xo.IntAt(&keys.promptTokens, u.Prompt())
		xo.IntAt(&keys.completionTokens, u.Output)
		xo.IntAt(&keys.totalTokens, u.Prompt()+u.Output)
		xo.IntAt(&keys.cachedTokens, u.CacheRead)
		xo.IntAt(&keys.cacheCreationTokens, u.CacheCreate)
	}
	if ts := wr.times.unix(first.Time); len(ts) > 0 {
		xo.LiteralAt(&keys.timestamp, ts)
	}
	if m := first.Model; m != "" && !wr.same {
		xo.StrAt(&keys.model, m)
	}
	if id := first.MessageID; id != "" && !model.SyntheticMessageID(id) {
		xo.StrAt(&keys.messageID, id)
	}
	if !wr.same {
		xo.KeyAt(&keys.rests)
		wr.endWithRests(restList...)
		clear(restList) // the events are not to be held
		clear(wr.callRests)
		return
	}
	for _, f := range first.Extra {
		xo.Raw(f.Key, f.Value)
	}
	xo.End()
	o.End()
	wr.endMessage()
}

// turnRests are the rests of a held turn's events, for a target that is
// not mini-prophet: the message's own event's first, its thinking or text
// (none: null, the reader leaves its empty one out); then the turn's
// other events (thinking, which the message has no field for, more
// texts) and its calls, each with what the message does not hold of it.
// u is the message's usage (hasUsage false for none); texts how many
// texts the message's content joins.
func (wr *Writer) turnRests(turn []*model.Event, texts int, u model.Usage, hasUsage bool) []eventRest {
	first := turn[0]
	var own eventRest
	others, callRests := wr.rests[:0], wr.callRests[:0]
	msgID := first.MessageID
	for i, x := range turn {
		carried, unset := carries.model, 0
		if x.MessageID == msgID && !model.SyntheticMessageID(msgID) {
			carried.Add(&carries.messageID)
		} else if x.MessageID == "" || model.SyntheticMessageID(x.MessageID) {
			unset |= unsetMessageID // not the message key
		}
		if x.Usage != nil && (!hasUsage || *x.Usage != u) {
			// Not the message's usage (a message counted before this
			// turn has what the turn adds): the event's own.
			carried.Add(&carries.plusUsage)
		}
		switch {
		case i == 0 && x.Kind != model.KindToolCall:
			if x.Kind == model.KindAgent && texts == 1 {
				carried.Add(&carries.text)
			}
			own = wr.rest(x, first.Time, carried, unset)
		case x.Kind == model.KindToolCall:
			carried.Add(&carries.call)
			callRests = append(callRests, wr.rest(x, first.Time, carried, unset))
		default:
			others = append(others, wr.rest(x, first.Time, carried, unset))
		}
	}
	// own, then others, then callRests, in others' slice.
	list := append(append(others, eventRest{}), callRests...)
	copy(list[1:], list[:len(others)])
	list[0] = own
	wr.rests, wr.callRests = list, callRests
	return list
}

// writeCalls writes the tool_calls list into b, and returns args with
// where each call's arguments string is in b appended.
func writeCalls(b *jsonw.Buf, calls []*model.Event, args []argsSpan) []argsSpan {
	l := b.List()
	for _, c := range calls {
		l.Next()
		co := b.Begin()
		co.StrAt(&keys.id, c.Call.ID)
		co.StrAt(&keys.typ, "function")
		co.KeyAt(&keys.function)
		fo := b.Begin()
		fo.StrAt(&keys.name, c.Call.Name)
		fo.KeyAt(&keys.arguments)
		start := b.Len()
		jsonw.StringOfBytes(&b.Buffer, arguments(c))
		args = append(args, argsSpan{start, b.Len()})
		fo.End()
		co.End()
	}
	l.End()
	return args
}

// argsSpan is where a call's arguments string (its quotes too) is in
// the writer's buffer: from its start to its end.
type argsSpan struct{ start, end int }

// writeActions writes the same calls as extra.actions, each call's
// arguments copied from where writeCalls wrote them in b (args): the
// same bytes, not escaped again (a call's input is JSON, its quotes
// each escaped: about half the cost of the actions).
func writeActions(b *jsonw.Buf, calls []*model.Event, args []argsSpan) {
	l := b.List()
	for i, c := range calls {
		l.Next()
		ao := b.Begin()
		ao.StrAt(&keys.name, c.Call.Name)
		if storeBlocks {
			ao.KeyAt(&keys.arguments)
			a := args[i]
			dst := b.Free(a.end - a.start)
			b.Keep(append(dst, dst[a.start:a.end]...))
		} else {
			ao.BytesAt(&keys.arguments, arguments(c))
		}
		ao.StrAt(&keys.actionCallID, c.Call.ID)
		ao.End()
	}
	l.End()
}

// arguments is a call's arguments string: its input, {} when it has
// none (written as a string, not copied into one).
func arguments(c *model.Event) []byte {
	if len(c.Call.Input) == 0 {
		return emptyObject
	}
	return c.Call.Input
}

var emptyObject = []byte("{}")

// otherRole is the role (a byte of roles) of the message other writes of
// e, 0 for none (an event mini-prophet has no message for, from a
// mini-prophet source).
func (wr *Writer) otherRole(e *model.Event) byte {
	switch e.Kind {
	case model.KindUser:
		return 'U'
	case model.KindToolResult:
		return 'T'
	case model.KindSystem:
		return 'S'
	case model.KindLifecycle:
		if e.Name == "end" && wr.same {
			return 'O'
		}
	}
	if wr.same {
		return 0
	}
	// A system message for people; its rest gives the event back.
	return 'S'
}

// other writes an event that is not part of a model turn.
func (wr *Writer) other(e *model.Event) {
	role := wr.otherRole(e)
	if role == 0 {
		wr.rep.DropEvent(e, e.Kind.String()+" (no mini-prophet message)")
		return
	}
	b := wr.beginMessage(role)
	o := b.Continue(1)
	switch {
	case role == 'U':
		o.StrAt(&keys.content, e.Text)
		if wr.extra(b, o, e, &carries.text) {
			return
		}
	case role == 'T':
		o.StrAt(&keys.toolCallID, e.Result.CallID)
		o.StrAt(&keys.content, e.Result.Content)
		o.KeyAt(&keys.extra)
		xo := b.Begin()
		if e.Result.IsError {
			xo.BoolAt(&keys.error, true)
		} else {
			xo.RawAt(&keys.error, nil)
		}
		if e.Result.Status != "" {
			// A status other than ok or error (rlog's `[2 issues]`).
			xo.StrAt(&keys.status, e.Result.Status)
		}
		if ts := wr.times.unix(e.Time); len(ts) > 0 {
			xo.LiteralAt(&keys.timestamp, ts)
		}
		if !wr.same {
			xo.KeyAt(&keys.rests)
			wr.endWithRests(wr.rest(e, e.Time, carries.result, 0))
			return
		}
		for _, f := range e.Extra {
			xo.Raw(f.Key, f.Value)
		}
		xo.End()
	case role == 'O':
		o.StrAt(&keys.content, e.Text)
		if wr.extra(b, o, e, &carries.none) {
			return
		}
	case e.Kind == model.KindSystem:
		o.StrAt(&keys.content, e.Text)
		if wr.extra(b, o, e, &carries.text) {
			return
		}
	default:
		// A system message for people; its rest gives the event back.
		o.StrAt(&keys.content, model.Describe(e))
		if wr.extra(b, o, e, &carries.none) {
			return
		}
	}
	o.End()
	wr.endMessage()
}

// miniSWEExitStatus is the header field where the mini-swe-agent reader
// keeps info.exit_status.
const miniSWEExitStatus = "info.exit_status"

// exit writes the outcome of a session from another format.
func (wr *Writer) exit(out *model.Outcome) {
	b := wr.beginMessage('O')
	o := b.Continue(1)
	o.StrAt(&keys.content, out.ResultText)
	o.KeyAt(&keys.extra)
	xo := b.Begin()
	status := "Submitted"
	if out.Success != nil && !*out.Success {
		status = "Failed"
	}
	if s, ok := wr.h.Extra.String(miniSWEExitStatus); ok && s != "" {
		// mini-swe-agent's own words (LimitsExceeded, …), which
		// mini-prophet's exit message has the same field for.
		status = s
		wr.carried = append(wr.carried, miniSWEExitStatus)
	}
	xo.StrAt(&keys.exitStatus, status)
	xo.StrAt(&keys.submission, out.ResultText)
	// The outcome as it was (its success may be unknown), and no event of
	// its own: the reader makes the outcome of it, nothing else.
	xo.Any("outcome", out)
	xo.Raw("rests", []byte("[null]"))
	xo.End()
	o.End()
	wr.endMessage()
}

// extra writes a message's extra: its time and, from a mini-prophet
// source, the fields it had. From another format it ends with the rest,
// which ends the message (endWithRests): ended is then true.
func (wr *Writer) extra(b *jsonw.Buf, o *jsonw.Obj, e *model.Event, carried *model.Carried) (ended bool) {
	ts := wr.times.unix(e.Time)
	if !wr.same {
		// The time and the rest, written where they stand (the message
		// is indented).
		o.KeyAt(&keys.extra)
		xo := b.Begin()
		if len(ts) > 0 {
			xo.LiteralAt(&keys.timestamp, ts)
		}
		xo.KeyAt(&keys.rests)
		wr.endWithRests(wr.rest(e, e.Time, *carried, 0))
		return true
	}
	var x model.Fields
	if len(ts) > 0 {
		x.Set("timestamp", append(json.RawMessage(nil), ts...))
	}
	for _, f := range e.Extra {
		x.Set(f.Key, f.Value)
	}
	if len(x) > 0 {
		o.Key("extra")
		x.WriteJSON(b)
	}
	return false
}

// unixTime renders an RFC 3339 timestamp as a unix float, as mini-prophet
// records it ("" when ts does not parse).
func unixTime(ts string) string {
	if ts == "" {
		return ""
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ""
	}
	var buf [32]byte
	b := append(strconv.AppendInt(buf[:0], t.Unix(), 10), ".000000"...)
	for i, us := len(b)-1, t.Nanosecond()/1000; us > 0; i, us = i-1, us/10 {
		b[i] = byte('0' + us%10)
	}
	return string(b)
}

// times remembers the last timestamp a message's events and extra asked
// for (a message's time is its first event's, asked by each of its
// events' rests): unixTime of it, and whether the reader gives it back
// from that (rfc3339), worked out when first asked; and the minute of the
// last one read from its digits (unixTimeUTC), which the next time, most
// often in the same minute, does not read again.
type times struct {
	ts              string
	known           bool
	checked, readOK bool
	// text is unixTime(ts), its first n bytes (kept here: no string is
	// made of it).
	text [32]byte
	n    int
	// minute is the first 17 bytes (YYYY-MM-DDTHH:MM:) of the last time
	// unixTimeUTC read, a valid date and time from 1970 on, and
	// minuteUnix that minute's unix seconds; "" before the first.
	minute     string
	minuteUnix int64
	// hundreds is the unix seconds of the last time unixTimeUTC wrote,
	// divided by 100 (100 or more), and hundredsText its digits, the
	// first n: the next time, most often in the same hundred seconds,
	// copies them and writes two digits (AppendInt of ten digits was
	// about 100 instructions). 0 before the first.
	hundreds     int64
	hundredsText [16]byte
	hundredsN    int
}

// unix is unixTime(ts), in c until the next time asked for.
func (c *times) unix(ts string) []byte {
	if !c.known || ts != c.ts {
		c.ts, c.known = ts, true
		if ts == "" {
			// No time (unixTime's ""), which rfc3339 reads back as ""
			// (decided here: through strconv, about 500 instructions).
			c.n, c.checked, c.readOK = 0, true, true
		} else if text, back, ok := c.unixTimeUTC(c.text[:0], ts); ok {
			c.n, c.checked, c.readOK = len(text), true, back
		} else {
			c.n, c.checked, c.readOK = copy(c.text[:], unixTime(ts)), false, false
		}
	}
	return c.text[:c.n]
}

// unixTimeUTC is unixTime(ts) appended to dst, and whether rfc3339 reads
// it back as ts, for the form most timestamps have,
// YYYY-MM-DDTHH:MM:SS[.fraction]Z from 1970 on, worked out from its
// digits without parsing and formatting a time (a message's time was
// parsed, formatted and parsed again: about a tenth of the writer's
// instructions). ok is false for any other form, which unixTime and
// rfc3339 then decide.
//
// A time in the minute of the one before (its first 17 bytes the same)
// reads only its seconds and fraction: its date and minute were read,
// checked and counted in days once (grammar.ReadDateTime, Valid,
// daysFromCivil), about two thirds of the work. The fraction's digits are
// the unix time's, copied (six of them, cut or padded with zeros), not
// made a number. FuzzUnixTimeUTC holds it to unixTimeByDateTime (the
// reading of every time whole, as it was) and to unixTime and rfc3339.
func (c *times) unixTimeUTC(dst []byte, ts string) (text []byte, readBack, ok bool) {
	n := len(ts)
	if n < len("2006-01-02T15:04:05Z") || ts[n-1] != 'Z' {
		return nil, false, false
	}
	if ts[:17] != c.minute {
		dt, shaped := grammar.ReadDateTime([]byte(ts[:19]))
		if !shaped || dt.Year < 1970 || !dt.Valid() {
			return nil, false, false
		}
		c.minute = ts[:17]
		c.minuteUnix = (daysFromCivil(dt.Year, dt.Month, dt.Day)*24+int64(dt.Hour))*3600 + int64(dt.Minute)*60
	}
	// The seconds, below 60 (ReadDateTime's shape and Valid's range).
	s1, s0 := ts[17]-'0', ts[18]-'0'
	if s1 > 5 || s0 > 9 {
		return nil, false, false
	}
	// The fraction: none, or a dot and one to nine digits.
	frac := ts[19 : n-1]
	if frac != "" {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return nil, false, false
		}
		frac = frac[1:]
		for i := 0; i < len(frac); i++ {
			if frac[i]-'0' > 9 {
				return nil, false, false
			}
		}
	}
	b := append(c.appendSeconds(dst, c.minuteUnix+int64(s1)*10+int64(s0)), '.', '0', '0', '0', '0', '0', '0')
	copy(b[len(b)-6:], frac[:min(len(frac), 6)])
	// rfc3339 writes three fraction digits when the microseconds are
	// whole milliseconds, else six.
	readBack = len(frac) == 3 || len(frac) == 6 && frac[3:] != "000"
	return b, readBack, true
}

// appendSeconds appends sec (0 or more) in decimal, as AppendInt does:
// from 100 on, the digits of sec/100 copied from hundredsText when they
// are the last time's (hundreds), then its last two digits.
// TestAppendSeconds holds it to strconv.AppendInt.
func (c *times) appendSeconds(dst []byte, sec int64) []byte {
	h := sec / 100
	if h == 0 {
		return jsonw.AppendInt(dst, sec)
	}
	if h == c.hundreds {
		dst = append(dst, c.hundredsText[:c.hundredsN]...)
	} else {
		l := len(dst)
		dst = jsonw.AppendInt(dst, h)
		c.hundreds, c.hundredsN = h, copy(c.hundredsText[:], dst[l:])
	}
	r := sec - 100*h
	return append(dst, byte('0'+r/10), byte('0'+r%10))
}

// daysFromCivil is the number of days from 1970-01-01 to y-mo-d in the
// proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
func daysFromCivil(y, mo, d int) int64 {
	if mo <= 2 {
		y--
	}
	era := y / 400 // y >= 1969 here
	yoe := y - era*400
	m := (mo + 9) % 12 // March = 0
	doy := (153*m+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// civilFromDays is the date days after 1970-01-01 (days >= 0) in the
// proleptic Gregorian calendar, daysFromCivil's inverse (Howard Hinnant's
// civil_from_days).
func civilFromDays(days int64) (y, mo, d int) {
	z := days + 719468
	era := z / 146097
	doe := z - era*146097 // [0, 146096]
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153 // March = 0
	d = int(doy - (153*mp+2)/5 + 1)
	mo = int(mp + 3)
	if mp >= 10 {
		mo = int(mp - 9)
	}
	y = int(yoe + era*400)
	if mo <= 2 {
		y++
	}
	return y, mo, d
}

// readBack reports whether the reader reads the unix time written for ts
// back as ts (its spelling of the instant).
func (c *times) readBack(ts string) bool {
	u := c.unix(ts)
	if !c.checked {
		c.checked, c.readOK = true, rfc3339(u) == ts
	}
	return c.readOK
}

// formatTag starts the trajectory_format of every mini-prophet trajectory.
const formatTag = "mini-prophet"

// Detect judges whether an input is a mini-prophet trajectory from its
// root: its trajectory_format names the format; messages keyed by their
// place in the run (`key`) are its shape.
func Detect(h *model.Head) model.Evidence {
	switch {
	case strings.HasPrefix(h.String("trajectory_format"), formatTag):
		return model.Certain
	case h.Has("messages") && h.InnerHas("messages", "key"):
		return model.Strong
	}
	return model.NoEvidence
}
