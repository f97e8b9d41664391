package claude

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rlog-ls/rlog-ls/convert/internal/ccusage"
	"github.com/rlog-ls/rlog-ls/convert/internal/jsonw"
	"github.com/rlog-ls/rlog-ls/convert/internal/recent"
	"github.com/rlog-ls/rlog-ls/convert/internal/strblock"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
	"github.com/rlog-ls/rlog-ls/usage"
)

// Writer writes a Claude Code transcript as events arrive. Events that came
// from one entry (same ID) are written back as one entry; events without an
// ID get a synthesized uuid and a linear parentUuid chain, and a run of
// assistant events without a message id shares one synthesized message id,
// so usage is still counted once per response.
type Writer struct {
	w   *bufio.Writer
	rep *model.Report
	opt model.Options

	h       *model.Header
	pending []*model.Event
	role    string // role of the pending entry: user | assistant

	last      map[string]string // agent id -> uuid of the last entry written, but the main agent's:
	lastMain  string            // the uuid of the main agent's last entry (of most entries: no map's hash)
	seq       int               // synthesized uuid counter
	runMsgID  string            // synthesized message id of the current assistant run
	runUsage  *model.Usage      // usage of the current run, to tell when a new response starts
	runSrcID  string            // the made-up message id the run's events had, if any
	srcID     string            // the last made-up message id of the source,
	srcMsgID  string            // and the one written for it
	lastTime  string            // the last timestamp written, for events without one
	timeIn    string            // the last timestamp claudeTime was given,
	timeOut   string            // and what it made of it (most events share their second's)
	minuteIn  string            // the date, hour and minute of the last timestamp timeForm took
	strs      strblock.Room     // the made-up ids' and timestamps' bytes, many to an allocation (NewWriter)
	sessionID string            // synthesized session id, when the source has none
	seed      string            // what synthesized ids are made from (see synthID)
	idBuf     []byte            // synthID's input, reused (a long seed's)
	ids       blockSum          // synthID's hash
	line      jsonw.Buf         // the entry being built (flush), compact
	err       error
	// sourced is set once the session record is written (a session from
	// another format); sourceExtra are the header extras it holds.
	sourced     bool
	sourceExtra map[string]bool
	// held is a compaction of another format, written when the next event
	// shows whether the summary Claude Code resumes from follows it
	// (boundary, while it is written).
	held     *model.Event
	boundary bool
	carried  model.Carried // a rest's carried fields (entryTail), reused
	rest     model.Carried // and with its unset names (writeRest)
	head     head          // the session's members of an entry, encoded (sessionMembers)
	// From another format: the latest tool_use ids written (the API takes
	// one call an id), and by the source's id the ids written for its
	// latest calls still waiting for their results (a ring in front of the
	// map: a result nearly always follows its call); renamed holds, for the
	// entry being written, the ids that are not the source's.
	callIDs *recent.Set
	open    *recent.RingMap[waiting]
	renamed map[*model.Event]string
	// The losses reported at most entries (repeatedLoss).
	lostUUID, lostParent, lostParentLink, lostMessageID, lostTime repeated
}

// repeated is a loss the writer reports again and again (a made-up uuid
// at every entry of a session without ids), once it holds its first
// MaxLocations locations: the report's entry, whose count alone changes
// from then on.
type repeated struct{ l *model.Loss }

// repeatedLoss reports a loss of kind and detail at loc, as Report.Add
// does; once the report's entry holds all the locations it keeps, p
// adds to its count without Add's search for the entry (Report.add was
// called at every entry). The report's text and counts are Add's: a
// location past MaxLocations is not kept, and nothing else changes.
func (wr *Writer) repeatedLoss(p *repeated, kind model.LossKind, detail string, loc model.Loc) {
	if l := p.l; l != nil && len(l.Locations) >= model.MaxLocations {
		l.Count++
		return
	}
	wr.rep.Add(kind, detail, loc)
	if p.l == nil && wr.rep != nil {
		if l := wr.rep.Find(kind, detail); l != nil && l.Subject == "" {
			p.l = l
		}
	}
}

// NewWriter returns a streaming writer (a model.Sink) over w.
func NewWriter(w io.Writer, rep *model.Report, opt model.Options) *Writer {
	constantsMade.Do(makeConstants)
	return &Writer{w: bufio.NewWriterSize(w, 1<<16), rep: rep, opt: opt, last: map[string]string{},
		callIDs: recent.NewSet(openCalls), open: recent.NewRingMap[waiting](openCalls), renamed: map[*model.Event]string{},
		strs: strblock.New(2048, 2048)}
}

// Write writes a whole session.
func Write(w io.Writer, s *model.Session, rep *model.Report, opt model.Options) error {
	return model.Replay(s, NewWriter(w, rep, opt))
}

func roleOf(k model.Kind) string {
	switch k {
	case model.KindUser, model.KindToolResult, model.KindTodos:
		return "user"
	case model.KindAgent, model.KindThinking, model.KindToolCall:
		return "assistant"
	}
	return ""
}

// Event implements model.Sink.
func (wr *Writer) Event(h *model.Header, e *model.Event) error {
	if wr.err != nil {
		return wr.err
	}
	wr.h = h
	wr.setSeed(h, e)
	if !wr.sourced && !wr.sameSource() {
		wr.sourceRecord()
	}
	if wr.held != nil {
		wr.writeHeld(compactSummary(e))
	}
	if wr.h.SourceFormat == rlogFormat {
		wr.reportCut(e)
	}
	role := roleOf(e.Kind)
	if e.Kind == model.KindCompaction && !wr.sameSource() {
		wr.flush()
		wr.runMsgID, wr.runUsage, wr.runSrcID = "", nil, ""
		wr.held = e
		return wr.err
	}
	if e.Kind == model.KindPassthrough && strings.HasPrefix(e.RawType, "block:") {
		if len(wr.pending) > 0 && e.ID != "" && wr.pending[0].ID == e.ID {
			wr.pending = append(wr.pending, e)
			return nil
		}
		wr.rep.Add(model.LossDroppedEvent, "content block "+strings.TrimPrefix(e.RawType, "block:")+" outside an entry", e.Loc)
		return nil
	}
	if role != "" && wr.joins(e, role) {
		wr.pending = append(wr.pending, e)
		return nil
	}
	wr.flush()
	if role == "" {
		wr.runMsgID, wr.runUsage, wr.runSrcID = "", nil, ""
		wr.other(e)
		return wr.err
	}
	if role == "user" {
		wr.runMsgID, wr.runUsage, wr.runSrcID = "", nil, ""
	} else if ownMessageID(e) == "" && !wr.sameSource() {
		// One response without a message id: Claude Code and ccusage count
		// usage once per message id, so the response's entries share one.
		// A run of assistant events is one response until the usage shows
		// another request, as the usage rule reads usage without ids
		// (different input or cache counts; a growing output count is the
		// same response streaming).
		// A message id a reader made up (rlog's lines of one response,
		// which a result's line may come between) tells responses apart
		// too, and keeps its own.
		switch {
		case e.MessageID != "" && e.MessageID == wr.srcID:
			wr.runMsgID = wr.srcMsgID
		case wr.runMsgID == "" || e.MessageID != wr.runSrcID || e.Usage != nil && wr.runUsage != nil && !usage.SameRequest(wr.runUsage.Counts(), e.Usage.Counts()):
			wr.seq++
			h := wr.synthHex(msgID)
			var id [28]byte
			copy(id[:], "msg_")
			copy(id[4:], h[:])
			wr.runMsgID = wr.strs.Of(id[:])
			wr.repeatedLoss(&wr.lostMessageID, model.LossSynthesized, "message.id (the source has no message ids)", e.Loc)
		}
		wr.runSrcID = e.MessageID
		if e.MessageID != "" {
			wr.srcID, wr.srcMsgID = e.MessageID, wr.runMsgID
		}
		if e.Usage != nil {
			wr.runUsage = e.Usage
		}
	}
	wr.pending = append(wr.pending[:0], e)
	wr.role = role
	return wr.err
}

