package gemini

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/rlog-ls/rlog-ls/convert/gemini/records"
	"github.com/rlog-ls/rlog-ls/convert/internal/jsonw"
	"github.com/rlog-ls/rlog-ls/convert/internal/paths"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonl"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
	"github.com/rlog-ls/rlog-ls/usage"
)

// AgentName is the header's agent for a Gemini CLI session.
const AgentName = "gemini-cli"

// The SourceVersion of each form: one record per line, or the older
// single JSON document (0.38.2 and before).
const (
	FormJSONL = "jsonl"
	FormJSON  = "json"
)

// maxDepth bounds the nesting of sub-agent files spliced into a session.
const maxDepth = 8

// Read reads a Gemini CLI session from r into sink, reporting in rep what
// it cannot read. It returns an error only when r fails. Sub-agents'
// files are not read: there is no folder to find them in (see ReadNamed).
func Read(r io.Reader, sink model.Sink, rep *model.Report) error {
	h := newHeader()
	rd := &reader{h: h, top: h, sink: sink, rep: rep}
	if err := rd.read(r); err != nil {
		return err
	}
	return sink.End(h)
}

// ReadNamed reads the session from r, which holds the file at path, with
// its sub-agents' files. A sub-agent's file is
// chats/SESSION_ID/AGENT_ID.jsonl beside the session's: it is spliced in
// before the result of the invoke_agent call whose agentId names it,
// framed by sub-agent events; the files of the session that no call names
// come at the end, unless the file has no message (a resume's stub).
func ReadNamed(r io.Reader, path string, sink model.Sink, rep *model.Report) error {
	h := newHeader()
	rd := &reader{h: h, top: h, sink: sink, rep: rep, chats: filepath.Dir(path), used: map[string]bool{}, agentTypes: map[string]string{}}
	if err := rd.read(r); err != nil {
		return err
	}
	// A file without messages (the stub a resume leaves beside the
	// session's file) does not take the session's sub-agents.
	if h.ID != "" && validName(h.ID) && rd.sawMessage {
		m, _ := filepath.Glob(filepath.Join(paths.GlobEscape(filepath.Join(rd.chats, h.ID)), "*.jsonl"))
		sort.Strings(m)
		for _, p := range m {
			id := strings.TrimSuffix(filepath.Base(p), ".jsonl")
			if rd.used[id] {
				continue
			}
			if _, err := rd.splice(nil, id); err != nil {
				return err
			}
		}
	}
	return sink.End(h)
}

func newHeader() *model.Header {
	return &model.Header{SourceFormat: Name, AgentName: AgentName}
}

// reader reads one session file: the main one, or a sub-agent's spliced
// into it.
type reader struct {
	// h is the header of the file being read; top the session's, which
	// the events go with (a sub-agent's file has its own header).
	h, top *model.Header
	sink   model.Sink
	rep    *model.Report
	// chats is the folder the main file is in ("" without one: standard
	// input), where sub-agents' folders are; used the sub-agent ids
	// spliced, shared by every file of the session.
	chats string
	used  map[string]bool
	// agentTypes are the agent names of the invoke_agent calls whose
	// results have not come yet, by call id.
	agentTypes map[string]string
	// agent is the sub-agent whose file this is ("" for the main one),
	// file its name in locations, depth how deep it is spliced.
	agent string
	file  string
	depth int

	// sawHeader says the file's header was read; sawMessage a message.
	sawHeader, sawMessage bool
	// pending is the last message read, held until a record with another
	// id comes: Gemini CLI writes a message again, same id, when its tool
	// calls finish. It is &held, or nil: one message is held at a time,
	// and flushed before the next is read, so its room is the reader's,
	// not allocated for each message.
	pending *message
	held    message
	// open are the tool calls of the last model message whose results have
	// not been emitted yet, in order.
	open []openCall
	// lastPrompt is the id of the last user prompt read (not a tool
	// result), to tell when a $set.messages takes it out (a refused
	// request); lastInput the prompt tokens of the last model message (what
	// a compression saw).
	lastPrompt string
	lastInput  int64
	// model is the model the last model message named.
	model string
	// context and snapshot are the last session context and compression
	// snapshot emitted: $set.messages repeats them in every later list.
	context, snapshot string
	// resumed is a $set.sessionId not given its meaning yet: a run that
	// resumes the session, unless the $set.messages after it holds a
	// compression's snapshot (the CLI sets the session again when it
	// compresses).
	resumed *model.Event

	// lineIx indexes the record being read (model.ParseRecord of the
	// record's own copy, see record): where each object and array in it
	// ends, so that the passes over its values after the validation jump
	// over each container in one step instead of reading it again. The
	// message held keeps the index of its last write (pendingIx, nil when
	// that write was not indexed), and the calls left open that of the
	// model message they came in (openIx); spare is one nothing holds.
	// Only copies that nothing writes to are indexed, never the line
	// buffer, which the next line reuses; a value of another input is not
	// found in an index (its pointer is not inside the indexed input) and
	// is scanned as before.
	lineIx, pendingIx, openIx, spare *jsonscan.Index
}

// message is one message record, its members copied.
type message struct {
	fields model.Fields
	id     string
	loc    model.Loc
	// own is the copy of the message's last write that lineIx indexed
	// (see record), nil when there is none; idView says id is a view of a
	// copy (keptString), not a string of its own.
	own    []byte
	idView bool
}

// openCall is a tool call waiting for its result: its id and name, the
// toolCalls entry's members (status, result, display, agentId) and where
// the entry is.
type openCall struct {
	id, name string
	entry    model.Fields
	loc      model.Loc
}

// read reads the file: one record per line, or the older single document
// (pretty-printed, so its first line is not a whole record).
func (rd *reader) read(r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	if isDocument(br) {
		return rd.readDocument(br)
	}
	err := jsonl.Each(br, rd.line, func(n int, err error) { rd.rep.MalformedAt(rd.loc(n, ""), err) })
	if err != nil {
		return err
	}
	return rd.finish()
}

// isDocument reports whether the input is the single-JSON form (see
// Document).
func isDocument(br *bufio.Reader) bool {
	head, _ := br.Peek(br.Size())
	return Document(head)
}

// Document reports whether a session file whose first bytes are head is
// the single-JSON form, which Gemini CLI writes indented: its first line
// is not a whole JSON object.
func Document(head []byte) bool {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	head = bytes.TrimLeft(head, " \t\r\n")
	if len(head) == 0 || head[0] != '{' {
		return false
	}
	nl := bytes.IndexByte(head, '\n')
	if nl < 0 {
		return false // one line, or longer than the buffer: a record
	}
	return !jsonscan.Valid(bytes.TrimRight(head[:nl], " \t\r"))
}

// readDocument reads the single-JSON form: the header's members and the
// messages, one at a time.
func (rd *reader) readDocument(r io.Reader) error {
	rd.h.SourceVersion = FormJSON
	rd.sawHeader = true
	var werr error
	doc := model.Document{
		Format: Name,
		List:   "messages",
		Elem: func(_ int, b []byte, loc model.Loc) error {
			loc.File = rd.file
			if werr == nil {
				werr = rd.record(b, loc, false)
			}
			return werr
		},
		Root: func(key string, v json.RawMessage) {
			rd.headerField(key, v, &rd.h.Extra)
		},
	}
	if err := doc.Read(r, rd.rep); err != nil {
		if werr != nil {
			return werr
		}
		if errors.Is(err, model.ErrNotObject) || isSyntax(err) {
			rd.rep.MalformedAt(model.Loc{File: rd.file}, err)
			return rd.finish()
		}
		return err
	}
	return rd.finish()
}

