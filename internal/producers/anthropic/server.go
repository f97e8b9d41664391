package anthropic

import (
	"encoding/json"
	"net/http"

	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

// A Rule answers the requests its matcher accepts with its reply.
type Rule = standin.Rule[*Request, Reply]

// Unscripted is what the stand-in answers a Messages request no rule
// matches, so that the client finishes and the harness can say which
// request was not foreseen (its exchange has no rule).
var Unscripted = Reply{Content: []Block{Text("(the stand-in has no scripted answer for this request)")}}

// StandIn serves a script of rules.
type StandIn struct {
	*standin.API[*Request, Reply]
}

// Answer is what the stand-in answered one Messages request.
type Answer struct {
	MessageID string
	RequestID string
	Reply     Reply
}

// Start checks the rules and serves them on 127.0.0.1.
func Start(rules []Rule) (*StandIn, error) {
	return standin.StartAPI(rules, Reply.check, func(a *standin.API[*Request, Reply]) *StandIn { return &StandIn{a} }, (*StandIn).handle)
}

// URL is the base URL to give the client (ANTHROPIC_BASE_URL).
func (s *StandIn) URL() string { return s.Server.URL }

func (s *StandIn) handle(ex *standin.Exchange, w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	switch {
	case r.Method == http.MethodPost && path == "/v1/messages/count_tokens":
		// A stable figure of the request's size.
		standin.WriteJSON(w, http.StatusOK, map[string]int{"input_tokens": len(ex.Body) / 4})
	case r.Method == http.MethodPost && path == "/v1/messages":
		s.messages(ex, w)
	default:
		writeError(w, http.StatusNotFound, "not_found_error", "the stand-in does not serve "+r.Method+" "+path)
	}
}

func (s *StandIn) messages(ex *standin.Exchange, w http.ResponseWriter) {
	req, err := ParseRequest(ex.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "the stand-in cannot read the request: "+err.Error())
		return
	}
	reply, id := s.Pick(ex, req, Unscripted)
	ans := Answer{MessageID: "msg_" + id, RequestID: "req_" + id, Reply: reply}
	ex.Answer = ans
	if reply.Status != 0 && reply.Status != http.StatusOK {
		writeError(w, reply.Status, errorType(reply.Status), "scripted failure")
		return
	}
	w.Header().Set("request-id", ans.RequestID)
	msg := message{ID: ans.MessageID, Type: "message", Role: "assistant", Model: req.Model,
		Content: reply.Content, StopReason: reply.stopReason(), Usage: reply.usage()}
	if !req.Stream {
		standin.WriteJSON(w, http.StatusOK, msg)
		return
	}
	writeStream(w, msg)
}

// message is an answer in the API's shape.
type message struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Role         string  `json:"role"`
	Model        string  `json:"model"`
	Content      []Block `json:"content"`
	StopReason   string  `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	Usage        Usage   `json:"usage"`
}

// writeStream sends msg as the API streams it: message_start (usage so
// far), a ping, each block as content_block_start, its deltas (text and
// thinking in two pieces, a signature, a tool's input JSON in two
// pieces) and content_block_stop, message_delta with the stop reason and
// the final usage, message_stop.
func writeStream(w http.ResponseWriter, msg message) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	start := msg
	start.Content = []Block{}
	start.StopReason = ""
	start.Usage.Output = 1
	standin.SSE(w, "message_start", map[string]any{"type": "message_start", "message": startMessage(start)})
	standin.SSE(w, "ping", map[string]any{"type": "ping"})
	for i, b := range msg.Content {
		var first Block
		var deltas []map[string]any
		switch b.Type {
		case "text":
			first = Block{Type: "text"}
			for _, p := range standin.Halves(b.Text) {
				deltas = append(deltas, map[string]any{"type": "text_delta", "text": p})
			}
		case "thinking":
			first = Block{Type: "thinking"}
			for _, p := range standin.Halves(b.Thinking) {
				deltas = append(deltas, map[string]any{"type": "thinking_delta", "thinking": p})
			}
			deltas = append(deltas, map[string]any{"type": "signature_delta", "signature": b.Signature})
		case "redacted_thinking":
			first = b
		case "tool_use":
			first = Block{Type: "tool_use", ID: b.ID, Name: b.Name, Input: json.RawMessage(`{}`)}
			for _, p := range standin.Halves(string(b.Input)) {
				deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": p})
			}
		}
		standin.SSE(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": blockStart(first)})
		for _, d := range deltas {
			standin.SSE(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d})
		}
		standin.SSE(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	standin.SSE(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": msg.StopReason, "stop_sequence": nil}, "usage": msg.Usage})
	standin.SSE(w, "message_stop", map[string]any{"type": "message_stop"})
}

// startMessage is message_start's message: stop_reason null.
func startMessage(m message) map[string]any {
	return map[string]any{"id": m.ID, "type": m.Type, "role": m.Role, "model": m.Model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": m.Usage}
}

// blockStart is a block as content_block_start shows it: empty text and
// thinking, a tool's input {}, a redacted block whole.
func blockStart(b Block) map[string]any {
	switch b.Type {
	case "text":
		return map[string]any{"type": "text", "text": ""}
	case "thinking":
		return map[string]any{"type": "thinking", "thinking": "", "signature": ""}
	case "redacted_thinking":
		return map[string]any{"type": "redacted_thinking", "data": b.Data}
	default:
		return map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}
	}
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	standin.WriteJSON(w, status, map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}})
}

func errorType(status int) string {
	switch status {
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	case http.StatusBadRequest:
		return "invalid_request_error"
	default:
		return "api_error"
	}
}
