package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const agents = "../testdata/agents"

// store is a home with the recorded stores of one scenario of each agent,
// and the folders each ran in.
type store struct {
	homes                 Homes
	claude, codex, gemini string // the recorded cwds
	index                 string
}

func newStore(t *testing.T, scenario string) store {
	home := t.TempDir()
	s := store{homes: Homes{Claude: filepath.Join(home, ".claude"), Codex: filepath.Join(home, ".codex"), Gemini: filepath.Join(home, ".gemini")},
		index: filepath.Join(home, "cache", "rlog-ls", "sessions.json")}
	for from, to := range map[string]string{
		"claude-code/2.1.328/" + scenario + "/claude": s.homes.Claude,
		"codex/0.169.0/" + scenario + "/codex-home":   s.homes.Codex,
		"gemini-cli/0.61.0/" + scenario + "/gemini":   s.homes.Gemini,
	} {
		if _, err := os.Stat(filepath.Join(agents, from)); err == nil {
			if err := os.CopyFS(to, os.DirFS(filepath.Join(agents, from))); err != nil {
				t.Fatal(err)
			}
		}
	}
	s.claude = "/tmp/rlog-producers/claude/" + scenario + "/work"
	s.codex = "/tmp/rlog-producers/codex/" + scenario + "/work"
	s.gemini = "/tmp/rlog-producers/gemini/" + scenario + "/work"
	return s
}

func (s store) list(t *testing.T, cwd string) *Listing {
	t.Helper()
	ix := Open(s.index)
	p := Discover(cwd, s.homes)
	l := ix.List(context.Background(), Request{Candidates: p.Files, Maybe: p.Maybe, Cwd: cwd, Changes: true})
	if err := ix.Save(); err != nil {
		t.Fatal(err)
	}
	return l
}

func files(l *Listing) []string {
	var out []string
	for _, s := range l.Sessions {
		out = append(out, filepath.Base(s.Row.File))
	}
	return out
}

// Each agent's store gives the sessions run in a folder, and no other's;
// sub-agents' files are not rows of their own.
func TestDiscoverFindsEachAgentsSessions(t *testing.T) {
	s := newStore(t, "subagent")
	for _, c := range []struct {
		cwd, agent string
		want       int
	}{
		{s.claude, "claude-code", 1},
		{s.gemini, "gemini-cli", 1},
		// Codex keeps its sub-agent in a rollout of its own, with the
		// cwd: its parent's child, not a row.
		{s.codex, "codex", 1},
		{"/elsewhere", "", 0},
	} {
		l := s.list(t, c.cwd)
		if len(l.Sessions) != c.want || len(l.Problems) > 0 {
			t.Errorf("%s: %v, problems %v; want %d sessions", c.cwd, files(l), l.Problems, c.want)
			continue
		}
		for _, x := range l.Sessions {
			if x.Row.Agent != c.agent {
				t.Errorf("%s: %s is of %q, want %q", c.cwd, x.Row.File, x.Row.Agent, c.agent)
			}
			if strings.Contains(x.Row.File, "subagents") {
				t.Errorf("%s: a sub-agent's file is a row: %s", c.cwd, x.Row.File)
			}
		}
	}
	l := s.list(t, s.claude)
	if r := l.Sessions[0].Row; r.Subagents != 1 || r.Title == "" || r.Tokens.Out == 0 || r.CostUSD == nil {
		t.Errorf("the Claude Code row: %+v", r)
	}
	// Each session's sub-agents' files are its children.
	for _, cwd := range []string{s.claude, s.codex, s.gemini} {
		l := s.list(t, cwd)
		r := l.Sessions[0].Row
		if len(r.Children) != 1 || r.Children[0].CallID == "" {
			t.Errorf("%s: children %+v", cwd, r.Children)
			continue
		}
		if _, err := os.Stat(r.Children[0].File); err != nil {
			t.Errorf("%s: the child's file: %v", cwd, err)
		}
	}
}

func TestClaudeProject(t *testing.T) {
	if got := ClaudeProject("/tmp/rlog-producers/claude/write-edit/work"); got != "-tmp-rlog-producers-claude-write-edit-work" {
		t.Errorf("got %q", got)
	}
	if got := ClaudeProject("/home/a.b/my_proj"); got != "-home-a-b-my-proj" {
		t.Errorf("got %q", got)
	}
}

