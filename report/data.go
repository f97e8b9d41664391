// Package report is the session view: where one log's time, tokens and
// failures went, as data (Data, whose JSON docs/report.md describes field
// by field) and as one self-contained HTML page that draws it (page.go).
// `rlog-ls report` writes the page; the language server answers the
// rlog/sessionReport request with the data or the page, which the VS Code
// extension shows in a webview. The numbers are analysis.Session's, the
// ones `rlog-ls stats`, the code lenses and the inlay hints show.
package report

import (
	"math"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/grammar"
)

// Version is Data.Version: a page refuses data of another version.
const Version = 1

// Limits on what the data lists, so that a log of millions of lines
// still makes a page a browser opens at once. Calls are never capped:
// the page aggregates them when they are too many to draw one by one.
const (
	DefaultMaxFindings = 2000
	maxGaps            = 1000
	maxTokenPoints     = 2000
	maxMainLanes       = 16
	maxSubagentLanes   = 8
	maxCallLanesInSub  = 4
)

// Options say what the data is of and how the page links to lines.
type Options struct {
	// Name is the log's name as shown (its file name).
	Name string
	// Link, when set, makes every line number a link: {line} is replaced
	// by the 1-based line, {path} by Path (URL-escaped), e.g.
	// "vscode://file/{path}:{line}". Path is the log's path; the data
	// holds it only for Link, and names other files (the companion)
	// relative to its folder: a page is made to be shared.
	Link, Path string
	// Generator names what made the data ("rlog-ls v0.2.0").
	Generator string
}

// Data is everything the session view draws. Lines are 1-based, times are
// milliseconds since Start, and null says a value is unknown.
type Data struct {
	Version   int    `json:"version"`
	Generator string `json:"generator,omitempty"`
	File      string `json:"file"`
	Link      string `json:"link,omitempty"`
	Path      string `json:"path,omitempty"`
	ID        string `json:"id"`
	Lines     int    `json:"lines"`
	// Timed says the log has at least two distinct timestamps, so the
	// timeline can be drawn in time; otherwise it is drawn in line order.
	Timed bool       `json:"timed"`
	Start *time.Time `json:"start"`
	End   *time.Time `json:"end"`

	Summary   Summary     `json:"summary"`
	Phases    []Phase     `json:"phases"`
	Tools     []Tool      `json:"tools"`
	Calls     Calls       `json:"calls"`
	Subagents []Subagent  `json:"subagents"`
	Lanes     Lanes       `json:"lanes"`
	Times     Times       `json:"times"`
	Tokens    TokenSeries `json:"tokens"`
	Gaps      []Gap       `json:"gaps"`
	Findings  []Finding   `json:"findings"`
	// FindingsOmitted counts the findings after the first
	// DefaultMaxFindings, which are not listed.
	FindingsOmitted int `json:"findings_omitted"`
}

// Summary is the session's totals.
type Summary struct {
	DurationMS *float64 `json:"duration_ms"`
	Messages   int      `json:"messages"`
	ToolCalls  int      `json:"tool_calls"`
	Errors     int      `json:"errors"`
	Unfinished int      `json:"unfinished"`
	Subagents  int      `json:"subagents"`
	Tokens     Tokens   `json:"tokens"`
	// CostUSD is the session's cost as its @end states it, or null.
	CostUSD    *float64 `json:"cost_usd"`
	Latency    Latency  `json:"latency"`
	APM        APM      `json:"apm"`
	LongestGap *Gap     `json:"longest_gap"`
}

// Tokens are token totals, each message counted once.
type Tokens struct {
	In          uint64 `json:"in"`
	Out         uint64 `json:"out"`
	Cached      uint64 `json:"cached"`
	CacheCreate uint64 `json:"cache_create"`
	Messages    int    `json:"messages"`
}

// Latency summarizes measured latencies (null without any).
type Latency struct {
	Measured int      `json:"measured"`
	MedianMS *float64 `json:"median_ms"`
	P95MS    *float64 `json:"p95_ms"`
	MaxMS    *float64 `json:"max_ms"`
}

// APM is the agent's actions per minute and where its counts came from.
type APM struct {
	Value     *float64 `json:"value"`
	Messages  int      `json:"messages"`
	ToolCalls int      `json:"tool_calls"`
	Minutes   *float64 `json:"minutes"`
	Source    string   `json:"source"`
	Companion string   `json:"companion,omitempty"`
}

