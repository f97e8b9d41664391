package claude

import (
	"github.com/rlog-ls/rlog-ls/convert/claude/records"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

// Detect judges whether an input is a Claude Code transcript from its
// first record: a record type of Claude Code's own (records.Records, or
// this package's session record) or the keys that chain its records
// (uuid, parentUuid, leafUuid) are strong evidence; a message role as the
// type, or a sessionId alone, weak: other formats have those.
func Detect(h *model.Head) model.Evidence {
	typ := h.String("type")
	if _, ok := records.Record(typ); ok && !roleType(typ) || typ == SessionRecord {
		return model.Strong
	}
	if h.Has("uuid", "parentUuid", "leafUuid") {
		return model.Strong
	}
	if roleType(typ) || h.Has("sessionId") {
		return model.Weak
	}
	return model.NoEvidence
}

// roleType reports whether a record type is a message role, which many
// formats use as a type.
func roleType(typ string) bool { return typ == "user" || typ == "assistant" || typ == "system" }