// A second listing reads nothing; a file that grew is read again; a
// corrupt index, or one of another version, is rebuilt.
func TestIndexKeepsRows(t *testing.T) {
	s := newStore(t, "write-edit")
	first := s.list(t, s.claude)
	if first.Read == 0 || len(first.Sessions) != 1 {
		t.Fatalf("first listing: read %d, %v", first.Read, files(first))
	}
	again := s.list(t, s.claude)
	if again.Read != 0 || !slices.Equal(files(again), files(first)) {
		t.Fatalf("second listing read %d files: %v", again.Read, files(again))
	}
	if a, b := rowJSON(t, again.Sessions[0].Row), rowJSON(t, first.Sessions[0].Row); a != b {
		t.Errorf("the kept row differs:\n%s\n%s", a, b)
	}
	// The calls that changed files are kept apart, and read again when
	// that file is lost.
	if n := len(again.Sessions[0].Changes); n != 2 {
		t.Errorf("%d changes kept, want 2", n)
	}
	os.Remove(strings.TrimSuffix(s.index, ".json") + ".changes.json")
	if l := s.list(t, s.claude); l.Read != 0 || len(l.Sessions[0].Changes) != 2 {
		t.Errorf("without the changes file: read %d, %d changes", l.Read, len(l.Sessions[0].Changes))
	}
	// The file grows by a prompt.
	path := first.Sessions[0].Row.File
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"user","message":{"role":"user","content":"one more"},"uuid":"u-extra","timestamp":"2026-11-27T09:30:00.000Z","sessionId":"63a675e2-d9bb-4137-8655-f2f72ba481e0"}` + "\n")
	f.Close()
	grown := s.list(t, s.claude)
	if grown.Read != 1 || grown.Sessions[0].Row.End.Equal(*first.Sessions[0].Row.End) {
		t.Errorf("after growing: read %d, end %v (was %v)", grown.Read, grown.Sessions[0].Row.End, first.Sessions[0].Row.End)
	}
	for _, bad := range []string{"{not json", `{"version":99,"entries":[]}`, ""} {
		os.WriteFile(s.index, []byte(bad), 0o644)
		ix := Open(s.index)
		if ix.Rebuilt == "" {
			t.Errorf("index %q: not said to be rebuilt", bad)
		}
		l := s.list(t, s.claude)
		if l.Read != 1 || len(l.Sessions) != 1 {
			t.Errorf("index %q: read %d, %v", bad, l.Read, files(l))
		}
	}
	// No temporary file is left beside the index and its changes file.
	ents, _ := os.ReadDir(filepath.Dir(s.index))
	if len(ents) != 2 {
		t.Errorf("beside the index: %v", ents)
	}
}

// A file that is not a session, named, is a problem; the others are
// still listed.
func TestBadFilesAreProblems(t *testing.T) {
	s := newStore(t, "write-edit")
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"neither": "a session"}`), 0o644)
	good := Discover(s.claude, s.homes).Files
	ix := Open(s.index)
	l := ix.List(context.Background(), Request{Files: append([]string{bad, filepath.Join(dir, "gone.rlog")}, good...)})
	if len(l.Sessions) != 1 || len(l.Problems) != 2 {
		t.Errorf("sessions %v, problems %v", files(l), l.Problems)
	}
}

// --touched finds the calls of every agent's file tools, apply_patch and
// shell commands, at the session file's line of the call.
func TestTouched(t *testing.T) {
	for _, c := range []struct {
		scenario, agent, file string
		tools                 []string
	}{
		{"write-edit", "claude", "greet.sh", []string{"Write", "Edit"}},
		{"patch", "codex", "notes.md", []string{"apply_patch", "apply_patch"}},
		{"patch", "gemini", "notes.md", []string{"write_file", "replace"}},
		{"shell", "codex", "a.txt", []string{"exec_command"}},
		{"shell", "gemini", "a.txt", []string{"run_shell_command"}},
	} {
		s := newStore(t, c.scenario)
		cwd := map[string]string{"claude": s.claude, "codex": s.codex, "gemini": s.gemini}[c.agent]
		l := s.list(t, cwd)
		hits := Touched(l.Sessions, filepath.Join(cwd, c.file))
		var tools []string
		for _, h := range hits {
			tools = append(tools, h.Tool)
			b, _ := os.ReadFile(h.File)
			lines := strings.Split(string(b), "\n")
			if h.Line < 1 || h.Line > len(lines) || !strings.Contains(lines[h.Line-1], h.Tool) {
				t.Errorf("%s/%s: line %d of %s does not hold the %s call", c.scenario, c.agent, h.Line, h.File, h.Tool)
			}
		}
		if !slices.Equal(tools, c.tools) {
			t.Errorf("%s/%s: %v, want %v", c.scenario, c.agent, tools, c.tools)
		}
		if other := Touched(l.Sessions, filepath.Join(cwd, "other.txt")); len(other) != 0 {
			t.Errorf("%s/%s: other.txt touched by %v", c.scenario, c.agent, other)
		}
	}
}

