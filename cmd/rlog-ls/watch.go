package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/tail"
	"github.com/rlog-ls/rlog-ls/sessions"
)

const watchUsage = "rlog-ls watch [--format text|json|github] [--min-severity LEVEL] [--disable CODE,...] [--severity CODE=LEVEL,...] [--quiet DURATION] [--new] [--poll] [--poll-interval DURATION] PATH..."

const watchAbout = `Follow logs while they grow: files (which may not exist yet), and folders,
whose .rlog files are followed, new ones included. Each new finding is printed
once, as soon as the line that causes it is written, in check's formats (text;
json: one object per line; github); the findings that later lines can take
back (W007: a call not completed yet; I001, I002) wait for the session's
summary, which comes at @end or after --quiet without growth. Logs already
there are reported once, as check would (an old empty log included); a binary
file is one finding, E007, as check reports it.

Changes are noticed through file notifications; on network file systems and
when the system's limits are reached, files are polled.

Ctrl-C stops it. Exit status: 1 if an error-severity finding was seen, 0 if
not, 2 for usage problems.`

func watchCmd(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return watch(ctx, args, stdout, stderr)
}

// deferred says whether lines still to come can take a finding back (its
// rule is provisional: a call started now is completed later, W007;
// @start and @end may yet arrive, I001 and I002). Such findings are
// reported when the session is summarised, if they still stand, instead
// of as soon as they appear.
func deferred(f analysis.Finding) bool {
	r, _ := analysis.RuleFor(f.Code)
	return r.Provisional
}

// watch follows logs as they grow and prints each new finding once, in
// check's formats, and a summary of each session when it ends or goes
// quiet. It returns when ctx is done (Ctrl-C), with check's exit status
// for what it reported.
func watch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmd := newCommand("watch", watchUsage, watchAbout)
	fl := cmd.fl
	opts := addFindingFlags(fl, "output `format`: text, json (one object per line) or github")
	quiet := fl.Duration("quiet", 30*time.Second, "summarise a session when it has not grown for this `duration`")
	newOnly := fl.Bool("new", false, "report only the findings of lines written after watch started")
	poll := fl.Bool("poll", false, "poll files instead of using file notifications (chosen by itself on network file systems)")
	interval := fl.Duration("poll-interval", time.Second, "how often to poll, a `duration`")
	paths, status, done := cmd.parse(args, stdout, stderr)
	if done {
		return status
	}
	format, minSeverity, cfg, ok := opts.resolve(cmd, stderr)
	if !ok {
		return 2
	}
	if *quiet <= 0 || *interval <= 0 {
		cmd.fail(stderr, "--quiet and --poll-interval must be positive durations (e.g. 30s)")
		return 2
	}
	if len(paths) == 0 {
		cmd.fail(stderr, "nothing to watch (try: rlog-ls watch session.rlog, or a folder)")
		return 2
	}
	follower, err := tail.Follow(ctx, paths, tail.Options{
		// rlog logs, and the files that may be sessions of other formats
		// (told by their content once they have some: session.from).
		Match: func(name string) bool {
			ext := strings.ToLower(filepath.Ext(name))
			return ext == ".rlog" || ext == ".jsonl" || ext == ".json"
		},
		Poll:     *poll,
		Interval: *interval,
	})
	if err != nil {
		fmt.Fprintf(stderr, "rlog-ls watch: %s\n", describeIOError(err))
		return 2
	}

	w := &watcher{
		out: stdout, errOut: stderr, format: format, cfg: cfg, min: minSeverity,
		quiet: *quiet, newOnly: *newOnly, sessions: map[string]*session{},
	}
	w.cwd, _ = os.Getwd()
	tick := time.NewTicker(min(*quiet/4, time.Second))
	defer tick.Stop()
	started := follower.Started
	for {
		select {
		case <-started:
			// Said once where each file stands is known: a line written
			// after it is new (--new reports it), not one of the lines
			// already there.
			fmt.Fprintf(stderr, "rlog-ls watch: following %s (%s); stop with Ctrl-C\n", strings.Join(paths, " "), follower.Mode)
			started = nil
		case ev, ok := <-follower.Events:
			if !ok { // ctx is done
				return w.status
			}
			w.handle(ev, time.Now())
		case now := <-tick.C:
			w.idle(now)
		}
	}
}

// watcher is watch's state: one session per followed file.
type watcher struct {
	out, errOut io.Writer
	format      string // text, json or github
	cfg         analysis.Config
	min         analysis.Severity
	quiet       time.Duration
	newOnly     bool
	cwd         string
	sessions    map[string]*session // by absolute path, for the files followed
	status      int                 // 1 once an error-severity finding was seen
}

