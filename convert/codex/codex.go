// Package codex is Codex CLI's rollout format
// (CODEX_HOME/sessions/YYYY/MM/DD/rollout-TIME-THREAD.jsonl): its name and
// detection. It has no reader yet; its record vocabulary is in records.
package codex

import (
	"github.com/rlog-ls/rlog-ls/convert/codex/records"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

// Name is the format name used by the CLI.
const Name = "codex"

// Detect judges whether an input is a Codex CLI rollout from its first
// line, {timestamp, [ordinal,] type, payload}: a line type of the rollout
// vocabulary with its payload is strong evidence, the type alone weak.
func Detect(h *model.Head) model.Evidence {
	if _, ok := records.Line(h.String("type")); !ok {
		return model.NoEvidence
	}
	if h.Has("payload") {
		return model.Strong
	}
	return model.Weak
}
