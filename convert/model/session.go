// Package model is the one session model every conversion goes through: a
// reader turns its format into a Header and a stream of Events, a writer turns
// them back into its format. A new format is therefore one reader and one
// writer package, never a converter per pair of formats.
//
// The model keeps what any supported format can say about an agent session.
// What a source says that has no place here is kept in Extra fields (ordered,
// raw JSON) or as a KindPassthrough event, never silently dropped; what a
// writer cannot express is recorded in a Report.
package model

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Header is the session-level metadata.
type Header struct {
	ID           string // session id
	Model        string // main model
	AgentName    string
	AgentVersion string
	RepoSHA      string
	Branch       string
	Cwd          string
	Prompt       string // the task prompt, when the source keeps it apart from the events
	Started      string // timestamp as written by the source (RFC 3339 / ISO 8601)
	Ended        string

	// Totals is what the source itself states as session totals (trajectory
	// `usage`, ATIF `final_metrics`, SDK `result`). Nil when it states none;
	// writers then use the sum of per-message usage (see Ledger).
	Totals *Usage
	// CostUSD is the total cost when the source states one.
	CostUSD *float64
	// Outcome is the final result: success flag, turns, result text.
	Outcome *Outcome

	// SourceFormat names the format the session was read from; SourceVersion
	// its version string (`ATIF-v1.6`, `mini-swe-agent-1`, `rlog/1`, ...).
	SourceFormat  string
	SourceVersion string
	// Origin and OriginVersion name the format the session was first read
	// from when the source was written by rlog-ls from another (an ATIF
	// file written from an rlog says so in its extra); "" otherwise.
	Origin        string
	OriginVersion string

	// Extra holds every other header-level field, in source order, under the
	// source's own key names.
	Extra Fields

	// TotalsKeys is, for an ATIF source, which of final_metrics' token
	// counters it wrote (as Form.Keys for a step's).
	TotalsKeys string
}

// First is the format the session was first read from and its version:
// Origin when the source says it was written from another format, else
// SourceFormat.
func (h *Header) First() (format, version string) {
	if h.Origin != "" {
		return h.Origin, h.OriginVersion
	}
	return h.SourceFormat, h.SourceVersion
}

// Outcome is how a session ended.
type Outcome struct {
	Success    *bool
	DurationMS int64
	NumTurns   int64
	ResultText string
	Errors     []string
}

// Usage is the token usage of one model message (or a session total), in
// Anthropic terms: Input excludes cached tokens, CacheRead and CacheCreate
// are counted apart. ATIF's prompt_tokens = Input+CacheRead+CacheCreate.
type Usage struct {
	Input       int64
	Output      int64
	CacheRead   int64
	CacheCreate int64
}

// IsZero reports whether every counter is 0.
func (u Usage) IsZero() bool { return u == Usage{} }

// Add returns the counter-wise sum.
func (u Usage) Add(o Usage) Usage {
	return Usage{u.Input + o.Input, u.Output + o.Output, u.CacheRead + o.CacheRead, u.CacheCreate + o.CacheCreate}
}

// Max returns the counter-wise maximum. Claude Code and the Agent SDK repeat
// one message's usage on every content block, and the early copies are
// streaming snapshots (output_tokens 1 or 3 before the final count), so the
// maximum per counter is the message's real usage.
func (u Usage) Max(o Usage) Usage {
	m := func(a, b int64) int64 {
		if a > b {
			return a
		}
		return b
	}
	return Usage{m(u.Input, o.Input), m(u.Output, o.Output), m(u.CacheRead, o.CacheRead), m(u.CacheCreate, o.CacheCreate)}
}

// Prompt is the ATIF/OpenAI prompt token count, which includes cached tokens.
func (u Usage) Prompt() int64 { return u.Input + u.CacheRead + u.CacheCreate }

// SyntheticMessagePrefix starts the message ids a reader makes up to tie
// together the events of one response when the source names none (the
// rlog reader's `~rlog-line-N`, the ATIF reader's `~step-N`). Writers do
// not write them.
const SyntheticMessagePrefix = "~"

// SyntheticMessageID reports whether id was made up by a reader.
func SyntheticMessageID(id string) bool { return strings.HasPrefix(id, SyntheticMessagePrefix) }

