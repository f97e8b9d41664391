package atif

import (
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/model"
)

// The schema: the keys of each ATIF object, each with the minor version
// that brought it (ATIF-v1.N): the validator's "Extra inputs" and "needs
// a later version" rules, and what the reader keeps as the source's own
// keys, read them from here.
var (
	rootKeys = map[string]int{"schema_version": 0, "session_id": 0, "agent": 0, "steps": 0, "notes": 0,
		"final_metrics": 0, "continued_trajectory_ref": 0, "extra": 1, "trajectory_id": 7, "subagent_trajectories": 7}
	// jsonlHeaderKeys are the keys ATIF-JSONL's header line adds to the
	// root's.
	jsonlHeaderKeys = map[string]int{"__header__": 0, "created_at": 0}
	agentKeys       = map[string]int{"name": 0, "version": 0, "model_name": 0, "extra": 0, "tool_definitions": 5}
	toolCallKeys    = map[string]int{"tool_call_id": 0, "function_name": 0, "arguments": 0, "extra": 7}
	metricsKeys     = map[string]int{"prompt_tokens": 0, "completion_tokens": 0, "cached_tokens": 0, "cost_usd": 0,
		"logprobs": 0, "completion_token_ids": 3, "prompt_token_ids": 4, "extra": 0}
	finalMetricsKeys = map[string]int{"total_prompt_tokens": 0, "total_completion_tokens": 0, "total_cached_tokens": 0,
		"total_cost_usd": 0, "total_steps": 0, "extra": 0}
	observationKeys = map[string]int{"results": 0}
	resultKeys      = map[string]int{"source_call_id": 0, "content": 0, "subagent_trajectory_ref": 0, "extra": 7}
	// subagentRefKeys are a subagent_trajectory_ref's keys before
	// ATIF-v1.7, subagentRefKeys17 from it on.
	subagentRefKeys   = map[string]int{"session_id": 0, "trajectory_path": 0, "extra": 0}
	subagentRefKeys17 = map[string]int{"session_id": 0, "trajectory_id": 7, "trajectory_path": 0, "extra": 0}
	textPartKeys      = map[string]int{"type": 6, "text": 6}
	imagePartKeys     = map[string]int{"type": 6, "source": 6}
	imageSourceKeys   = map[string]int{"media_type": 6, "path": 6}
)

// stepField is one key of a step.
type stepField struct {
	key   string
	since int // the minor version that brought it
	// agentOnly keys belong to agent steps only.
	agentOnly bool
	// mapped keys the reader gives a place in the session model; it keeps
	// the others as the event's extra (atif.KEY), for the writer to give
	// back.
	mapped bool
}

// stepFields is the one table of a step's keys.
var stepFields = []stepField{
	{key: "step_id", mapped: true},
	{key: "timestamp", mapped: true},
	{key: "source", mapped: true},
	{key: "message", mapped: true},
	{key: "model_name", agentOnly: true, mapped: true},
	{key: "reasoning_effort", agentOnly: true},
	{key: "reasoning_content", agentOnly: true, mapped: true},
	{key: "tool_calls", agentOnly: true, mapped: true},
	{key: "metrics", agentOnly: true, mapped: true},
	{key: "observation", mapped: true},
	{key: "extra", mapped: true},
	{key: "llm_call_count", since: 7},
	{key: "is_copied_context", since: 7},
}

// What stepFields says, in the forms its readers look it up in.
var (
	stepKeys       = map[string]int{}
	agentOnlySteps []string
)

// mappedStepKey reports whether k is a mapped key of stepFields. The
// reader asks it of every key of every step: a switch, which the compiler
// turns into a search by length and words compared in place, costs a
// quarter of a look along the table (a call of memequal a key: 3.2M
// instructions of an ATIF-JSONL read's 96.8M). TestMappedStepKey and
// FuzzStepIdentity hold it to stepFields, the one home of the keys.
func mappedStepKey(k string) bool {
	switch k {
	case "step_id", "timestamp", "source", "message", "model_name", "reasoning_content",
		"tool_calls", "metrics", "observation", "extra":
		return true
	}
	return false
}

func init() {
	for _, f := range stepFields {
		stepKeys[f.key] = f.since
		if f.agentOnly {
			agentOnlySteps = append(agentOnlySteps, f.key)
		}
	}
}

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
