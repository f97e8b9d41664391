package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/companion"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/report"
)

const statsUsage = "rlog-ls stats [--format text|json] PATH..."

const statsAbout = `Session statistics: the rlog/1 reference's counters, the wall-clock duration
and the time of each @phase, token usage (each message counted once), tool
calls per tool with errors and latency (median, p95, max, from ts= or
latency_ms=), subagents, pauses, and APM, the autopilot's actions per minute:
(user and agent messages + tool calls) / minutes.

A session file in another format rlog-ls reads (a Claude Code transcript,
an ATIF trajectory ...) is read as its rlog view, the text rlog-ls convert
--to rlog writes, with the file as its companion. One file gives its
details; several files, or a folder (its .rlog files and the .jsonl and
.json sessions rlog-ls reads, recursively: a Claude Code projects folder,
each session with its sub-agents), give one row per session and the
totals; - (or /dev/stdin) reads standard input. --format json prints one
document, described field by field in docs/stats.md.

Exit status: 0, or 2 when a path cannot be read, a folder holds no .rlog
file or session, or a file is not rlog text (the others are still
reported).`

func statsCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newCommand("stats", statsUsage, statsAbout)
	format := cmd.fl.String("format", "text", "output `format`: text or json")
	paths, status, done := cmd.parse(args, stdout, stderr)
	if done {
		return status
	}
	if !cmd.textOrJSON(*format, stderr) {
		return 2
	}
	if len(paths) == 0 {
		cmd.fail(stderr, "no files given (try: rlog-ls stats session.rlog, or a folder)")
		return 2
	}
	defer streamingGC()()
	files, failed := collect("stats", paths, stderr)
	open, settle, ok := readInputs("stats", files, stdin, stderr)
	if !ok {
		return 2
	}
	rows := eachFile(files, func(path string) sessionRow { return sessionStats(path, open) })
	settle()
	doc := statsDoc{Version: 1, Sessions: []sessionJSON{}}
	var tot totals
	for _, r := range rows {
		if r.err != nil {
			fmt.Fprintf(stderr, "rlog-ls stats: %s\n", r.err)
			failed = true
			continue
		}
		doc.Sessions = append(doc.Sessions, r.json)
		tot.add(&r)
	}
	doc.Totals = tot.json()
	if *format == "json" {
		if !printJSON(stdout, stderr, "stats", doc) {
			return 2
		}
	} else if len(paths) == 1 && len(doc.Sessions) == 1 && !isDir(paths[0]) {
		printSession(stdout, &doc.Sessions[0])
	} else if len(doc.Sessions) > 0 {
		printTable(stdout, &doc)
	}
	if failed {
		return 2
	}
	return 0
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// statsDoc is `stats --format json`; docs/stats.md documents every field.
type statsDoc struct {
	Version  int           `json:"version"`
	Sessions []sessionJSON `json:"sessions"`
	Totals   totalsJSON    `json:"totals"`
}

type sessionJSON struct {
	File       string         `json:"file"`
	ID         string         `json:"id"`
	Counters   analysis.Stats `json:"counters"`
	Start      *time.Time     `json:"start"`
	End        *time.Time     `json:"end"`
	DurationMS *float64       `json:"duration_ms"`
	// CostUSD is the session's cost as its @end states it: null when
	// it states none.
	CostUSD *float64 `json:"cost_usd"`
	activityJSON
	Tools      []toolJSON     `json:"tools"`
	Phases     []phaseJSON    `json:"phases"`
	Subagents  []subagentJSON `json:"subagents"`
	LongestGap *gapJSON       `json:"longest_gap"`
}

type totalsJSON struct {
	Sessions int            `json:"sessions"`
	Counters analysis.Stats `json:"counters"`
	// DurationMS is the sum of the known durations: null when no session
	// has one.
	DurationMS *float64 `json:"duration_ms"`
	// CostUSD is the sum of the costs stated: null when no session
	// states one.
	CostUSD *float64 `json:"cost_usd"`
	activityJSON
	Tools []toolJSON `json:"tools"`
}

