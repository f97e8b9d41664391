package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/internal/benchdata"
	"github.com/rlog-ls/rlog-ls/internal/gen"
	"github.com/rlog-ls/rlog-ls/sessions"
)

var agentsDir = filepath.Join("..", "..", "testdata", "agents")

// searchJSON runs search --format json and returns its hits.
func searchJSON(t *testing.T, args ...string) ([]searchHit, int, string) {
	t.Helper()
	out, errOut, code := runCLI(t, append([]string{"search", "--format", "json"}, args...)...)
	var hits []searchHit
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var h searchHit
		if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
			t.Fatalf("%v: %s", err, sc.Text())
		}
		hits = append(hits, h)
	}
	return hits, code, errOut
}

// lineOf is line n (from 1) of the file at path.
func lineOf(t *testing.T, path string, n int) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if n < 1 || n > len(lines) {
		t.Fatalf("%s has no line %d", path, n)
	}
	return lines[n-1]
}

// TestSearchRecordedAgents: on the transcripts the real Claude Code, Codex
// and Gemini CLI wrote, search finds a call's input, a tool's output, a
// prompt and thinking, each at the line of the record that holds it (the
// record's JSON has the matched text), with its kind; a sub-agent's hits
// are at its own file.
func TestSearchRecordedAgents(t *testing.T) {
	for _, c := range []struct {
		dir, pattern, kind, tool string
		subagent                 bool
	}{
		{"claude-code/2.1.328/tools", "wc -l notes", "call", "Bash", false},
		{"claude-code/2.1.328/tools", "archive", "error", "Bash", false},
		{"claude-code/2.1.328/tools", "Check the notes", "prompt", "", false},
		{"claude-code/2.1.328/subagent", "version 1\\.4\\.2", "message", "", true},
		{"codex/0.169.0/patch", `Update File: notes\.md`, "call", "apply_patch", false},
		{"codex/0.169.0/shell", `.`, "prompt", "", false},
		{"codex/0.169.0/subagent", "SUBTASK", "context", "", true},
		{"gemini-cli/0.61.0/shell", `printf`, "call", "run_shell_command", false},
		{"gemini-cli/0.61.0/shell", `write the file`, "thinking", "", false},
		{"gemini-cli/0.61.0/subagent", "SUBTASK", "prompt", "", true},
	} {
		hits, code, errOut := searchJSON(t, "--kind", c.kind, c.pattern, filepath.Join(agentsDir, c.dir))
		if code != 0 {
			t.Errorf("%s %q: exit %d: %s", c.dir, c.pattern, code, errOut)
			continue
		}
		found := false
		for _, h := range hits {
			if h.Kind != c.kind {
				t.Errorf("%s: --kind %s gave a %s hit", c.dir, c.kind, h.Kind)
			}
			if h.Tool != c.tool || (h.Agent != "") != c.subagent {
				continue
			}
			found = true
			// The hit is at the record: its line holds the match, as JSON
			// writes it.
			quoted, _ := json.Marshal(h.Match)
			if rec := lineOf(t, h.File, h.Line); !strings.Contains(rec, strings.Trim(string(quoted), `"`)) {
				t.Errorf("%s:%d: %q is not in the record there: %.300s", h.File, h.Line, h.Match, rec)
			}
			if c.subagent && !strings.Contains(filepath.ToSlash(h.File), "/") {
				t.Errorf("%s: a sub-agent's hit names no file of its own: %s", c.dir, h.File)
			}
		}
		if !found {
			t.Errorf("%s %q: no %s %s hit (sub-agent %v) in %+v", c.dir, c.pattern, c.kind, c.tool, c.subagent, hits)
		}
	}
}