func TestShellTargets(t *testing.T) {
	for cmd, want := range map[string][]string{
		"printf 'hello\\n' > a.txt; ls; cat a.txt": {"a.txt"},
		"echo x >>log.txt 2>&1":                    {"log.txt"},
		"make 2>err.txt && echo ok &> all.txt":     {"err.txt", "all.txt"},
		"cat a | tee -a b c":                       {"b", "c"},
		"sed -i 's/a/b/' f.go g.go":                {"f.go", "g.go"},
		"sed 's/a/b/' f.go":                        nil,
		"mv old.txt new.txt":                       {"old.txt", "new.txt"},
		"cp -r src dst/":                           {"dst/"},
		"rm -rf build out.o":                       {"build", "out.o"},
		"echo '>' not-a-target":                    nil,
		"echo x > /dev/null; echo y > $OUT":        nil,
		"cd sub && touch \"a b.txt\"":              {"a b.txt"},
		"grep x < in.txt":                          nil,
	} {
		if got := ShellTargets(cmd); !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", cmd, got, want)
		}
	}
}

func TestPatchTargets(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: a.md\n+x\n*** Update File: b.md\n*** Move to: c.md\n@@\n-y\n+z\n*** Delete File: d.md\n*** End Patch"
	if got := PatchTargets(patch); !slices.Equal(got, []string{"a.md", "b.md", "c.md", "d.md"}) {
		t.Errorf("got %q", got)
	}
}

