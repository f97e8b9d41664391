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
	Name       string   `json:"name"`
	Line       int      `json:"line"`
	EndLine    int      `json:"end_line"`
	StartMS    *float64 `json:"start_ms"`
	EndMS      *float64 `json:"end_ms"`
	DurationMS *float64 `json:"duration_ms"`
	ToolCalls  int      `json:"tool_calls"`
	Errors     int      `json:"errors"`
	Tokens     Tokens   `json:"tokens"`
}

// Tool is one tool's calls.
type Tool struct {
	Name       string  `json:"name"`
	Calls      int     `json:"calls"`
	Errors     int     `json:"errors"`
	Unfinished int     `json:"unfinished"`
	Latency    Latency `json:"latency"`
}

// Calls are the tool calls in the order of their start lines, one array
// per field (a session can have hundreds of thousands).
type Calls struct {
	// Tool indexes Data.Tools.
	Tool []int `json:"tool"`
	Line []int `json:"line"`
	// End is the result's line, 0 while the call is unfinished.
	End []int `json:"end"`
	// Outcome: 0 unfinished, 1 ok, 2 error.
	Outcome []int8 `json:"outcome"`
	// LatencyMS is the measured latency, -1 when the log gives none.
	LatencyMS []float64 `json:"latency_ms"`
	// Stamped: 1 when the start line has a ts=, +2 when the result line
	// has one; the page estimates the rest from the lines around them.
	Stamped []int8 `json:"stamped"`
	// Group is -1 for the main agent's calls, else the Lanes.Subagents
	// row whose subagent made the call; Lane the row within the group.
	Group []int `json:"group"`
	Lane  []int `json:"lane"`
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
	Type       string   `json:"type"`
	ID         string   `json:"id"`
	Line       int      `json:"line"`
	EndLine    *int     `json:"end_line"`
	Status     string   `json:"status"`
	DurationMS *float64 `json:"duration_ms"`
	// Lane is its row among Lanes.Subagents; Calls counts the calls
	// attributed to it (by a tid= equal to the x: line's).
	Lane  int `json:"lane"`
	Calls int `json:"calls"`
}

// Times are the timestamped lines the page places everything by: each
// line's time is interpolated between the anchors around it. Times that
// go back (side chains of converted sessions) are held at the latest time
// before them, and runs of one time keep only their ends.
type Times struct {
	Line []int     `json:"line"`
	MS   []float64 `json:"ms"`
}

// TokenSeries is the cumulative token usage after each usage line that
// changed it: a message's first, or a later one raising its counts (at most maxTokenPoints of them, evenly chosen, the last always kept).
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
// which it lists in line order.
func Build(t *grammar.Tree, s *analysis.Session, findings []analysis.Finding, omitted int, opts Options) *Data {
	id, _ := t.Header().Get("id")
	d := &Data{Version: Version, Generator: opts.Generator, File: opts.Name, Link: opts.Link, ID: id,
		Lines: t.LineCount(), Phases: []Phase{}, Tools: []Tool{}, Subagents: []Subagent{}, Gaps: []Gap{}, Findings: []Finding{}}
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
		dp := Phase{Name: p.Name, Line: p.Line + 1, EndLine: p.EndLine + 1, StartMS: rel(p.StartTime), EndMS: rel(p.EndTime),
			ToolCalls: p.Calls, Errors: p.Errors, Tokens: Tokens(p.Tokens)}
		if dur, ok := p.Duration(); ok {
			dp.DurationMS = MillisPtr(dur)
		}
		d.Phases = append(d.Phases, dp)
	}
	toolIndex := map[string]int{}
	for i, ts := range s.Tools {
		toolIndex[ts.Tool] = i
		d.Tools = append(d.Tools, Tool{Name: ts.Tool, Calls: ts.Calls, Errors: ts.Errors, Unfinished: ts.Unfinished, Latency: LatencyOf(ts.Latency)})
	}
	// The timestamps and the token usage are passes over the whole log:
	// beside the calls' layout, on another core.
	var wg sync.WaitGroup
	wg.Go(func() { d.times(t, s) })
	wg.Go(func() { d.tokens(t) })
	d.calls(t, s, toolIndex)
	wg.Wait()
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
		d.Findings = append(d.Findings, Finding{Line: f.Line + 1, Severity: f.Severity.String(), Code: f.Code, Message: f.Message})
	}
	// In line order, as the page lists them (the analyzer reports the
	// session-level I001 and I002, on the header, after the body's).
	slices.SortStableFunc(d.Findings, func(a, b Finding) int { return a.Line - b.Line })
	d.FindingsOmitted = omitted
	return d
}