// ownMessageID is e's message id when the source gave it one, not one a
// reader made up to tie a response's events together.
func ownMessageID(e *model.Event) string {
	if model.SyntheticMessageID(e.MessageID) {
		return ""
	}
	return e.MessageID
}

// rlogFormat is the rlog format's name (rlogfmt.Name, which this package
// does not import).
const rlogFormat = "rlog"

// reportCut reports a text or tool output of an rlog source that ends
// with "...", the mark of rlog's writers where they cut (docs/format.md,
// Truncation): Claude Code resumes it as the log has it. (rlog-ls convert
// completes a log from its companion first, when one lies beside it.)
func (wr *Writer) reportCut(e *model.Event) {
	text := e.Text
	what := "text"
	if e.Result != nil {
		text, what = e.Result.Content, "tool output"
	}
	switch e.Kind {
	case model.KindUser, model.KindAgent, model.KindThinking, model.KindToolResult:
		if strings.HasSuffix(text, "...") {
			wr.rep.Add(model.LossTruncated, what+" as the rlog log has it, cut (it ends with ...): Claude Code resumes it so; converted beside its companion, the log gives it whole", e.Loc)
		}
	}
}

// writeHeld writes the held compaction: as Claude Code's compact_boundary
// when the summary it writes after one follows (summary), else as an
// informational system entry, reported. Claude Code resumes a session
// from its last compact_boundary on, with the summary after it as the
// conversation before; without one, the conversation before the
// compaction is all there is to resume.
func (wr *Writer) writeHeld(summary bool) {
	e := wr.held
	wr.held = nil
	wr.boundary = summary
	if !summary {
		wr.rep.Add(model.LossUnfaithful, "compaction written as an informational system entry: no summary follows it, and Claude Code resumes only what comes after a compact_boundary", e.Loc)
	}
	wr.other(e)
	wr.boundary = false
}

// compactSummaryText is how the summary Claude Code writes after a
// compaction begins.
const compactSummaryText = "This session is being continued from a previous conversation"

// compactSummary reports whether e is the summary Claude Code writes after
// a compact_boundary (isCompactSummary, or its text when a format kept
// only that).
func compactSummary(e *model.Event) bool {
	if e.Kind != model.KindUser {
		return false
	}
	if v, ok := e.Extra.Get("isCompactSummary"); ok {
		return string(v) == "true"
	}
	return strings.HasPrefix(e.Text, compactSummaryText)
}

// sameSource reports whether the session was read from Claude Code JSONL,
// whose own values are written back as they were.
func (wr *Writer) sameSource() bool {
	if wr.h == nil {
		return false
	}
	first, _ := wr.h.First()
	return first == Name
}

// claudeModel reports whether e's model (or the session's) is one of
// Anthropic's Claude models, whose thinking signatures are Anthropic's.
func (wr *Writer) claudeModel(e *model.Event) bool {
	m := e.Model
	if m == "" && wr.h != nil {
		m = wr.h.Model
	}
	return hasClaudePrefix(m)
}

// hasClaudePrefix is strings.HasPrefix(strings.ToLower(m), "claude")
// without lowering m (an allocation and a pass over it, at every thinking
// block): only the ASCII letters of "claude", of either case, lower to
// them, and a byte with 0x20 set is its letter's lower case exactly when
// it is one of those two (FuzzClaudePrefix holds it to the lowering).
func hasClaudePrefix(m string) bool {
	const p = "claude"
	if len(m) < len(p) {
		return false
	}
	for i := range len(p) {
		if m[i]|0x20 != p[i] {
			return false
		}
	}
	return true
}

// joins reports whether e belongs to the pending entry.
func (wr *Writer) joins(e *model.Event, role string) bool {
	if len(wr.pending) == 0 || wr.role != role {
		return false
	}
	first := wr.pending[0]
	if e.ID != "" || first.ID != "" {
		return e.ID == first.ID
	}
	// No ids: a todo list belongs to the user entry before it; everything
	// else is an entry of its own, as Claude Code writes one block per entry.
	return e.Kind == model.KindTodos
}

// End implements model.Sink.
func (wr *Writer) End(h *model.Header) error {
	wr.h = h
	if wr.seed == "" {
		wr.setSeed(h, &model.Event{})
	}
	if !wr.sourced && !wr.sameSource() {
		wr.sourceRecord()
	}
	if wr.held != nil {
		wr.writeHeld(false)
	}
	wr.flush()
	if !wr.sameSource() {
		wr.endRecord()
	}
	if wr.err != nil {
		return wr.err
	}
	return wr.w.Flush()
}

// The session record (a record type of this package's own, as
// Claude Code has summary and custom-title records) holds what a session
// written from another format says that Claude Code's entries have no key
// for: the format it came from, the agent, model and other header fields,
// and at the end the totals, cost and outcome. Each entry of such a
// session holds the rests of its events (model.RestOf) under restsKey.
// Claude Code and ccusage pass over both.
const (
	// SessionRecord is the type of the session record.
	SessionRecord = "session-source"
	restsKey      = "rests"
)

// sourceRecord writes the session record's start: what the header says
// when the first entry is written.
func (wr *Writer) sourceRecord() {
	wr.sourced = true
	h := wr.h
	b := &wr.line.Buffer
	b.Reset()
	o := jsonw.Begin(b)
	o.Str("type", SessionRecord)
	// Entries hold the branch, directory, slug and user type; Claude
	// Code's own agent and version need no saying.
	omit := []string{"branch", "cwd", "extra.slug", "extra.userType"}
	if h.AgentName == ccAgent {
		omit = append(omit, "agent")
	}
	if wr.version() == h.AgentVersion {
		omit = append(omit, "agent_version")
	}
	var madeUp []string
	if _, ok := h.Extra.String("userType"); !ok {
		// Every entry gets one: the reader leaves it out of the header.
		madeUp = []string{"extra.userType"}
	}
	wr.sourceExtra = map[string]bool{}
	o.Raw("source", model.SourceOf(h, wr.sourceExtra, madeUp, omit...))
	for _, f := range h.Extra {
		wr.sourceExtra[f.Key] = true // not late, when the end comes
	}
	o.End()
	wr.writeLine(b.Bytes())
}

// endRecord writes the session record's end: what the header says only
// now, and which values the entries hold that the session has not.
func (wr *Writer) endRecord() {
	h := wr.h
	b := &wr.line.Buffer
	b.Reset()
	o := jsonw.Begin(b)
	o.Str("type", SessionRecord)
	var madeUp []string
	if wr.sessionID != "" && h.ID == "" {
		madeUp = append(madeUp, "id")
	}
	end := model.SourceEndOf(h, wr.sourceExtra, madeUp)
	if wr.sessionID != "" && h.ID != "" {
		// The entries' sessionId is made from the source's id, which is
		// not a UUID: the end gives the source's back.
		end = model.WithMember(end, "id", model.MustJSON(h.ID))
	}
	o.Raw("end", end)
	o.End()
	wr.writeLine(b.Bytes())
}

