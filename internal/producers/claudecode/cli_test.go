package claudecode

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rlog-ls/rlog-ls/internal/producers/anthropic"
	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

// needCLI returns the pinned Claude Code and ccusage binaries named by
// RLOG_CLAUDE_CODE and RLOG_CCUSAGE, or skips saying why (see
// harness.NeedFiles).
func needCLI(t *testing.T) (claude, ccusage string) {
	t.Helper()
	f := harness.NeedFiles(t, "Claude Code", BinaryEnv, harness.CCUsageEnv)
	return f[0], f[1]
}

// TestScenariosWithTheRealCLI runs every scenario with the pinned CLI and
// checks what it did and wrote (Check: every run's result, the stand-in
// answered every request from the script and every rule answered, the
// files, no record type unknown to convert/claude/records). Then it
// resumes each session's transcript with the CLI and requires the
// conversation the CLI sends to be the one the session ended with.
func TestScenariosWithTheRealCLI(t *testing.T) {
	claude, ccusage := needCLI(t)
	dir := t.TempDir()
	recs := RecordAll(context.Background(), claude, ccusage, dir, 3, true)
	driver.EachRecording(t, recs, func(t *testing.T, s *Scenario) {
		for _, end := range s.Ends {
			checkResume(t, claude, s, filepath.Join(dir, s.Name), end)
		}
	})
}

// checkResume resumes the session whose conversation the rule end's answer
// ended and compares the conversation the CLI sends with that request's
// and the answer.
func checkResume(t *testing.T, claude string, s *Scenario, dir, end string) {
	t.Helper()
	sum, body := requestAnsweredBy(t, dir, end)
	req, err := anthropic.ParseRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	var reply anthropic.Reply
	for _, r := range s.Rules {
		if r.Name == end {
			reply = r.Reply
		}
	}
	want := standin.AppendTurn(anthropic.Conversation(req), anthropic.AnswerTurn(reply))
	transcript := filepath.Join(dir, ConfigDirName, "projects", ProjectDirName(s.Dir().Work()), sum.Session+".jsonl")
	res, err := Resume(context.Background(), claude, ResumeRequest{Transcript: transcript})
	if err != nil {
		t.Fatal(err)
	}
	if res.Run.ExitCode != 0 {
		t.Fatalf("resuming %s: exit code %d: %s", sum.Session, res.Run.ExitCode, res.Run.Stderr)
	}
	got, ok := standin.WithoutPrompt(res.Conversation, "Go on.")
	if !ok {
		t.Fatalf("resuming %s: the conversation does not end with the new prompt: %v", sum.Session, got)
	}
	if s.Steps[len(s.Steps)-1].Interrupt && len(got) > len(want) {
		// An interrupted session goes on past the last request: the
		// refused call's result and the interruption.
		got = got[:len(want)]
	}
	if d := standin.DiffConversations(want, got); d != "" {
		t.Errorf("resuming session %s (ended by rule %s) gives another conversation: %s", sum.Session, end, d)
	}
}

// requestAnsweredBy finds the request a rule answered in a recording made
// with bodies: its summary and its whole body.
func requestAnsweredBy(t *testing.T, dir, rule string) (RequestSummary, []byte) {
	t.Helper()
	sum, p := harness.RequestAnsweredBy(t, dir, rule, func(s RequestSummary) (string, int) { return s.Rule, s.Seq })
	body, err := os.ReadFile(p + ".json")
	if err != nil {
		t.Fatal(err)
	}
	return sum, body
}

// TestResumeAnyTranscript resumes a committed transcript as it is and
// again with its records moved to a folder outside the sandbox (as a
// user's transcript would be, or an export's): the CLI must rebuild the
// same conversation from both, the comparison later tests make between an
// original and its export.
func TestResumeAnyTranscript(t *testing.T) {
	claude, _ := needCLI(t)
	s := ScenarioNamed("tools")
	matches, err := filepath.Glob(filepath.Join(pinnedFixtures, s.Name, ConfigDirName, "projects", "*", "*.jsonl"))
	if err != nil || len(matches) != 1 {
		t.Fatalf("the tools fixture's transcript: %v %v", matches, err)
	}
	original := matches[0]
	data, err := os.ReadFile(original)
	if err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(t.TempDir(), "moved.jsonl")
	data = bytes.ReplaceAll(data, []byte(`"cwd":"`+s.Dir().Work()+`"`), []byte(`"cwd":"/home/someone/project"`))
	if err := os.WriteFile(moved, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var convs [][]standin.Turn
	for _, p := range []string{original, moved} {
		res, err := Resume(context.Background(), claude, ResumeRequest{Transcript: p, Prompt: "Anything else?"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Run.ExitCode != 0 || len(res.Conversation) == 0 {
			t.Fatalf("resuming %s: exit code %d, %d turns: %s", p, res.Run.ExitCode, len(res.Conversation), res.Run.Stderr)
		}
		convs = append(convs, res.Conversation)
	}
	if d := standin.DiffConversations(convs[0], convs[1]); d != "" {
		t.Errorf("the moved transcript resumes otherwise: %s", d)
	}
	if n := len(convs[0]); n != 9 {
		t.Errorf("the tools session resumes with %d turns, want 9 (the prompt, three calls and their results, the answer, the new prompt)", n)
	}
}
