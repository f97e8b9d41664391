package report

import (
	"math"
	"time"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/grammar"
)

// Stream makes the session view's data of a log read a window at a time
// (a grammar.Stream's windows, in order), as Build makes it of a whole
// parsed log, in memory that does not grow with the log but for the data
// itself (the calls' columns, the phases, the subagents, the time anchors)
// and the call ids still waiting for their results: `rlog-ls report`. The
// session is analysis.SessionStream's; the findings are the caller's (an
// analysis.StreamChecker's, in the same pass or a pass of their own).
type Stream struct {
	opts    Options
	options func(first *grammar.Tree) analysis.SessionOptions

	session *analysis.SessionStream
	id      string
	last    *grammar.Tree

	calls     Calls
	toolOf    map[string]int32 // by first appearance; Tools' order is known at the end
	toolNames []string
	// The tid= values of the call lines that have one (the calls by their
	// numbers) and of the subagents' first lines (by index), as indices in
	// tidNames.
	callTIDs  []callTID
	subTIDs   []int32
	tidOf     map[string]int32
	tidNames  []string
	callLines int // the call lines read
	times     timeAnchors
	usage     analysis.UsageCounter
	tokens    tokenPoints
}

type callTID struct{ call, tid int32 }

// NewStream starts the data of a log; options gives the session
// statistics' options from the log's first window (whose header says
// which session it is, to find its companion).
func NewStream(opts Options, options func(first *grammar.Tree) analysis.SessionOptions) *Stream {
	return &Stream{opts: opts, options: options, calls: newCalls(0), toolOf: map[string]int32{}, tidOf: map[string]int32{}}
}

// Window reads the log's next window.
func (st *Stream) Window(t *grammar.Tree) {
	if st.session == nil {
		st.session = analysis.NewSessionStream(st.options(t))
		st.session.OnCall(st.call)
		st.session.SkipUniqueCallIDs() // the view shows no counters
		st.id, _ = t.Header().Get("id")
	}
	subagents := len(st.session.Subagents())
	st.session.Window(t)
	for _, sa := range st.session.Subagents()[subagents:] {
		st.subTIDs = append(st.subTIDs, st.tid(lineValue(t, sa.Line, "tid")))
	}
	for l := range t.Body() {
		// The session numbers the calls by their lines, in order.
		if l.Kind == grammar.ToolStart || l.Kind == grammar.Tool || l.Kind == grammar.Mcp {
			if k := st.tid(lineValue(t, l.Num, "tid")); k >= 0 {
				st.callTIDs = append(st.callTIDs, callTID{int32(st.callLines), k})
			}
			st.callLines++
		}
	}
	for _, lt := range analysis.LineTimes(t) {
		st.times.add(lt.Line, lt.Time)
	}
	st.tokens.read(t, &st.usage)
	st.last = t
}

// tid is the index of a tid= value in tidNames, -1 for none.
func (st *Stream) tid(v string) int32 {
	if v == "" {
		return -1
	}
	k, ok := st.tidOf[v]
	if !ok {
		k = int32(len(st.tidNames))
		st.tidOf[v] = k
		st.tidNames = append(st.tidNames, v)
	}
	return k
}

// call fills the columns of call n, whose outcome is known.
func (st *Stream) call(n int, c *analysis.Call) {
	if n >= len(st.calls.Line) {
		grow := n + 1 - len(st.calls.Line)
		c := &st.calls
		c.Tool, c.Line, c.End = append(c.Tool, make([]int32, grow)...), append(c.Line, make([]int32, grow)...), append(c.End, make([]int32, grow)...)
		c.Outcome, c.Stamped = append(c.Outcome, make([]int8, grow)...), append(c.Stamped, make([]int8, grow)...)
		c.LatencyMS = append(c.LatencyMS, make([]float64, grow)...)
	}
	k, ok := st.toolOf[c.Tool]
	if !ok {
		k = int32(len(st.toolNames))
		st.toolOf[c.Tool] = k
		st.toolNames = append(st.toolNames, c.Tool)
	}
	st.calls.set(n, c, int(k))
}

// End returns the data, after the last window, with the log's first
// findings (omitted more were not listed).
func (st *Stream) End(findings []analysis.Finding, omitted int) *Data {
	s := st.session.End()
	st.session = nil
	lines := st.last.LineCount()
	d, toolIndex := newData(st.id, lines, s, st.opts)
	rows := d.subagents(s, lines, func(i int) string {
		if k := st.subTIDs[i]; k >= 0 {
			return st.tidNames[k]
		}
		return ""
	})
	d.Calls = st.calls
	st.calls = Calls{}
	order := make([]int32, len(st.toolNames))
	for k, name := range st.toolNames {
		order[k] = int32(toolIndex[name])
	}
	for i, k := range d.Calls.Tool {
		d.Calls.Tool[i] = order[k]
	}
	n := len(d.Calls.Line)
	d.Calls.Group, d.Calls.Lane = make([]int32, n), make([]int32, n)
	next := 0 // calls with a tid=, in order: layout asks for them in order
	d.layout(lines, rows, func(i int) string {
		for next < len(st.callTIDs) && int(st.callTIDs[next].call) < i {
			next++
		}
		if next < len(st.callTIDs) && int(st.callTIDs[next].call) == i {
			return st.tidNames[st.callTIDs[next].tid]
		}
		return ""
	})
	d.finish(s, &st.times, &st.tokens, findings, omitted)
	return d
}