// activityJSON are the fields a session and the totals share, in this
// order, after duration_ms.
type activityJSON struct {
	Messages   int         `json:"messages"`
	ToolCalls  int         `json:"tool_calls"`
	Errors     int         `json:"errors"`
	Unfinished int         `json:"unfinished"`
	Latency    latencyJSON `json:"latency"`
	APM        apmJSON     `json:"apm"`
}

// Latencies, APM and tokens are written as the session view's data writes
// them (package report): the two documents agree field by field.
type (
	latencyJSON = report.Latency
	apmJSON     = report.APM
)

var (
	latencyOf = report.LatencyOf
	apmOf     = report.APMOf
	ms        = report.Millis
	msPtr     = report.MillisPtr
	timePtr   = report.TimePtr
)

// A tool, a phase and a subagent show the figures the session view's data
// shows, built there.
type toolJSON struct {
	Tool string `json:"tool"`
	report.ToolCounts
}

type phaseJSON struct {
	Name    string     `json:"name"`
	Line    int        `json:"line"`
	EndLine int        `json:"end_line"`
	Start   *time.Time `json:"start"`
	End     *time.Time `json:"end"`
	report.PhaseCounts
}

type subagentJSON = report.SubagentSpan

type gapJSON struct {
	Line         int     `json:"line"`
	PreviousLine int     `json:"previous_line"`
	DurationMS   float64 `json:"duration_ms"`
}

// sessionRow is one file's statistics, with what the totals need that
// the JSON does not show: each tool's latencies.
type sessionRow struct {
	json      sessionJSON
	latencies map[string][]time.Duration
	err       error
}

// sessionStats reads the log at path (or standard input) once, a window
// at a time, and returns its statistics.
func sessionStats(path string, open func(string) (io.ReadCloser, error)) sessionRow {
	fail := func(err error) sessionRow {
		return sessionRow{err: fmt.Errorf("%s", describeIOError(err))}
	}
	in, closer, err := openLog(path, open)
	if err != nil {
		return fail(err)
	}
	defer closer.Close()
	if f, ok, err := in.binary(analysis.Config{}); err != nil {
		return fail(err)
	} else if ok {
		return sessionRow{err: fmt.Errorf("%s: %s", path, f.Message)}
	}
	var ss *analysis.SessionStream
	var id string
	err = in.windows(func(t *grammar.Tree) {
		if ss == nil {
			// The pauses are not shown: none is listed.
			opts := analysis.SessionOptions{MinGap: -1}
			id, _ = t.Header().Get("id")
			if path != stdinName && !in.alone {
				opts.Companion = companion.SessionOptionsOf(path, id).Companion
			}
			ss = analysis.NewSessionStream(opts)
		}
		ss.Window(t)
	})
	if err != nil {
		return fail(err)
	}
	return sessionRowOf(path, id, ss.End())
}

// sessionOf is the statistics of the session in t, read from path
// (`watch`'s summaries). APM counts from the log's companion when it has
// one: the whole record of the session.
func sessionOf(path string, t *grammar.Tree) sessionRow {
	id, _ := t.Header().Get("id")
	return sessionRowOf(path, id, analysis.BuildSession(t, companion.SessionOptions(path, t)))
}

