package rlog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	segjson "github.com/segmentio/encoding/json"
	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/lsp"
	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

// The sessions Claude Code 2.1.328 wrote, recorded by the producer harness.
const claudeRecorded = "../../testdata/agents/claude-code/2.1.328"

// recordedSession copies the projects folder of a recorded Claude Code
// scenario (the transcript, its subagents/ and tool-results/) into a new
// folder and returns the transcript's path there.
func recordedSession(t *testing.T, scenario string) string {
	t.Helper()
	projects, err := filepath.Glob(filepath.Join(claudeRecorded, scenario, "claude", "projects", "*"))
	if err != nil || len(projects) != 1 {
		t.Fatalf("the recorded %s scenario: %v %v", scenario, projects, err)
	}
	dir := filepath.Join(t.TempDir(), "projects", filepath.Base(projects[0]))
	if err := os.CopyFS(dir, os.DirFS(projects[0])); err != nil {
		t.Fatal(err)
	}
	m, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(m) != 1 {
		t.Fatalf("transcripts of %s: %v", scenario, m)
	}
	return m[0]
}

// conversion is what `rlog-ls convert --to rlog` writes of path.
func conversion(t *testing.T, path string) string {
	t.Helper()
	from, err := convert.DetectFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := convert.ConvertFile(path, from, convert.Rlog, &buf, convert.Options{}); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// The view's result, encoded by hand, is what json.Marshal writes.
func TestSessionViewEncodesAsMarshal(t *testing.T) {
	v := sessionView{URI: viewURI("/tmp/a b/<s>.jsonl"), Source: fileURI("/tmp/a b/<s>.jsonl"), Format: "claude", Description: "Claude Code & co",
		Text: "---\nformat: rlog/1\n---\nu: \"quoted\" \\ tab\t é 😀 \u2028 <b>&\n", Losses: "claude -> rlog: 1 events, nothing lost\n", Joined: true}
	want, err := segjson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.encode(); string(got) != string(want) {
		t.Fatalf("encoded\n%s\nwant\n%s", got, want)
	}
}

func requestView(t *testing.T, c *lsptest.Client, uri protocol.DocumentURI) (sessionView, error) {
	t.Helper()
	var v sessionView
	err := c.Call(MethodSessionView, map[string]any{"textDocument": map[string]any{"uri": uri}}, &v)
	return v, err
}

// openView requests the view of the session file at path and opens it.
func openView(t *testing.T, c *lsptest.Client, path string) sessionView {
	t.Helper()
	v, err := requestView(t, c, fileURI(path))
	if err != nil {
		t.Fatal(err)
	}
	open(t, c, v.URI, v.Text)
	return v
}

// TestSessionViewOfAClaudeCodeTranscript: the view of a real transcript is
// its conversion to rlog, under its own URI; opened, it has every feature
// of a log with the transcript as its companion (the full record in the
// hover, Go to Definition into the transcript and back), says on its
// header what it does not carry, and offers no edit.
func TestSessionViewOfAClaudeCodeTranscript(t *testing.T) {
	path := recordedSession(t, "subagent")
	c := start(t, "", nil)
	v, err := requestView(t, c, fileURI(path))
	if err != nil {
		t.Fatal(err)
	}
	if want := conversion(t, path); v.Text != want {
		t.Fatalf("the view is not the conversion:\n%s\nwant:\n%s", v.Text, want)
	}
	if v.URI != viewURI(path) || !strings.HasPrefix(string(v.URI), "rlog-view:///") || !strings.HasSuffix(string(v.URI), ".jsonl.rlog") ||
		v.Source != fileURI(path) || v.Format != "claude" || !v.Joined {
		t.Fatalf("view %s of %s: format %q, joined %v", v.URI, v.Source, v.Format, v.Joined)
	}
	if !strings.Contains(v.Losses, "claude -> rlog: ") || !strings.Contains(v.Losses, "attachment") {
		t.Errorf("loss report:\n%s", v.Losses)
	}
	open(t, c, v.URI, v.Text)
	diags := c.WaitDiagnostics(v.URI, lsptest.AtVersion(1))
	for _, d := range diags.Diagnostics {
		if d.Code == "W014" || d.Code == "I005" || d.Code == "I006" || d.Code == "W015" {
			t.Errorf("the view and its transcript disagree: %s %s", d.Code, d.Message)
		}
	}

	// The output the view cut short, whole, and Go to Definition into the
	// transcript.
	cut := "o: id=toolu_sub_agent → [ok] Async agent launched successfully."
	h := hoverText(t, c, v.URI, posOf(t, v.Text, cut, len(cut)-5, false))
	if !strings.Contains(h, "in full, from `"+filepath.Base(path)+"` line ") || !strings.Contains(h, "agentId: ad1d58fb8290d2b47") {
		t.Errorf("hover on a cut-short output:\n%s", h)
	}
	locs := definitions(t, c, v.URI, posOf(t, v.Text, cut, len(cut)-5, false))
	if len(locs) != 1 || locs[0].URI != fileURI(path) {
		t.Fatalf("definition: %+v", locs)
	}
	transcript, _ := os.ReadFile(path)
	recordLine := strings.Split(string(transcript), "\n")[locs[0].Range.Start.Line]
	if !strings.Contains(recordLine, `"tool_use_id":"toolu_sub_agent"`) {
		t.Errorf("definition lands on %.200s", recordLine)
	}
	// A subagent's line: into its own file.
	sub := "a: Reading it."
	locs = definitions(t, c, v.URI, posOf(t, v.Text, sub, 4, false))
	if len(locs) != 1 || !strings.HasSuffix(string(locs[0].URI), "/subagents/agent-ad1d58fb8290d2b47.jsonl") {
		t.Errorf("definition of a subagent's line: %+v", locs)
	}

	// The header says what the view is and what it lost.
	h = hoverText(t, c, v.URI, protocol.Position{Line: 0, Character: 1})
	for _, want := range []string{"**rlog view** of `" + filepath.Base(path) + "` (Claude Code session JSONL), read only",
		"joined to the file's records", "**What the view does not carry**", "dropped_event: attachment:environment record"} {
		if !strings.Contains(h, want) {
			t.Errorf("header hover lacks %q:\n%s", want, h)
		}
	}

	// Read only: nothing offers an edit.
	line := posOf(t, v.Text, "a: I'll ask a sub-agent.", 3, false)
	for _, req := range []struct {
		method string
		params any
	}{
		{protocol.MethodTextDocumentCompletion, at(v.URI, line)},
		{protocol.MethodTextDocumentPrepareRename, at(v.URI, posOf(t, v.Text, "id=toolu_sub_agent", 4, false))},
		{protocol.MethodTextDocumentCodeAction, map[string]any{"textDocument": map[string]any{"uri": v.URI},
			"range": protocol.Range{Start: line, End: line}, "context": map[string]any{"diagnostics": diags.Diagnostics}}},
	} {
		if res := call(t, c, req.method, req.params); string(res) != "null" {
			t.Errorf("%s on a view: %s", req.method, res)
		}
	}
	// Other features answer as on any log.
	if res := call(t, c, protocol.MethodTextDocumentDocumentSymbol, map[string]any{"textDocument": map[string]any{"uri": v.URI}}); !strings.Contains(string(res), "Agent") {
		t.Errorf("outline: %.300s", res)
	}

	// The transcript open in the editor leads back to the view's line.
	open(t, c, fileURI(path), string(transcript))
	n := slices.IndexFunc(strings.Split(string(transcript), "\n"), func(l string) bool { return strings.Contains(l, `"tool_use_id":"toolu_sub_agent"`) })
	back := definitions(t, c, fileURI(path), protocol.Position{Line: uint32(n), Character: 20})
	want := posOf(t, v.Text, cut, 0, false)
	if len(back) != 1 || back[0].URI != v.URI || back[0].Range.Start.Line != want.Line {
		t.Errorf("back from the transcript: %+v, want line %d of the view", back, want.Line)
	}
	if h := hoverText(t, c, fileURI(path), protocol.Position{Line: uint32(n), Character: 20}); !strings.Contains(h, "Written to `"+filepath.Base(path)+".rlog` as line") {
		t.Errorf("hover in the transcript: %s", h)
	}
}

// TestSessionViewSaysWhatItCannotRead: a file in a format rlog-ls has no
// reader for gets an error that says so, never a view of garbage; so do an
// rlog log, a missing file and a URI that is no file. Codex CLI's and
// Gemini CLI's sessions, as they write them today, are shown as views once
// rlog-ls reads them, and refused so until then.
func TestSessionViewSaysWhatItCannotRead(t *testing.T) {
	codex, _ := filepath.Glob("../../testdata/agents/codex/*/*/codex-home/sessions/*/*/*/*.jsonl")
	gemini, _ := filepath.Glob("../../testdata/agents/gemini-cli/*/*/gemini/tmp/*/chats/*.jsonl")
	if len(codex) == 0 || len(gemini) == 0 {
		t.Fatalf("no recorded Codex (%v) or Gemini CLI (%v) session", codex, gemini)
	}
	unknown := filepath.Join(t.TempDir(), "rollout.jsonl")
	os.WriteFile(unknown, []byte(`{"timestamp":"2026-11-27T09:48:08Z","kind":"start","payload":{}}`+"\n"), 0o644)
	c := start(t, "", nil)
	abs := func(p string) protocol.DocumentURI { a, _ := filepath.Abs(p); return fileURI(a) }
	for _, tc := range []struct {
		uri  protocol.DocumentURI
		want string
	}{
		{fileURI(unknown), "rollout.jsonl is not a session rlog-ls reads: rollout.jsonl is JSON of no known shape (keys timestamp, kind, payload). rlog-ls reads atif, atif-jsonl, "},
		{abs(codex[0]), "is a Codex CLI rollout (codex): rlog-ls has no reader for it yet"},
		{abs(gemini[0]), "is a Gemini CLI session (gemini): rlog-ls has no reader for it yet"},
		{abs("../../testdata/sample.rlog"), "sample.rlog is an rlog log already"},
		{abs("../../testdata/no-such-session.jsonl"), "does not exist"},
		{"untitled:Untitled-1", "not a file: URI"},
	} {
		path, _ := lsp.FilePath(tc.uri)
		if from, err := convert.DetectFile(path); err == nil && (tc.uri == abs(codex[0]) || tc.uri == abs(gemini[0])) && canRead(from) {
			// rlog-ls reads it now: the view is its conversion.
			if v, err := requestView(t, c, tc.uri); err != nil || v.Text != conversion(t, path) {
				t.Errorf("%s: %v", tc.uri, err)
			}
			continue
		}
		_, err := requestView(t, c, tc.uri)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.uri, err, tc.want)
		}
		var f json.RawMessage
		if err := c.Call(MethodSessionFormat, map[string]any{"textDocument": map[string]any{"uri": tc.uri}}, &f); tc.uri[0] == 'f' && (err != nil || string(f) != "null") {
			t.Errorf("sessionFormat of %s: %s %v", tc.uri, f, err)
		}
	}
	path := recordedSession(t, "tools")
	var f sessionFormat
	if err := c.Call(MethodSessionFormat, map[string]any{"textDocument": map[string]any{"uri": fileURI(path)}}, &f); err != nil || f.Format != "claude" || f.URI != viewURI(path) {
		t.Errorf("sessionFormat of a transcript: %+v %v", f, err)
	}
}