func rowJSON(t *testing.T, r Row) string {
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Listings at once, as the server may run them, share the index safely
// (go test -race).
func TestConcurrentListings(t *testing.T) {
	s := newStore(t, "write-edit")
	ix := Open(s.index)
	p := Discover(s.claude, s.homes)
	done := make(chan int, 4)
	for i := range 4 {
		go func() {
			l := ix.List(context.Background(), Request{Candidates: p.Files, Cwd: s.claude, Changes: i%2 == 0})
			ix.Save()
			done <- len(l.Sessions)
		}()
	}
	for range 4 {
		if n := <-done; n != 1 {
			t.Errorf("%d sessions", n)
		}
	}
}

// A listing asked for changes finds every call of the session by tool and
// target (those that change no file too) and its phases (compactions,
// resumed runs), each at the session file's line that holds it.
func TestCallsAndPhases(t *testing.T) {
	for _, c := range []struct {
		scenario, agent string
		calls, phases   []string
	}{
		{"tools", "claude", []string{"Read /tmp/rlog-producers/claude/tools/work/notes.txt", "Bash wc -l notes.txt", "Bash ls archive"}, nil},
		{"compaction", "claude", []string{"Bash ls | wc -l"}, []string{"@resume", "@compact manual", "@resume", "@compact auto"}},
		{"compaction", "codex", []string{"exec_command echo big"}, []string{"@compact", "@compact"}},
		{"shell", "codex", []string{"exec_command printf 'hello\\n' > a.txt; ls; cat a.txt"}, nil},
		{"compression", "gemini", []string{"run_shell_command echo big", "run_shell_command echo second"}, []string{"@resume", "@compact auto"}},
	} {
		s := newStore(t, c.scenario)
		cwd := map[string]string{"claude": s.claude, "codex": s.codex, "gemini": s.gemini}[c.agent]
		l := s.list(t, cwd)
		if len(l.Sessions) != 1 {
			t.Fatalf("%s/%s: %d sessions", c.scenario, c.agent, len(l.Sessions))
		}
		sess := l.Sessions[0]
		b, _ := os.ReadFile(sess.Row.File)
		lines := strings.Split(string(b), "\n")
		holds := func(line int, what string) bool {
			return line >= 1 && line <= len(lines) && strings.Contains(lines[line-1], what)
		}
		var calls, phases []string
		for _, call := range sess.Calls {
			calls = append(calls, call.Tool+" "+call.Target)
			if !holds(call.Line, `"`+call.Tool+`"`) || call.ID != "" {
				t.Errorf("%s/%s: line %d does not hold the %s call (or its id %q was kept)", c.scenario, c.agent, call.Line, call.Tool, call.ID)
			}
		}
		for _, ch := range sess.Changes {
			if ch.CallID != "" {
				t.Errorf("%s/%s: the change %+v kept its call's id", c.scenario, c.agent, ch)
			}
		}
		for _, p := range sess.Prompts {
			if p.ID != "" || p.Line < 1 {
				t.Errorf("%s/%s: the prompt %+v", c.scenario, c.agent, p)
			}
		}
		for _, p := range sess.Phases {
			phases = append(phases, p.Name)
			if p.Line < 1 || p.Line > len(lines) || p.ID != "" {
				t.Errorf("%s/%s: the phase %s at line %d (id %q)", c.scenario, c.agent, p.Name, p.Line, p.ID)
			}
		}
		if !slices.Equal(calls, c.calls) || !slices.Equal(phases, c.phases) {
			t.Errorf("%s/%s: calls %q, phases %q; want %q, %q", c.scenario, c.agent, calls, phases, c.calls, c.phases)
		}
		// Where each compaction is: the line of its record.
		for _, p := range sess.Phases {
			if strings.HasPrefix(p.Name, "@compact") && !holds(p.Line, map[string]string{"claude": `"compact_boundary"`, "codex": `"compacted"`, "gemini": `<state_snapshot>`}[c.agent]) {
				t.Errorf("%s/%s: line %d does not hold the compaction: %.100s", c.scenario, c.agent, p.Line, lines[p.Line-1])
			}
		}
		// A listing from the index (the changes file) gives the same.
		again := s.list(t, cwd)
		if l := again.Sessions[0]; !slices.Equal(l.Calls, sess.Calls) || !slices.Equal(l.Phases, sess.Phases) {
			t.Errorf("%s/%s: from the index %+v %+v, read %+v %+v", c.scenario, c.agent, l.Calls, l.Phases, sess.Calls, sess.Phases)
		}
	}
}

// Target names what a call is about for every agent's tools, and for a
// tool it does not know, the first of the outline's target keys.
func TestTarget(t *testing.T) {
	for _, c := range []struct{ tool, input, want string }{
		{"Read", `{"file_path":"/w/a.go","limit":10}`, "/w/a.go"},
		{"Grep", `{"path":"src","pattern":"func main"}`, "func main"},
		{"Glob", `{"pattern":"**/*.ts"}`, "**/*.ts"},
		{"WebFetch", `{"url":"https://example.com/x","prompt":"summarize"}`, "https://example.com/x"},
		{"Bash", `{"command":"go test ./...\n  && echo   done","description":"run"}`, "go test ./..."},
		{"Task", `{"description":"find the bug","subagent_type":"Explore"}`, "find the bug"},
		{"exec_command", `{"cmd":"ls  -la","workdir":"/w"}`, "ls -la"},
		{"shell", `{"command":["bash","-lc","make test"]}`, "make test"},
		{"apply_patch", `"*** Begin Patch\n*** Update File: a.md\n@@\n-x\n+y\n*** End Patch"`, "a.md"},
		{"read_many_files", `{"paths":["a.md","b.md"]}`, "a.md b.md"},
		{"read_file", `{"absolute_path":"/w/r.txt"}`, "/w/r.txt"},
		{"google_web_search", `{"query":"rlog format"}`, "rlog format"},
		{"mcp__issues__issue_ready", `{"number":4,"query":"open"}`, "open"},
		{"TodoWrite", `{"todos":[{"content":"x"}]}`, ""},
		{"Read", `not json`, ""},
	} {
		if got := Target(c.tool, json.RawMessage(c.input)); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.tool, c.input, got, c.want)
		}
	}
	long := `{"command":"` + strings.Repeat("x", 300) + `"}`
	if got := Target("Bash", json.RawMessage(long)); len([]rune(got)) != TitleChars {
		t.Errorf("a long command is %d characters", len([]rune(got)))
	}
}

