package companion

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/grammar"
)

// agentSessions are the main session files of the recorded Codex CLI and
// Gemini CLI scenarios (testdata/agents), by scenario.
func agentSessions(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, pat := range []string{
		"../testdata/agents/codex/0.169.0/*/codex-home/sessions/*/*/*/rollout-*.jsonl",
		"../testdata/agents/gemini-cli/0.61.0/*/gemini/tmp/*/chats/session-*.json*",
	} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m {
			rel, _ := filepath.Rel("../testdata/agents", p)
			out[filepath.ToSlash(rel)] = p
		}
	}
	if len(out) < 20 {
		t.Fatalf("%d recorded Codex and Gemini sessions under testdata/agents: the fixtures are missing", len(out))
	}
	return out
}

// view is the rlog view of a session file: what the editor shows.
func view(t *testing.T, path string) *grammar.Tree {
	t.Helper()
	from, err := convert.DetectFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := convert.ConvertFile(path, from, convert.Rlog, &b, convert.Options{}); err != nil {
		t.Fatal(err)
	}
	return grammar.Parse(b.Bytes())
}

// TestAgentViewsJoin: every line of a Codex rollout's or a Gemini CLI
// session's rlog view that is written from a record (messages, thinking,
// calls, results, @init) is joined to the record it came from, that
// record's content is what the line shows the start of, and the pair has
// no finding: the views are joined as a Claude Code transcript's is.
func TestAgentViewsJoin(t *testing.T) {
	for name, path := range agentSessions(t) {
		t.Run(name, func(t *testing.T) {
			tr := view(t, path)
			s, err := Open(FilesOf(path)).Current()
			if err != nil {
				t.Fatal(err)
			}
			p := Join(tr, s)
			for _, f := range p.Findings() {
				t.Errorf("finding %s line %d: %s", f.Code, f.Line+1, f.Message)
			}
			for l := range tr.Body() {
				switch l.Kind {
				case grammar.User, grammar.Agent, grammar.Thinking, grammar.ToolStart, grammar.Tool, grammar.Observation:
				default:
					continue
				}
				text := string(tr.Text(l))
				ref, ok := p.Record(l.Num)
				if !ok {
					t.Errorf("line %d is not joined: %s", l.Num+1, text)
					continue
				}
				c, err := s.Content(ref)
				if err != nil {
					t.Errorf("line %d: the record: %v", l.Num+1, err)
					continue
				}
				if head := firstWords(c.Text); l.Kind != grammar.ToolStart && l.Kind != grammar.Tool && !strings.Contains(text, head) {
					t.Errorf("line %d shows %q, its record %q", l.Num+1, text, head)
				}
			}
		})
	}
}

// firstWords is the start of a record's text as a line shows it.
func firstWords(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 12 {
		s = s[:12]
	}
	return s
}

// TestGeminiJoinLandsOnTheLastWrite: Gemini CLI writes a message again,
// same id, when its tool calls finish; a line of the view is joined to
// the message's last write, which is the message.
func TestGeminiJoinLandsOnTheLastWrite(t *testing.T) {
	path := agentSessions(t)["gemini-cli/0.61.0/shell/gemini/tmp/work/chats/session-2026-11-27T10-03-95b180fc.jsonl"]
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	idOf := func(line string) string {
		var m struct{ ID string }
		json.Unmarshal([]byte(line), &m)
		return m.ID
	}
	tr := view(t, path)
	s, err := Open(FilesOf(path)).Current()
	if err != nil {
		t.Fatal(err)
	}
	p := Join(tr, s)
	rewritten := 0
	for n, ref := range p.Links() {
		rec := s.Files[ref.File].Record(int(ref.Rec))
		id := idOf(lines[rec.Line])
		if id == "" {
			continue
		}
		first := slices.IndexFunc(lines, func(l string) bool { return idOf(l) == id })
		if first != int(rec.Line) {
			rewritten++
		}
		for later := int(rec.Line) + 1; later < len(lines); later++ {
			if idOf(lines[later]) == id {
				t.Errorf("view line %d is joined to line %d of the session, but line %d writes message %s again", n+1, rec.Line+1, later+1, id)
			}
		}
	}
	if rewritten == 0 {
		t.Fatal("no joined message of the fixture was written twice: the test proves nothing")
	}
}

// copyAgentSession copies the recorded session file name to a temporary
// folder and returns the copy's path.
func copyAgentSession(t *testing.T, name string) (string, []byte) {
	t.Helper()
	src := agentSessions(t)[name]
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, data
}

const codexShell = "codex/0.169.0/shell/codex-home/sessions/2026/11/27/rollout-2026-11-27T09-48-02-01a21c67-9cb2-72e1-84b3-bc2e0a564e0a.jsonl"

