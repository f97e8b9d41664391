package convert_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/model"
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
// in the next day's folder of the sessions tree, and its parent from it,
// also in a tree whose path has the characters of a glob pattern.
func TestSubagentLinksAcrossDays(t *testing.T) {
	for _, root := range []string{t.TempDir(), filepath.Join(t.TempDir(), globFolder)} {
		subagentLinksAcrossDays(t, root)
	}
}

func subagentLinksAcrossDays(t *testing.T, root string) {
	c := linkCases[1]
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

// TestSubagentLinksOfLogs: an autopilot log's NAME.sub-ID.jsonl, from the
// log, its SDK JSONL companion (named in clean form or not) and the
// sub-agent's file; a converted
// Claude Code log's sub-agents through its companion transcript.
func TestSubagentLinksOfLogs(t *testing.T) {
	const sdk = "../testdata/companions/sdk/222000-fix-locked-login"
	sub := sdk + ".sub-DZYW3CfJ.jsonl"
	for _, parent := range []string{sdk + ".rlog", sdk + ".jsonl", filepath.Dir(sdk) + "/./" + filepath.Base(sdk) + ".jsonl"} {
		subs, err := convert.Subagents(parent)
		if err != nil || len(subs) != 1 {
			t.Fatalf("Subagents(%s) = %+v, %v", parent, subs, err)
		}
		want := convert.Link{Path: sub, CallID: "DZYW3CfJ", AgentID: "DZYW3CfJ", Type: "Explore"}
		if subs[0] != want {
			t.Errorf("Subagents(%s) = %+v, want %+v", parent, subs[0], want)
		}
	}
	l, ok, err := convert.ParentOf(sub)
	if want := (convert.Link{Path: sdk + ".jsonl", CallID: "DZYW3CfJ", AgentID: "DZYW3CfJ", Type: "Explore"}); err != nil || !ok || l != want {
		t.Errorf("ParentOf(sub) = %+v, %v, %v; want %+v", l, ok, err, want)
	}
	if subs, err := convert.Subagents(sub); len(subs) != 0 || err != nil {
		t.Errorf("Subagents(sub) = %+v, %v", subs, err)
	}

	const claude = "../testdata/companions/claude/5c1e9f27-0d3b-4a8e-b6f2-91c4d7a3e850"
	subs, err := convert.Subagents(claude + ".rlog")
	want := convert.Link{Path: claude + "/subagents/agent-a4f7c21.jsonl", AgentID: "a4f7c21"}
	if err != nil || len(subs) != 1 || subs[0] != want {
		t.Errorf("Subagents(claude log) = %+v, %v; want %+v", subs, err, want)
	}
	if l, ok, err := convert.ParentOf(claude + ".rlog"); ok || err != nil {
		t.Errorf("ParentOf(log) = %+v, %v, %v; rlog names no parent", l, ok, err)
	}
}

// TestSubagentLinksATIF follows subagent_trajectory_ref's trajectory_path
// from a trajectory to its sub-agent's file and back, in a folder whose
// name has the characters of a glob pattern too.
func TestSubagentLinksATIF(t *testing.T) {
	for _, dir := range []string{t.TempDir(), filepath.Join(t.TempDir(), globFolder)} {
		subagentLinksATIF(t, dir)
	}
}

func subagentLinksATIF(t *testing.T, dir string) {
	main := filepath.Join(dir, "main.trajectory.json")
	child := filepath.Join(dir, "explore-s2.trajectory.json")
	write(t, main, `{"schema_version":"ATIF-v1.5","session_id":"s1","agent":{"name":"a","version":"1"},"steps":[
{"step_id":1,"source":"user","message":"go"},
{"step_id":2,"source":"agent","message":"","tool_calls":[{"tool_call_id":"call_1","function_name":"runSubagent","arguments":{}}],
 "observation":{"results":[{"source_call_id":"call_1","content":"done",
  "subagent_trajectory_ref":[{"session_id":"s2","trajectory_path":"explore-s2.trajectory.json","extra":{"agent_type":"Explore"}},{"session_id":"gone","trajectory_path":"missing.json"}]}]}}]}`)
	write(t, child, `{"schema_version":"ATIF-v1.5","session_id":"s2","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"user","message":"look"}]}`)
	subs, err := convert.Subagents(main)
	want := convert.Link{Path: child, CallID: "call_1", AgentID: "s2", Type: "Explore"}
	if err != nil || len(subs) != 1 || subs[0] != want {
		t.Fatalf("Subagents = %+v, %v; want %+v", subs, err, want)
	}
	l, ok, err := convert.ParentOf(child)
	want.Path = main
	if err != nil || !ok || l != want {
		t.Errorf("ParentOf = %+v, %v, %v; want %+v", l, ok, err, want)
	}
	if l, ok, err := convert.ParentOf(main); ok || err != nil {
		t.Errorf("ParentOf(main) = %+v, %v, %v", l, ok, err)
	}
}

// globFolder is a folder name with the characters of a glob pattern (a
// project folder named app[2], say).
const globFolder = `app[2]`

// TestSubagentsInGlobFolders: each agent's recorded sub-agent is linked
// to its session both ways, and read with it, in a folder whose path has
// the characters of a glob pattern, as in its own.
func TestSubagentsInGlobFolders(t *testing.T) {
	for _, c := range linkCases {
		t.Run(c.name, func(t *testing.T) {
			// The scenario's folder: agents/AGENT/VERSION/SCENARIO.
			rel, _ := filepath.Rel(agents, c.parent)
			scenario := filepath.Join(append([]string{agents}, strings.SplitN(filepath.ToSlash(rel), "/", 4)[:3]...)...)
			root := filepath.Join(t.TempDir(), globFolder)
			copyTree(t, scenario, root)
			moved := func(p string) string {
				rel, _ := filepath.Rel(scenario, p)
				return filepath.Join(root, rel)
			}
			parent, child := moved(c.parent), moved(c.child)
			subs, err := convert.Subagents(parent)
			if err != nil || len(subs) != 1 {
				t.Fatalf("Subagents(parent) = %+v, %v; want the one sub-agent", subs, err)
			}
			checkLink(t, "Subagents(parent)[0]", subs[0], c, child)
			l, ok, err := convert.ParentOf(child)
			if err != nil || !ok {
				t.Fatalf("ParentOf(child) = %+v, %v, %v", l, ok, err)
			}
			checkLink(t, "ParentOf(child)", l, c, parent)
			if got, want := agentsRead(t, parent), agentsRead(t, c.parent); !reflect.DeepEqual(got, want) {
				t.Errorf("the session read from %s has the events of agents %v, from its own folder %v", globFolder, got, want)
			}
		})
	}
}

// TestSubagentLinksSharedFolder: a Claude Code sub-agent's transcript in
// the project's shared subagents/ folder belongs to the transcript of
// the same session beside it, whatever that one's name, in a project
// folder whose name has the characters of a glob pattern too.
func TestSubagentLinksSharedFolder(t *testing.T) {
	for _, dir := range []string{t.TempDir(), filepath.Join(t.TempDir(), globFolder)} {
		main := filepath.Join(dir, "renamed.jsonl")
		sub := filepath.Join(dir, "subagents", "agent-a.jsonl")
		write(t, main, `{"type":"user","uuid":"u0","parentUuid":null,"userType":"external","version":"2.1.328","cwd":"/w","sessionId":"s1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"go"}}`+"\n")
		write(t, sub, `{"type":"user","uuid":"u1","parentUuid":null,"userType":"external","version":"2.1.328","cwd":"/w","sessionId":"s1","agentId":"a","isSidechain":true,"timestamp":"2026-01-01T00:00:01Z","message":{"role":"user","content":"sub"}}`+"\n")
		if l, ok, err := convert.ParentOf(sub); err != nil || !ok || l.Path != main || l.AgentID != "a" {
			t.Errorf("ParentOf(%s) = %+v, %v, %v; want %s", sub, l, ok, err, main)
		}
	}
}

// agentsRead reads the session file at path in its format and counts its
// events by agent.
func agentsRead(t *testing.T, path string) map[string]int {
	t.Helper()
	f, err := convert.DetectFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c model.Collector
	if err := convert.ReadFile(path, f, &c, &model.Report{}); err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, e := range c.Session.Events {
		n[e.AgentID]++
	}
	return n
}

// copyTree copies the files below from to the same places below to.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		copyFile(t, p, filepath.Join(to, rel))
		return nil
	})
	if err != nil {
		t.Skipf("recorded scenario missing: %v", err)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSubagentLinksNested: a sub-agent's own sub-agent is its, not the
// session's (Claude Code's spawnDepth and the call its transcript holds;
// Gemini CLI's call in the sub-agent's file, all files in the session's
// folder).
func TestSubagentLinksNested(t *testing.T) {
	t.Run("claude-code", func(t *testing.T) {
		dir := t.TempDir()
		main := filepath.Join(dir, "s1.jsonl")
		subs := filepath.Join(dir, "s1", "subagents")
		a, b := filepath.Join(subs, "agent-a.jsonl"), filepath.Join(subs, "agent-b.jsonl")
		write(t, main, `{"type":"assistant","uuid":"u0","parentUuid":null,"userType":"external","version":"2.1.328","cwd":"/w","sessionId":"s1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_A","name":"Agent","input":{}}]}}`+"\n")
		write(t, a, `{"type":"user","uuid":"u1","parentUuid":null,"userType":"external","version":"2.1.328","cwd":"/w","sessionId":"s1","agentId":"a","isSidechain":true,"timestamp":"2026-01-01T00:00:01Z","message":{"role":"user","content":"go"}}`+"\n"+
			`{"type":"assistant","uuid":"u0","parentUuid":null,"userType":"external","version":"2.1.328","cwd":"/w","sessionId":"s1","agentId":"a","isSidechain":true,"timestamp":"2026-01-01T00:00:02Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_B","name":"Agent","input":{}}]}}`+"\n")
		write(t, filepath.Join(subs, "agent-a.meta.json"), `{"agentType":"Plan","toolUseId":"toolu_A","spawnDepth":1}`)
		write(t, b, `{"type":"user","uuid":"u1","parentUuid":null,"userType":"external","version":"2.1.328","cwd":"/w","sessionId":"s1","agentId":"b","isSidechain":true,"timestamp":"2026-01-01T00:00:03Z","message":{"role":"user","content":"deeper"}}`+"\n")
		write(t, filepath.Join(subs, "agent-b.meta.json"), `{"agentType":"Explore","toolUseId":"toolu_B","spawnDepth":2}`)
		checkTree(t, main, a, b,
			convert.Link{Path: a, CallID: "toolu_A", AgentID: "a", Type: "Plan"},
			convert.Link{Path: b, CallID: "toolu_B", AgentID: "b", Type: "Explore"})
	})
	t.Run("gemini-cli", func(t *testing.T) {
		chats := filepath.Join(t.TempDir(), "chats")
		const sid, aid, bid = "11111111-aaaa-bbbb-cccc-000000000000", "22222222-aaaa-bbbb-cccc-000000000000", "33333333-aaaa-bbbb-cccc-000000000000"
		main := filepath.Join(chats, "session-2026-01-01T00-00-11111111.jsonl")
		a, b := filepath.Join(chats, sid, aid+".jsonl"), filepath.Join(chats, sid, bid+".jsonl")
		call := func(id, agent string) string {
			return `{"id":"m` + id + `","timestamp":"2026-01-01T00:00:00Z","type":"gemini","content":"","toolCalls":[{"id":"` + id + `","name":"invoke_agent","args":{"agent_name":"generalist"},"status":"success","agentId":"` + agent + `"}]}` + "\n"
		}
		write(t, main, `{"sessionId":"`+sid+`","projectHash":"ab","startTime":"2026-01-01T00:00:00Z","lastUpdated":"2026-01-01T00:00:00Z","kind":"main"}`+"\n"+
			`{"id":"u1","timestamp":"2026-01-01T00:00:00Z","type":"user","content":[{"text":"go"}]}`+"\n"+call("call_a", aid))
		write(t, a, `{"sessionId":"`+aid+`","projectHash":"ab","startTime":"2026-01-01T00:00:01Z","lastUpdated":"2026-01-01T00:00:01Z","kind":"subagent"}`+"\n"+call("call_b", bid))
		write(t, b, `{"sessionId":"`+bid+`","projectHash":"ab","startTime":"2026-01-01T00:00:02Z","lastUpdated":"2026-01-01T00:00:02Z","kind":"subagent"}`+"\n")
		checkTree(t, main, a, b,
			convert.Link{Path: a, CallID: "call_a", AgentID: aid, Type: "generalist"},
			convert.Link{Path: b, CallID: "call_b", AgentID: bid, Type: "generalist"})
	})
}

// checkTree checks main → a → b both ways.
func checkTree(t *testing.T, main, a, b string, toA, toB convert.Link) {
	t.Helper()
	for _, c := range []struct {
		from string
		want []convert.Link
	}{{main, []convert.Link{toA}}, {a, []convert.Link{toB}}, {b, nil}} {
		got, err := convert.Subagents(c.from)
		if err != nil || len(got) != len(c.want) || len(got) > 0 && got[0] != c.want[0] {
			t.Errorf("Subagents(%s) = %+v, %v; want %+v", filepath.Base(c.from), got, err, c.want)
		}
	}
	upA, upB := toA, toB
	upA.Path, upB.Path = main, a
	for _, c := range []struct {
		from string
		want convert.Link
	}{{a, upA}, {b, upB}} {
		got, ok, err := convert.ParentOf(c.from)
		if err != nil || !ok || got != c.want {
			t.Errorf("ParentOf(%s) = %+v, %v, %v; want %+v", filepath.Base(c.from), got, ok, err, c.want)
		}
	}
}
