package anthropic

import (
	"encoding/json"
	"fmt"
)

// A Reply is a scripted answer: the assistant's content blocks, the stop
// reason (end_turn, or tool_use when a block calls a tool, when left
// empty) and the usage reported for it.
type Reply struct {
	Content    []Block
	StopReason string
	Usage      Usage
	// Status, when not 0 or 200, answers with that HTTP status and an API
	// error instead (an overloaded API, a refused request).
	Status int
}

// Usage is the token usage reported with an answer.
type Usage struct {
	Input         int
	CacheCreation int // all written to the 5-minute cache
	CacheRead     int
	Output        int
}

// MarshalJSON writes the usage as the API does, the cache writes also
// broken down by lifetime (clients and ccusage read the breakdown when it
// is there).
func (u Usage) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{
		"input_tokens":                u.Input,
		"cache_creation_input_tokens": u.CacheCreation,
		"cache_read_input_tokens":     u.CacheRead,
		"output_tokens":               u.Output,
		"cache_creation": map[string]int{
			"ephemeral_5m_input_tokens": u.CacheCreation,
			"ephemeral_1h_input_tokens": 0,
		},
		"service_tier": "standard",
	})
}

// Text is a text block.
func Text(s string) Block { return Block{Type: "text", Text: s} }

// Thinking is a thinking block with its signature.
func Thinking(thinking, signature string) Block {
	return Block{Type: "thinking", Thinking: thinking, Signature: signature}
}

// RedactedThinking is a redacted thinking block: opaque data only.
func RedactedThinking(data string) Block { return Block{Type: "redacted_thinking", Data: data} }

// ToolUse is a tool call; input is its JSON object.
func ToolUse(id, name, input string) Block {
	return Block{Type: "tool_use", ID: id, Name: name, Input: json.RawMessage(input)}
}

// check says what is wrong with a scripted reply.
func (r Reply) check() error {
	for i, b := range r.Content {
		switch b.Type {
		case "text", "thinking", "redacted_thinking":
		case "tool_use":
			if b.ID == "" || b.Name == "" {
				return fmt.Errorf("block %d: a tool_use needs an id and a name", i)
			}
			var obj map[string]any
			if err := json.Unmarshal(b.Input, &obj); err != nil {
				return fmt.Errorf("block %d: the input of %s is not a JSON object: %v", i, b.ID, err)
			}
		default:
			return fmt.Errorf("block %d: a reply cannot hold a %q block", i, b.Type)
		}
	}
	return nil
}

// stopReason is the reply's stop reason, defaulted from its content.
func (r Reply) stopReason() string {
	if r.StopReason != "" {
		return r.StopReason
	}
	for _, b := range r.Content {
		if b.Type == "tool_use" {
			return "tool_use"
		}
	}
	return "end_turn"
}

// usage is the reply's usage; an unset one is made up from the content, so
// that every answer reports some tokens and different answers different
// numbers, each counter its own.
func (r Reply) usage() Usage {
	if r.Usage != (Usage{}) {
		return r.Usage
	}
	n := 0
	for _, b := range r.Content {
		n += len(b.Text) + len(b.Thinking) + len(b.Data) + len(b.Input)
	}
	return Usage{Input: 3, CacheCreation: 120 + n%97, CacheRead: 9000, Output: 5 + n/4}
}