// writeRest writes the rest of e in an entry (model.WriteRestCarried) into b:
// every field but those the entry holds (carried), its time when the
// entry's timestamp is its own, its id and parent when the entry's are
// others, and which of the entry's the writer made up for it (unset's
// bits, restUnsets', with the id's and parent's added here). carried
// holds fields only: the list of names made up is restUnsets' list of
// the bits, shared, where it was appended name by name rest after rest.
func (wr *Writer) writeRest(b *jsonw.Buf, e *model.Event, l link, written string, carried *model.Carried, unset int) {
	carried.Add(&carries.agentIDMeta)
	if e.Sidechain || e.AgentID == "" {
		carried.Add(&carries.sidechain)
	}
	if e.Time == written {
		// (Another spelling of the same instant, `…:03Z` written
		// `…:03.000Z`, stays in the rest: an rlog source's ts= comes back
		// as it was.)
		carried.Add(&carries.time)
	}
	// The id and parent the entry holds are the event's, or made up for
	// one without (the reader takes them out); otherwise the rest keeps
	// the event's.
	switch e.ID {
	case l.uuid:
		carried.Add(&carries.id)
	case "":
		unset |= unsetID
	}
	switch e.ParentID {
	case l.parent:
		carried.Add(&carries.parent)
	case "":
		unset |= unsetParent
	}
	wr.rest = restUnsets[unset]
	wr.rest.Add(carried)
	model.WriteRestCarried(b, e, nil, &wr.rest)
}

// restUnsets are the lists of names of an entry's fields the writer made
// up for a rest's event (model.CarriedUnsets), by their bits: in the
// order the rests have always listed them (made with the names,
// makeConstants).
var restUnsets []model.Carried

// The bits of restUnsets' names.
const (
	unsetMessageID = 1 << iota
	unsetUsage
	unsetID
	unsetParent
)

// isRenamed reports whether the entry being written renamed e's call id.
func (wr *Writer) isRenamed(e *model.Event) bool {
	if len(wr.renamed) == 0 { // (most entries rename none)
		return false
	}
	_, ok := wr.renamed[e]
	return ok
}

// carries are the lists of fields an entry holds of its events (the
// carried names of model.RestOf), each made into a model.Carried once: a
// rest's is the sum of those that apply to its event (writeRest and the
// entries' calls of entryTail), added instead of matched name by name at
// every rest.
var carries = struct {
	agentIDMeta, sidechain, time, id, parent,
	user, resultCallID, resultRaw, resultContent,
	assistant, callID, messageID, model model.Carried
}{
	agentIDMeta: model.CarriedOf("agent_id", "meta"),
	sidechain:   model.CarriedOf("sidechain"),
	time:        model.CarriedOf("time"),
	id:          model.CarriedOf("id"),
	parent:      model.CarriedOf("parent"),

	user:          model.CarriedOf("kind", "text", "todos", "signature", "result.is_error", "result.status"),
	resultCallID:  model.CarriedOf("result.call_id"),
	resultRaw:     model.CarriedOf("result.raw"),
	resultContent: model.CarriedOf("result.content"),

	assistant: model.CarriedOf("kind", "text", "signature", "call.name", "call.input"),
	callID:    model.CarriedOf("call.id"),
	messageID: model.CarriedOf("message_id"),
	model:     model.CarriedOf("model"),
}

// names are the keys of an entry's members, and the values that are
// constants ("type":"assistant"), each escaped once (jsonw.Name) and
// stored as it is at every entry instead of escaped again.
type entryNames struct {
	parentUUID, isSidechain, agentID, isMeta, uuid, timestamp, rests,
	content, model, id, usage,
	signature, name, input, toolUseID, isError,
	subtype, compactMetadata, preTokens,
	informational, compactBoundary, init, status, lifecycle, subagent, record,
	todos, priority jsonw.Name
}

var names entryNames

// usageCounts is a message's usage, its four counts in Claude Code's
// order, written as one piece (made with the names, makeConstants).
var usageCounts jsonw.Ints

// runs are the runs of an entry's members that are constants, each
// with the key after it whose value the entry has (jsonw.Run): stored at
// once where the members and key one by one took a call each.
type entryRuns struct {
	userType, assistantType, systemType, userMessage, assistantMessage,
	stop, stopUsage, text, thinking, toolUse, toolResult jsonw.Run
}

var runs entryRuns

// constantsMade makes names and runs when the first writer is
// (makeConstants), not at load: a process that writes no Claude Code
// transcript makes none. Every writer reads them after its
// constantsMade.Do, at the fixed place makeConstants wrote them.
var constantsMade sync.Once

func makeConstants() {
	names = entryNames{
		jsonw.NewName("parentUuid"), jsonw.NewName("isSidechain"), jsonw.NewName("agentId"), jsonw.NewName("isMeta"),
		jsonw.NewName("uuid"), jsonw.NewName("timestamp"), jsonw.NewName(restsKey),
		jsonw.NewName("content"), jsonw.NewName("model"), jsonw.NewName("id"), jsonw.NewName("usage"),
		jsonw.NewName("signature"), jsonw.NewName("name"), jsonw.NewName("input"),
		jsonw.NewName("tool_use_id"), jsonw.NewName("is_error"),
		jsonw.NewName("subtype"), jsonw.NewName("compactMetadata"), jsonw.NewName("preTokens"),
		jsonw.NewName("informational"), jsonw.NewName("compact_boundary"), jsonw.NewName("init"), jsonw.NewName("status"),
		jsonw.NewName("lifecycle"), jsonw.NewName("subagent"), jsonw.NewName("record"),
		jsonw.NewName("todos"), jsonw.NewName("priority"),
	}
	restUnsets = model.CarriedUnsets("-message_id", "-usage", "-id", "-parent")
	usageCounts = jsonw.NewInts("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens")
	runs = entryRuns{
		userType:         jsonw.NewRun(`{"type":"user"}`, "message"),
		assistantType:    jsonw.NewRun(`{"type":"assistant"}`, "message"),
		systemType:       jsonw.NewRun(`{"type":"system"}`),
		userMessage:      jsonw.NewRun(`{"role":"user"}`, "content"),
		assistantMessage: jsonw.NewRun(`{"type":"message","role":"assistant"}`, "content"),
		stop:             jsonw.NewRun(`{"stop_reason":null,"stop_sequence":null}`),
		stopUsage:        jsonw.NewRun(`{"stop_reason":null,"stop_sequence":null}`, "usage"),
		text:             jsonw.NewRun(`{"type":"text"}`, "text"),
		thinking:         jsonw.NewRun(`{"type":"thinking"}`, "thinking"),
		toolUse:          jsonw.NewRun(`{"type":"tool_use"}`, "id"),
		toolResult:       jsonw.NewRun(`{"type":"tool_result"}`, "content"),
	}
}

// synthID makes a deterministic id, different for each kind and counter
// value, and for each session: a session without an id is told apart by
// its first event, so that two converted sessions never share made-up
// message ids (consumers count a message id once).
func (wr *Writer) synthID(kind idKind) string {
	h := wr.synthHex(kind)
	return string(h[:])
}

// synthHex is synthID's id in an array: the hex of the first 12 bytes of
// the SHA-256 of seed/kind/seq (blockSum's, or sha256.Sum256's for a seed
// too long for one block).
func (wr *Writer) synthHex(kind idKind) [24]byte {
	var sum [12]byte
	ok := false
	if wr.seq >= 0 {
		sum, ok = wr.ids.sum12(wr.seed, kind, uint64(wr.seq))
	}
	if !ok {
		// seed/kind/seq, without fmt.
		b := append(wr.idBuf[:0], wr.seed...)
		b = append(append(append(b, '/'), idKindNames[kind]...), '/')
		b = strconv.AppendInt(b, int64(wr.seq), 10)
		wr.idBuf = b
		full := sha256.Sum256(b)
		sum = [12]byte(full[:12])
	}
	return hex24(sum)
}