// Phase is one @phase section.
type Phase struct {
	Name    string   `json:"name"`
	Line    int      `json:"line"`
	EndLine int      `json:"end_line"`
	StartMS *float64 `json:"start_ms"`
	EndMS   *float64 `json:"end_ms"`
	PhaseCounts
}

// PhaseCounts are a phase's figures as every session document shows them
// (this data's phases, `stats --format json`'s), after its place.
type PhaseCounts struct {
	DurationMS *float64 `json:"duration_ms"`
	ToolCalls  int      `json:"tool_calls"`
	Errors     int      `json:"errors"`
	Tokens     Tokens   `json:"tokens"`
}

// PhaseCountsOf are p's figures.
func PhaseCountsOf(p *analysis.Phase) PhaseCounts {
	pc := PhaseCounts{ToolCalls: p.Calls, Errors: p.Errors, Tokens: Tokens(p.Tokens)}
	if dur, ok := p.Duration(); ok {
		pc.DurationMS = MillisPtr(dur)
	}
	return pc
}

// Tool is one tool's calls.
type Tool struct {
	Name string `json:"name"`
	ToolCounts
}

// ToolCounts are a tool's figures as every session document shows them
// (this data's tools, `stats --format json`'s), after its name.
type ToolCounts struct {
	Calls      int     `json:"calls"`
	Errors     int     `json:"errors"`
	Unfinished int     `json:"unfinished"`
	Latency    Latency `json:"latency"`
}

// ToolCountsOf are ts's figures.
func ToolCountsOf(ts *analysis.ToolStats) ToolCounts {
	return ToolCounts{Calls: ts.Calls, Errors: ts.Errors, Unfinished: ts.Unfinished, Latency: LatencyOf(ts.Latency)}
}

// Calls are the tool calls in the order of their start lines, one array
// per field (a session can have hundreds of thousands).
type Calls struct {
	// Tool indexes Data.Tools.
	Tool []int32 `json:"tool"`
	Line []int32 `json:"line"`
	// End is the result's line, 0 while the call is unfinished.
	End []int32 `json:"end"`
	// Outcome: 0 unfinished, 1 ok, 2 error.
	Outcome []int8 `json:"outcome"`
	// LatencyMS is the measured latency, -1 when the log gives none.
	LatencyMS []float64 `json:"latency_ms"`
	// Stamped: 1 when the start line has a ts=, +2 when the result line
	// has one; the page estimates the rest from the lines around them.
	Stamped []int8 `json:"stamped"`
	// Group is -1 for the main agent's calls, else the Lanes.Subagents
	// row whose subagent made the call; Lane the row within the group.
	Group []int32 `json:"group"`
	Lane  []int32 `json:"lane"`
}

// Lanes say how many rows each group of the timeline needs.
type Lanes struct {
	// Main is the rows of the main agent's calls (overlapping calls go
	// to separate rows).
	Main int `json:"main"`
	// Subagents has one entry per row of subagents (subagents that
	// overlap go to separate rows): the rows of its subagents' calls.
	Subagents []int `json:"subagents"`
}

// Subagent is one x: subagent.
type Subagent struct {
	SubagentSpan
	// Lane is its row among Lanes.Subagents; Calls counts the calls
	// attributed to it (by a tid= equal to the x: line's).
	Lane  int `json:"lane"`
	Calls int `json:"calls"`
}

// SubagentSpan is a subagent as every session document shows it (this
// data's subagents, `stats --format json`'s).
type SubagentSpan struct {
	Type       string   `json:"type"`
	ID         string   `json:"id"`
	Line       int      `json:"line"`
	EndLine    *int     `json:"end_line"`
	Status     string   `json:"status"`
	DurationMS *float64 `json:"duration_ms"`
}

// SubagentSpanOf is sa as the documents show it.
func SubagentSpanOf(sa *analysis.Subagent) SubagentSpan {
	ss := SubagentSpan{Type: sa.Type, ID: sa.IDText, Line: sa.Line + 1, Status: sa.Status}
	if sa.EndLine >= 0 {
		end := sa.EndLine + 1
		ss.EndLine = &end
	}
	if dur, ok := sa.Duration(); ok {
		ss.DurationMS = MillisPtr(dur)
	}
	return ss
}

