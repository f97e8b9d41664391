// Package gemini is a stand-in for the Gemini API, serving scripted
// answers on 127.0.0.1 so that Gemini CLI (or any client of the API) runs
// offline: POST /v1beta/models/MODEL:streamGenerateContent?alt=sse
// (server-sent events, one part a chunk, the usage on the last),
// :generateContent (one JSON answer: the CLI's router, compression and
// summaries) and :countTokens, or an HTTP error in the API's shape. Every
// request is recorded.
package gemini

import (
	"encoding/json"
	"fmt"
	"strings"
)

// A Request is a Gemini API request: the model and method from its path,
// and the body's parts a script matches on.
type Request struct {
	Model  string `json:"-"`
	Method string `json:"-"` // generateContent, streamGenerateContent, countTokens

	Contents          []Content       `json:"contents"`
	SystemInstruction *Content        `json:"systemInstruction,omitempty"`
	Tools             []Tool          `json:"tools"`
	GenerationConfig  json.RawMessage `json:"generationConfig,omitempty"`
}

// A Content is one turn: its role (user, model) and parts.
type Content struct {
	Role  string `json:"role,omitempty"`
	Parts []Part `json:"parts"`
}

// A Part is text (a thought when Thought), a function call or a function
// response.
type Part struct {
	Text             string            `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	FunctionCall     *FunctionCall     `json:"functionCall,omitempty"`
	FunctionResponse *FunctionResponse `json:"functionResponse,omitempty"`
}

// A FunctionCall is the model calling a tool; Args is a JSON object.
type FunctionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// A FunctionResponse is a tool's result sent back.
type FunctionResponse struct {
	ID       string          `json:"id,omitempty"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

// A Tool is a set of function declarations.
type Tool struct {
	FunctionDeclarations []struct {
		Name string `json:"name"`
	} `json:"functionDeclarations"`
}

// ParsePath reads MODEL and METHOD from /v1beta/models/MODEL:METHOD.
func ParsePath(path string) (model, method string, err error) {
	rest, ok := strings.CutPrefix(path, "/v1beta/models/")
	if !ok {
		return "", "", fmt.Errorf("not a model path: %s", path)
	}
	model, method, ok = strings.Cut(rest, ":")
	if !ok || model == "" {
		return "", "", fmt.Errorf("no model and method in %s", path)
	}
	return model, method, nil
}

// ParseRequest reads a request's path and body.
func ParseRequest(path string, body []byte) (*Request, error) {
	model, method, err := ParsePath(path)
	if err != nil {
		return nil, err
	}
	var r Request
	if len(body) > 0 {
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
	}
	r.Model, r.Method = model, method
	return &r, nil
}

// Said is what the content's text parts say, thoughts left out.
func (c Content) Said() string {
	var texts []string
	for _, p := range c.Parts {
		if p.Text != "" && !p.Thought {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// Text is all of the content's text: parts, thoughts, calls and
// responses as JSON.
func (c Content) Text() string {
	var texts []string
	for _, p := range c.Parts {
		switch {
		case p.Text != "":
			texts = append(texts, p.Text)
		case p.FunctionCall != nil || p.FunctionResponse != nil:
			b, _ := json.Marshal(p)
			texts = append(texts, string(b))
		}
	}
	return strings.Join(texts, "\n")
}

// last is the last content, or nil.
func (r *Request) last() *Content {
	if len(r.Contents) == 0 {
		return nil
	}
	return &r.Contents[len(r.Contents)-1]
}

// Declared are the names of the functions the request declares.
func (r *Request) Declared() []string {
	var names []string
	for _, t := range r.Tools {
		for _, d := range t.FunctionDeclarations {
			names = append(names, d.Name)
		}
	}
	return names
}
