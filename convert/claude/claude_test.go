package claude_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/claude"
	"github.com/rlog-ls/rlog-ls/convert/internal/ccusage"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/corpus"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

func read(t testing.TB, path string) (*model.Session, *model.Report) {
	t.Helper()
	var c model.Collector
	rep := &model.Report{}
	if err := claude.ReadFile(path, &c, rep); err != nil {
		t.Fatal(err)
	}
	return &c.Session, rep
}

// edgeCases are transcripts with lines of the wrong shape: each with the
// lines the reader must report malformed and a text that comes after them.
type edgeCases struct {
	path      string
	malformed []int
	after     string
}

// TestEdgeCasesMalformedLines: lines of the wrong shape are reported with
// their line numbers, an object without a type is passed through, and the
// lines after them still convert, on the fixture and on the real file it
// is modelled on.
func TestEdgeCasesMalformedLines(t *testing.T) {
	// 4: message.contnet typo; 5: message is a string; 7, 9, 10: not
	// objects (a string, 7, [true, false]).
	cases := []edgeCases{{"../testdata/fixtures/claude/edge-cases.jsonl", []int{4, 5, 7, 9, 10}, "Zürich, façade"}}
	if p, ok := corpus.SweepFile(t, "claude-code-jsonl/claude-code-log-fixtures/edge_cases.jsonl"); ok {
		// 10: message.contenst typo; 11: message is a string; 13, 15, 16:
		// not objects ("massive error", 42, [1]).
		cases = append(cases, edgeCases{p, []int{10, 11, 13, 15, 16}, "café, naïve"})
	}
	for _, c := range cases {
		s, rep := read(t, c.path)
		lines := map[int]string{}
		for _, l := range rep.Losses {
			if l.Kind == model.LossMalformed {
				for _, loc := range l.Locations {
					lines[loc.Line] = l.Detail
				}
			}
		}
		for _, n := range c.malformed {
			if _, ok := lines[n]; !ok {
				t.Errorf("%s: line %d not reported as malformed; report:\n%s", filepath.Base(c.path), n, rep.Text())
			}
		}
		if len(lines) != len(c.malformed) {
			t.Errorf("%s: %d lines reported malformed, want %d; report:\n%s", filepath.Base(c.path), len(lines), len(c.malformed), rep.Text())
		}
		// The rest still converts: the message after the broken lines is
		// there, and so is the final summary.
		var special, summary bool
		for _, e := range s.Events {
			special = special || strings.Contains(e.Text, c.after)
			summary = summary || e.Kind == model.KindSystem && e.Name == "summary"
		}
		if !special || !summary {
			t.Errorf("%s: events after the malformed lines are missing (special=%v summary=%v)", filepath.Base(c.path), special, summary)
		}
		// The object without a type is passed through and reported.
		if rep.Count(model.LossPassthrough) != 1 {
			t.Errorf("%s: want 1 passthrough, report:\n%s", filepath.Base(c.path), rep.Text())
		}
	}
}

// TestUsageOncePerMessage checks the totals against the counter-wise
// maximum per message.id, computed here independently from the raw file,
// on transcripts whose responses repeat their usage on every entry (the
// first copy a streaming snapshot): the fixtures, and a real transcript
// with a sub-agent.
func TestUsageOncePerMessage(t *testing.T) {
	type transcript struct {
		path     string
		messages int
	}
	cases := []transcript{
		{"../testdata/fixtures/claude/session.jsonl", 6},
		{"testdata/session.jsonl", 4},
	}
	if p, ok := corpus.SweepFile(t, "claude-code-jsonl/openagents/20251211-regex-log/haiku-testgen-v2.jsonl"); ok {
		cases = append(cases, transcript{p, 32})
	}
	for _, c := range cases {
		name := filepath.Base(c.path)
		var cl model.Collector
		if err := claude.Read(mustOpen(t, c.path), &cl, &model.Report{}); err != nil {
			t.Fatal(err)
		}
		var l model.Ledger
		for i := range cl.Session.Events {
			l.Add(&cl.Session.Events[i])
		}
		want, naive, per := usagePerMessage(t, c.path)
		if got := l.Total(); got != want {
			t.Errorf("%s: ledger total %+v, want %+v", name, got, want)
		}
		if l.Messages() != per || per != c.messages {
			t.Errorf("%s: ledger saw %d messages, file has %d (want %d)", name, l.Messages(), per, c.messages)
		}
		if naive.Output <= want.Output {
			t.Errorf("%s: the transcript should repeat usage (naive %+v vs %+v)", name, naive, want)
		}
	}
}

