// Package anthropic is a stand-in for the Anthropic Messages API, serving
// scripted answers on 127.0.0.1 so that Claude Code (or any client of the
// API) runs offline: POST /v1/messages streamed as server-sent events or
// answered whole, and /v1/messages/count_tokens. Every request is recorded;
// Conversation reads the conversation a request carries, for comparing what
// a client sent with what it was given.
package anthropic

import (
	"bytes"
	"encoding/json"
	"strings"
)

// A Request is a Messages API request body, the parts a script matches on.
type Request struct {
	Model     string          `json:"model"`
	MaxTokens int             `json:"max_tokens"`
	Stream    bool            `json:"stream"`
	System    Content         `json:"system"`
	Messages  []Message       `json:"messages"`
	Tools     []Tool          `json:"tools"`
	Thinking  json.RawMessage `json:"thinking,omitempty"`
}

// A Tool is one tool the client offers.
type Tool struct {
	Name string `json:"name"`
	Type string `json:"type,omitempty"`
}

// A Message is one message of the conversation.
type Message struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// Content is a message's (or the system prompt's) content: a string, which
// reads as one text block, or a list of blocks.
type Content []Block

// UnmarshalJSON reads either form.
func (c *Content) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*c = Content{{Type: "text", Text: s}}
		return nil
	}
	var blocks []Block
	if err := json.Unmarshal(b, &blocks); err != nil {
		return err
	}
	*c = blocks
	return nil
}

// A Block is one content block of any type; only the fields of its type
// are set.
type Block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`      // text
	Thinking  string          `json:"thinking,omitempty"`  // thinking
	Signature string          `json:"signature,omitempty"` // thinking
	Data      string          `json:"data,omitempty"`      // redacted_thinking
	ID        string          `json:"id,omitempty"`        // tool_use
	Name      string          `json:"name,omitempty"`      // tool_use
	Input     json.RawMessage `json:"input,omitempty"`     // tool_use
	ToolUseID string          `json:"tool_use_id,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	Content   *Content        `json:"content,omitempty"` // tool_result: a string or blocks
	Source    json.RawMessage `json:"source,omitempty"`  // image, document
}

// ParseRequest reads a request body.
func ParseRequest(body []byte) (*Request, error) {
	var r Request
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// systemReminder starts the text blocks the client adds to a user message
// as context (dates, listings, attribution): not what the user said.
const systemReminder = "<system-reminder>"

// Said is what a user message says: its text blocks, without the client's
// system reminders, joined by line breaks.
func (m Message) Said() string {
	var parts []string
	for _, b := range m.Content {
		if b.Type == "text" && !strings.HasPrefix(strings.TrimSpace(b.Text), systemReminder) {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Text is all the text of the content, tool results' included.
func (c Content) Text() string {
	var sb strings.Builder
	for _, b := range c {
		switch b.Type {
		case "text":
			sb.WriteString(b.Text)
		case "tool_result":
			if b.Content != nil {
				sb.WriteString(b.Content.Text())
			}
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// lastUser is the last message with the user's role, or nil.
func (r *Request) lastUser() *Message {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return &r.Messages[i]
		}
	}
	return nil
}

// firstUser is the first message with the user's role, or nil.
func (r *Request) firstUser() *Message {
	for i := range r.Messages {
		if r.Messages[i].Role == "user" {
			return &r.Messages[i]
		}
	}
	return nil
}

// ThinkingType is the type of the request's thinking setting ("enabled",
// "adaptive", "disabled"), "" without one.
func (r *Request) ThinkingType() string {
	var t struct{ Type string }
	json.Unmarshal(r.Thinking, &t)
	return t.Type
}