// setSeed fixes what synthID tells sessions apart by, at the first event.
func (wr *Writer) setSeed(h *model.Header, e *model.Event) {
	if wr.seed != "" {
		return
	}
	if h.ID != "" {
		wr.seed = h.ID
		return
	}
	sum := sha256.New()
	fmt.Fprintf(sum, "%s\x00%s\x00%s\x00%d\x00%s\x00%s\x00%s", h.Started, h.Model, h.Prompt, e.Kind, e.Time, e.ID, e.Text)
	if e.Call != nil {
		fmt.Fprintf(sum, "\x00%s\x00%s", e.Call.ID, e.Call.Input)
	}
	wr.seed = hex.EncodeToString(sum.Sum(nil)[:16])
}

func (wr *Writer) synthUUID() string {
	wr.seq++
	// s[0:8]-s[8:12]-4s[13:16]-8s[17:20]-s[20:24]00000000, built in place.
	s := wr.synthHex(uuidID)
	var u [36]byte
	copy(u[0:], s[0:8])
	u[8] = '-'
	copy(u[9:], s[8:12])
	u[13], u[14] = '-', '4'
	copy(u[15:], s[13:16])
	u[18], u[19] = '-', '8'
	copy(u[20:], s[17:20])
	u[23] = '-'
	copy(u[24:], s[20:24])
	copy(u[28:], "00000000")
	return wr.strs.Of(u[:])
}

func (wr *Writer) writeLine(b []byte) {
	if wr.err != nil {
		return
	}
	if _, err := wr.w.Write(b); err != nil {
		wr.err = err
		return
	}
	wr.err = wr.w.WriteByte('\n')
}

// An entry's place in the conversation: its uuid and parentUuid.
type link struct{ uuid, parent string }

// entryHead writes the common leading fields of an entry, the last its
// type (typ, with the message's key after it in a user's or the
// assistant's entry), and returns its uuid and parentUuid.
//
// Claude Code rebuilds a conversation by walking parentUuid from the last
// entry, so a session from another format is one chain per agent: each
// entry's parent is the entry written before it on its chain, whatever
// parent the source names (its DAG, when it has one, is another format's
// ids: the entry's rest keeps them). An entry id that is not a UUID (a
// step's number) is replaced by one made up, as is a missing one. A
// Claude Code source's own uuids and links are written as they were.
func (wr *Writer) entryHead(o *jsonw.Obj, e *model.Event, typ *jsonw.Run) link {
	l := link{e.ID, e.ParentID}
	switch {
	case l.uuid == "":
		l.uuid = wr.synthUUID()
		l.parent = wr.lastOf(e.AgentID)
		wr.repeatedLoss(&wr.lostUUID, model.LossSynthesized, "uuid and parentUuid", e.Loc)
	case !wr.sameSource():
		if !isUUID(l.uuid) {
			l.uuid = wr.synthUUID()
			wr.rep.Add(model.LossSynthesized, "uuid for an entry id that is not a UUID (the entry's rest keeps the source's)", e.Loc)
		}
		switch l.parent = wr.lastOf(e.AgentID); {
		case l.parent == e.ParentID:
		case e.ParentID == "":
			wr.repeatedLoss(&wr.lostParent, model.LossSynthesized, "parentUuid (the source links no entries; Claude Code resumes one chain)", e.Loc)
		default:
			wr.repeatedLoss(&wr.lostParentLink, model.LossSynthesized, "parentUuid: the entry written before (Claude Code resumes one chain; the entry's rest keeps the source's parent)", e.Loc)
		}
	}
	if e.AgentID == "" {
		wr.lastMain = l.uuid
	} else {
		wr.last[e.AgentID] = l.uuid
	}
	if l.parent == "" {
		o.RawName(&names.parentUUID, nil)
	} else {
		o.StrName(&names.parentUUID, l.parent)
	}
	h := wr.h
	wr.sessionMembers(o, e, e.Sidechain || e.AgentID != "")
	if e.AgentID != "" {
		o.StrName(&names.agentID, e.AgentID)
	}
	// (Lists looked in only when they hold fields: most hold none.)
	var slug string
	ok := false
	if len(e.Extra) > 0 {
		slug, ok = e.Extra.String("slug")
	}
	if !ok && len(h.Extra) > 0 {
		slug, ok = h.Extra.String("slug")
	}
	if ok {
		o.Str("slug", slug)
	}
	if e.Meta {
		// A compaction's summary and a task notification say what they
		// are their own way; Claude Code marks neither isMeta.
		if _, explicit := e.Extra.Get("isCompactSummary"); !explicit && !isTaskNotification(e) {
			o.BoolName(&names.isMeta, true)
		}
	}
	o.Run(typ)
	return l
}

// lastOf is the uuid of the last entry written on agent's chain.
func (wr *Writer) lastOf(agent string) string {
	if agent == "" {
		return wr.lastMain
	}
	return wr.last[agent]
}

// sessionMembers writes an entry's isSidechain (side), and its userType,
// cwd, sessionId, version and gitBranch. An entry's own value wins; otherwise the session's. A value
// the session does not have is left out: consumers skip entries with an
// empty sessionId or model, and an empty string says nothing true.
//
// An entry of a session from another format has none of its own, and the
// session's are the same from entry to entry: the five members are
// encoded once and written again as they are (head) while they stay the
// same, instead of escaping their keys and values at every entry (with
// isSidechain before them, whose two values each have a copy). Nor
// are the values made again while the header's fields they are made of
// are the same (headKey): the header may gain fields while events come,
// and is read again, but not decoded, at every entry.
func (wr *Writer) sessionMembers(o *jsonw.Obj, e *model.Event, side bool) {
	for _, f := range e.Extra {
		switch f.Key {
		case "userType", "cwd", "sessionId", "version", "gitBranch":
			o.BoolName(&names.isSidechain, side)
			wr.ownSessionMembers(o, e, wr.headValues(e))
			return
		}
	}
	if wr.head.obj[0] == nil || !wr.head.key.same(wr.h, wr.sessionID) {
		if v := wr.headValues(e); v != wr.head.values || wr.head.obj[0] == nil {
			wr.head = head{values: v}
			for i, side := range [2]bool{false, true} {
				var b jsonw.Buffer
				c := jsonw.Begin(&b)
				c.BoolName(&names.isSidechain, side)
				wr.ownSessionMembers(c, e, v)
				c.End()
				wr.head.obj[i], wr.head.n = b.Bytes(), c.Len()
			}
		}
		// (After headValues, which may make the session id up.)
		wr.head.key = headKeyOf(wr.h, wr.sessionID)
	}
	i := 0
	if side {
		i = 1
	}
	o.Members(wr.head.obj[i], wr.head.n)
}

// headValues are the session's values of sessionMembers' members for e.
func (wr *Writer) headValues(e *model.Event) headValues {
	h := wr.h
	userType, ok := h.Extra.String("userType")
	if !ok {
		userType = "external"
	}
	return headValues{userType: userType, cwd: h.Cwd, sessionID: wr.session(e), version: wr.version(), branch: h.Branch,
		hasBranch: h.Branch != "" || wr.sameSource()}
}

// headKey is what headValues are made of for an event without members of
// its own: the header's fields they read (the raw values of its extras),
// and the session id made up, if one was. Equal keys make equal values,
// and make them without a side effect (session reports the id it makes
// up once, at the first entry, when the key has none yet).
type headKey struct {
	id, cwd, branch, agent, agentVersion, origin, source, made string
	userType, ccVersion                                        string
}

