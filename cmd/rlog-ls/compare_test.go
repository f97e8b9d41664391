package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/benchdata"
	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// transcriptOf is the one transcript of a recorded scenario of an agent
// (dir under testdata/agents), found by pattern.
func transcriptOf(t *testing.T, dir, pattern string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(agentsDir, dir, pattern))
	if len(m) != 1 {
		t.Fatalf("%s/%s: %d files, want 1", dir, pattern, len(m))
	}
	return m[0]
}

func claudePair(t *testing.T) (a, b string) {
	return transcriptOf(t, "claude-code/2.1.328/compare-a", "claude/projects/*/*.jsonl"),
		transcriptOf(t, "claude-code/2.1.328/compare-b", "claude/projects/*/*.jsonl")
}

func compareJSON(t *testing.T, a, b string) (*comparison, int) {
	t.Helper()
	out, errOut, code := runCLI(t, "compare", "--format", "json", a, b)
	if code == 2 {
		t.Fatalf("compare %s %s: %s", a, b, errOut)
	}
	var c comparison
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return &c, code
}

// TestCompareFindsTheChangedAnswer: the same task run twice by the real
// Claude Code with one scripted answer changed (the second call counts
// words, not lines; the harness's compare-a and compare-b, each run in a
// folder of its own): compare finds the difference at that call, on both
// sides' record lines, and nothing before it.
func TestCompareFindsTheChangedAnswer(t *testing.T) {
	a, b := claudePair(t)
	c, code := compareJSON(t, a, b)
	if code != 1 || c.Divergence == nil {
		t.Fatalf("exit %d, divergence %+v: the runs differ", code, c.Divergence)
	}
	d := c.Divergence
	if d.Turn != 1 || d.Call != 2 || d.A == nil || d.B == nil {
		t.Fatalf("divergence %+v, want turn 1 call 2", d)
	}
	if d.A.What != "Bash wc -l notes.txt" || d.B.What != "Bash wc -w notes.txt" {
		t.Errorf("A %q, B %q", d.A.What, d.B.What)
	}
	for _, p := range []*place{d.A, d.B} {
		if rec := lineOf(t, p.File, p.Line); !strings.Contains(rec, `"name":"Bash"`) || !strings.Contains(rec, strings.TrimPrefix(p.What, "Bash ")) {
			t.Errorf("%s:%d is not the call's record: %.200s", p.File, p.Line, rec)
		}
	}
	// The first call reads a file in each run's own folder: aligned by
	// the path relative to it.
	if c.A.Turns != 1 || c.A.Calls != 2 || c.B.Calls != 2 {
		t.Errorf("turns %d, calls %d and %d", c.A.Turns, c.A.Calls, c.B.Calls)
	}
	// A session does the same as itself, and as its rlog conversion.
	if c, code := compareJSON(t, a, a); code != 0 || c.Divergence != nil {
		t.Errorf("a session against itself: exit %d, %+v", code, c.Divergence)
	}
	log := filepath.Join(t.TempDir(), "a.rlog")
	convertTo(t, a, convert.Claude, log, convert.Rlog)
	if c, code := compareJSON(t, log, a); code != 0 || c.Divergence != nil {
		t.Errorf("a session against its rlog: exit %d, %+v", code, c.Divergence)
	}
	if c, code := compareJSON(t, log, b); code != 1 || c.Divergence == nil || c.Divergence.Call != 2 || c.Divergence.A.Line < 1 {
		t.Errorf("an rlog against the other run: exit %d, %+v", code, c.Divergence)
	}
}

// TestCompareFindsTheChangedCodexAnswer: the same for two runs of the
// real Codex CLI (the harness's compare-a and compare-b): the one shell
// command differs, at both rollouts' record lines.
func TestCompareFindsTheChangedCodexAnswer(t *testing.T) {
	a := transcriptOf(t, "codex/0.169.0/compare-a", "codex-home/sessions/*/*/*/*.jsonl")
	b := transcriptOf(t, "codex/0.169.0/compare-b", "codex-home/sessions/*/*/*/*.jsonl")
	checkShellDivergence(t, a, b, 1, "exec_command", "wc -l names.txt", "wc -w names.txt")
}

// checkShellDivergence: compare finds the first difference of a and b,
// two runs of one task, at turn 1's call (1-based) of tool, the shell
// commands ending in wantA and wantB, both places at their calls' record
// lines; and a against itself does the same.
func checkShellDivergence(t *testing.T, a, b string, call int, tool, wantA, wantB string) {
	t.Helper()
	c, code := compareJSON(t, a, b)
	if code != 1 || c.Divergence == nil || c.Divergence.Turn != 1 || c.Divergence.Call != call {
		t.Fatalf("exit %d, divergence %+v, want turn 1 call %d", code, c.Divergence, call)
	}
	d := c.Divergence
	if !strings.HasSuffix(d.A.What, wantA) || !strings.HasSuffix(d.B.What, wantB) {
		t.Errorf("A %q, B %q", d.A.What, d.B.What)
	}
	for i, p := range []*place{d.A, d.B} {
		if rec := lineOf(t, p.File, p.Line); !strings.Contains(rec, tool) || !strings.Contains(rec, []string{wantA, wantB}[i]) {
			t.Errorf("%s:%d is not the call's record: %.200s", p.File, p.Line, rec)
		}
	}
	if c, code := compareJSON(t, a, a); code != 0 || c.Divergence != nil {
		t.Errorf("a session against itself: exit %d, %+v", code, c.Divergence)
	}
}

