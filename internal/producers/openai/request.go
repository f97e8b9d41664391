// Package openai is a stand-in for the OpenAI Responses API, serving
// scripted answers on 127.0.0.1 so that Codex CLI (or any client of the
// API) runs offline: POST /v1/responses streamed as server-sent events
// (response.created, the output items with their deltas,
// response.completed with usage, or response.failed), or an HTTP error in
// the API's shape. Every request is recorded; Conversation reads the
// conversation a request carries, for comparing what a client sent with
// what it was given.
package openai

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
)

// A Request is a Responses API request body, the parts a script matches
// on, and its HTTP header.
type Request struct {
	Model  string `json:"model"`
	Input  []Item `json:"input"`
	Tools  []Tool `json:"tools"`
	Stream bool   `json:"stream"`
	// Header is the request's HTTP header: Codex says in it which agent
	// asks and what for (TurnMetadata).
	Header http.Header `json:"-"`
}

// A Tool is one tool the client offers; a namespace holds more.
type Tool struct {
	Type  string `json:"type"`
	Name  string `json:"name,omitempty"`
	Tools []Tool `json:"tools,omitempty"`
}

// An Item is one input or output item of any type; only the fields of its
// type are set.
type Item struct {
	Type      string        `json:"type"`
	ID        string        `json:"id,omitempty"`
	Role      string        `json:"role,omitempty"`    // message
	Content   []ContentPart `json:"content,omitempty"` // message, agent_message
	Summary   []ContentPart `json:"summary,omitempty"` // reasoning
	Encrypted string        `json:"encrypted_content,omitempty"`
	CallID    string        `json:"call_id,omitempty"`   // calls and their outputs
	Name      string        `json:"name,omitempty"`      // function_call, custom_tool_call
	Namespace string        `json:"namespace,omitempty"` // function_call of a namespaced tool
	Arguments string        `json:"arguments,omitempty"` // function_call: JSON text
	Input     string        `json:"input,omitempty"`     // custom_tool_call: free text
	// Output is a call's output: a string, or a list of content parts.
	Output    json.RawMessage `json:"output,omitempty"`
	Author    string          `json:"author,omitempty"`    // agent_message
	Recipient string          `json:"recipient,omitempty"` // agent_message
}

// A ContentPart is one part of a message's content (input_text,
// output_text, encrypted_content, …).
type ContentPart struct {
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"`
	Encrypted string `json:"encrypted_content,omitempty"`
}

// ParseRequest reads a request body.
func ParseRequest(body []byte, header http.Header) (*Request, error) {
	var r Request
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, err
	}
	r.Header = header
	return &r, nil
}

// Text is all the text an item carries: a message's or agent message's
// parts (encrypted ones too: a stand-in's are plain), a reasoning
// summary, a call's arguments or input, an output.
func (it Item) Text() string {
	var parts []string
	for _, c := range append(append([]ContentPart(nil), it.Content...), it.Summary...) {
		if c.Text != "" {
			parts = append(parts, c.Text)
		}
		if c.Encrypted != "" {
			parts = append(parts, c.Encrypted)
		}
	}
	for _, s := range []string{it.Arguments, it.Input, it.OutputText()} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

// OutputText is a call output's text: the string, or its parts' text.
func (it Item) OutputText() string {
	out := bytes.TrimSpace(it.Output)
	if len(out) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(out, &s) == nil {
		return s
	}
	var parts []ContentPart
	json.Unmarshal(out, &parts)
	var texts []string
	for _, p := range parts {
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n")
}

// last is the last input item, or nil.
func (r *Request) last() *Item {
	if len(r.Input) == 0 {
		return nil
	}
	return &r.Input[len(r.Input)-1]
}

// TurnMetadata is what Codex says about a request in its
// X-Codex-Turn-Metadata header: the agent asking (/root, or /root/TASK
// for a sub-agent) and the kind of request (turn, compaction).
type TurnMetadata struct {
	AgentName   string `json:"agent_name"`
	RequestKind string `json:"request_kind"`
	TurnID      string `json:"turn_id"`
}

// Metadata reads the request's turn metadata (zero when absent).
func (r *Request) Metadata() TurnMetadata {
	var m TurnMetadata
	json.Unmarshal([]byte(r.Header.Get("X-Codex-Turn-Metadata")), &m)
	return m
}

// ToolNames are the names of the tools offered, a namespace's as
// NAMESPACE.NAME.
func (r *Request) ToolNames() []string {
	var names []string
	for _, t := range r.Tools {
		switch {
		case t.Type == "namespace":
			for _, s := range t.Tools {
				names = append(names, t.Name+"."+s.Name)
			}
		case t.Name != "":
			names = append(names, t.Name)
		default:
			names = append(names, t.Type)
		}
	}
	return names
}