// errNotJSON is the error of a record that is not JSON at all.
var errNotJSON = errors.New("not JSON")

func isSyntax(err error) bool {
	var se *jsonscan.SyntaxError
	return errors.As(err, &se)
}

func (rd *reader) loc(n int, path string) model.Loc {
	return model.Loc{File: rd.file, Line: n, Path: path}
}

// line reads one record of the JSONL form.
func (rd *reader) line(b []byte, n int) error {
	if rd.h.SourceVersion == "" {
		rd.h.SourceVersion = FormJSONL
	}
	return rd.record(b, rd.loc(n, ""), true)
}

// record gives a record its meaning: a message, a control line ($set,
// $rewindTo) or a header. line says b is a whole line, whose invalid UTF-8
// is reported here (the single document reports its own).
func (rd *reader) record(b []byte, loc model.Loc, line bool) error {
	if ts, ok := lastUpdatedOnly(b); ok && fastPaths {
		// What the general path below does with this record: no member
		// list for it, none for its value, no string until the time is
		// later than the last.
		if string(ts) > rd.h.Ended {
			rd.h.Ended = string(ts)
		}
		return nil
	}
	// valid says b is known to be valid UTF-8: a line is checked once,
	// for the report and for the copy a message keeps (ownFields).
	//
	// own is b's copy when the record is read from it, indexed: a line
	// of valid UTF-8, whose values are then their own bytes, as
	// ownFields would make them (the copy it would make, made before the
	// parse rather than after it, so that the index is of the bytes the
	// message keeps). Nearly every record past the $set of lastUpdated
	// is a message, kept. Otherwise the values are b's own, and what is
	// kept is copied. The copy's validation tells whether it is valid
	// UTF-8 (Index.InputValidUTF8: the validator checks the runs of
	// bytes of 0x80 or more in its strings as it passes them), so a line
	// is copied first, and read again from b, as before, only when it is
	// not.
	var own []byte
	var fields model.Fields
	var err error
	valid := false
	if line && fastPaths {
		own = bytes.Clone(b)
		ix := rd.index()
		fields, err = model.ParseRecord(ix, own, false, false)
		// (A record that is null indexes nothing: its few bytes are
		// checked here.)
		if valid = err == nil && (fields != nil && ix.InputValidUTF8() || fields == nil && utf8.Valid(b)); err == nil && !valid {
			ix.Reset()
			own = nil
			fields, err = model.ParseFieldsView(b)
		}
	} else {
		valid = line && utf8.Valid(b)
		fields, err = model.ParseFieldsView(b)
	}
	if err != nil {
		if err.Error() == "" {
			err = errNotJSON
		}
		rd.rep.MalformedAt(loc, err)
		return nil
	}
	if line && !valid {
		rd.rep.InvalidUTF8(b, loc) // valid JSON: its strings can be found
	}
	// The keys that say what the record is, in one pass (a record names
	// a key once: parsing keeps the last value of a key named twice).
	var hasID, hasType, isSet, isRewind, hasSession bool
	var set, to []byte
	for _, f := range fields {
		switch f.Key {
		case "id":
			hasID = true
		case "type":
			hasType = true
		case "$set":
			set, isSet = f.Value, true
		case "$rewindTo":
			to, isRewind = f.Value, true
		case "sessionId":
			hasSession = true
		}
	}
	if !(isSet && len(fields) == 1) {
		// The message held came before the $set.sessionId (which
		// flushed it).
		if err := rd.resume(); err != nil {
			return err
		}
	}
	switch {
	case hasID && hasType:
		return rd.message(fields, b, own, valid, loc)
	case isSet && len(fields) == 1:
		return rd.set(set, loc)
	case isRewind && len(fields) == 1:
		if err := rd.flush(); err != nil {
			return err
		}
		id, _ := jsonscan.String(to)
		ev := rd.event(model.KindSystem, "", loc)
		ev.Name = "rewind"
		ev.Text = "the conversation goes back to before message " + id + ": it and the messages after it are taken out"
		ev.Extra.Set("$rewindTo", jsonscan.Copy(to))
		return rd.emit(&ev)
	case hasSession:
		return rd.header(fields, loc)
	}
	if err := rd.flush(); err != nil {
		return err
	}
	ev := rd.event(model.KindPassthrough, "", loc)
	ev.RawType = "record"
	ev.Raw = jsonscan.Copy(b)
	rd.rep.Passthrough(&ev, "gemini record with keys "+strings.Join(keys(fields), ", "))
	return rd.emit(&ev)
}

// fastPaths is false only in the tests, which hold the reader's fast
// paths to the general reading of every record (FuzzFastPaths).
var fastPaths = true

// lastUpdatedPrefix and lastUpdatedSuffix are what Gemini CLI writes
// around the time after each message: {"$set":{"lastUpdated":"TIME"}}.
const (
	lastUpdatedPrefix = `{"$set":{"lastUpdated":"`
	lastUpdatedSuffix = `"}}`
)

// lastUpdatedOnly returns the time of a record that is exactly a $set of
// lastUpdated alone, as Gemini CLI writes it (four of the nine records of
// a turn), when the time is plain ASCII: no quote, backslash, control
// byte or byte of a UTF-8 sequence. Such a record is valid JSON and valid
// UTF-8, and the time is its own decoding, so the record means what the
// general path makes of it (record, then set): the session's last update.
func lastUpdatedOnly(b []byte) ([]byte, bool) {
	if len(b) < len(lastUpdatedPrefix)+len(lastUpdatedSuffix) ||
		string(b[:len(lastUpdatedPrefix)]) != lastUpdatedPrefix ||
		string(b[len(b)-len(lastUpdatedSuffix):]) != lastUpdatedSuffix {
		return nil, false
	}
	ts := b[len(lastUpdatedPrefix) : len(b)-len(lastUpdatedSuffix)]
	// A view of ts for the test, eight bytes at a time; it keeps none.
	return ts, jsonw.PlainASCII(unsafe.String(unsafe.SliceData(ts), len(ts))) == len(ts)
}

func keys(f model.Fields) []string {
	out := make([]string, len(f))
	for i, x := range f {
		out[i] = x.Key
	}
	return out
}

// header reads a header line: the first gives the session header; a later
// one (a resumed run that starts in the minute the file was named after,
// or a migrated single-JSON session) is an event saying a run began.
func (rd *reader) header(fields model.Fields, loc model.Loc) error {
	if list, ok := fields.Get("messages"); ok && !rd.sawHeader && len(list) > 0 && list[0] == '[' {
		// The single-JSON form written on one line.
		rd.sawHeader = true
		rd.h.SourceVersion = FormJSON
		for _, f := range fields {
			if f.Key != "messages" {
				rd.headerField(f.Key, f.Value, &rd.h.Extra)
			}
		}
		return jsonscan.Array(list, func(i int, b []byte) error {
			at := loc
			at.Path = listPath("", "messages", i)
			return rd.record(b, at, false)
		})
	}
	if !rd.sawHeader {
		rd.sawHeader = true
		for _, f := range fields {
			rd.headerField(f.Key, f.Value, &rd.h.Extra)
		}
		return nil
	}
	if err := rd.flush(); err != nil {
		return err
	}
	ev := rd.event(model.KindSystem, "", loc)
	ev.Name = "header"
	ev.Text = "Gemini CLI starts writing the session again"
	ev.Time, _ = fields.String("startTime")
	ev.Extra = fields.Copy()
	return rd.emit(&ev)
}

