package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/internal/tail"
)

// watchDeadline bounds every wait for watch's output. A line is normally
// reported within milliseconds of being written; the deadline guards
// against a hang, and no test asserts on speed.
const watchDeadline = 10 * time.Second

// watchRun is a running `rlog-ls watch`.
type watchRun struct {
	t      *testing.T
	stdout <-chan string
	stderr <-chan string
	cancel context.CancelFunc
	status chan int
	seen   []string
}

// startWatch runs watch with args and waits until it follows its paths.
func startWatch(t *testing.T, args ...string) *watchRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	r := &watchRun{t: t, stdout: lines(outR), stderr: lines(errR), cancel: cancel, status: make(chan int, 1)}
	go func() {
		r.status <- watch(ctx, args, outW, errW)
		outW.Close()
		errW.Close()
	}()
	t.Cleanup(func() { r.stop() })
	r.expectErr("rlog-ls watch: following ")
	return r
}

func lines(r io.Reader) <-chan string {
	ch := make(chan string, 100)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	return ch
}

// expect waits for the next lines of stdout to start with want, in order.
func (r *watchRun) expect(want ...string) []string {
	r.t.Helper()
	var got []string
	for _, w := range want {
		select {
		case line, ok := <-r.stdout:
			if !ok {
				r.t.Fatalf("watch ended; want %q (seen %q)", w, r.seen)
			}
			r.seen = append(r.seen, line)
			if !strings.HasPrefix(line, w) {
				r.t.Fatalf("got %q, want %q (seen %q)", line, w, r.seen)
			}
			got = append(got, line)
		case <-time.After(watchDeadline):
			r.t.Fatalf("nothing within %v; want %q (seen %q)", watchDeadline, w, r.seen)
		}
	}
	return got
}

// expectErr waits for a line of stderr that starts with want.
func (r *watchRun) expectErr(want string) {
	r.t.Helper()
	deadline := time.After(watchDeadline)
	for {
		select {
		case line := <-r.stderr:
			if strings.HasPrefix(line, want) {
				return
			}
		case <-deadline:
			r.t.Fatalf("no %q on stderr within %v", want, watchDeadline)
		}
	}
}

// nothingMore checks that no more output comes for a moment.
func (r *watchRun) nothingMore() {
	r.t.Helper()
	select {
	case line := <-r.stdout:
		r.t.Fatalf("unexpected output %q", line)
	case <-time.After(300 * time.Millisecond):
	}
}

