// Package records is the one home of the record types Claude Code writes
// in its session transcripts (~/.claude/projects/ENCODED-CWD/ID.jsonl and
// the sub-agents' files beside them): the top-level "type" of a line, the
// "type" of an attachment record's attachment, and the "subtype" of a
// system record. Each is listed with what it holds, as the pinned version
// (Version) writes it in the producer harness's scenarios, or as earlier
// versions wrote it.
//
// The Claude Code reader gives each a meaning from here; the harness
// (internal/producers/claudecode) fails when the pinned version writes a
// type not listed, and the fixtures' test when a type marked Recorded is
// missing from the recorded fixtures (testdata/agents/claude-code/), so the
// lists stay exact both ways.
package records

// Version is the Claude Code release the Recorded marks were made from.
const Version = "2.1.328"

// A Type is one record type (or attachment type, or system subtype).
type Type struct {
	Name  string
	About string // what the record holds
	// Recorded says the pinned version wrote it in the harness's
	// scenarios; the others come from earlier versions' transcripts.
	Recorded bool
}

// Records are the values of a line's "type".
var Records = []Type{
	{"user", "A user message: a prompt (message.content a string or blocks, with images), tool results (tool_result blocks with toolUseResult, permissionDecision, toolDenialKind), a compaction's summary (isCompactSummary), a queued task notification, or a meta message (isMeta). Chained by uuid and parentUuid; carries cwd, gitBranch, version, entrypoint, permissionMode, promptId.", true},
	{"assistant", "One content block of a model answer (text, thinking, redacted_thinking, tool_use) with the whole answer's message.id, model and usage repeated on each block's line, and requestId.", true},
	{"system", "A system event; which one is in subtype (SystemSubtypes).", true},
	{"attachment", "Context the CLI adds to the conversation; which one is in attachment.type (Attachments). Chained by uuid like messages; rendered holds the text sent to the model, if any.", true},
	{"queue-operation", "A prompt or notification entering (operation enqueue, with content) or leaving (dequeue) the input queue; no uuid.", true},
	{"last-prompt", "The latest prompt's text (lastPrompt) and the leaf of the conversation (leafUuid), written after each turn.", true},
	{"atis-latch", "An internal flag (atis), written around turns.", true},
	{"cost-state", "The session's running totals at the end of a run: totalCostUSD, API and tool durations, lines added and removed, and modelUsage per model (input, output, cache read and creation tokens, cost) — counting calls no assistant record shows, such as a compaction's.", true},
	{"api-request-shape", "The shape of the requests sent to the API (system prompt, tool schemas), once per shape, keyed by shapeHash.", true},
	{"api-request-blob", "A message as sent to the API, keyed by its hash, for api-request records to refer to.", true},
	{"api-request", "One request sent to the API: its parameters (model, betas, max_tokens, thinking, effort), shapeHash, and the messages as blob hashes; assistant records point to it by requestRef.", true},
	{"tools-used", "The tools used so far in the session (tools).", true},
	{"mode", "The session's mode (mode: normal), written when a run resumes or forks the session and after its turns; no uuid.", true},
	{"summary", "A conversation summary (summary, leafUuid), written by versions before 2.0 instead of compaction records.", false},
	{"file-history-snapshot", "A snapshot of tracked files for undo (messageId, snapshot), from 1.0 on.", false},
}

// Attachments are the values of an attachment record's attachment.type.
var Attachments = []Type{
	{"environment", "The working environment: working directory, worktree and git status, platform, shell, OS version (snapshot).", true},
	{"model", "The model's identity: id, marketing name, knowledge cutoff (identity).", true},
	{"date", "Today's date (date).", true},
	{"deferred_tools_delta", "Tools offered by name only, to be loaded on demand (addedNames, removedNames).", true},
	{"agent_listing_delta", "The sub-agent types offered to the Agent tool (addedTypes, addedLines).", true},
	{"skill_listing", "The skills offered (content).", true},
	{"session_context", "Context of the session (context).", true},
	{"remote_session_change", "Attribution lines for commits and pull requests (commit, pr).", true},
	{"prompt_snapshot", "The system prompt as sent (systemPrompt), recorded once per conversation and reused on resume.", true},
}

