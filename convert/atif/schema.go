package atif

import (
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/model"
)

// Detect judges whether an input is an ATIF trajectory document from its
// root: its steps with a schema_version or an agent is the document's
// shape, and with an ATIF schema_version it names itself; a schema_version
// or an agent with a session id, without the steps (a document cut before
// them), is strong evidence.
func Detect(h *model.Head) model.Evidence {
	switch {
	case h.Has("steps") && strings.HasPrefix(h.String("schema_version"), "ATIF"):
		return model.Certain
	case h.Has("schema_version"), h.Has("agent") && h.Has("steps", "session_id"):
		return model.Strong
	}
	return model.NoEvidence
}

// DetectJSONL judges whether an input is ATIF-JSONL from its first line:
// the `__header__` line names the variant; a step's own keys (step_id with
// source), a headerless file, are strong evidence.
func DetectJSONL(h *model.Head) model.Evidence {
	switch {
	case h.Has("__header__"):
		return model.Certain
	case h.Has("step_id") && h.Has("source"):
		return model.Strong
	}
	return model.NoEvidence
}
