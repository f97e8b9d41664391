package claude_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/claude"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

// recordedSubagent copies the recorded sub-agent scenario (Claude Code
// 2.1.328: an Agent call run in the background, its transcript in
// SESSION/subagents/ with its meta file) into a folder of its own, the
// main transcript changed by edit, and returns the main transcript's path.
func recordedSubagent(t *testing.T, edit func([]byte) []byte) string {
	t.Helper()
	m, _ := filepath.Glob("../../testdata/agents/claude-code/2.1.328/subagent/claude/projects/*/*.jsonl")
	if len(m) != 1 {
		t.Fatalf("the recorded subagent scenario: %v", m)
	}
	src := m[0]
	dir := t.TempDir()
	main := filepath.Join(dir, filepath.Base(src))
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(main, edit(b), 0o644); err != nil {
		t.Fatal(err)
	}
	subs, _ := filepath.Glob(filepath.Join(filepath.Dir(src), "*", "subagents", "*"))
	for _, p := range subs {
		rel, _ := filepath.Rel(filepath.Dir(src), p)
		dst := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(dst), 0o755)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(dst, b, 0o644)
	}
	return main
}

// TestBackgroundSubagent: a sub-agent run in the background is framed by
// its start after the Agent call, with its type from its meta file, and
// its end at the task notification that reports it back, its result the
// summary; found by the meta file's toolUseId when the launch's result
// names no agentId.
func TestBackgroundSubagent(t *testing.T) {
	for name, edit := range map[string]func([]byte) []byte{
		"as written": func(b []byte) []byte { return b },
		"no agentId in the result": func(b []byte) []byte {
			return regexp.MustCompile(`"agentId":"[0-9a-f]+",`).ReplaceAll(b, nil)
		},
	} {
		path := recordedSubagent(t, edit)
		var c model.Collector
		if err := claude.ReadFile(path, &c, &model.Report{}); err != nil {
			t.Fatal(err)
		}
		var frames []model.Subagent
		subTurns := 0
		for _, e := range c.Session.Events {
			if e.Kind == model.KindSubagent {
				frames = append(frames, *e.Subagent)
			} else if e.AgentID == "ad1d58fb8290d2b47" {
				subTurns++
			}
		}
		if len(frames) != 2 || subTurns == 0 {
			t.Fatalf("%s: frames %+v, %d turns of the sub-agent", name, frames, subTurns)
		}
		start, done := frames[0], frames[1]
		// The notification follows its sub-agent's end, the harness's
		// message, not a prompt of the user.
		for i, e := range c.Session.Events {
			if e.Kind == model.KindUser && strings.HasPrefix(e.Text, "<task-notification>") {
				if prev := c.Session.Events[i-1]; !e.Meta || prev.Kind != model.KindSubagent || prev.Subagent.Status != "done" ||
					prev.Subagent.AgentID != "ad1d58fb8290d2b47" || !strings.Contains(e.Text, "<tool-use-id>"+prev.Subagent.ID+"<") {
					t.Errorf("%s: the task notification (meta %v) after %+v", name, e.Meta, prev.Subagent)
				}
			}
		}
		if start.Status != "started" || start.ID != "toolu_sub_agent" || start.Type != "general-purpose" ||
			done.Status != "done" || done.ID != "toolu_sub_agent" || done.Summary != "The folder is at version 1.4.2." {
			t.Errorf("%s: start %+v, done %+v", name, start, done)
		}
	}
}