func TestViewURIRoundTrip(t *testing.T) {
	for _, p := range []string{"/home/me/.claude/projects/-home-me-shop/3f1c9a2e.jsonl", "/tmp/a b/c#d?e%f+g@h.json", "/tmp/日本/ß😀.jsonl"} {
		u := viewURI(p)
		got, ok := viewSource(u)
		if !ok || got != filepath.FromSlash(p) {
			t.Errorf("%s: %s gives %q %v", p, u, got, ok)
		}
		if isRecordDocument(u) || !isView(u) {
			t.Errorf("%s is taken for a companion", u)
		}
	}
	// As VS Code writes it (every reserved character escaped), and in
	// another case.
	if got, ok := viewSource("RLOG-VIEW:///tmp/a%20b/c%40d.jsonl.rlog"); !ok || got != filepath.FromSlash("/tmp/a b/c@d.jsonl") {
		t.Errorf("%q %v", got, ok)
	}
	for _, u := range []protocol.DocumentURI{"file:///tmp/a.jsonl.rlog", "rlog-view:///tmp/a.jsonl", "rlog-view:", "rlog-view:///.rlog", "untitled:x.rlog"} {
		if p, ok := viewSource(u); ok {
			t.Errorf("%s is taken for the view of %q", u, p)
		}
	}
}