// sessionRowOf is the row of the session s of the log at path, whose
// header's id is id.
func sessionRowOf(path, id string, s *analysis.Session) sessionRow {
	j := sessionJSON{
		File: path, ID: id, Counters: s.Counters, CostUSD: s.CostUSD,
		activityJSON: activityJSON{Messages: s.Messages, ToolCalls: s.CallCount(), Errors: s.Errors, Unfinished: s.Unfinished,
			Latency: latencyOf(s.Latency), APM: apmOf(s.APM)},
		Tools: []toolJSON{}, Phases: []phaseJSON{}, Subagents: []subagentJSON{},
	}
	if d, ok := s.Duration(); ok {
		j.Start, j.End, j.DurationMS = timePtr(s.Start), timePtr(s.End), msPtr(d)
	} else if s.StartLine >= 0 {
		j.Start, j.End = timePtr(s.Start), timePtr(s.End)
	}
	lat := map[string][]time.Duration{}
	for i := range s.Tools {
		ts := &s.Tools[i]
		j.Tools = append(j.Tools, toolJSON{Tool: ts.Tool, ToolCounts: report.ToolCountsOf(ts)})
		if ds := s.Latencies(ts.Tool); len(ds) > 0 {
			lat[ts.Tool] = ds
		}
	}
	for i := range s.Phases {
		p := &s.Phases[i]
		j.Phases = append(j.Phases, phaseJSON{Name: p.Name, Line: p.Line + 1, EndLine: p.EndLine + 1, Start: timePtr(p.StartTime), End: timePtr(p.EndTime),
			PhaseCounts: report.PhaseCountsOf(p)})
	}
	for i := range s.Subagents {
		j.Subagents = append(j.Subagents, report.SubagentSpanOf(&s.Subagents[i]))
	}
	if g := s.LongestGap; g.Duration > 0 {
		j.LongestGap = &gapJSON{Line: g.Line + 1, PreviousLine: g.PreviousLine + 1, DurationMS: ms(g.Duration)}
	}
	return sessionRow{json: j, latencies: lat}
}

// totals adds up sessions. APM over many sessions is their actions over
// their minutes, counting only the sessions whose duration is known.
type totals struct {
	j          totalsJSON
	apmActions int
	apmMinutes float64
	tools      []analysis.ToolStats
	toolIndex  map[string]int
	latencies  map[string][]time.Duration
	all        []time.Duration
}

func (t *totals) add(r *sessionRow) {
	s := &r.json
	t.j.Sessions++
	t.j.Counters.Add(s.Counters)
	if s.DurationMS != nil {
		t.j.DurationMS = addMillis(t.j.DurationMS, *s.DurationMS)
	}
	if s.CostUSD != nil {
		t.j.CostUSD = addMillis(t.j.CostUSD, *s.CostUSD)
	}
	t.j.Messages += s.Messages
	t.j.ToolCalls += s.ToolCalls
	t.j.Errors += s.Errors
	t.j.Unfinished += s.Unfinished
	t.j.APM.Messages += s.APM.Messages
	t.j.APM.ToolCalls += s.APM.ToolCalls
	if s.APM.Value != nil {
		t.apmActions += s.APM.Messages + s.APM.ToolCalls
		t.apmMinutes += *s.APM.Minutes
	}
	if t.toolIndex == nil {
		t.toolIndex, t.latencies = map[string]int{}, map[string][]time.Duration{}
	}
	for _, tj := range s.Tools {
		k, ok := t.toolIndex[tj.Tool]
		if !ok {
			k = len(t.tools)
			t.toolIndex[tj.Tool] = k
			t.tools = append(t.tools, analysis.ToolStats{Tool: tj.Tool})
		}
		t.tools[k].Calls += tj.Calls
		t.tools[k].Errors += tj.Errors
		t.tools[k].Unfinished += tj.Unfinished
	}
	for tool, ds := range r.latencies {
		t.latencies[tool] = append(t.latencies[tool], ds...)
		t.all = append(t.all, ds...)
	}
}

func (t *totals) json() totalsJSON {
	j := t.j
	j.Latency = latencyOf(analysis.MergeLatencies(t.all))
	j.Tools = []toolJSON{}
	analysis.SortTools(t.tools)
	for i := range t.tools {
		ts := &t.tools[i]
		ts.Latency = analysis.MergeLatencies(t.latencies[ts.Tool])
		j.Tools = append(j.Tools, toolJSON{Tool: ts.Tool, ToolCounts: report.ToolCountsOf(ts)})
	}
	j.APM.Source = analysis.APMFromRlog
	if v, ok := analysis.ComputeAPM(t.apmActions, 0, t.apmMinutes); ok {
		j.APM.Value, j.APM.Minutes = &v, &t.apmMinutes
	}
	return j
}