// stop ends watch as Ctrl-C does and returns its exit status.
func (r *watchRun) stop() int {
	r.cancel()
	go func() { // drain, so that watch never blocks on its output
		for range r.stdout {
		}
	}()
	go func() {
		for range r.stderr {
		}
	}()
	select {
	case code := <-r.status:
		r.status <- code
		return code
	case <-time.After(watchDeadline):
		r.t.Fatal("watch did not stop")
		return -1
	}
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

const liveHead = cleanHeader + "@start id=s ts=2025-12-19T20:29:02Z\nu: 😀 go\nt!:Read id=c1 file_path=a.go → [running]\n"

// A line appended to a log is reported as soon as it is written; what was
// there already is reported first; a call started and not yet completed
// is not a finding while the session runs. In both modes.
func TestWatchReportsAppendedLines(t *testing.T) {
	for _, mode := range [][]string{nil, {"--poll", "--poll-interval", "50ms"}} {
		t.Run(strings.Join(append([]string{"mode"}, mode...), " "), func(t *testing.T) {
			p := writeFile(t, t.TempDir(), "s.rlog", liveHead+"not rlog\n")
			r := startWatch(t, append(mode, p)...)
			r.expect(p + ":10:1: warning W003: Unknown line format: not rlog")
			r.nothingMore() // no W007 for c1: its result may still come
			appendFile(t, p, "o: 😀 id=zz → [ok]\n")
			r.expect(p + ":11:9: warning W002: Observation references unknown call id: zz")
			appendFile(t, p, "o: id=c1 → [ok]\nwat")
			r.nothingMore() // "wat" is not finished
			appendFile(t, p, " now\n")
			r.expect(p + ":13:1: warning W003: Unknown line format: wat now")
			if code := r.stop(); code != 0 {
				t.Fatalf("exit status %d with warnings only", code)
			}
		})
	}
}

// @end summarises the session: the calls never completed, and its numbers.
func TestWatchSummarisesAtEnd(t *testing.T) {
	p := writeFile(t, t.TempDir(), "s.rlog", liveHead)
	r := startWatch(t, p)
	appendFile(t, p, "t!:Bash id=c2 cmd=make → [running]\no: id=c2 → [ok]\n@end ts=2025-12-19T20:31:05Z\n")
	r.expect(
		p+":9:12: warning W007: Tool start 'c1' has no completion",
		p+": session s ended (@end): 2m 3s, 6 lines, 1 user message, 2 tool calls (0 failed, 1 unfinished), 0 subagents; 0 errors, 1 warning, 0 info, 0 hints",
	)
	r.nothingMore()
}

// A session that stops growing is summarised after the quiet period, once;
// if it grows again it is read on (from disk, its parse having been
// dropped) and summarised again later.
//
// The log's header was written an hour before watch starts, and its session
// after watch reported the header's line that is not rlog: the session is
// live because it grows while watch follows it. A log written just before
// watch starts counts as live only if watch looks at it within the quiet
// period (TestWatchAgeAtStart), which a loaded machine can take longer than
// 300 ms to do.
func TestWatchSummarisesWhenQuiet(t *testing.T) {
	p := writeFile(t, t.TempDir(), "s.rlog", cleanHeader+"not rlog\n")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	r := startWatch(t, "--quiet", "300ms", p)
	r.expect(p + ":7:1: warning W003: Unknown line format: not rlog")
	appendFile(t, p, strings.TrimPrefix(liveHead, cleanHeader))
	r.expect(
		p+":10:12: warning W007: Tool start 'c1' has no completion",
		p+":1:1: info I002: Session has @start but no @end",
		p+": session s quiet for 300ms: 4 lines, 1 user message, 1 tool call (0 failed, 1 unfinished), 0 subagents; 0 errors, 2 warnings, 1 info, 0 hints",
	)
	r.nothingMore()
}

// A truncated log is read again from its start; a log replaced by a new
// file at its name (rotation) is summarised and the new one read.
func TestWatchTruncationAndRotation(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "s.rlog", liveHead+"o: id=zz → [ok]\n")
	r := startWatch(t, p)
	r.expect(p + ":10:7: warning W002")
	if err := os.WriteFile(p, []byte(cleanHeader+"o: id=yy → [ok]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.expectErr("rlog-ls watch: " + p + " was truncated or rewritten; reading it from its start")
	// What the old content left standing, its summary, then the new content.
	r.expect(p+":9:12: warning W007", p+":1:1: info I002", p+": session s file truncated: 4 lines",
		p+":7:7: warning W002: Observation references unknown call id: yy")
	if err := os.Rename(p, p+".1"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "s.rlog", cleanHeader+"u: new\nbad line\n")
	r.expect(p+": session s file rotated: 1 line, ", p+":8:1: warning W003: Unknown line format: bad line")
	r.expectErr("rlog-ls watch: " + p + " was replaced by a new file (rotated)")
}

// A new log in a watched folder, and one in a new folder under it, are
// followed from their start.
func TestWatchFolder(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "old.rlog", cleanHeader+"u: nothing wrong\n")
	r := startWatch(t, dir)
	r.nothingMore()
	p := writeFile(t, dir, "new.rlog", cleanHeader+"bad\n")
	r.expect(p + ":7:1: warning W003: Unknown line format: bad")
	sub := filepath.Join(dir, "2026-11")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // a writer creates the folder, then the log
	q := writeFile(t, sub, "deep.rlog", cleanHeader+"worse\n")
	r.expect(q + ":7:1: warning W003: Unknown line format: worse")
	writeFile(t, dir, "notes.txt", "bad\n") // not a log
	r.nothingMore()
}

// An old log (not written for longer than the quiet period) is reported
// once, completely, as check would, and not summarised; --new reports only
// what is written after watch started.
func TestWatchOldLogsAndNew(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "old.rlog", liveHead)
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	r := startWatch(t, "--quiet", "300ms", p)
	r.expect(p+":9:12: warning W007: Tool start 'c1' has no completion", p+":1:1: info I002: Session has @start but no @end")
	r.nothingMore()
	r.stop()

	r = startWatch(t, "--new", "--quiet", "300ms", p)
	r.nothingMore()
	appendFile(t, p, "bad\n")
	// The summary says what stands of the session; c1's W007 is in the
	// backlog, which --new leaves out.
	r.expect(p+":10:1: warning W003", p+":1:1: info I002", p+": session s quiet for 300ms")
}

