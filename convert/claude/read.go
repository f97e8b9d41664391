// Package claude reads and writes Claude Code session transcripts
// (~/.claude/projects/<slug>/<sessionId>.jsonl): one JSON
// entry per line, one entry per content block of an API response, tool
// results in the following user entry, a parentUuid DAG, compaction
// boundaries, and sub-agent transcripts in subagents/agent-<id>.jsonl.
package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/claude/records"
	"github.com/rlog-ls/rlog-ls/convert/internal/paths"
	"github.com/rlog-ls/rlog-ls/convert/internal/strblock"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/jsonl"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
	"github.com/rlog-ls/rlog-ls/internal/jsonstr"
)

// Name is the format name used by the CLI.
const Name = "claude"

// isHeaderKey reports whether an entry key describes the session rather
// than the entry. They go to the Header from the first entry that has
// them; an entry whose value differs keeps its own in Event.Extra. (A
// switch: every key of every record is asked, and a map's lookup hashed
// each.)
func isHeaderKey(name []byte) bool {
	switch string(name) {
	case "sessionId", "cwd", "version", "gitBranch", "slug", "userType":
		return true
	}
	return false
}

// isSharedKey reports whether an entry key says how the session was run:
// the first entry's value is the header's too (Claude Code 2.1 writes
// entrypoint on every entry), and each entry keeps its own.
func isSharedKey(name []byte) bool { return string(name) == "entrypoint" }

// Reader reads one transcript. Subagent, when set, opens the transcript of
// a sub-agent by its agentId and names it (a path relative to the main
// transcript's folder, for the locations in reports); its events are
// spliced in before the Task tool result that names that agentId, framed by
// KindSubagent events.
type Reader struct {
	Subagent func(agentID string) (r io.ReadCloser, name string, err error)
	// Agents are what the sub-agents' agent-ID.meta.json files say, by
	// agent id: the call that started each and its type.
	Agents map[string]AgentMeta
	// used records the agent ids already spliced.
	used map[string]bool
	// waiting are the sub-agents run in the background whose turns were
	// spliced at their start, by the call that started them: their end is
	// the task notification that reports them back.
	waiting map[string]string
}

// AgentMeta is what a sub-agent's agent-ID.meta.json says of it.
type AgentMeta struct {
	ToolUseID string `json:"toolUseId"`
	AgentType string `json:"agentType"`
}

// agentOfCall is the sub-agent the call callID started, by its meta file.
func (rd *Reader) agentOfCall(callID string) string {
	for id, m := range rd.Agents {
		if m.ToolUseID == callID && callID != "" {
			return id
		}
	}
	return ""
}

// Read reads a transcript from r into sink, reporting malformed lines and
// unknown records in rep. It returns an error only when r fails.
func Read(r io.Reader, sink model.Sink, rep *model.Report) error {
	var rd Reader
	return rd.Read(r, sink, rep)
}

// Read is the package-level Read with sub-agent splicing.
func (rd *Reader) Read(r io.Reader, sink model.Sink, rep *model.Report) error {
	h := &model.Header{SourceFormat: Name, AgentName: "claude-code"}
	st := &state{h: h, sink: sink, rep: rep, rd: rd, costs: &costs{}, borrows: model.BorrowsEvents(sink)}
	if err := st.readStream(r, ""); err != nil {
		return err
	}
	if err := st.closeInline(model.Event{}); err != nil {
		return err
	}
	return sink.End(h)
}

// PartOf reports whether the transcript at path is a sub-agent's, which
// its session's transcript reads (a file in a subagents/ folder, where
// ReadFile looks for them).
func PartOf(path string) bool {
	return filepath.Base(filepath.Dir(path)) == "subagents"
}

// ReadFile reads the transcript at path together with its sub-agent
// transcripts: <dir>/<session>/subagents/agent-*.jsonl (Claude Code 2.x) or
// <dir>/subagents/agent-*.jsonl beside it. Sub-agent files of another
// session are ignored; those never referenced by a Task result are appended
// at the end.
func ReadFile(path string, sink model.Sink, rep *model.Report) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return ReadNamed(f, path, sink, rep)
}

// ReadNamed is ReadFile reading the transcript from r, which holds the file
// at path (whose sub-agent transcripts are read from beside it).
func ReadNamed(r io.Reader, path string, sink model.Sink, rep *model.Report) error {
	files := SubagentFiles(path)
	rd := &Reader{Agents: subagentMetas(files), Subagent: func(id string) (io.ReadCloser, string, error) {
		p, ok := files[id]
		if !ok {
			return nil, "", os.ErrNotExist
		}
		name, err := filepath.Rel(filepath.Dir(path), p)
		if err != nil {
			name = filepath.Base(p)
		}
		f, err := os.Open(p)
		return f, filepath.ToSlash(name), err
	}}
	h := &model.Header{SourceFormat: Name, AgentName: "claude-code"}
	reopen := func() (io.ReadCloser, error) { return os.Open(path) }
	st := &state{h: h, sink: sink, rep: rep, rd: rd, fileName: filepath.Base(path), costs: &costs{reopen: reopen}, borrows: model.BorrowsEvents(sink)}
	if err := st.readStream(r, ""); err != nil {
		return err
	}
	if err := st.closeInline(model.Event{}); err != nil {
		return err
	}
	ids := make([]string, 0, len(files))
	for id, p := range files {
		if !rd.used[id] && fileSessionID(p) == h.ID {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		if err := st.splice(id, "", false); err != nil {
			return err
		}
	}
	return sink.End(h)
}

// subagentMetas reads the meta files beside the sub-agent transcripts
// (agent-ID.meta.json, Claude Code 2.1 on); a file missing or unreadable
// says nothing.
func subagentMetas(files map[string]string) map[string]AgentMeta {
	out := map[string]AgentMeta{}
	for id, p := range files {
		b, err := os.ReadFile(strings.TrimSuffix(p, ".jsonl") + ".meta.json")
		if err != nil {
			continue
		}
		var m AgentMeta
		if json.Unmarshal(b, &m) == nil {
			out[id] = m
		}
	}
	return out
}

// SubagentFiles maps agent ids to the sub-agent transcripts found beside
// the transcript at path.
func SubagentFiles(path string) map[string]string {
	dir := filepath.Dir(path)
	base := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	out := map[string]string{}
	for _, d := range []string{filepath.Join(dir, base, "subagents"), filepath.Join(dir, "subagents")} {
		m, _ := filepath.Glob(filepath.Join(paths.GlobEscape(d), "agent-*.jsonl"))
		for _, p := range m {
			id := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "agent-"), ".jsonl")
			if _, dup := out[id]; !dup {
				out[id] = p
			}
		}
	}
	return out
}