// maxPhasesShown caps the phase table of the text report; the JSON has
// every phase.
const maxPhasesShown = 50

// printSession is the text report of one session.
func printSession(w io.Writer, s *sessionJSON) {
	fmt.Fprintln(w, s.File)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, a ...any) { fmt.Fprintf(tw, "  %s\t%s\n", k, fmt.Sprintf(format, a...)) }
	if s.ID != "" {
		row("session", "%s", s.ID)
	}
	// When APM counts from the companion, the rows it is computed from
	// say what the companion counts, as the session view's cards do.
	fromCompanion := s.APM.Source == analysis.APMFromCompanion
	var companionSpan string
	if fromCompanion && s.APM.Minutes != nil {
		companionSpan = durationText(*s.APM.Minutes * 60000)
	}
	switch {
	case s.DurationMS != nil:
		row("time", "%s, %s → %s", durationText(*s.DurationMS), s.Start.Format("2006-01-02 15:04:05"), s.End.Format("2006-01-02 15:04:05 MST"))
	case companionSpan != "" && s.Start != nil:
		row("time", "%s in the companion (the log has one timestamp, %s)", companionSpan, s.Start.Format("2006-01-02 15:04:05 MST"))
	case companionSpan != "":
		row("time", "%s in the companion (the log has no ts= values)", companionSpan)
	case s.Start != nil:
		row("time", "unknown (one timestamp, %s)", s.Start.Format("2006-01-02 15:04:05 MST"))
	default:
		row("time", "unknown (no ts= values)")
	}
	c := &s.Counters
	n := func(v int) string { return analysis.GroupDigits(uint64(v)) }
	inCompanion := func(inLog, there int, what string) string {
		if !fromCompanion || inLog == there {
			return ""
		}
		return "; " + plural(there, what) + " in the companion, which APM counts"
	}
	row("messages", "%s user, %s agent, %s thinking%s", n(c.UserMessages), n(c.AgentMessages), n(c.ThinkingBlocks),
		inCompanion(s.Messages, s.APM.Messages, "message"))
	errs := n(s.Errors) + " errors"
	if s.Errors == 1 {
		errs = "1 error"
	}
	calls := fmt.Sprintf("%s: %s, %s unfinished", n(s.ToolCalls), errs, n(s.Unfinished))
	if s.Latency.Measured > 0 {
		calls += fmt.Sprintf("; latency median %s, p95 %s, max %s (%d measured)",
			durationText(*s.Latency.MedianMS), durationText(*s.Latency.P95MS), durationText(*s.Latency.MaxMS), s.Latency.Measured)
	}
	row("tool calls", "%s%s", calls, inCompanion(s.ToolCalls, s.APM.ToolCalls, "tool call"))
	if len(s.Subagents) > 0 {
		row("subagents", "%s", n(len(s.Subagents)))
	}
	messages := n(c.Messages) + " messages"
	if c.Messages == 1 {
		messages = "1 message"
	}
	row("tokens", "%s in, %s out, %s cached, %s cache writes (%s, each counted once)",
		analysis.GroupDigits(c.TokensIn), analysis.GroupDigits(c.TokensOut), analysis.GroupDigits(c.TokensCached),
		analysis.GroupDigits(c.TokensCacheCreate), messages)
	if s.CostUSD != nil {
		row("cost", "%s (as the session states it)", analysis.FormatCost(*s.CostUSD))
	}
	row("APM", "%s", apmText(s.APM))
	if g := s.LongestGap; g != nil {
		row("longest pause", "%s, before line %d", durationText(g.DurationMS), g.Line)
	}
	tw.Flush()
	if len(s.Phases) > 0 {
		fmt.Fprintln(w)
		phases := s.Phases[:min(len(s.Phases), maxPhasesShown)]
		names := []string{"phase"}
		for _, p := range phases {
			names = append(names, p.Name)
		}
		names = leftAligned(names)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "  %s\tlines\ttime\tcalls\terrors\ttokens out\t\n", names[0])
		for i, p := range phases {
			fmt.Fprintf(tw, "  %s\t%d–%d\t%s\t%d\t%d\t%s\t\n", names[i+1], p.Line, p.EndLine, optDuration(p.DurationMS),
				p.ToolCalls, p.Errors, analysis.GroupDigits(p.Tokens.Out))
		}
		tw.Flush()
		if more := len(s.Phases) - len(phases); more > 0 {
			fmt.Fprintf(w, "  … and %d more phases (--format json lists every phase)\n", more)
		}
	}
	if len(s.Tools) > 0 {
		fmt.Fprintln(w)
		printTools(w, s.Tools)
	}
}

