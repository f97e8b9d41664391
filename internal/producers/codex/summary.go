package codex

import (
	"strings"

	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
	"github.com/rlog-ls/rlog-ls/internal/producers/openai"
	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

// A RequestSummary is one request the stand-in received, in brief: enough
// to see which turn it was and what answered it, small enough to commit.
type RequestSummary struct {
	harness.RequestHead
	Thread string `json:"thread,omitempty"` // the thread asking (Thread-Id)
	Agent  string `json:"agent,omitempty"`  // the agent asking, from X-Codex-Turn-Metadata (/root, /root/TASK)
	Kind   string `json:"kind,omitempty"`   // turn or compaction
	Rule   string `json:"rule,omitempty"`   // "" for a request no rule matched
	Hit    int    `json:"hit,omitempty"`
	Model  string `json:"model,omitempty"`
	Tools  int    `json:"tools,omitempty"`
	// Input is the number of input items; Last the last ones since the
	// last item the model wrote (what the turn answers), at most
	// lastItems of them.
	Input      int           `json:"input,omitempty"`
	Last       []ItemSummary `json:"last,omitempty"`
	Answer     []ItemSummary `json:"answer,omitempty"`
	ResponseID string        `json:"responseId,omitempty"`
}

// lastItems bounds RequestSummary.Last.
const lastItems = 2

// An ItemSummary is an input or output item in brief.
type ItemSummary struct {
	Type string `json:"type"`
	Role string `json:"role,omitempty"`
	Text string `json:"text,omitempty"` // the opening of its text
	ID   string `json:"id,omitempty"`   // call_id
	Name string `json:"name,omitempty"`
}

func summarizeItems(items []openai.Item) []ItemSummary {
	var out []ItemSummary
	for _, it := range items {
		s := ItemSummary{Type: it.Type, Role: it.Role, ID: it.CallID, Name: it.Name, Text: harness.Excerpt(it.Text(), 100)}
		if it.Namespace != "" {
			s.Name = it.Namespace + "." + it.Name
		}
		out = append(out, s)
	}
	return out
}

// summarize makes the summary of one exchange.
func summarize(ex standin.Exchange) RequestSummary {
	s := RequestSummary{RequestHead: harness.HeadOf(ex), Rule: ex.Rule, Hit: ex.Hit,
		Thread: ex.Header.Get("Thread-Id")}
	if ans, ok := ex.Answer.(openai.Answer); ok {
		s.Answer = summarizeItems(ans.Reply.Items)
		s.ResponseID = ans.ResponseID
	}
	req, err := openai.ParseRequest(ex.Body, ex.Header)
	if err != nil || !strings.HasPrefix(ex.Path, "/v1/responses") {
		return s
	}
	md := req.Metadata()
	s.Agent, s.Kind = md.AgentName, md.RequestKind
	s.Model, s.Tools, s.Input = req.Model, len(req.ToolNames()), len(req.Input)
	from := len(req.Input)
	for from > 0 && len(req.Input)-from < lastItems && !isOutputItem(req.Input[from-1]) {
		from--
	}
	s.Last = summarizeItems(req.Input[from:])
	return s
}

// isOutputItem says whether an input item is one the model wrote.
func isOutputItem(it openai.Item) bool {
	switch it.Type {
	case "reasoning", "function_call", "custom_tool_call":
		return true
	case "message":
		return it.Role == "assistant"
	}
	return false
}