type state struct {
	h    *model.Header
	sink model.Sink
	rep  *model.Report
	rd   *Reader
	// depth is 0 for the main transcript, 1 inside a spliced sub-agent.
	depth int
	// file names the transcript being read in locations, "" for the main
	// one.
	file string
	// fileName is the main transcript's file name, "" when it is read
	// without one (standard input).
	fileName string
	// task and taskType are the last Task call of the main conversation
	// and its sub-agent type; inline the call whose sub-agent's inline
	// sidechain entries are being read (see inlineSidechain).
	task, taskType, inline string
	// seen records header keys already taken from an entry, so an empty
	// gitBranch on the first entry is not replaced by a later one.
	seen map[string]bool
	// ix indexes the entry being read, so that its message is not scanned
	// again for each level of nesting.
	ix jsonscan.Index
	// rests reads each entry's rests, and restsBuf holds them decoded:
	// both reused from entry to entry (the events copy what they keep of
	// a rest; FuzzReadRests holds that).
	rests    model.Rests
	restsBuf []byte
	// costs follows Claude Code's cost-state records (see cost.go); shared
	// with the sub-agents' states, whose calls a run's cost counts too.
	costs *costs
	// pending holds the entry being read's extra fields in line order
	// until its type says whether it keeps them (keepsExtra): reused from
	// entry to entry.
	pending []pendingField
	// eagerExtra makes every entry's extra and finds an attachment's type
	// in it, as the reader did before pending: the reference
	// FuzzLazyExtra holds the lazy path to. Only tests set it.
	eagerExtra bool
	// borrows says the sink borrows events (model.BorrowsEvents): an
	// entry's events are then made in events, the room of the entry
	// before, emptied (eventRoom), not in a new slice each entry.
	borrows bool
	events  []model.Event
	// msgExtra is room for an entry's message's extra list, which the
	// entry's first event does not keep (concatFields copies it with the
	// entry's extra): for every sink.
	msgExtra model.Fields
}

// eventRoom is room for an entry's events: nil (a new slice, as append
// makes it), or, for a sink that borrows events, the room of the entry
// before with every event in it zeroed, so that nothing of the events
// before is left in it or kept alive by it.
func (st *state) eventRoom() []model.Event {
	if !st.borrows {
		return nil
	}
	clear(st.events)
	return st.events[:0]
}

// keepRoom keeps the room of events, an entry's, for the next entry's
// (eventRoom) when the sink borrows events and it is not larger than
// maxRoomEvents: all of it, not only its length (an entry's rests may
// have dropped events past it).
func (st *state) keepRoom(events []model.Event) {
	if st.borrows && cap(events) <= maxRoomEvents {
		st.events = events[:cap(events)]
	}
}

// maxRoomEvents bounds the room for an entry's events kept for the next
// entry.
const maxRoomEvents = 64

// pendingField is one of an entry's extra fields: a key and value of the
// line, copied only when the entry keeps its extra (a bookkeeping record,
// an attachment or a record passed through whole keeps its line, not its
// fields: copying an api-request-shape's 40 KB shape or an attachment's
// system prompt to drop it was most of their cost), or a field made
// already (a header key whose value changed).
type pendingField struct {
	name, v []byte
	made    model.Field
}

// keepsExtra reports whether an entry of type typ keeps its extra fields
// in its events; the others (attachments, cost-state, bookkeeping and
// unknown records) are passed on as their whole line.
func keepsExtra(typ string) bool {
	switch typ {
	case "user", "assistant", "system", "summary", SessionRecord:
		return true
	}
	return false
}

// extraFields makes the pending fields an entry's extra, in line order.
func (st *state) extraFields() model.Fields {
	if len(st.pending) == 0 {
		return nil
	}
	out := make(model.Fields, len(st.pending))
	for i, p := range st.pending {
		if p.name == nil {
			out[i] = p.made
			continue
		}
		out[i] = model.Field{Key: string(p.name), Value: st.ix.Copy(p.v)}
	}
	return out
}

// pendingValue is the value of the pending field named name, nil when
// the entry has none.
func (st *state) pendingValue(name string) []byte {
	for _, p := range st.pending {
		if p.name != nil && string(p.name) == name {
			return p.v
		}
	}
	return nil
}

func (st *state) readStream(r io.Reader, agent string) error {
	// The texts the events keep are made many to an allocation; the ids
	// and times (which a consumer may keep after their event: a writer's
	// recent call ids and times) each on an allocation of its own (the
	// zero Room). An entry holds six ids or so (uuid, parent, time,
	// request, message, call): in blocks of ids, the last 8,192 call ids a
	// writer keeps held about 3 MB of the others (a 55 MB transcript to
	// REPLAY peaked at 11.0-11.4 MB of live heap, 7.8-8.1 on main).
	var ids strblock.Room
	strs := strblock.New(readStringBlock, maxReadString)
	st.ix.MakeStrings(&strs)
	st.ix.MakeIDs(&ids)
	entry := func(line []byte, n int) error { return st.entry(line, n, agent) }
	tooLong := func(n int, err error) { st.rep.MalformedAt(st.loc(n), err) }
	if st.depth > 0 {
		return jsonl.Each(r, entry, tooLong)
	}
	head := &sessionHead{st: st, entry: entry, tooLong: tooLong}
	err := jsonl.Each(r, head.line, head.tooLongLine)
	if herr := head.release(); herr != nil {
		return herr // the lines held come before what ended the reading
	}
	return err
}

// readStringBlock and maxReadString are the size of the blocks the
// reader makes the events' texts in and the longest made in one (a longer
// one is an allocation of its own): as the ATIF reader's.
const (
	readStringBlock = 16 << 10
	maxReadString   = 1 << 10
)

// ent is the decoded part of one entry.
type ent struct {
	typ, uuid, parent, ts, agentID, requestID string
	hasParent, sidechain, meta                bool
	message, todos                            []byte
	statuses                                  []byte // toolResultStatus, this writer's
	rests                                     []byte // this writer's, from another format; part of the line
	extra                                     model.Fields
}