// headerField sets a member of the session header (the first header line,
// the single document's root).
func (rd *reader) headerField(key string, v json.RawMessage, extra *model.Fields) {
	s, isString := jsonscan.String(v)
	switch {
	case key == "sessionId" && isString:
		rd.h.ID = s
	case key == "startTime" && isString:
		rd.h.Started = s
	case key == "lastUpdated" && isString:
		rd.updated(s)
	default:
		if key == "projectHash" && isString && rd.h == rd.top && rd.h.Cwd == "" {
			rd.h.Cwd = projectRoot(rd.chats, s)
		}
		extra.Set(key, jsonscan.Copy(v))
	}
}

// projectRoot is the working folder of the sessions in the folder chats
// (~/.gemini/tmp/PROJECT/chats): what PROJECT/.project_root says, when
// its SHA-256 is the session's projectHash (as Gemini CLI makes it); ""
// otherwise.
func projectRoot(chats, hash string) string {
	if chats == "" {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(chats), ".project_root"))
	if err != nil || len(b) > 4096 {
		return ""
	}
	root := strings.TrimRight(string(b), "\r\n")
	sum := sha256.Sum256([]byte(root))
	if hex.EncodeToString(sum[:]) != hash {
		return ""
	}
	return root
}

// updated records when the session last changed.
func (rd *reader) updated(ts string) {
	if ts > rd.h.Ended {
		rd.h.Ended = ts
	}
}

// event is an event of this file at loc.
func (rd *reader) event(kind model.Kind, time string, loc model.Loc) model.Event {
	return model.Event{Kind: kind, Time: time, Loc: loc, AgentID: rd.agent, Sidechain: rd.agent != ""}
}

func (rd *reader) emit(ev *model.Event) error {
	rd.rep.Events++
	return rd.sink.Event(rd.top, ev)
}

// message holds a message record until a record with another id comes: a
// message written again (same id) updates it, member by member. fields
// are views of b (valid says b is known to be valid UTF-8), or of own,
// b's copy that rd.lineIx indexes, when record made one.
func (rd *reader) message(fields model.Fields, b, own []byte, valid bool, loc model.Loc) error {
	rd.sawMessage = true
	idv, _ := fields.Get("id") // decoded as the record has it, not its copy
	if own == nil {
		fields = ownFields(fields, b, valid)
	}
	if p := rd.pending; p != nil && p.id == peek(idv) {
		mergeWrite(&p.fields, fields, func(key string) {
			rd.rep.Add(model.LossDroppedField, "gemini message written again with another "+key+": the last is kept", p.loc)
		})
		p.loc = loc
		if own != nil {
			// The last write holds most of the message (Gemini CLI
			// writes it whole again, with its tool calls): its index
			// is the message's; the last one's is free. The id, the
			// same, is taken from it.
			rd.pendingIx, rd.lineIx = rd.lineIx, rd.pendingIx
			p.own = own
			p.setID(idv)
		}
		return nil
	}
	if err := rd.flush(); err != nil {
		return err
	}
	rd.held = message{fields: fields, loc: loc, own: own}
	rd.held.setID(idv)
	rd.pending = &rd.held
	if own != nil {
		rd.pendingIx, rd.lineIx = rd.lineIx, nil
	}
	return nil
}

// inside reports whether v lies in b, by their addresses (offsetIn).
func inside(b, v []byte) bool {
	_, ok := offsetIn(b, v)
	return ok
}

// offsetIn is where v starts in b, when v lies in b, by their addresses
// (only compared and subtracted, never made into a pointer).
func offsetIn(b, v []byte) (int, bool) {
	if len(b) == 0 || len(v) == 0 {
		return 0, false
	}
	d := uintptr(unsafe.Pointer(unsafe.SliceData(v))) - uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if d < uintptr(len(b)) && uintptr(len(v)) <= uintptr(len(b))-d {
		return int(d), true
	}
	return 0, false
}

// keptString is jsonscan.String(v) for a string an event keeps: when v
// lies in kept and holds its text as it is (ASCII without an escape, told
// eight bytes at a time), the string is a view of v's bytes instead of a
// copy. kept is a message's copy (message.own), which nothing writes to
// and which the message's events keep anyway (keptCopy), so a view keeps
// no more memory than the events did; nil when there is none, and then
// the string is decoded as jsonscan.String does. FuzzKeptString holds it
// to jsonscan.String.
func keptString(kept, v []byte) (string, bool) {
	if inside(kept, v) && len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		if in := v[1 : len(v)-1]; jsonscan.PlainKey(in) {
			return unsafe.String(unsafe.SliceData(in), len(in)), true
		}
	}
	return jsonscan.String(v)
}

// keptCopy is p's copy when the events of p keep it anyway: extra (the
// members the first event carries) holds a value of it. Otherwise nil: a
// view would keep the whole copy for a few bytes of it.
func keptCopy(p *message, extra model.Fields) []byte {
	if !fastPaths {
		return nil
	}
	for _, f := range extra {
		if inside(p.own, f.Value) {
			return p.own
		}
	}
	return nil
}

// mergeWrite sets each member of fields, a message written again, in
// dst, its members so far, as dst.Set would, and calls changed with the
// key of each member that had another value (but the tool calls, which a
// message gains as they finish). Each member is looked up first where
// the first write had it: Gemini CLI writes a message again with its
// members in the same order (and the tool calls after them), and a
// message's keys are unique (parseFields), so the member there is the one
// dst.Get would find. FuzzMergeWrite holds it to Get and Set.
func mergeWrite(dst *model.Fields, fields model.Fields, changed func(key string)) {
	for i, f := range fields {
		j := i
		if j >= len(*dst) || (*dst)[j].Key != f.Key {
			j = slices.IndexFunc(*dst, func(x model.Field) bool { return x.Key == f.Key })
		}
		if j < 0 {
			*dst = append(*dst, f)
			continue
		}
		if !bytes.Equal((*dst)[j].Value, f.Value) && f.Key != "toolCalls" {
			changed(f.Key)
		}
		(*dst)[j].Value = f.Value
	}
}

// index is rd.lineIx, made when no index is free.
func (rd *reader) index() *jsonscan.Index {
	if rd.lineIx == nil {
		rd.lineIx, rd.spare = rd.spare, nil
		if rd.lineIx == nil {
			rd.lineIx = new(jsonscan.Index)
		}
	}
	return rd.lineIx
}

// free gives back ix, which nothing the reader holds is indexed by any
// more, for the next record.
func (rd *reader) free(ix *jsonscan.Index) {
	if ix == nil {
		return
	}
	if rd.lineIx == nil {
		rd.lineIx = ix
	} else if rd.spare == nil {
		rd.spare = ix
	}
}

