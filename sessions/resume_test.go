package sessions

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/claude"
	agentstore "github.com/rlog-ls/rlog-ls/internal/benchdata/store"
)

// resumableFiles are the recorded session files of the repository the
// index reads by parts: Claude Code transcripts (not the sub-agents' own)
// and Codex CLI rollouts.
func resumableFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	filepath.WalkDir("../testdata/agents/codex", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") && resumable(convert.DetectedFile(p)) == convert.Codex {
			out = append(out, p)
		}
		return err
	})
	if len(out) < 5 {
		t.Fatalf("found %d Codex CLI rollouts in testdata", len(out))
	}
	return append(claudeTranscripts(t), out...)
}

// claudeTranscripts are the recorded Claude Code transcripts of the
// repository (not the sub-agents' own).
func claudeTranscripts(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, root := range []string{"../testdata", "../convert/claude/testdata"} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") || claude.PartOf(p) {
				return err
			}
			if f, ok := convert.ReadableFile(p); ok && f == convert.Claude {
				out = append(out, p)
			}
			return nil
		})
	}
	if len(out) < 10 {
		t.Fatalf("found %d Claude Code transcripts in testdata", len(out))
	}
	return out
}

// TestMergeEqualsWhole: at every cut of every recorded transcript, the
// row of the part before it merged with the row of the part after it is
// the row of the whole, field by field (the whole's is `rlog-ls stats`'
// figures: cmd/rlog-ls's TestSessionsEqualStats).
func TestMergeEqualsWhole(t *testing.T) {
	cuts, changed, called, phased := 0, 0, 0, 0
	// Beside the recorded ones, generated transcripts of many turns, of
	// both shapes (the writer's 400 KB hold most of the cuts counted
	// below).
	generated := agentstore.Generate(t, filepath.Join(t.TempDir(), "store"), 1, 400<<10, agentstore.Writer)[0]
	cli := agentstore.Generate(t, filepath.Join(t.TempDir(), "cli"), 1, 1<<20, agentstore.CLI)[0]
	for _, p := range append(resumableFiles(t), generated, cli) {
		whole, err := Read(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		format := resumable(convert.DetectedFile(p))
		if format == "" {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		scan, head, err := scannerOf(f, format)
		if err != nil {
			t.Fatal(err)
		}
		var offsets []int64
		err = eachCut(f, 0, fi.Size(), scan, func(off int64) bool { offsets = append(offsets, off); return true })
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, off := range offsets {
			if off == 0 {
				continue
			}
			cuts++
			before, obsBefore, err := readPart(p, format, off, &section{Off: 0, N: off, Line: 1})
			if err != nil {
				t.Fatalf("%s before %d: %v", p, off, err)
			}
			line := 1 + bytes.Count(b[:off], []byte("\n"))
			after, obs, err := readPart(p, format, fi.Size()-off, &section{Off: off, N: fi.Size() - off, Line: line, Head: head})
			if err != nil {
				t.Fatalf("%s after %d: %v", p, off, err)
			}
			if obs.sidechain || obs.compacted {
				// A sub-agent's own rollout: every line is the sub-agent's,
				// which its lines do not say; it is read whole
				// (TestPartNotOnItsOwnReadWhole). A transcript says it.
				if format == convert.Claude {
					t.Errorf("%s: the part after the cut at %d holds a sub-agent's line or a compaction", p, off)
				}
				continue
			}
			got, err := sessionOf(convert.DetectedFile(p), format, fi, before.merge(after), &Session{}, false)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := rowJSON(t, got.Row), rowJSON(t, whole.Row); g != w {
				t.Errorf("%s cut at %d:\nmerged %s\nwhole  %s", p, off, g, w)
			}
			// The changes, prompts, calls and phases too, one part's after
			// the other's (those found by their ids without their lines
			// and ids: Read places them in the whole file; the phases the
			// reader placed at the file's lines).
			changes := (&observer{calls: append(slices.Clone(obsBefore.calls), obs.calls...)}).changes(got.Row.Cwd)
			prompts := append(slices.Clone(obsBefore.prompts), obs.prompts...)
			calls := append(slices.Clone(obsBefore.allCalls), obs.allCalls...)
			phases := append(slices.Clone(obsBefore.phases), obs.phases...)
			unplaced := func(cs []Change, ps []Prompt, calls []Call, phases []Phase) string {
				cs, ps, calls = slices.Clone(cs), slices.Clone(ps), slices.Clone(calls)
				for i := range cs {
					cs[i].Line, cs[i].CallID = 0, ""
				}
				for i := range ps {
					ps[i].Line, ps[i].ID = 0, ""
				}
				for i := range calls {
					calls[i].Line, calls[i].ID = 0, ""
				}
				return toJSON(t, cs, ps, calls, phases)
			}
			if g, w := unplaced(changes, prompts, calls, phases), unplaced(whole.Changes, whole.Prompts, whole.Calls, whole.Phases); g != w {
				t.Errorf("%s cut at %d: changes, prompts, calls and phases\nmerged %s\nwhole  %s", p, off, g, w)
			}
			changed += len(obsBefore.calls)
			called += len(obsBefore.allCalls)
			phased += len(obs.phases)
		}
	}
	if changed == 0 || called == 0 {
		t.Errorf("%d files changed and %d calls made before a cut: none tested", changed, called)
	}
	if phased == 0 {
		t.Error("no phase after a cut: none placed at the file's lines")
	}
	if cuts < 40 {
		t.Errorf("%d cuts in the recorded transcripts: the rule finds too few", cuts)
	}
	t.Logf("%d cuts", cuts)
}

// TestGrownTranscriptReadFromCut: a transcript listed at every one of its
// line ends, then grown in two steps to its whole, is listed with the row
// of the whole, having read only what came after its cut when it had one.
func TestGrownTranscriptReadFromCut(t *testing.T) {
	resumed := 0
	// Beside the recorded ones, a generated transcript of many turns that
	// change files, at a few of its line ends.
	generated := agentstore.Claude(t, filepath.Join(t.TempDir(), "store"), 1, 200<<10)[0]
	for _, src := range append(resumableFiles(t), generated) {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		ends := lineEnds(b)
		stride := 1
		if testing.Short() || src == generated {
			stride = max(1, len(ends)/6)
		}
		for k := 0; k < len(ends)-1; k += stride {
			// Each listing in a process of its own (the CLI), the last
			// asking for the changes too; or one index kept, every listing
			// asking for them (the server's workspace symbols).
			for _, server := range []bool{false, true} {
				n1 := ends[k]
				dir := t.TempDir()
				p := filepath.Join(dir, filepath.Base(src))
				index := filepath.Join(dir, "index.json")
				n2 := ends[k+(len(ends)-k)/2]
				var last *Listing
				var ix *Index
				for i, n := range []int{n1, n2, len(b)} {
					if i == 2 && n2 == len(b) {
						break
					}
					writeGrown(t, p, b[:n], i)
					if ix == nil || !server {
						ix = Open(index)
					}
					last = ix.List(context.Background(), Request{Files: []string{p}, Changes: server || n == len(b)})
					if err := ix.Save(); err != nil {
						t.Fatal(err)
					}
					if i > 0 {
						resumed += last.Resumed
					}
				}
				whole, err := Read(p)
				if err != nil {
					t.Fatal(err)
				}
				if len(last.Sessions) != 1 {
					t.Fatalf("%s grown from %d: %d sessions, problems %v", src, n1, len(last.Sessions), last.Problems)
				}
				got := last.Sessions[0]
				if g, w := rowJSON(t, got.Row), rowJSON(t, whole.Row); g != w {
					t.Errorf("%s grown from %d bytes:\nlisted %s\nwhole  %s", src, n1, g, w)
				}
				if g, w := toJSON(t, got.Changes, got.Prompts, got.Calls, got.Phases), toJSON(t, whole.Changes, whole.Prompts, whole.Calls, whole.Phases); g != w {
					t.Errorf("%s grown from %d bytes (server %v): changes, prompts, calls and phases\nlisted %s\nwhole  %s", src, n1, server, g, w)
				}
			}
		}
	}
	if resumed == 0 {
		t.Error("no grown transcript was read from its cut")
	}
	t.Logf("%d listings read from a cut", resumed)
}

// toJSON is vs in JSON, one after the other.
func toJSON(t *testing.T, vs ...any) string {
	t.Helper()
	var out []byte
	for _, v := range vs {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out = append(append(out, b...), '\n')
	}
	return string(out)
}

// lineEnds are the offsets just after each line of b.
func lineEnds(b []byte) []int {
	var out []int
	for i, c := range b {
		if c == '\n' {
			out = append(out, i+1)
		}
	}
	return out
}

// listVersion writes content to p as its version i (writeGrown) and lists
// it with the index at index, as a process of its own does.
func listVersion(t *testing.T, index, p string, i int, content []byte) *Listing {
	t.Helper()
	writeGrown(t, p, content, i)
	ix := Open(index)
	l := ix.List(context.Background(), Request{Files: []string{p}})
	if err := ix.Save(); err != nil {
		t.Fatal(err)
	}
	return l
}

// writeGrown writes b to p as its version i (a modification time of its
// own, as a file written later has).
func writeGrown(t *testing.T, p string, b []byte, i int) {
	t.Helper()
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 27, 10, 0, i, 0, time.UTC)
	if err := os.Chtimes(p, at, at); err != nil {
		t.Fatal(err)
	}
}

// A transcript whose bytes before its cut changed, or that shrank, is read
// whole: its row is the new file's.
func TestRewrittenTranscriptReadWhole(t *testing.T) {
	src := "../testdata/agents/claude-code/2.1.328/tools/claude/projects/-tmp-rlog-producers-claude-tools-work/da6a7691-8018-4b44-a8bc-de3b2268c45d.jsonl"
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	index := filepath.Join(dir, "index.json")
	list := func(i int, content []byte) *Listing { return listVersion(t, index, p, i, content) }
	if l := list(0, b); l.Read != 1 || Open(index).entries[p].Cut == nil {
		t.Fatalf("the transcript was not read, or has no cut")
	}
	// The first prompt said otherwise, and a turn was added.
	changed := bytes.Replace(b, []byte("Check the notes in this folder."), []byte("Check the notes in that folder."), 1)
	if bytes.Equal(changed, b) {
		t.Fatal("the fixture has no prompt to change")
	}
	grown := append(changed, b[lineEnds(b)[len(lineEnds(b))-2]:]...)
	l := list(1, grown)
	whole, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if l.Resumed != 0 || rowJSON(t, l.Sessions[0].Row) != rowJSON(t, whole.Row) {
		t.Errorf("rewritten: resumed %d, row %s, want %s", l.Resumed, rowJSON(t, l.Sessions[0].Row), rowJSON(t, whole.Row))
	}
	short := b[:lineEnds(b)[5]]
	l = list(2, short)
	if whole, err = Read(p); err != nil {
		t.Fatal(err)
	}
	if l.Resumed != 0 || rowJSON(t, l.Sessions[0].Row) != rowJSON(t, whole.Row) {
		t.Errorf("shrunk: resumed %d, row %s, want %s", l.Resumed, rowJSON(t, l.Sessions[0].Row), rowJSON(t, whole.Row))
	}
}

// A transcript with sub-agents' files beside it is not cut: the reader
// splices their transcripts in where their calls end.
func TestTranscriptWithSubagentsNotCut(t *testing.T) {
	p := "../testdata/agents/claude-code/2.1.328/subagent/claude/projects/-tmp-rlog-producers-claude-subagent-work/8d6b59c6-27db-4aed-8b2b-f2f27d16e2de.jsonl"
	if _, err := os.Stat(p); err != nil {
		t.Skipf("the recorded sub-agent session is missing: %v", err)
	}
	if resumable(convert.DetectedFile(p)) != "" {
		t.Error("a transcript with sub-agents' files is read by parts")
	}
}

// A prompt the user sent while a call waited for its result is no cut:
// the part after it would hold a result without its call.
func TestNoCutWhileACallIsOpen(t *testing.T) {
	lines := []string{
		`{"type":"user","message":{"role":"user","content":"first"},"uuid":"u1","timestamp":"2026-11-27T09:00:00Z"}`,
		`{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"call-1","name":"Bash","input":{"command":"sleep 9"}}]},"uuid":"a1","timestamp":"2026-11-27T09:00:01Z"}`,
		`{"type":"user","message":{"role":"user","content":"while it runs"},"uuid":"u2","timestamp":"2026-11-27T09:00:02Z"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"call-1","content":"done"}]},"uuid":"u3","timestamp":"2026-11-27T09:00:09Z"}`,
		`{"type":"user","message":{"role":"user","content":"second"},"uuid":"u4","timestamp":"2026-11-27T09:00:10Z"}`,
		`{"type":"user","message":{"role":"user","content":"being writ`,
	}
	got, at := claudeCuts(t, lines)
	if want := []int64{at(4), 0}; !slices.Equal(got, want) {
		t.Errorf("cuts %v, want %v (the second prompt's and the first's)", got, want)
	}
}

// claudeCuts are the cuts of the Claude Code transcript of lines, the
// last first, and the offset of each line.
func claudeCuts(t *testing.T, lines []string) ([]int64, func(i int) int64) {
	t.Helper()
	b := []byte(strings.Join(lines, "\n"))
	var got []int64
	err := eachCut(bytes.NewReader(b), 0, int64(len(b)), scanClaudeLine, func(off int64) bool { got = append(got, off); return true })
	if err != nil {
		t.Fatal(err)
	}
	return got, func(i int) int64 { return int64(len(strings.Join(lines[:i], "\n")) + 1) }
}

// A prompt that starts a run resumed after the last one ended (its
// cost-state) is no cut: the reading of the whole marks the run's start
// there (@resume), which the part after it, read on its own, could not.
func TestNoCutAtAResumedRun(t *testing.T) {
	lines := []string{
		`{"type":"user","message":{"role":"user","content":"first"},"uuid":"u1","timestamp":"2026-11-27T09:00:00Z"}`,
		`{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"one"}]},"uuid":"a1","timestamp":"2026-11-27T09:00:01Z"}`,
		`{"type":"cost-state","sessionId":"s","totalCostUSD":0.01}`,
		`{"type":"queue-operation","operation":"dequeue","sessionId":"s"}`,
		`{"type":"user","message":{"role":"user","content":"resumed"},"uuid":"u2","timestamp":"2026-11-27T10:00:00Z"}`,
		`{"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"two"}]},"uuid":"a2","timestamp":"2026-11-27T10:00:01Z"}`,
		`{"type":"user","message":{"role":"user","content":"third"},"uuid":"u3","timestamp":"2026-11-27T10:00:02Z"}`,
		``,
	}
	got, at := claudeCuts(t, lines)
	if want := []int64{at(6), 0}; !slices.Equal(got, want) {
		t.Errorf("cuts %v, want %v (the third prompt's and the first's)", got, want)
	}
}

// A line longer than maxCutLine (by a chunk read) ends the search for a
// cut: the search does not hold it whole.
func TestNoCutBeforeAHugeLine(t *testing.T) {
	prompt := `{"type":"user","message":{"role":"user","content":"first"},"uuid":"u1"}` + "\n"
	huge := `{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("x", maxCutLine+128<<10) + `"}]}}` + "\n"
	for _, c := range []struct {
		name, text string
		want       []int64
	}{
		{"a prompt before the huge line", prompt + huge, nil},
		{"a prompt after it", prompt + huge + prompt, []int64{int64(len(prompt) + len(huge))}},
	} {
		var got []int64
		err := eachCut(strings.NewReader(c.text), 0, int64(len(c.text)), scanClaudeLine, func(off int64) bool { got = append(got, off); return true })
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: cuts %v (%v), want %v", c.name, got, err, c.want)
		}
	}
}