// Kind is the kind of an Event.
type Kind uint8

// The event kinds. The names are the strings used in JSON reports and docs.
const (
	KindUser        Kind = iota + 1 // a user (human or harness) message
	KindAgent                       // assistant text
	KindThinking                    // reasoning, with Signature when the model signs it
	KindToolCall                    // Call is set
	KindToolResult                  // Result is set
	KindSubagent                    // Subagent is set: a sub-agent started, finished or failed
	KindInit                        // system init: Model, and tools etc. in Extra
	KindStatus                      // system status (`Compacting`); Text
	KindCompaction                  // context compaction boundary; Compaction is set
	KindSystem                      // any other system/informational message; Text
	KindTodos                       // a todo list update; Todos
	KindLifecycle                   // @start/@end/@phase and other lifecycle markers; Name
	KindComment                     // a free comment (rlog `#` lines)
	KindPassthrough                 // a record the reader does not know; Raw keeps it
)

var kindNames = [...]string{"", "user", "agent", "thinking", "tool_call", "tool_result", "subagent", "init", "status", "compaction", "system", "todos", "lifecycle", "comment", "passthrough"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && k != 0 {
		return kindNames[k]
	}
	return "unknown"
}

// Event is one entry of a session, in source order.
type Event struct {
	Kind Kind
	// Time is the event timestamp as written by the source; "" when unknown.
	Time string
	// ID is the source's id for this entry (Claude `uuid`, rlog line id).
	ID string
	// ParentID is the entry this one follows in the source's DAG (Claude
	// `parentUuid`). Empty for a root. Together with ID it keeps rewinds and
	// branches, which file order alone loses.
	ParentID string
	// MessageID groups the events that came from one model response
	// (Anthropic `message.id`); usage is counted once per MessageID.
	MessageID string
	// Model is the model that produced the event, when known.
	Model string
	// Text is the message, thinking, status, system or comment text.
	Text string
	// Signature is the thinking signature (opaque).
	Signature string
	// Name is the lifecycle verb (`start`, `end`, `phase`) or the phase name.
	Name string

	Call       *ToolCall
	Result     *ToolResult
	Subagent   *Subagent
	Compaction *Compaction
	Todos      []Todo
	// Usage is the token usage reported with this event. Several events of
	// one MessageID usually repeat it; use a Ledger to total.
	Usage *Usage

	// AgentID is set on events of a sub-agent (Claude sidechain `agentId`).
	AgentID string
	// Sidechain marks events that were not on the main conversation.
	Sidechain bool
	// Meta marks harness-injected user entries (Claude `isMeta`, compaction
	// summaries), which are not human text.
	Meta bool

	// Step is the source step number, when the source numbers steps.
	Step int64

	// Raw is the whole source record of a KindPassthrough event.
	Raw json.RawMessage
	// RawType is the record type of a KindPassthrough event.
	RawType string
	// Bookkeeping, on a KindPassthrough event, says that the reader knows
	// the record as its source's own bookkeeping and why nothing of it is
	// a line of the session ("" for a record the reader does not know): a
	// writer of the source's format keeps it (Raw), every other drops it
	// and names it once per RawType in the loss report.
	Bookkeeping string

	// Parts is the message as ATIF v1.6 content parts (text and images),
	// when the source wrote it so; Text is their text rendering.
	Parts json.RawMessage

	// Extra holds source fields of this event that have no model field.
	Extra Fields

	// Form is how the source wrote the event, for a writer of the same
	// format to write it back the same way.
	Form Form

	// Loc is where the event came from, for reports.
	Loc Loc
}

// Form records how a source wrote an event where its format offers
// several ways to say the same thing. It is not data: a writer of the same
// format reads it to write the event back as it was, others ignore it.
type Form struct {
	// Content is how a Claude message's content was written: "string"
	// (a plain string), "empty" (an empty list); "" is a list of blocks.
	Content string
	// NoOutput marks a trajectory tool_result that had no output field.
	NoOutput bool
	// Inline marks an rlog call and its result written on one t: line.
	Inline bool
	// Prefix is an rlog tool line's prefix other than t!: ("c").
	Prefix string
	// WholeInput marks an rlog call whose input was written whole, as
	// input={…} (the reference converter's form), beside its arguments.
	WholeInput bool
	// Keys lists which of an ATIF step's optional token counters the
	// source wrote ("prompt_tokens,completion_tokens", "," for none); ""
	// when not recorded.
	Keys string
	// UsageInText marks an rlog event whose usage its text holds: written
	// at the end of a continuation line, or inside the text (after a quoted
	// value that does not close), where the rules read it.
	UsageInText bool
}

