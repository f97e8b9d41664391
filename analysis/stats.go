package analysis

import (
	"bytes"

	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/usage"
)

// Stats are the reference's SessionStats, with token totals that count each
// message's usage once. Writers repeat one API message's usage on every line
// that came from it (autopilot on each block, the Claude converter on each
// split entry); summing every line, as the reference does, inflates totals.
type Stats struct {
	TotalLines      int  `json:"total_lines"`
	UserMessages    int  `json:"user_messages"`
	AgentMessages   int  `json:"agent_messages"`
	ToolCalls       int  `json:"tool_calls"`
	Observations    int  `json:"observations"`
	Subagents       int  `json:"subagents"`
	McpCalls        int  `json:"mcp_calls"`
	Questions       int  `json:"questions"`
	Phases          int  `json:"phases"`
	LifecycleEvents int  `json:"lifecycle_events"`
	Comments        int  `json:"comments"`
	UniqueCallIDs   int  `json:"unique_call_ids"`
	MaxStep         int  `json:"max_step"` // the last step= seen, as the reference defines it
	HasTimestamps   bool `json:"has_timestamps"`
	BlobReferences  int  `json:"blob_references"`
	// RedactedValues counts [redacted:kind] like the reference, plus the
	// [REDACTED] and <REDACTED> forms real writers use (also in LegacyRedactions).
	RedactedValues   int `json:"redacted_values"`
	LegacyRedactions int `json:"legacy_redactions"`
	ThinkingBlocks   int `json:"thinking_blocks"`
	TodosUpdates     int `json:"todos_updates"`

	TokensIn          uint64 `json:"total_tokens_in"`
	TokensOut         uint64 `json:"total_tokens_out"`
	TokensCached      uint64 `json:"total_tokens_cached"`
	TokensCacheCreate uint64 `json:"total_tokens_cache_create"`
	// Messages is how many distinct usage records were counted.
	Messages int `json:"usage_messages"`
}

// SessionStats counts a document's events and its token usage. BuildSession
// computes the same counters along with the rest of a session's statistics.
func SessionStats(t *grammar.Tree) Stats {
	var s Stats
	s.TotalLines = t.BodyLineCount()
	var ids idIndex
	for l := range t.Body() {
		s.count(t, l, &ids)
	}
	s.UniqueCallIDs = ids.Len()
	var c UsageCounter
	for u := range t.Usage() {
		c.Add(t, u)
	}
	s.setUsage(&c)
	return s
}

// count adds one body line to the counters; ids collects the call ids the
// line registers (unless it is nil).
func (s *Stats) count(t *grammar.Tree, l grammar.Line, ids *idIndex) {
	switch l.Kind {
	case grammar.User:
		s.UserMessages++
	case grammar.Agent:
		s.AgentMessages++
	case grammar.Tool, grammar.ToolStart:
		s.ToolCalls++
	case grammar.Observation:
		s.Observations++
	case grammar.Subagent:
		s.Subagents++
	case grammar.Mcp:
		s.McpCalls++
	case grammar.Question:
		s.Questions++
	case grammar.Phase:
		s.Phases++
	case grammar.Lifecycle:
		s.LifecycleEvents++
	case grammar.Comment:
		s.Comments++
	case grammar.Thinking:
		s.ThinkingBlocks++
	case grammar.Todos:
		s.TodosUpdates++
	}
	if l.ID.Valid() && l.Kind.RegistersID() && ids != nil {
		idNumber(ids, t.Slice(l.ID.Start, l.ID.End))
	}
	if l.Step.Valid() {
		if n, ok := atoi(t.Slice(l.Step.Start, l.Step.End)); ok {
			s.MaxStep = n
		}
	}
	if l.TS.Valid() {
		s.HasTimestamps = true
	}
	if l.Flags&(grammar.FlagBlob|grammar.FlagRedacted|grammar.FlagLegacyRedact) != 0 {
		text := t.Text(l)
		s.BlobReferences += len(grammar.BlobMarkers(text))
		for _, m := range grammar.RedactionMarkers(text) {
			s.RedactedValues++
			if m.Legacy {
				s.LegacyRedactions++
			}
		}
	}
}

