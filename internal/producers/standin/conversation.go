package standin

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// A Turn is one message of a conversation as a client sent it, reduced to
// what the conversation is: who spoke and what they said, called and got
// back. Consecutive messages of one role are one turn.
type Turn struct {
	Role  string
	Parts []Part
}

// A Part is one content block, its payload made comparable: a tool's
// input as canonical JSON, a tool result's content as its text and the
// digests of its images, an image as its media type and digest.
type Part struct {
	Type      string
	Text      string `json:",omitempty"` // text, thinking, a tool result's text
	Signature string `json:",omitempty"` // thinking
	Data      string `json:",omitempty"` // redacted_thinking
	ID        string `json:",omitempty"` // tool_use id, tool_result's tool_use_id
	Name      string `json:",omitempty"` // tool_use
	Input     string `json:",omitempty"` // tool_use, canonical JSON
	IsError   bool   `json:",omitempty"` // tool_result
	Media     string `json:",omitempty"` // image and document: media type and sha256 of the data, for a tool result each of its images
}

// AppendTurn adds t to a conversation, joined to the last turn when that
// is of the same role, as Conversation joins them.
func AppendTurn(turns []Turn, t Turn) []Turn {
	if n := len(turns); n > 0 && turns[n-1].Role == t.Role {
		last := Turn{Role: t.Role, Parts: append(append([]Part(nil), turns[n-1].Parts...), t.Parts...)}
		return append(append([]Turn(nil), turns[:n-1]...), last)
	}
	return append(append([]Turn(nil), turns...), t)
}

// WithoutPrompt is a resumed conversation without the prompt the resumed
// run gave: the last part of the last turn, a user's, and that turn when
// nothing else is in it. It says false when the conversation does not
// end with prompt.
func WithoutPrompt(turns []Turn, prompt string) ([]Turn, bool) {
	n := len(turns)
	if n == 0 || turns[n-1].Role != "user" {
		return turns, false
	}
	last := turns[n-1]
	if k := len(last.Parts); k == 0 || last.Parts[k-1].Text != prompt {
		return turns, false
	}
	out := append([]Turn(nil), turns[:n-1]...)
	if len(last.Parts) == 1 {
		return out, true
	}
	return append(out, Turn{Role: last.Role, Parts: last.Parts[:len(last.Parts)-1]}), true
}

// Canonical is JSON with its object keys sorted and no spaces.
func Canonical(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	return string(MustMarshal(v)) // encoding/json sorts map keys
}

// MustMarshal is v as JSON without HTML escapes; v must be marshalable.
func MustMarshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// DiffConversations says where two conversations first differ, "" when
// they are equal: the turn and part, and both sides of it.
func DiffConversations(want, got []Turn) string {
	for i := 0; i < max(len(want), len(got)); i++ {
		switch {
		case i >= len(got):
			return fmt.Sprintf("turn %d (%s) is missing; %d turns instead of %d", i+1, want[i].Role, len(got), len(want))
		case i >= len(want):
			return fmt.Sprintf("turn %d (%s) is extra: %s; %d turns instead of %d", i+1, got[i].Role, show(got[i].Parts), len(got), len(want))
		case want[i].Role != got[i].Role:
			return fmt.Sprintf("turn %d is %s, want %s", i+1, got[i].Role, want[i].Role)
		}
		w, g := want[i].Parts, got[i].Parts
		for j := 0; j < max(len(w), len(g)); j++ {
			switch {
			case j >= len(g):
				return fmt.Sprintf("turn %d (%s), part %d is missing: %s", i+1, want[i].Role, j+1, show(w[j:j+1]))
			case j >= len(w):
				return fmt.Sprintf("turn %d (%s), part %d is extra: %s", i+1, want[i].Role, j+1, show(g[j:j+1]))
			case w[j] != g[j]:
				return fmt.Sprintf("turn %d (%s), part %d:\n  want %s\n  got  %s", i+1, want[i].Role, j+1, show(w[j:j+1]), show(g[j:j+1]))
			}
		}
	}
	return ""
}

func show(parts []Part) string {
	b := MustMarshal(parts)
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

// MustMarshalIndent is MustMarshal, indented by two spaces.
func MustMarshalIndent(v any) []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, MustMarshal(v), "", "  "); err != nil {
		panic(err)
	}
	return b.Bytes()
}