func (st *state) entry(line []byte, n int, agent string) error {
	var e ent
	st.pending = st.pending[:0]
	err := st.ix.Object(line, func(k, v []byte) error {
		name := jsonscan.KeyBytes(k)
		switch string(name) {
		case "type":
			e.typ, _ = st.ix.String(v)
		case "uuid":
			e.uuid, _ = st.ix.ID(v)
		case "parentUuid":
			e.parent, _ = st.ix.ID(v)
			e.hasParent = true
		case "timestamp":
			e.ts, _ = st.ix.ID(v)
		case "isSidechain":
			e.sidechain, _ = jsonscan.Bool(v)
		case "agentId":
			e.agentID, _ = st.ix.ID(v)
		case "isMeta":
			e.meta, _ = jsonscan.Bool(v)
		case "requestId":
			e.requestID, _ = st.ix.ID(v)
			st.pending = append(st.pending, pendingField{name: name, v: v})
		case "message":
			e.message = v
		case "todos":
			e.todos = v
		case resultStatusKey:
			e.statuses = v
		case restsKey:
			e.rests = v // read while the line is (applyRests), copied as it is decoded
		default:
			if isHeaderKey(name) {
				st.headerField(name, v)
				return nil
			}
			if isSharedKey(name) && st.depth == 0 {
				key := string(name)
				if _, have := st.h.Extra.Get(key); !have {
					if s, ok := st.ix.String(v); ok {
						st.h.Extra.SetString(key, s)
					}
				}
			}
			st.pending = append(st.pending, pendingField{name: name, v: v})
		}
		return nil
	})
	if err != nil {
		st.rep.MalformedAt(st.loc(n), err)
		return nil
	}
	if st.eagerExtra || keepsExtra(e.typ) {
		e.extra = st.extraFields()
	}
	loc := st.loc(n)
	if !st.ix.InputValidUTF8() {
		st.rep.InvalidUTF8(line, loc)
	}
	if st.h.Started == "" && e.ts != "" && !st.seen["started"] {
		st.h.Started = e.ts
	}
	if e.ts != "" {
		st.h.Ended = e.ts
	}
	if e.agentID == "" {
		e.agentID = agent
	}
	base := model.Event{Time: e.ts, ID: e.uuid, ParentID: e.parent, AgentID: e.agentID, Sidechain: e.sidechain, Meta: e.meta, Loc: loc}
	if st.depth == 0 && (e.typ == "user" || e.typ == "assistant") {
		if err := st.inlineSidechain(&e, base); err != nil {
			return err
		}
	}
	if (e.typ == "user" || e.typ == "assistant" || e.typ == "system") && st.resumed() {
		// The first record of a run after the end of an earlier one.
		ev := model.Event{Kind: model.KindLifecycle, Name: "resume", Time: e.ts, Loc: loc}
		ev.Extra.Set(readerMarkHint, []byte("true"))
		if err := st.emit(&ev); err != nil {
			return err
		}
	}
	switch e.typ {
	case "user":
		return st.user(&e, base, line, n)
	case "assistant":
		return st.assistant(&e, base, line, n)
	case "system":
		return st.system(&e, base)
	case SessionRecord:
		st.sessionRecord(&e)
		return nil
	case "summary":
		ev := base
		ev.Kind = model.KindSystem
		ev.Name = "summary"
		ev.Text, _ = e.extra.String("summary")
		e.extra.Delete("summary")
		ev.Extra = e.extra
		return st.emit(&ev)
	case "attachment":
		return st.attachment(&e, base, line)
	case "cost-state":
		return st.costState(base, line)
	default:
		if m, ok := records.MeaningOf(e.typ); ok && m.Use == records.Bookkeeping {
			return st.bookkeeping(base, e.typ, line, m)
		}
		// file-history-snapshot, and every record type a newer Claude
		// Code adds, pass through whole.
		return st.passthrough(base, e.typ, line)
	}
}

// loc is line n of the transcript being read.
func (st *state) loc(n int) model.Loc { return model.Loc{File: st.file, Line: n} }

func (st *state) headerField(name, v []byte) {
	if st.sameAsHeader(name, v) {
		return // every entry repeats them: no string made to compare
	}
	st.setHeaderField(string(name), v)
}

// setHeaderField is headerField without its shortcut. A value the header
// does not take is one of the entry's extra fields.
func (st *state) setHeaderField(key string, v []byte) {
	s, ok := st.ix.String(v)
	if !ok {
		st.pending = append(st.pending, pendingField{made: model.Field{Key: key, Value: st.ix.Copy(v)}})
		return
	}
	var dst *string
	switch key {
	case "sessionId":
		dst = &st.h.ID
	case "cwd":
		dst = &st.h.Cwd
	case "version":
		dst = &st.h.AgentVersion
	case "gitBranch":
		dst = &st.h.Branch
	default:
		if st.seen["made:"+key] {
			return // the writer's, not the session's
		}
		if _, have := st.h.Extra.Get(key); !have {
			st.h.Extra.SetString(key, s)
			return
		}
		if cur, _ := st.h.Extra.String(key); cur != s {
			st.pending = append(st.pending, pendingField{made: model.Field{Key: key, Value: model.MustJSON(s)}})
		}
		return
	}
	if !st.seen[key] {
		if st.seen == nil {
			st.seen = map[string]bool{}
		}
		st.seen[key] = true
		*dst = s
		return
	}
	if *dst != s {
		st.pending = append(st.pending, pendingField{made: model.Field{Key: key, Value: model.MustJSON(s)}})
	}
}

// sameAsHeader reports whether v, the value of header key name in the
// indexed line, is a string setHeaderField would do nothing with: one the
// header holds already, or one of a key the writer made up. It answers
// only when v needs no decoding (no escape, in a line of valid UTF-8: then
// v's text is its bytes) and otherwise says false, leaving the answer to
// setHeaderField. It makes no string.
func (st *state) sameAsHeader(name, v []byte) bool {
	if len(v) < 2 || v[0] != '"' || !st.ix.ValidUTF8(v) || bytes.IndexByte(v, '\\') >= 0 {
		return false
	}
	text := v[1 : len(v)-1]
	var cur string
	switch string(name) {
	case "sessionId":
		cur = st.h.ID
	case "cwd":
		cur = st.h.Cwd
	case "version":
		cur = st.h.AgentVersion
	case "gitBranch":
		cur = st.h.Branch
	default:
		var buf [32]byte
		if st.seen[string(append(append(buf[:0], "made:"...), name...))] {
			return true
		}
		// The header's extra holds the value as JSON: the same bytes are
		// the same string.
		for _, f := range st.h.Extra {
			if f.Key == string(name) {
				return bytes.Equal(f.Value, v)
			}
		}
		return false
	}
	return st.seen[string(name)] && string(text) == cur
}

func (st *state) emit(ev *model.Event) error {
	st.rep.Events++
	return st.sink.Event(st.h, ev)
}

// bookkeeping passes a record the reader knows as bookkeeping (m) through
// whole, marked so: only a Claude Code writer writes it back.
func (st *state) bookkeeping(base model.Event, typ string, line []byte, m records.Meaning) error {
	ev := base
	ev.Kind = model.KindPassthrough
	ev.RawType = typ
	ev.Raw = st.ix.Copy(line)
	ev.Bookkeeping = m.Becomes
	return st.emit(&ev)
}

// attachment reads an attachment record: bookkeeping of a known type,
// passed through as an unknown record otherwise.
func (st *state) attachment(e *ent, base model.Event, line []byte) error {
	var typ string
	v := st.pendingValue("attachment")
	if st.eagerExtra {
		v, _ = e.extra.Get("attachment")
	}
	if v != nil {
		st.ix.Members(v, func(k, val []byte) error {
			if string(jsonscan.KeyBytes(k)) == "type" {
				typ, _ = st.ix.String(val)
			}
			return nil
		})
	}
	key := "attachment:" + typ
	if m, ok := records.MeaningOf(key); ok && m.Use == records.Bookkeeping {
		return st.bookkeeping(base, key, line, m)
	}
	return st.passthrough(base, key, line)
}

