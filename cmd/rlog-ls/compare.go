package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/sessions"
)

const compareUsage = "rlog-ls compare [--format text|json] [--masked] A B"

const compareAbout = `Two runs side by side: the sessions A and B, in any formats rlog-ls reads
(an .rlog log, a Claude Code transcript, a Codex rollout, a Gemini CLI
session ...), aligned turn by turn (a turn is a user prompt and what
follows it) and, within a turn, tool call by tool call, each by its tool
and its target (the file, command, pattern ... it is about; a path under
the session's folder relative to it). It prints the first point where
they differ, with both sides' places (FILE:LINE: the transcript's record
line, or the log's line), and a table of both sessions' figures (duration,
tokens, cost, messages, tool calls, errors, and per tool), with B's minus
A's: the numbers rlog-ls stats prints.

--masked prints instead the unified diff of the two sessions' rlog views
with what differs between any two runs masked (ids, timestamps, token
counts, latencies, durations, costs, signatures): what is left is
behaviour. VS Code's Compare With... opens the same two views in its diff
editor. --format json prints one document, described in docs/cli.md.

Exit status: 0 when the sessions do the same (the same prompts, the same
calls in each turn, with the same outcomes), 1 when they differ, 2 on an
error, as diff's.`

func compareCmd(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	cmd := newCommand("compare", compareUsage, compareAbout)
	format := cmd.fl.String("format", "text", "output `format`: text or json")
	masked := cmd.fl.Bool("masked", false, "print the unified diff of the two rlog views, with what always differs masked")
	paths, status, done := cmd.parse(args, stdout, stderr)
	if done {
		return status
	}
	if !cmd.textOrJSON(*format, stderr) {
		return 2
	}
	if len(paths) != 2 {
		cmd.fail(stderr, "two sessions to compare, got %d", len(paths))
		return 2
	}
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil {
			fmt.Fprintf(stderr, "rlog-ls compare: %s\n", describeIOError(err))
			return 2
		} else if fi.IsDir() {
			fmt.Fprintf(stderr, "rlog-ls compare: %s is a folder; compare takes two session files\n", p)
			return 2
		}
	}
	if *masked {
		return compareMasked(paths[0], paths[1], stdout, stderr)
	}
	defer streamingGC()()
	c, err := compareSessions(paths[0], paths[1])
	if err != nil {
		fmt.Fprintf(stderr, "rlog-ls compare: %s\n", describeIOError(err))
		return 2
	}
	if *format == "json" {
		if !printJSON(stdout, stderr, "compare", c) {
			return 2
		}
	} else {
		printComparison(stdout, c)
	}
	if c.Divergence != nil {
		return 1
	}
	return 0
}

// comparison is `compare --format json`; docs/cli.md documents it.
type comparison struct {
	Version int         `json:"version"`
	A       compareSide `json:"a"`
	B       compareSide `json:"b"`
	// Divergence is the first point where the sessions differ; null when
	// they do the same.
	Divergence *divergence `json:"divergence"`
	// Differences are B's figures minus A's.
	Differences figureDiff `json:"differences"`
}

type compareSide struct {
	File  string `json:"file"`
	Turns int    `json:"turns"`
	Calls int    `json:"calls"` // the main agent's calls compare aligns
	// Stats are the session's statistics, as stats --format json writes
	// them (its sessions[0]).
	Stats sessionJSON `json:"stats"`
}

// divergence is where two sessions first differ: a turn (from 1; 0 is
// what comes before the first prompt) and, within it, a call (from 1; 0
// for the prompt itself).
type divergence struct {
	Turn int    `json:"turn"`
	Call int    `json:"call"`
	Why  string `json:"why"`
	A    *place `json:"a"` // null when A has nothing there
	B    *place `json:"b"`
}

// place is one side of a divergence: its file and line, and what is there.
type place struct {
	File string `json:"file"`
	Line int    `json:"line"`
	What string `json:"what"`
}

// figureDiff is B minus A of each figure both have (null when one lacks
// it: a duration or a cost not known).
type figureDiff struct {
	DurationMS   *float64   `json:"duration_ms"`
	TokensIn     int64      `json:"tokens_in"`
	TokensOut    int64      `json:"tokens_out"`
	TokensCached int64      `json:"tokens_cached"`
	CacheCreate  int64      `json:"tokens_cache_create"`
	CostUSD      *float64   `json:"cost_usd"`
	Messages     int        `json:"messages"`
	ToolCalls    int        `json:"tool_calls"`
	Errors       int        `json:"errors"`
	Tools        []toolDiff `json:"tools"`
}

