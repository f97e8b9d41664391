// Package records is the one home of the record vocabulary Codex CLI
// writes in its rollouts (CODEX_HOME/sessions/YYYY/MM/DD/rollout-TIME-
// THREAD.jsonl): the "type" of a line, the "type" of a response_item's
// payload, the "type" of an event_msg's payload, and the item "type" of an
// item_completed event. Each is listed with what it holds, as the pinned
// version (Version) writes it in the producer harness's scenarios, or as
// earlier versions wrote it.
//
// The Codex reader gives each a meaning from here; the harness
// (internal/producers/codex) fails when the pinned version writes a name
// not listed, and the fixtures' test when a name marked Recorded is missing
// from the recorded fixtures (testdata/agents/codex/), so the lists stay
// exact both ways.
//
// Every line of the pinned version is {timestamp, ordinal, type, payload}
// (ordinal counts lines from 0, across resumes); response_item lines add a
// metadata object (history_sequence, compaction_output, …). Earlier
// versions wrote {timestamp, type, payload} without ordinal; the earliest
// wrote a bare session header line and then bare response items.
package records

// Version is the Codex CLI release the Recorded marks were made from.
const Version = "0.169.0"

// A Type is one name of the vocabulary.
type Type struct {
	Name  string
	About string // what the line or payload holds
	// Recorded says the pinned version wrote it in the harness's
	// scenarios; the others come from earlier versions' rollouts.
	Recorded bool
}

// Lines are the values of a line's "type".
var Lines = []Type{
	{"session_meta", "The thread: id, session_id (the root thread's, for a sub-agent too), timestamp, cwd, originator, cli_version, source (exec, or {subagent: {thread_spawn: {parent_thread_id, depth, agent_path, agent_nickname}}}), model_provider, base_instructions, history_mode, and for a sub-agent parent_thread_id, agent_path, agent_nickname; a forked sub-agent's rollout starts with its own and then its parent's, with forked_from_id.", true},
	{"turn_context", "A turn's settings, one per turn and after each compaction: turn_id, cwd, approval_policy, sandbox_policy, model, effort, summary, collaboration_mode.", true},
	{"world_state", "The environment the model is shown (instructions, cwd, shell, date, timezone, filesystem roots): whole first (full true), then what changed.", true},
	{"token_usage_record", "One API response's usage: response_id, turn_id, usage {input_tokens, cached_input_tokens, cache_write_input_tokens, output_tokens, reasoning_output_tokens, total_tokens}, and the turn's and thread's running totals. Their sum is the thread's total.", true},
	{"inter_agent_communication_metadata", "Whether the agent message after it starts a turn (trigger_turn).", true},
	{"compacted", "A compaction: the summary (message), the history that replaces the conversation (replacement_history), the window it opens (window_id, window_number, previous_window_id), the compaction call's usage (latest_token_usage_record).", true},
	{"response_item", "An item of the conversation as the model sees it; which one is in payload.type (ResponseItems). A metadata sibling says where it sits in the history and whether it is a compaction's output.", true},
	{"event_msg", "An event of the session; which one is in payload.type (Events).", true},
}

// ResponseItems are the values of a response_item's payload.type.
var ResponseItems = []Type{
	{"message", "A message: role developer (instructions), user (a prompt, or the client's context such as <environment_context>, or after a compaction the summary handed on), or assistant (content output_text; a compaction's summary has metadata.compaction_output true).", true},
	{"reasoning", "A reasoning item: summary texts and the encrypted content.", true},
	{"function_call", "A call of a function tool: name (exec_command, spawn_agent, …), namespace (collaboration for the multi-agent tools), arguments (JSON text), call_id.", true},
	{"function_call_output", "A function call's output, by call_id: the command's exit code, wall time and output as text; unsupported call: NAME for a tool that does not exist.", true},
	{"custom_tool_call", "A call of a free-text tool (apply_patch): name, input (the patch), call_id.", true},
	{"custom_tool_call_output", "A custom tool call's output, by call_id (apply_patch's result, or why it did not apply).", true},
	{"agent_message", "A message between agents (author, recipient, content): a sub-agent's task (NEW_TASK) in its own rollout, its answer (FINAL_ANSWER) in the parent's.", true},
	{"local_shell_call", "A shell command run by the local shell tool (earlier versions).", false},
	{"web_search_call", "A web search the model made (earlier versions, or with web search on).", false},
}

// Events are the values of an event_msg's payload.type.
var Events = []Type{
	{"task_started", "A turn starts: turn_id, turn_attribution (turn_trigger exec, parent and root turn), model_context_window. A resumed run starts with one; nothing else marks a resume.", true},
	{"task_complete", "A turn ends: last_agent_message (null for a failed turn), duration_ms, time_to_first_token_ms.", true},
	{"thread_settings_applied", "The thread's settings for the run: model, provider, approval and sandbox policy, cwd.", true},
	{"token_count", "info.total_token_usage (the thread's running total) and info.last_token_usage (the last response's), with rate_limits. Rows repeat with an unchanged total, after a compaction last is the new context's estimate, and a context-length error writes the context window as total_tokens with every component 0: sum token_usage_record, never these rows.", true},
	{"turn_aborted", "A turn that was interrupted (reason); in a forked sub-agent's rollout, the parent's replayed turn.", true},
	{"item_completed", "An item of the turn finished, in the client's terms; which one is in payload.item.type (Items).", true},
	{"user_message", "A prompt as the user typed it (earlier versions; item_completed UserMessage now).", false},
	{"agent_message", "The agent's message (earlier versions; item_completed AgentMessage now).", false},
	{"agent_reasoning", "A reasoning summary (earlier versions; item_completed Reasoning now).", false},
	{"exec_command_end", "A command's end with its output and exit code (earlier versions; item_completed CommandExecution now).", false},
	{"patch_apply_end", "A patch applied, with its changes (earlier versions; item_completed FileChange now).", false},
	{"turn_diff", "The unified diff of a turn's changes (earlier versions).", false},
}

// Items are the values of an item_completed event's payload.item.type.
var Items = []Type{
	{"UserMessage", "The user's prompt (content text).", true},
	{"AgentMessage", "The agent's message (content Text).", true},
	{"Reasoning", "A reasoning summary (summary_text).", true},
	{"CommandExecution", "A shell command: command (argv), cwd, status completed or failed, aggregated_output, exit_code, process_id.", true},
	{"FileChange", "A patch applied: changes by absolute path (add with content, update with unified_diff), status.", true},
	{"ContextCompaction", "A compaction finished.", true},
	{"SubAgentActivity", "A sub-agent started or completed (kind), its thread (agent_thread_id), path and model.", true},
	{"CollabAgentToolCall", "A multi-agent tool call (tool wait), its sender and receiver threads and the agents' states.", true},
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

// Line, ResponseItem, Event and Item look a name up in its list.
func Line(name string) (Type, bool)         { return find(Lines, name) }
func ResponseItem(name string) (Type, bool) { return find(ResponseItems, name) }
func Event(name string) (Type, bool)        { return find(Events, name) }
func Item(name string) (Type, bool)         { return find(Items, name) }
