// Package gemini reads Gemini CLI's sessions
// (~/.gemini/tmp/PROJECT/chats/session-TIME-ID8.jsonl, a sub-agent's in
// chats/SESSION_ID/AGENT_ID.jsonl, or one JSON document in versions before
// 0.39): its name, detection and reader. Its record vocabulary is in
// records. There is no writer (see docs/conversions.md).
package gemini

import "github.com/rlog-ls/rlog-ls/convert/model"

// Name is the format name used by the CLI.
const Name = "gemini"

// Detect judges whether an input is a Gemini CLI session from its first
// record, the header line of the JSONL form or the root of the JSON form
// ({sessionId, projectHash, startTime, lastUpdated, kind, …}): the
// session's id with the project's hash is strong evidence.
func Detect(h *model.Head) model.Evidence {
	if h.Has("sessionId") && h.Has("projectHash") {
		return model.Strong
	}
	return model.NoEvidence
}