// viewEditor plays an editor's part in following a view: it holds the
// view's text, applies each rlog/sessionViewChanged made for its version,
// and tells the server with a didChange, as editors do.
type viewEditor struct {
	c       *lsptest.Client
	uri     protocol.DocumentURI
	text    string
	version int32
	seen    int // notifications handled
	edits   []int
}

// catchUp applies the notifications not handled yet and reports whether
// there were any.
func (e *viewEditor) catchUp(t *testing.T) bool {
	t.Helper()
	all := e.c.Notifications(MethodSessionViewChanged)
	any := false
	for ; e.seen < len(all); e.seen++ {
		var ch viewChange
		if err := json.Unmarshal(all[e.seen].Params, &ch); err != nil {
			t.Fatal(err)
		}
		if ch.TextDocument.URI != e.uri || ch.TextDocument.Version != e.version {
			continue // for another version: the server sends it again
		}
		changes := make([]lsptest.Change, 0, len(ch.Edits))
		for i := len(ch.Edits) - 1; i >= 0; i-- { // from the end: each range holds as the text was
			ed := ch.Edits[i]
			if i > 0 && !posBefore(ch.Edits[i-1].Range.End, ed.Range.Start) {
				t.Fatalf("edits out of order or overlapping: %+v", ch.Edits)
			}
			s, en := offsetAt(e.text, ed.Range.Start), offsetAt(e.text, ed.Range.End)
			e.text = e.text[:s] + ed.NewText + e.text[en:]
			r := ed.Range
			changes = append(changes, lsptest.Change{Range: &r, Text: ed.NewText})
		}
		e.edits = append(e.edits, len(ch.Edits))
		e.version++
		e.c.Change(e.uri, e.version, changes...)
		any = true
	}
	return any
}

