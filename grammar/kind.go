// Package grammar is the rlog/1 language: a lossless, incremental parser that
// classifies every line and locates its metadata by byte offset, a YAML header
// reader that keeps positions, a lenient key=value tokenizer, and the
// language's vocabulary (line kinds, metadata keys, lifecycle events, result
// statuses and header fields), which the rules, hover, the writers and the
// docs' tests all read from here.
//
// Classification follows the reference implementation (OpenAgentsInc/openagents
// crates/recorder at 1feea39ca666) rule for rule; see ../docs/format.md and
// the comments on each rule for the few deliberate differences.
package grammar

// Kind is what a line is. Body kinds are numbered in the order the reference
// parser tries them; the first match wins.
type Kind uint8

const (
	Empty Kind = iota
	Continuation
	User
	Agent
	ToolStart
	ToolProgress
	Tool
	Observation
	Skill
	Plan
	Mode
	Recall
	Subagent
	Mcp
	Question
	Comment
	Phase
	Lifecycle
	Thinking
	Todos
	Unknown

	// Lines outside the body. The reference ignores lines before the header
	// start; they are kept here so every byte of a document belongs to a line.
	Preamble
	HeaderDelimiter
	HeaderLine

	numKinds
)

// kindSpec is everything rlog/1 says about one kind of line.
type kindSpec struct {
	name   string // the kind's name in tests, JSON dumps and the docs
	prefix string // the text that introduces the line, as users write it
	// title and doc explain the kind to a reader (hover): "**t!: tool
	// start**: a tool call began. ..."
	title, doc  string
	registersID bool // its id= makes the call known to later lines
	takesResult bool // a result follows "→"
	// keys are the metadata keys writers put on lines of the kind, in the
	// order they put them: the ones a person writing the line adds
	// (completion offers them), not those only converters write (id_full=,
	// input=, uuid=, ...).
	keys []Key
}