// peek is the string of the JSON value v as Fields.String decodes it ("" if
// v is not a string), for a string only compared, never kept: when v holds
// its text as it is (ASCII without an escape, told eight bytes at a time by
// jsonscan.PlainKey) it is a view of v's bytes, not a copy. Nearly every
// id, type, name and time a reader compares is.
func peek(v []byte) string {
	v = bytes.TrimSpace(v)
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		if in := v[1 : len(v)-1]; jsonscan.PlainKey(in) {
			return unsafe.String(unsafe.SliceData(in), len(in))
		}
	}
	s, _ := jsonscan.String(v)
	return s
}

// viewFields is model.ParseValidFieldsView(b) for a member list that is
// read and let go while b's bytes stay as they are (a part of a message
// the reader holds, never of a line it reuses), appended to dst: when
// every key is its own decoding and named once, which is nearly always,
// the keys are views of b, and with room enough in dst nothing is
// allocated. Otherwise it is ParseValidFieldsView's list. When b is part
// of the input ix indexes, each object and array in b is jumped over
// (ix.MemberSpans; ParseIn); a nil ix, or another input, scans b. Nothing
// made of it may keep a key (keys are only compared, or copied into
// another string). FuzzFastPaths holds the reader to the general path,
// and FuzzViewFields the lists to ParseValidFieldsView's.
func viewFields(ix *jsonscan.Index, b []byte, dst model.Fields) (model.Fields, error) {
	if !fastPaths {
		return model.ParseValidFieldsView(b)
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return model.ParseIn(ix, b, false)
	}
	var found [8]jsonscan.Span
	spans, err := ix.MemberSpans(b, found[:0])
	if err != nil || len(spans) > len(found) {
		return model.ParseIn(ix, b, false)
	}
	for i, m := range spans {
		k := b[m.KeyStart:m.KeyEnd]
		if !jsonscan.PlainKey(k) {
			return model.ParseIn(ix, b, false)
		}
		for _, n := range spans[:i] {
			if string(b[n.KeyStart:n.KeyEnd]) == string(k) {
				return model.ParseIn(ix, b, false) // named twice
			}
		}
		dst = append(dst, model.Field{
			Key:   unsafe.String(unsafe.SliceData(k), len(k)),
			Value: b[m.ValueStart:m.ValueEnd:m.ValueEnd],
		})
	}
	return dst, nil
}

// isString reports whether f.String(key) is s, without making a string
// of the member when it holds s as it is.
func isString(f model.Fields, key, s string) bool {
	v, ok := f.Get(key)
	if !ok {
		return false
	}
	v = bytes.TrimSpace(v)
	return len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && peek(v) == s
}

// ownFields is fields.Copy() for fields that are views of the record b,
// made in place: the list is the caller's (parsed for this record), so
// only its values are copied. When b is valid UTF-8 (valid says it was
// checked; otherwise it is here) every value is its own bytes, so b is
// copied once and the values are parts of that copy: one allocation and
// one UTF-8 check for the record instead of one of each per value. Each
// part is capped at its end, so that appending to one cannot write over
// the next. Otherwise (invalid UTF-8, which Copy replaces, or a value that
// is not part of b) the values are copied one by one, as Copy does.
// FuzzOwnFields holds it to fields.Copy().
func ownFields(fields model.Fields, b []byte, valid bool) model.Fields {
	if fields == nil {
		return nil
	}
	if len(b) == 0 || !valid && !utf8.Valid(b) {
		for i, f := range fields {
			fields[i].Value = jsonscan.Copy(f.Value)
		}
		return fields
	}
	own := bytes.Clone(b)
	for i, f := range fields {
		d, ok := offsetIn(b, f.Value)
		if !ok {
			fields[i].Value = jsonscan.Copy(f.Value)
			continue
		}
		end := d + len(f.Value)
		fields[i].Value = own[d:end:end]
	}
	return fields
}

// flush emits the message held.
func (rd *reader) flush() error {
	p := rd.pending
	if p == nil {
		return nil
	}
	rd.pending = nil
	err := rd.flushMessage(p)
	// Free, unless its calls hold it (gemini).
	rd.free(rd.pendingIx)
	rd.pendingIx = nil
	return err
}

// flushMessage emits the message p.
func (rd *reader) flushMessage(p *message) error {
	tv, _ := p.fields.Get("type")
	typ := peek(tv) // compared; kept only below, decoded again
	if typ != "gemini" {
		p.ownID(nil)
	}
	if typ != "user" {
		// A result the CLI sent back comes in the user message after its
		// call; the others (the older form has none) come from the calls.
		if err := rd.closeCalls(); err != nil {
			return err
		}
	}
	switch typ {
	case "user":
		return rd.user(p)
	case "gemini":
		return rd.gemini(p)
	}
	typ, _ = p.fields.String("type")
	if _, known := records.Message(typ); known {
		// info, error, warning: what the CLI showed.
		ev := rd.base(p, model.KindSystem, nil)
		ev.Name = typ
		ev.Text, _ = contentText(p.fields)
		ev.Extra = rest(p.fields, false)
		if v, ok := p.fields.Get("content"); ok && (len(v) == 0 || v[0] != '"') {
			ev.Extra.Set("content", v) // parts: the text is their text's
		}
		return rd.emit(&ev)
	}
	ev := rd.base(p, model.KindPassthrough, nil)
	ev.RawType = "message:" + typ
	ev.Raw = model.MustJSON(p.fields)
	rd.rep.Passthrough(&ev, "gemini message type "+typ)
	return rd.emit(&ev)
}

// setID sets p's id from its value idv, as Fields.String decodes it: a
// view of p.own when it holds its text as it is (keptString), made a
// string of its own at flush (ownID) unless the message's events keep
// p.own anyway.
func (p *message) setID(idv []byte) {
	p.id, _ = keptString(p.own, bytes.TrimSpace(idv))
	p.idView = inside(p.own, stringBytes(p.id))
}

// ownID makes p's id a string of its own when it is a view of a copy the
// message's events do not keep (kept, see keptCopy).
func (p *message) ownID(kept []byte) {
	if p.idView && !inside(kept, stringBytes(p.id)) {
		p.id = strings.Clone(p.id)
	}
	p.idView = false
}

// stringBytes is s's bytes, only to be compared by address (inside).
func stringBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// base is the event of a message's first member: its id, time and place;
// kept is the message's copy its events keep, if they do (keptString).
func (rd *reader) base(p *message, kind model.Kind, kept []byte) model.Event {
	tv, _ := p.fields.Get("timestamp")
	ts, _ := keptString(kept, bytes.TrimSpace(tv)) // Fields.String
	ev := rd.event(kind, ts, p.loc)
	ev.ID = p.id
	return ev
}

// rest is the members of f that a message's events have no field for:
// all but its id, time, type and content, and for a model message (agent)
// its thoughts, tool calls and model too. The names are told by a switch,
// not looked for in a list, for each member of each message.
func rest(f model.Fields, agent bool) model.Fields {
	var out model.Fields
	for _, x := range f {
		switch x.Key {
		case "id", "timestamp", "type", "content":
			continue
		case "thoughts", "toolCalls", "model":
			if agent {
				continue
			}
		}
		out = append(out, x)
	}
	return out
}