// TestSearchTextLines: the text format is FILE:LINE: KIND: EXCERPT, a
// sub-agent's hits say so, and the exit status is grep's.
func TestSearchTextLines(t *testing.T) {
	dir := filepath.Join(agentsDir, "claude-code", "2.1.328", "subagent")
	out, _, code := runCLI(t, "search", "-i", "VERSION file", dir)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	want := "/subagents/agent-ad1d58fb8290d2b47.jsonl:1: sub-agent prompt: Read the VERSION file"
	if !strings.Contains(filepath.ToSlash(out), want) {
		t.Errorf("no %q in\n%s", want, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if file, rest, ok := strings.Cut(line, ".jsonl:"); !ok || file == "" || !strings.Contains(rest, ": ") {
			t.Errorf("not FILE:LINE: KIND: EXCERPT: %q", line)
		}
	}
	if _, _, code := runCLI(t, "search", "no such words anywhere", dir); code != 1 {
		t.Errorf("nothing found: exit %d, want 1", code)
	}
	if _, errOut, code := runCLI(t, "search", "(", dir); code != 2 || !strings.Contains(errOut, "PATTERN") {
		t.Errorf("a bad pattern: exit %d, %q", code, errOut)
	}
	if _, _, code := runCLI(t, "search", "VERSION", dir, filepath.Join(dir, "missing.jsonl")); code != 2 {
		t.Errorf("a missing path: exit %d, want 2 (as grep)", code)
	}
	notes := writeFile(t, t.TempDir(), "notes.txt", "VERSION\n")
	if _, errOut, code := runCLI(t, "search", "VERSION", notes); code != 2 || !strings.Contains(errOut, "not a session rlog-ls reads") {
		t.Errorf("a file that is no session: exit %d, %q", code, errOut)
	}
	if out, _, _ := runCLI(t, "search", "-F", "1.4.2", dir); !strings.Contains(out, "1.4.2") {
		t.Errorf("-F: %s", out)
	}
	if out, _, _ := runCLI(t, "search", "-F", "1x4x2", dir); out != "" {
		t.Errorf("-F takes dots as dots: %s", out)
	}
}

// TestSearchRlogWithCompanion: an .rlog with a companion is searched
// through the companion's whole records, at the rlog's lines, and the
// companion itself is not searched again when its folder is.
func TestSearchRlogWithCompanion(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "companions", "sdk")
	log := filepath.Join(dir, "222000-fix-locked-login.rlog")
	// Line 19 of the log cuts the Read's output after its first line; the
	// fifth line is only in the companion.
	if strings.Contains(lineOf(t, log, 19), "pub fn login") {
		t.Fatal("the fixture changed: line 19 shows what the test looks for")
	}
	hits, code, _ := searchJSON(t, "-F", "pub fn login(store", dir)
	if code != 0 || len(hits) != 1 {
		t.Fatalf("exit %d, hits %+v", code, hits)
	}
	if h := hits[0]; h.File != log || h.Line != 19 || h.Kind != "output" || h.Tool != "Read" {
		t.Errorf("hit %+v, want %s:19 output Read", h, log)
	}
}

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("é", 100)
	for _, c := range []struct{ line, pattern, want string }{
		{"a\tb needle c", "needle", "a b needle c"},
		{long + "needle" + long, "needle", "…" + strings.Repeat("é", 40) + "needle" + strings.Repeat("é", 40) + "…"},
		{"😀😀 needle \xff end", "needle", "😀😀 needle \uFFFD end"},
	} {
		i := strings.Index(c.line, c.pattern)
		got := excerpt(c.line, i, i+len(c.pattern))
		if got != c.want || !utf8.ValidString(got) {
			t.Errorf("excerpt(%q) = %q, want %q", c.line, got, c.want)
		}
	}
	// A long match is cut too.
	m := strings.Repeat("x", 500)
	if got := excerpt(m, 0, len(m)); utf8.RuneCountInString(got) != excerptMatch+1 {
		t.Errorf("a long match: %d characters", utf8.RuneCountInString(got))
	}
}

