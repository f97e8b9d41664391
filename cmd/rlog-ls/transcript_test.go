package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/internal/producers/claudecode"
)

// TestCommandsReadTranscripts: stats, report and check on a Claude Code
// transcript read its rlog view (the reader's conversion), not the JSONL
// as rlog text: for every transcript the pinned Claude Code wrote, stats'
// tokens and cost are the CLI's own accounting (the modelUsage and
// total_cost_usd of the session's last run in results.json, a
// compaction's call included), check finds
// no error or warning, and the report counts its messages and calls.
func TestCommandsReadTranscripts(t *testing.T) {
	results, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "agents", "claude-code", "*", "*", "results.json"))
	if len(results) == 0 {
		t.Fatal("no recorded Claude Code scenarios in testdata/agents/claude-code")
	}
	for _, res := range results {
		dir := filepath.Dir(res)
		cli, err := claudecode.ReadAccounting(dir)
		if err != nil {
			t.Fatal(err)
		}
		transcripts, _ := filepath.Glob(filepath.Join(dir, "claude", "projects", "*", "*.jsonl"))
		for _, p := range transcripts {
			name := filepath.Base(dir) + "/" + filepath.Base(p)
			s := statsOfOne(t, p)
			c := s.Counters
			got := [4]uint64{c.TokensIn, c.TokensOut, c.TokensCached, c.TokensCacheCreate}
			id := strings.TrimSuffix(filepath.Base(p), ".jsonl")
			if want := cli[id]; got != [4]uint64{want.In, want.Out, want.Cached, want.CacheCreate} {
				t.Errorf("%s: stats tokens %v, the CLI's %+v", name, got, want)
			}
			if got := s.CostUSD; got == nil || *got != cli[id].CostUSD {
				t.Errorf("%s: stats cost %v, the CLI's %v", name, got, cli[id].CostUSD)
			}
			if s.ID != id || s.Messages == 0 {
				t.Errorf("%s: stats session %q with %d messages", name, s.ID, s.Messages)
			}
			if stdout, _, code := runCLI(t, "check", "--format", "json", p); code != 0 {
				t.Errorf("%s: check exit %d: %s", name, code, stdout)
			} else if strings.Contains(stdout, `"severity": "error"`) || strings.Contains(stdout, `"severity": "warning"`) {
				t.Errorf("%s: check: %s", name, stdout)
			}
			stdout, stderr, code := runCLI(t, "report", "-o", "-", p)
			if code != 0 {
				t.Fatalf("%s: report exit %d: %s", name, code, stderr)
			}
			if !strings.Contains(stdout, id) || strings.Contains(stdout, "unknown line format") {
				t.Errorf("%s: the report is not of the session's rlog view", name)
			}
			if cost, _ := json.Marshal(cli[id].CostUSD); !strings.Contains(stdout, `"cost_usd":`+string(cost)) {
				t.Errorf("%s: the report has not the CLI's cost %s", name, cost)
			}
		}
	}
}

// TestStatsOfAProjectsFolder: stats on a Claude Code projects folder has
// one row per session; the sub-agents' transcripts (SESSION/subagents/)
// are read with their session, not as sessions of their own.
func TestStatsOfAProjectsFolder(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "agents", "claude-code", "2.1.328", "subagent", "claude", "projects")
	st := statsJSON(t, dir)
	if len(st.Sessions) != 1 || st.Sessions[0].ID != "8d6b59c6-27db-4aed-8b2b-f2f27d16e2de" || len(st.Sessions[0].Subagents) != 1 ||
		st.Totals.Counters.TokensOut != 110 {
		t.Errorf("sessions %d, totals %+v", len(st.Sessions), st.Totals.Counters)
	}
}

// TestStatsOfAGeminiFolder: stats and export on Gemini CLI's folder of
// sessions read a sub-agent's file with the session that called it, not
// as a session of its own (its tokens counted twice).
func TestStatsOfAGeminiFolder(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "agents", "gemini-cli", "0.61.0", "subagent", "gemini", "tmp")
	sub, _ := filepath.Glob(filepath.Join(dir, "*", "chats", "*", "*.jsonl"))
	if len(sub) == 0 {
		t.Fatal("no sub-agent file in the recorded subagent scenario")
	}
	st := statsJSON(t, dir)
	if len(st.Sessions) != 1 || len(st.Sessions[0].Subagents) != 1 || st.Totals.Counters != st.Sessions[0].Counters {
		t.Errorf("%d sessions, totals %+v", len(st.Sessions), st.Totals.Counters)
	}
	out := filepath.Join(t.TempDir(), "traces.jsonl")
	if _, stderr, code := runCLI(t, "export", "--otlp", "-o", out, dir); code != 0 || !strings.Contains(stderr, "1 session") {
		t.Errorf("export of the folder: exit %d, %s", code, stderr)
	}
}

// TestStatsOfOtherAgentsSessions: a Codex CLI rollout and a Gemini CLI
// session, given to stats as they are, count what their conversion to
// rlog counts; each file is its view's companion, so APM counts from it,
// as a Claude Code transcript's does.
func TestStatsOfOtherAgentsSessions(t *testing.T) {
	codex, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "agents", "codex", "*", "*", "codex-home", "sessions", "*", "*", "*", "*.jsonl"))
	gemini, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "agents", "gemini-cli", "*", "*", "gemini", "tmp", "*", "chats", "*.jsonl"))
	if len(codex) == 0 || len(gemini) == 0 {
		t.Fatalf("recorded sessions: %d of Codex, %d of Gemini", len(codex), len(gemini))
	}
	dir := t.TempDir()
	for _, p := range []string{codex[0], gemini[0]} {
		out := filepath.Join(dir, filepath.Base(p)+".rlog")
		if _, stderr, code := runCLI(t, "convert", "--to", "rlog", "-o", out, p); code != 0 {
			t.Fatalf("convert %s: %s", p, stderr)
		}
		got, want := statsOfOne(t, p), statsOfOne(t, out)
		if got.Counters != want.Counters || got.Messages != want.Messages || got.APM.Source != analysis.APMFromCompanion || want.APM.Source != analysis.APMFromRlog {
			t.Errorf("%s: stats %+v (APM from %s), its conversion's %+v", p, got.Counters, got.APM.Source, want.Counters)
		}
	}
}

// TestStatsWalksHiddenFolders: stats on a folder finds the logs in its
// hidden folders, as check does (a session store such as ~/.claude lies
// in one); only export passes hidden folders over.
func TestStatsWalksHiddenFolders(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".agent"), "s.rlog", cleanHeader+"u: hello\n")
	if stdout, stderr, code := runCLI(t, "stats", dir); code != 0 || !strings.Contains(stdout, "s.rlog") {
		t.Errorf("stats: exit %d: %s%s", code, stdout, stderr)
	}
}