// contentText is a message's content as text: the string, or its text
// parts joined.
func contentText(f model.Fields) (string, bool) {
	v, ok := f.Get("content")
	if !ok {
		return "", false
	}
	if s, ok := jsonscan.String(v); ok {
		return s, true
	}
	var parts []string
	jsonscan.Array(v, func(_ int, b []byte) error {
		// Validated with its record: walked, not scanned again.
		jsonscan.Members(b, func(k, v []byte) error {
			if string(k) == "text" {
				s, _ := jsonscan.String(v)
				parts = append(parts, s)
			}
			return nil
		})
		return nil
	})
	return strings.Join(parts, "\n"), len(parts) > 0
}

// user emits a user message: its text parts, and the tool results it sends
// back (functionResponse parts).
func (rd *reader) user(p *message) error {
	base := rd.base(p, model.KindUser, nil)
	// Each event is allocated alone (newEvent): a list of them growing
	// would copy and allocate them again.
	var room [4]*model.Event
	events := room[:0]
	content, _ := p.fields.Get("content")
	prompt := false
	if s, ok := jsonscan.String(content); ok {
		ev := base
		ev.Text = s
		ev.Meta = isContext(s)
		prompt = !ev.Meta
		events = append(events, newEvent(ev))
	} else {
		err := rd.pendingIx.Array(content, func(i int, b []byte) error {
			ev := base
			ev.Loc.Path = listPath(p.loc.Path, "content", i)
			var room [2]model.Field
			part, err := viewFields(rd.pendingIx, b, room[:0])
			if err != nil || len(part) == 0 {
				rd.rep.Add(model.LossMalformed, "gemini user content part is not an object", ev.Loc)
				return nil
			}
			if s, ok := part.String("text"); ok && len(part) == 1 {
				ev.Text = s
				ev.Meta = isContext(s)
				prompt = prompt || !ev.Meta
				events = append(events, newEvent(ev))
				return nil
			}
			if fr, ok := part.Get("functionResponse"); ok && len(part) == 1 {
				events = append(events, newEvent(rd.result(ev, rd.pendingIx, fr)))
				return nil
			}
			ev.Kind = model.KindPassthrough
			ev.RawType = "part:" + part[0].Key
			ev.Raw = jsonscan.Copy(b)
			rd.rep.Passthrough(&ev, "gemini content part "+part[0].Key)
			events = append(events, newEvent(ev))
			return nil
		})
		if err != nil && content != nil {
			rd.rep.Add(model.LossMalformed, "gemini user content is neither a string nor a list", p.loc)
		}
	}
	if prompt {
		rd.lastPrompt = p.id
	}
	if len(events) == 0 {
		events = append(events, newEvent(base))
	}
	events[0].Extra = append(rest(p.fields, false), events[0].Extra...)
	for i := range events {
		if err := rd.emitResult(events[i]); err != nil {
			return err
		}
	}
	// A call the CLI sent no result for (cancelled, or the session
	// ended) has its result from the call, if it has one.
	return rd.closeCalls()
}

// toolCallKey is the key a toolCalls entry's member k is kept under in
// its events' extra; those Gemini CLI writes are made once.
func toolCallKey(k string) string {
	switch k {
	case "description":
		return "toolCall.description"
	case "displayName":
		return "toolCall.displayName"
	case "renderOutputAsMarkdown":
		return "toolCall.renderOutputAsMarkdown"
	case "resultDisplay":
		return "toolCall.resultDisplay"
	case "agentId":
		return "toolCall.agentId"
	}
	return "toolCall." + k
}

// newEvent is a copy of ev of its own, for the sink, which may keep it.
func newEvent(ev model.Event) *model.Event { return &ev }

// isContext reports whether a user text is the session context Gemini CLI
// sends first (the date, the system, the folders), not the user's words.
func isContext(s string) bool { return strings.HasPrefix(s, "<session_context>") }

// result is the tool result a functionResponse part of a user message
// sends back (fr, of the input ix indexes), with what its call's entry
// says of it (status, display).
func (rd *reader) result(ev model.Event, ix *jsonscan.Index, fr []byte) model.Event {
	ev.Kind = model.KindToolResult
	res, extra, idv := functionResponse(ix, fr)
	ev.Result = res
	ev.Extra = extra
	id := peek(idv) // compared; kept as the call's, or decoded below
	for i, c := range rd.open {
		if c.id != id {
			continue
		}
		// The call's id is the same string, decoded once already.
		res.CallID = c.id
		rd.open = append(rd.open[:i], rd.open[i+1:]...)
		if isString(ev.Extra, "functionResponse.name", c.name) {
			ev.Extra.Delete("functionResponse.name")
		}
		rd.callOutcome(&ev, c, fr)
		return ev
	}
	res.CallID, _ = jsonscan.String(idv)
	return ev
}

// callOutcome gives a result what its call's toolCalls entry says: the
// status, the display, the sub-agent; the entry's result when it is not
// the part the user message sent (fr).
func (rd *reader) callOutcome(ev *model.Event, c openCall, fr []byte) {
	sv, _ := c.entry.Get("status")
	status := peek(sv) // compared; kept below as Fields.String decodes it
	switch status {
	case "", "success":
	case "error":
		ev.Result.IsError = true
	default:
		status, _ = c.entry.String("status")
		ev.Result.Status = status
		if _, known := records.ToolStatus(status); !known {
			rd.rep.Add(model.LossPassthrough, "gemini tool call status "+status, c.loc)
		}
	}
	for _, f := range c.entry {
		switch f.Key {
		case "id", "name", "args", "status":
		case "result":
			if fr == nil || !sameResult(rd.openIx, f.Value, fr) {
				ev.Extra.Set("toolCall.result", f.Value)
			}
		case "timestamp":
			if ev.Time == "" {
				ev.Time, _ = jsonscan.String(f.Value)
			} else if peek(f.Value) != ev.Time {
				ev.Extra.Set("toolCall.timestamp", f.Value)
			}
		case "resultDisplay", "agentId":
			ev.Extra.Set(toolCallKey(f.Key), f.Value)
			if f.Key == "agentId" && rd.agentTypes != nil {
				if args, ok := c.entry.Get("args"); ok {
					if a, err := model.ParseValidFieldsView(args); err == nil {
						rd.agentTypes[c.id], _ = a.String("agent_name")
					}
				}
			}
		}
	}
}

// sameResult reports whether a toolCalls entry's result (a list of parts,
// of the input ix indexes) is the one functionResponse part fr.
func sameResult(ix *jsonscan.Index, result, fr []byte) bool {
	n := 0
	same := false
	ix.Array(result, func(_ int, b []byte) error {
		n++
		ix.Members(b, func(k, v []byte) error { // validated with its record
			same = string(k) == "functionResponse" && bytes.Equal(v, fr)
			return nil
		})
		return nil
	})
	return n == 1 && same
}