// usagePerMessage reads the assistant entries of a transcript on its own:
// the total with each message.id counted once (each counter its maximum
// over the message's entries), the naive sum over entries, and the number
// of messages.
func usagePerMessage(t *testing.T, path string) (once, naive model.Usage, messages int) {
	t.Helper()
	type usage struct {
		In, Out, Read, Create int64
	}
	per := map[string]usage{}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		var e struct {
			Type    string
			Message struct {
				ID    string
				Usage struct {
					Input  int64 `json:"input_tokens"`
					Output int64 `json:"output_tokens"`
					Read   int64 `json:"cache_read_input_tokens"`
					Create int64 `json:"cache_creation_input_tokens"`
				}
			}
		}
		if json.Unmarshal(line, &e) != nil || e.Type != "assistant" {
			continue
		}
		u := e.Message.Usage
		naive = naive.Add(model.Usage{Input: u.Input, Output: u.Output, CacheRead: u.Read, CacheCreate: u.Create})
		p := per[e.Message.ID]
		per[e.Message.ID] = usage{max(p.In, u.Input), max(p.Out, u.Output), max(p.Read, u.Read), max(p.Create, u.Create)}
	}
	for _, u := range per {
		once = once.Add(model.Usage{Input: u.In, Output: u.Out, CacheRead: u.Read, CacheCreate: u.Create})
	}
	return once, naive, len(per)
}

func mustOpen(t testing.TB, p string) *os.File {
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestSubagentSpliced: the transcript of the sub-agent a Task started is
// spliced in before the Task's result, and a sub-agent transcript of
// another session in the same folder is not.
func TestSubagentSpliced(t *testing.T) {
	type spliced struct {
		path, agent, call string
		inner             int // the sub-agent's events, at least
		other             string
	}
	cases := []spliced{
		{"testdata/session.jsonl", "a1b2c3d", "toolu_01Task", 4, "w0000ff"},
		{"../testdata/fixtures/claude/session.jsonl", "a1b2c3d", "toolu_01T", 4, ""},
	}
	if p, ok := corpus.SweepFile(t, "claude-code-jsonl/openagents/20251211-regex-log/haiku-testgen-v2.jsonl"); ok {
		// agent-a0a41f8 and agent-aff7986 belong to other sessions.
		cases = append(cases, spliced{p, "a028728", "toolu_018BphSNPxHyxFD8EioXnZGv", 10, "a0a41f8"})
	}
	for _, c := range cases {
		name := filepath.Base(c.path)
		s, _ := read(t, c.path)
		var starts, inner int
		taskResult := -1
		for i, e := range s.Events {
			if e.Kind == model.KindSubagent && e.Subagent.Status == "started" {
				starts++
				if e.Subagent.AgentID != c.agent || e.Subagent.ID != c.call {
					t.Errorf("%s: subagent start %+v", name, e.Subagent)
				}
			}
			if e.AgentID == c.agent && e.Kind != model.KindSubagent {
				inner++
				if taskResult >= 0 {
					t.Errorf("%s: sub-agent event %d after the Task result %d", name, i, taskResult)
				}
			}
			if c.other != "" && e.AgentID == c.other {
				t.Errorf("%s: event %d is from agent %s, another session's", name, i, c.other)
			}
			if e.Kind == model.KindToolResult && e.Result.CallID == c.call {
				taskResult = i
			}
		}
		if starts != 1 || inner < c.inner || taskResult < 0 {
			t.Errorf("%s: starts=%d inner=%d taskResult=%d", name, starts, inner, taskResult)
		}
	}
}

// TestRoundTrip reads each transcript (the fixtures, then those of the
// corpus), writes it, reads it back and compares the events field by
// field.
func TestRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	more, _ := filepath.Glob("../testdata/fixtures/claude/*.jsonl")
	files = append(files, more...)
	files = append(files, "testdata/session/subagents/agent-a1b2c3d.jsonl", "../testdata/fixtures/claude/session/subagents/agent-a1b2c3d.jsonl")
	if len(files) < 7 {
		t.Fatalf("fixtures missing: %v", files)
	}
	files = append(files, corpus.SweepGlob(t, "claude-code-jsonl/*/*.jsonl")...)
	files = append(files, corpus.SweepGlob(t, "claude-code-jsonl/openagents/20251211-regex-log/*.jsonl")...)
	for _, p := range files {
		var c1 model.Collector
		rep1 := &model.Report{}
		if err := claude.Read(mustOpen(t, p), &c1, rep1); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		rep := &model.Report{}
		if err := claude.Write(&out, &c1.Session, rep, model.Options{}); err != nil {
			t.Fatal(err)
		}
		var c2 model.Collector
		rep2 := &model.Report{}
		if err := claude.Read(&out, &c2, rep2); err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(p)
		// Entries of the wrong shape pass through verbatim and are reported
		// again; lines that were not JSON at all are gone.
		if rep2.Count(model.LossMalformed) > rep1.Count(model.LossMalformed) {
			t.Errorf("%s: written output has new malformed lines:\n%s", name, rep2.Text())
		}
		a, b := c1.Session.Events, c2.Session.Events
		if len(a) != len(b) {
			t.Errorf("%s: %d events, %d after the round trip", name, len(a), len(b))
			continue
		}
		for i := range a {
			if d := diffEvent(&a[i], &b[i]); d != "" {
				t.Errorf("%s: event %d (line %d): %s", name, i, a[i].Loc.Line, d)
				break
			}
		}
		h1, h2 := c1.Session.Header, c2.Session.Header
		if h1.ID != h2.ID || h1.Cwd != h2.Cwd || h1.Model != h2.Model || h1.AgentVersion != h2.AgentVersion {
			t.Errorf("%s: header %+v became %+v", name, h1, h2)
		}
	}
}