func posBefore(a, b protocol.Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character <= b.Character
}

// offsetAt is the byte offset of a UTF-16 position in text.
func offsetAt(text string, p protocol.Position) int {
	off := 0
	for range p.Line {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	units := 0
	for off < len(text) && text[off] != '\n' && units < int(p.Character) {
		r, size := utf8.DecodeRuneInString(text[off:])
		units += len(utf16.Encode([]rune{r}))
		off += size
	}
	return off
}

// until waits for the editor's text to be want, handling what comes.
func (e *viewEditor) until(t *testing.T, want string) {
	t.Helper()
	e.c.WaitFrame("the view brought up to date", func(lsptest.Frame) bool {
		e.catchUp(t)
		return e.text == want
	})
}

// TestViewFollowsAGrowingTranscript: while Claude Code writes its
// transcript, the open view follows: after each batch of lines it is what
// a fresh conversion of the file gives (incremental = full), through edits
// of what changed (the header's totals and the end), never the whole text.
func TestViewFollowsAGrowingTranscript(t *testing.T) {
	full := recordedSession(t, "subagent")
	whole, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(whole), "\n")
	// The same session, written as it was: the transcript grows, its
	// subagent's file beside it appears with it.
	if err := os.WriteFile(full, []byte(strings.Join(lines[:8], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	c := start(t, "", nil)
	v := openView(t, c, full)
	e := &viewEditor{c: c, uri: v.URI, text: v.Text, version: 1}
	for n := 8; n < len(lines); n += 9 {
		f, err := os.OpenFile(full, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(strings.Join(lines[n:min(n+9, len(lines))], ""))
		f.Close()
		e.until(t, conversion(t, full))
	}
	if e.text != conversion(t, string(full)) || len(e.edits) == 0 {
		t.Fatalf("%d updates", len(e.edits))
	}
	t.Logf("%d updates, of %v edits", len(e.edits), e.edits)
	for _, n := range e.edits {
		if n > 2 {
			t.Errorf("an update of %d edits: %v", n, e.edits)
		}
	}
	// What the server holds is the editor's text: the hover still finds the
	// full record.
	cut := "o: id=toolu_sub_agent → [ok] Async agent launched successfully."
	if h := hoverText(t, c, v.URI, posOf(t, e.text, cut, len(cut)-5, false)); !strings.Contains(h, "in full, from") {
		t.Errorf("hover after following: %s", h)
	}
}

// A view closed is no longer followed: when both sessions grow, the one
// still open gets its edits, the closed one none.
func TestClosedViewIsNotFollowed(t *testing.T) {
	closed, kept := recordedSession(t, "tools"), recordedSession(t, "denied")
	c := start(t, "", nil)
	var views []sessionView
	for _, p := range []string{closed, kept} {
		v := openView(t, c, p)
		c.WaitDiagnostics(v.URI, lsptest.AtVersion(1))
		views = append(views, v)
	}
	c.Close(views[0].URI)
	c.WaitDiagnostics(views[0].URI, lsptest.Cleared)
	for _, p := range []string{closed, kept} {
		f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(`{"type":"user","sessionId":"x","uuid":"x","timestamp":"2026-11-27T10:00:00Z","message":{"role":"user","content":"more"}}` + "\n")
		f.Close()
	}
	e := &viewEditor{c: c, uri: views[1].URI, text: views[1].Text, version: 1}
	e.until(t, conversion(t, kept))
	for _, f := range c.Notifications(MethodSessionViewChanged) {
		if strings.Contains(string(f.Params), string(views[0].URI)) {
			t.Errorf("a change sent for a closed view: %s", f.Params)
		}
	}
}

// A client that drops the edits (its view was at another version, or it
// failed to apply them) gets them again, made for the version it has.
func TestViewEditsAreSentAgain(t *testing.T) {
	defer func(d time.Duration) { viewRetry = d }(viewRetry)
	viewRetry = 50 * time.Millisecond
	path := recordedSession(t, "tools")
	whole, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(whole), "\n")
	os.WriteFile(path, []byte(strings.Join(lines[:20], "")), 0o644)
	c := start(t, "", nil)
	v := openView(t, c, path)
	c.WaitDiagnostics(v.URI, lsptest.AtVersion(1))
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(strings.Join(lines[20:], ""))
	f.Close()
	c.WaitFrame("the first edits", func(lsptest.Frame) bool { return len(c.Notifications(MethodSessionViewChanged)) > 0 })
	// Dropped: the editor goes on from the second.
	e := &viewEditor{c: c, uri: v.URI, text: v.Text, version: 1, seen: 1}
	e.until(t, conversion(t, path))
	if n := len(c.Notifications(MethodSessionViewChanged)); n < 2 {
		t.Fatalf("%d notifications", n)
	}
}

// viewEdits turns any text into any other, with edits in order that do
// not overlap, and at most two of them: the header's and the body's.
func TestViewEditsTurnOneTextIntoAnother(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	header := func() string {
		return fmt.Sprintf("---\nformat: rlog/1\nid: s\ntokens_total_in: %d\n---\n", r.IntN(5000))
	}
	body := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("a: line %d %s\n", i, strings.Repeat("é", r.IntN(3)))
		}
		return out
	}
	for i := range 500 {
		old := body(r.IntN(200))
		neu := slices.Clone(old)
		switch i % 4 {
		case 0: // grown
			neu = append(neu, body(r.IntN(50))...)
		case 1: // a line changed in the middle, and grown
			if len(neu) > 0 {
				neu[r.IntN(len(neu))] = "u: changed\n"
			}
			neu = append(neu, "@end\n")
		case 2: // shrunk
			neu = neu[:r.IntN(len(neu)+1)]
		}
		a, b := header()+strings.Join(old, ""), header()+strings.Join(neu, "")
		if i%7 == 0 {
			b = strings.Join(neu, "") // no header any more
		}
		tree := grammar.Parse([]byte(a))
		edits := viewEdits(tree, []byte(b))
		got := a
		for j := len(edits) - 1; j >= 0; j-- {
			ed := edits[j]
			if j > 0 && edits[j-1].end > ed.start {
				t.Fatalf("overlapping edits %+v", edits)
			}
			got = got[:ed.start] + string(ed.text) + got[ed.end:]
		}
		if got != b {
			t.Fatalf("case %d: edits %+v turn\n%q\ninto\n%q\nwant\n%q", i, edits, a, got, b)
		}
		if len(edits) > 2 || a == b && len(edits) != 0 {
			t.Fatalf("case %d: %d edits", i, len(edits))
		}
	}
}

// The state of a view asked for is kept for a while for the client to open
// it, and forgotten once no open view needs it: nothing only grows.
func TestViewStatesAreForgotten(t *testing.T) {
	vs := newViews()
	vs.state("/w/asked.jsonl")
	old := vs.state("/w/closed.jsonl")
	old.touched = time.Now().Add(-2 * viewKeep)
	open, kept := vs.update(context.Background(), &wsCtx{})
	if open || !kept || len(vs.byPath) != 1 || vs.byPath["/w/asked.jsonl"] == nil {
		t.Fatalf("open %v, kept %v: %d states", open, kept, len(vs.byPath))
	}
	vs.byPath["/w/asked.jsonl"].touched = old.touched
	if open, kept := vs.update(context.Background(), &wsCtx{}); open || kept || len(vs.byPath) != 0 {
		t.Fatalf("open %v, kept %v: %d states", open, kept, len(vs.byPath))
	}
}

// canRead reports whether rlog-ls has a reader for the format called name.
func canRead(name convert.Format) bool {
	fi, ok := convert.Lookup(name)
	return ok && fi.CanRead()
}

// TestViewFollowsAGrowingRollout: a Codex CLI rollout resumed twice, each
// run appended as the CLI appends it, is followed as a Claude Code
// transcript is, the view equal to a fresh conversion at each step.
func TestViewFollowsAGrowingRollout(t *testing.T) {
	m, _ := filepath.Glob("../../testdata/agents/codex/*/resume/codex-home/sessions/*/*/*/rollout-*.jsonl")
	if len(m) != 1 {
		t.Fatalf("the recorded Codex resume scenario: %v", m)
	}
	whole, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	// Each run ends with its turn's task_complete line.
	var runs []string
	for rest := string(whole); rest != ""; {
		i := strings.Index(rest, `"type":"task_complete"`)
		if i < 0 {
			runs = append(runs, rest)
			break
		}
		i += strings.IndexByte(rest[i:], '\n') + 1
		runs, rest = append(runs, rest[:i]), rest[i:]
	}
	if len(runs) != 3 {
		t.Fatalf("%d runs in the rollout, want 3", len(runs))
	}
	full := filepath.Join(t.TempDir(), filepath.Base(m[0]))
	if err := os.WriteFile(full, []byte(runs[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	c := start(t, "", nil)
	v := openView(t, c, full)
	e := &viewEditor{c: c, uri: v.URI, text: v.Text, version: 1}
	for _, run := range runs[1:] {
		f, err := os.OpenFile(full, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(run)
		f.Close()
		e.until(t, conversion(t, full))
	}
	// One update per run; a run the server reads while it is still being
	// written (a loaded machine: CI saw three updates once) takes one
	// more, its last line held until it is whole.
	if e.text != conversion(t, full) || len(e.edits) < 2 || len(e.edits) > 4 || !strings.Contains(e.text, "u: Third prompt: say what you did.") {
		t.Fatalf("%d updates, want one per run (two at most while a run is written):\n%s", len(e.edits), e.text)
	}
}