func headKeyOf(h *model.Header, made string) headKey {
	userType, _ := h.Extra.Get("userType")
	ccVersion, _ := h.Extra.Get("claude_code_version")
	return headKey{id: h.ID, cwd: h.Cwd, branch: h.Branch, agent: h.AgentName, agentVersion: h.AgentVersion,
		origin: h.Origin, source: h.SourceFormat, made: made, userType: string(userType), ccVersion: string(ccVersion)}
}

// same reports whether headKeyOf(h, made) is k, without making it.
func (k *headKey) same(h *model.Header, made string) bool {
	if h.ID != k.id || h.Cwd != k.cwd || h.Branch != k.branch || h.AgentName != k.agent || h.AgentVersion != k.agentVersion ||
		h.Origin != k.origin || h.SourceFormat != k.source || made != k.made {
		return false
	}
	userType, _ := h.Extra.Get("userType")
	ccVersion, _ := h.Extra.Get("claude_code_version")
	return string(userType) == k.userType && string(ccVersion) == k.ccVersion
}

// ownSessionMembers writes sessionMembers' members one by one: e's own
// values, else the session's (v).
func (wr *Writer) ownSessionMembers(o *jsonw.Obj, e *model.Event, v headValues) {
	str := func(key, def string) {
		if v, ok := e.Extra.String(key); ok {
			o.Str(key, v)
			return
		}
		if def != "" {
			o.Str(key, def)
		}
	}
	str("userType", v.userType)
	str("cwd", v.cwd)
	str("sessionId", v.sessionID)
	str("version", v.version)
	if b, ok := e.Extra.String("gitBranch"); ok {
		o.Str("gitBranch", b)
	} else if v.hasBranch {
		// Claude Code writes "" outside a git repository.
		o.Str("gitBranch", v.branch)
	}
}

// headValues are the session's values of sessionMembers' members, and
// whether gitBranch is written without one of the entry's own.
type headValues struct {
	userType, cwd, sessionID, version, branch string
	hasBranch                                 bool
}

// head is sessionMembers' members encoded for values, isSidechain false
// and true before them: objects of n members.
type head struct {
	key    headKey
	values headValues
	obj    [2][]byte
	n      int
}

// isTaskNotification reports a user message by which Claude Code reported
// a background task's end (its reader marks it meta).
func isTaskNotification(e *model.Event) bool {
	return e.Kind == model.KindUser && strings.HasPrefix(e.Text, taskNotification)
}

// session returns the session id to write: the session's, or one made up
// once (reported) when the source has none, or, from another format, when
// its id is not a UUID: Claude Code requires one, and `claude --resume`
// finds a session only by its UUID. A made-up id comes from the source's
// (synthID's seed), so converting again gives the same; the source's own is
// in the session record.
func (wr *Writer) session(e *model.Event) string {
	if wr.h.ID != "" && (wr.sameSource() || isUUID(wr.h.ID)) {
		return wr.h.ID
	}
	if _, own := e.Extra.String("sessionId"); own {
		return ""
	}
	if wr.sessionID == "" {
		s := wr.synthID(sessionID)
		wr.sessionID = s[0:8] + "-" + s[8:12] + "-4" + s[13:16] + "-8" + s[17:20] + "-" + s[20:24] + "00000000"
		if wr.h.ID == "" {
			wr.rep.Add(model.LossSynthesized, "sessionId (the source has no session id)", e.Loc)
		} else {
			wr.rep.Add(model.LossSynthesized, "sessionId for the source's id, which is not a UUID (Claude Code resumes a session by its UUID; the session record keeps the source's)", e.Loc)
		}
	}
	return wr.sessionID
}

// isUUID reports whether s is a UUID in its canonical form
// (8-4-4-4-12 hex digits), the only form Claude Code takes for a session id
// and writes as an entry's uuid.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// version returns the Claude Code version to write: the session's own when
// it is one (x.y.z, which ccusage requires), else none. Another agent's
// version is not Claude Code's: the session record keeps it.
func (wr *Writer) version() string {
	h := wr.h
	if wr.sameSource() {
		return h.AgentVersion
	}
	if v, ok := h.Extra.String("claude_code_version"); ok && ccusage.ValidVersion(v) {
		return v
	}
	if h.AgentName == ccAgent && ccusage.ValidVersion(h.AgentVersion) {
		return h.AgentVersion
	}
	return ""
}

// ccAgent is Claude Code's name as an agent (the header's agent).
const ccAgent = "claude-code"

// entryKeys are the keys the writer writes on an entry itself.
var entryKeys = map[string]bool{"parentUuid": true, "isSidechain": true, "agentId": true, "isMeta": true, "type": true, "message": true,
	"uuid": true, "timestamp": true, "subtype": true, "content": true, "compactMetadata": true, "todos": true, resultStatusKey: true, restsKey: true,
	"usage": true}

var skipExtra = map[string]bool{"userType": true, "cwd": true, "sessionId": true, "version": true, "gitBranch": true, "slug": true}

// timestamp returns the entry's timestamp in Claude Code's form (UTC, three
// fraction digits, as ccusage requires). A Claude source's own is written
// as it was. An event without one gets the last timestamp written (or the
// session's start, or the conversion's time), reported; so does a message
// of a Claude source that lost its own on the way (an edited ATIF file):
// Claude Code writes none without one, and ccusage would not count it.
func (wr *Writer) timestamp(e *model.Event, message bool) string {
	if wr.sameSource() && (e.Time != "" || !message) {
		if e.Time != "" {
			wr.lastTime = e.Time
		}
		return e.Time
	}
	if e.Time != "" {
		if e.Time == wr.timeIn {
			wr.lastTime = wr.timeOut
			return wr.timeOut
		}
		if frac, ok := wr.timeForm(e.Time); ok {
			// Already in Claude Code's form, or whole seconds in UTC
			// (".000Z" added: a string made, kept for the events of the
			// same second), what claudeTime makes.
			out := e.Time
			if !frac {
				out = wr.strs.Join(e.Time[:19], ".000Z")
			}
			wr.timeIn, wr.timeOut = e.Time, out
			wr.lastTime = out
			return out
		}
		if t, ok := parseTime(e.Time); ok {
			out := t.UTC().Format(claudeTimeLayout)
			if t.Nanosecond()%int(time.Millisecond) != 0 {
				wr.rep.Add(model.LossTruncated, "timestamp to milliseconds (Claude Code's precision)", e.Loc)
			}
			wr.lastTime = out
			return out
		}
		wr.rep.Add(model.LossSynthesized, "timestamp for one that is not a date and time", e.Loc)
	} else {
		wr.repeatedLoss(&wr.lostTime, model.LossSynthesized, "timestamp (the source has none for this event)", e.Loc)
	}
	if wr.lastTime == "" {
		if t, ok := parseTime(wr.h.Started); ok {
			wr.lastTime = t.UTC().Format(claudeTimeLayout)
		} else {
			wr.lastTime = wr.opt.Time().Format(claudeTimeLayout)
		}
	}
	return wr.lastTime
}

// claudeTime is what timestamp makes of ts, for the two forms most
// timestamps have: YYYY-MM-DDTHH:MM:SS.mmmZ (written as it is) and
// YYYY-MM-DDTHH:MM:SSZ (".000" added), without parsing and formatting a
// time. ok is false for anything else, and for a date or time out of
// range (which time.Parse rejects), which parseTime then decides.
func claudeTime(ts string) (string, bool) {
	frac, ok := claudeTimeForm(ts)
	switch {
	case !ok:
		return "", false
	case frac:
		return ts, true
	}
	return ts[:19] + ".000Z", true
}