// TestCompareFindsTheChangedGeminiAnswer: the same for two runs of the
// real Gemini CLI (the harness's compare-a and compare-b): the second
// shell command differs, at both session files' record lines, and the
// masked diff shows that answer's lines and nothing else.
func TestCompareFindsTheChangedGeminiAnswer(t *testing.T) {
	a := transcriptOf(t, "gemini-cli/0.61.0/compare-a", "gemini/tmp/*/chats/*.jsonl")
	b := transcriptOf(t, "gemini-cli/0.61.0/compare-b", "gemini/tmp/*/chats/*.jsonl")
	checkShellDivergence(t, a, b, 2, "run_shell_command", "wc -l notes.txt", "wc -w notes.txt")
	out, errOut, code := runCLI(t, "compare", "--masked", a, b)
	if code != 1 {
		t.Fatalf("compare --masked: exit %d, %s", code, errOut)
	}
	if strings.Contains(out, "ts=20") || strings.Contains(out, "/tmp/rlog-producers/") {
		t.Errorf("a time or the session's folder left unmasked:\n%s", out)
	}
	var changed []string
	for _, l := range strings.Split(out, "\n") {
		if (strings.HasPrefix(l, "-") || strings.HasPrefix(l, "+")) && !strings.HasPrefix(l, "---") && !strings.HasPrefix(l, "+++") {
			changed = append(changed, l)
		}
	}
	if len(changed) != 4 || !strings.HasPrefix(changed[0], "-a: Counting the lines.") || !strings.Contains(changed[1], `command="wc -l notes.txt"`) ||
		!strings.HasPrefix(changed[2], "+a: Counting the words.") || !strings.Contains(changed[3], `command="wc -w notes.txt"`) {
		t.Errorf("the masked diff changes:\n%s", strings.Join(changed, "\n"))
	}
}

// TestCompareTableIsStats: compare's figures of each side are the ones
// stats --format json prints of it, for every agent's sessions and an
// rlog log; the differences are B's minus A's.
func TestCompareTableIsStats(t *testing.T) {
	a, b := claudePair(t)
	pairs := [][2]string{
		{a, b},
		{transcriptOf(t, "codex/0.169.0/shell", "codex-home/sessions/*/*/*/*.jsonl"), transcriptOf(t, "codex/0.169.0/patch", "codex-home/sessions/*/*/*/*.jsonl")},
		{transcriptOf(t, "gemini-cli/0.61.0/shell", "gemini/tmp/*/chats/*.jsonl"), transcriptOf(t, "gemini-cli/0.61.0/patch", "gemini/tmp/*/chats/*.jsonl")},
		{filepath.Join("..", "..", "testdata", "companions", "sdk", "222000-fix-locked-login.rlog"), a},
	}
	for _, p := range pairs {
		c, _ := compareJSON(t, p[0], p[1])
		for i, side := range []compareSide{c.A, c.B} {
			want, _ := json.Marshal(statsOfOne(t, p[i]))
			got, _ := json.Marshal(side.Stats)
			if !bytes.Equal(got, want) {
				t.Errorf("%s: compare's figures are not stats':\n%s\n%s", p[i], got, want)
			}
		}
		d := c.Differences
		if d.TokensOut != int64(c.B.Stats.Counters.TokensOut)-int64(c.A.Stats.Counters.TokensOut) || d.ToolCalls != c.B.Stats.ToolCalls-c.A.Stats.ToolCalls {
			t.Errorf("%s vs %s: differences %+v", p[0], p[1], d)
		}
	}
}

