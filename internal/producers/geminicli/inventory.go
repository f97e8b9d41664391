package geminicli

import (
	"path/filepath"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/gemini/records"
	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
)

// The categories of a Gemini CLI inventory: kinds of record, message
// types, $set keys, tool call statuses. A record's kind (for its fields)
// is header, session, "message/TYPE", "$set" or "$rewindTo".
const (
	RecordKind  = "record"
	MessageType = "message type"
	SetKey      = "$set key"
	ToolStatus  = "tool call status"
)

// fieldRules: deep enough for a tool call's fields and its result
// display's, not into a tool's arguments and result (data) or the
// messages a $set rebuilds (the model's history, not the file's records).
var fieldRules = harness.FieldRules{
	Depth: 4,
	Opaque: map[string]bool{
		"toolCalls[].args": true, "toolCalls[].result": true, "$set.messages": true,
	},
}

// TakeInventory reads every session file under dir (a copy of ~/.gemini).
func TakeInventory(dir string) (*harness.Inventory, error) {
	inv := harness.NewInventory(RecordKind, MessageType, SetKey, ToolStatus)
	files, err := sessionFiles(dir)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		inv.Files++
		recs, err := ReadSessionFile(filepath.Join(dir, f))
		if err != nil {
			return nil, err
		}
		for i, r := range recs {
			kind := recordKind(r, strings.HasSuffix(f, ".json") && i == 0)
			inv.Count(RecordKind, kind)
			switch kind {
			case "message":
				inv.Count(MessageType, r.Message.Type)
				kind += "/" + r.Message.Type
				calls, _ := r.Line["toolCalls"].([]any)
				for _, c := range calls {
					call, _ := c.(map[string]any)
					status, _ := call["status"].(string)
					inv.Count(ToolStatus, status)
				}
			case "$set":
				set, _ := r.Line["$set"].(map[string]any)
				for k := range set {
					inv.Count(SetKey, k)
				}
			}
			inv.AddFields(kind, r.Line, fieldRules)
		}
	}
	return inv, nil
}

// recordKind is what a record is: a header, a message, a control line, or
// the header of a single-JSON session (session).
func recordKind(r SessionRecord, legacyHead bool) string {
	switch {
	case legacyHead:
		return "session"
	case r.Message != nil:
		return "message"
	case r.Line["$set"] != nil:
		return "$set"
	case r.Line["$rewindTo"] != nil:
		return "$rewindTo"
	case r.Line["sessionId"] != nil:
		return "header"
	}
	keys := harness.SortedKeys(r.Line)
	return "{" + strings.Join(keys, ",") + "}"
}

// vocabulary is each category's list in convert/gemini/records.
var vocabulary = harness.VocabularyOf(map[string][]records.Type{
	RecordKind:  records.Records,
	MessageType: records.Messages,
	SetKey:      records.SetKeys,
	ToolStatus:  records.ToolStatuses,
})