// TestTaskNotificationWrittenAsClaudeCodeWroteIt: the reader marks a task
// notification meta (the harness wrote it); Claude Code does not, and the
// export of its transcript does not either.
func TestTaskNotificationWrittenAsClaudeCodeWroteIt(t *testing.T) {
	path := recordedSubagent(t, func(b []byte) []byte { return b })
	var c model.Collector
	if err := claude.ReadFile(path, &c, &model.Report{}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := claude.Write(&out, &c.Session, &model.Report{}, model.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.Contains(l, `"content":"<task-notification>`) && strings.Contains(l, `"isMeta"`) {
			t.Errorf("the task notification is written isMeta: %s", l)
		}
	}
	if !strings.Contains(out.String(), `"content":"<task-notification>`) {
		t.Errorf("the export has no task notification")
	}
}

// TestCompactionUsageReadAhead: a compaction's own model call, which no
// assistant record shows, is its run's cost-state less the run's records:
// read from a file, it is on the compaction (Claude Code's totals are
// then the records' sum); read once (standard input), it cannot be, and
// the loss report says so.
func TestCompactionUsageReadAhead(t *testing.T) {
	m, _ := filepath.Glob("../../testdata/agents/claude-code/2.1.328/compaction/claude/projects/*/*.jsonl")
	if len(m) != 1 {
		t.Fatalf("the recorded compaction scenario: %v", m)
	}
	var fromFile model.Collector
	if err := claude.ReadFile(m[0], &fromFile, &model.Report{}); err != nil {
		t.Fatal(err)
	}
	compactions, total := compactionUsages(&fromFile.Session)
	want := model.Usage{Input: 7, Output: 37, CacheRead: 4100}
	if len(compactions) != 2 || compactions[0] != want || compactions[1] != want {
		t.Errorf("the compactions' usage %+v, want two of %+v", compactions, want)
	}
	if h := fromFile.Session.Header; h.Totals == nil || *h.Totals != total || h.CostUSD == nil || *h.CostUSD != 0.21729600000000004 {
		t.Errorf("totals %+v (the events count %+v), cost %v", h.Totals, total, h.CostUSD)
	}
	f, err := os.Open(m[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var once model.Collector
	rep := &model.Report{}
	if err := claude.Read(f, &once, rep); err != nil {
		t.Fatal(err)
	}
	for _, e := range once.Session.Events {
		if e.Kind == model.KindCompaction && e.Usage != nil {
			t.Errorf("a compaction with usage %+v from standard input", e.Usage)
		}
	}
	if !strings.Contains(rep.Text(), "usage of model calls no assistant record shows") {
		t.Errorf("the loss report does not say what was not counted:\n%s", rep.Text())
	}
}

// TestTwoCompactionsInOneRun: the recorded compaction-twice scenario
// compacts by hand in one run and twice on its own in the next. Every
// compaction keeps its trigger and its tokens before and after; the calls
// of the second run's two compactions, which the transcript does not tell
// apart, are on its first, and the loss report says so; the totals are
// Claude Code's.
func TestTwoCompactionsInOneRun(t *testing.T) {
	m, _ := filepath.Glob("../../testdata/agents/claude-code/2.1.328/compaction-twice/claude/projects/*/*.jsonl")
	if len(m) != 1 {
		t.Fatalf("the recorded compaction-twice scenario: %v", m)
	}
	var c model.Collector
	rep := &model.Report{}
	if err := claude.ReadFile(m[0], &c, rep); err != nil {
		t.Fatal(err)
	}
	type seen struct {
		model.Compaction
		usage model.Usage
	}
	var got []seen
	var l model.Ledger
	for i := range c.Session.Events {
		e := &c.Session.Events[i]
		l.Add(e)
		if e.Kind == model.KindCompaction {
			s := seen{Compaction: *e.Compaction}
			if e.Usage != nil {
				s.usage = *e.Usage
			}
			got = append(got, s)
		}
	}
	want := []seen{
		{model.Compaction{Trigger: "manual", PreTokens: 9155, PostTokens: 2585}, model.Usage{Input: 9, Output: 41, CacheRead: 4200}},
		{model.Compaction{Trigger: "auto", PreTokens: 992051, PostTokens: 2586}, model.Usage{Input: 11 + 13, Output: 43 + 47, CacheRead: 4300 + 4400}},
		{model.Compaction{Trigger: "auto", PreTokens: 992650, PostTokens: 2586}, model.Usage{}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the compactions\n%+v\nwant\n%+v", got, want)
	}
	if h := c.Session.Header; h.Totals == nil || *h.Totals != l.Total() {
		t.Errorf("totals %+v, the events count %+v", h.Totals, l.Total())
	}
	if text := rep.Text(); !strings.Contains(text, "several compactions in one run") || strings.Count(text, "compaction.usage") != 1 {
		t.Errorf("the loss report does not say once where the run's compactions' usage went:\n%s", text)
	}
}

// TestCompactionUsageCountsSubagentsAhead: the sub-agent a Task result
// after a compaction names (its toolUseResult's agentId) is counted ahead
// with the run's records, so the compaction's own call is what the
// cost-state counts beyond both. The recorded sub-agent scenario is given
// a compaction before the Agent call's result and a cost-state that
// counts a compaction call of 7 input, 37 output and 4,100 cache-read
// tokens more.
func TestCompactionUsageCountsSubagentsAhead(t *testing.T) {
	const boundary = `{"parentUuid":null,"isSidechain":false,"type":"system","subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,` +
		`"timestamp":"2026-11-27T09:22:00.000Z","uuid":"00000000-0000-4000-8000-000000000001","level":"info",` +
		`"compactMetadata":{"trigger":"manual","preTokens":9158,"durationMs":497,"postTokens":2579},"sessionId":"8d6b59c6-27db-4aed-8b2b-f2f27d16e2de"}` + "\n"
	path := recordedSubagent(t, func(b []byte) []byte {
		i := bytes.Index(b, []byte(`"toolUseResult":{"isAsync"`))
		i = bytes.LastIndexByte(b[:i], '\n') + 1
		b = append(b[:i:i], append([]byte(boundary), b[i:]...)...)
		return bytes.Replace(b, []byte(`"inputTokens":15,"outputTokens":110,"thinkingTokens":0,"cacheReadInputTokens":45000,`),
			[]byte(`"inputTokens":22,"outputTokens":147,"thinkingTokens":0,"cacheReadInputTokens":49100,`), 1)
	})
	var c model.Collector
	if err := claude.ReadFile(path, &c, &model.Report{}); err != nil {
		t.Fatal(err)
	}
	compactions, total := compactionUsages(&c.Session)
	want := model.Usage{Input: 7, Output: 37, CacheRead: 4100}
	if len(compactions) != 1 || compactions[0] != want {
		t.Errorf("the compactions' usage %+v, want one of %+v", compactions, want)
	}
	if h := c.Session.Header; h.Totals == nil || *h.Totals != total {
		t.Errorf("totals %+v, the events count %+v", h.Totals, total)
	}
}

// compactionUsages are the usage of each compaction of s that has one,
// and what all of s's events count.
func compactionUsages(s *model.Session) (usages []model.Usage, total model.Usage) {
	var l model.Ledger
	for i := range s.Events {
		e := &s.Events[i]
		l.Add(e)
		if e.Kind == model.KindCompaction && e.Usage != nil {
			usages = append(usages, *e.Usage)
		}
	}
	return usages, l.Total()
}