// TestCompareMasked: the masked diff of the two runs shows the changed
// answer and nothing of what always differs (ids, times, tokens, the
// folder).
func TestCompareMasked(t *testing.T) {
	a, b := claudePair(t)
	out, errOut, code := runCLI(t, "compare", "--masked", a, b)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var changed []string
	for _, l := range strings.Split(out, "\n") {
		if (strings.HasPrefix(l, "-") || strings.HasPrefix(l, "+")) && !strings.HasPrefix(l, "---") && !strings.HasPrefix(l, "+++") {
			changed = append(changed, l)
		}
	}
	want := []string{
		"-a: Counting the lines. ts=… message_id=… tokens_in=… tokens_out=… tokens_cached=… tokens_cache_create=…",
		`-t!:Bash id=… cmd="wc -l notes.txt" → [running] ts=… message_id=…`,
		"+a: Counting the words. ts=… message_id=… tokens_in=… tokens_out=… tokens_cached=… tokens_cache_create=…",
		`+t!:Bash id=… cmd="wc -w notes.txt" → [running] ts=… message_id=…`,
	}
	if strings.Join(changed, "\n") != strings.Join(want, "\n") {
		t.Errorf("changed lines:\n%s\nwant:\n%s\n(the diff:\n%s)", strings.Join(changed, "\n"), strings.Join(want, "\n"), out)
	}
	if out, _, code := runCLI(t, "compare", "--masked", a, a); code != 0 || out != "" {
		t.Errorf("a session against itself: exit %d, %q", code, out)
	}
}

// TestLineDiff: the changes lineDiff finds turn a into b, and keep a
// longest common subsequence (checked on small random inputs against the
// length a plain recursion finds).
func TestLineDiff(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	lines := func() [][]byte {
		n := r.IntN(9)
		out := make([][]byte, n)
		for i := range out {
			out[i] = []byte{byte('a' + r.IntN(3)), '\n'}
		}
		return out
	}
	var lcs func(a, b [][]byte) int
	lcs = func(a, b [][]byte) int {
		if len(a) == 0 || len(b) == 0 {
			return 0
		}
		if bytes.Equal(a[0], b[0]) {
			return 1 + lcs(a[1:], b[1:])
		}
		return max(lcs(a[1:], b), lcs(a, b[1:]))
	}
	for range 2000 {
		a, b := lines(), lines()
		changes := lineDiff(a, b)
		var got [][]byte
		at, removed := 0, 0
		for _, c := range changes {
			got = append(got, a[at:c.from]...)
			got = append(got, c.new...)
			at = c.from + len(c.old)
			removed += len(c.old)
		}
		got = append(got, a[at:]...)
		if !bytes.Equal(bytes.Join(got, nil), bytes.Join(b, nil)) {
			t.Fatalf("%q → %q: changes give %q", a, b, got)
		}
		if kept := len(a) - removed; kept != lcs(a, b) {
			t.Fatalf("%q → %q: keeps %d lines, a longest common subsequence has %d", a, b, kept, lcs(a, b))
		}
	}
}

// TestComparePeakHeapStaysConstant: comparing a session of N bytes with
// itself, and one of 4N, peaks at the same live heap give or take a
// constant: compare holds one turn of each side at a time, and reads the
// figures as stats does.
func TestComparePeakHeapStaysConstant(t *testing.T) {
	logs := benchdata.StartHeapTest(t, "compares 30 MB of sessions", gen.Options{Seed: 7, Timed: true, Streamed: true})
	var h benchdata.HeapPeak
	defer func() { afterTurn, afterWindow = nil, nil }()
	afterTurn, afterWindow = h.Sample, h.Sample
	var peaks [2]uint64
	for i, p := range logs {
		h.Reset()
		c, err := compareSessions(p, p)
		if err != nil {
			t.Fatal(err)
		}
		if c.A.Turns < 100 {
			t.Fatalf("%d turns: the test needs many", c.A.Turns)
		}
		h.Sample()
		peaks[i] = h.Peak
	}
	benchdata.CheckHeapStaysConstant(t, "compare", peaks)
}

// TestMaskedStreamIsWhole: compare --masked's views, read a window at a
// time, are analysis.Mask of the whole log (what the server's
// rlog/maskedView gives the editor).
func TestMaskedStreamIsWhole(t *testing.T) {
	defer func(w int) { windowBytes = w }(windowBytes)
	windowBytes = 16 << 10
	p := filepath.Join(t.TempDir(), "s.rlog")
	benchdata.WriteSession(t, p, gen.Options{Bytes: 400 << 10, Seed: 3, Timed: true})
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	tree := grammar.Parse(data)
	cwd, _ := tree.Header().Get("cwd")
	want := analysis.Mask(nil, tree, cwd)
	var got bytes.Buffer
	if err := writeMasked(p, &got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("streamed %d bytes, whole %d: they differ", got.Len(), len(want))
	}
}

// TestCompareRefuses: two session files or nothing: a missing file, a
// folder, a file that is no session, one argument: one line, exit 2.
func TestCompareRefuses(t *testing.T) {
	a, _ := claudePair(t)
	dir := t.TempDir()
	notes := writeFile(t, dir, "notes.txt", "hello\n")
	for _, args := range [][]string{
		{a},
		{a, filepath.Join(dir, "missing.jsonl")},
		{a, dir},
		{a, notes},
		{"--masked", a, notes},
		{"--format", "yaml", a, a},
	} {
		out, errOut, code := runCLI(t, append([]string{"compare"}, args...)...)
		if code != 2 || strings.Count(errOut, "\n") != 1 || out != "" {
			t.Errorf("compare %v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}