// session is what watch knows of one followed file. Findings are reported
// by line: those on lines before reported have been printed. The parse
// and the analysis are kept while the file is live and dropped when it has
// been quiet (or was old to begin with); if it grows again, what was read
// is read again from disk.
type session struct {
	path     string
	tree     *grammar.Tree // nil when dropped
	analyzer *analysis.Analyzer
	size     int // bytes of complete lines read
	reported int // lines whose findings are out
	// deferredFrom is the line count at the last summary: deferred
	// findings on lines before it were reported then.
	deferredFrom               int
	reportedI001, reportedI002 bool // session-level findings already reported
	// silent is set while every line read was read without being
	// reported (the backlog with --new): its findings are not reported
	// when its parse is dropped either.
	silent bool
	// live is set while the file grows: it gets a summary when it ends or
	// goes quiet.
	live       bool
	lastGrowth time.Time
	lastEvent  time.Time
	// binary is set when the file is not text (E007): it is reported
	// once, as check reports it, and nothing else is read.
	binary bool
	// from is the format of a session written in another format than
	// rlog (a Claude Code transcript ...), whose rlog view is read again
	// whole each time the file grows, as the editor's view follows it;
	// other is set for a .json or .jsonl file that is no session rlog-ls
	// reads on its own, which is passed over.
	from  convert.Format
	other bool
}

func (w *watcher) handle(ev tail.Event, now time.Time) {
	s := w.sessions[ev.Path]
	switch ev.Kind {
	case tail.Opened:
		s = &session{path: ev.Path, lastEvent: now, lastGrowth: ev.ModTime}
		// A file that was being written when watch started is a live
		// session; an old one is only checked.
		s.live = !ev.AtStart || now.Sub(ev.ModTime) < w.quiet
		if !ev.AtStart {
			s.lastGrowth = now
		}
		w.sessions[ev.Path] = s
		switch {
		case ev.Size > 0:
			// Binary or not is told by the file's head, as check tells
			// it, whether or not it holds a line break.
			if head, err := readHead(ev.Path); err == nil {
				w.checkBinary(s, head, ev.AtStart && w.newOnly)
			}
		case !s.live && !(ev.AtStart && w.newOnly) && strings.EqualFold(filepath.Ext(ev.Path), ".rlog"):
			// An old empty file: what check says of it (no header). If
			// it is written later, that is read as a new log.
			t := grammar.Parse(nil)
			for _, f := range analysis.NewAnalyzer(t).Findings(w.cfg) {
				w.emit(toJSONFinding(w.display(s.path), t, f), f.Severity)
			}
		}
	case tail.Appended:
		if s == nil {
			return
		}
		s.lastEvent = now
		if !ev.Backlog {
			s.live, s.lastGrowth = true, now
		}
		w.read(s, ev.Data, ev.Backlog && w.newOnly, ev.CaughtUp)
	case tail.Truncated, tail.Rotated:
		if s == nil {
			return
		}
		w.notice(s, ev.Kind.String(), map[tail.Kind]string{
			tail.Truncated: "was truncated or rewritten; reading it from its start",
			tail.Rotated:   "was replaced by a new file (rotated); reading the new one from its start",
		}[ev.Kind])
		if s.live && s.size > 0 {
			w.summarise(s, ev.Kind.String())
		}
		w.sessions[ev.Path] = &session{path: ev.Path, live: true, lastEvent: now, lastGrowth: now}
	case tail.Removed:
		if s == nil {
			return
		}
		w.notice(s, "removed", "was removed")
		if s.live && s.size > 0 {
			w.summarise(s, "removed")
		}
		delete(w.sessions, ev.Path)
	case tail.Failed:
		fmt.Fprintf(w.errOut, "rlog-ls watch: %s\n", describeIOError(ev.Err))
	}
}

// read adds complete lines to the session and reports what they bring.
// silent reads them without reporting (the backlog with --new); caughtUp
// says the file has been read as far as it was when opened.
func (w *watcher) read(s *session, data []byte, silent, caughtUp bool) {
	if !strings.EqualFold(filepath.Ext(s.path), ".rlog") {
		w.readView(s, data, silent, caughtUp)
		return
	}
	if s.size == 0 && len(data) > 0 {
		// The first lines: the file's head tells whether it is text,
		// with what follows them (tail gives whole lines only).
		head, err := readHead(s.path)
		if err != nil || len(head) < len(data) {
			head = data
		}
		w.checkBinary(s, head, silent)
	}
	if s.binary {
		s.size += len(data)
		return
	}
	if s.tree == nil && s.size > 0 && !w.reload(s) {
		return
	}
	first := 0
	if s.tree == nil {
		s.tree = grammar.Parse(data)
		s.analyzer = analysis.NewAnalyzer(s.tree)
	} else {
		first = s.tree.LineCount() - 1 // the empty line after the last line feed
		s.tree = s.tree.Edit(s.tree.Len(), s.tree.Len(), data)
		s.analyzer.Update(s.tree)
	}
	s.size += len(data)
	w.readLines(s, first, silent, caughtUp)
}

