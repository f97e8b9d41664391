// Package grammar is the rlog/1 language: a lossless, incremental parser that
// classifies every line and locates its metadata by byte offset, a YAML header
// reader that keeps positions, and a lenient key=value tokenizer.
//
// Classification follows the reference implementation (OpenAgentsInc/openagents
// crates/recorder at 1feea39ca666) rule for rule; see ../docs/diagnostics.md and
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
)

var kindNames = [...]string{
	Empty:           "empty",
	Continuation:    "continuation",
	User:            "user",
	Agent:           "agent",
	ToolStart:       "tool_start",
	ToolProgress:    "tool_progress",
	Tool:            "tool",
	Observation:     "observation",
	Skill:           "skill",
	Plan:            "plan",
	Mode:            "mode",
	Recall:          "recall",
	Subagent:        "subagent",
	Mcp:             "mcp",
	Question:        "question",
	Comment:         "comment",
	Phase:           "phase",
	Lifecycle:       "lifecycle",
	Thinking:        "thinking",
	Todos:           "todos",
	Unknown:         "unknown",
	Preamble:        "preamble",
	HeaderDelimiter: "header_delimiter",
	HeaderLine:      "header",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// IsBody reports whether k is one of the 21 kinds a body line can have.
func (k Kind) IsBody() bool { return k <= Unknown }

// RegistersID reports whether a line of kind k makes its id= known to later
// observations (reference: Tool, ToolStart, Subagent, Mcp and Question lines).
func (k Kind) RegistersID() bool {
	switch k {
	case Tool, ToolStart, Subagent, Mcp, Question:
		return true
	}
	return false
}

// TakesResult reports whether lines of kind k carry a result after the arrow.
func (k Kind) TakesResult() bool {
	switch k {
	case Tool, ToolStart, Observation, Skill, Plan, Recall, Subagent, Mcp, Question:
		return true
	}
	return false
}

// Prefix is the literal text that introduces a line of kind k, as users write it.
func (k Kind) Prefix() string {
	switch k {
	case User:
		return "u:"
	case Agent:
		return "a:"
	case ToolStart:
		return "t!:"
	case ToolProgress:
		return "t~:"
	case Tool:
		return "t:"
	case Observation:
		return "o:"
	case Skill:
		return "s:"
	case Plan:
		return "p:"
	case Mode:
		return "m:"
	case Recall:
		return "r:"
	case Subagent:
		return "x:"
	case Mcp:
		return "c:"
	case Question:
		return "q:"
	case Comment:
		return "#"
	case Phase:
		return "@phase"
	case Lifecycle:
		return "@"
	case Thinking:
		return "th:"
	case Todos:
		return "td:"
	}
	return ""
}