func (d *Data) summary(s *analysis.Session) {
	sum := &d.Summary
	if dur, ok := s.Duration(); ok {
		sum.DurationMS = MillisPtr(dur)
	}
	sum.Messages, sum.ToolCalls, sum.Errors, sum.Unfinished = s.Messages, len(s.Calls), s.Errors, s.Unfinished
	sum.Subagents = len(s.Subagents)
	sum.Tokens = Tokens(s.Tokens())
	sum.Latency = LatencyOf(s.Latency)
	sum.APM = APMOf(s.APM)
	if g := s.LongestGap; g.Duration > 0 {
		lg := gapOf(g)
		sum.LongestGap = &lg
	}
}

// calls lays the calls out: the main agent's, and each subagent's (the
// calls whose tid= is the one on the subagent's x: line) in rows of
// subagents that do not overlap.
func (d *Data) calls(t *grammar.Tree, s *analysis.Session, toolIndex map[string]int) {
	n := len(s.Calls)
	c := Calls{Tool: make([]int, n), Line: make([]int, n), End: make([]int, n), Outcome: make([]int8, n),
		LatencyMS: make([]float64, n), Stamped: make([]int8, n), Group: make([]int, n), Lane: make([]int, n)}
	lastLine := t.LineCount() // an unfinished call lasts to the end of the log

	// Subagents: rows by their spans; their tid= values attribute calls.
	var subRows packer
	byTID := map[string]int{}
	for i := range s.Subagents {
		sa := &s.Subagents[i]
		end := sa.EndLine
		if end < 0 {
			end = lastLine
		}
		sd := Subagent{Type: sa.Type, ID: string(t.Slice(sa.ID.Start, sa.ID.End)), Line: sa.Line + 1, Status: sa.Status,
			Lane: subRows.place(sa.Line, end, maxSubagentLanes)}
		if sa.EndLine >= 0 {
			e := sa.EndLine + 1
			sd.EndLine = &e
		}
		if dur, ok := sa.Duration(); ok {
			sd.DurationMS = MillisPtr(dur)
		}
		if tid := lineValue(t, sa.Line, "tid"); tid != "" {
			byTID[tid] = i
		}
		d.Subagents = append(d.Subagents, sd)
	}
	var main packer
	subCalls := make([]packer, len(subRows.ends))
	for i := range s.Calls {
		call := &s.Calls[i]
		c.Tool[i] = toolIndex[call.Tool]
		c.Line[i] = call.Line + 1
		end := lastLine
		if call.ResultLine >= 0 {
			c.End[i] = call.ResultLine + 1
			end = call.ResultLine
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
		c.Group[i] = -1
		if len(byTID) > 0 {
			if k, ok := byTID[lineValue(t, call.Line, "tid")]; ok {
				row := d.Subagents[k].Lane
				c.Group[i] = row
				c.Lane[i] = subCalls[row].place(call.Line, end, maxCallLanesInSub)
				d.Subagents[k].Calls++
				continue
			}
		}
		c.Lane[i] = main.place(call.Line, end, maxMainLanes)
	}
	d.Calls = c
	d.Lanes = Lanes{Main: max(len(main.ends), 1), Subagents: make([]int, len(subRows.ends))}
	for row := range subRows.ends {
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

func (d *Data) times(t *grammar.Tree, s *analysis.Session) {
	d.Times = Times{Line: []int{}, MS: []float64{}}
	if !d.Timed {
		return
	}
	latest := math.Inf(-1)
	for _, lt := range analysis.LineTimes(t) {
		v := Millis(lt.Time.Sub(s.Start))
		latest = max(latest, v)
		n := len(d.Times.MS)
		// Of a run of equal times keep the first and the last.
		if n >= 2 && d.Times.MS[n-1] == latest && d.Times.MS[n-2] == latest {
			d.Times.Line[n-1] = lt.Line + 1
			continue
		}
		d.Times.Line = append(d.Times.Line, lt.Line+1)
		d.Times.MS = append(d.Times.MS, latest)
	}
}

func (d *Data) tokens(t *grammar.Tree) {
	var c analysis.UsageCounter
	var all TokenSeries
	for u := range t.Usage() {
		if ch := c.Add(t, u); !ch.New && ch.Grew.IsZero() {
			continue
		}
		tot := c.Total()
		all.Line = append(all.Line, u.Line+1)
		all.In = append(all.In, tot.In)
		all.Out = append(all.Out, tot.Out)
		all.Cached = append(all.Cached, tot.Cached)
	}
	n := len(all.Line)
	if n <= maxTokenPoints {
		d.Tokens = TokenSeries{Line: nonNil(all.Line), In: nonNil(all.In), Out: nonNil(all.Out), Cached: nonNil(all.Cached)}
		return
	}
	for k := range maxTokenPoints {
		i := (k + 1) * n / maxTokenPoints // the last point is n-1 at k = maxTokenPoints-1
		i--
		d.Tokens.Line = append(d.Tokens.Line, all.Line[i])
		d.Tokens.In = append(d.Tokens.In, all.In[i])
		d.Tokens.Out = append(d.Tokens.Out, all.Out[i])
		d.Tokens.Cached = append(d.Tokens.Cached, all.Cached[i])
	}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
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