// readView is read for a file of another format: when it is a session
// rlog-ls reads on its own (told once the file has content), its rlog view
// is made again from the whole file, and what its new lines bring is
// reported as for a log. Anything else is passed over.
func (w *watcher) readView(s *session, data []byte, silent, caughtUp bool) {
	s.size += len(data)
	if s.other {
		return
	}
	if s.from == "" {
		from, ok := convert.SessionFile(s.path)
		if !ok {
			s.other = true
			return
		}
		s.from = from
	}
	view, err := io.ReadAll(sessions.View(s.path, s.from))
	if err != nil {
		fmt.Fprintf(w.errOut, "rlog-ls watch: %s: %v\n", w.display(s.path), err)
		return
	}
	first := 0
	if s.tree != nil {
		first = s.tree.LineCount() - 1
	}
	s.tree = grammar.Parse(view)
	s.analyzer = analysis.NewAnalyzer(s.tree)
	w.readLines(s, min(first, s.tree.LineCount()-1), silent, caughtUp)
}

// readLines reports what the session's lines from first on bring, and
// summarises it at its @end.
func (w *watcher) readLines(s *session, first int, silent, caughtUp bool) {
	lines := s.tree.LineCount() - 1
	s.silent = silent
	if silent {
		s.reported, s.deferredFrom = lines, lines
		return
	}
	if !s.live {
		// An old file, complete as it is: once it is read, everything, as
		// check reports it.
		if caughtUp {
			w.settle(s)
		}
		return
	}
	w.report(s, lines, false)
	if s.from != "" {
		return // the view's @end is the writer's, not the agent's: the session ends when it goes quiet
	}
	for l := range s.tree.LinesFrom(first) {
		if l.Kind == grammar.Lifecycle && string(s.tree.Slice(l.Name.Start, l.Name.End)) == "end" {
			w.summarise(s, "end")
			break
		}
	}
}

// checkBinary marks the session binary when head, the start of the
// file, is not text, and reports E007 once (unless silent: the backlog
// with --new).
func (w *watcher) checkBinary(s *session, head []byte, silent bool) {
	if s.binary {
		return
	}
	f, ok := analysis.CheckBinary(head, w.cfg)
	if !ok {
		return
	}
	s.binary, s.live = true, false
	if !silent {
		w.emit(binaryFinding(w.display(s.path), f), f.Severity)
	}
}

// readHead reads the start of the file at path, as much as CheckBinary
// looks at.
func readHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, analysis.BinarySample)
	n, err := io.ReadFull(f, buf)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = nil
	}
	return buf[:n], err
}

// reload reads again what was read of a session whose parse was dropped
// (an rlog log: another format's view is made again whole).
func (w *watcher) reload(s *session) bool {
	f, err := os.Open(s.path)
	if err == nil {
		defer f.Close()
		buf := make([]byte, s.size)
		if _, err = f.ReadAt(buf, 0); err == nil {
			s.tree = grammar.Parse(buf)
			s.analyzer = analysis.NewAnalyzer(s.tree)
			return true
		}
	}
	fmt.Fprintf(w.errOut, "rlog-ls watch: %s\n", describeIOError(err))
	return false
}

// report prints the findings on lines not reported yet, up to lines. While
// the header is being written nothing is reported, unless final: it is not
// finished.
func (w *watcher) report(s *session, lines int, final bool) {
	if h := s.tree.Header(); h.Present && !h.Closed && !final {
		return
	}
	for _, f := range s.analyzer.FindingsFrom(w.cfg, s.reported) {
		if f.Line >= lines || deferred(f) {
			continue
		}
		w.finding(s, f)
	}
	s.reported = lines
}

func (w *watcher) finding(s *session, f analysis.Finding) {
	w.emit(toJSONFinding(w.display(s.path), s.tree, f), f.Severity)
}

// emit prints a finding of severity sev, if it is severe enough, and
// keeps the exit status.
func (w *watcher) emit(jf jsonFinding, sev analysis.Severity) {
	if sev == analysis.Error {
		w.status = 1
	}
	if sev > w.min {
		return
	}
	if w.format == "json" {
		_ = json.NewEncoder(w.out).Encode(jf)
		return
	}
	printFinding(w.out, w.format, jf)
}

