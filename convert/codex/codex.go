// Package codex reads Codex CLI's rollouts
// (CODEX_HOME/sessions/YYYY/MM/DD/rollout-TIME-THREAD.jsonl): one line
// {timestamp, ordinal, type, payload} each, a thread's session_meta, its
// turns' settings (turn_context), the conversation as the model sees it
// (response_item), the client's events (event_msg), compactions, and one
// token_usage_record per API response. Its record vocabulary is in
// records; docs/conversions.md says what each record becomes.
package codex

import (
	"github.com/rlog-ls/rlog-ls/convert/codex/records"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

// Name is the format name used by the CLI.
const Name = "codex"

// Detect judges whether an input is a Codex CLI rollout from its first
// line, {timestamp, [ordinal,] type, payload}: a line type of the rollout
// vocabulary with its payload is strong evidence, the type alone weak; so
// is the earliest rollouts' bare session header, {id, timestamp,
// instructions[, git]}.
func Detect(h *model.Head) model.Evidence {
	if _, ok := records.Line(h.String("type")); !ok {
		if h.Has("instructions") && h.String("id") != "" && h.String("timestamp") != "" && h.HasOnly("id", "timestamp", "instructions", "git") {
			return model.Weak
		}
		return model.NoEvidence
	}
	if h.Has("payload") {
		return model.Strong
	}
	return model.Weak
}