// Times are the timestamped lines the page places everything by: each
// line's time is interpolated between the anchors around it. Times that
// go back (side chains of converted sessions) are held at the latest time
// before them, and runs of one time keep only their ends.
type Times struct {
	Line []int32   `json:"line"`
	MS   []float64 `json:"ms"`
}

// TokenSeries is the cumulative token usage after each usage line that
// changed it (a message's first, or a later one raising its counts): after
// each, or when they are more than maxTokenPoints, after every 2nd, 4th,
// 8th... (the smallest such step that keeps at most maxTokenPoints), and
// after the last.
type TokenSeries struct {
	Line   []int    `json:"line"`
	In     []uint64 `json:"in"`
	Out    []uint64 `json:"out"`
	Cached []uint64 `json:"cached"`
}

// Gap is a pause before a line.
type Gap struct {
	Line         int     `json:"line"`
	PreviousLine int     `json:"previous_line"`
	MS           float64 `json:"ms"`
}

// Finding is a diagnostic, as `rlog-ls check` reports it.
type Finding struct {
	Line     int    `json:"line"`
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}

// Build makes the session view's data from a parsed log, its session
// statistics, and its first findings (omitted more were not listed),
// which it lists in line order. Stream makes the same data from a log read
// a window at a time.
func Build(t *grammar.Tree, s *analysis.Session, findings []analysis.Finding, omitted int, opts Options) *Data {
	id, _ := t.Header().Get("id")
	d, toolIndex := newData(id, t.LineCount(), s, opts)
	// The timestamps and the token usage are passes over the whole log:
	// beside the calls' layout, on another core.
	var wg sync.WaitGroup
	var times timeAnchors
	var tokens tokenPoints
	wg.Go(func() {
		for _, lt := range analysis.LineTimes(t) {
			times.add(lt.Line, lt.Time)
		}
	})
	wg.Go(func() { tokens.read(t, &analysis.UsageCounter{}) })
	rows := d.subagents(s, t.LineCount(), func(i int) string { return lineValue(t, s.Subagents[i].Line, "tid") })
	d.Calls = newCalls(len(s.Calls))
	for i := range s.Calls {
		d.Calls.set(i, &s.Calls[i], toolIndex[s.Calls[i].Tool])
	}
	d.layout(t.LineCount(), rows, func(i int) string { return lineValue(t, s.Calls[i].Line, "tid") })
	wg.Wait()
	d.finish(s, &times, &tokens, findings, omitted)
	return d
}

// newData is the data of a session s whose log, with header id id, has
// lines lines: all but the calls, the subagents, the times, the tokens,
// the pauses and the findings. toolIndex gives each tool's index in Tools.
func newData(id string, lines int, s *analysis.Session, opts Options) (d *Data, toolIndex map[string]int) {
	d = &Data{Version: Version, Generator: opts.Generator, File: opts.Name, Link: opts.Link, ID: id,
		Lines: lines, Phases: []Phase{}, Tools: []Tool{}, Subagents: []Subagent{}, Gaps: []Gap{}, Findings: []Finding{}}
	if opts.Link != "" {
		d.Path = opts.Path
	}
	if s.StartLine >= 0 {
		d.Start, d.End = TimePtr(s.Start), TimePtr(s.End)
	}
	_, d.Timed = s.Duration()
	rel := func(at time.Time) *float64 {
		if at.IsZero() || s.StartLine < 0 {
			return nil
		}
		return MillisPtr(at.Sub(s.Start))
	}
	d.summary(s)
	d.Summary.APM.Companion = besideLog(d.Summary.APM.Companion, opts.Path)
	for i := range s.Phases {
		p := &s.Phases[i]
		d.Phases = append(d.Phases, Phase{Name: p.Name, Line: p.Line + 1, EndLine: p.EndLine + 1, StartMS: rel(p.StartTime), EndMS: rel(p.EndTime),
			PhaseCounts: PhaseCountsOf(p)})
	}
	toolIndex = map[string]int{}
	for i := range s.Tools {
		ts := &s.Tools[i]
		toolIndex[ts.Tool] = i
		d.Tools = append(d.Tools, Tool{Name: ts.Tool, ToolCounts: ToolCountsOf(ts)})
	}
	return d, toolIndex
}