func (st *state) passthrough(base model.Event, typ string, line []byte) error {
	ev := base
	ev.Kind = model.KindPassthrough
	ev.RawType = typ
	ev.Raw = st.ix.Copy(line)
	if _, known := records.MeaningOf(typ); !known {
		st.rep.Passthrough(&ev, "claude record type "+quoteType(typ))
	}
	return st.emit(&ev)
}

// denialStatus is the status Claude Code's fields of a tool result entry
// give its error result: interrupted when the user rejected the call
// (toolDenialKind "user-rejected": the user's interrupt), denied when a
// permission refused it (another toolDenialKind, or a permissionDecision
// whose decision is "reject"); "" for a call that ran.
func denialStatus(extra model.Fields) string {
	if kind, ok := extra.String("toolDenialKind"); ok && kind != "" {
		if kind == "user-rejected" {
			return grammar.StatusInterrupted
		}
		return grammar.StatusDenied
	}
	if v, ok := extra.Get("permissionDecision"); ok {
		decision := ""
		jsonscan.Members(v, func(k, val []byte) error {
			if string(k) == "decision" {
				decision, _ = jsonscan.String(val)
			}
			return nil
		})
		if decision == "reject" {
			return grammar.StatusDenied
		}
	}
	return ""
}

func quoteType(t string) string {
	if t == "" {
		return `""`
	}
	return t
}

// wrongShape reports a valid JSON entry whose shape is not what its type
// requires, and passes it through so nothing is lost.
func (st *state) wrongShape(base model.Event, typ string, line []byte, why string) error {
	st.rep.Add(model.LossMalformed, typ+" entry: "+why, base.Loc)
	ev := base
	ev.Kind = model.KindPassthrough
	ev.RawType = typ
	ev.Raw = st.ix.Copy(line)
	return st.emit(&ev)
}

func (st *state) user(e *ent, base model.Event, line []byte, n int) error {
	events, why := userEvents(&st.ix, e.message, base, st.rep, st.eventRoom(), &st.msgExtra)
	if why != "" {
		return st.wrongShape(base, "user", line, why)
	}
	if status := denialStatus(e.extra); status != "" {
		for i := range events {
			if r := events[i].Result; r != nil && r.IsError && r.Status == "" {
				r.Status = status
			}
		}
	}
	if e.statuses != nil {
		st.ix.Members(e.statuses, func(k, v []byte) error {
			id := string(jsonscan.KeyBytes(k))
			status, _ := st.ix.String(v)
			for i := range events {
				if r := events[i].Result; r != nil && r.CallID == id && status != "" {
					r.Status = status
				}
			}
			return nil
		})
	}
	if e.todos != nil && !jsonscan.IsNull(e.todos) {
		ev := base
		ev.Kind = model.KindTodos
		ev.Todos = parseTodos(e.todos)
		ev.Raw = st.ix.Copy(e.todos)
		if len(events) == 1 && events[0].Form.Content == "empty" {
			// The entry's todo list keeps it: no empty user message
			// (which other formats would write as an empty user line).
			ev.Extra, ev.Form = events[0].Extra, events[0].Form
			events = events[:0]
		}
		events = append(events, ev)
	}
	// Entry-level extras (toolUseResult among them) go on the first event of
	// the entry; writers regroup events by entry ID.
	events[0].Extra = concatFields(e.extra, events[0].Extra)
	events = st.applyRests(e, events, false, base)
	st.keepRoom(events)
	for i := range events {
		if err := st.emitSplicing(&events[i]); err != nil {
			return err
		}
	}
	return nil
}

// messageMembers reads a message object's members: its content, and the
// members the model has no field for as "message.<key>" fields; an
// assistant's message (an API response) also gives base its id, model and
// usage (kept in the fields too). why is non-empty when the message is not
// an object or has no content.
//
// room, when not nil, is where the extra list is made (and kept for the
// next message's, up to maxRoomEvents members): the reader's, whose
// list is copied before an event keeps it.
func messageMembers(ix *jsonscan.Index, message []byte, base *model.Event, assistant bool, room *model.Fields) (content []byte, msgExtra model.Fields, why string) {
	if len(message) == 0 || message[0] != '{' {
		return nil, nil, "message is not an object"
	}
	if room != nil && *room != nil {
		msgExtra = (*room)[:cap(*room)]
		clear(msgExtra) // nothing of the message before kept alive
		msgExtra = msgExtra[:0]
	} else {
		// An API response has usage, stop_reason and stop_sequence: room
		// for them at once rather than grown one by one.
		msgExtra = make(model.Fields, 0, 4)
	}
	ix.Members(message, func(k, v []byte) error {
		name := jsonscan.KeyBytes(k)
		switch string(name) {
		case "content":
			content = v
			return nil
		case "role":
			return nil
		}
		if assistant {
			switch string(name) {
			case "id":
				base.MessageID, _ = ix.ID(v)
				return nil
			case "model":
				base.Model, _ = ix.ID(v)
				return nil
			case "type":
				return nil
			case "usage":
				base.Usage = ParseUsage(v)
				msgExtra = append(msgExtra, model.Field{Key: "message.usage", Value: ix.Copy(v)})
				return nil
			}
		}
		msgExtra = append(msgExtra, model.Field{Key: messageKey(name), Value: ix.Copy(v)})
		return nil
	})
	if room != nil && cap(msgExtra) <= maxRoomEvents {
		*room = msgExtra
	}
	if content == nil {
		return nil, nil, "message has no content"
	}
	return content, msgExtra, ""
}

// UserEvents turns a user message (`{role, content}`) into events: text,
// tool results, and content blocks passed through. why is non-empty when
// the message has the wrong shape. ix is the index of the record that holds
// message, or nil.
func UserEvents(ix *jsonscan.Index, message []byte, base model.Event, rep *model.Report) (events []model.Event, why string) {
	return userEvents(ix, message, base, rep, nil, nil)
}