func diffEvent(a, b *model.Event) string {
	switch {
	case a.Kind != b.Kind:
		return "kind " + a.Kind.String() + " -> " + b.Kind.String()
	case a.ID != b.ID || a.ParentID != b.ParentID:
		return "ids " + a.ID + "/" + a.ParentID + " -> " + b.ID + "/" + b.ParentID
	case a.Text != b.Text || a.Signature != b.Signature || a.Time != b.Time:
		return "text, signature or time"
	case a.MessageID != b.MessageID || a.Model != b.Model:
		return "message id or model"
	case (a.Usage == nil) != (b.Usage == nil) || a.Usage != nil && *a.Usage != *b.Usage:
		return "usage"
	case a.Sidechain != b.Sidechain || a.AgentID != b.AgentID || a.Meta != b.Meta:
		return "sidechain, agent or meta"
	case a.Call != nil && (a.Call.ID != b.Call.ID || a.Call.Name != b.Call.Name || !jsonEqual(a.Call.Input, b.Call.Input)):
		return "tool call"
	case a.Result != nil && (a.Result.CallID != b.Result.CallID || a.Result.IsError != b.Result.IsError || a.Result.Content != b.Result.Content):
		return "tool result"
	case a.Kind == model.KindPassthrough && !jsonEqual(a.Raw, b.Raw):
		return "passthrough record"
	}
	ea, eb := map[string]json.RawMessage{}, map[string]json.RawMessage{}
	for _, f := range a.Extra {
		ea[f.Key] = f.Value
	}
	for _, f := range b.Extra {
		eb[f.Key] = f.Value
	}
	for k, v := range ea {
		if !jsonEqual(v, eb[k]) {
			return "extra " + k
		}
	}
	return ""
}

func jsonEqual(a, b []byte) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xa, yb)
}

func TestWriteFromOtherSourceChainsParents(t *testing.T) {
	s := &model.Session{Header: model.Header{ID: "s1", SourceFormat: "trajectory", Model: "m"}}
	s.Events = []model.Event{
		{Kind: model.KindUser, Text: "hi", Time: "2025-01-01T00:00:00Z"},
		{Kind: model.KindAgent, Text: "hello", Usage: &model.Usage{Input: 1, Output: 2}},
		{Kind: model.KindToolCall, Call: &model.ToolCall{ID: "t1", Name: "Read", Input: json.RawMessage(`{"file_path":"a"}`)}, Usage: &model.Usage{Input: 1, Output: 5}},
		{Kind: model.KindToolResult, Result: &model.ToolResult{CallID: "t1", Content: "ok"}},
		{Kind: model.KindLifecycle, Name: "end"},
	}
	var out bytes.Buffer
	rep := &model.Report{}
	if err := claude.Write(&out, s, rep, model.Options{}); err != nil {
		t.Fatal(err)
	}
	// The entries, as Claude Code and ccusage read them.
	type entry struct {
		Type       string
		UUID       string
		ParentUUID *string
		Message    struct{ ID string }
	}
	var entries []entry
	for _, l := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
		var e entry
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatal(err)
		}
		if e.UUID != "" {
			entries = append(entries, e)
		}
	}
	if len(entries) != 5 {
		t.Fatalf("got %d entries:\n%s", len(entries), out.String())
	}
	for i := 1; i < len(entries); i++ {
		if p := entries[i].ParentUUID; p == nil || *p != entries[i-1].UUID {
			t.Errorf("entry %d parent %v, want %q", i, p, entries[i-1].UUID)
		}
	}
	if entries[1].Message.ID == "" || entries[1].Message.ID != entries[2].Message.ID {
		t.Errorf("agent text and tool call should share one synthesized message id: %q %q", entries[1].Message.ID, entries[2].Message.ID)
	}
	// Read back, the session is the source's: no made-up ids, its @end
	// (a system entry of the file) as a lifecycle event.
	back := readBack(t, out.Bytes())
	ev := back.Events
	if len(ev) != 5 || ev[4].Kind != model.KindLifecycle || ev[4].Name != "end" || ev[1].ID != "" || ev[1].MessageID != "" {
		t.Fatalf("read back %+v", ev)
	}
	// Counted by the usage rule, as the source counts: its two events
	// without a message id, of one request (the same input, the output
	// growing), are one message.
	var l, src model.Ledger
	for i := range ev {
		l.Add(&ev[i])
	}
	for i := range s.Events {
		src.Add(&s.Events[i])
	}
	if got, want := l.Total(), src.Total(); got != want || want.Output != 5 {
		t.Errorf("usage read back: %+v, the source's %+v", got, want)
	}
}

