package claudecode

import (
	"strings"

	"github.com/rlog-ls/rlog-ls/internal/producers/anthropic"
	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

// A RequestSummary is one request the stand-in received, in brief: enough
// to see which turn it was and what answered it, small enough to commit.
type RequestSummary struct {
	harness.RequestHead
	Session   string         `json:"session,omitempty"` // the session the CLI names (X-Claude-Code-Session-Id)
	Rule      string         `json:"rule,omitempty"`    // "" for a request no rule matched
	Hit       int            `json:"hit,omitempty"`
	Stream    bool           `json:"stream,omitempty"`
	Model     string         `json:"model,omitempty"`
	Thinking  string         `json:"thinking,omitempty"` // the thinking setting's type
	Tools     int            `json:"tools,omitempty"`
	Messages  int            `json:"messages,omitempty"`
	System    string         `json:"system,omitempty"` // the system prompt's opening
	Last      []BlockSummary `json:"last,omitempty"`   // the last message's blocks
	LastRole  string         `json:"lastRole,omitempty"`
	Answer    []BlockSummary `json:"answer,omitempty"`
	MessageID string         `json:"messageId,omitempty"`
}

// A BlockSummary is a content block in brief.
type BlockSummary struct {
	Type    string `json:"type"`
	Text    string `json:"text,omitempty"` // opening of text, thinking, a tool result's text
	ID      string `json:"id,omitempty"`   // tool_use id, or tool_result's tool_use_id
	Name    string `json:"name,omitempty"`
	IsError bool   `json:"isError,omitempty"`
}

func summarizeBlocks(blocks []anthropic.Block) []BlockSummary {
	var out []BlockSummary
	for _, b := range blocks {
		s := BlockSummary{Type: b.Type}
		switch b.Type {
		case "text":
			s.Text = harness.Excerpt(b.Text, 100)
		case "thinking":
			s.Text = harness.Excerpt(b.Thinking, 100)
		case "tool_use":
			s.ID, s.Name = b.ID, b.Name
		case "tool_result":
			s.ID, s.IsError = b.ToolUseID, b.IsError
			if b.Content != nil {
				s.Text = harness.Excerpt(b.Content.Text(), 100)
			}
		}
		out = append(out, s)
	}
	return out
}

// summarize makes the summary of one exchange.
func summarize(ex standin.Exchange) RequestSummary {
	s := RequestSummary{RequestHead: harness.HeadOf(ex), Rule: ex.Rule, Hit: ex.Hit,
		Session: ex.Header.Get("X-Claude-Code-Session-Id")}
	if ans, ok := ex.Answer.(anthropic.Answer); ok {
		s.Answer = summarizeBlocks(ans.Reply.Content)
		s.MessageID = ans.MessageID
	}
	req, err := anthropic.ParseRequest(ex.Body)
	if err != nil || !strings.HasPrefix(ex.Path, "/v1/messages") {
		return s
	}
	s.Stream, s.Model, s.Tools, s.Messages = req.Stream, req.Model, len(req.Tools), len(req.Messages)
	s.Thinking = req.ThinkingType()
	for _, b := range req.System {
		// The first block is a billing header that changes with the
		// version; the prompt proper follows.
		if b.Type == "text" && !strings.HasPrefix(b.Text, "x-anthropic-billing-header") {
			s.System = harness.Excerpt(b.Text, 80)
			break
		}
	}
	if n := len(req.Messages); n > 0 {
		s.LastRole = req.Messages[n-1].Role
		s.Last = summarizeBlocks(req.Messages[n-1].Content)
	}
	return s
}