// claudeTimeForm is claudeTime's test: ok when ts has one of the two
// forms, and frac when it has the milliseconds already.
func claudeTimeForm(ts string) (frac, ok bool) {
	if frac, ok = claudeTimeTail(ts); !ok || ts[4] != '-' || ts[7] != '-' || ts[10] != 'T' || ts[13] != ':' {
		return false, false
	}
	c, yy, mo, d, h, mi := twoDigits(ts, 0), twoDigits(ts, 2), twoDigits(ts, 5), twoDigits(ts, 8), twoDigits(ts, 11), twoDigits(ts, 14)
	y := c*100 + yy
	if c < 0 || yy < 0 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 {
		return false, false
	}
	// The day must exist in that month (time.Date would roll it over).
	if d > grammar.DaysIn(y, mo) {
		return false, false
	}
	return frac, true
}

// claudeTimeTail is claudeTimeForm's test of what follows a timestamp's
// minute (ts[16:]: ":SS", the milliseconds, "Z") and of its length,
// which makes ts[:16] the date, hour and minute.
func claudeTimeTail(ts string) (frac, ok bool) {
	switch {
	case len(ts) == len("2006-01-02T15:04:05Z"):
	case len(ts) == len(claudeTimeLayout) && ts[19] == '.':
		frac = true
		for _, c := range []byte(ts[20:23]) {
			if c < '0' || c > '9' {
				return false, false
			}
		}
	default:
		return false, false
	}
	if ts[16] != ':' || ts[len(ts)-1] != 'Z' {
		return false, false
	}
	if sec := twoDigits(ts, 17); sec < 0 || sec > 59 {
		return false, false
	}
	return frac, true
}

// twoDigits is the two digits of ts at i, or -1 when either is not a
// digit (a byte below '0' wraps round to more than 9).
func twoDigits(ts string, i int) int {
	a, b := ts[i]-'0', ts[i+1]-'0'
	if a > 9 || b > 9 {
		return -1
	}
	return int(a)*10 + int(b)
}

// timeForm is claudeTimeForm(ts), its date, hour and minute (ts[:16])
// taken as checked when they are those of the last timestamp it took
// (most timestamps of a session share them with the one before): then
// only claudeTimeTail's test is made again.
func (wr *Writer) timeForm(ts string) (frac, ok bool) {
	if len(ts) > 16 && ts[:16] == wr.minuteIn {
		return claudeTimeTail(ts)
	}
	if frac, ok = claudeTimeForm(ts); ok {
		wr.minuteIn = ts[:16]
	}
	return frac, ok
}

// claudeTimeLayout is how Claude Code writes timestamps.
const claudeTimeLayout = "2006-01-02T15:04:05.000Z"

