package anthropic

import (
	"strings"

	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

// A Matcher decides whether a rule answers a request.
type Matcher func(*Request) bool

// LastUserSays matches a request whose last user message says s (in its
// own text, not in tool results or the client's system reminders): the
// turn that answers a prompt.
func LastUserSays(s string) Matcher {
	return func(r *Request) bool {
		m := r.lastUser()
		return m != nil && strings.Contains(m.Said(), s)
	}
}

// LastUserHas matches a request whose last user message holds s anywhere
// in its text, system reminders and tool results included (a queued
// notification, a compaction's instructions).
func LastUserHas(s string) Matcher {
	return func(r *Request) bool {
		m := r.lastUser()
		return m != nil && strings.Contains(m.Content.Text(), s)
	}
}

// FirstUserSays matches a conversation that began with a user message
// saying s: a sub-agent's, whose first message is its task.
func FirstUserSays(s string) Matcher {
	return func(r *Request) bool {
		m := r.firstUser()
		return m != nil && strings.Contains(m.Said(), s)
	}
}

// ToolResult matches a request whose last user message carries the result
// of tool call id.
func ToolResult(id string) Matcher {
	return func(r *Request) bool {
		m := r.lastUser()
		if m == nil {
			return false
		}
		for _, b := range m.Content {
			if b.Type == "tool_result" && b.ToolUseID == id {
				return true
			}
		}
		return false
	}
}

// SystemSays matches a request whose system prompt holds s.
func SystemSays(s string) Matcher {
	return func(r *Request) bool { return strings.Contains(r.System.Text(), s) }
}

// Streaming matches streamed requests; Not(Streaming()) the others.
func Streaming() Matcher { return func(r *Request) bool { return r.Stream } }

// Any matches every request.
func Any() Matcher { return standin.Any[Matcher]() }

// All matches when every m matches.
func All(ms ...Matcher) Matcher { return standin.All(ms...) }

// Not matches when m does not.
func Not(m Matcher) Matcher { return standin.Not(m) }
