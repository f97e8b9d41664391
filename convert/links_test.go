package convert_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert"
)

const agents = "../testdata/agents/"

// linkCase is one recorded session with one sub-agent: the parent's file,
// the sub-agent's, and the link between them.
type linkCase struct {
	name, parent, child  string
	callID, agentID, typ string
}

var linkCases = []linkCase{
	{
		name:    "claude-code",
		parent:  agents + "claude-code/2.1.328/subagent/claude/projects/-tmp-rlog-producers-claude-subagent-work/8d6b59c6-27db-4aed-8b2b-f2f27d16e2de.jsonl",
		child:   agents + "claude-code/2.1.328/subagent/claude/projects/-tmp-rlog-producers-claude-subagent-work/8d6b59c6-27db-4aed-8b2b-f2f27d16e2de/subagents/agent-ad1d58fb8290d2b47.jsonl",
		callID:  "toolu_sub_agent",
		agentID: "ad1d58fb8290d2b47",
		typ:     "general-purpose",
	},
	{
		name:    "codex",
		parent:  agents + "codex/0.169.0/subagent/codex-home/sessions/2026/11/27/rollout-2026-11-27T09-48-01-01a21c67-9be1-7b83-8662-aabac1099a87.jsonl",
		child:   agents + "codex/0.169.0/subagent/codex-home/sessions/2026/11/27/rollout-2026-11-27T09-48-02-01a21c67-9d75-7080-b481-7627893935f7.jsonl",
		callID:  "call_sub_spawn",
		agentID: "01a21c67-9d75-7080-b481-7627893935f7",
		typ:     "counter",
	},
	{
		name:    "codex-fork",
		parent:  agents + "codex/0.169.0/subagent-fork/codex-home/sessions/2026/11/27/rollout-2026-11-27T09-48-08-01a21c67-b692-7a00-8ce6-c7a01fd12fbc.jsonl",
		child:   agents + "codex/0.169.0/subagent-fork/codex-home/sessions/2026/11/27/rollout-2026-11-27T09-48-09-01a21c67-b85a-7722-bdf2-840f953e6eb4.jsonl",
		callID:  "call_sub_spawn",
		agentID: "01a21c67-b85a-7722-bdf2-840f953e6eb4",
		typ:     "counter",
	},
	{
		name:    "gemini-cli",
		parent:  agents + "gemini-cli/0.61.0/subagent/gemini/tmp/work/chats/session-2026-11-27T10-01-887c44e3.jsonl",
		child:   agents + "gemini-cli/0.61.0/subagent/gemini/tmp/work/chats/887c44e3-04f8-423e-bcfd-fd8605af5163/ffc9d7a8-867a-42a4-9528-86e06e6d7630.jsonl",
		callID:  "invoke_agent__invoke_agent_1795773719079_0",
		agentID: "ffc9d7a8-867a-42a4-9528-86e06e6d7630",
		typ:     "generalist",
	},
	{
		name:    "gemini-cli-incomplete",
		parent:  agents + "gemini-cli/0.61.0/subagent-incomplete/gemini/tmp/work/chats/session-2026-11-27T10-01-186c4290.jsonl",
		child:   agents + "gemini-cli/0.61.0/subagent-incomplete/gemini/tmp/work/chats/186c4290-c39a-4181-a350-d419c0d6210d/2de99d95-0db3-49c7-8fd1-6d37299eb3a5.jsonl",
		callID:  "invoke_agent__invoke_agent_1795773718599_0",
		agentID: "2de99d95-0db3-49c7-8fd1-6d37299eb3a5",
		typ:     "generalist",
	},
}

// TestSubagentLinks holds each agent's recorded sub-agent to its
// session both ways: the session lists it, and it names the session.
func TestSubagentLinks(t *testing.T) {
	for _, c := range linkCases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := os.Stat(c.parent); err != nil {
				t.Skipf("recorded transcript missing: %v", err)
			}
			subs, err := convert.Subagents(c.parent)
			if err != nil {
				t.Fatal(err)
			}
			if len(subs) != 1 {
				t.Fatalf("Subagents(parent) = %+v, want the one sub-agent", subs)
			}
			checkLink(t, "Subagents(parent)[0]", subs[0], c, c.child)

			parent, ok, err := convert.ParentOf(c.child)
			if err != nil || !ok {
				t.Fatalf("ParentOf(child) = %+v, %v, %v", parent, ok, err)
			}
			checkLink(t, "ParentOf(child)", parent, c, c.parent)

			if l, ok, err := convert.ParentOf(c.parent); ok || err != nil {
				t.Errorf("ParentOf(parent) = %+v, %v, %v; a main session has none", l, ok, err)
			}
			if subs, err := convert.Subagents(c.child); len(subs) != 0 || err != nil {
				t.Errorf("Subagents(child) = %+v, %v; the sub-agent started none", subs, err)
			}
		})
	}
}

func checkLink(t *testing.T, what string, got convert.Link, c linkCase, path string) {
	t.Helper()
	if !sameFile(got.Path, path) {
		t.Errorf("%s.Path = %s, want %s", what, got.Path, path)
	}
	if got.CallID != c.callID || got.AgentID != c.agentID || got.Type != c.typ {
		t.Errorf("%s = %+v, want call %q, agent %q, type %q", what, got, c.callID, c.agentID, c.typ)
	}
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// TestSubagentLinksAcrossDays finds a Codex sub-agent's rollout written
// in the next day's folder of the sessions tree, and its parent from it.
func TestSubagentLinksAcrossDays(t *testing.T) {
	c := linkCases[1]
	root := t.TempDir()
	parent := filepath.Join(root, "sessions", "2026", "11", "27", filepath.Base(c.parent))
	child := filepath.Join(root, "sessions", "2026", "11", "28", filepath.Base(c.child))
	copyFile(t, c.parent, parent)
	copyFile(t, c.child, child)
	subs, err := convert.Subagents(parent)
	if err != nil || len(subs) != 1 || !sameFile(subs[0].Path, child) {
		t.Fatalf("Subagents = %+v, %v; want %s", subs, err, child)
	}
	l, ok, err := convert.ParentOf(child)
	if err != nil || !ok || !sameFile(l.Path, parent) || l.CallID != c.callID {
		t.Fatalf("ParentOf = %+v, %v, %v; want %s", l, ok, err, parent)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Skipf("recorded transcript missing: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