// JSON output: one object per line, findings exactly as check writes them,
// other objects with an "event".
func TestWatchJSON(t *testing.T) {
	p := writeFile(t, t.TempDir(), "s.rlog", liveHead)
	r := startWatch(t, "--format", "json", p)
	appendFile(t, p, "o: é id=zz → [ok]\n@end\n")
	got := r.expect(`{"file":`, `{"file":`, `{"file":`)
	var f jsonFinding
	if err := json.Unmarshal([]byte(got[0]), &f); err != nil || f != (jsonFinding{File: p, Line: 10, Column: 9, EndLine: 10, EndColumn: 11,
		Severity: "warning", Code: "W002", Message: "Observation references unknown call id: zz"}) {
		t.Fatalf("finding %s: %v", got[0], err)
	}
	if !strings.Contains(got[1], `"code":"W007"`) {
		t.Fatalf("deferred finding: %s", got[1])
	}
	var sum struct {
		File, Event, Reason, Session string
		Stats                        map[string]any
		Findings                     map[string]int
	}
	if err := json.Unmarshal([]byte(got[2]), &sum); err != nil || sum.Event != "session" || sum.Reason != "end" || sum.Session != "s" ||
		sum.Stats["tool_calls"] != 1.0 || sum.Stats["unfinished"] != 1.0 || sum.Findings["warning"] != 2 {
		t.Fatalf("summary %s: %v", got[2], err)
	}
}

func TestWatchExitStatus(t *testing.T) {
	p := writeFile(t, t.TempDir(), "s.rlog", liveHead)
	r := startWatch(t, p)
	appendFile(t, p, "o: id=c1 → [ok]\n")
	r.nothingMore()
	if code := r.stop(); code != 0 {
		t.Fatalf("no finding: exit %d", code)
	}
	q := writeFile(t, t.TempDir(), "bad.rlog", "u: no header\n")
	r = startWatch(t, "--min-severity", "warning", q)
	r.expect(q + ":1:1: error E001")
	if code := r.stop(); code != 1 {
		t.Fatalf("an error: exit %d", code)
	}
	for _, args := range [][]string{{}, {"--format", "xml", q}, {"--quiet", "0s", q}, {"--disable", "X999", q}, {"/no/such/folder/x.rlog"}} {
		if _, _, code := runCLI(t, append([]string{"watch"}, args...)...); code != 2 {
			t.Errorf("watch %q: exit %d, want 2", args, code)
		}
	}
}

// GitHub output: check's workflow commands, and the summary as a notice.
func TestWatchGitHub(t *testing.T) {
	p := writeFile(t, t.TempDir(), "s.rlog", liveHead)
	r := startWatch(t, "--format", "github", p)
	appendFile(t, p, "o: id=c1 → [ok]\nwat\n@end\n")
	r.expect("::warning file="+githubProperty(p)+",line=11,col=1,endLine=11,endColumn=4,title=W003::Unknown line format: wat",
		"::notice file="+githubProperty(p)+",title=rlog session s::session s ended (@end): 6 lines, 1 user message, 1 tool call, 0 subagents; 0 errors, 1 warning, 0 info, 0 hints")
}

