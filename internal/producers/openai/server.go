package openai

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

// A Rule answers the requests its matcher accepts with its reply.
type Rule = standin.Rule[*Request, Reply]

// Unscripted is what the stand-in answers a request no rule matches, so
// that the client finishes and the harness can say which request was not
// foreseen (its exchange has no rule).
var Unscripted = Reply{Items: []Item{Message("(the stand-in has no scripted answer for this request)")}}

// StandIn serves a script of rules.
type StandIn struct {
	*standin.API[*Request, Reply]
}

// Answer is what the stand-in answered one Responses request: the
// response's id and the reply with the ids its items were given.
type Answer struct {
	ResponseID string
	Reply      Reply
}

// Start checks the rules and serves them on 127.0.0.1.
func Start(rules []Rule) (*StandIn, error) {
	return standin.StartAPI(rules, Reply.check, func(a *standin.API[*Request, Reply]) *StandIn { return &StandIn{a} }, (*StandIn).handle)
}

// URL is the API's base URL to give the client (its /v1 included).
func (s *StandIn) URL() string { return s.Server.URL + "/v1" }

func (s *StandIn) handle(ex *standin.Exchange, w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/responses" {
		writeError(w, http.StatusNotFound, "not_found", "the stand-in does not serve "+r.Method+" "+r.URL.Path)
		return
	}
	req, err := ParseRequest(ex.Body, ex.Header)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "the stand-in cannot read the request: "+err.Error())
		return
	}
	reply, id := s.Pick(ex, req, Unscripted)
	ans := Answer{ResponseID: "resp_" + id, Reply: Sent(reply, "resp_"+id)}
	ex.Answer = ans
	if reply.Status != 0 && reply.Status != http.StatusOK {
		writeError(w, reply.Status, errorType(reply.Status), reply.ErrorCode)
		return
	}
	writeStream(w, req.Model, ans)
}

// Sent is the reply as the stand-in sends it in the response responseID
// (resp_RULE_NN): each output item with an id made from the response's,
// rs_, msg_, fc_ or ctc_ and the item's index, so they are the same on
// every run, and a reasoning item with made-up encrypted content.
func Sent(r Reply, responseID string) Reply {
	id := strings.TrimPrefix(responseID, "resp_")
	prefix := map[string]string{"reasoning": "rs", "message": "msg", "function_call": "fc", "custom_tool_call": "ctc"}
	items := make([]Item, len(r.Items))
	for i, it := range r.Items {
		it.ID = fmt.Sprintf("%s_%s_%d", prefix[it.Type], id, i)
		if it.Type == "reasoning" {
			it.Encrypted = "stand-in-encrypted-" + it.ID
		}
		items[i] = it
	}
	r.Items = items
	return r
}

