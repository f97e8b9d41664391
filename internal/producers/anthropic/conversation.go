package anthropic

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

// Conversation is the conversation a request carries: its messages without
// the client's own context (messages in the system role, text blocks that
// are system reminders, but for the task notification one may carry) and
// without cache hints, each message's blocks reduced to Parts, consecutive
// messages of one role joined.
func Conversation(r *Request) []standin.Turn {
	var turns []standin.Turn
	for _, m := range r.Messages {
		if m.Role == "system" {
			continue
		}
		var parts []standin.Part
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
		turns = append(turns, standin.Turn{Role: m.Role, Parts: parts})
	}
	return turns
}

// AnswerTurn is a stand-in's answer as the assistant turn a client sends
// back afterwards.
func AnswerTurn(r Reply) standin.Turn {
	t := standin.Turn{Role: "assistant"}
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

func part(b Block) (standin.Part, bool) {
	p := standin.Part{Type: b.Type}
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
		p.ID, p.Name, p.Input = b.ID, b.Name, standin.Canonical(b.Input)
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
		p.Input = standin.Canonical(standin.MustMarshal(b))
	}
	return p, true
}