// userEvents is UserEvents appending to events, empty (the reader's room,
// or nil), with the message's extra made in extraRoom (messageMembers).
func userEvents(ix *jsonscan.Index, message []byte, base model.Event, rep *model.Report, events []model.Event, extraRoom *model.Fields) ([]model.Event, string) {
	content, msgExtra, why := messageMembers(ix, message, &base, false, extraRoom)
	if why != "" {
		return nil, why
	}
	form := ""
	if s, ok := ix.String(content); ok {
		ev := base
		ev.Kind = model.KindUser
		ev.Text = s
		events = append(events, ev)
	} else if content[0] == '[' {
		form = "blocks"
		var scratchArray [8]model.Field
		scratch := scratchArray[:0] // block's fields, reused from block to block
		ix.Array(content, func(i int, b []byte) error {
			ev := base
			ev.Loc.Path = contentPath(i)
			typ, fields, ok := block(ix, b, scratch[:0])
			scratch = fields
			if !ok {
				if s, isStr := ix.String(b); isStr {
					ev.Kind = model.KindUser
					ev.Text = s
					events = append(events, ev)
					return nil
				}
				rep.Add(model.LossMalformed, "user content block is not an object", ev.Loc)
				return nil
			}
			switch BlockKind(model.KindUser, typ) {
			case model.KindUser:
				ev.Kind = model.KindUser
				ev.Text, _ = fieldString(ix, fields, "text")
			case model.KindToolResult:
				ev.Kind = model.KindToolResult
				res := &model.ToolResult{}
				res.CallID, _ = fieldID(ix, fields, "tool_use_id")
				if v, ok := fields.Get("is_error"); ok {
					res.IsError, _ = jsonscan.Bool(v)
				}
				if v, ok := fields.Get("content"); ok {
					res.Content, res.ContentRaw = resultContent(ix, v)
				}
				ev.Result = res
				for _, f := range fields {
					switch f.Key {
					case "type", "tool_use_id", "is_error", "content":
					default:
						ev.Extra = append(ev.Extra, model.Field{Key: "block." + f.Key, Value: ix.Copy(f.Value)})
					}
				}
			default:
				ev.Kind = model.KindPassthrough
				ev.RawType = "block:" + typ
				ev.Raw = ix.Copy(b)
			}
			events = append(events, ev)
			return nil
		})
	} else {
		return nil, "message.content is neither a string nor a list"
	}
	if len(events) == 0 {
		// An empty content list: keep the entry so the DAG stays whole.
		ev := base
		ev.Kind = model.KindUser
		events = append(events, ev)
		form = "empty"
	}
	events[0].Extra = append(msgExtra, events[0].Extra...)
	events[0].Form.Content = form
	return events, ""
}

// emitSplicing emits ev, first splicing in a sub-agent transcript when ev
// is a Task result naming an agentId.
func (st *state) emitSplicing(ev *model.Event) error {
	if ev.Kind == model.KindToolResult && st.rd.Subagent != nil && st.depth == 0 {
		var agentID string
		background := false
		if v, ok := ev.Extra.Get("toolUseResult"); ok {
			agentID, background = ResultAgent(v)
		}
		if agentID == "" {
			agentID = st.rd.agentOfCall(ev.Result.CallID)
		}
		if agentID != "" && !st.rd.used[agentID] {
			if err := st.splice(agentID, ev.Result.CallID, background); err != nil {
				return err
			}
		}
	}
	if ev.Kind == model.KindUser && st.depth == 0 && strings.HasPrefix(ev.Text, taskNotification) {
		// Claude Code's harness wrote it (promptSource "system"), not the
		// user: a meta message, as compaction summaries are.
		ev.Meta = true
		if err := st.notified(ev); err != nil {
			return err
		}
	}
	return st.emit(ev)
}

// taskNotification starts the user message by which Claude Code reports a
// background task's end to the model (queued, then sent as a prompt).
const taskNotification = "<task-notification>"

// notified ends, before the task notification ev, the background
// sub-agent it reports on: a done (or error) with its result as the
// summary. A notification of a task that is no sub-agent spliced here
// stays a user message only.
func (st *state) notified(ev *model.Event) error {
	tag := func(name string) string {
		_, rest, ok := strings.Cut(ev.Text, "<"+name+">")
		if !ok {
			return ""
		}
		v, _, _ := strings.Cut(rest, "</"+name+">")
		return strings.TrimSpace(v)
	}
	callID := tag("tool-use-id")
	agentID, ok := st.rd.waiting[callID]
	if !ok {
		return nil
	}
	delete(st.rd.waiting, callID)
	status := "done"
	if s := tag("status"); s != "" && s != "completed" {
		status = "error"
	}
	done := model.Event{Kind: model.KindSubagent, Time: ev.Time, Loc: ev.Loc, Sidechain: true,
		Subagent: &model.Subagent{ID: callID, AgentID: agentID, Type: st.rd.Agents[agentID].AgentType, Status: status, Summary: tag("result")}}
	return st.emit(&done)
}

// splice streams the sub-agent transcript agentID, framed by KindSubagent
// start and done events; a sub-agent run in the background (it reports
// back by a task notification) is done at that notification instead.
func (st *state) splice(agentID, callID string, background bool) error {
	f, name, err := st.rd.Subagent(agentID)
	if err != nil {
		return nil // no transcript for it: nothing to splice
	}
	defer f.Close()
	if st.rd.used == nil {
		st.rd.used = map[string]bool{}
	}
	st.rd.used[agentID] = true
	id := callID
	if id == "" {
		id = agentID
	}
	typ := st.rd.Agents[agentID].AgentType
	start := model.Event{Kind: model.KindSubagent, Subagent: &model.Subagent{ID: id, AgentID: agentID, Type: typ, Status: "started"}, AgentID: agentID, Sidechain: true}
	if err := st.emit(&start); err != nil {
		return err
	}
	// Sub-agent entries carry the parent's sessionId; reading them must not
	// change the header, so they read against a scratch header copy. Their
	// locations name their file.
	// The sub-agent's events go to st's sink (headerGuard only forwards
	// them): it borrows them as st's does, in a room of its own.
	sub := &state{h: &model.Header{}, sink: headerGuard{st.sink, st.h}, rep: st.rep, rd: st.rd, depth: st.depth + 1, file: name, costs: st.costs, borrows: st.borrows}
	if err := sub.readStream(f, agentID); err != nil {
		return err
	}
	if background && callID != "" {
		if st.rd.waiting == nil {
			st.rd.waiting = map[string]string{}
		}
		st.rd.waiting[callID] = agentID
		return nil
	}
	done := model.Event{Kind: model.KindSubagent, Subagent: &model.Subagent{ID: id, AgentID: agentID, Type: typ, Status: "done"}, AgentID: agentID, Sidechain: true}
	return st.emit(&done)
}

// headerGuard forwards events with the main header.
type headerGuard struct {
	model.Sink
	h *model.Header
}

func (g headerGuard) Event(_ *model.Header, e *model.Event) error { return g.Sink.Event(g.h, e) }

// BorrowsEvents implements model.Borrower: it keeps nothing; its sink's answer.
func (g headerGuard) BorrowsEvents() bool { return model.BorrowsEvents(g.Sink) }

func (st *state) assistant(e *ent, base model.Event, line []byte, n int) error {
	events, why := assistantEvents(&st.ix, e.message, base, st.rep, st.eventRoom(), &st.msgExtra)
	if why != "" {
		return st.wrongShape(base, "assistant", line, why)
	}
	if st.h.Model == "" && events[0].Model != "" && events[0].Model != "<synthetic>" {
		st.h.Model = events[0].Model
	}
	events[0].Extra = concatFields(e.extra, events[0].Extra)
	events = st.applyRests(e, events, false, base)
	st.keepRoom(events)
	for i := range events {
		st.counted(&events[i])
		if c := events[i].Call; c != nil && (c.Name == "Task" || c.Name == "Agent") && !e.sidechain {
			st.task, st.taskType = c.ID, ""
			if args := c.Args(); args != nil {
				st.taskType, _ = args.String("subagent_type")
			}
		}
		if err := st.emit(&events[i]); err != nil {
			return err
		}
	}
	return nil
}