// summarise reports the deferred findings that still stand and the
// session's numbers. reason is "end", "quiet", "truncated", "rotated" or
// "removed".
func (w *watcher) summarise(s *session, reason string) {
	if s.tree == nil {
		return
	}
	counts := w.settle(s)
	s.live = false
	row := sessionOf(w.display(s.path), s.tree)
	id := row.json.ID
	if w.format == "json" {
		_ = json.NewEncoder(w.out).Encode(watchSummary{
			File: w.display(s.path), Event: "session", Reason: reason, Session: id, Stats: row.json, Findings: counts,
		})
		return
	}
	text := fmt.Sprintf("session %s %s: %s; %s", orUnnamed(id), reasonText(reason, w.quiet), statsText(&row.json), summary(counts))
	if w.format == "github" {
		fmt.Fprintf(w.out, "::notice file=%s,title=%s::%s\n", githubProperty(w.display(s.path)), githubProperty("rlog session "+orUnnamed(id)), githubData(text))
		return
	}
	fmt.Fprintf(w.out, "%s: %s\n", w.display(s.path), text)
}

// settle reports everything that stands now: the findings not reported
// yet (a header never closed included) and the deferred findings not
// reported at an earlier summary. It returns the count of the session's
// findings by severity.
func (w *watcher) settle(s *session) map[string]int {
	lines := s.tree.LineCount() - 1
	w.report(s, lines, true)
	counts := map[string]int{}
	for _, f := range s.analyzer.Findings(w.cfg) {
		if f.Severity <= w.min {
			counts[f.Severity.String()]++
		}
		switch {
		case !deferred(f):
		case f.Code == analysis.W007 && f.Line >= s.deferredFrom,
			f.Code == analysis.I001 && !s.reportedI001,
			f.Code == analysis.I002 && !s.reportedI002:
			w.finding(s, f)
		}
		s.reportedI001 = s.reportedI001 || f.Code == analysis.I001
		s.reportedI002 = s.reportedI002 || f.Code == analysis.I002
	}
	s.deferredFrom = lines
	return counts
}

// watchSummary is a session summary in JSON output; findings are check's
// objects, and every other object has an "event". Stats is a session of
// `rlog-ls stats --format json` (docs/stats.md).
type watchSummary struct {
	File     string         `json:"file"`
	Event    string         `json:"event"`
	Reason   string         `json:"reason"`
	Session  string         `json:"session"`
	Stats    sessionJSON    `json:"stats"`
	Findings map[string]int `json:"findings"`
}

// notice tells what happened to a file: on stderr as text, as an event
// object in JSON output.
func (w *watcher) notice(s *session, event, text string) {
	if w.format == "json" {
		_ = json.NewEncoder(w.out).Encode(map[string]string{"file": w.display(s.path), "event": event})
		return
	}
	fmt.Fprintf(w.errOut, "rlog-ls watch: %s %s\n", w.display(s.path), text)
}

// idle summarises the live sessions that went quiet and drops the parse of
// those that are not live.
func (w *watcher) idle(now time.Time) {
	for _, p := range slices.Sorted(maps.Keys(w.sessions)) {
		s := w.sessions[p]
		if s.live && s.size > 0 && now.Sub(s.lastGrowth) >= w.quiet && now.Sub(s.lastEvent) >= w.quiet {
			w.summarise(s, "quiet")
		}
		if !s.live && s.tree != nil && now.Sub(s.lastEvent) >= time.Second {
			if !s.silent {
				w.settle(s) // nothing left to report, unless its last line had no line feed
			}
			s.tree, s.analyzer = nil, nil
		}
	}
}

// display is the path as the user would write it: relative to the working
// folder when under it.
func (w *watcher) display(path string) string {
	if w.cwd != "" {
		if rel, err := filepath.Rel(w.cwd, path); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return path
}

func orUnnamed(id string) string {
	if id == "" {
		return "(no id)"
	}
	return id
}

func reasonText(reason string, quiet time.Duration) string {
	switch reason {
	case "end":
		return "ended (@end)"
	case "quiet":
		return fmt.Sprintf("quiet for %s", quiet)
	}
	return "file " + reason
}

// statsText is a session's numbers in one line, as stats counts them.
func statsText(s *sessionJSON) string {
	var parts []string
	if s.DurationMS != nil {
		parts = append(parts, durationText(*s.DurationMS))
	}
	calls := plural(s.ToolCalls, "tool call")
	if s.Errors > 0 || s.Unfinished > 0 {
		calls += fmt.Sprintf(" (%d failed, %d unfinished)", s.Errors, s.Unfinished)
	}
	parts = append(parts, plural(s.Counters.TotalLines, "line"), plural(s.Counters.UserMessages, "user message"), calls,
		plural(s.Counters.Subagents, "subagent"))
	if c := s.Counters; c.Messages > 0 {
		parts = append(parts, fmt.Sprintf("tokens %s in, %s out, %s cached",
			analysis.GroupDigits(c.TokensIn), analysis.GroupDigits(c.TokensOut), analysis.GroupDigits(c.TokensCached)))
	}
	return strings.Join(parts, ", ")
}
