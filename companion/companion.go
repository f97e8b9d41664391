// Package companion joins an rlog log to its companion: the lossless
// record of the same session that the writer keeps beside the log. The
// autopilot writes NAME.rlog for people, cut short on purpose (messages
// 200 characters, thinking 150, tool output 100, first lines only), and
// next to it NAME.jsonl (Agent SDK messages) or, before 2025-12-22,
// NAME.json (its trajectory JSON); a log converted from a Claude Code
// transcript, a Codex CLI rollout or a Gemini CLI session has that file in
// the same relation, and so has the rlog view of such a file.
//
// The package finds a log's companion files (Locate), indexes each one by
// byte offset without keeping its text (Build, Refresh: a record costs a
// fixed 48 bytes, and a file that grows is indexed from where the last
// pass stopped), checks that the pair is one session and joins each rlog
// line to its record (Join), and reads a record's full content on demand
// (Snapshot.Event). It is pure: byte offsets and 0-based lines in and out,
// no LSP types. What a record means is its format's reader's (convert's);
// where the log and its record disagree is said with analysis's codes
// (W014, W015, I005, I006: their entries are in analysis's rule table),
// which the server and the CLI publish with the log's own findings.
package companion

import "github.com/rlog-ls/rlog-ls/convert"

// Title is what a companion file of format f is called where the editor
// and the goldens name it ("Claude Code transcript"): convert's description
// of the format, in the words the companion has always used for the three
// formats that were companions before the views.
func Title(f convert.Format) string {
	switch f {
	case convert.SDKJSONL:
		return "autopilot JSONL"
	case convert.Trajectory:
		return "autopilot trajectory JSON"
	case convert.Claude:
		return "Claude Code transcript"
	case "":
		return "unknown"
	}
	fi, _ := convert.Lookup(f)
	return fi.Description
}

// Kind is what a record is, in the terms of the rlog line it becomes.
type Kind uint8

const (
	// User is user text (u:).
	User Kind = iota + 1
	// Agent is the agent's text (a:).
	Agent
	// Thinking is a thinking block (th:).
	Thinking
	// ToolUse is a tool call (t!:, t:, c:; x: [started] for a Task).
	ToolUse
	// ToolResult is a tool's result (o:; x: [done] for a Task).
	ToolResult
	// Init is an SDK init or a trajectory system_init step (@init).
	Init
	// Status is a status change with a status (# status:).
	Status
	// Subagent is a trajectory subagent step (x:).
	Subagent
	// Result is the session's outcome (an SDK result message).
	Result
)

var kindNames = [...]string{User: "user message", Agent: "agent message", Thinking: "thinking",
	ToolUse: "tool call", ToolResult: "tool result", Init: "init", Status: "status",
	Subagent: "subagent", Result: "session result"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "record"
}

// Flags say more about a record.
type Flags uint8

const (
	// Failed marks a tool result that is an error, or a subagent step whose
	// status is error.
	Failed Flags = 1 << iota
	// Started and Done mark a subagent step's status.
	Started
	Done
	// BareString marks a record whose bytes are a JSON string (a user
	// message whose content is a string) rather than an object.
	BareString
	// Task marks a tool call of the Task tool (a subagent) and its result.
	Task
)

// subagentFlags are the flags of a subagent step of status status (the
// autopilot companion's and the readers' events' words alike): started,
// done, or error, which is done and failed.
func subagentFlags(status string) Flags {
	switch status {
	case "started":
		return Started
	case "done":
		return Done
	case "error":
		return Done | Failed
	}
	return 0
}

// Record is one event of a companion: where its JSON is and what joins it
// to a line. A content block of a JSONL line, or a step of a trajectory,
// is one record. It holds no text: Snapshot.Event reads it.
type Record struct {
	// Off is the record's first byte in its file, Len its length.
	Off int64
	Len uint32
	// Line is the 0-based line of Off.
	Line  uint32
	Kind  Kind
	Flags Flags
	// keyLen is the length of key's meaningful bytes (see key).
	keyLen uint8
	// key identifies the record to a line without reading it: for calls,
	// results and subagents the first 8 and the last 8 bytes of the id
	// (rlog writers keep one or the other, or the whole id); for messages,
	// the first bytes of the text's first line.
	key [16]byte
	// hash is the FNV-1a hash of the whole id (calls, results, subagents)
	// or of the API message id (messages), 0 when there is none.
	hash uint64
	// nth tells the records of one kind at one place apart, for a file
	// indexed through its reader (a Gemini CLI message is its text, its
	// thoughts and its calls): which of the events of the kind that its
	// place gives is this one.
	nth uint8
}

// End is the offset after the record.
func (r *Record) End() int64 { return r.Off + int64(r.Len) }

// setID fills a record's key and hash from a call id.
func (r *Record) setID(id []byte) {
	r.hash = hashBytes(id)
	r.keyLen = uint8(min(len(id), 255))
	copy(r.key[:8], id)
	if len(id) >= 8 {
		copy(r.key[8:], id[len(id)-8:])
	}
}

// head is the id's first 8 bytes (fewer for a short id).
func (r *Record) head() string { return string(r.key[:min(int(r.keyLen), 8)]) }

// textKey is the fingerprint of a message: the first bytes of its first
// line, after leading white space.
func (r *Record) textKey() []byte { return r.key[:min(int(r.keyLen), len(r.key))] }

// hashBytes is FNV-1a, never 0 for a non-empty b (0 means "no id").
func hashBytes(b []byte) uint64 {
	if len(b) == 0 {
		return 0
	}
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	if h == 0 {
		return 1
	}
	return h
}

func hashString(s string) uint64 { return hashBytes([]byte(s)) }