// ToolCall is a tool invocation.
type ToolCall struct {
	ID   string
	Name string
	// Input is the arguments as a JSON value, normally an object whose key
	// order is the source's. Nil when the source gave none.
	Input json.RawMessage
	// Summary is an abbreviated argument text when the real input is
	// unknown (rlog `file_path=… cmd="…"`).
	Summary string
}

// Args returns Input as ordered fields; nil when Input is not an object.
func (c *ToolCall) Args() Fields {
	f, err := ParseFields(c.Input)
	if err != nil {
		return nil
	}
	return f
}

// ToolResult is the outcome of a tool call.
type ToolResult struct {
	CallID string
	// IsError is true when the tool failed.
	IsError bool
	// Content is the result as text. When the source result was structured
	// (content blocks, an object), Content is its text rendering and
	// ContentRaw keeps the original JSON.
	Content    string
	ContentRaw json.RawMessage
	// Status is a status word when the source has one beyond ok/error
	// (`running`, `interrupted`).
	Status string
}

// Subagent describes a sub-agent lifecycle event.
type Subagent struct {
	ID      string // the call id that started it (Task tool_use id), or the agent id
	AgentID string // the sub-agent's own id (Claude `agentId`)
	Type    string // agent type (`Explore`, `general-purpose`)
	Status  string // started | done | error
	Summary string
	// SessionID / TrajectoryPath point at the sub-agent's own trajectory.
	SessionID      string
	TrajectoryPath string
}

// Compaction describes a context compaction boundary.
type Compaction struct {
	Trigger   string // auto | manual
	PreTokens int64
	// PostTokens is the context's tokens after it, when the source says.
	PostTokens int64
}

// Todo is one item of a todo list.
type Todo struct {
	ID       string
	Content  string
	Status   string
	Priority string
}

// Session is a whole session in memory. Formats that are one JSON document
// are read into a Session; JSONL formats stream Events to a Sink instead.
type Session struct {
	Header Header
	Events []Event
}

// Sink receives a session as it is read. Header points at the reader's live
// header: it may gain fields while events arrive and is complete when End is
// called. Event may keep e after it returns: readers allocate a new Event for
// every call, unless the sink borrows events (Borrower).
type Sink interface {
	Event(h *Header, e *Event) error
	End(h *Header) error
}

// Borrower is a Sink that may say it borrows events: when BorrowsEvents
// returns true, the sink keeps nothing it reaches through e after Event
// returns: not e, not the values its pointers point at (Call, Result,
// Subagent, Compaction, Usage), not the arrays of its slices (Todos, Raw,
// Parts, Extra and its values, a result's ContentRaw, a call's Input). It
// may keep strings, which never change, and copies (Clone). A reader may
// then give the same Event, and the same values behind it, to every call,
// rewritten: a new Event a line is most of what a streaming reader
// allocates. A sink that wraps another borrows only if the other does
// and it copies what it holds back itself.
type Borrower interface {
	Sink
	BorrowsEvents() bool
}

// BorrowsEvents reports whether a reader may reuse the events it gives s
// (Borrower). A reader asks once, before its first event.
func BorrowsEvents(s Sink) bool {
	b, ok := s.(Borrower)
	return ok && b.BorrowsEvents()
}

