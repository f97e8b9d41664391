package gemini

import (
	"encoding/json"
	"fmt"

	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

// A Reply is a scripted answer: the model's parts and the usage reported.
type Reply struct {
	Parts []Part
	Usage Usage
	// Status, when not 0 or 200, answers with that HTTP status and an
	// API error of that status's name instead.
	Status int
}

// Usage is the usage metadata reported with an answer. Cached is part of
// Prompt; Thoughts and Tool are counted beside Candidates, and the total
// is the sum of Prompt, Candidates, Thoughts and Tool.
type Usage struct {
	Prompt, Cached, Candidates, Thoughts, Tool int
}

// MarshalJSON writes the usage in the API's shape: counts that are 0 are
// left out, as the API does.
func (u Usage) MarshalJSON() ([]byte, error) {
	m := map[string]int{
		"promptTokenCount":     u.Prompt,
		"candidatesTokenCount": u.Candidates,
		"totalTokenCount":      u.Prompt + u.Candidates + u.Thoughts + u.Tool,
	}
	for k, v := range map[string]int{"cachedContentTokenCount": u.Cached, "thoughtsTokenCount": u.Thoughts, "toolUsePromptTokenCount": u.Tool} {
		if v != 0 {
			m[k] = v
		}
	}
	return json.Marshal(m)
}

// Text is a text part.
func Text(s string) Part { return Part{Text: s} }

// Thought is a thought part (a thought summary).
func Thought(s string) Part { return Part{Text: s, Thought: true} }

// Call calls function name with args, a JSON object (the client gives
// the call its id).
func Call(name, args string) Part {
	return Part{FunctionCall: &FunctionCall{Name: name, Args: json.RawMessage(args)}}
}

// JSONText is a text part holding v as JSON: an answer in JSON mode (the
// router's score).
func JSONText(v any) Part { return Part{Text: string(standin.MustMarshal(v))} }

// check says what is wrong with a scripted reply.
func (r Reply) check() error {
	for i, p := range r.Parts {
		if p.FunctionResponse != nil {
			return fmt.Errorf("part %d: a reply cannot hold a function response", i)
		}
		if c := p.FunctionCall; c != nil {
			var obj map[string]any
			if err := json.Unmarshal(c.Args, &obj); err != nil || c.Name == "" {
				return fmt.Errorf("part %d: a call needs a name and a JSON object of arguments (%s: %v)", i, c.Name, err)
			}
		}
	}
	return nil
}

// usage is the reply's usage; an unset one is made up from the parts.
func (r Reply) usage() Usage {
	if r.Usage != (Usage{}) {
		return r.Usage
	}
	n := len(standin.MustMarshal(r.Parts))
	return Usage{Prompt: 3000 + n%97, Cached: 2000, Candidates: 5 + n/4}
}