// A binary .rlog (an archive someone named so) and an empty old one are
// reported as check reports them, with its exit status: watch used to
// print nothing and exit 0, or the binary's bytes as unknown lines.
func TestWatchBinaryAndEmptyAsCheck(t *testing.T) {
	dir := t.TempDir()
	// Text up to a line break, then bytes that are no text: with the
	// line break, watch used to take the first line as rlog.
	binary := "\x1f\x8b\x08\x00\n" + strings.Repeat("\x00\x13\xff\x02\x81", 400)
	old := time.Now().Add(-time.Hour)
	for _, c := range []struct {
		name, content string
		age           bool
	}{
		{"archive.rlog", binary, true},
		{"fresh.rlog", binary, false},
		{"empty.rlog", "", true},
	} {
		p := writeFile(t, dir, c.name, c.content)
		if c.age {
			os.Chtimes(p, old, old)
		}
		checkOut, _, checkCode := runCLI(t, "check", p)
		want := strings.SplitAfter(checkOut, "\n")
		want = want[:len(want)-2] // the findings, without the summary
		if !strings.Contains(checkOut, map[bool]string{true: "E007", false: "E001"}[c.content != ""]) || checkCode != 1 {
			t.Fatalf("check %s: %d %s", c.name, checkCode, checkOut)
		}
		r := startWatch(t, "--quiet", "300ms", p)
		for _, w := range want {
			r.expect(strings.TrimSuffix(w, "\n"))
		}
		r.nothingMore()
		if code := r.stop(); code != checkCode {
			t.Errorf("watch %s: exit %d, check's %d", c.name, code, checkCode)
		}
	}
	// A log that is empty when watch starts and then written in binary.
	p := writeFile(t, dir, "later.rlog", "")
	r := startWatch(t, p)
	r.nothingMore() // empty and new: a log about to be written
	appendFile(t, p, binary)
	r.expect(p + ":1:1: error E007: Binary file")
	appendFile(t, p, "\nmore\x00\n")
	r.nothingMore()
	if code := r.stop(); code != 1 {
		t.Errorf("exit %d", code)
	}
}

// TestWatchFollowsATranscript: watch follows a session of another format
// (a recorded Claude Code transcript) as it is written: its rlog view is
// made again as the file grows, and the summary when it goes quiet counts
// what the file holds then. A sub-agent's transcript, which its session
// reads, and JSON of no session are passed over.
//
// The transcript's first records were written an hour before watch
// starts, so that it is reported as check reports it, and the session is
// live from the first record written after watch read them. A transcript
// written just before watch starts counts as live only if watch looks at
// it within the quiet period: under load that took longer than 300 ms, the
// first summary never came, and the test failed (TestWatchAgeAtStart holds
// that rule with its times given).
func TestWatchFollowsATranscript(t *testing.T) {
	src, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "agents", "claude-code", "2.1.328", "tools", "claude", "projects", "*", "*.jsonl"))
	if len(src) != 1 {
		t.Fatalf("the recorded tools scenario: %v", src)
	}
	whole, err := os.ReadFile(src[0])
	if err != nil {
		t.Fatal(err)
	}
	records := strings.SplitAfter(string(whole), "\n")
	dir := t.TempDir()
	p := writeFile(t, dir, filepath.Base(src[0]), strings.Join(records[:2], ""))
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	checkOut, _, _ := runCLI(t, "check", p)
	atStart := strings.SplitAfter(checkOut, "\n")
	atStart = atStart[:len(atStart)-2] // the findings, without the summary
	if len(atStart) == 0 {
		t.Fatalf("check finds nothing in the transcript's first records, which the test waits for: %s", checkOut)
	}
	writeFile(t, filepath.Join(dir, strings.TrimSuffix(filepath.Base(src[0]), ".jsonl"), "subagents"), "agent-a1.jsonl", records[2])
	writeFile(t, dir, "settings.json", `{"theme":"dark"}`+"\n")
	r := startWatch(t, "--quiet", "300ms", dir)
	for _, w := range atStart {
		r.expect(strings.TrimSuffix(w, "\n"))
	}
	appendFile(t, p, strings.Join(records[2:len(records)/3], ""))
	summary := p + ": session da6a7691-8018-4b44-a8bc-de3b2268c45d quiet for 300ms: "
	first := r.expectUntil(summary)
	if strings.Contains(first, "3 tool calls") {
		t.Fatalf("the first third of the transcript already has every call: %s", first)
	}
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(strings.Join(records[len(records)/3:], "")); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got := r.expectUntil(summary)
	if !strings.Contains(got, "3 tool calls (1 failed, 0 unfinished)") {
		t.Errorf("the summary of the whole transcript: %s", got)
	}
	r.nothingMore()
}

