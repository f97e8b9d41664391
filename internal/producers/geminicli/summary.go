package geminicli

import (
	"encoding/json"

	"github.com/rlog-ls/rlog-ls/internal/producers/gemini"
	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

// A RequestSummary is one request the stand-in received, in brief: enough
// to see which turn it was and what answered it, small enough to commit.
type RequestSummary struct {
	harness.RequestHead
	Rule     string        `json:"rule,omitempty"` // "" for a request no rule matched
	Hit      int           `json:"hit,omitempty"`
	Model    string        `json:"model,omitempty"`
	Tools    int           `json:"tools,omitempty"` // functions declared
	Contents int           `json:"contents,omitempty"`
	System   string        `json:"system,omitempty"` // the system instruction's opening
	Last     []PartSummary `json:"last,omitempty"`   // the last content's parts
	LastRole string        `json:"lastRole,omitempty"`
	Answer   []PartSummary `json:"answer,omitempty"`
	Response string        `json:"responseId,omitempty"`
}

// A PartSummary is a part in brief.
type PartSummary struct {
	Type string `json:"type"` // text, thought, functionCall, functionResponse
	Text string `json:"text,omitempty"`
	Name string `json:"name,omitempty"`
}

func summarizeParts(parts []gemini.Part) []PartSummary {
	var out []PartSummary
	for _, p := range parts {
		s := PartSummary{Type: "text", Text: harness.Excerpt(p.Text, 100)}
		switch {
		case p.Thought:
			s.Type = "thought"
		case p.FunctionCall != nil:
			s = PartSummary{Type: "functionCall", Name: p.FunctionCall.Name, Text: harness.Excerpt(string(p.FunctionCall.Args), 100)}
		case p.FunctionResponse != nil:
			s = PartSummary{Type: "functionResponse", Name: p.FunctionResponse.Name, Text: harness.Excerpt(responseText(p.FunctionResponse.Response), 100)}
		}
		out = append(out, s)
	}
	return out
}

// responseText is a function response's output or error, else its JSON.
func responseText(raw json.RawMessage) string {
	var r struct{ Output, Error string }
	if json.Unmarshal(raw, &r) == nil && r.Output+r.Error != "" {
		return r.Output + r.Error
	}
	return string(raw)
}

// summarize makes the summary of one exchange.
func summarize(ex standin.Exchange) RequestSummary {
	s := RequestSummary{RequestHead: harness.HeadOf(ex), Rule: ex.Rule, Hit: ex.Hit}
	if ans, ok := ex.Answer.(gemini.Answer); ok {
		s.Answer = summarizeParts(ans.Reply.Parts)
		s.Response = ans.ResponseID
	}
	req, err := gemini.ParseRequest(ex.URLPath(), ex.Body)
	if err != nil {
		return s
	}
	s.Model, s.Tools, s.Contents = req.Model, len(req.Declared()), len(req.Contents)
	if req.SystemInstruction != nil {
		s.System = harness.Excerpt(req.SystemInstruction.Text(), 60)
	}
	if n := len(req.Contents); n > 0 {
		s.LastRole = req.Contents[n-1].Role
		s.Last = summarizeParts(req.Contents[n-1].Parts)
	}
	return s
}