type toolDiff struct {
	Tool   string `json:"tool"`
	Calls  int    `json:"calls"`
	Errors int    `json:"errors"`
}

// turnSummary is what compare keeps of a turn: its prompt and its calls,
// in order.
type turnSummary struct {
	prompt *step // nil for what comes before the first prompt
	calls  []step
}

// step is a prompt or a call, as compare aligns it.
type step struct {
	what   string // the prompt's text, or "TOOL TARGET"
	failed bool
	file   string
	line   int
	id     string // a call's id, to find its outcome
}

func (s *step) place() *place {
	if s == nil {
		return nil
	}
	what := s.what
	if s.failed {
		what += " → error"
	}
	return &place{File: s.file, Line: s.line, What: validText(what)}
}

// turnReader reads a session into turns, sending each one when the next
// starts: it holds one turn at a time.
type turnReader struct {
	path  string
	turns chan turnSummary
	cur   turnSummary
	n     int // turns sent
	calls int
}

// BorrowsEvents implements model.Borrower: a turn keeps strings.
func (*turnReader) BorrowsEvents() bool { return true }

func (r *turnReader) Event(h *model.Header, e *model.Event) error {
	if e.AgentID != "" || e.Sidechain {
		return nil // a sub-agent's: its start is the main agent's call
	}
	switch e.Kind {
	case model.KindUser:
		if e.Meta {
			return nil
		}
		r.send()
		r.cur = turnSummary{prompt: &step{what: strings.TrimSpace(e.Text), file: eventFile(r.path, e), line: max(e.Loc.Line, 1)}}
	case model.KindToolCall:
		if e.Call == nil {
			return nil
		}
		r.calls++
		r.cur.calls = append(r.cur.calls, step{what: strings.TrimSpace(e.Call.Name + " " + callTarget(e.Call, h.Cwd)),
			file: eventFile(r.path, e), line: max(e.Loc.Line, 1), id: e.Call.ID})
	case model.KindToolResult:
		if e.Result == nil || !e.Result.IsError {
			return nil
		}
		for i := len(r.cur.calls) - 1; i >= 0; i-- {
			if r.cur.calls[i].id == e.Result.CallID {
				r.cur.calls[i].failed = true
				break
			}
		}
	}
	return nil
}

func (r *turnReader) send() {
	if r.cur.prompt != nil || len(r.cur.calls) > 0 || r.n == 0 {
		r.turns <- r.cur
		r.n++
	}
	r.cur = turnSummary{}
}

func (r *turnReader) End(*model.Header) error {
	r.send()
	return nil
}

// callTarget is what a call is about: the first of analysis.TargetKeys
// its input has (the files of a patch given as text), a path under cwd
// relative to it, so that two runs in two folders align.
func callTarget(c *model.ToolCall, cwd string) string {
	var target string
	if args := c.Args(); args != nil {
		for _, k := range analysis.TargetKeys {
			if v, ok := args.Get(k); ok {
				if s, ok := model.ScalarText(v); ok {
					target = s
				} else {
					target = string(v)
				}
				break
			}
		}
	} else if text, ok := model.ScalarText(c.Input); ok {
		// A patch given as text (Codex's apply_patch): the files it
		// changes, else its first line.
		if files := sessions.PatchTargets(text); len(files) > 0 {
			target = strings.Join(files, " ")
		} else {
			target, _, _ = strings.Cut(text, "\n")
		}
	}
	if cwd != "" && cwd != "/" {
		target = strings.ReplaceAll(target, strings.TrimRight(cwd, "/")+"/", "")
	}
	return firstRunes(strings.Join(strings.Fields(target), " "), 200)
}

// readTurns reads the session at path on a goroutine, sending its turns
// in order; the error channel gets the reading's end.
func readTurns(path string) (<-chan turnSummary, *turnReader, <-chan error) {
	r := &turnReader{path: path, turns: make(chan turnSummary, 1)}
	done := make(chan error, 1)
	go func() {
		err := readEvents(path, r)
		close(r.turns)
		done <- err
	}()
	return r.turns, r, done
}

