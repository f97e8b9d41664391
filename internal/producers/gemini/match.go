package gemini

import (
	"slices"
	"strings"

	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

// A Matcher decides whether a rule answers a request.
type Matcher func(*Request) bool

// Streaming matches :streamGenerateContent, the model's turns.
func Streaming() Matcher {
	return func(r *Request) bool { return r.Method == "streamGenerateContent" }
}

// Router matches the Gemini CLI's router: a :generateContent asking for
// a JSON complexity score of the prompt, before each prompt is sent.
func Router() Matcher {
	return func(r *Request) bool {
		return r.Method == "generateContent" && strings.Contains(string(r.GenerationConfig), "complexity_score")
	}
}

// LastUserSays matches a request whose last content is the user's and
// says s in its text parts.
func LastUserSays(s string) Matcher {
	return func(r *Request) bool {
		c := r.last()
		return c != nil && c.Role == "user" && strings.Contains(c.Said(), s)
	}
}

// LastHas matches a request whose last content holds s anywhere in its
// text, function calls and responses included.
func LastHas(s string) Matcher {
	return func(r *Request) bool {
		c := r.last()
		return c != nil && strings.Contains(c.Text(), s)
	}
}

// FirstUserSays matches a conversation whose first content says s: a
// sub-agent's, whose first message is its task.
func FirstUserSays(s string) Matcher {
	return func(r *Request) bool {
		return len(r.Contents) > 0 && strings.Contains(r.Contents[0].Said(), s)
	}
}

// Responds matches a request whose last content carries the response of
// function name.
func Responds(name string) Matcher {
	return func(r *Request) bool {
		c := r.last()
		if c == nil {
			return false
		}
		for _, p := range c.Parts {
			if p.FunctionResponse != nil && p.FunctionResponse.Name == name {
				return true
			}
		}
		return false
	}
}

// Declares matches a request that offers the function name (a
// sub-agent's requests alone declare complete_task).
func Declares(name string) Matcher {
	return func(r *Request) bool { return slices.Contains(r.Declared(), name) }
}

// SystemSays matches a request whose system instruction holds s.
func SystemSays(s string) Matcher {
	return func(r *Request) bool {
		return r.SystemInstruction != nil && strings.Contains(r.SystemInstruction.Text(), s)
	}
}

// Any matches every request.
func Any() Matcher { return standin.Any[Matcher]() }

// All matches when every m matches.
func All(ms ...Matcher) Matcher { return standin.All(ms...) }

// Not matches when m does not.
func Not(m Matcher) Matcher { return standin.Not(m) }