// finish adds the times, the tokens, the longest pauses and the findings.
func (d *Data) finish(s *analysis.Session, times *timeAnchors, tokens *tokenPoints, findings []analysis.Finding, omitted int) {
	d.Times = Times{Line: []int32{}, MS: []float64{}}
	if d.Timed {
		d.Times = times.times(s.Start)
	}
	d.Tokens = tokens.series()
	gaps := slices.Clone(s.Gaps)
	if len(gaps) > maxGaps {
		slices.SortStableFunc(gaps, func(a, b analysis.Gap) int { return int(b.Duration - a.Duration) })
		gaps = gaps[:maxGaps]
		slices.SortFunc(gaps, func(a, b analysis.Gap) int { return a.Line - b.Line })
	}
	for _, g := range gaps {
		d.Gaps = append(d.Gaps, gapOf(g))
	}
	for _, f := range findings {
		d.Findings = append(d.Findings, Finding{Line: f.Line + 1, Severity: f.Severity.String(), Code: string(f.Code), Message: f.Message})
	}
	// In line order, as the page lists them (the analyzer reports the
	// session-level I001 and I002, on the header, after the body's).
	slices.SortStableFunc(d.Findings, func(a, b Finding) int { return a.Line - b.Line })
	d.FindingsOmitted = omitted
}

func (d *Data) summary(s *analysis.Session) {
	sum := &d.Summary
	if dur, ok := s.Duration(); ok {
		sum.DurationMS = MillisPtr(dur)
	}
	sum.Messages, sum.ToolCalls, sum.Errors, sum.Unfinished = s.Messages, s.CallCount(), s.Errors, s.Unfinished
	sum.Subagents = len(s.Subagents)
	sum.Tokens = Tokens(s.Tokens())
	sum.CostUSD = s.CostUSD
	sum.Latency = LatencyOf(s.Latency)
	sum.APM = APMOf(s.APM)
	if g := s.LongestGap; g.Duration > 0 {
		lg := gapOf(g)
		sum.LongestGap = &lg
	}
}

// newCalls makes the columns of n calls.
func newCalls(n int) Calls {
	return Calls{Tool: make([]int32, n), Line: make([]int32, n), End: make([]int32, n), Outcome: make([]int8, n),
		LatencyMS: make([]float64, n), Stamped: make([]int8, n), Group: make([]int32, n), Lane: make([]int32, n)}
}

// set fills call i's columns but its group and lane from call, of the
// tool Tools[tool].
func (c *Calls) set(i int, call *analysis.Call, tool int) {
	c.Tool[i] = int32(tool)
	c.Line[i] = int32(call.Line + 1)
	if call.ResultLine >= 0 {
		c.End[i] = int32(call.ResultLine + 1)
	}
	c.Outcome[i] = outcomeCode(call.Outcome)
	c.LatencyMS[i] = -1
	if call.HasLatency {
		c.LatencyMS[i] = Millis(call.Latency)
	}
	if !call.StartTime.IsZero() {
		c.Stamped[i] |= 1
	}
	if call.ResultLine >= 0 && !call.EndTime.IsZero() {
		c.Stamped[i] |= 2
	}
}

// subagentRows are the subagents' rows and the subagents by their tid=
// values, which attribute calls to them.
type subagentRows struct {
	rows  packer
	byTID map[string]int
}

// subagents lists the subagents of s in rows by their spans (an unfinished
// one lasts to the end of the log, lastLine); tid gives the tid= of
// subagent i's first line.
func (d *Data) subagents(s *analysis.Session, lastLine int, tid func(i int) string) subagentRows {
	sr := subagentRows{byTID: map[string]int{}}
	for i := range s.Subagents {
		sa := &s.Subagents[i]
		end := sa.EndLine
		if end < 0 {
			end = lastLine
		}
		sd := Subagent{SubagentSpan: SubagentSpanOf(sa), Lane: sr.rows.place(sa.Line, end, maxSubagentLanes)}
		if tid := tid(i); tid != "" {
			sr.byTID[tid] = i
		}
		d.Subagents = append(d.Subagents, sd)
	}
	return sr
}