// The title of parts merged is the whole's: the first prompt, unless the
// agent gave one (the first it gave), unless the user gave one (the last
// the user gave).
func TestMergeTitle(t *testing.T) {
	prompt := part{Prompt: "p1"}
	ai := part{Prompt: "p2", Own: "ai", OwnSet: true}
	ai2 := part{Own: "ai2", OwnSet: true}
	custom := part{Own: "mine", OwnSet: true, OwnCustom: true}
	custom2 := part{Own: "mine2", OwnSet: true, OwnCustom: true}
	title := func(p part) string { var r Row; p.fill(&r); return r.Title }
	for _, c := range []struct {
		parts []part
		want  string
	}{
		{[]part{prompt, {Prompt: "p2"}}, "p1"},
		{[]part{prompt, ai}, "ai"},
		{[]part{ai, ai2}, "ai"},
		{[]part{ai, custom}, "mine"},
		{[]part{custom, ai2}, "mine"},
		{[]part{custom, custom2}, "mine2"},
		{[]part{custom, ai2, prompt}, "mine"},
	} {
		m := c.parts[0]
		for _, p := range c.parts[1:] {
			m = m.merge(p)
		}
		if got := title(m); got != c.want {
			t.Errorf("%+v: title %q, want %q", c.parts, got, c.want)
		}
	}
}