// functionResponse reads a functionResponse {id, name, response}, of the
// input ix indexes: the response's output (or error) is the result's
// text; a response with other members is kept whole. The call's id is
// left to the caller, which has it as a string when it has the call: id is
// its value (nil without one).
func functionResponse(ix *jsonscan.Index, fr []byte) (res *model.ToolResult, extra model.Fields, id []byte) {
	res = &model.ToolResult{}
	var room [4]model.Field
	f, err := viewFields(ix, fr, room[:0])
	if err != nil {
		res.Content, res.ContentRaw = string(fr), jsonscan.Copy(fr)
		return res, nil, nil
	}
	for _, x := range f {
		switch x.Key {
		case "id":
			id = x.Value
		case "response":
			var room [2]model.Field
			resp, err := viewFields(ix, x.Value, room[:0])
			if err == nil && len(resp) == 1 {
				if s, ok := resp.String("output"); ok {
					res.Content = s
					continue
				}
				if s, ok := resp.String("error"); ok {
					res.Content, res.IsError = s, true
					continue
				}
			}
			if s, ok := resp.String("output"); ok {
				res.Content = s
			} else if s, ok := resp.String("error"); ok {
				res.Content, res.IsError = s, true
			} else {
				res.Content = string(x.Value)
			}
			res.ContentRaw = x.Value
		case "name":
			// Made once, not for every result.
			extra.Set("functionResponse.name", x.Value)
		default:
			extra.Set("functionResponse."+x.Key, x.Value)
		}
	}
	return res, extra, id
}

// gemini emits a model message: its thoughts, its text and its tool calls,
// each with the message's id, model and usage.
func (rd *reader) gemini(p *message) error {
	// What the first event carries (its tokens, nearly always): when it
	// holds a value of the message's copy, the events keep the copy, and
	// the strings they keep are views of it (keptString).
	extra := rest(p.fields, true)
	kept := keptCopy(p, extra)
	p.ownID(kept)
	base := rd.base(p, model.KindAgent, kept)
	base.MessageID = p.id
	// A session's messages nearly always name one model: its name is
	// decoded once, not for every message.
	if mv, _ := p.fields.Get("model"); peek(mv) != rd.model {
		rd.model, _ = p.fields.String("model")
	}
	base.Model = rd.model
	if rd.h.Model == "" {
		rd.h.Model = base.Model
	}
	if v, ok := p.fields.Get("tokens"); ok {
		base.Usage = rd.tokens(v, p.loc)
	}
	// Each event is allocated alone (newEvent): a list of them growing
	// would copy and allocate them again.
	var room [4]*model.Event
	events := room[:0]
	rd.eachObject(p, "thoughts", false, func(t model.Fields, loc model.Loc) {
		ev := base
		ev.Kind = model.KindThinking
		ev.Loc = loc
		for _, f := range t {
			switch f.Key {
			case "description":
				ev.Text, _ = keptString(kept, f.Value)
			case "timestamp":
				ev.Time, _ = keptString(kept, f.Value)
			case "subject":
				if peek(f.Value) == "" {
					continue
				}
				// Made once, not for every thought.
				ev.Extra.Set("thought.subject", f.Value)
			default:
				ev.Extra.Set("thought."+f.Key, f.Value)
			}
		}
		events = append(events, newEvent(ev))
	})
	if v, ok := p.fields.Get("content"); ok {
		if s, isString := keptString(kept, v); isString {
			if s != "" {
				ev := base
				ev.Text = s
				events = append(events, newEvent(ev))
			}
		} else {
			ev := base
			ev.Text, _ = contentText(p.fields)
			ev.Extra.Set("content", v)
			events = append(events, newEvent(ev))
		}
	}
	var calls []openCall
	rd.eachObject(p, "toolCalls", true, func(entry model.Fields, loc model.Loc) {
		ev := base
		ev.Kind = model.KindToolCall
		ev.Loc = loc
		c := &model.ToolCall{}
		// The event keeps the entry's members (its input, its extra),
		// and so the copy.
		idv, _ := entry.Get("id")
		c.ID, _ = keptString(kept, bytes.TrimSpace(idv)) // Fields.String
		nv, _ := entry.Get("name")
		c.Name, _ = keptString(kept, bytes.TrimSpace(nv))
		if args, ok := entry.Get("args"); ok {
			c.Input = args
		}
		ev.Call = c
		for i, f := range entry {
			switch f.Key {
			case "id", "name", "args", "result", "status", "timestamp", "resultDisplay", "agentId":
			default:
				if ev.Extra == nil {
					// Room for the members left: the list never grows.
					ev.Extra = make(model.Fields, 0, len(entry)-i)
				}
				ev.Extra.Set(toolCallKey(f.Key), f.Value)
			}
		}
		events = append(events, newEvent(ev))
		calls = append(calls, openCall{id: c.ID, name: c.Name, entry: entry, loc: ev.Loc})
	})
	if len(events) == 0 {
		events = append(events, newEvent(base))
	}
	events[0].Extra = append(extra, events[0].Extra...)
	for i := range events {
		if err := rd.emit(events[i]); err != nil {
			return err
		}
	}
	if len(calls) > 0 && len(rd.open) == 0 {
		// The calls' entries are of this message's copy: its index
		// goes with them, until their results come (closeCalls emptied
		// the list, and freed nothing: the last calls' index is free).
		rd.free(rd.openIx)
		rd.openIx, rd.pendingIx = rd.pendingIx, nil
	}
	rd.open = append(rd.open, calls...)
	return nil
}

// eachObject calls fn with each object of the list a message's member key
// holds (thoughts, toolCalls) and its place; what is not a list of
// objects is reported. keep says fn keeps the object's list (a call's
// entry, until its result comes); otherwise it is a list of views
// (viewFields), let go when fn returns.
func (rd *reader) eachObject(p *message, key string, keep bool, fn func(f model.Fields, loc model.Loc)) {
	v, ok := p.fields.Get(key)
	if !ok || jsonscan.IsNull(v) {
		return
	}
	err := rd.pendingIx.Array(v, func(i int, b []byte) error {
		loc := p.loc
		loc.Path = listPath(p.loc.Path, key, i)
		var f model.Fields
		var err error
		if keep {
			f, err = model.ParseIn(rd.pendingIx, b, false)
		} else {
			var room [4]model.Field
			f, err = viewFields(rd.pendingIx, b, room[:0])
		}
		if err != nil || (len(f) == 0 && !bytes.HasPrefix(b, []byte("{"))) {
			rd.rep.Add(model.LossMalformed, "gemini "+key+" entry is not an object", loc)
			return nil
		}
		fn(f, loc)
		return nil
	})
	if err != nil {
		rd.rep.Add(model.LossMalformed, "gemini "+key+" is not a list", p.loc)
	}
}

func listPath(base, key string, i int) string {
	if base == "" {
		if i < len(topPaths[0]) {
			switch key {
			case "thoughts":
				return topPaths[0][i]
			case "toolCalls":
				return topPaths[1][i]
			case "content":
				return topPaths[2][i]
			}
		}
		base = "$"
	}
	return base + "." + key + "[" + model.Itoa(int64(i)) + "]"
}

// topPaths are listPath("", key, i) of a line's lists (thoughts,
// toolCalls, content) for their first entries, made once, not for every
// entry's events: nearly every list has fewer than four.
var topPaths = func() (p [3][4]string) {
	for k, key := range [...]string{"thoughts", "toolCalls", "content"} {
		for i := range p[k] {
			p[k][i] = "$." + key + "[" + model.Itoa(int64(i)) + "]"
		}
	}
	return p
}()