// writeStream sends the answer as the API streams it: response.created
// and response.in_progress, then each item as response.output_item.added,
// its parts and deltas (text, reasoning summary, arguments, custom input,
// each in two pieces) and response.output_item.done, then
// response.completed with the usage, or response.failed.
func writeStream(w http.ResponseWriter, model string, ans Answer) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("x-request-id", "req_"+strings.TrimPrefix(ans.ResponseID, "resp_"))
	w.WriteHeader(http.StatusOK)
	seq := 0
	ev := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		standin.SSE(w, typ, fields)
	}
	response := func(status string, output []Item) map[string]any {
		if output == nil {
			output = []Item{}
		}
		return map[string]any{"id": ans.ResponseID, "object": "response", "created_at": 1767225600,
			"model": model, "status": status, "output": output}
	}
	ev("response.created", map[string]any{"response": response("in_progress", nil)})
	ev("response.in_progress", map[string]any{"response": response("in_progress", nil)})
	for i, it := range ans.Reply.Items {
		at := func(fields map[string]any) map[string]any {
			fields["item_id"], fields["output_index"] = it.ID, i
			return fields
		}
		start := it
		switch it.Type {
		case "reasoning":
			start.Summary, start.Encrypted = []ContentPart{}, ""
		case "message":
			start.Content = []ContentPart{}
		case "function_call":
			start.Arguments = ""
		case "custom_tool_call":
			start.Input = ""
		}
		ev("response.output_item.added", map[string]any{"output_index": i, "item": itemJSON(start, "in_progress")})
		switch it.Type {
		case "reasoning":
			text := it.Summary[0].Text
			ev("response.reasoning_summary_part.added", at(map[string]any{"summary_index": 0, "part": map[string]any{"type": "summary_text", "text": ""}}))
			for _, p := range standin.Halves(text) {
				ev("response.reasoning_summary_text.delta", at(map[string]any{"summary_index": 0, "delta": p}))
			}
			ev("response.reasoning_summary_text.done", at(map[string]any{"summary_index": 0, "text": text}))
			ev("response.reasoning_summary_part.done", at(map[string]any{"summary_index": 0, "part": map[string]any{"type": "summary_text", "text": text}}))
		case "message":
			text := it.Content[0].Text
			ev("response.content_part.added", at(map[string]any{"content_index": 0, "part": outputText("")}))
			for _, p := range standin.Halves(text) {
				ev("response.output_text.delta", at(map[string]any{"content_index": 0, "delta": p}))
			}
			ev("response.output_text.done", at(map[string]any{"content_index": 0, "text": text}))
			ev("response.content_part.done", at(map[string]any{"content_index": 0, "part": outputText(text)}))
		case "function_call":
			for _, p := range standin.Halves(it.Arguments) {
				ev("response.function_call_arguments.delta", at(map[string]any{"delta": p}))
			}
			ev("response.function_call_arguments.done", at(map[string]any{"arguments": it.Arguments}))
		case "custom_tool_call":
			for _, p := range standin.Halves(it.Input) {
				ev("response.custom_tool_call_input.delta", at(map[string]any{"delta": p}))
			}
			ev("response.custom_tool_call_input.done", at(map[string]any{"input": it.Input}))
		}
		ev("response.output_item.done", map[string]any{"output_index": i, "item": itemJSON(it, "completed")})
	}
	var done []any
	for _, it := range ans.Reply.Items {
		done = append(done, itemJSON(it, "completed"))
	}
	if ans.Reply.FailStream != "" {
		failed := response("failed", nil)
		failed["output"] = done
		failed["error"] = map[string]string{"code": "server_error", "message": ans.Reply.FailStream}
		ev("response.failed", map[string]any{"response": failed})
		return
	}
	completed := response("completed", nil)
	completed["output"] = done
	completed["usage"] = ans.Reply.usage()
	ev("response.completed", map[string]any{"response": completed})
}

// itemJSON is an output item as the API shows it: a status on messages
// and calls, annotations on output text.
func itemJSON(it Item, status string) map[string]any {
	var m map[string]any
	json.Unmarshal(standin.MustMarshal(it), &m)
	if it.Type != "reasoning" {
		m["status"] = status
	}
	switch it.Type {
	case "reasoning":
		if _, ok := m["summary"]; !ok {
			m["summary"] = []any{}
		}
	case "message":
		var parts []any
		for _, c := range it.Content {
			parts = append(parts, outputText(c.Text))
		}
		if parts == nil {
			parts = []any{}
		}
		m["content"] = parts
	case "function_call":
		m["arguments"] = it.Arguments
	case "custom_tool_call":
		m["input"] = it.Input
	}
	return m
}

func outputText(text string) map[string]any {
	return map[string]any{"type": "output_text", "text": text, "annotations": []any{}}
}

func writeError(w http.ResponseWriter, status int, typ, code string) {
	msg := "stand-in: scripted failure"
	if code == "context_length_exceeded" {
		msg = "Your input exceeds the context window of this model."
	}
	standin.WriteJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": code, "param": nil}})
}

func errorType(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status >= 500:
		return "server_error"
	default:
		return "invalid_request_error"
	}
}
