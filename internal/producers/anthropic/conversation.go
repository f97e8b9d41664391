package anthropic

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
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

// Conversation is the conversation a request carries: its messages without
// the client's own context (messages in the system role, text blocks that
// are system reminders, but for the task notification one may carry) and
// without cache hints, each message's blocks reduced to Parts, consecutive
// messages of one role joined.
func Conversation(r *Request) []Turn {
	var turns []Turn
	for _, m := range r.Messages {
		if m.Role == "system" {
			continue
		}
		var parts []Part
		for _, b := range m.Content {
			if p, ok := part(b); ok {
				parts = append(parts, p)
			}
		}
		if len(parts) == 0 {
			continue
		}
		if n := len(turns); n > 0 && turns[n-1].Role == m.Role {
			turns[n-1].Parts = append(turns[n-1].Parts, parts...)
			continue
		}
		turns = append(turns, Turn{Role: m.Role, Parts: parts})
	}
	return turns
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

// AnswerTurn is a stand-in's answer as the assistant turn a client sends
// back afterwards.
func AnswerTurn(r Reply) Turn {
	t := Turn{Role: "assistant"}
	for _, b := range r.Content {
		if p, ok := part(b); ok {
			t.Parts = append(t.Parts, p)
		}
	}
	return t
}

// A task notification is how Claude Code tells the model that a
// background task (a sub-agent) finished, and with what result; it sends it
// inside a system reminder.
const (
	taskNotification    = "<task-notification>"
	taskNotificationEnd = "</task-notification>"
)

func part(b Block) (Part, bool) {
	p := Part{Type: b.Type}
	switch b.Type {
	case "text":
		p.Text = b.Text
		if strings.HasPrefix(strings.TrimSpace(b.Text), systemReminder) {
			// The client's context, except the news of a finished task (a
			// sub-agent's result), which is conversation.
			i := strings.Index(b.Text, taskNotification)
			j := strings.LastIndex(b.Text, taskNotificationEnd)
			if i < 0 || j < i {
				return p, false
			}
			p.Text = b.Text[i : j+len(taskNotificationEnd)]
		}
	case "thinking":
		p.Text, p.Signature = b.Thinking, b.Signature
	case "redacted_thinking":
		p.Data = b.Data
	case "tool_use":
		p.ID, p.Name, p.Input = b.ID, b.Name, canonical(b.Input)
	case "tool_result":
		p.ID, p.IsError = b.ToolUseID, b.IsError
		if b.Content != nil {
			var text []string
			var media []string
			for _, c := range *b.Content {
				switch c.Type {
				case "text":
					text = append(text, c.Text)
				default:
					q, _ := part(c)
					media = append(media, q.Type+" "+q.Media)
				}
			}
			p.Text, p.Media = strings.Join(text, "\n"), strings.Join(media, "; ")
		}
	case "image", "document":
		var src struct {
			Type      string `json:"type"`
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
			URL       string `json:"url"`
		}
		json.Unmarshal(b.Source, &src)
		p.Media = fmt.Sprintf("%s %x", src.MediaType, sha256.Sum256([]byte(src.Data+src.URL)))
	default:
		p.Input = canonical(mustMarshal(b))
	}
	return p, true
}

// canonical is JSON with its object keys sorted and no spaces.
func canonical(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	return string(mustMarshal(v)) // encoding/json sorts map keys
}

func mustMarshal(v any) []byte {
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
	b := mustMarshal(parts)
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}
