package analysis

import (
	"bytes"

	"github.com/rlog-ls/rlog-ls/grammar"
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
	s.Messages = c.Messages
	s.TokensIn, s.TokensOut, s.TokensCached, s.TokensCacheCreate = c.In, c.Out, c.Cached, c.CacheCreate
}

// UsageCounter sums token usage once per message: lines with the same
// message_id= count once, and without one, a line repeating the previous
// usage-bearing line's numbers is the same message. @end's totals are a
// summary, not usage.
type UsageCounter struct {
	In, Out, Cached, CacheCreate uint64
	Messages                     int
	seen                         map[string]struct{}
	prev                         grammar.Usage
	havePrev                     bool
}

// Add counts u unless it repeats a message already counted, and reports
// whether it was counted.
func (c *UsageCounter) Add(t *grammar.Tree, u grammar.Usage) bool {
	if isEndSummary(t, u.Line) {
		return false
	}
	if u.MessageID != "" {
		if c.seen == nil {
			c.seen = map[string]struct{}{}
		}
		if _, dup := c.seen[u.MessageID]; dup {
			return false
		}
		c.seen[u.MessageID] = struct{}{}
	} else if c.havePrev && c.prev.MessageID == "" && sameUsage(c.prev, u) {
		return false
	}
	c.prev, c.havePrev = u, true
	c.Messages++
	c.In += u.In
	c.Out += u.Out
	c.Cached += u.Cached
	c.CacheCreate += u.CacheCreate
	return true
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
	In, Out, Cached, CacheCreate uint64
	Messages                     int
	prev                         grammar.Usage
	havePrev                     bool
	// fresh are the message ids whose first occurrence in the document is
	// in this chunk; any other message id in it was counted before.
	fresh map[string]bool
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
		cps[0] = usageCheckpoint{}
		for u := range t.Usage() {
			for ci+1 < t.ChunkCount() {
				if _, first, _ := t.ChunkAt(ci + 1); u.Line < first {
					break
				}
				ci++
				cps[ci] = usageCheckpoint{In: c.In, Out: c.Out, Cached: c.Cached, CacheCreate: c.CacheCreate,
					Messages: c.Messages, prev: c.prev, havePrev: c.havePrev}
			}
			if u.MessageID != "" {
				if _, seen := c.seen[u.MessageID]; !seen {
					if cps[ci].fresh == nil {
						cps[ci].fresh = map[string]bool{}
					}
					cps[ci].fresh[u.MessageID] = true
				}
			}
			c.Add(t, u)
		}
		for ci+1 < t.ChunkCount() {
			ci++
			cps[ci] = usageCheckpoint{In: c.In, Out: c.Out, Cached: c.Cached, CacheCreate: c.CacheCreate,
				Messages: c.Messages, prev: c.prev, havePrev: c.havePrev}
		}
		return cps
	}).([]usageCheckpoint)
	cp := cps[t.ChunkIndexOfLine(n)]
	c := &UsageCounter{In: cp.In, Out: cp.Out, Cached: cp.Cached, CacheCreate: cp.CacheCreate, Messages: cp.Messages,
		prev: cp.prev, havePrev: cp.havePrev, seen: map[string]struct{}{}}
	// Message ids of this chunk first seen before it count as seen.
	_, first, _ := t.ChunkAt(t.ChunkIndexOfLine(n))
	for u := range t.UsageFrom(first) {
		if t.ChunkIndexOfLine(u.Line) != t.ChunkIndexOfLine(n) {
			break
		}
		if u.MessageID != "" && !cp.fresh[u.MessageID] {
			c.seen[u.MessageID] = struct{}{}
		}
	}
	return c
}

func sameUsage(a, b grammar.Usage) bool {
	return a.In == b.In && a.Out == b.Out && a.Cached == b.Cached && a.CacheCreate == b.CacheCreate
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