// SystemSubtypes are the values of a system record's subtype.
var SystemSubtypes = []Type{
	{"compact_boundary", "Where a compaction replaced the conversation: compactMetadata (trigger manual or auto, preTokens, postTokens, durationMs), logicalParentUuid (the last record before it), parentUuid null.", true},
}

// A Use is what the reader makes of a record type.
type Use uint8

const (
	// Conversation records become events of the session.
	Conversation Use = iota + 1
	// Header records give the session's header fields and totals; they
	// are no event.
	Header
	// Bookkeeping records carry nothing a reader of the session needs:
	// kept whole for a Claude Code writer, dropped by every other, and
	// named once per type in the loss report.
	Bookkeeping
)

// A Meaning is what the reader makes of one type: its use, and what it
// becomes in words (docs/conversions.md lists the same).
type Meaning struct {
	Use     Use
	Becomes string
}

// Meanings are the reader's meaning of every type listed above: a record
// type by its name, an attachment type as "attachment:TYPE", a system
// subtype as "system:SUBTYPE".
var Meanings = map[string]Meaning{
	"user":                  {Conversation, "u: lines (a prompt; meta=true for what the CLI wrote, a compaction's summary among them; a task notification is a meta u: line after its sub-agent's x: [done], which names the call and the sub-agent), o: lines (tool results; [error] for a failing call, [denied] for one a permission refused, [interrupted] for one the user rejected or stopped (toolDenialKind, permissionDecision), with the CLI's message; an output saved to a file of its own is followed by # saved: PATH (size)), # image: and # document: markers (media type, size); a sub-agent's prompt is the first u: line under its tid="},
	"assistant":             {Conversation, "a:, th: and t!: lines (one per content block, the message's usage once, by message_id=); a redacted thinking block is a # redacted thinking: marker (its size)"},
	"system":                {Conversation, "by subtype"},
	"attachment":            {Bookkeeping, "by attachment type"},
	"queue-operation":       {Bookkeeping, "dropped: the prompt or task notification it queues is the user record that follows"},
	"last-prompt":           {Bookkeeping, "dropped: the prompt is already a u: line"},
	"atis-latch":            {Bookkeeping, "dropped"},
	"cost-state":            {Header, "the session's totals (tokens_total_*, @end's tokens_* and cost_usd=); the tokens of model calls no assistant record shows (a compaction's) go on that @compact line"},
	"api-request-shape":     {Bookkeeping, "dropped (the system prompt and tool schemas as sent)"},
	"api-request-blob":      {Bookkeeping, "dropped (messages as sent, already in the conversation)"},
	"api-request":           {Bookkeeping, "dropped (request parameters)"},
	"tools-used":            {Bookkeeping, "dropped: the t!: lines name the tools"},
	"mode":                  {Bookkeeping, "dropped; a run that resumes the session after an earlier run's end starts with @resume"},
	"summary":               {Conversation, "a # system: line with the summary"},
	"file-history-snapshot": {Conversation, "a # file-snapshot: line (message id, number of files)"},

	"attachment:environment":           {Bookkeeping, "dropped: the header has cwd and branch"},
	"attachment:model":                 {Bookkeeping, "dropped: the header has the model"},
	"attachment:date":                  {Bookkeeping, "dropped: every line has its ts="},
	"attachment:deferred_tools_delta":  {Bookkeeping, "dropped"},
	"attachment:agent_listing_delta":   {Bookkeeping, "dropped"},
	"attachment:skill_listing":         {Bookkeeping, "dropped"},
	"attachment:session_context":       {Bookkeeping, "dropped"},
	"attachment:remote_session_change": {Bookkeeping, "dropped"},
	"attachment:prompt_snapshot":       {Bookkeeping, "dropped"},

	"system:compact_boundary": {Conversation, "@compact trigger= pre_tokens= post_tokens=, with the compaction's own model call as its tokens_*"},
}

// MeaningOf is the reader's meaning of a type (keyed as in Meanings).
func MeaningOf(key string) (Meaning, bool) {
	m, ok := Meanings[key]
	return m, ok
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

// Record, Attachment and SystemSubtype look a name up in its list.
func Record(name string) (Type, bool)        { return find(Records, name) }
func Attachment(name string) (Type, bool)    { return find(Attachments, name) }
func SystemSubtype(name string) (Type, bool) { return find(SystemSubtypes, name) }