// The changes file is read an entry at a time: a file of another version,
// or cut or corrupt anywhere, gives no entries (its sessions are read
// again when asked for); one as saveChanges writes it gives them all.
func TestDecodeChanges(t *testing.T) {
	good := `{"version":` + strconv.Itoa(changesVersion) + `,"entries":[{"path":"/a","size":1,"mod_ns":2,"changes":[],"calls":[{"line":3,"tool":"Read","target":"x"}]}` + "\n" +
		`,{"path":"/b","size":1,"mod_ns":2,"changes":null,"phases":[{"line":4,"name":"@compact auto"}]}` + "\n" + `]}` + "\n"
	var got []string
	if readEntries(strings.NewReader(good), changesVersion, func() *changeEntry { return new(changeEntry) }, func(c *changeEntry) { got = append(got, fmt.Sprint(c.Path, c.Calls, c.Phases)) }) != nil ||
		!slices.Equal(got, []string{"/a[{3 Read x }] []", "/b[] [{4 @compact auto }]"}) {
		t.Errorf("%q", got)
	}
	for _, bad := range []string{
		`{"version":` + strconv.Itoa(changesVersion-1) + `,"entries":[{"path":"/a"}]}`,
		`{"entries":[{"path":"/a"}],"version":` + strconv.Itoa(changesVersion) + `}`,
		good[:len(good)/2],
		strings.Replace(good, `"line":3`, `"line":"3"`, 1),
		`{"version":` + strconv.Itoa(changesVersion) + `,"entries":[{"path":"/a"}]}]`,
		"",
	} {
		n := 0
		if readEntries(strings.NewReader(bad), changesVersion, func() *changeEntry { return new(changeEntry) }, func(*changeEntry) { n++ }) == nil {
			t.Errorf("%q read (%d entries)", bad, n)
		}
	}
}

// An rlog log's phases are its @phase lines, by name, and its calls are
// named as its outline names them, each at its line.
func TestRlogCallsAndPhases(t *testing.T) {
	s, err := Read("../testdata/sample.rlog")
	if err != nil {
		t.Fatal(err)
	}
	if want := []Phase{{Line: 20, Name: "explore"}, {Line: 32, Name: "fix"}}; !slices.Equal(s.Phases, want) {
		t.Errorf("phases %+v, want %+v", s.Phases, want)
	}
	if len(s.Calls) < 2 || s.Calls[0] != (Call{Line: 23, Tool: "Read", Target: "src/discount/validate.ts"}) || s.Calls[1] != (Call{Line: 25, Tool: "Grep", Target: "toUpperCase"}) {
		t.Errorf("calls %+v", s.Calls)
	}
}

// jsonString decodes as json.Unmarshal does, escapes, control characters
// and invalid UTF-8 included.
func TestJSONString(t *testing.T) {
	for _, v := range []string{`"src/a.go"`, `""`, `"a\"b"`, `"tab\there"`, "\"raw\ttab\"", `"\u00e9\ud83d\ude80"`, "\"bad \xff byte\"", `"unterminated`, `"`, `"a"b"`, `"λ 🚀"`} {
		var want string
		if json.Unmarshal([]byte(v), &want) != nil {
			want = ""
		}
		if got := jsonString([]byte(v)); got != want {
			t.Errorf("%q: %q, want %q", v, got, want)
		}
	}
}

// A sub-agent's own file keeps its calls (every event of it names the
// sub-agent); a parent's file keeps only its own, not those of the
// sub-agents whose events it holds too.
func TestSubagentCalls(t *testing.T) {
	s := newStore(t, "subagent")
	for cwd, want := range map[string][2]string{
		s.claude: {"Agent Read the version", "Bash cat VERSION"},
		s.codex:  {"spawn_agent counter", "exec_command ls | wc -l"},
		s.gemini: {"invoke_agent generalist", "run_shell_command ls | wc -l"},
	} {
		l := s.list(t, cwd)
		if len(l.Sessions) != 1 || len(l.Sessions[0].Row.Children) != 1 || len(l.Sessions[0].Calls) == 0 {
			t.Fatalf("%s: %+v", cwd, l.Sessions)
		}
		parent := l.Sessions[0]
		child, err := Read(parent.Row.Children[0].File)
		if err != nil {
			t.Fatal(err)
		}
		name := func(c Call) string { return c.Tool + " " + c.Target }
		if got := name(parent.Calls[0]); got != want[0] {
			t.Errorf("%s: the parent's first call %q, want %q", cwd, got, want[0])
		}
		for _, c := range parent.Calls {
			if name(c) == want[1] {
				t.Errorf("%s: the parent keeps its sub-agent's call %q", cwd, want[1])
			}
		}
		if len(child.Calls) == 0 || name(child.Calls[0]) != want[1] {
			t.Errorf("%s: the sub-agent's calls %+v, want %q first", cwd, child.Calls, want[1])
		}
	}
}