// TestSearchPeakHeapStaysConstant: searching a Claude Code transcript of N
// bytes and one of 4N, and an rlog log of each, with a pattern that
// matches on most lines, peaks at the same live heap give or take a
// constant: search holds one record at a time (and the calls not yet
// answered), never the file.
func TestSearchPeakHeapStaysConstant(t *testing.T) {
	logs := benchdata.StartHeapTest(t, "searches 30 MB of sessions", gen.Options{Seed: 7, Timed: true, Streamed: true})
	var transcripts [2]string
	for i, p := range logs {
		// Not beside the log, where it would be its companion.
		transcripts[i] = filepath.Join(t.TempDir(), "transcript.jsonl")
		convertTo(t, p, convert.Rlog, transcripts[i], convert.Claude)
	}
	var h benchdata.HeapPeak
	for name, files := range map[string][2]string{"rlog": logs, "transcript": transcripts} {
		var peaks [2]uint64
		for i, p := range files {
			h.Reset()
			re := regexp.MustCompile("e")
			s := &searcher{re: re, kinds: map[string]bool{}, out: &sampledWriter{h: &h}}
			if err := s.file(p); err != nil {
				t.Fatal(err)
			}
			if s.hits < 1000 {
				t.Fatalf("%s: %d hits: the pattern should match most lines", name, s.hits)
			}
			h.Sample()
			peaks[i] = h.Peak
		}
		benchdata.CheckHeapStaysConstant(t, name, peaks)
	}
}

// BenchmarkSearch searches a generated 12 MB Claude Code transcript (the
// rlog session of internal/gen converted) for a word on most lines and
// for one on none, as docs/performance.md reports.
func BenchmarkSearch(b *testing.B) {
	dir := b.TempDir()
	log := filepath.Join(dir, "s.rlog")
	benchdata.WriteSession(b, log, gen.Options{Bytes: 12 << 20, Seed: 7, Timed: true, Streamed: true})
	tp := filepath.Join(b.TempDir(), "s.jsonl")
	convertTo(b, log, convert.Rlog, tp, convert.Claude)
	fi, _ := os.Stat(tp)
	for _, c := range []struct{ name, pattern string }{{"many", "e"}, {"none", "zqxj"}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(fi.Size())
			for b.Loop() {
				s := &searcher{re: regexp.MustCompile(c.pattern), kinds: map[string]bool{}, out: io.Discard}
				if err := s.file(tp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// convertTo writes the session at from, read as format fromFormat, to the
// file to as format toFormat.
func convertTo(t testing.TB, from string, fromFormat convert.Format, to string, toFormat convert.Format) {
	t.Helper()
	f, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := convert.ConvertFile(from, fromFormat, toFormat, f, convert.Options{}); err != nil {
		t.Fatal(err)
	}
}

// TestSearchWithoutPaths: with no PATH, search reads this folder's
// sessions as rlog-ls sessions lists them: here a Claude Code transcript
// in the store for this folder (CLAUDE_CONFIG_DIR/projects/ENCODED-DIR/),
// through the same index.
func TestSearchWithoutPaths(t *testing.T) {
	a, _ := claudePair(t)
	here := t.TempDir()
	claude := t.TempDir()
	store := filepath.Join(claude, "projects", sessions.ClaudeProject(here))
	data, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	transcript := writeFile(t, store, filepath.Base(a), string(data))
	t.Setenv("CLAUDE_CONFIG_DIR", claude)
	t.Setenv("CODEX_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv(sessions.IndexEnv, filepath.Join(t.TempDir(), "sessions.json"))
	t.Chdir(here)
	hits, code, errOut := searchJSON(t, "-F", "wc -l notes.txt")
	if code != 0 || len(hits) != 1 {
		t.Fatalf("exit %d (%s), hits %+v", code, errOut, hits)
	}
	if h := hits[0]; h.File != transcript || h.Kind != "call" || h.Tool != "Bash" {
		t.Errorf("hit %+v, want the call in %s", h, transcript)
	}
	// What sessions lists, search reads.
	out, _, _ := runCLI(t, "sessions", "--format", "json")
	if !strings.Contains(out, filepath.Base(a)) {
		t.Errorf("sessions lists another set:\n%s", out)
	}
}