// readerMarkHint marks an event the reader makes of where records lie
// (a resumed run's @resume): a Claude Code writer leaves it out, as the
// records say it themselves.
const readerMarkHint = "_reader_mark"

// inlineSidechainHint marks the sub-agent events the reader makes around
// inline sidechain entries: a Claude Code writer leaves them out, as
// Claude Code has no record for them.
const inlineSidechainHint = "_inline_sidechain"

// inlineSidechain frames the sidechain entries a transcript holds inline
// (Claude Code 1.x wrote a Task's sub-agent turns in the main transcript,
// isSidechain true, without an agentId) with sub-agent events, as the
// transcripts of its own spliced in: a start before the first, naming the
// Task call that launched it, and a done before the next entry of the
// main conversation. The sub-agent's turns keep their flag.
func (st *state) inlineSidechain(e *ent, base model.Event) error {
	switch {
	case e.sidechain && e.agentID == "" && st.inline == "":
		id := st.task
		if id == "" {
			id = "sidechain"
		}
		st.inline = id
		return st.frame(base, "started", st.taskType)
	case !e.sidechain && st.inline != "":
		return st.closeInline(base)
	}
	return nil
}

// closeInline ends the inline sidechain being read.
func (st *state) closeInline(base model.Event) error {
	if st.inline == "" {
		return nil
	}
	err := st.frame(base, "done", "")
	st.inline, st.task = "", ""
	return err
}

func (st *state) frame(base model.Event, status, typ string) error {
	ev := model.Event{Kind: model.KindSubagent, Time: base.Time, Sidechain: true, Loc: base.Loc,
		Subagent: &model.Subagent{ID: st.inline, Type: typ, Status: status}}
	ev.Extra.Set(inlineSidechainHint, []byte("true"))
	return st.emit(&ev)
}

// applyRests gives the events of an entry this package's writer wrote from
// another format what the entry does not hold of them (model.RestOf, in
// the entry's rests key). own says the first is the entry's own event
// (a system entry's), whatever kind the reader made of it.
func (st *state) applyRests(e *ent, events []model.Event, own bool, base model.Event) []model.Event {
	if e.rests == nil {
		return events
	}
	// The decoded list is valid UTF-8 (restsText): no rest is checked
	// again.
	rests := &st.rests
	st.restsBuf = restsText(&st.ix, e.rests, st.restsBuf[:0])
	if err := rests.Read(st.restsBuf, true); err != nil {
		st.rep.Add(model.LossMalformed, restsKey+" is not a list", base.Loc)
		return events
	}
	if own && len(events) > 0 {
		events[0].Name = "" // the entry's subtype, not the event's
	}
	return rests.Apply(events, own, base, func(err error) {
		st.rep.Add(model.LossMalformed, restsKey+": "+err.Error(), base.Loc)
	})
}

// restsText is the list of rests in v, the value of an entry's rests key
// in the indexed line. The writer writes the list as a JSON string (see
// Writer.entryTail): it is decoded from the line straight into a buffer of
// its own, once (it was copied, checked for UTF-8 again, decoded and
// copied again). Any other value is copied as it is. Either way the text
// is valid UTF-8 (invalid bytes and lone surrogates become U+FFFD, as a
// copy of a value makes them). FuzzRestsText holds it to that older
// reading. A string is decoded into buf, reused from entry to entry.
func restsText(ix *jsonscan.Index, v, buf []byte) []byte {
	invalid := jsonstr.Replace
	if ix.ValidUTF8(v) {
		invalid = jsonstr.Keep // checked once for the whole line
	}
	if out, ok := jsonstr.Unquote(buf[:0], v, invalid); ok {
		return out
	}
	return ix.Copy(v)
}

// sessionRecord reads this package's writer's session record: the header
// fields of a session written from another format that Claude Code's
// entries have no key for.
func (st *state) sessionRecord(e *ent) {
	for _, part := range []string{"source", "end"} {
		v, ok := e.extra.Get(part)
		if !ok {
			continue
		}
		f, err := model.ApplySource(st.h, v)
		if err != nil {
			continue
		}
		if st.seen == nil {
			st.seen = map[string]bool{}
		}
		if _, ok := f.Get("agent_version"); ok {
			st.seen["version"] = true // not the entries' version, which is Claude Code's
		}
		if _, ok := f.Get("started"); ok {
			st.seen["started"] = true // not the first entry's time
		}
		for _, k := range model.MadeUp(f) {
			if k, ok := strings.CutPrefix(k, "extra."); ok {
				st.seen["made:"+k] = true // the entries' is the writer's
			}
		}
	}
}

// AssistantEvents turns an Anthropic assistant message (Claude Code entry
// `message`, Agent SDK `assistant.message`) into events, one per content
// block, all with the message id, model and usage. Message fields the model
// has no place for go to the first event's Extra as "message.<key>". why is
// non-empty when the message has the wrong shape. ix is the index of the
// record that holds message, or nil.
func AssistantEvents(ix *jsonscan.Index, message []byte, base model.Event, rep *model.Report) (events []model.Event, why string) {
	return assistantEvents(ix, message, base, rep, nil, nil)
}

// assistantEvents is AssistantEvents appending to events, empty (the
// reader's room, or nil), with the message's extra made in extraRoom
// (messageMembers).
func assistantEvents(ix *jsonscan.Index, message []byte, base model.Event, rep *model.Report, events []model.Event, extraRoom *model.Fields) ([]model.Event, string) {
	content, msgExtra, why := messageMembers(ix, message, &base, true, extraRoom)
	if why != "" {
		return nil, why
	}
	if len(msgExtra) == 0 {
		msgExtra = nil // as when it was grown from nothing: no extra is nil
	}
	if s, ok := ix.String(content); ok {
		ev := base
		ev.Kind = model.KindAgent
		ev.Text = s
		ev.Form.Content = "string"
		events = append(events, ev)
	} else {
		var scratchArray [8]model.Field
		scratch := scratchArray[:0] // block's fields, reused from block to block
		err := ix.Array(content, func(i int, b []byte) error {
			ev := base
			ev.Loc.Path = contentPath(i)
			typ, fields, ok := block(ix, b, scratch[:0])
			scratch = fields
			if !ok {
				rep.Add(model.LossMalformed, "assistant content block is not an object", ev.Loc)
				return nil
			}
			switch BlockKind(model.KindAgent, typ) {
			case model.KindAgent:
				ev.Kind = model.KindAgent
				ev.Text, _ = fieldString(ix, fields, "text")
			case model.KindThinking:
				ev.Kind = model.KindThinking
				ev.Text, _ = fieldString(ix, fields, "thinking")
				ev.Signature, _ = fieldString(ix, fields, "signature")
			case model.KindToolCall:
				ev.Kind = model.KindToolCall
				c := &model.ToolCall{}
				c.ID, _ = fieldID(ix, fields, "id")
				c.Name, _ = fieldString(ix, fields, "name")
				if v, ok := fields.Get("input"); ok {
					c.Input = ix.Copy(v)
				}
				ev.Call = c
			default:
				ev.Kind = model.KindPassthrough
				ev.RawType = "block:" + typ
				ev.Raw = ix.Copy(b)
			}
			events = append(events, ev)
			return nil
		})
		if err != nil {
			return nil, "message.content is neither a string nor a list"
		}
	}
	if len(events) == 0 {
		ev := base
		ev.Kind = model.KindAgent
		ev.Form.Content = "empty"
		events = append(events, ev)
	}
	events[0].Extra = append(msgExtra, events[0].Extra...)
	return events, ""
}