// layout gives the calls their rows: the main agent's, and each
// subagent's (the calls whose tid= is the one on the subagent's x: line,
// tid(i) for call i) in the rows of its subagent. An unfinished call
// lasts to the end of the log, lastLine.
func (d *Data) layout(lastLine int, sr subagentRows, tid func(i int) string) {
	c := &d.Calls
	var main packer
	subCalls := make([]packer, len(sr.rows.ends))
	for i := range c.Line {
		line, end := int(c.Line[i])-1, lastLine
		if c.End[i] > 0 {
			end = int(c.End[i]) - 1
		}
		c.Group[i] = -1
		if len(sr.byTID) > 0 {
			if k, ok := sr.byTID[tid(i)]; ok {
				row := d.Subagents[k].Lane
				c.Group[i] = int32(row)
				c.Lane[i] = int32(subCalls[row].place(line, end, maxCallLanesInSub))
				d.Subagents[k].Calls++
				continue
			}
		}
		c.Lane[i] = int32(main.place(line, end, maxMainLanes))
	}
	d.Lanes = Lanes{Main: max(len(main.ends), 1), Subagents: make([]int, len(sr.rows.ends))}
	for row := range sr.rows.ends {
		d.Lanes.Subagents[row] = len(subCalls[row].ends)
	}
}

// packer puts spans of lines in the first row whose last span ended
// before they start, opening a row when none has room, up to a limit (the
// spans that find no room then share the last row).
type packer struct{ ends []int }

func (p *packer) place(start, end, limit int) int {
	for i, e := range p.ends {
		if e < start {
			p.ends[i] = end
			return i
		}
	}
	if len(p.ends) < limit {
		p.ends = append(p.ends, end)
		return len(p.ends) - 1
	}
	last := len(p.ends) - 1
	p.ends[last] = max(p.ends[last], end)
	return last
}

// lineValue is the value of key= on line n, or "".
func lineValue(t *grammar.Tree, n int, key string) string {
	l := t.Line(n)
	text := t.Slice(l.Start, l.TrimEnd)
	from := l.Content - l.Start
	if l.Name.Valid() {
		from = l.Name.End - l.Start
	}
	v, ok := grammar.ValueOf(text, key, from)
	if !ok {
		return ""
	}
	return string(text[v.Start:v.End])
}

func outcomeCode(o analysis.Outcome) int8 {
	switch o {
	case analysis.Succeeded:
		return 1
	case analysis.Failed:
		return 2
	}
	return 0
}

func gapOf(g analysis.Gap) Gap {
	return Gap{Line: g.Line + 1, PreviousLine: g.PreviousLine + 1, MS: Millis(g.Duration)}
}

// besideLog names file relative to the folder of the log at logPath (its
// base name when logPath is unknown or file is elsewhere): the absolute
// path of the machine a page was made on means nothing where it is read,
// and says more about that machine than the page should.
func besideLog(file, logPath string) string {
	if file == "" {
		return ""
	}
	if logPath != "" {
		if rel, err := filepath.Rel(filepath.Dir(logPath), file); err == nil && filepath.IsLocal(rel) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.Base(file)
}

// LatencyOf is l as the data writes it (and `rlog-ls stats --format json`).
func LatencyOf(l analysis.Latency) Latency {
	out := Latency{Measured: l.Measured}
	if l.Measured > 0 {
		out.MedianMS, out.P95MS, out.MaxMS = MillisPtr(l.Median), MillisPtr(l.P95), MillisPtr(l.Max)
	}
	return out
}

// APMOf is a as the data writes it (and `rlog-ls stats --format json`):
// no value and no minutes when it is unknown.
func APMOf(a analysis.APM) APM {
	out := APM{Messages: a.Messages, ToolCalls: a.ToolCalls, Source: a.Source, Companion: a.Companion}
	if a.Known {
		v, m := a.Value, a.Minutes
		out.Value, out.Minutes = &v, &m
	}
	return out
}

// Millis is d in milliseconds, to the microsecond, as the data (and
// `rlog-ls stats --format json`) writes a duration.
func Millis(d time.Duration) float64 { return math.Round(float64(d)/1e3) / 1e3 }

// MillisPtr is Millis(d), for a field that is null when it is unknown.
func MillisPtr(d time.Duration) *float64 {
	v := Millis(d)
	return &v
}

// TimePtr is t in UTC, or nil for the zero time (unknown): a time as the
// data writes it.
func TimePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}