// TestAgentSessionProblems: a line the reader cannot read is an
// unreadable line of the companion (W015) at its place; a last line
// without its end is a session still writing it, not a problem; a view
// of another session is W014 and joins nothing; a file that grows is
// indexed again.
func TestAgentSessionProblems(t *testing.T) {
	path, data := copyAgentSession(t, codexShell)
	tr := view(t, path)
	lines := strings.SplitAfter(string(data), "\n")
	broken := strings.Join(lines[:5], "") + "{not json\n" + strings.Join(lines[5:], "")
	if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	c := Open(FilesOf(path))
	s, err := c.Current()
	if err != nil {
		t.Fatal(err)
	}
	if pr := s.Main().AllProblems(); len(pr) != 1 || pr[0].Line != 5 || pr[0].Off != int64(len(strings.Join(lines[:5], ""))) || s.Main().BadLines != 1 {
		t.Fatalf("problems %+v (%d bad lines), want line 6", pr, s.Main().BadLines)
	}
	p := Join(tr, s)
	if f := p.Findings(); len(f) != 1 || f[0].Code != CodeUnreadable || !strings.Contains(f[0].Message, "Line 6 of") {
		t.Fatalf("findings %+v", f)
	}

	// A line still being written.
	growing := strings.Join(lines[:5], "") + strings.Join(lines[5:], "") + `{"timestamp":"2026-11-27T09:48:03.000Z","type":"event_msg","payl`
	if err := os.WriteFile(path, []byte(growing), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = c.Current()
	if err != nil {
		t.Fatal(err)
	}
	if s.Main().BadLines != 0 || len(s.Main().AllProblems()) != 1 || !strings.Contains(s.Main().AllProblems()[0].Why, "still be writing") {
		t.Fatalf("a growing last line: %d bad lines, problems %+v", s.Main().BadLines, s.Main().AllProblems())
	}
	if p := Join(tr, s); p.Joined() < 8 {
		t.Fatalf("the grown file joins %d lines", p.Joined())
	}

	// Another session's view.
	other := view(t, agentSessions(t)["codex/0.169.0/patch/codex-home/sessions/2026/11/27/rollout-2026-11-27T09-48-01-01a21c67-9be6-7e30-b0d3-88207cc80707.jsonl"])
	p = Join(other, s)
	if !p.Mismatch || p.Joined() != 0 || len(p.Findings()) == 0 || p.Findings()[0].Code != CodeOtherSession {
		t.Fatalf("another session: mismatch %v, %d joined, findings %+v", p.Mismatch, p.Joined(), p.Findings())
	}
}

// TestCodexSubagentLinesLeadToTheirRollouts: the x: lines of a Codex CLI
// rollout that spawned a sub-agent are joined to the sub-agent's start and
// end and lead to the sub-agent's own rollout beside it, which is not
// indexed (the view does not show its lines).
func TestCodexSubagentLinesLeadToTheirRollouts(t *testing.T) {
	sessions := agentSessions(t)
	parent := sessions["codex/0.169.0/subagent/codex-home/sessions/2026/11/27/rollout-2026-11-27T09-48-01-01a21c67-9be1-7b83-8662-aabac1099a87.jsonl"]
	child := sessions["codex/0.169.0/subagent/codex-home/sessions/2026/11/27/rollout-2026-11-27T09-48-02-01a21c67-9d75-7080-b481-7627893935f7.jsonl"]
	if parent == "" || child == "" {
		t.Fatal("the recorded Codex subagent scenario")
	}
	tr := view(t, parent)
	s, err := Open(FilesOf(parent)).Current()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Files) != 1 || s.Subagents["01a21c67-9d75-7080-b481-7627893935f7"] != child {
		t.Fatalf("%d files indexed, sub-agents %v", len(s.Files), s.Subagents)
	}
	p := Join(tr, s)
	xs := 0
	for l := range tr.Body() {
		if l.Kind != grammar.Subagent {
			continue
		}
		xs++
		if f, ok := p.SubagentFile(l.Num); !ok || f != child {
			t.Errorf("x: line %d leads to %q", l.Num+1, f)
		}
		ref, ok := p.Record(l.Num)
		if !ok {
			t.Errorf("x: line %d is not joined", l.Num+1)
			continue
		}
		if c, err := s.Content(ref); err != nil || !strings.HasPrefix(c.What, "Subagent counter") {
			t.Errorf("x: line %d's record: %+v %v", l.Num+1, c, err)
		}
	}
	if xs != 2 {
		t.Fatalf("%d x: lines in the view, want the sub-agent's start and end", xs)
	}
}

// TestAgentSessionWithAByteOrderMark: a rollout that starts with a byte
// order mark is read as without one, and its first record's place starts
// after it.
func TestAgentSessionWithAByteOrderMark(t *testing.T) {
	path, data := copyAgentSession(t, codexShell)
	if err := os.WriteFile(path, append([]byte("\xef\xbb\xbf"), data...), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(FilesOf(path)).Current()
	if err != nil {
		t.Fatal(err)
	}
	if s.Main().Len() == 0 || s.Main().SessionAt.Off != 3 {
		t.Fatalf("%d records, the session id's line at %d", s.Main().Len(), s.Main().SessionAt.Off)
	}
	for i := range s.Main().Len() {
		if _, err := s.Content(Ref{0, int32(i)}); err != nil {
			t.Errorf("record %d: %v", i, err)
		}
	}
	if p := Join(view(t, path), s); len(p.Findings()) != 0 || p.Joined() < 8 {
		t.Errorf("%d joined, findings %+v", p.Joined(), p.Findings())
	}
}
