package standin

import (
	"fmt"
	"net/http"
	"unicode/utf8"
)

// SSE writes one server-sent event, data as JSON, and flushes it so the
// client sees it at once; an empty name writes the data line alone (the
// Gemini API's events have no names).
func SSE(w http.ResponseWriter, name string, data any) {
	if name != "" {
		fmt.Fprintf(w, "event: %s\n", name)
	}
	fmt.Fprintf(w, "data: %s\n\n", MustMarshal(data))
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// Halves splits s in two at a character boundary (one piece when short):
// streamed text arrives in more than one delta, as from a real API.
func Halves(s string) []string {
	if len(s) < 2 {
		return []string{s}
	}
	mid := len(s) / 2
	for mid > 0 && !utf8.RuneStart(s[mid]) {
		mid--
	}
	if mid == 0 {
		return []string{s}
	}
	return []string{s[:mid], s[mid:]}
}

// WriteJSON answers with status and v as JSON.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(MustMarshal(v))
}