// tokens reads a gemini message's tokens by the usage rule for Gemini
// (usage.Gemini); a total other than the sum of its parts is reported.
func (rd *reader) tokens(v []byte, loc model.Loc) *model.Usage {
	var t struct {
		Input, Output, Cached, Thoughts, Tool, Total int64
		hasTotal                                     bool
	}
	bad := false
	count := func(val []byte) int64 {
		if jsonscan.IsNull(val) {
			return 0
		}
		n, ok := jsonscan.Int(val)
		bad = bad || !ok
		return n
	}
	var err error
	if n, ok := plainTokens(v); ok && fastPaths {
		t.Input, t.Output, t.Cached, t.Thoughts, t.Tool, t.Total, t.hasTotal = n[0], n[1], n[2], n[3], n[4], n[5], true
	} else {
		err = jsonscan.Members(v, func(k, val []byte) error {
			switch string(k) {
			case "input":
				t.Input = count(val)
			case "output":
				t.Output = count(val)
			case "cached":
				t.Cached = count(val)
			case "thoughts":
				t.Thoughts = count(val)
			case "tool":
				t.Tool = count(val)
			case "total":
				t.Total, t.hasTotal = count(val), true
			}
			return nil
		})
	}
	if err != nil || bad {
		rd.rep.Add(model.LossMalformed, "gemini tokens is not an object of counts", loc)
		return nil
	}
	rd.lastInput = t.Input
	c := usage.Gemini(usage.Clamp(t.Input), usage.Clamp(t.Output), usage.Clamp(t.Cached), usage.Clamp(t.Thoughts), usage.Clamp(t.Tool))
	if t.hasTotal && usage.Clamp(t.Total) != c.In+c.Out+c.Cached {
		rd.rep.Lose(model.LossUnfaithful, "usage", "gemini tokens.total other than input + output + thoughts + tool: the parts are counted", loc)
	}
	u := model.UsageOf(c)
	return &u
}

// tokenMembers are what Gemini CLI writes before each count of a message's
// tokens, in its order.
var tokenMembers = [...]string{`{"input":`, `,"output":`, `,"cached":`, `,"thoughts":`, `,"tool":`, `,"total":`}

// plainTokens reads the counts of a message's tokens (input, output,
// cached, thoughts, tool, total) when v, a value validated with its
// record, is exactly the object Gemini CLI writes: those members in that
// order, without white space, each count 1 to 18 ASCII digits. Then
// tokens' walk over its members would read the same counts, and nothing
// is wrong with them; anything else (another order or member, a sign, a
// fraction, null) takes that walk.
func plainTokens(v []byte) (n [len(tokenMembers)]int64, ok bool) {
	i := 0
	for k, m := range tokenMembers {
		if len(v)-i < len(m) || string(v[i:i+len(m)]) != m {
			return n, false
		}
		i += len(m)
		j := i
		for j < len(v) && v[j]-'0' <= 9 {
			j++
		}
		if n[k], ok = jsonscan.Digits(v[i:j]); !ok {
			return n, false
		}
		i = j
	}
	return n, i == len(v)-1 && v[i] == '}'
}

// emitResult emits ev, first splicing in a sub-agent's file when ev is the
// result of a call that names one (invoke_agent's agentId).
func (rd *reader) emitResult(ev *model.Event) error {
	if ev.Kind == model.KindToolResult {
		if v, ok := ev.Extra.Get("toolCall.agentId"); ok {
			if id, _ := jsonscan.String(v); id != "" && rd.used != nil && !rd.used[id] {
				spliced, err := rd.splice(ev, id)
				if err != nil {
					return err
				}
				if spliced {
					// The sub-agent's events carry its id.
					ev.Extra.Delete("toolCall.agentId")
				}
			}
		}
	}
	return rd.emit(ev)
}

// closeCalls emits the results of the open calls from their toolCalls
// entries (the older form has no user message of results; a call the CLI
// sent back no result for keeps the one it recorded).
func (rd *reader) closeCalls() error {
	open := rd.open
	rd.open = nil
	for _, c := range open {
		_, hasResult := c.entry.Get("result")
		_, hasStatus := c.entry.Get("status")
		if !hasResult && !hasStatus {
			continue // still running when the file ended
		}
		ev := rd.event(model.KindToolResult, "", c.loc)
		ev.Result = &model.ToolResult{CallID: c.id}
		if v, ok := c.entry.Get("result"); ok {
			var fr []byte
			n := 0
			rd.openIx.Array(v, func(_ int, b []byte) error {
				n++
				rd.openIx.Members(b, func(k, v []byte) error { // validated with its record
					if string(k) == "functionResponse" {
						fr = v
					}
					return nil
				})
				return nil
			})
			if n == 1 && fr != nil {
				res, extra, _ := functionResponse(rd.openIx, fr)
				res.CallID = c.id
				ev.Result, ev.Extra = res, extra
				if isString(ev.Extra, "functionResponse.name", c.name) {
					ev.Extra.Delete("functionResponse.name")
				}
				fr = bytes.Clone(fr)
			} else {
				fr = nil
			}
			rd.callOutcome(&ev, c, fr)
		} else {
			rd.callOutcome(&ev, c, nil)
		}
		if err := rd.emitResult(&ev); err != nil {
			return err
		}
	}
	return nil
}

// set reads a $set control line, member by member.
func (rd *reader) set(v []byte, loc model.Loc) error {
	f, err := model.ParseValidFieldsView(v) // views of the line: what is kept is copied
	if err != nil {
		rd.rep.Add(model.LossMalformed, "gemini $set is not an object", loc)
		return nil
	}
	for _, x := range f {
		if x.Key == "lastUpdated" {
			// After each new message: it does not end the message held,
			// which may be written again.
			if s, ok := jsonscan.String(x.Value); ok {
				rd.updated(s)
			} else {
				rd.h.Extra.Set("lastUpdated", jsonscan.Copy(x.Value))
			}
			continue
		}
		// The calls stay open: Gemini CLI may compress its history (a
		// $set.messages) before it sends their results back.
		if err := rd.flush(); err != nil {
			return err
		}
		if x.Key != "messages" {
			if err := rd.resume(); err != nil {
				return err
			}
		}
		switch x.Key {
		case "messages":
			if err := rd.messages(x.Value, loc); err != nil {
				return err
			}
		case "sessionId":
			if err := rd.resume(); err != nil {
				return err
			}
			// A run resumes the session (rlog's @resume); the id is the
			// session's own unless it says otherwise.
			ev := rd.event(model.KindLifecycle, "", loc)
			ev.Name = "resume"
			if id, ok := jsonscan.String(x.Value); !ok || id != rd.top.ID {
				ev.Extra.Set("sessionId", jsonscan.Copy(x.Value))
			}
			rd.resumed = &ev
		default:
			// summary, memoryScratchpad: what the session is about, for the
			// CLI's lists and memory.
			rd.h.Extra.Set(x.Key, jsonscan.Copy(x.Value))
			if _, known := records.SetKey(x.Key); !known {
				rd.rep.Add(model.LossPassthrough, "gemini $set key "+x.Key, loc)
			}
		}
	}
	return nil
}

