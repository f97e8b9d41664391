package analysis

import (
	"bytes"
	"strings"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// Masking: what differs between any two runs of the same behaviour (ids,
// timestamps, token counts, latencies, durations, costs, signatures, the
// folder the session ran in) is replaced by a placeholder, so that two
// sessions' rlog views, masked, differ only where the agents did
// something else. `rlog-ls compare --masked` and the server's
// rlog/maskedView (VS Code's Compare With…) both mask with MaskLine.

// Masked is what a masked value becomes.
const Masked = "…"

// MaskedCwd is what the session's folder becomes wherever a line names it.
const MaskedCwd = "{cwd}"

// maskedKey reports whether a body line's key=value is masked: every key
// that refers to an id (id=, message_id=, tid=, uuid= ...), the times
// (ts=, latency_ms=, duration_ms=), the usage (tokens_*=, pre_tokens=,
// post_tokens=), cost_usd= and sig=.
func maskedKey(k grammar.Key) bool {
	if k.IsRef() || k.IsUsage() {
		return true
	}
	switch k {
	case grammar.KeyTS, grammar.KeyLatency, grammar.KeyDurationMS, grammar.KeyCostUSD, grammar.KeySig,
		grammar.KeyPreTokens, grammar.KeyPostTokens:
		return true
	}
	return false
}

// maskedHeaderField reports whether a header field's value is masked: the
// session's id and every other id, its token totals, its cost, duration
// and times.
func maskedHeaderField(name string) bool {
	switch name {
	case "id", "duration", "started", "ended", "context_window", "projectHash":
		return true
	}
	return strings.HasSuffix(name, "_id") || strings.HasSuffix(name, "Id") || strings.HasPrefix(name, "tokens_") ||
		strings.HasPrefix(name, "cost")
}

// MaskLine appends line n of t to dst, masked: the values of the masked
// keys (and header fields) replaced by Masked, and cwd (the session's
// folder, "" for none) by MaskedCwd wherever it appears. The line's end is
// not appended.
func MaskLine(dst []byte, t *grammar.Tree, n int, cwd string) []byte {
	li, text := t.Info(n)
	start := len(dst)
	at := 0
	for _, tok := range grammar.Tokenize(text, &li) {
		switch tok.Kind {
		case grammar.TokValue, grammar.TokString, grammar.TokJSON:
			k, ok := grammar.KeyOf(text[tok.Key.Start:tok.Key.End])
			if !ok || !maskedKey(k) {
				continue
			}
		case grammar.TokHeaderValue:
			if !maskedHeaderField(headerKeyOf(text, tok.Span.Start)) {
				continue
			}
		default:
			continue
		}
		dst = append(dst, text[at:tok.Span.Start]...)
		dst = append(dst, Masked...)
		at = tok.Span.End
	}
	dst = append(dst, text[at:]...)
	if cwd = strings.TrimRight(cwd, "/"); len(cwd) > 1 && bytes.Contains(dst[start:], []byte(cwd)) {
		masked := bytes.ReplaceAll(dst[start:], []byte(cwd), []byte(MaskedCwd))
		dst = append(dst[:start], masked...)
	}
	return dst
}

// headerKeyOf is the key of the header line text whose value starts at
// valueStart: what comes before its colon.
func headerKeyOf(text []byte, valueStart int) string {
	key, _, _ := bytes.Cut(text[:valueStart], []byte(":"))
	return string(bytes.TrimSpace(key))
}

// Mask appends every line of t (a document, or a window of one read by
// grammar.Stream) to dst, masked by MaskLine, each ended by a newline.
// cwd is the session's folder, its header's cwd.
func Mask(dst []byte, t *grammar.Tree, cwd string) []byte {
	for l := range t.Lines() {
		dst = append(MaskLine(dst, t, l.Num, cwd), '\n')
	}
	return dst
}