// TestWriteFromOtherSourceIsResumable: Claude Code resumes a session by
// its UUID and walks parentUuid from the last entry, so a session from
// another format whose ids are not UUIDs (a mini-prophet's S0, U0 …, an
// ATIF session's name) and whose entries name another parent (or none)
// is written with UUIDs and one chain; read back, the ids and parents are
// the source's.
func TestWriteFromOtherSourceIsResumable(t *testing.T) {
	s := &model.Session{Header: model.Header{ID: "sess-7", SourceFormat: "prophet", Model: "m"}}
	s.Events = []model.Event{
		{Kind: model.KindSystem, ID: "S0", Name: "system", Text: "You are a forecaster.", Time: "2025-01-01T00:00:00Z"},
		{Kind: model.KindUser, ID: "U0", Text: "Will it rain?"},
		{Kind: model.KindAgent, ID: "A0", Text: "Searching.", Usage: &model.Usage{Input: 1, Output: 2}},
		{Kind: model.KindToolCall, ID: "A0", Call: &model.ToolCall{ID: "t1", Name: "search", Input: json.RawMessage(`{"q":"rain"}`)}},
		{Kind: model.KindToolResult, ID: "T0", ParentID: "U0", Result: &model.ToolResult{CallID: "t1", Content: "70%"}},
		{Kind: model.KindAgent, ID: "0b4e7f0a-2c1d-4e5f-8a9b-0c1d2e3f4a5b", ParentID: "T0", Text: "0.7"},
	}
	var out bytes.Buffer
	rep := &model.Report{}
	if err := claude.Write(&out, s, rep, model.Options{}); err != nil {
		t.Fatal(err)
	}
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	var prev string
	n := 0
	for _, l := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
		var e struct {
			UUID, SessionID string
			ParentUUID      *string
		}
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatal(err)
		}
		if e.UUID == "" {
			continue
		}
		n++
		if !uuid.MatchString(e.UUID) || !uuid.MatchString(e.SessionID) {
			t.Errorf("uuid %q, sessionId %q: want UUIDs", e.UUID, e.SessionID)
		}
		if got := ""; e.ParentUUID != nil && *e.ParentUUID != prev || e.ParentUUID == nil && prev != got {
			t.Errorf("entry %s: parentUuid %v, want %q (the entry before)", e.UUID, e.ParentUUID, prev)
		}
		prev = e.UUID
	}
	if n != 5 {
		t.Fatalf("%d entries, want 5:\n%s", n, out.String())
	}
	if !strings.Contains(out.String(), `"uuid":"0b4e7f0a-2c1d-4e5f-8a9b-0c1d2e3f4a5b"`) {
		t.Errorf("an entry id that is a UUID is written as it is:\n%s", out.String())
	}
	if !strings.Contains(rep.Text(), "sessionId for the source's id, which is not a UUID") {
		t.Errorf("the report does not say the session id was made up:\n%s", rep.Text())
	}
	back := readBack(t, out.Bytes())
	if back.Header.ID != "sess-7" {
		t.Errorf("read back, the session id is %q, want the source's", back.Header.ID)
	}
	var ids []string
	for _, e := range back.Events {
		ids = append(ids, e.ID+"<"+e.ParentID)
	}
	if got, want := strings.Join(ids, " "), "S0< U0< A0< A0< T0<U0 0b4e7f0a-2c1d-4e5f-8a9b-0c1d2e3f4a5b<T0"; got != want {
		t.Errorf("read back, ids<parents are\n%s\nwant the source's\n%s", got, want)
	}
}

