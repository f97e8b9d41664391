package gemini

import (
	"net/http"

	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

// A Rule answers the requests its matcher accepts with its reply.
type Rule = standin.Rule[*Request, Reply]

// Unscripted is what the stand-in answers a request no rule matches, so
// that the client finishes and the harness can say which request was not
// foreseen (its exchange has no rule).
var Unscripted = Reply{Parts: []Part{Text("(the stand-in has no scripted answer for this request)")}}

// StandIn serves a script of rules.
type StandIn struct {
	*standin.API[*Request, Reply]
}

// Answer is what the stand-in answered one generate request.
type Answer struct {
	ResponseID string
	Reply      Reply
}

// Start checks the rules and serves them on 127.0.0.1.
func Start(rules []Rule) (*StandIn, error) {
	return standin.StartAPI(rules, Reply.check, func(a *standin.API[*Request, Reply]) *StandIn { return &StandIn{a} }, (*StandIn).handle)
}

// URL is the base URL to give the client (GOOGLE_GEMINI_BASE_URL).
func (s *StandIn) URL() string { return s.Server.URL }

func (s *StandIn) handle(ex *standin.Exchange, w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeError(w, http.StatusNotFound, "the stand-in does not serve "+r.Method+" "+r.URL.Path)
		return
	}
	req, err := ParseRequest(r.URL.Path, ex.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "the stand-in cannot read the request: "+err.Error())
		return
	}
	switch req.Method {
	case "countTokens":
		// A stable figure of the request's size.
		standin.WriteJSON(w, http.StatusOK, map[string]int{"totalTokens": len(ex.Body) / 4})
		return
	case "generateContent", "streamGenerateContent":
	default:
		writeError(w, http.StatusNotFound, "the stand-in does not serve "+req.Method)
		return
	}
	reply, id := s.Pick(ex, req, Unscripted)
	ans := Answer{ResponseID: id, Reply: reply}
	ex.Answer = ans
	if reply.Status != 0 && reply.Status != http.StatusOK {
		writeError(w, reply.Status, "scripted failure")
		return
	}
	chunk := func(parts []Part, last bool) map[string]any {
		if parts == nil {
			parts = []Part{}
		}
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		out := map[string]any{"candidates": []any{cand}, "modelVersion": req.Model, "responseId": ans.ResponseID}
		if last {
			cand["finishReason"] = "STOP"
			out["usageMetadata"] = reply.usage()
		}
		return out
	}
	if req.Method == "generateContent" {
		standin.WriteJSON(w, http.StatusOK, chunk(reply.Parts, true))
		return
	}
	// One part a chunk, the finish reason and usage on the last.
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if len(reply.Parts) == 0 {
		standin.SSE(w, "", chunk(nil, true))
	}
	for i, p := range reply.Parts {
		standin.SSE(w, "", chunk([]Part{p}, i == len(reply.Parts)-1))
	}
}

// writeError answers in the API's error shape: code, message and the
// status's name.
func writeError(w http.ResponseWriter, status int, msg string) {
	name := map[int]string{400: "INVALID_ARGUMENT", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}[status]
	if name == "" {
		name = "UNKNOWN"
	}
	standin.WriteJSON(w, status, map[string]any{"error": map[string]any{"code": status, "message": "stand-in: " + msg, "status": name}})
}