// messages reads a $set.messages: the list of messages the model sees from
// now on, which Gemini CLI rebuilds from the API history (no tokens,
// thoughts or tool calls; new ids after a compression). What it adds to the
// message lines is emitted: the session context, which is in no message
// line; a compression's snapshot; a prompt taken out (its request was
// refused). The rest repeats the lines read, and is counted.
func (rd *reader) messages(v []byte, loc model.Loc) error {
	type entry struct {
		ID, Type, Timestamp string
		text                string
		i                   int
	}
	var list []entry
	err := jsonscan.Array(v, func(i int, b []byte) error {
		f, err := model.ParseValidFieldsView(b)
		if err != nil {
			return nil
		}
		e := entry{i: i}
		e.ID, _ = f.String("id")
		e.Type, _ = f.String("type")
		e.Timestamp, _ = f.String("timestamp")
		e.text, _ = contentText(f)
		list = append(list, e)
		return nil
	})
	if err != nil {
		rd.rep.Add(model.LossMalformed, "gemini $set.messages is not a list", loc)
		return nil
	}
	compressed := false
	for _, e := range list {
		if e.Type == "user" && strings.HasPrefix(e.text, "<state_snapshot>") && e.text != rd.snapshot {
			compressed = true
		}
	}
	if !compressed {
		if err := rd.resume(); err != nil {
			return err
		}
	}
	prompted := false
	for k, e := range list {
		at := loc
		at.Path = "$.$set.messages[" + model.Itoa(int64(e.i)) + "]"
		switch {
		case e.Type == "user" && isContext(e.text):
			if e.text == rd.context {
				continue
			}
			rd.context = e.text
			ev := rd.event(model.KindUser, e.Timestamp, at)
			ev.ID, ev.Text, ev.Meta = e.ID, e.text, true
			if err := rd.emit(&ev); err != nil {
				return err
			}
		case e.Type == "user" && strings.HasPrefix(e.text, "<state_snapshot>"):
			if e.text == rd.snapshot {
				continue
			}
			rd.snapshot = e.text
			// The prompt has another id in the compressed history.
			rd.lastPrompt = ""
			ev := rd.event(model.KindCompaction, e.Timestamp, at)
			ev.ID, ev.Text = e.ID, e.text
			ev.Compaction = &model.Compaction{Trigger: "auto", PreTokens: rd.lastInput}
			if k+1 < len(list) && list[k+1].Type == "gemini" {
				ev.Extra.SetString("reply", list[k+1].text)
			}
			if rd.resumed != nil {
				// The CLI sets the session again as it compresses.
				if v, ok := rd.resumed.Extra.Get("sessionId"); ok {
					ev.Extra.Set("sessionId", v)
				}
				rd.resumed = nil
			}
			if err := rd.emit(&ev); err != nil {
				return err
			}
		}
		if e.ID == rd.lastPrompt {
			prompted = true
		}
	}
	if rd.lastPrompt != "" && !prompted && !compressed {
		ev := rd.event(model.KindSystem, "", loc)
		ev.Name = "error"
		ev.Text = "the request failed: Gemini CLI took the prompt out of the conversation"
		ev.Extra.SetString("dropped", rd.lastPrompt)
		rd.lastPrompt = ""
		if err := rd.emit(&ev); err != nil {
			return err
		}
	}
	rd.rep.Add(model.LossDroppedField, "gemini $set.messages: the messages the model sees, repeating the message lines", loc)
	return nil
}

// finish ends the file: the message held, and the results of its calls.
func (rd *reader) finish() error {
	if err := rd.flush(); err != nil {
		return err
	}
	if err := rd.closeCalls(); err != nil {
		return err
	}
	return rd.resume()
}

// resume emits the resume a $set.sessionId announced, if any.
func (rd *reader) resume() error {
	ev := rd.resumed
	if ev == nil {
		return nil
	}
	rd.resumed = nil
	return rd.emit(ev)
}

// validName reports whether id can name a file in a folder (no separator,
// not . or ..).
func validName(id string) bool {
	return id != "." && id != ".." && !strings.ContainsAny(id, `/\`) && !strings.ContainsRune(id, 0)
}

// splice reads the file of the sub-agent id (chats/SESSION_ID/ID.jsonl)
// into the session, framed by sub-agent events: before at, the result of
// the call that started it, or at the end when at is nil.
func (rd *reader) splice(at *model.Event, id string) (bool, error) {
	if rd.chats == "" || rd.depth >= maxDepth || !validName(id) || !validName(rd.sessionID()) {
		return false, nil
	}
	rd.used[id] = true
	path := filepath.Join(rd.chats, rd.sessionID(), id+".jsonl")
	f, err := os.Open(path)
	if err != nil {
		return false, nil // no file for it: nothing to splice
	}
	defer f.Close()
	name := filepath.ToSlash(filepath.Join(rd.sessionID(), id+".jsonl"))
	if rd.file != "" {
		name = filepath.ToSlash(filepath.Join(filepath.Dir(rd.file), rd.sessionID(), id+".jsonl"))
	}
	// The sub-agent's session id is its agent id, and its file is in the
	// events' locations.
	sub := &model.Subagent{ID: id, AgentID: id, Status: "started"}
	loc := model.Loc{File: name}
	if at != nil {
		sub.ID = at.Result.CallID
		loc = at.Loc
	}
	start := model.Event{Kind: model.KindSubagent, Subagent: sub, AgentID: id, Sidechain: true, Loc: loc}
	if at != nil {
		sub.Type = rd.agentTypes[sub.ID]
		delete(rd.agentTypes, sub.ID)
	}
	// The sub-agent's header is its own; its events go with the session's.
	child := &reader{h: newHeader(), top: rd.top, sink: rd.sink, rep: rd.rep, chats: rd.chats, used: rd.used,
		agentTypes: rd.agentTypes, agent: id, file: name, depth: rd.depth + 1}
	if err := rd.emit(&start); err != nil {
		return true, err
	}
	if err := child.read(f); err != nil {
		return true, err
	}
	done := model.Event{Kind: model.KindSubagent, AgentID: id, Sidechain: true, Loc: loc, Time: child.h.Ended,
		Subagent: &model.Subagent{ID: sub.ID, AgentID: id, Type: sub.Type, Status: "done"}}
	if s, ok := child.h.Extra.String("summary"); ok {
		done.Subagent.Summary = s
		child.h.Extra.Delete("summary")
	}
	if child.h.ID != "" && child.h.ID != id {
		done.Extra.SetString("sessionId", child.h.ID)
	}
	if child.h.Started != "" {
		done.Extra.SetString("startTime", child.h.Started)
	}
	for _, f := range child.h.Extra {
		if v, ok := rd.top.Extra.Get(f.Key); ok && bytes.Equal(v, f.Value) {
			continue // the session's (projectHash)
		}
		done.Extra = append(done.Extra, f)
	}
	if at != nil {
		if reason := terminateReason(at); reason != "" && reason != "GOAL" {
			done.Subagent.Status = "error"
		}
	}
	return true, rd.emit(&done)
}

// sessionID is the id of the session whose sub-agents' folder this file's
// sub-agents are in: the main file's.
func (rd *reader) sessionID() string { return rd.top.ID }

// terminateReason is why an invoke_agent's sub-agent stopped, from the
// call's display (GOAL when it completed its task).
func terminateReason(ev *model.Event) string {
	v, ok := ev.Extra.Get("toolCall.resultDisplay")
	if !ok {
		return ""
	}
	f, err := model.ParseValidFieldsView(v)
	if err != nil {
		return ""
	}
	s, _ := f.String("terminateReason")
	return s
}