// TestWriteCompactionFromOtherSource: Claude Code resumes a session from
// its last compact_boundary on, taking the summary after it for the
// conversation before. A compaction of another format is written as one
// only when that summary follows it; otherwise as an informational system
// entry, reported, so that resuming keeps the conversation before it.
// Read back, it is the source's compaction either way.
func TestWriteCompactionFromOtherSource(t *testing.T) {
	for _, summary := range []bool{false, true} {
		s := &model.Session{Header: model.Header{ID: "0b4e7f0a-2c1d-4e5f-8a9b-0c1d2e3f4a5b", SourceFormat: "rlog", Model: "m"}}
		s.Events = []model.Event{
			{Kind: model.KindUser, Text: "Count the files.", Time: "2025-01-01T00:00:00Z"},
			{Kind: model.KindAgent, Text: "Three."},
			{Kind: model.KindCompaction, Text: "Conversation compacted", Compaction: &model.Compaction{Trigger: "auto", PreTokens: 160000}},
			{Kind: model.KindAgent, Text: "Next?"},
		}
		if summary {
			s.Events[3] = model.Event{Kind: model.KindUser, Text: "This session is being continued from a previous conversation that ran out of context. Summary: three files."}
		}
		var out bytes.Buffer
		rep := &model.Report{}
		if err := claude.Write(&out, s, rep, model.Options{}); err != nil {
			t.Fatal(err)
		}
		boundary := strings.Contains(out.String(), `"subtype":"compact_boundary"`)
		reported := strings.Contains(rep.Text(), "compaction written as an informational system entry")
		if boundary != summary || reported == summary {
			t.Errorf("summary after the compaction %v: a compact_boundary written %v, reported %v:\n%s%s", summary, boundary, reported, out.String(), rep.Text())
		}
		back := readBack(t, out.Bytes())
		var kinds []string
		for _, e := range back.Events {
			kinds = append(kinds, e.Kind.String())
		}
		if got := strings.Join(kinds, " "); got != "user agent compaction "+s.Events[3].Kind.String() {
			t.Errorf("summary %v: read back %s", summary, got)
		}
		if e := back.Events[2]; e.Compaction == nil || *e.Compaction != *s.Events[2].Compaction || e.Text != "Conversation compacted" {
			t.Errorf("summary %v: the compaction read back is %+v", summary, e)
		}
	}
}