// timeAnchors gathers Data.Times from the timestamped lines, in file
// order, before the session's start (which Times are relative to) is
// known: each line's latest time so far, where a run of one latest time
// keeps only its first and last line. times makes the data's anchors
// from them (runs of one millisecond value keep their ends, as the
// instants of a run are one value).
type timeAnchors struct {
	line   []int32 // 0-based
	sec    []int64
	nsec   []int32
	latest time.Time
}

// add notes line n's time.
func (ta *timeAnchors) add(n int, at time.Time) {
	k := len(ta.line)
	if k == 0 || at.After(ta.latest) {
		ta.latest = at
	}
	sec, nsec := ta.latest.Unix(), int32(ta.latest.Nanosecond())
	if k >= 2 && ta.sec[k-1] == sec && ta.nsec[k-1] == nsec && ta.sec[k-2] == sec && ta.nsec[k-2] == nsec {
		ta.line[k-1] = int32(n)
		return
	}
	ta.line, ta.sec, ta.nsec = append(ta.line, int32(n)), append(ta.sec, sec), append(ta.nsec, nsec)
}

// times are the anchors in milliseconds since start: a time that goes
// back is held at the latest before it, and a run of one value keeps its
// first and last line.
func (ta *timeAnchors) times(start time.Time) Times {
	out := Times{Line: []int32{}, MS: []float64{}}
	latest := math.Inf(-1)
	for k, line := range ta.line {
		v := Millis(time.Unix(ta.sec[k], int64(ta.nsec[k])).Sub(start))
		latest = max(latest, v)
		n := len(out.MS)
		if n >= 2 && out.MS[n-1] == latest && out.MS[n-2] == latest {
			out.Line[n-1] = line + 1
			continue
		}
		out.Line = append(out.Line, line+1)
		out.MS = append(out.MS, latest)
	}
	return out
}

// tokenPoints gathers the cumulative token usage after the usage lines
// that changed it (a message's first line, or a later one raising its
// counts, by the usage rule): after each one while they are no more than
// maxTokenPoints, then, each time the points would be too many, after
// every second one of those kept (the stride doubles), and after the last.
// It keeps at most maxTokenPoints points whatever the number of lines.
type tokenPoints struct {
	kept   TokenSeries
	stride int // the points kept are after messages stride, 2·stride, ...
	n      int // points offered (usage lines that changed the totals)
	last   struct {
		line            int
		in, out, cached uint64
		has             bool
	}
}

// read counts the usage of t's (or a window's) lines with c, which has
// counted the lines before them.
func (tp *tokenPoints) read(t *grammar.Tree, c *analysis.UsageCounter) {
	for u := range t.Usage() {
		if ch := c.Add(t, u); ch.New || !ch.Grew.IsZero() {
			tot := c.Total()
			tp.add(u.Line+1, tot.In, tot.Out, tot.Cached)
		}
	}
}

func (tp *tokenPoints) add(line int, in, out, cached uint64) {
	if tp.stride == 0 {
		tp.stride = 1
	}
	tp.n++
	tp.last.line, tp.last.in, tp.last.out, tp.last.cached, tp.last.has = line, in, out, cached, true
	if tp.n%tp.stride != 0 {
		return
	}
	if len(tp.kept.Line) == maxTokenPoints {
		tp.halve()
		if tp.n%tp.stride != 0 {
			return
		}
	}
	k := &tp.kept
	k.Line, k.In, k.Out, k.Cached = append(k.Line, line), append(k.In, in), append(k.Out, out), append(k.Cached, cached)
}

// halve keeps every second point (after messages 2·stride, 4·stride...)
// and doubles the stride.
func (tp *tokenPoints) halve() {
	k := &tp.kept
	half := 0
	for i := 1; i < len(k.Line); i += 2 {
		k.Line[half], k.In[half], k.Out[half], k.Cached[half] = k.Line[i], k.In[i], k.Out[i], k.Cached[i]
		half++
	}
	k.Line, k.In, k.Out, k.Cached = k.Line[:half], k.In[:half], k.Out[:half], k.Cached[:half]
	tp.stride *= 2
}

// series is the points, the last line's included: at most
// maxTokenPoints, all of them when the messages are no more.
func (tp *tokenPoints) series() TokenSeries {
	if tp.last.has && tp.n%tp.stride != 0 && len(tp.kept.Line) == maxTokenPoints {
		tp.halve()
	}
	k := tp.kept
	out := TokenSeries{Line: append([]int{}, k.Line...), In: append([]uint64{}, k.In...), Out: append([]uint64{}, k.Out...),
		Cached: append([]uint64{}, k.Cached...)}
	if tp.last.has && tp.n%tp.stride != 0 {
		out.Line, out.In = append(out.Line, tp.last.line), append(out.In, tp.last.in)
		out.Out, out.Cached = append(out.Out, tp.last.out), append(out.Cached, tp.last.cached)
	}
	return out
}