// Clone returns a copy of e that shares nothing with it but strings: what
// a sink that borrows events (Borrower) keeps when it must keep an event.
// Raw values are copied byte for byte (bytes.Clone: nil and empty kept
// apart), not as jsonscan.Copy or Fields.Copy copy them.
func (e *Event) Clone() *Event {
	c := *e
	if e.Call != nil {
		call := *e.Call
		call.Input = json.RawMessage(bytes.Clone(call.Input))
		c.Call = &call
	}
	if e.Result != nil {
		res := *e.Result
		res.ContentRaw = json.RawMessage(bytes.Clone(res.ContentRaw))
		c.Result = &res
	}
	if e.Subagent != nil {
		sub := *e.Subagent
		c.Subagent = &sub
	}
	if e.Compaction != nil {
		comp := *e.Compaction
		c.Compaction = &comp
	}
	if e.Usage != nil {
		u := *e.Usage
		c.Usage = &u
	}
	if e.Todos != nil {
		c.Todos = append(make([]Todo, 0, len(e.Todos)), e.Todos...)
	}
	c.Raw = json.RawMessage(bytes.Clone(e.Raw))
	c.Parts = json.RawMessage(bytes.Clone(e.Parts))
	if e.Extra != nil {
		c.Extra = make(Fields, len(e.Extra))
		for i, f := range e.Extra {
			c.Extra[i] = Field{Key: f.Key, Value: json.RawMessage(bytes.Clone(f.Value))}
		}
	}
	return &c
}

// Collector is a Sink that keeps everything in a Session. It does not
// borrow events: it keeps each, and a Clone an event would cost more than
// the reader's own allocation of it.
type Collector struct{ Session Session }

// Event appends e.
func (c *Collector) Event(_ *Header, e *Event) error {
	c.Session.Events = append(c.Session.Events, *e)
	return nil
}

// End records the final header.
func (c *Collector) End(h *Header) error {
	c.Session.Header = *h
	return nil
}

// Replay feeds a Session to a Sink.
func Replay(s *Session, sink Sink) error {
	for i := range s.Events {
		if err := sink.Event(&s.Header, &s.Events[i]); err != nil {
			return err
		}
	}
	return sink.End(&s.Header)
}

// Lookahead is a Sink that holds back the first events of a session (at
// most MaxEvents of them, or MaxBytes of their text) before passing them
// on, so that a writer that writes its header at the first event sees the
// header fields a source gives in its first records: Claude Code's cwd,
// version and model come with its first message, after records that have
// none. Memory is bounded by the limits. It borrows events when its sink
// does, and then holds back copies (Clone).
type Lookahead struct {
	Sink
	MaxEvents, MaxBytes int

	held   []*Event
	h      *Header
	bytes  int
	done   bool
	borrow bool // it said it borrows: what it holds back is a copy
}

// BorrowsEvents implements Borrower: the sink's answer. A reader that
// does not ask gives events of their own, which are held as they are.
func (l *Lookahead) BorrowsEvents() bool {
	l.borrow = BorrowsEvents(l.Sink)
	return l.borrow
}

// Event implements Sink.
func (l *Lookahead) Event(h *Header, e *Event) error {
	if l.done {
		return l.Sink.Event(h, e)
	}
	l.h = h
	if l.borrow {
		e = e.Clone()
	}
	l.held = append(l.held, e)
	l.bytes += len(e.Text) + len(e.Raw) + 200
	if len(l.held) >= l.MaxEvents || l.bytes >= l.MaxBytes {
		return l.release()
	}
	return nil
}

func (l *Lookahead) release() error {
	l.done = true
	held := l.held
	l.held = nil
	for _, e := range held {
		if err := l.Sink.Event(l.h, e); err != nil {
			return err
		}
	}
	return nil
}

// End implements Sink.
func (l *Lookahead) End(h *Header) error {
	if !l.done {
		if err := l.release(); err != nil {
			return err
		}
	}
	return l.Sink.End(h)
}

// Tee returns a sink that gives each event and the end to first, then to
// then; the first error stops it.
func Tee(first, then Sink) Sink { return tee{first, then} }

type tee struct{ first, then Sink }

// BorrowsEvents implements Borrower: both sinks borrow.
func (t tee) BorrowsEvents() bool { return BorrowsEvents(t.first) && BorrowsEvents(t.then) }

func (t tee) Event(h *Header, e *Event) error {
	if err := t.first.Event(h, e); err != nil {
		return err
	}
	return t.then.Event(h, e)
}

func (t tee) End(h *Header) error {
	if err := t.first.End(h); err != nil {
		return err
	}
	return t.then.End(h)
}
