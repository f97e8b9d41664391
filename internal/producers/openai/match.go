package openai

import (
	"strings"

	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

// A Matcher decides whether a rule answers a request.
type Matcher func(*Request) bool

// LastUserSays matches a request whose last input item is a user message
// saying s: the turn that answers a prompt.
func LastUserSays(s string) Matcher {
	return func(r *Request) bool {
		it := r.last()
		return it != nil && it.Type == "message" && it.Role == "user" && strings.Contains(it.Text(), s)
	}
}

// LastHas matches a request whose last input item holds s anywhere in its
// text (a sub-agent's task in an agent message, a compaction's prompt).
func LastHas(s string) Matcher {
	return func(r *Request) bool {
		it := r.last()
		return it != nil && strings.Contains(it.Text(), s)
	}
}

// Output matches a request whose last input item is the output of call
// id (a function call's or a custom tool call's).
func Output(id string) Matcher {
	return func(r *Request) bool {
		it := r.last()
		return it != nil && it.CallID == id && strings.HasSuffix(it.Type, "_output")
	}
}

// Agent matches a request made by the agent at path (/root, /root/TASK),
// as Codex names it in its turn metadata.
func Agent(path string) Matcher {
	return func(r *Request) bool { return r.Metadata().AgentName == path }
}

// Compaction matches a request asking for a compaction's summary.
func Compaction() Matcher {
	return func(r *Request) bool { return r.Metadata().RequestKind == "compaction" }
}

// Any matches every request.
func Any() Matcher { return standin.Any[Matcher]() }

// All matches when every m matches.
func All(ms ...Matcher) Matcher { return standin.All(ms...) }

// OneOf matches when any of ms matches.
func OneOf(ms ...Matcher) Matcher {
	return func(r *Request) bool {
		for _, m := range ms {
			if m(r) {
				return true
			}
		}
		return false
	}
}

// Not matches when m does not.
func Not(m Matcher) Matcher { return standin.Not(m) }
