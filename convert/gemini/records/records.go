// Package records is the one home of the record vocabulary Gemini CLI
// writes in its sessions (~/.gemini/tmp/PROJECT/chats/session-TIME-ID8.jsonl,
// a sub-agent's in chats/PARENT_ID/CHILD_ID.jsonl, and the older
// single-JSON session-TIME-ID8.json): the kinds of record, the message
// types, the keys a $set control line sets, and the statuses of a tool
// call. Each is listed with what it holds, as the pinned version (Version)
// writes it in the producer harness's scenarios (the single-JSON form as
// LegacyVersion writes it), or as the CLI's sources define it.
//
// The Gemini CLI reader gives each a meaning from here; the harness
// (internal/producers/geminicli) fails when a recorded session holds a
// name not listed, and the fixtures' test when a name marked Recorded is
// missing from the recorded fixtures (testdata/agents/gemini-cli/), so the
// lists stay exact both ways.
package records

// Version is the Gemini CLI release the Recorded marks were made from;
// LegacyVersion the release that wrote the single-JSON sessions recorded.
const (
	Version       = "0.61.0"
	LegacyVersion = "0.38.2"
)

// A Type is one name of the vocabulary.
type Type struct {
	Name  string
	About string // what the record holds
	// Recorded says a recorded scenario holds it; the others come from
	// the CLI's sources or interactive use.
	Recorded bool
}

// Records are the kinds of record.
var Records = []Type{
	{"header", "A JSONL file's first line: sessionId, projectHash, startTime, lastUpdated, kind (main or subagent), for a sub-agent directories. A resume writes one again, with a new startTime, in the file it goes on in; a migrated single-JSON session's first JSONL header has the old startTime.", true},
	{"message", "A message: id, timestamp, type (Messages), content (a string, or a list of parts: text, functionResponse). A gemini message is written again with the same id once its tool calls finish: keep the last line of each id.", true},
	{"$set", "A control line {\"$set\": {…}} setting session fields (SetKeys); $set.messages replaces the list of messages the model sees (at start, at a resume, after a compression, after a failed request), rebuilt from the API history without tokens, thoughts or tool calls.", true},
	{"$rewindTo", "A control line {\"$rewindTo\": MESSAGE_ID}: the conversation goes back to before that message, which with the messages after it is taken out (interactive /rewind; the CLI's loader reads it so).", false},
	{"session", "The older single-JSON form (" + LegacyVersion + " and before): one pretty-printed document {sessionId, projectHash, startTime, lastUpdated, kind, messages[]}; its messages as the JSONL form's, without the tool results' user messages and the session context. " + Version + " reads it and goes on in a .jsonl of the same name beside it, leaving it as it was.", true},
}

// Messages are the values of a message's type.
var Messages = []Type{
	{"user", "The user's prompt (content [{text}]), the session context the CLI sends first (<session_context>…), the tool results (content [{functionResponse: {id, name, response: {output} or {error}}}]), or a sub-agent's final-chance reminder.", true},
	{"gemini", "A model answer: content (text), thoughts [{subject, description, timestamp}], tokens {input (the prompt, cached included), output, cached, thoughts, tool, total}, model, and toolCalls [{id, name, args, result, status (ToolStatuses), resultDisplay, displayName, description, agentId for a sub-agent's invoke_agent}] once the calls finished.", true},
	{"info", "An informational message the CLI shows (interactive).", false},
	{"error", "An error the CLI shows (interactive).", false},
	{"warning", "A warning the CLI shows (interactive).", false},
}

// SetKeys are the keys a $set line sets.
var SetKeys = []Type{
	{"messages", "The messages the model sees, replacing the list (see $set).", true},
	{"lastUpdated", "When the session last changed, after each new message.", true},
	{"sessionId", "The session's id, set when a run resumes it.", true},
	{"summary", "The session's one-line summary (from --list-sessions, which asks the model), or a sub-agent's result at the end of its file.", true},
	{"memoryScratchpad", "What the session did, for the CLI's memory: workflowSummary, toolSequence, touchedPaths.", true},
}

// ToolStatuses are the values of a tool call's status.
var ToolStatuses = []Type{
	{"success", "The tool ran; a shell command that exits non-zero is a success whose output says the exit code.", true},
	{"error", "The tool failed (a file not found), or is not offered in the approval mode or does not exist (Tool \"NAME\" not found).", true},
	{"cancelled", "The user cancelled the call (interactive).", false},
}

// find is the entry of list called name.
func find(list []Type, name string) (Type, bool) {
	for _, t := range list {
		if t.Name == name {
			return t, true
		}
	}
	return Type{}, false
}

// Record, Message, SetKey and ToolStatus look a name up in its list.
func Record(name string) (Type, bool)     { return find(Records, name) }
func Message(name string) (Type, bool)    { return find(Messages, name) }
func SetKey(name string) (Type, bool)     { return find(SetKeys, name) }
func ToolStatus(name string) (Type, bool) { return find(ToolStatuses, name) }