func (st *state) system(e *ent, base model.Event) error {
	ev := base
	subtype, _ := e.extra.String("subtype")
	e.extra.Delete("subtype")
	switch subtype {
	case "compact_boundary":
		ev.Kind = model.KindCompaction
		c := &model.Compaction{}
		if v, ok := e.extra.Get("compactMetadata"); ok {
			jsonscan.Members(v, func(k, val []byte) error {
				switch string(k) {
				case "trigger":
					c.Trigger, _ = jsonscan.String(val)
				case "preTokens":
					c.PreTokens, _ = jsonscan.Int(val)
				case "postTokens":
					c.PostTokens, _ = jsonscan.Int(val)
				}
				return nil
			})
			e.extra.Delete("compactMetadata")
		}
		ev.Compaction = c
		if u, mdl, more, ok := st.compactionUsage(base.Loc.Line); ok && !u.IsZero() {
			use := model.UsageOf(u)
			ev.Usage, ev.Model = &use, mdl
			if more > 0 {
				st.rep.Lose(model.LossUnfaithful, "compaction.usage", "usage of the model calls of several compactions in one run, which the transcript does not tell apart: all on the run's first compaction", base.Loc)
			}
		}
		ev.Text, _ = e.extra.String("content")
		e.extra.Delete("content")
	default:
		ev.Kind = model.KindSystem
		ev.Name = subtype
		if s, ok := e.extra.String("content"); ok {
			ev.Text = s
			e.extra.Delete("content")
		}
	}
	ev.Extra = e.extra
	events := st.applyRests(e, append(st.eventRoom(), ev), true, base)
	st.keepRoom(events)
	for i := range events {
		if err := st.emit(&events[i]); err != nil {
			return err
		}
	}
	return nil
}

// messageKey is the extra's key of an assistant message's key name that
// the reader has no field for: the two every API response has are the
// package's own strings, not strings made for each entry.
func messageKey(name []byte) string {
	switch string(name) {
	case "stop_reason":
		return "message.stop_reason"
	case "stop_sequence":
		return "message.stop_sequence"
	}
	return "message." + string(name)
}

// block splits a content block into its type and its other fields,
// appended to fields (a buffer the caller reuses from block to block). The
// field values are b's own bytes, not copies: most are decoded right away,
// and a caller that keeps one copies it (Index.Copy). The type and the
// keys Claude Code writes are the package's own strings (blockName), not
// strings made for each block. FuzzBlock holds it to making them.
func block(ix *jsonscan.Index, b []byte, fields model.Fields) (typ string, _ model.Fields, ok bool) {
	err := ix.Members(b, func(k, v []byte) error {
		name := jsonscan.KeyBytes(k)
		if string(name) == "type" {
			if n := len(v); n >= 2 && v[0] == '"' && bytes.IndexByte(v, '\\') < 0 {
				if typ = blockName(v[1 : n-1]); typ != "" {
					return nil
				}
			}
			typ, _ = ix.String(v)
			return nil
		}
		key := blockName(name)
		if key == "" {
			key = string(name)
		}
		fields = append(fields, model.Field{Key: key, Value: v})
		return nil
	})
	return typ, fields, err == nil
}

// blockName is the name b spells, when it is one of the block types and
// keys of Claude Code's content blocks, and "" for any other.
func blockName(b []byte) string {
	switch string(b) {
	case "text":
		return "text"
	case "thinking":
		return "thinking"
	case "signature":
		return "signature"
	case "tool_use":
		return "tool_use"
	case "tool_result":
		return "tool_result"
	case "id":
		return "id"
	case "name":
		return "name"
	case "input":
		return "input"
	case "tool_use_id":
		return "tool_use_id"
	case "is_error":
		return "is_error"
	case "content":
		return "content"
	case "image":
		return "image"
	case "source":
		return "source"
	case "cache_control":
		return "cache_control"
	}
	return ""
}

// fieldString is fields.String for the fields of a block of the record ix
// indexes.
func fieldString(ix *jsonscan.Index, fields model.Fields, key string) (string, bool) {
	v, ok := fields.Get(key)
	if !ok {
		return "", false
	}
	return ix.String(bytes.TrimSpace(v))
}

// fieldID is fieldString for an id (Index.ID).
func fieldID(ix *jsonscan.Index, fields model.Fields, key string) (string, bool) {
	v, ok := fields.Get(key)
	if !ok {
		return "", false
	}
	return ix.ID(bytes.TrimSpace(v))
}

// contentPaths are the report paths of the first content blocks, made once:
// every block of every entry carries one.
var contentPaths = func() (p [16]string) {
	for i := range p {
		p[i] = "$.message.content[" + strconv.Itoa(i) + "]"
	}
	return p
}()

func contentPath(i int) string {
	if i < len(contentPaths) {
		return contentPaths[i]
	}
	return "$.message.content[" + strconv.Itoa(i) + "]"
}

// concatFields is append(a.Clone(), b...) in one allocation.
func concatFields(a, b model.Fields) model.Fields {
	if len(a)+len(b) == 0 {
		return nil
	}
	out := make(model.Fields, 0, len(a)+len(b))
	return append(append(out, a...), b...)
}

// resultContent renders a tool_result content value as text, keeping the
// raw JSON when it was not a plain string.
func resultContent(ix *jsonscan.Index, v []byte) (string, []byte) {
	if s, ok := ix.String(v); ok {
		return s, nil
	}
	if jsonscan.IsNull(v) {
		return "", nil
	}
	// The text is read from the copy that is kept: a value with invalid
	// UTF-8 is re-encoded by the copy (duplicate keys dropped among other
	// things), and the text must be the copy's. A valid value is its own
	// copy, and is read in place with the index.
	raw := ix.Copy(v)
	if len(raw) == 0 || raw[0] != '[' {
		return string(raw), raw
	}
	walk := raw
	if ix.ValidUTF8(v) {
		walk = v
	} else {
		ix = nil
	}
	var parts []string
	var scratchArray [8]model.Field
	scratch := scratchArray[:0] // block's fields, reused from block to block
	ix.Array(walk, func(i int, b []byte) error {
		typ, f, ok := block(ix, b, scratch[:0])
		scratch = f
		if !ok {
			return nil
		}
		if typ == "text" {
			s, _ := fieldString(ix, f, "text")
			parts = append(parts, s)
		} else {
			parts = append(parts, "["+typ+"]")
		}
		return nil
	})
	return strings.Join(parts, "\n"), raw
}