// The changes file is written and read an entry at a time: saving and
// opening an index whose changes file is tens of MB never holds its text
// at once (encoding/json's Encoder and os.ReadFile did, twice its size at
// the peak). It measures memory, not time.
func TestChangesFileNotHeldWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a 24 MB changes file")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	dir := t.TempDir()
	ix := Open(filepath.Join(dir, "index.json"))
	for i := range 400 {
		p := filepath.Join(dir, fmt.Sprintf("s%d.jsonl", i))
		e := &entry{Path: p, Size: 1, ModNS: 1, Session: true, seen: true, changed: true}
		for j := range 500 {
			e.changes = append(e.changes, Change{Tool: "Edit", Target: fmt.Sprintf("/src/project/module-%d/file-%d.go", j%40, (i*7+j)%3000), CallID: fmt.Sprintf("toolu_%024d", i*1000+j)})
		}
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, time.Unix(0, 1), time.Unix(0, 1))
		ix.entries[p] = e
	}
	ix.dirty, ix.changesDirty = true, true
	saved, _ := peakDuring(func() {
		if err := ix.Save(); err != nil {
			t.Fatal(err)
		}
	})
	fi, err := os.Stat(ix.changesPath())
	if err != nil {
		t.Fatal(err)
	}
	again := Open(ix.path)
	opened, loaded := peakDuring(func() {
		again.mu.Lock()
		again.loadChanges()
		again.mu.Unlock()
	})
	if len(again.changes) != 400 {
		t.Fatalf("%d sessions' changes read again", len(again.changes))
	}
	mb := func(n uint64) float64 { return float64(n) / (1 << 20) }
	t.Logf("changes file %.1f MB; the heap grew by %.1f MB saving it, %.1f MB opening it (%.1f MB of changes kept)", mb(uint64(fi.Size())), mb(saved), mb(opened), mb(loaded))
	if saved > uint64(fi.Size())/2 {
		t.Errorf("saving a %.1f MB changes file took %.1f MB more heap", mb(uint64(fi.Size())), mb(saved))
	}
	if opened > loaded+uint64(fi.Size())*3/4 {
		t.Errorf("opening a %.1f MB changes file took %.1f MB more heap than the %.1f MB it keeps", mb(uint64(fi.Size())), mb(opened), mb(loaded))
	}
}

