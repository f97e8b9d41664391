package openai

import (
	"encoding/json"
	"fmt"
)

// A Reply is a scripted answer: the output items (reasoning, message,
// function_call, custom_tool_call) and the usage reported for them.
type Reply struct {
	Items []Item
	Usage Usage
	// Status, when not 0 or 200, answers with that HTTP status and an
	// API error of ErrorCode instead (a server error, a context too long).
	Status    int
	ErrorCode string
	// FailStream, when set, ends the stream after the items with
	// response.failed saying this, instead of response.completed.
	FailStream string
}

// Usage is the token usage reported with an answer. Cached is part of
// Input and Reasoning part of Output, as the API counts them; the total
// is Input+Output.
type Usage struct {
	Input, Cached, Output, Reasoning int
}

// MarshalJSON writes the usage in the API's shape.
func (u Usage) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{
		"input_tokens":          u.Input,
		"input_tokens_details":  map[string]int{"cached_tokens": u.Cached},
		"output_tokens":         u.Output,
		"output_tokens_details": map[string]int{"reasoning_tokens": u.Reasoning},
		"total_tokens":          u.Input + u.Output,
	})
}

// Reasoning is a reasoning item with a summary (its encrypted content is
// made up when the answer is sent).
func Reasoning(summary string) Item {
	return Item{Type: "reasoning", Summary: []ContentPart{{Type: "summary_text", Text: summary}}}
}

// Message is an assistant message saying text.
func Message(text string) Item {
	return Item{Type: "message", Role: "assistant", Content: []ContentPart{{Type: "output_text", Text: text}}}
}

// FunctionCall calls tool name with args, a JSON object, as call id.
func FunctionCall(id, name, args string) Item {
	return Item{Type: "function_call", CallID: id, Name: name, Arguments: args}
}

// CollaborationCall calls a tool of Codex's collaboration namespace
// (spawn_agent, wait_agent, …).
func CollaborationCall(id, name, args string) Item {
	it := FunctionCall(id, name, args)
	it.Namespace = "collaboration"
	return it
}

// CustomToolCall calls a custom (free text) tool, such as apply_patch.
func CustomToolCall(id, name, input string) Item {
	return Item{Type: "custom_tool_call", CallID: id, Name: name, Input: input}
}

// check says what is wrong with a scripted reply.
func (r Reply) check() error {
	for i, it := range r.Items {
		switch it.Type {
		case "reasoning", "message":
		case "function_call":
			var obj map[string]any
			if err := json.Unmarshal([]byte(it.Arguments), &obj); err != nil {
				return fmt.Errorf("item %d: the arguments of %s are not a JSON object: %v", i, it.CallID, err)
			}
			fallthrough
		case "custom_tool_call":
			if it.CallID == "" || it.Name == "" {
				return fmt.Errorf("item %d: a %s needs a call id and a name", i, it.Type)
			}
		default:
			return fmt.Errorf("item %d: a reply cannot hold a %q item", i, it.Type)
		}
	}
	if (r.Status != 0 && r.Status != 200) != (r.ErrorCode != "") {
		return fmt.Errorf("an error reply needs both a status and an error code")
	}
	return nil
}

// usage is the reply's usage; an unset one is made up from the items, so
// that every answer reports some tokens and different answers different
// numbers.
func (r Reply) usage() Usage {
	if r.Usage != (Usage{}) {
		return r.Usage
	}
	n := 0
	for _, it := range r.Items {
		n += len(it.Text())
	}
	return Usage{Input: 3000 + n%97, Cached: 2000, Output: 5 + n/4}
}
