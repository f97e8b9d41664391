package codex

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
	"github.com/rlog-ls/rlog-ls/internal/producers/openai"
	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

// needCLI returns the pinned Codex and ccusage binaries named by
// RLOG_CODEX and RLOG_CCUSAGE, or skips saying why (see harness.NeedFiles).
func needCLI(t *testing.T) (codex, ccusage string) {
	t.Helper()
	f := harness.NeedFiles(t, "Codex CLI", BinaryEnv, harness.CCUsageEnv)
	return f[0], f[1]
}

// TestScenariosWithTheRealCLI runs every scenario with the pinned CLI and
// checks what it did and wrote (Check). Then it plants each main thread's
// rollout in a fresh CODEX_HOME, resumes it, and requires the conversation
// the CLI sends to be the one the thread ended with.
func TestScenariosWithTheRealCLI(t *testing.T) {
	codex, ccusage := needCLI(t)
	dir := t.TempDir()
	recs := RecordAll(context.Background(), codex, ccusage, dir, 4, true)
	driver.EachRecording(t, recs, func(t *testing.T, s *Scenario) {
		if s.Ends != "" {
			checkResume(t, codex, s, filepath.Join(dir, s.Name))
		}
	})
}

// checkResume resumes the main thread's rollout and compares the
// conversation the CLI sends with the last request of the thread (the one
// the rule Ends answered) and that answer.
func checkResume(t *testing.T, codex string, s *Scenario, dir string) {
	t.Helper()
	sum, body, header := requestAnsweredBy(t, dir, s.Ends)
	req, err := openai.ParseRequest(body, header)
	if err != nil {
		t.Fatal(err)
	}
	var reply openai.Reply
	for _, r := range s.Rules {
		if r.Name == s.Ends {
			reply = openai.Sent(r.Reply, sum.ResponseID)
		}
	}
	want := standin.AppendTurn(openai.Conversation(req), openai.AnswerTurn(reply))
	tokens, err := ReadTokens(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Resume(context.Background(), codex, ResumeRequest{Rollout: filepath.Join(dir, CodexHomeName, tokens.main().File)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Run.ExitCode != 0 {
		t.Fatalf("resuming %s: exit code %d: %s", sum.Thread, res.Run.ExitCode, res.Run.Stderr)
	}
	got, ok := standin.WithoutPrompt(res.Conversation, "Go on.")
	if !ok {
		t.Fatalf("resuming %s: the conversation does not end with the new prompt: %v", sum.Thread, got)
	}
	if d := standin.DiffConversations(want, got); d != "" {
		t.Errorf("resuming thread %s (ended by rule %s) gives another conversation: %s", sum.Thread, s.Ends, d)
	}
}

// requestAnsweredBy finds the request a rule answered in a recording made
// with bodies: its summary, body and headers.
func requestAnsweredBy(t *testing.T, dir, rule string) (RequestSummary, []byte, map[string][]string) {
	t.Helper()
	sum, p := harness.RequestAnsweredBy(t, dir, rule, func(s RequestSummary) (string, int) { return s.Rule, s.Seq })
	body, err := os.ReadFile(p + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var header map[string][]string
	if err := harness.ReadJSON(p+".headers.json", &header); err != nil {
		t.Fatal(err)
	}
	return sum, body, header
}

// TestResumeAMovedRollout resumes a committed rollout as it is and again
// with its working directory moved outside the sandbox and its file
// renamed (as a rollout a converter wrote would be): the CLI must rebuild
// the same conversation from both.
func TestResumeAMovedRollout(t *testing.T) {
	codex, _ := needCLI(t)
	s := ScenarioNamed("resume")
	tokens, err := ReadTokens(filepath.Join(pinnedFixtures, s.Name))
	if err != nil {
		t.Fatal(err)
	}
	original := filepath.Join(pinnedFixtures, s.Name, CodexHomeName, tokens.main().File)
	data, err := os.ReadFile(original)
	if err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(t.TempDir(), "exported.jsonl")
	data = bytes.ReplaceAll(data, []byte(s.Dir().Work()), []byte("/home/someone/project"))
	if err := os.WriteFile(moved, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var convs [][]standin.Turn
	for _, p := range []string{original, moved} {
		res, err := Resume(context.Background(), codex, ResumeRequest{Rollout: p, Prompt: "Anything else?"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Run.ExitCode != 0 || len(res.Conversation) == 0 {
			t.Fatalf("resuming %s: exit code %d, %d turns: %s", p, res.Run.ExitCode, len(res.Conversation), res.Run.Stderr)
		}
		convs = append(convs, res.Conversation)
	}
	if d := standin.DiffConversations(convs[0], convs[1]); d != "" {
		t.Errorf("the moved rollout resumes otherwise: %s", d)
	}
	if n := len(convs[0]); n != 11 || !strings.Contains(convs[0][10].Parts[0].Text, "Anything else?") {
		t.Errorf("the resume session resumes with %d turns, want 11 (three prompts, two calls and their outputs, three answers, the new prompt): %v", n, convs[0])
	}
}