// afterTurn, when set, is called after each turn of both sessions is
// read (the memory test samples the heap there).
var afterTurn func()

// compareSessions aligns the sessions at a and b turn by turn, holding
// one turn of each at a time, and reads both sessions' statistics as
// stats does.
func compareSessions(a, b string) (*comparison, error) {
	ta, ra, da := readTurns(a)
	tb, rb, db := readTurns(b)
	var div *divergence
	for turn := 0; ; turn++ {
		x, okA := <-ta
		y, okB := <-tb
		if !okA && !okB {
			break
		}
		if afterTurn != nil {
			afterTurn()
		}
		if div != nil {
			continue // read on, for the counts
		}
		div = compareTurn(turn, x, okA, y, okB)
	}
	errA, errB := <-da, <-db
	if errA != nil {
		return nil, errA
	}
	if errB != nil {
		return nil, errB
	}
	c := &comparison{Version: 1, Divergence: div}
	open := func(p string) (io.ReadCloser, error) { return os.Open(p) }
	for _, side := range []struct {
		to   *compareSide
		path string
		r    *turnReader
	}{{&c.A, a, ra}, {&c.B, b, rb}} {
		row := sessionStats(side.path, open)
		if row.err != nil {
			return nil, row.err
		}
		*side.to = compareSide{File: side.path, Turns: max(side.r.n-1, 0), Calls: side.r.calls, Stats: row.json}
	}
	c.Differences = differences(&c.A.Stats, &c.B.Stats)
	return c, nil
}

// compareTurn is the first difference of turn n of each side (ok false:
// the side has no such turn), nil when they do the same.
func compareTurn(n int, x turnSummary, okA bool, y turnSummary, okB bool) *divergence {
	switch {
	case !okA:
		return &divergence{Turn: n, Why: "only B has this turn", B: first(y)}
	case !okB:
		return &divergence{Turn: n, Why: "only A has this turn", A: first(x)}
	}
	if (x.prompt == nil) != (y.prompt == nil) || x.prompt != nil && x.prompt.what != y.prompt.what {
		return &divergence{Turn: n, Why: "the prompts differ", A: x.prompt.place(), B: y.prompt.place()}
	}
	for i := 0; i < max(len(x.calls), len(y.calls)); i++ {
		var sa, sb *step
		if i < len(x.calls) {
			sa = &x.calls[i]
		}
		if i < len(y.calls) {
			sb = &y.calls[i]
		}
		d := &divergence{Turn: n, Call: i + 1, A: sa.place(), B: sb.place()}
		switch {
		case sa == nil:
			d.Why = "only B makes this call"
		case sb == nil:
			d.Why = "only A makes this call"
		case sa.what != sb.what:
			d.Why = "the calls differ"
		case sa.failed != sb.failed:
			d.Why = "the same call, with another outcome"
		default:
			continue
		}
		return d
	}
	return nil
}

// first is the first step of a turn.
func first(t turnSummary) *place {
	if t.prompt != nil {
		return t.prompt.place()
	}
	if len(t.calls) > 0 {
		return t.calls[0].place()
	}
	return nil
}

func differences(a, b *sessionJSON) figureDiff {
	d := figureDiff{
		TokensIn:     int64(b.Counters.TokensIn) - int64(a.Counters.TokensIn),
		TokensOut:    int64(b.Counters.TokensOut) - int64(a.Counters.TokensOut),
		TokensCached: int64(b.Counters.TokensCached) - int64(a.Counters.TokensCached),
		CacheCreate:  int64(b.Counters.TokensCacheCreate) - int64(a.Counters.TokensCacheCreate),
		Messages:     b.Messages - a.Messages, ToolCalls: b.ToolCalls - a.ToolCalls, Errors: b.Errors - a.Errors,
		Tools: []toolDiff{},
	}
	if a.DurationMS != nil && b.DurationMS != nil {
		v := *b.DurationMS - *a.DurationMS
		d.DurationMS = &v
	}
	if a.CostUSD != nil && b.CostUSD != nil {
		v := *b.CostUSD - *a.CostUSD
		d.CostUSD = &v
	}
	for _, name := range toolNames(a, b) {
		ta, tb := toolOf(a, name), toolOf(b, name)
		d.Tools = append(d.Tools, toolDiff{Tool: name, Calls: tb.Calls - ta.Calls, Errors: tb.Errors - ta.Errors})
	}
	return d
}

