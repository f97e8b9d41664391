package companion

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/grammar"
)

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendTo(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func records(ix *Index) []Record {
	out := make([]Record, ix.Len())
	for i := range out {
		out[i] = ix.Record(i)
	}
	return out
}

// TestGrowingFileIsReadFromWhereItStopped: a JSONL companion that grows is
// indexed from the end of its last complete line; what was read before is
// not read again, and earlier snapshots do not change.
func TestGrowingFileIsReadFromWhereItStopped(t *testing.T) {
	whole, err := os.ReadFile(filepath.Join(fixtures, "sdk", "222000-fix-locked-login.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(whole), "\n")
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	// Five lines and half of the sixth.
	write(t, p, strings.Join(lines[:5], "")+lines[5][:30])
	c := Open(Files{Main: p})
	first, err := c.Current()
	if err != nil {
		t.Fatal(err)
	}
	if n := first.Main().Len(); n != 5 {
		t.Fatalf("%d records from five lines", n)
	}
	if pr := first.Main().AllProblems(); len(pr) != 1 || pr[0].Line != 5 || !strings.Contains(pr[0].Why, "still be writing") {
		t.Fatalf("problems %+v", pr)
	}
	again, _ := c.Current()
	if again != first {
		t.Fatal("an unchanged file gave a new snapshot")
	}
	firstRecs := records(first.Main())

	// The first line is changed where an append would not look: when only
	// the new bytes are read, the index keeps what it read of it.
	f, _ := os.OpenFile(p, os.O_WRONLY, 0)
	f.WriteAt([]byte(`{"type":"nothing"`), 0)
	f.Close()
	appendTo(t, p, strings.Join(lines[5:], "")[30:])
	grown, err := c.Current()
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := Build(filepath.Join(fixtures, "sdk", "222000-fix-locked-login.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := records(grown.Main()), records(fresh); !reflect.DeepEqual(got, want) {
		t.Fatalf("grown index differs from a fresh one:\n got %v\nwant %v", got, want)
	}
	if len(grown.Main().AllProblems()) != 0 {
		t.Fatalf("problems after the line was finished: %+v", grown.Main().AllProblems())
	}
	if !reflect.DeepEqual(records(first.Main()), firstRecs) {
		t.Fatal("growing changed an earlier snapshot")
	}
	if grown.Main().Start != fresh.Start || grown.Main().End != fresh.End || grown.Main().SessionID != fresh.SessionID {
		t.Fatalf("grown %v..%v %s, fresh %v..%v %s", grown.Main().Start, grown.Main().End, grown.Main().SessionID, fresh.Start, fresh.End, fresh.SessionID)
	}

	// A rewritten file (shorter, or changed before the end) is read anew.
	write(t, p, strings.Join(lines[:3], ""))
	short, _ := c.Current()
	if n := short.Main().Len(); n != 3 {
		t.Fatalf("%d records after the file was cut to three lines", n)
	}
	data, _ := os.ReadFile(p)
	data[len(data)-2] = 'X' // the last line's closing brace, in the seam
	os.WriteFile(p, append(data, lines[3]...), 0o644)
	future := time.Now().Add(time.Minute)
	os.Chtimes(p, future, future)
	broken, _ := c.Current()
	if pr := broken.Main().AllProblems(); len(pr) != 1 || pr[0].Line != 2 {
		t.Fatalf("a change before the end was not read: %+v", pr)
	}
}

// TestEmptyCompanion: the file a session creates first is empty; its
// format is known once it has a line.
func TestEmptyCompanion(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	write(t, p, "")
	c := Open(Files{Main: p})
	s, err := c.Current()
	if err != nil || s.Main().Len() != 0 || s.Main().Format != "" {
		t.Fatalf("%v %+v", err, s)
	}
	whole, _ := os.ReadFile(filepath.Join(fixtures, "claude", "5c1e9f27-0d3b-4a8e-b6f2-91c4d7a3e850.jsonl"))
	appendTo(t, p, string(whole))
	s, _ = c.Current()
	if s.Main().Format != convert.Claude || s.Main().Len() != 8 || s.Main().SessionID != "5c1e9f27-0d3b-4a8e-b6f2-91c4d7a3e850" {
		t.Fatalf("%v %d %s", s.Main().Format, s.Main().Len(), s.Main().SessionID)
	}
}

// TestBadInputIsReported: whatever the file holds, indexing reports the
// lines it cannot read, with their place, and never fails on them.
func TestBadInputIsReported(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	good := `{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"hello"}]},"timestamp":"2025-12-22T10:00:00Z"}`
	write(t, p, "\xef\xbb\xbf"+good+"\r\n"+
		"not json\n"+
		"[1,2]\n"+
		"\n"+
		"\x00\x01\x02\xff\n"+
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}`+"\n"+
		`{"type":"assistant","message":{"content":"a string, not blocks"}}`+"\n"+
		`{"type":"assistant","message":7}`+"\n")
	ix, err := Build(p)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, pr := range ix.AllProblems() {
		got = append(got, pr.Why)
		if pr.Line == 0 {
			t.Errorf("the first line is fine: %+v", pr)
		}
	}
	if len(got) != 3 || ix.BadLines != 3 {
		t.Fatalf("problems: %q", got)
	}
	if ix.Len() != 2 || ix.Record(0).Off != int64(3+strings.Index(good, `{"type":"text"`)) || ix.Record(0).Kind != Agent || ix.Record(1).Line != 5 || ix.Record(1).Kind != ToolResult {
		t.Fatalf("records %+v", records(ix))
	}
	s := &Snapshot{Files: []*Index{ix}, IDs: []string{""}}
	if c, err := s.Content(Ref{0, 0}); err != nil || c.Text != "hello" {
		t.Fatalf("%+v %v", c, err)
	}

	// A .json that is not a JSON object is not a trajectory.
	j := filepath.Join(dir, "s.json")
	write(t, j, `[1,2,3]`)
	if _, err := Build(j); err == nil {
		t.Fatal("an array was taken for a trajectory")
	}
	// A trajectory cut short keeps the steps before the cut.
	whole, _ := os.ReadFile(filepath.Join(fixtures, "trajectory", "1610-list-the-cargo-files.json"))
	cut := string(whole[:strings.Index(string(whole), `"type": "subagent"`)])
	write(t, j, cut)
	ix, err = Build(j)
	if err != nil {
		t.Fatal(err)
	}
	if ix.Len() != 7 || len(ix.Problems) != 1 {
		t.Fatalf("%d records, problems %+v", ix.Len(), ix.Problems)
	}
}

// TestRecordAtBothEnds: the records of a file are found from anywhere in
// them, and from anywhere on a JSONL line that has one.
func TestRecordAt(t *testing.T) {
	ix, err := Build(filepath.Join(fixtures, "sdk", "222000-fix-locked-login.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range ix.Len() {
		r := ix.Record(i)
		for _, off := range []int64{r.Off, r.Off + int64(r.Len)/2, r.End() - 1} {
			if got, ok := ix.RecordAt(off, int(r.Line)); !ok || got != i {
				t.Errorf("record %d at %d: %d %v", i, off, got, ok)
			}
		}
	}
	// Line 18 of the file holds two results; its start is the first one's.
	if got, ok := ix.RecordAt(ix.Record(15).Off-30, 17); !ok || got != 15 || ix.Record(16).Line != 17 {
		t.Errorf("start of line 18: %d %v", got, ok)
	}
	// A status line with no status has no record.
	data, _ := os.ReadFile(ix.Path)
	line12 := 0
	for range 11 {
		line12 += strings.IndexByte(string(data[line12:]), '\n') + 1
	}
	if !strings.Contains(string(data[line12:line12+60]), `"status":null`) {
		t.Fatalf("line 12 is %.60s", data[line12:])
	}
	if got, ok := ix.RecordAt(int64(line12+10), 11); ok {
		t.Errorf("a line without a record has record %d", got)
	}
}

// TestLocate finds companions beside logs and the log beside companions.
func TestLocate(t *testing.T) {
	abs := func(p string) string { a, _ := filepath.Abs(filepath.Join(fixtures, p)); return a }
	for _, c := range []struct {
		log, main string
		subs      int
	}{
		{"sdk/222000-fix-locked-login.rlog", "sdk/222000-fix-locked-login.jsonl", 1},
		{"trajectory/1610-list-the-cargo-files.rlog", "trajectory/1610-list-the-cargo-files.json", 0},
		{"claude/5c1e9f27-0d3b-4a8e-b6f2-91c4d7a3e850.rlog", "claude/5c1e9f27-0d3b-4a8e-b6f2-91c4d7a3e850.jsonl", 1},
	} {
		f, ok := Locate(abs(c.log))
		if !ok || f.Main != abs(c.main) || len(f.Subagents) != c.subs {
			t.Errorf("%s: %+v %v", c.log, f, ok)
		}
		if l, ok := RlogFor(abs(c.main)); !ok || l != abs(c.log) {
			t.Errorf("%s: log %q %v", c.main, l, ok)
		}
		for _, sub := range f.Subagents {
			if l, ok := RlogFor(sub); !ok || l != abs(c.log) {
				t.Errorf("%s: log %q %v", sub, l, ok)
			}
		}
	}
	if _, ok := Locate(abs("nowhere.rlog")); ok {
		t.Error("a companion for a log that does not exist")
	}
	if _, ok := RlogFor(abs("sdk/222000-fix-locked-login.rlog")); ok {
		t.Error("a log is not a companion")
	}
	// rlog-ls convert names its conversion NAME.converted.rlog.
	conv := t.TempDir()
	write(t, filepath.Join(conv, "s.converted.rlog"), "---\n")
	write(t, filepath.Join(conv, "s.jsonl"), "")
	if f, ok := Locate(filepath.Join(conv, "s.converted.rlog")); !ok || f.Main != filepath.Join(conv, "s.jsonl") {
		t.Errorf("NAME.converted.rlog: %+v %v", f, ok)
	}
	if l, ok := RlogFor(filepath.Join(conv, "s.jsonl")); !ok || l != filepath.Join(conv, "s.converted.rlog") {
		t.Errorf("the log of NAME.jsonl beside NAME.converted.rlog: %q %v", l, ok)
	}
	// DIR/subagents/agent-ID.jsonl beside the transcript.
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "subagents"), 0o755)
	write(t, filepath.Join(dir, "s.rlog"), "---\n")
	write(t, filepath.Join(dir, "s.jsonl"), "")
	write(t, filepath.Join(dir, "subagents", "agent-x1.jsonl"), "")
	if l, ok := RlogFor(filepath.Join(dir, "subagents", "agent-x1.jsonl")); !ok || l != filepath.Join(dir, "s.rlog") {
		t.Errorf("DIR/subagents: %q %v", l, ok)
	}
}

// TestMarkdownCut: the hover's fence survives backticks in the text, and a
// long text says how much is left out.
func TestMarkdownCut(t *testing.T) {
	md := Markdown(Content{What: "Output of Bash", Text: "```go\nx\n```", Language: "text"}, "/a/s.jsonl", 3)
	if !strings.Contains(md, "````text\n```go\nx\n```\n````") || !strings.HasPrefix(md, "**Output of Bash** in full, from `s.jsonl` line 4:") {
		t.Fatalf("%s", md)
	}
	long := strings.Repeat("é", HoverChars+10)
	md = Markdown(Content{What: "Agent message", Text: long, Language: "text"}, "s.jsonl", 0)
	if !strings.HasSuffix(md, "… 10 more characters. Go to Definition opens the record; *rlog: Show Full Record* shows it whole.") {
		t.Fatalf("%s", md[len(md)-200:])
	}
	lines := strings.Repeat("x\n", 100)
	md = Markdown(Content{What: "Output", Text: lines, Language: "text"}, "s.jsonl", 0)
	if strings.Count(md, "x\n") != HoverLines || !strings.Contains(md, "… 80 more characters (40 more lines)") {
		t.Fatalf("%s", md)
	}
}

// TestCurrentWhileGrowing: readers of a companion see whole snapshots while
// it grows under them (run with -race).
func TestCurrentWhileGrowing(t *testing.T) {
	whole, err := os.ReadFile(filepath.Join(fixtures, "sdk", "222000-fix-locked-login.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(filepath.Join(fixtures, "sdk", "222000-fix-locked-login.rlog"))
	if err != nil {
		t.Fatal(err)
	}
	tr := grammar.Parse(log)
	p := filepath.Join(t.TempDir(), "s.jsonl")
	write(t, p, "")
	c := Open(Files{Main: p})
	done := make(chan struct{})
	errs := make(chan error, 4)
	for range 3 {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				s, err := c.Current()
				if err != nil {
					errs <- err
					return
				}
				pr := Join(tr, s)
				for _, ref := range pr.Links() {
					if _, err := s.Content(ref); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	for i := 0; i < len(whole); i += 97 {
		appendTo(t, p, string(whole[i:min(i+97, len(whole))]))
	}
	close(done)
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	s, _ := c.Current()
	if got := Join(tr, s).Joined(); got != 21 {
		t.Fatalf("%d lines joined at the end", got)
	}
}