// TestWatchAgeAtStart: a file that is there when watch starts is a live
// session (summarised when it goes quiet) when it was written within the
// quiet period before watch looked at it, and an old one is only checked;
// a file that appears later is live however old its time. The times are
// given here: end to end, how long watch takes to look at a file is the
// machine's load, and the tests that run watch write to a file after it
// started for it to be live.
func TestWatchAgeAtStart(t *testing.T) {
	const quiet = 300 * time.Millisecond
	now := time.Now()
	for _, c := range []struct {
		age     time.Duration
		atStart bool
		live    bool
	}{
		{0, true, true},
		{quiet - time.Millisecond, true, true},
		{quiet, true, false},
		{time.Hour, true, false},
		{time.Hour, false, true},
	} {
		w := &watcher{out: io.Discard, errOut: io.Discard, quiet: quiet, sessions: map[string]*session{}}
		p := filepath.Join(t.TempDir(), "s.jsonl")
		w.handle(tail.Event{Path: p, Kind: tail.Opened, AtStart: c.atStart, ModTime: now.Add(-c.age)}, now)
		if s := w.sessions[p]; s == nil || s.live != c.live {
			t.Errorf("a file written %v before watch looked at it (there at the start: %v): %+v, want live %v", c.age, c.atStart, s, c.live)
		}
	}
}

// TestWatchNewLeavesTheBacklogOut: with --new, an old session nobody
// writes to gets nothing reported, also when watch drops its parse a second
// later: it used to report the session's I002 (no @end) then, a finding of
// lines written before watch started (TestWatchOldLogsAndNew saw it under
// load, before the finding of the line it writes). Once the session grows,
// the new line's findings come, and the summary says what stands of it.
func TestWatchNewLeavesTheBacklogOut(t *testing.T) {
	p := writeFile(t, t.TempDir(), "old.rlog", liveHead)
	var out strings.Builder
	w := &watcher{out: &out, errOut: io.Discard, format: "text", min: analysis.Hint, quiet: 300 * time.Millisecond, newOnly: true, sessions: map[string]*session{}}
	now := time.Now()
	w.handle(tail.Event{Path: p, Kind: tail.Opened, AtStart: true, ModTime: now.Add(-time.Hour), Size: int64(len(liveHead))}, now)
	w.handle(tail.Event{Path: p, Kind: tail.Appended, Data: []byte(liveHead), Backlog: true, CaughtUp: true}, now)
	w.idle(now.Add(2 * time.Second))
	if out.Len() > 0 {
		t.Fatalf("an old session read with --new, not written to:\n%s", out.String())
	}
	now = now.Add(3 * time.Second)
	w.handle(tail.Event{Path: p, Kind: tail.Appended, Data: []byte("bad\n")}, now)
	w.idle(now.Add(time.Second))
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{p + ":10:1: warning W003", p + ":1:1: info I002", p + ": session s quiet for 300ms"}
	if len(got) != len(want) {
		t.Fatalf("once the session grew:\n%s\nwant lines starting %q", out.String(), want)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("line %d: %q, want %q...", i+1, got[i], want[i])
		}
	}
}

// expectUntil reads stdout up to the line that starts with want, which it
// returns; every line before it must be a finding of the same file.
func (r *watchRun) expectUntil(want string) string {
	r.t.Helper()
	file, _, _ := strings.Cut(want, ": ")
	for {
		select {
		case line, ok := <-r.stdout:
			if !ok {
				r.t.Fatalf("watch ended; want %q (seen %q)", want, r.seen)
			}
			r.seen = append(r.seen, line)
			if strings.HasPrefix(line, want) {
				return line
			}
			if !strings.HasPrefix(line, file+":") {
				r.t.Fatalf("got %q, want findings of %s then %q", line, file, want)
			}
		case <-time.After(watchDeadline):
			r.t.Fatalf("nothing within %v; want %q (seen %q)", watchDeadline, want, r.seen)
		}
	}
}