var kindSpecs = [numKinds]kindSpec{
	Empty:        {name: "empty"},
	Continuation: {name: "continuation", title: "continuation", doc: "a line indented by two spaces or a tab continues the line above."},
	User: {name: "user", prefix: "u:", title: "user message",
		doc:  "what the user said to the agent (writers keep the first line, up to 200 characters).",
		keys: []Key{KeyID, KeyTS, KeyStep, KeyParent, KeyTID}},
	Agent: {name: "agent", prefix: "a:", title: "agent message", doc: "text the agent wrote to the user.",
		keys: []Key{KeyTS, KeyStep, KeyParent, KeyModel, KeyMessageID, KeyTokensIn, KeyTokensOut, KeyTokensCached, KeyTokensCacheCreate}},
	ToolStart: {name: "tool_start", prefix: "t!:", title: "tool start", registersID: true, takesResult: true,
		doc:  "a tool call began. It is completed by an `o: id=…` observation, or a `t:` line with the same id and a result; otherwise W007.",
		keys: []Key{KeyID, KeyTS, KeyStep, KeyAttempt, KeyTID, KeySpan, KeyParent, KeyTokensIn, KeyTokensOut, KeyTokensCached, KeyTokensCacheCreate, KeyMessageID, KeyModel}},
	ToolProgress: {name: "tool_progress", prefix: "t~:", title: "tool progress",
		doc:  "incremental output of a running call (`id=` must name a started call).",
		keys: []Key{KeyID, KeyTS, KeyStep, KeyTID, KeySpan}},
	Tool: {name: "tool", prefix: "t:", title: "tool call", registersID: true, takesResult: true,
		doc:  "a complete call with its result after `→`.",
		keys: []Key{KeyID, KeyTS, KeyStep, KeyLatency, KeyAttempt, KeyTID, KeySpan, KeyParent}},
	Observation: {name: "observation", prefix: "o:", title: "observation", takesResult: true,
		doc:  "the result of a call, linked to it by `id=`. `[ok]` or `[error]` follow the arrow.",
		keys: []Key{KeyID, KeyTS, KeyStep, KeyLatency, KeyTID, KeySpan}},
	Skill: {name: "skill", prefix: "s:", title: "skill", takesResult: true, doc: "a skill was activated or used.",
		keys: []Key{KeyTS, KeyStep}},
	Plan: {name: "plan", prefix: "p:", title: "plan", takesResult: true, doc: "a plan operation (create, update, complete…).",
		keys: []Key{KeyTS, KeyStep}},
	Mode: {name: "mode", prefix: "m:", title: "mode", doc: "the agent's mode changed (e.g. `auto`, `plan`).",
		keys: []Key{KeyTS, KeyStep}},
	Recall: {name: "recall", prefix: "r:", title: "recall", takesResult: true,
		doc:  "a memory or search lookup and what it found.",
		keys: []Key{KeyTS, KeyStep}},
	Subagent: {name: "subagent", prefix: "x:", title: "subagent", registersID: true, takesResult: true,
		doc:  "a subagent of the given type; `[started]` and `[done]` lines share its `id=`.",
		keys: []Key{KeyID, KeyTS, KeyStep, KeySummary, KeyTID}},
	Mcp: {name: "mcp", prefix: "c:", title: "MCP call", registersID: true, takesResult: true,
		doc:  "`server.method` on an MCP server, with its result.",
		keys: []Key{KeyID, KeyTS, KeyStep, KeyLatency, KeyTID, KeySpan}},
	Question: {name: "question", prefix: "q:", title: "question", registersID: true, takesResult: true,
		doc:  "the agent asked the user a question; the answer follows `→`.",
		keys: []Key{KeyID, KeyTS, KeyStep}},
	Comment: {name: "comment", prefix: "#", title: "comment",
		doc:  "metadata for humans and tools (`# status:`, `# queue:`, `# file-snapshot:`). Metadata in it is still read.",
		keys: []Key{KeyTS}},
	Phase: {name: "phase", prefix: "@phase",
		doc:  "starts a named phase of the session; the outline groups events under it.",
		keys: []Key{KeyTS, KeyStep}},
	Lifecycle: {name: "lifecycle", prefix: "@", title: "lifecycle event",
		doc:  "`@start`, `@init`, `@end` and other session events.",
		keys: []Key{KeyID, KeyTS, KeyModel, KeyTokensIn, KeyTokensOut, KeyTokensCached, KeyCostUSD}},
	Thinking: {name: "thinking", prefix: "th:", title: "thinking",
		doc:  "the model's reasoning (first line, up to 150 characters); `sig=` is its signature, cut short.",
		keys: []Key{KeySig, KeyTS, KeyParent, KeyModel, KeyMessageID, KeyTokensIn, KeyTokensOut, KeyTokensCached, KeyTokensCacheCreate}},
	Todos: {name: "todos", prefix: "td:", title: "todos", doc: "the agent's todo list, as `[status] item` entries.",
		keys: []Key{KeyTS, KeyStep}},
	Unknown:         {name: "unknown"},
	Preamble:        {name: "preamble"},
	HeaderDelimiter: {name: "header_delimiter"},
	HeaderLine:      {name: "header"},
}

func (k Kind) String() string {
	if k < numKinds {
		return kindSpecs[k].name
	}
	return "invalid"
}

// IsBody reports whether k is one of the 21 kinds a body line can have.
func (k Kind) IsBody() bool { return k <= Unknown }

// RegistersID reports whether a line of kind k makes its id= known to later
// observations (reference: Tool, ToolStart, Subagent, Mcp and Question lines).
func (k Kind) RegistersID() bool { return k < numKinds && kindSpecs[k].registersID }

// TakesResult reports whether lines of kind k carry a result after the arrow.
func (k Kind) TakesResult() bool { return k < numKinds && kindSpecs[k].takesResult }

// Prefix is the literal text that introduces a line of kind k, as users
// write it; "" for kinds without one.
func (k Kind) Prefix() string {
	if k < numKinds {
		return kindSpecs[k].prefix
	}
	return ""
}

// Title names kind k for a reader, with its prefix: "t!: tool start",
// "@phase"; "" for kinds rlog/1 does not describe (empty and unknown
// lines, the header).
func (k Kind) Title() string {
	if k >= numKinds || kindSpecs[k].doc == "" {
		return ""
	}
	s := kindSpecs[k]
	switch {
	case s.prefix == "":
		return s.title
	case s.title == "":
		return s.prefix
	}
	return s.prefix + " " + s.title
}

// Keys are the metadata keys writers put on lines of kind k, in the order
// they put them: those a person writing such a line adds (completion offers
// them), not those only converters write.
func (k Kind) Keys() []Key {
	if k < numKinds {
		return kindSpecs[k].keys
	}
	return nil
}

// Doc is one sentence on what a line of kind k is, after its Title.
func (k Kind) Doc() string {
	if k < numKinds {
		return kindSpecs[k].doc
	}
	return ""
}
