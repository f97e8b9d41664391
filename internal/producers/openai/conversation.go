package openai

import (
	"strings"

	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

// contextOpenings start the user messages a client adds as context (the
// environment, instructions), not what the user said.
var contextOpenings = []string{"<environment_context>", "<user_instructions>", "# AGENTS.md instructions"}

// Conversation is the conversation a request carries, reduced to roles
// and parts: the user's messages (without the client's context messages
// and without developer messages), the assistant's messages, reasoning
// (summary and encrypted content), calls with canonical arguments, call
// outputs (role "tool") and agent messages (role "agent"), consecutive
// items of one role joined.
func Conversation(r *Request) []standin.Turn {
	var turns []standin.Turn
	for _, it := range r.Input {
		role, p, ok := part(it)
		if !ok {
			continue
		}
		turns = standin.AppendTurn(turns, standin.Turn{Role: role, Parts: []standin.Part{p}})
	}
	return turns
}

// AnswerTurn is a stand-in's answer as the assistant turn a client sends
// back afterwards.
func AnswerTurn(r Reply) standin.Turn {
	t := standin.Turn{Role: "assistant"}
	for _, it := range r.Items {
		if _, p, ok := part(it); ok {
			t.Parts = append(t.Parts, p)
		}
	}
	return t
}

func part(it Item) (role string, p standin.Part, ok bool) {
	p = standin.Part{Type: it.Type}
	switch it.Type {
	case "message":
		if it.Role == "developer" || it.Role == "system" {
			return "", p, false
		}
		p.Text = it.Text()
		if it.Role == "user" {
			for _, o := range contextOpenings {
				if strings.HasPrefix(strings.TrimSpace(p.Text), o) {
					return "", p, false
				}
			}
		}
		return it.Role, p, true
	case "reasoning":
		p.Text, p.Data = it.Text(), it.Encrypted
		return "assistant", p, true
	case "function_call":
		p.ID, p.Name, p.Input = it.CallID, it.Name, standin.Canonical([]byte(it.Arguments))
		if it.Namespace != "" {
			p.Name = it.Namespace + "." + it.Name
		}
		return "assistant", p, true
	case "custom_tool_call":
		p.ID, p.Name, p.Input = it.CallID, it.Name, it.Input
		return "assistant", p, true
	case "function_call_output", "custom_tool_call_output":
		p.ID, p.Text = it.CallID, it.OutputText()
		return "tool", p, true
	case "agent_message":
		p.Name, p.Text = it.Author+" → "+it.Recipient, it.Text()
		return "agent", p, true
	default:
		p.Input = standin.Canonical(standin.MustMarshal(it))
		return "other", p, true
	}
}