// TestWriteReusedCallIDs: the API and Claude Code take one tool call an
// id; an early autopilot log gives every call toolu_01. The later call is
// written as toolu_01-2 and its result answers it; read back, both are the
// source's toolu_01 again.
func TestWriteReusedCallIDs(t *testing.T) {
	s := &model.Session{Header: model.Header{ID: "0b4e7f0a-2c1d-4e5f-8a9b-0c1d2e3f4a5b", SourceFormat: "rlog", Model: "m"}}
	s.Events = []model.Event{
		{Kind: model.KindUser, Text: "Read both.", Time: "2025-01-01T00:00:00Z"},
		{Kind: model.KindToolCall, Call: &model.ToolCall{ID: "toolu_01", Name: "Read", Input: json.RawMessage(`{"file_path":"a"}`)}},
		{Kind: model.KindToolCall, Call: &model.ToolCall{ID: "toolu_01", Name: "Read", Input: json.RawMessage(`{"file_path":"b"}`)}},
		{Kind: model.KindToolResult, Result: &model.ToolResult{CallID: "toolu_01", Content: "A", Status: "2 issues"}},
		{Kind: model.KindToolResult, Result: &model.ToolResult{CallID: "toolu_01", Content: "B", Status: "3 issues"}},
	}
	var out bytes.Buffer
	rep := &model.Report{}
	if err := claude.Write(&out, s, rep, model.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"id":"toolu_01","name":"Read","input":{"file_path":"a"}`, `"id":"toolu_01-2","name":"Read","input":{"file_path":"b"}`,
		`"tool_use_id":"toolu_01","type":"tool_result","content":"A"`, `"tool_use_id":"toolu_01-2","type":"tool_result","content":"B"`, `"toolResultStatus":{"toolu_01-2":"3 issues"}`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("%s is not written:\n%s", want, out.String())
		}
	}
	if rep.Count(model.LossIDUnique) != 1 {
		t.Errorf("the renamed call is not reported:\n%s", rep.Text())
	}
	back := readBack(t, out.Bytes())
	var ids []string
	for _, e := range back.Events {
		switch {
		case e.Call != nil:
			ids = append(ids, e.Call.ID)
		case e.Result != nil:
			ids = append(ids, e.Result.CallID+":"+e.Result.Content+":"+e.Result.Status)
		}
	}
	if got, want := strings.Join(ids, " "), "toolu_01 toolu_01 toolu_01:A:2 issues toolu_01:B:3 issues"; got != want {
		t.Errorf("read back: %s, want %s", got, want)
	}
}

// TestWriteOtherAgent: an entry's version is Claude Code's, so another
// agent's version is not written there (the session record keeps it); a
// tool result without its call, which Claude Code drops when resuming, is
// reported.
func TestWriteOtherAgent(t *testing.T) {
	s := &model.Session{Header: model.Header{ID: "0b4e7f0a-2c1d-4e5f-8a9b-0c1d2e3f4a5b", SourceFormat: "atif", AgentName: "terminus-2", AgentVersion: "2.0.0", Model: "m"}}
	s.Events = []model.Event{
		{Kind: model.KindUser, Text: "Count.", Time: "2025-01-01T00:00:00Z"},
		{Kind: model.KindToolResult, Result: &model.ToolResult{Content: "New Terminal Output"}},
	}
	var out bytes.Buffer
	rep := &model.Report{}
	if err := claude.Write(&out, s, rep, model.Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), `"version":"2.0.0"`) || !strings.Contains(out.String(), `"agent_version":"2.0.0"`) {
		t.Errorf("terminus-2's version is written as Claude Code's, or not kept:\n%s", out.String())
	}
	if !strings.Contains(rep.Text(), "tool result without a tool call of its id before it: Claude Code drops it") {
		t.Errorf("the result without its call is not reported:\n%s", rep.Text())
	}
	back := readBack(t, out.Bytes())
	if h := back.Header; h.AgentName != "terminus-2" || h.AgentVersion != "2.0.0" {
		t.Errorf("read back, the agent is %s %s", h.AgentName, h.AgentVersion)
	}
}

// TestWriteReportsRlogCuts: an rlog log's text or tool output that ends
// with "...", where rlog's writers cut, is resumed by Claude Code as it is:
// the loss report says so, once for each; whole ones are not reported.
func TestWriteReportsRlogCuts(t *testing.T) {
	s := &model.Session{Header: model.Header{ID: "0b4e7f0a-2c1d-4e5f-8a9b-0c1d2e3f4a5b", SourceFormat: "rlog", Model: "m"}}
	s.Events = []model.Event{
		{Kind: model.KindUser, Text: "Check the notes ...", Time: "2025-01-01T00:00:00Z"},
		{Kind: model.KindAgent, Text: "Reading them."},
		{Kind: model.KindToolCall, Call: &model.ToolCall{ID: "t1", Name: "Read", Input: json.RawMessage(`{"file_path":"a"}`)}},
		{Kind: model.KindToolResult, Result: &model.ToolResult{CallID: "t1", Content: "1\talpha ..."}},
	}
	rep := &model.Report{}
	if err := claude.Write(&bytes.Buffer{}, s, rep, model.Options{}); err != nil {
		t.Fatal(err)
	}
	if rep.Count(model.LossTruncated) != 2 || !strings.Contains(rep.Text(), "tool output as the rlog log has it, cut") || !strings.Contains(rep.Text(), "text as the rlog log has it, cut") {
		t.Errorf("the cut text and output are not reported, once each:\n%s", rep.Text())
	}
}

func TestBadInputNeverPanics(t *testing.T) {
	inputs := []string{
		"", "\n\n", "{", `{"type":"assistant","message":{"content":[1,2,{"type":"tool_use"}]}}`,
		`{"type":"user","message":{"content":{"a":1}}}`, "\xff\xfe{\"type\":\"user\"}", `{"type":"user","message":{"role":"user","content":"\xff"}}`,
		strings.Repeat("[", 100000),
	}
	for _, in := range inputs {
		var c model.Collector
		if err := claude.Read(strings.NewReader(in), &c, &model.Report{}); err != nil {
			t.Errorf("%.20q: %v", in, err)
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"type":"user","uuid":"u","message":{"role":"user","content":"x"}}`))
	f.Add([]byte(`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"n","input":{}}],"usage":{"input_tokens":1}}}`))
	// Written from another format: the session record and an entry's rests.
	f.Add([]byte(`{"type":"session-source","source":{"format":"rlog","agent":"a","started":"","made_up":["userType"]}}` + "\n" +
		`{"parentUuid":null,"isSidechain":false,"type":"system","subtype":"lifecycle","content":"@start","uuid":"u1","timestamp":"2025-01-01T00:00:00.000Z","rests":"[{\"kind\":\"lifecycle\",\"name\":\"start\",\"unset\":[\"id\"]}]"}` + "\n" +
		`{"type":"session-source","end":{"ended":"","made_up":["sessionId"]}}`))
	seeds := []string{"../testdata/fixtures/claude/edge-cases.jsonl"}
	if root, ok := corpus.Find(); ok {
		seeds = append(seeds, filepath.Join(root, "claude-code-jsonl/claude-code-log-fixtures/edge_cases.jsonl"))
	}
	for _, p := range seeds {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c model.Collector
		rep := &model.Report{}
		if err := claude.Read(bytes.NewReader(data), &c, rep); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := claude.Write(&out, &c.Session, &model.Report{}, model.Options{}); err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
			if len(line) > 0 && !json.Valid(line) {
				t.Fatalf("invalid output line %q", line)
			}
		}
	})
}

