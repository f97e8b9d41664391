package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert"
	agentstore "github.com/rlog-ls/rlog-ls/internal/benchdata/store"
	"github.com/rlog-ls/rlog-ls/sessions"
)

// sessionFixtures are the recorded sessions of every agent and the
// project's rlog fixtures.
func sessionFixtures(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{"../../testdata/agents", "../../testdata/logs", "../../testdata/claude"} {
		out = append(out, sessions.Under(dir)...)
	}
	out = append(out, "../../testdata/sample.rlog")
	var kept []string
	for _, p := range out {
		if _, ok := convert.ReadableFile(p); ok || strings.HasSuffix(p, ".rlog") {
			kept = append(kept, p)
		}
	}
	if len(kept) < 30 {
		t.Fatalf("only %d fixtures found", len(kept))
	}
	return kept
}

// One number, one rule: a session's row shows the tokens, cost, calls,
// errors, sub-agents and times stats shows of the same file.
func TestSessionsEqualStats(t *testing.T) {
	checkSessionsEqualStats(t, sessionFixtures(t))
}

// The same on sessions of the generated stores the sessions index's
// benchmarks list, of both shapes: transcripts shaped as the Claude Code
// CLI writes them (its bookkeeping records, toolUseResult, cost-state,
// compactions), and Claude Code transcripts our writer wrote from
// generated sessions, each entry with the rests of its events, which no
// recorded transcript has.
func TestSessionsEqualStatsGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and reads 2 x 6 MB of transcripts")
	}
	for _, shape := range []agentstore.Shape{agentstore.CLI, agentstore.Writer} {
		t.Run(string(shape), func(t *testing.T) {
			paths := agentstore.Generate(t, t.TempDir(), 4, 6<<20, shape)
			checkSessionsEqualStats(t, paths)
			subagents := 0
			for _, p := range paths {
				s, err := sessions.Read(p)
				if err != nil || s.Row.ToolCalls == 0 || s.Row.Tokens.In == 0 || s.Row.Start == nil {
					t.Fatalf("%s: a generated session with no calls, tokens or time compares nothing: %+v %v", p, s, err)
				}
				subagents += s.Row.Subagents
			}
			if shape == agentstore.CLI && subagents == 0 {
				t.Error("no generated session has a sub-agent: their figures are not compared")
			}
		})
	}
}

// checkSessionsEqualStats: each session file's row shows the figures
// stats shows of it.
func checkSessionsEqualStats(t *testing.T, paths []string) {
	t.Helper()
	open := func(p string) (io.ReadCloser, error) { return os.Open(p) }
	for _, p := range paths {
		st := sessionStats(p, open)
		s, err := sessions.Read(p)
		if (st.err != nil) != (err != nil) {
			t.Errorf("%s: stats %v, sessions %v", p, st.err, err)
			continue
		}
		if err != nil {
			continue
		}
		j, r := &st.json, &s.Row
		c := &j.Counters
		type figures struct {
			In, Out, Cached, Create uint64
			Calls, Errors, Sub      int
			Cost, Duration          string
			Start, End              string
		}
		str := func(v any) string { b, _ := json.Marshal(v); return string(b) }
		want := figures{c.TokensIn, c.TokensOut, c.TokensCached, c.TokensCacheCreate, j.ToolCalls, j.Errors, len(j.Subagents),
			str(j.CostUSD), str(j.DurationMS), str(j.Start), str(j.End)}
		got := figures{r.Tokens.In, r.Tokens.Out, r.Tokens.Cached, r.Tokens.CacheCreate, r.ToolCalls, r.Errors, r.Subagents,
			str(r.CostUSD), str(r.DurationMS), str(r.Start), str(r.End)}
		if got != want {
			t.Errorf("%s:\nsessions %+v\nstats    %+v", p, got, want)
		}
	}
}

// The command lists a folder's sessions newest first, as a table and as
// JSON, keeps its index where it is told, and says when a named file is
// not a session.
func TestSessionsCommand(t *testing.T) {
	index := filepath.Join(t.TempDir(), "idx.json")
	dir := "../../testdata/agents/claude-code"
	out, errOut, code := runCLI(t, "sessions", "--index", index, "--format", "json", dir)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc sessions.Doc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != 1 || len(doc.Sessions) < 8 {
		t.Fatalf("%d sessions", len(doc.Sessions))
	}
	for i := 1; i < len(doc.Sessions); i++ {
		if doc.Sessions[i].Start.After(*doc.Sessions[i-1].Start) {
			t.Errorf("row %d starts after row %d", i, i-1)
		}
	}
	if _, err := os.Stat(index); err != nil {
		t.Errorf("no index: %v", err)
	}
	text, _, code := runCLI(t, "sessions", "--index", index, dir)
	if code != 0 || !strings.HasPrefix(text, "when ") || !strings.Contains(text, "Create greet.sh") {
		t.Errorf("exit %d, text:\n%s", code, text)
	}
	bad := writeFile(t, t.TempDir(), "notes.json", `{"a": 1}`)
	_, errOut, code = runCLI(t, "sessions", "--index", index, bad, dir)
	if code != 2 || !strings.Contains(errOut, "notes.json: not a session") {
		t.Errorf("a file that is not a session: exit %d, %q", code, errOut)
	}
	// --touched: one line per call, exit 1 when none.
	touched, _, code := runCLI(t, "sessions", "--index", index, "--touched", "/tmp/rlog-producers/claude/write-edit/work/greet.sh", dir)
	if code != 0 || strings.Count(touched, "\n") != 2 || !strings.Contains(touched, ".jsonl:20: Write: /tmp/rlog-producers/claude/write-edit/work/greet.sh") {
		t.Errorf("touched: exit %d:\n%s", code, touched)
	}
	if _, _, code := runCLI(t, "sessions", "--index", index, "--touched", "/nowhere", dir); code != 1 {
		t.Errorf("touched nothing: exit %d", code)
	}
}
