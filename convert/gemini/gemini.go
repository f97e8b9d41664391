// Package gemini is Gemini CLI's session format
// (~/.gemini/tmp/PROJECT/chats/session-TIME-ID8.jsonl, or one JSON
// document in older versions): its name and detection. It has no reader
// yet; its record vocabulary is in records.
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