// ParseUsage reads an Anthropic usage object (input, output, cache read and
// cache creation tokens); nil when it is not a well-formed object.
func ParseUsage(v []byte) *model.Usage { return ParseUsageIn(nil, v) }

// ParseUsageIn is ParseUsage for v validated already, a value of the
// record ix indexed last (or of none: ix nil), whose nested values are
// jumped over rather than scanned again.
func ParseUsageIn(ix *jsonscan.Index, v []byte) *model.Usage {
	u := &model.Usage{}
	err := ix.Members(v, func(k, val []byte) error {
		// Only the counters are numbers: Int on the other members (nested
		// objects, service_tier) would fall back to encoding/json for nothing.
		switch string(k) {
		case "input_tokens":
			u.Input, _ = jsonscan.Int(val)
		case "output_tokens":
			u.Output, _ = jsonscan.Int(val)
		case "cache_read_input_tokens":
			u.CacheRead, _ = jsonscan.Int(val)
		case "cache_creation_input_tokens":
			u.CacheCreate, _ = jsonscan.Int(val)
		}
		return nil
	})
	if err != nil {
		return nil
	}
	return u
}

func parseTodos(v []byte) []model.Todo {
	var out []model.Todo
	jsonscan.Array(v, func(i int, b []byte) error {
		var t model.Todo
		if jsonscan.Members(b, func(k, val []byte) error {
			s, _ := jsonscan.String(val)
			switch string(k) {
			case "id":
				t.ID = s
			case "content":
				t.Content = s
			case "status":
				t.Status = s
			case "priority":
				t.Priority = s
			}
			return nil
		}) == nil {
			out = append(out, t)
		}
		return nil
	})
	return out
}

// Session naming reads this much of a transcript's head, at most: lines
// and bytes.
const headLines, headBytes = 256, 8 << 20

// forkedFromKey is the header field that names the session a session was
// forked from (claude --resume ID --fork-session).
const forkedFromKey = "forkedFrom"

// sessionHead holds the first lines of the main transcript (up to
// headLines and headBytes) until they name the session it holds (see
// transcriptSession): release sets the header's id to it and hands the
// lines on in order, and the lines after go straight on. The header's id
// is never taken from an entry after that: an entry of another session
// keeps its own sessionId.
type sessionHead struct {
	st      *state
	entry   func(line []byte, n int) error
	tooLong func(n int, err error)
	held    []heldLine
	ids     []string
	// requested are the sessions the first assistant entries' requests
	// were made in (requestSessionId): another session's, in a session
	// forked from it (--fork-session copies its entries).
	requested string
	size      int
	done      bool
	err       error // an entry's, met releasing the head
	// ix validates and indexes each line as it is held, and what it
	// found is kept with the line: released, the line is not validated
	// again.
	ix jsonscan.Index
}

// heldLine is a line of the head: a copy of its bytes and its index
// (empty when it is not valid), or the error of a line too long.
type heldLine struct {
	line []byte
	kept jsonscan.Kept
	n    int
	err  error
}

func (hd *sessionHead) full() bool {
	return !hd.done && (len(hd.held) >= headLines || hd.size >= headBytes)
}

func (hd *sessionHead) line(line []byte, n int) error {
	if hd.full() {
		if err := hd.release(); err != nil {
			return err
		}
	}
	if hd.done {
		return hd.entry(line, n)
	}
	line = bytes.Clone(line)
	hd.size += len(line)
	err := hd.ix.Object(line, func(k, v []byte) error {
		switch string(k) {
		case "sessionId":
			if id, ok := jsonscan.String(v); ok && id != "" {
				hd.ids = append(hd.ids, id)
			}
		case "requestSessionId":
			if id, ok := jsonscan.String(v); ok && id != "" && hd.requested == "" {
				hd.requested = id
			}
		}
		return nil
	})
	held := heldLine{line: line, n: n}
	if err == nil {
		held.kept = hd.ix.Keep()
	}
	hd.held = append(hd.held, held)
	return nil
}

func (hd *sessionHead) tooLongLine(n int, err error) {
	if hd.full() && hd.release() != nil {
		return // the entry's error comes back from the next line, or the end
	}
	if hd.done {
		hd.tooLong(n, err)
		return
	}
	hd.held = append(hd.held, heldLine{n: n, err: err})
}

// release names the session from the lines held and hands them on, once;
// it returns the first error of an entry.
func (hd *sessionHead) release() error {
	if hd.done {
		return hd.err
	}
	hd.done = true
	st := hd.st
	if id := transcriptSession(st.fileName, hd.ids); id != "" {
		st.h.ID = id
		if st.seen == nil {
			st.seen = map[string]bool{}
		}
		st.seen["sessionId"] = true
		if hd.requested != "" && hd.requested != id {
			// Its first entries are copies of the session it forks.
			st.h.Extra.SetString(forkedFromKey, hd.requested)
		}
	}
	held := hd.held
	hd.held, hd.ids = nil, nil
	for _, l := range held {
		if l.err != nil {
			hd.tooLong(l.n, l.err)
			continue
		}
		st.ix.Restore(l.kept)
		if err := hd.entry(l.line, l.n); err != nil {
			hd.err = err
			return err
		}
	}
	return nil
}

// transcriptSession is the session a transcript holds, given its file name
// and the sessionIds of its first entries in order: the name's stem when
// it is one of them (Claude Code names a transcript after its session),
// else the most frequent, the last to appear on a tie. A continued session
// starts with entries of the session it continues (its summary, a
// compacted predecessor's messages), so the first entry's id is not the
// file's. "" when no entry has one.
func transcriptSession(fileName string, ids []string) string {
	stem := strings.TrimSuffix(fileName, ".jsonl")
	count := map[string]int{}
	best := ""
	for _, id := range ids {
		if id == stem {
			return stem
		}
		count[id]++
		if count[id] >= count[best] {
			best = id
		}
	}
	return best
}

// fileSessionID returns the first sessionId found in the first lines of the
// transcript at path.
func fileSessionID(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const lines = 20
	var id string
	seen := 0
	jsonl.Each(f, func(line []byte, _ int) error {
		seen++
		jsonscan.Object(line, func(k, v []byte) error {
			if string(k) == "sessionId" {
				id, _ = jsonscan.String(v)
			}
			return nil
		})
		if id != "" || seen >= lines {
			return errFound
		}
		return nil
	}, func(int, error) { seen++ })
	return id
}

// errFound ends a read that found what it looked for.
var errFound = errors.New("found")