// toolNames are the tools of a, then those only b uses.
func toolNames(a, b *sessionJSON) []string {
	var names []string
	seen := map[string]bool{}
	for _, s := range []*sessionJSON{a, b} {
		for _, t := range s.Tools {
			if !seen[t.Tool] {
				seen[t.Tool] = true
				names = append(names, t.Tool)
			}
		}
	}
	return names
}

func toolOf(s *sessionJSON, name string) toolJSON {
	for _, t := range s.Tools {
		if t.Tool == name {
			return t
		}
	}
	return toolJSON{Tool: name}
}

func printComparison(w io.Writer, c *comparison) {
	fmt.Fprintf(w, "A  %s\nB  %s\n\n", c.A.File, c.B.File)
	if d := c.Divergence; d != nil {
		where := fmt.Sprintf("turn %d", d.Turn)
		if d.Turn == 0 {
			where = "before the first prompt"
		}
		if d.Call > 0 {
			where += fmt.Sprintf(", call %d", d.Call)
		}
		fmt.Fprintf(w, "first difference: %s: %s\n", where, d.Why)
		for _, s := range []struct {
			name string
			p    *place
		}{{"A", d.A}, {"B", d.B}} {
			if s.p == nil {
				fmt.Fprintf(w, "  %s  (nothing)\n", s.name)
			} else {
				fmt.Fprintf(w, "  %s  %s:%d: %s\n", s.name, s.p.File, s.p.Line, firstRunes(s.p.What, 160))
			}
		}
	} else {
		fmt.Fprintf(w, "the same behaviour: %s, %s in the same order, with the same outcomes\n",
			plural(c.A.Turns, "turn"), plural(c.A.Calls, "call"))
	}
	fmt.Fprintln(w)
	a, b, d := &c.A.Stats, &c.B.Stats, &c.Differences
	names := []string{"", "time", "tokens in", "tokens out", "cached", "cache writes", "cost", "messages", "tool calls", "errors"}
	for _, t := range d.Tools {
		names = append(names, "  "+t.Tool)
	}
	names = leftAligned(names)
	next := 0
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(_, x, y, diff string) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", names[next], x, y, diff)
		next++
	}
	row("", "A", "B", "B − A")
	var durDiff string
	if d.DurationMS != nil {
		durDiff = signed(*d.DurationMS, func(v float64) string { return durationText(v) })
	}
	row("time", optDuration(a.DurationMS), optDuration(b.DurationMS), durDiff)
	n := func(v uint64) string { return analysis.GroupDigits(v) }
	row("tokens in", n(a.Counters.TokensIn), n(b.Counters.TokensIn), signedInt(d.TokensIn))
	row("tokens out", n(a.Counters.TokensOut), n(b.Counters.TokensOut), signedInt(d.TokensOut))
	row("cached", n(a.Counters.TokensCached), n(b.Counters.TokensCached), signedInt(d.TokensCached))
	row("cache writes", n(a.Counters.TokensCacheCreate), n(b.Counters.TokensCacheCreate), signedInt(d.CacheCreate))
	cost := func(v *float64) string {
		if v == nil {
			return "—"
		}
		return analysis.FormatCost(*v)
	}
	var costDiff string
	if d.CostUSD != nil {
		costDiff = signed(*d.CostUSD, analysis.FormatCost)
	}
	row("cost", cost(a.CostUSD), cost(b.CostUSD), costDiff)
	row("messages", fmt.Sprint(a.Messages), fmt.Sprint(b.Messages), signedInt(int64(d.Messages)))
	row("tool calls", fmt.Sprint(a.ToolCalls), fmt.Sprint(b.ToolCalls), signedInt(int64(d.ToolCalls)))
	row("errors", fmt.Sprint(a.Errors), fmt.Sprint(b.Errors), signedInt(int64(d.Errors)))
	for _, t := range d.Tools {
		ta, tb := toolOf(a, t.Tool), toolOf(b, t.Tool)
		row("  "+t.Tool, fmt.Sprintf("%d (%d err)", ta.Calls, ta.Errors), fmt.Sprintf("%d (%d err)", tb.Calls, tb.Errors),
			fmt.Sprintf("%s (%s err)", signedInt(int64(t.Calls)), signedInt(int64(t.Errors))))
	}
	tw.Flush()
}

