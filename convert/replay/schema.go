package replay

import "github.com/rlog-ls/rlog-ls/convert/model"

// The events of REPLAY.jsonl v1: a line's `event` tag.
const (
	EventHeader       = "ReplayHeader"
	EventSessionStart = "SessionStart"
	EventPlanStart    = "PlanStart"
	EventToolCall     = "ToolCall"
	EventToolResult   = "ToolResult"
	EventStepComplete = "StepComplete"
	EventVerification = "Verification"
	EventPayment      = "Payment"
	EventRuntimeEvent = "RuntimeEvent"
	EventMessage      = "Message"
	EventSessionEnd   = "SessionEnd"
	// eventSourceEnd is this package's writer's last line for a session
	// from another format: what its header says only at the end. A REPLAY
	// consumer ignores it, as any event it does not know.
	eventSourceEnd = "SourceEnd"
)

// eventSchema is what the spec says of one event, and how rlog-ls maps it.
type eventSchema struct {
	name string
	// required are the fields the event must have; statuses, when set,
	// the values its status may take.
	required, statuses []string
	// lifecycle events have no kind of their own in the session model:
	// they are read as a lifecycle event of their name with their fields
	// as they are, and written back so.
	lifecycle bool
}

// events is the one home of REPLAY's events, for the reader, the writer,
// the validator and detection.
var events = []eventSchema{
	{name: EventHeader, required: []string{"replay_version", "producer", "created_at"}},
	{name: EventSessionStart, required: []string{"t", "session_id", "policy_bundle_id"}},
	{name: EventPlanStart, required: []string{"t", "plan_hash", "step_count"}, lifecycle: true},
	{name: EventToolCall, required: []string{"t", "id", "tool", "params", "params_hash", "step_id"}},
	{name: EventToolResult, required: []string{"t", "id", "output_hash", "step_utility", "latency_ms"}},
	{name: EventStepComplete, required: []string{"t", "step_id", "status", "iterations"},
		statuses: []string{"Success", "Failed", "Skipped", "MaxIterationsReached"}, lifecycle: true},
	{name: EventVerification, required: []string{"t", "commands", "exit_codes", "verification_delta"}, lifecycle: true},
	{name: EventPayment, lifecycle: true},
	{name: EventRuntimeEvent, lifecycle: true},
	{name: EventMessage},
	{name: EventSessionEnd, required: []string{"t", "status", "confidence", "total_tool_calls", "total_latency_ms"},
		statuses: []string{"Success", "Failed", "Cancelled", "Timeout"}},
}

// hashFields are the fields that hold a `sha256:<64 hex>` hash.
var hashFields = []string{"params_hash", "output_hash", "plan_hash"}

// schemaOf is the schema of event name (nil for an event the spec does
// not define).
func schemaOf(name string) *eventSchema {
	for i := range events {
		if events[i].name == name {
			return &events[i]
		}
	}
	return nil
}

// isLifecycle reports whether name is an event read and written as a
// lifecycle event of its name.
func isLifecycle(name string) bool {
	s := schemaOf(name)
	return s != nil && s.lifecycle
}

// Detect judges whether an input is REPLAY.jsonl from its first line: the
// header event names the format, another event of the spec is strong
// evidence, an `event` tag of another name weak.
func Detect(h *model.Head) model.Evidence {
	switch ev := h.String("event"); {
	case ev == EventHeader:
		return model.Certain
	case schemaOf(ev) != nil:
		return model.Strong
	case h.Has("event"):
		return model.Weak
	}
	return model.NoEvidence
}