func BenchmarkRead(b *testing.B) {
	data, err := os.ReadFile(corpus.Path(b, "claude-code-jsonl/openagents/claude-code-example.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := claude.Read(bytes.NewReader(data), discard{}, &model.Report{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWrite(b *testing.B) {
	var c model.Collector
	data, _ := os.ReadFile(corpus.Path(b, "claude-code-jsonl/openagents/claude-code-example.jsonl"))
	claude.Read(bytes.NewReader(data), &c, &model.Report{})
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var out bytes.Buffer
		if err := claude.Write(&out, &c.Session, &model.Report{}, model.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

type discard struct{}

func (discard) Event(*model.Header, *model.Event) error { return nil }
func (discard) End(*model.Header) error                 { return nil }

// TestWriteForConsumers: from a source that lacks what Claude Code JSONL
// needs, the writer writes the best true value or leaves the key out (never
// an empty string), in forms ccusage counts, and reports what it made up.
func TestWriteForConsumers(t *testing.T) {
	u := func(in, out int64) *model.Usage { return &model.Usage{Input: in, Output: out, CacheRead: 100} }
	s := &model.Session{Header: model.Header{SourceFormat: "prophet", AgentVersion: "mini-prophet 0.3", Extra: model.Fields{{Key: "claude_code_version", Value: []byte(`"2.0.65"`)}}}}
	s.Events = []model.Event{
		{Kind: model.KindUser, Text: "hi", Time: "2025-01-01T10:00:00.123456Z"},
		{Kind: model.KindAgent, Text: "one", Usage: u(5, 1)},                                          // no timestamp
		{Kind: model.KindAgent, Text: "one, more", Time: "2025-01-01T11:00:01+01:00", Usage: u(5, 9)}, // same response streaming
		{Kind: model.KindAgent, Text: "two", Time: "not a date", Usage: u(7, 3)},                      // another request
	}
	var out bytes.Buffer
	rep := &model.Report{}
	if err := claude.Write(&out, s, rep, model.Options{}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	var entries strings.Builder // the entries, without the session record
	for _, l := range strings.SplitAfter(text, "\n") {
		if !strings.Contains(l, `"type":"session-source"`) {
			entries.WriteString(l)
		}
	}
	for _, bad := range []string{`"sessionId":""`, `"model":""`, `"version":""`, `"cwd":""`, `"gitBranch":""`, `rlog-ls-import`, `mini-prophet`} {
		if strings.Contains(entries.String(), bad) {
			t.Errorf("output has %s:\n%s", bad, text)
		}
	}
	if !strings.Contains(text, `"version":"2.0.65"`) {
		t.Errorf("the header's Claude Code version is not written:\n%s", text)
	}
	for _, want := range []string{`"timestamp":"2025-01-01T10:00:00.123Z"`, `"timestamp":"2025-01-01T10:00:01.000Z"`} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %s:\n%s", want, text)
		}
	}
	got, skips, err := ccusage.Count(strings.NewReader(text))
	if err != nil || len(skips) > 0 {
		t.Fatalf("ccusage skips %v (%v):\n%s", skips, err, text)
	}
	if want := (ccusage.Totals{Input: 12, Output: 12, CacheRead: 200, Entries: 2}); got != want {
		t.Errorf("ccusage counts %v, want %v (two responses)", got, want)
	}
	for _, want := range []string{
		"synthesized_value: sessionId (the source has no session id) ×1",
		"synthesized_value: message.id (the source has no message ids) ×2",
		"synthesized_value: timestamp (the source has none for this event) ×1",
		"synthesized_value: timestamp for one that is not a date and time ×1",
		"truncated_text: timestamp to milliseconds (Claude Code's precision) ×1",
	} {
		if !strings.Contains(rep.Text(), want) {
			t.Errorf("report lacks %q:\n%s", want, rep.Text())
		}
	}
}

// TestTodosOnlyEntry: a user entry whose content is empty and that carries
// a todo list is one todos event (no empty user message, which other
// formats would write as an empty user line), and is written back as it
// was.
func TestTodosOnlyEntry(t *testing.T) {
	line := `{"parentUuid":null,"isSidechain":false,"userType":"external","sessionId":"s","gitBranch":"main","type":"user","message":{"role":"user","content":[]},"todos":[{"content":"Fix rounding","status":"completed"}],"uuid":"u1","timestamp":"2025-01-01T00:00:00.000Z"}` + "\n"
	var c model.Collector
	if err := claude.Read(strings.NewReader(line), &c, &model.Report{}); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range c.Session.Events {
		kinds = append(kinds, e.Kind.String())
	}
	if len(kinds) != 1 || c.Session.Events[0].Kind != model.KindTodos {
		t.Fatalf("events %v, want one todos event", kinds)
	}
	var out bytes.Buffer
	if err := claude.Write(&out, &c.Session, &model.Report{}, model.Options{}); err != nil {
		t.Fatal(err)
	}
	if !jsonEqual(bytes.TrimSpace(out.Bytes()), bytes.TrimSpace([]byte(line))) {
		t.Errorf("written back as\n%s\nwant\n%s", out.Bytes(), line)
	}
}

// TestSessionIsTheOneTheFileHolds: a continued session's transcript starts
// with entries of the session it continues; the header names the session
// the file holds (its name when that is one of its sessions, else the
// most frequent), and the predecessor's entries keep their own sessionId,
// so Claude -> Claude writes every entry's id back.
func TestSessionIsTheOneTheFileHolds(t *testing.T) {
	const held, before = "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b", "3b0c6f4e-1d2a-4e8b-9c7d-6a5b4c3d2e1f"
	src, err := os.ReadFile("../testdata/fixtures/claude/continued.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct{ name, want string }{
		{"", held}, // standard input: no name
		{"continued.jsonl", held},
		{held + ".jsonl", held},
		{before + ".jsonl", before}, // Claude Code names a transcript after its session
	} {
		var c model.Collector
		if tc.name == "" {
			err = claude.Read(bytes.NewReader(src), &c, &model.Report{})
		} else {
			p := filepath.Join(dir, tc.name)
			if err := os.WriteFile(p, src, 0o644); err != nil {
				t.Fatal(err)
			}
			err = claude.ReadFile(p, &c, &model.Report{})
		}
		if err != nil {
			t.Fatal(err)
		}
		if c.Session.Header.ID != tc.want {
			t.Errorf("%q: session %s, want %s", tc.name, c.Session.Header.ID, tc.want)
		}
		var b bytes.Buffer
		if err := claude.Write(&b, &c.Session, &model.Report{}, model.Options{}); err != nil {
			t.Fatal(err)
		}
		if got := sessionIDs(t, b.Bytes()); got != sessionIDs(t, src) {
			t.Errorf("%q: claude -> claude session ids\n%s\nwant\n%s", tc.name, got, sessionIDs(t, src))
		}
	}
}

// sessionIDs lists the sessionId of each entry of a transcript.
func sessionIDs(t *testing.T, b []byte) string {
	t.Helper()
	var out []string
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var e struct{ SessionID string }
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e.SessionID)
	}
	return strings.Join(out, "\n")
}

// An assistant message with nothing beyond its content and ids gives an
// event with no extra at all (nil, as a reader that grew the extra from
// nothing gave), not an empty one.
func TestAssistantMessageWithoutExtraLeavesItNil(t *testing.T) {
	var ix jsonscan.Index
	var message []byte
	line := []byte(`{"message":{"id":"m","role":"assistant","content":[{"type":"text","text":"hi"}]}}`)
	if err := ix.Object(line, func(_, v []byte) error { message = v; return nil }); err != nil {
		t.Fatal(err)
	}
	events, why := claude.AssistantEvents(&ix, message, model.Event{}, &model.Report{})
	if why != "" || len(events) != 1 || events[0].Extra != nil {
		t.Fatalf("events %+v (%s): want one with a nil extra", events, why)
	}
}

// readBack reads what the writer wrote.
func readBack(t *testing.T, written []byte) *model.Session {
	t.Helper()
	var c model.Collector
	if err := claude.Read(bytes.NewReader(written), &c, &model.Report{}); err != nil {
		t.Fatal(err)
	}
	return &c.Session
}

// TestWriteClaudeMessageThatLostItsTimestamp: a message of a Claude Code
// source that lost its timestamp on the way (a step of an edited ATIF file)
// is written with a made-up one, reported, as for any other source: Claude
// Code writes no message without one, and ccusage would skip it while stats
// counted its tokens.
func TestWriteClaudeMessageThatLostItsTimestamp(t *testing.T) {
	s := &model.Session{Header: model.Header{SourceFormat: claude.Name, Started: "2025-01-01T10:00:00Z"}}
	s.Events = []model.Event{
		{Kind: model.KindUser, Text: "hi", Time: "2025-01-01T10:00:05.000Z"},
		{Kind: model.KindAgent, Text: "hello", Usage: &model.Usage{Input: 5, Output: 7}}, // its timestamp lost
	}
	var out bytes.Buffer
	rep := &model.Report{}
	if err := claude.Write(&out, s, rep, model.Options{}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		if strings.Contains(l, `"type":"assistant"`) && !strings.Contains(l, `"timestamp":"2025-01-01T10:00:05.000Z"`) {
			t.Errorf("the assistant's line has not the last timestamp written:\n%s", l)
		}
	}
	got, skips, err := ccusage.Count(strings.NewReader(text))
	if err != nil || len(skips) > 0 {
		t.Fatalf("ccusage skips %v (%v):\n%s", skips, err, text)
	}
	if want := (ccusage.Totals{Input: 5, Output: 7, Entries: 1}); got != want {
		t.Errorf("ccusage counts %v, want %v", got, want)
	}
	if want := "synthesized_value: timestamp (the source has none for this event) ×1"; !strings.Contains(rep.Text(), want) {
		t.Errorf("report lacks %q:\n%s", want, rep.Text())
	}
}
