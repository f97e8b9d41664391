package sdkjsonl

import (
	"slices"

	"github.com/rlog-ls/rlog-ls/convert/model"
)

// messageTypes are the Agent SDK message types a line's `type` names (the
// reader passes others through).
var messageTypes = []string{"system", "assistant", "user", "result", "tool_progress", "stream_event", "auth_status"}

// lineKeys are the keys of the wrapper around each SDK message.
var lineKeys = []string{"type", "message", "timestamp"}

// Detect judges whether an input is an SDK JSONL companion: a line of an
// SDK message type with its message is the format's shape; wrapped in
// nothing but the wrapper's keys, it is this format's own. The types are
// role names other formats use too, so with other keys the claim is weak.
func Detect(h *model.Head) model.Evidence {
	if !h.Has("message") || !slices.Contains(messageTypes, h.String("type")) {
		return model.NoEvidence
	}
	if h.HasOnly(lineKeys...) {
		return model.Strong
	}
	return model.Weak
}