// parseTime reads an RFC 3339 / ISO 8601 timestamp, with or without a
// zone (UTC then) and with a space for the T.
func parseTime(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// entryTail writes uuid, timestamp and the entry-level extras, and for a
// session from another format the rests of the entry's events (evs),
// carried adding to c what the entry holds of each. message is true for
// a user's or the assistant's entry.
func (wr *Writer) entryTail(o *jsonw.Obj, e *model.Event, l link, evs []*model.Event, message bool, carried func(c *model.Carried, x *model.Event) (unset int)) {
	o.StrName(&names.uuid, l.uuid)
	ts := wr.timestamp(e, message)
	if ts != "" {
		o.StrName(&names.timestamp, ts)
	}
	if !wr.sameSource() && len(evs) > 0 {
		// As a string: ccusage takes a line with a "usage" object for one
		// with a message's usage, and a rest may keep one (an SDK
		// result's). The list is written escaped as it is encoded (a
		// quoting Buf), each of its strings escaped once for both.
		o.KeyName(&names.rests)
		b := &wr.line
		b.WriteByte('"')
		b.Quote()
		list := b.List()
		for _, x := range evs {
			list.Next()
			// (One list for every rest: each is written before the next
			// is made.)
			wr.carried.Reset()
			unset := carried(&wr.carried, x)
			wr.writeRest(b, x, l, ts, &wr.carried, unset)
		}
		list.End()
		b.Unquote()
		b.WriteByte('"')
	}
	for _, f := range e.Extra {
		if skipExtra[f.Key] || strings.HasPrefix(f.Key, "_") || strings.HasPrefix(f.Key, "message.") || strings.HasPrefix(f.Key, "block.") {
			continue
		}
		if entryKeys[f.Key] {
			// A field of another format under a key the entry has
			// already (an SDK message's own uuid): its rest keeps it.
			continue
		}
		o.Raw(f.Key, f.Value)
	}
}

// flush writes the pending events, one message's blocks, as one entry of
// the role they have.
func (wr *Writer) flush() {
	if len(wr.pending) == 0 {
		return
	}
	evs := wr.pending
	wr.pending = wr.pending[:0]
	if len(wr.renamed) > 0 { // (most entries rename no id)
		clear(wr.renamed)
	}
	b := &wr.line.Buffer // reused: an entry is written before the next is built
	b.Reset()
	o := jsonw.Begin(b)
	if wr.role == "user" {
		wr.userEntry(o, b, evs)
	} else {
		wr.assistantEntry(o, b, evs)
	}
	o.End()
	wr.writeLine(b.Bytes())
}

// userEntry writes the members of a user entry: the prompt (a string, as
// Claude Code writes a typed prompt, or blocks), tool results with their
// statuses, a todo list.
func (wr *Writer) userEntry(o *jsonw.Obj, b *jsonw.Buffer, evs []*model.Event) {
	first := evs[0]
	l := wr.entryHead(o, first, &runs.userType)
	m := jsonw.Begin(b)
	form := first.Form.Content
	blocks := form != ""
	var todos *model.Event
	var content []*model.Event
	for _, e := range evs {
		if e.Kind == model.KindTodos {
			todos = e
			continue
		}
		content = append(content, e)
	}
	if form == "empty" {
		m.Run(&runs.userMessage)
		b.WriteString("[]")
	} else if len(content) == 1 && content[0].Kind == model.KindUser && !blocks {
		m.RunStr(&runs.userMessage, content[0].Text)
	} else {
		m.Run(&runs.userMessage)
		wr.blocks(b, content)
	}
	writeMessageExtra(m, first, false)
	m.End()
	if todos != nil {
		if len(todos.Raw) > 0 {
			o.Raw("todos", todos.Raw)
		} else {
			writeTodos(o, b, todos.Todos)
		}
	}
	wr.writeResultStatuses(o, b, content, first.Extra)
	wr.entryTail(o, first, l, evs, true, func(c *model.Carried, x *model.Event) int {
		c.Add(&carries.user)
		if !wr.isRenamed(x) {
			c.Add(&carries.resultCallID)
		}
		if r := x.Result; r != nil && len(r.ContentRaw) > 0 {
			c.Add(&carries.resultRaw)
		} else {
			c.Add(&carries.resultContent)
		}
		return 0
	})
}

// assistantEntry writes the members of an assistant entry: one message's
// content blocks with its model, id and usage.
func (wr *Writer) assistantEntry(o *jsonw.Obj, b *jsonw.Buffer, evs []*model.Event) {
	first := evs[0]
	l := wr.entryHead(o, first, &runs.assistantType)
	m := jsonw.Begin(b)
	if name := pick(first.Model, wr.h.Model); name != "" {
		m.StrName(&names.model, name)
	}
	msgID := ownMessageID(first)
	if msgID == "" {
		msgID = wr.runMsgID
	}
	if msgID != "" {
		m.StrName(&names.id, msgID)
	}
	m.Run(&runs.assistantMessage)
	if first.Form.Content == "string" && len(evs) == 1 && first.Kind == model.KindAgent {
		jsonw.String(b, first.Text)
	} else {
		wr.blocks(b, evs)
	}
	_, stop := first.Extra.Get("message.stop_reason")
	raw, ok := first.Extra.Get("message.usage")
	usage := (!ok || !wr.sameSource() && !countedUsage(raw)) && first.Usage != nil
	switch {
	case !stop && usage:
		m.Run(&runs.stopUsage)
	case !stop:
		m.Run(&runs.stop)
	case usage:
		m.KeyName(&names.usage)
	}
	if usage {
		u := first.Usage
		usageCounts.Write(b, u.Input, u.CacheCreate, u.CacheRead, u.Output)
	}
	writeMessageExtra(m, first, !wr.sameSource())
	m.End()
	written := pick(first.Model, wr.h.Model)
	wr.entryTail(o, first, l, evs, true, func(c *model.Carried, x *model.Event) (unset int) {
		c.Add(&carries.assistant)
		if !wr.isRenamed(x) {
			c.Add(&carries.callID)
		}
		if ownMessageID(first) != "" {
			c.Add(&carries.messageID)
		} else if msgID != "" {
			unset |= unsetMessageID
		}
		if x.Model == "" || x.Model == written {
			c.Add(&carries.model)
		}
		if x.Usage == nil {
			unset |= unsetUsage // not the entry's
		}
		return unset
	})
}

// writeMessageExtra writes the message fields the event kept ("message.*"
// extras). With checkUsage (other sources than Claude Code) a kept usage
// object that ccusage would not count is left out; the counters are then
// written from the event's usage instead.
func writeMessageExtra(m *jsonw.Obj, e *model.Event, checkUsage bool) {
	for _, f := range e.Extra {
		if k, ok := strings.CutPrefix(f.Key, "message."); ok {
			if k == "usage" && checkUsage && !countedUsage(f.Value) && e.Usage != nil {
				continue
			}
			m.Raw(k, f.Value)
		}
	}
}

// countedUsage reports whether a usage object kept from an Anthropic
// message has the counters ccusage needs: input_tokens and output_tokens
// as unsigned integers (the Agent SDK's early snapshots may lack one).
func countedUsage(raw []byte) bool {
	in, out := false, false
	jsonscan.Members(raw, func(k, v []byte) error {
		unsigned := len(v) > 0
		for _, c := range v {
			unsigned = unsigned && c >= '0' && c <= '9'
		}
		switch string(k) {
		case "input_tokens":
			in = unsigned
		case "output_tokens":
			out = unsigned
		}
		return nil
	})
	return in && out
}

func pick(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// blocks writes evs as a message's content: a list of their blocks.
func (wr *Writer) blocks(b *jsonw.Buffer, evs []*model.Event) {
	b.WriteByte('[')
	for i, e := range evs {
		if i > 0 {
			b.WriteByte(',')
		}
		wr.block(b, e)
	}
	b.WriteByte(']')
}

// block writes one content block.
func (wr *Writer) block(b *jsonw.Buffer, e *model.Event) {
	o := jsonw.Begin(b)
	switch e.Kind {
	case model.KindUser, model.KindAgent:
		o.RunStr(&runs.text, e.Text)
	case model.KindThinking:
		o.RunStr(&runs.thinking, e.Text)
		sig := e.Signature
		if sig != "" && !wr.sameSource() && !wr.claudeModel(e) {
			// Another provider's signature (Codex's encrypted reasoning):
			// Claude Code drops a thinking block whose signature is not
			// one of Anthropic's, and keeps one without.
			sig = ""
			wr.rep.Lose(model.LossDroppedField, "thinking.signature", "thinking signature from another format (Claude Code drops the thinking with a signature it did not make)", e.Loc)
		}
		o.StrName(&names.signature, sig)
	case model.KindToolCall:
		o.RunStr(&runs.toolUse, wr.callID(e))
		o.StrName(&names.name, e.Call.Name)
		if len(e.Call.Input) > 0 {
			o.RawName(&names.input, e.Call.Input)
		} else {
			o.RawName(&names.input, []byte("{}"))
			if e.Call.Summary != "" {
				wr.rep.Add(model.LossDroppedField, "tool call argument summary (no structured input)", e.Loc)
			}
		}
	case model.KindToolResult:
		r := e.Result
		o.StrName(&names.toolUseID, wr.resultCallID(e))
		if len(r.ContentRaw) > 0 {
			o.Run(&runs.toolResult)
			jsonw.WriteCompact(b, r.ContentRaw)
		} else {
			o.RunStr(&runs.toolResult, r.Content)
		}
		if r.IsError {
			o.BoolName(&names.isError, true)
		} else if v, ok := e.Extra.Get("block.is_error"); ok {
			o.RawName(&names.isError, v)
		}
		for _, f := range e.Extra {
			if k, ok := strings.CutPrefix(f.Key, "block."); ok && k != "is_error" {
				o.Raw(k, f.Value)
			}
		}
	case model.KindPassthrough:
		// A content block the reader did not know: written back whole.
		b.Truncate(b.Len() - 1)
		jsonw.WriteCompact(b, e.Raw)
		return
	}
	o.End()
}

// openCalls is how many of the latest tool calls the writer remembers: to
// tell an id used again (a call that many calls after another of its id
// goes unseen), and until their results come, to give a result the id
// written for its call.
const openCalls = 4096

// callID is the id to write for e's tool call: the source's, or, from
// another format, the source's with -2, -3 … when the session has a call
// of that id already (an early autopilot log's toolu_01 for every call):
// the API, and Claude Code resuming, take one call an id, and keep the
// first. (Not _2: Claude Code 2.1.328 resuming drops the result of a call
// whose id is another call's with _N after it, and answers the call with
// an error of its own.)
func (wr *Writer) callID(e *model.Event) string {
	id := e.Call.ID
	if id == "" || wr.sameSource() {
		return id
	}
	out := id
	for n := 2; !wr.callIDs.Add(out); n++ {
		out = id + "-" + strconv.Itoa(n)
	}
	if out != id {
		wr.renamed[e] = out
		wr.rep.Add(model.LossIDUnique, "tool call id used again in the session (Claude Code takes one call an id): the later call's written as <id>-2 …, its rest keeping the source's", e.Loc)
	}
	q, _ := wr.open.Get(id)
	if q.first == "" {
		q.first = out
	} else {
		q.more = append(q.more, out)
	}
	wr.open.Set(id, q)
	return out
}

// waiting is the ids written for the calls of one source id that wait
// for their results, the earliest first: one, nearly always, held
// without a list made for it.
type waiting struct {
	first string
	more  []string
}

// resultCallID is the tool_use_id to write for e's result: the id written
// for the earliest call of its id still waiting for one.
func (wr *Writer) resultCallID(e *model.Event) string {
	id := e.Result.CallID
	if wr.sameSource() {
		return id
	}
	// (Taken, one search of the ring, and set again when more calls of
	// the id wait; a waiting entry always has its first id.)
	q, ok := wr.open.Take(id)
	if !ok || q.first == "" {
		wr.rep.Add(model.LossUnfaithful, "tool result without a tool call of its id before it: Claude Code drops it when resuming (the API takes a result only for a call of the message before)", e.Loc)
		return id
	}
	w := q.first
	if len(q.more) > 0 {
		wr.open.Set(id, waiting{q.more[0], q.more[1:]})
	}
	if w != id {
		wr.renamed[e] = w
	}
	return w
}

// resultStatusKey is the entry key that keeps the statuses of an entry's
// tool results that are neither ok nor error (rlog's `o: → [2 issues]`),
// by tool_use_id: Claude Code has no place for them in a tool_result
// block, and reads no entry key it does not know.
const resultStatusKey = "toolResultStatus"

// writeResultStatuses writes resultStatusKey for the results among evs
// that have such a status, but for the one the entry's own fields (extra)
// say (a denied or interrupted call's toolDenialKind), which the reader
// reads from them.
func (wr *Writer) writeResultStatuses(o *jsonw.Obj, b *jsonw.Buffer, evs []*model.Event, extra model.Fields) {
	var so *jsonw.Obj
	said := denialStatus(extra)
	for _, e := range evs {
		if e.Result == nil || e.Result.Status == "" || e.Result.IsError && e.Result.Status == said {
			continue
		}
		if so == nil {
			o.Key(resultStatusKey)
			so = jsonw.Begin(b)
		}
		id := e.Result.CallID
		if w, ok := wr.renamed[e]; ok {
			id = w
		}
		so.Str(id, e.Result.Status)
	}
	if so != nil {
		so.End()
	}
}

// writeTodos writes a todo list as o.Any("todos", todoJSON(ts)) writes it
// (encoding/json's maps, their keys in order), without reflection and a
// map a todo, when every string of the list is plain ASCII, which
// encoding/json and jsonw both write as it is; any other list through
// encoding/json.
func writeTodos(o *jsonw.Obj, b *jsonw.Buffer, ts []model.Todo) {
	for _, t := range ts {
		if !plainASCII(t.Content) || !plainASCII(t.Status) || !plainASCII(t.ID) || !plainASCII(t.Priority) {
			o.Any("todos", todoJSON(ts))
			return
		}
	}
	o.KeyName(&names.todos)
	b.WriteByte('[')
	for i, t := range ts {
		if i > 0 {
			b.WriteByte(',')
		}
		to := jsonw.Begin(b)
		to.StrName(&names.content, t.Content)
		if t.ID != "" {
			to.StrName(&names.id, t.ID)
		}
		if t.Priority != "" {
			to.StrName(&names.priority, t.Priority)
		}
		to.StrName(&names.status, t.Status)
		to.End()
	}
	b.WriteByte(']')
}

// plainASCII reports whether a JSON string holds s as it is.
func plainASCII(s string) bool { return jsonw.PlainASCII(s) == len(s) }

func todoJSON(ts []model.Todo) []map[string]string {
	out := make([]map[string]string, 0, len(ts))
	for _, t := range ts {
		m := map[string]string{"content": t.Content, "status": t.Status}
		if t.ID != "" {
			m["id"] = t.ID
		}
		if t.Priority != "" {
			m["priority"] = t.Priority
		}
		out = append(out, m)
	}
	return out
}

// other writes an event that is not part of a user/assistant entry.
func (wr *Writer) other(e *model.Event) {
	b := &wr.line.Buffer
	b.Reset()
	same := wr.sameSource()
	switch e.Kind {
	case model.KindPassthrough:
		if same && len(e.Raw) > 0 {
			var c jsonw.Buffer
			jsonw.WriteCompact(&c, e.Raw)
			wr.writeLine(c.Bytes())
			return
		}
		if same {
			wr.rep.DropEvent(e, "record "+e.RawType+" from "+wr.h.SourceFormat)
			return
		}
		// From another format: a system entry, whose rest holds the
		// record.
	case model.KindSubagent:
		if _, framing := e.Extra.Get(inlineSidechainHint); framing && same {
			// The reader's frame of inline sidechain entries: the
			// entries are written as they were.
			return
		}
		if e.Subagent != nil && e.Subagent.AgentID != "" && same {
			if e.Subagent.Status == "started" {
				wr.rep.Lose(model.LossMoved, "subagent", "sub-agent transcript written inline as isSidechain entries", e.Loc)
			}
			return
		}
		if same {
			wr.rep.DropEvent(e, "subagent status (Claude Code keeps sub-agents in their own files)")
			return
		}
	case model.KindLifecycle:
		if _, mark := e.Extra.Get(readerMarkHint); mark && same {
			return // the reader's, of where the records lie
		}
		if same {
			wr.rep.DropEvent(e, "lifecycle marker")
			return
		}
	case model.KindSystem:
		if e.Name == "summary" {
			wr.dropMessageKeys(e)
			o := jsonw.Begin(b)
			o.Str("type", "summary")
			o.Str("summary", e.Text)
			for _, f := range e.Extra {
				if !strings.HasPrefix(f.Key, "_") {
					o.Raw(f.Key, f.Value)
				}
			}
			o.End()
			wr.writeLine(b.Bytes())
			return
		}
	}
	o := jsonw.Begin(b)
	l := wr.entryHead(o, e, &runs.systemType)
	switch e.Kind {
	case model.KindCompaction:
		if !same && !wr.boundary {
			o.NameName(&names.subtype, &names.informational)
			o.StrName(&names.content, pick(e.Text, "Conversation compacted"))
			break
		}
		o.NameName(&names.subtype, &names.compactBoundary)
		o.StrName(&names.content, pick(e.Text, "Conversation compacted"))
		if e.Compaction != nil {
			o.KeyName(&names.compactMetadata)
			c := jsonw.Begin(b)
			c.Str("trigger", pick(e.Compaction.Trigger, "auto"))
			c.IntName(&names.preTokens, e.Compaction.PreTokens)
			c.End()
		}
	case model.KindInit:
		o.NameName(&names.subtype, &names.init)
		o.StrName(&names.content, "init model="+pick(e.Model, wr.h.Model))
	case model.KindStatus:
		o.NameName(&names.subtype, &names.status)
		o.StrName(&names.content, e.Text)
	case model.KindComment:
		o.NameName(&names.subtype, &names.informational)
		o.StrName(&names.content, e.Text)
	case model.KindLifecycle:
		o.NameName(&names.subtype, &names.lifecycle)
		o.StrName(&names.content, strings.TrimSpace("@"+e.Name+" "+e.Text))
	case model.KindSubagent:
		o.NameName(&names.subtype, &names.subagent)
		o.StrName(&names.content, strings.TrimSpace("subagent "+e.Subagent.Type+" "+e.Subagent.Status+": "+e.Subagent.Summary))
	case model.KindPassthrough:
		o.NameName(&names.subtype, &names.record)
		o.StrName(&names.content, "record "+e.RawType)
	default:
		o.StrName(&names.subtype, pick(e.Name, "informational"))
		o.StrName(&names.content, e.Text)
	}
	wr.dropMessageKeys(e)
	wr.entryTail(o, e, l, []*model.Event{e}, false, func(*model.Carried, *model.Event) int { return 0 })
	o.End()
	wr.writeLine(b.Bytes())
}

// messageKeys are the entry keys Claude Code writes only on user and
// assistant entries, where consumers read them: ccusage takes any line with
// a compact "usage":{ for an assistant message and skips it when its
// "message" is no object. A system entry never carries them.
var messageKeys = map[string]bool{"usage": true, "message": true}

// dropMessageKeys removes the message keys from a system entry's source
// fields (an SDK system message's own usage, say), reporting each.
func (wr *Writer) dropMessageKeys(e *model.Event) {
	if !wr.sameSource() {
		// From another format, entryTail leaves them out and the entry's
		// rest keeps them.
		return
	}
	kept := e.Extra[:0:0]
	for _, f := range e.Extra {
		if messageKeys[f.Key] {
			wr.rep.Lose(model.LossDroppedField, e.Kind.String()+".extra."+f.Key, e.Kind.String()+" field "+f.Key+" (Claude Code keeps it on user and assistant entries only)", e.Loc)
			continue
		}
		kept = append(kept, f)
	}
	e.Extra = kept
}