// Add adds another session's counters to s, for totals over many
// sessions: counts add up, MaxStep is the largest, HasTimestamps whether
// any has them.
func (s *Stats) Add(o Stats) {
	s.TotalLines += o.TotalLines
	s.UserMessages += o.UserMessages
	s.AgentMessages += o.AgentMessages
	s.ToolCalls += o.ToolCalls
	s.Observations += o.Observations
	s.Subagents += o.Subagents
	s.McpCalls += o.McpCalls
	s.Questions += o.Questions
	s.Phases += o.Phases
	s.LifecycleEvents += o.LifecycleEvents
	s.Comments += o.Comments
	s.UniqueCallIDs += o.UniqueCallIDs
	s.MaxStep = max(s.MaxStep, o.MaxStep)
	s.HasTimestamps = s.HasTimestamps || o.HasTimestamps
	s.BlobReferences += o.BlobReferences
	s.RedactedValues += o.RedactedValues
	s.LegacyRedactions += o.LegacyRedactions
	s.ThinkingBlocks += o.ThinkingBlocks
	s.TodosUpdates += o.TodosUpdates
	s.TokensIn += o.TokensIn
	s.TokensOut += o.TokensOut
	s.TokensCached += o.TokensCached
	s.TokensCacheCreate += o.TokensCacheCreate
	s.Messages += o.Messages
}

// setUsage takes the token totals from a counter that has seen the
// document's usage.
func (s *Stats) setUsage(c *UsageCounter) {
	tot := c.Total()
	s.Messages = c.Messages()
	s.TokensIn, s.TokensOut, s.TokensCached, s.TokensCacheCreate = tot.In, tot.Out, tot.Cached, tot.CacheCreate
}

// UsageCounter counts a document's usage lines by the usage rule (package
// usage): lines with the same message_id= are one message, counted with
// the largest of each count; without one, a line repeating the numbers of
// the usage line just before it (itself without an id) is that message.
// @end's totals are a summary, not usage.
type UsageCounter struct {
	tally usage.Tally
}

// Add counts u and says what it changed (nothing for an @end line).
func (c *UsageCounter) Add(t *grammar.Tree, u grammar.Usage) usage.Change {
	if isEndSummary(t, u.Line) {
		return usage.Change{}
	}
	return c.tally.Add(u.MessageID, countsOf(u))
}

// Total is the usage counted so far.
func (c *UsageCounter) Total() usage.Counts { return c.tally.Total() }

// Messages is how many messages were counted.
func (c *UsageCounter) Messages() int { return c.tally.Messages() }

// countsOf is a line's usage as the rule counts it.
func countsOf(u grammar.Usage) usage.Counts {
	return usage.Counts{In: u.In, Out: u.Out, Cached: u.Cached, CacheCreate: u.CacheCreate}
}

// isEndSummary reports whether line n is an @end line, whose token
// counts are the session's totals, not usage.
func isEndSummary(t *grammar.Tree, n int) bool {
	l := t.Line(n)
	return l.Kind == grammar.Lifecycle && bytes.HasPrefix(t.Slice(l.Content, l.TrimEnd), []byte("end"))
}

// usagePrefixKey memoizes, on a tree, the usage counter's state at the
// start of each chunk.
type usagePrefixKey struct{}

type usageCheckpoint struct {
	state usage.State
	// earlier are the messages of the chunk's usage lines that were
	// counted before the chunk, with their usage at its start.
	earlier map[string]usage.Counts
}

// usageBefore returns a counter holding the totals of every line before the
// chunk that holds line n, ready to count that chunk's lines. The states at
// chunk starts are computed once per tree, so hovers after the first are
// cheap anywhere in a huge document.
func usageBefore(t *grammar.Tree, n int) *UsageCounter {
	cps := t.Memo(usagePrefixKey{}, func() any {
		var c UsageCounter
		cps := make([]usageCheckpoint, t.ChunkCount())
		ci := 0
		inChunk := map[string]bool{} // the message ids of chunk ci's lines so far
		for u := range t.Usage() {
			for ci+1 < t.ChunkCount() {
				if _, first, _ := t.ChunkAt(ci + 1); u.Line < first {
					break
				}
				ci++
				cps[ci].state = c.tally.State()
				clear(inChunk)
			}
			if id := u.MessageID; id != "" && !inChunk[id] && !isEndSummary(t, u.Line) {
				inChunk[id] = true
				if had, ok := c.tally.Message(id); ok {
					cp := &cps[ci]
					if cp.earlier == nil {
						cp.earlier = map[string]usage.Counts{}
					}
					cp.earlier[id] = had
				}
			}
			c.Add(t, u)
		}
		for ci+1 < t.ChunkCount() {
			ci++
			cps[ci].state = c.tally.State()
		}
		return cps
	}).([]usageCheckpoint)
	cp := &cps[t.ChunkIndexOfLine(n)]
	return &UsageCounter{tally: usage.Resume(cp.state, cp.earlier)}
}

func atoi(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 10 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n <= 1<<32-1
}