// A transcript that grew by a compaction and its run's end (an automatic
// compaction in the middle of a turn: no prompt after it, so no cut) is
// read whole: the compaction's usage is read ahead from its line, which a
// part read from the cut would number from the cut. (The recorded run's
// prompts each start a run resumed after the last one ended, which is no
// cut: the cut is a prompt of the same run, sent before the compaction.)
func TestGrownByACompactionReadWhole(t *testing.T) {
	src := "../testdata/agents/claude-code/2.1.328/compaction/claude/projects/-tmp-rlog-producers-claude-compaction-work/80a1cf9d-b729-44f2-9402-224d0608f27a.jsonl"
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	at := slices.IndexFunc(lines[40:], func(l []byte) bool { return bytes.Contains(l, []byte(`"compact_boundary"`)) }) + 40
	if at < 40 {
		t.Fatal("the fixture has no second compaction")
	}
	// What follows the compaction, without the prompts of the user.
	var after []byte
	for _, l := range lines[at+1:] {
		if !bytes.Contains(l, []byte(`"type":"user","message":{"role":"user","content":"`)) {
			after = append(after, l...)
		}
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	index := filepath.Join(dir, "index.json")
	list := func(i int, content []byte) *Listing { return listVersion(t, index, p, i, content) }
	asked := slices.IndexFunc(lines, func(l []byte) bool {
		return bytes.Contains(l, []byte(`"role":"user","content":"Which word did I ask you to remember?`))
	})
	if asked < 0 {
		t.Fatal("the fixture has no prompt after its first compaction")
	}
	again := bytes.Replace(lines[asked], []byte("Which word did I ask you to remember? Then count the files here."), []byte("And the folders?"), 1)
	again = bytes.Replace(again, []byte(`"uuid":"1f7fec21-`), []byte(`"uuid":"2f7fec21-`), 1)
	before := append(bytes.Join(lines[:at], nil), again...)
	list(0, before)
	if Open(index).entries[p].Cut == nil {
		t.Fatal("no cut before the compaction")
	}
	l := list(1, append(append(slices.Clone(before), lines[at]...), after...))
	whole, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := rowJSON(t, l.Sessions[0].Row), rowJSON(t, whole.Row); g != w {
		t.Errorf("listed %s\nwhole  %s", g, w)
	}
}

// A part after the cut that cannot be read on its own (here a line of a
// sub-agent's that does not say it is a sidechain) makes the transcript
// read whole, once: the reading does not start over for ever.
func TestPartNotOnItsOwnReadWhole(t *testing.T) {
	lines := []string{
		`{"type":"user","message":{"role":"user","content":"first"},"uuid":"u1","sessionId":"s","timestamp":"2026-11-27T09:00:00Z"}`,
		`{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"one"}]},"uuid":"a1","sessionId":"s","timestamp":"2026-11-27T09:00:01Z"}`,
		`{"type":"user","message":{"role":"user","content":"second"},"uuid":"u2","sessionId":"s","agentId":"helper","timestamp":"2026-11-27T09:00:02Z"}`,
		`{"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"two"}]},"uuid":"a2","sessionId":"s","timestamp":"2026-11-27T09:00:03Z"}`,
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	windows := 0 // each reading of this small file is a window
	afterWindow = func() { windows++ }
	l := listVersion(t, filepath.Join(dir, "index.json"), p, 0, []byte(strings.Join(lines, "\n")+"\n"))
	afterWindow = nil
	if windows > 3 {
		t.Errorf("the transcript was read %d times for one listing", windows)
	}
	whole, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Sessions) != 1 || rowJSON(t, l.Sessions[0].Row) != rowJSON(t, whole.Row) {
		t.Fatalf("listed %v (%v), want %s", l.Sessions, l.Problems, rowJSON(t, whole.Row))
	}
	if Open(filepath.Join(dir, "index.json")).entries[p].Cut != nil {
		t.Error("a cut was kept before a part that cannot be read on its own")
	}
}

// A part of a Codex CLI rollout is read after the rollout's first line,
// whose thread its reader keeps: a usage record of another thread after
// the cut (a forked sub-agent's replay of its parent's) is left out, as
// the reading of the whole leaves it out.
func TestCodexPartKnowsItsThread(t *testing.T) {
	src := "../testdata/agents/codex/0.169.0/resume/codex-home/sessions/2026/11/27/rollout-2026-11-27T09-48-10-01a21c67-bc4f-7273-a6e9-0186f9908af1.jsonl"
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	last := slices.IndexFunc(lines, func(l []byte) bool { return bytes.Contains(l, []byte(`"resp_third_01"`)) })
	if last < 0 {
		t.Fatal("the fixture has no third response")
	}
	other := bytes.ReplaceAll(lines[last], []byte(`"thread_id":"01a21c67-bc4f-7273-a6e9-0186f9908af1"`), []byte(`"thread_id":"01a21c67-0000-7000-8000-000000000000"`))
	other = bytes.ReplaceAll(other, []byte(`"resp_third_01"`), []byte(`"resp_other_01"`))
	grown := slices.Concat(bytes.Join(lines[:last+1], nil), other, bytes.Join(lines[last+1:], nil))
	dir := t.TempDir()
	p := filepath.Join(dir, filepath.Base(src))
	index := filepath.Join(dir, "index.json")
	listVersion(t, index, p, 0, bytes.Join(lines[:last-5], nil))
	l := listVersion(t, index, p, 1, grown)
	whole, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if l.Resumed != 1 {
		t.Fatalf("the grown rollout was not read from its cut (%d read)", l.Read)
	}
	if g, w := rowJSON(t, l.Sessions[0].Row), rowJSON(t, whole.Row); g != w {
		t.Errorf("listed %s\nwhole  %s", g, w)
	}
}

// peakDuring is the most the heap held more than before while fn ran,
// sampled every 200µs, and what it holds more after (kept).
func peakDuring(fn func()) (peak, kept uint64) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	done := make(chan bool)
	go func() {
		for {
			select {
			case <-done:
				done <- true
				return
			case <-time.After(200 * time.Microsecond):
				metrics.Read(sample)
				peak = max(peak, sample[0].Value.Uint64())
			}
		}
	}()
	fn()
	done <- true
	<-done
	runtime.GC()
	metrics.Read(sample)
	return peak - min(peak, base), sample[0].Value.Uint64() - min(sample[0].Value.Uint64(), base)
}