// signedInt is v with its sign: +3, −2, 0.
func signedInt(v int64) string {
	switch {
	case v > 0:
		return "+" + analysis.GroupDigits(uint64(v))
	case v < 0:
		return "−" + analysis.GroupDigits(uint64(-v))
	}
	return "0"
}

// signed is v with its sign, its magnitude written by text.
func signed(v float64, text func(float64) string) string {
	switch {
	case v > 0:
		return "+" + text(v)
	case v < 0:
		return "−" + text(-v)
	}
	return "0"
}

// sideName is how the masked diff names a side: its file's base name, or
// its path when both have the same name.
func sideName(p, other string) string {
	if filepath.Base(p) == filepath.Base(other) {
		return p
	}
	return filepath.Base(p)
}

// writeMasked writes the rlog view of the session at path (the log
// itself for an .rlog), masked line by line (analysis.MaskLine), read a
// window at a time.
func writeMasked(path string, w io.Writer) error {
	if _, err := sessionOrLog(path); err != nil {
		return err
	}
	in, closer, err := openLog(path, func(p string) (io.ReadCloser, error) { return os.Open(p) })
	if err != nil {
		return err
	}
	defer closer.Close()
	if f, ok, err := in.binary(analysis.Config{}); err != nil {
		return err
	} else if ok {
		return fmt.Errorf("%s: %s", path, f.Message)
	}
	var line []byte
	var werr error
	err = in.windows(func(t *grammar.Tree) {
		cwd, _ := t.Header().Get("cwd")
		line = analysis.Mask(line[:0], t, cwd)
		if _, err := w.Write(line); err != nil && werr == nil {
			werr = err
		}
	})
	if err != nil {
		return err
	}
	return werr
}

// compareMasked prints the unified diff of the masked rlog views of the
// sessions at a and b.
func compareMasked(a, b string, stdout, stderr io.Writer) int {
	var ta, tb bytes.Buffer
	for _, s := range []struct {
		path string
		to   *bytes.Buffer
	}{{a, &ta}, {b, &tb}} {
		if err := writeMasked(s.path, s.to); err != nil {
			fmt.Fprintf(stderr, "rlog-ls compare: %s\n", describeIOError(err))
			return 2
		}
	}
	la, lb := splitLines(ta.Bytes()), splitLines(tb.Bytes())
	changes := lineDiff(la, lb)
	if len(changes) == 0 {
		return 0
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "--- %s (masked)\n+++ %s (masked)\n", sideName(a, b), sideName(b, a))
	writeHunks(&out, la, changes)
	if _, err := stdout.Write(out.Bytes()); err != nil {
		fmt.Fprintf(stderr, "rlog-ls compare: %v\n", err)
		return 2
	}
	return 1
}

// maxDiffCells bounds the table lineDiff fills (lines of one side times
// lines of the other, past their common start and end): beyond it the
// middle is one change.
const maxDiffCells = 16 << 20

// lineDiff is the changes that turn lines a into lines b: a longest common
// subsequence of the lines after their common start and end, the rest
// changed.
func lineDiff(a, b [][]byte) []change {
	pre := 0
	for pre < len(a) && pre < len(b) && bytes.Equal(a[pre], b[pre]) {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && bytes.Equal(a[len(a)-1-suf], b[len(b)-1-suf]) {
		suf++
	}
	x, y := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(x) == 0 && len(y) == 0 {
		return nil
	}
	if len(x)*len(y) > maxDiffCells || len(x) == 0 || len(y) == 0 {
		return []change{{from: pre, old: x, new: y}}
	}
	// lcs[i][j] is the length of a longest common subsequence of x[i:]
	// and y[j:], in one slice.
	w := len(y) + 1
	lcs := make([]int32, (len(x)+1)*w)
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if bytes.Equal(x[i], y[j]) {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	var out []change
	var cur *change
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
			cur = nil
		}
	}
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && bytes.Equal(x[i], y[j]):
			flush()
			i++
			j++
		case j < len(y) && (i == len(x) || lcs[i*w+j+1] >= lcs[(i+1)*w+j]):
			if cur == nil {
				cur = &change{from: pre + i}
			}
			cur.new = append(cur.new, y[j])
			j++
		default:
			if cur == nil {
				cur = &change{from: pre + i}
			}
			cur.old = append(cur.old, x[i])
			i++
		}
	}
	flush()
	return out
}