func printTools(w io.Writer, tools []toolJSON) {
	names := []string{"tool"}
	for _, t := range tools {
		names = append(names, t.Tool)
	}
	names = leftAligned(names)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "  %s\tcalls\terrors\tunfinished\tmedian\tp95\tmax\t\n", names[0])
	for i, t := range tools {
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%s\t%s\t%s\t\n", names[i+1], t.Calls, t.Errors, t.Unfinished,
			optDuration(t.Latency.MedianMS), optDuration(t.Latency.P95MS), optDuration(t.Latency.MaxMS))
	}
	tw.Flush()
}

// printTable is one row per session and the totals.
func printTable(w io.Writer, doc *statsDoc) {
	t := &doc.Totals
	names := []string{"session"}
	for _, s := range doc.Sessions {
		names = append(names, s.File)
	}
	names = leftAligned(append(names, "total ("+plural(t.Sessions, "session")+")"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\ttime\tmessages\tcalls\terrors\ttokens in\ttokens out\tcached\tAPM\t\n", names[0])
	for i, s := range doc.Sessions {
		c := &s.Counters
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t\n", names[i+1], optDuration(s.DurationMS), s.Messages, s.ToolCalls, s.Errors,
			analysis.GroupDigits(c.TokensIn), analysis.GroupDigits(c.TokensOut), analysis.GroupDigits(c.TokensCached), optAPM(s.APM.Value))
	}
	c := &t.Counters
	fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t\n", names[len(names)-1], optDuration(t.DurationMS),
		t.Messages, t.ToolCalls, t.Errors, analysis.GroupDigits(c.TokensIn), analysis.GroupDigits(c.TokensOut),
		analysis.GroupDigits(c.TokensCached), optAPM(t.APM.Value))
	tw.Flush()
	if len(t.Tools) > 0 {
		fmt.Fprintln(w)
		printTools(w, t.Tools)
	}
}

// leftAligned pads names to one width, so that a right-aligned table
// keeps its first column left-aligned.
func leftAligned(names []string) []string {
	width := 0
	for _, n := range names {
		width = max(width, utf8.RuneCountInString(n))
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n + strings.Repeat(" ", width-utf8.RuneCountInString(n))
	}
	return out
}

func apmText(a apmJSON) string {
	from := "the rlog"
	if a.Source == analysis.APMFromCompanion {
		from = "the companion " + a.Companion
	}
	actions := plural(a.Messages, "message") + " + " + plural(a.ToolCalls, "tool call")
	if a.Value == nil {
		return fmt.Sprintf("unknown: no duration (%s, from %s)", actions, from)
	}
	return fmt.Sprintf("%.2f = (%s) / %.1f min, from %s", *a.Value, actions, *a.Minutes, from)
}

func optAPM(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.2f", *v)
}

// addMillis is sum (nil: none yet) plus v.
func addMillis(sum *float64, v float64) *float64 {
	if sum != nil {
		v += *sum
	}
	return &v
}

func optDuration(msv *float64) string {
	if msv == nil {
		return "—"
	}
	return durationText(*msv)
}

// durationText writes a duration in milliseconds as analysis.FormatDuration
// does: 750ms, 1.5s, 2m 55s, 1h 5m.
func durationText(msv float64) string {
	return analysis.FormatDuration(time.Duration(math.Round(msv * float64(time.Millisecond))))
}
