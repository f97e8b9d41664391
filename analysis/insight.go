package analysis

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// What the editor shows of a Session beside the text: code lenses above
// the header and each @phase, and inlay hints after o: lines (the call's
// latency) and before lines that follow a long pause. Places are byte
// offsets; the server maps them to positions.

// LensPlace is where a code lens goes: above the header, for the whole
// session (Phase -1), or above an @phase line (Phase is then its index in
// Session.Phases).
type LensPlace struct {
	Line, Start, End int
	Phase            int
}

// LensPlaces lists where the lenses go without computing the session:
// the header's first line (or the document's, without a header), then
// every @phase line in order, found through the chunk summaries, so the
// cost after the first time is the number of phases.
func LensPlaces(t *grammar.Tree) []LensPlace {
	first := max(t.Region().HeaderStart, 0)
	l := t.Line(first)
	out := []LensPlace{{Line: first, Start: l.Start, End: l.End, Phase: -1}}
	body := t.Region().BodyStart
	for i := t.ChunkIndexOfLine(body); i < t.ChunkCount(); i++ {
		_, firstLine, _ := t.ChunkAt(i)
		for _, rel := range summaryOf(t, i).phaseLines {
			l := t.Line(firstLine + rel)
			out = append(out, LensPlace{Line: l.Num, Start: l.Start, End: l.End, Phase: len(out) - 1})
		}
	}
	return out
}

// SessionLensTitle is the lens above the header: the session's duration,
// tokens (each message once), tool calls, errors and APM.
func SessionLensTitle(s SessionTotals) string {
	var b strings.Builder
	b.WriteString("Session: ")
	companion := s.APM.Source == APMFromCompanion && s.APM.Minutes > 0
	if d, ok := s.Duration(); ok {
		b.WriteString(FormatDuration(d))
	} else if companion {
		// The span APM counts over, not "unknown" beside its value.
		fmt.Fprintf(&b, "%s in the companion", FormatDuration(time.Duration(s.APM.Minutes*float64(time.Minute))))
	} else if s.StartLine >= 0 {
		b.WriteString("duration unknown (one timestamp)")
	} else {
		b.WriteString("duration unknown (no timestamps)")
	}
	tk := s.Tokens
	fmt.Fprintf(&b, " · tokens %s in, %s out, %s cached", GroupDigits(tk.In), GroupDigits(tk.Out), GroupDigits(tk.Cached))
	fmt.Fprintf(&b, " · %s, %s", countOf(s.Calls, "tool call"), countOf(s.Errors, "error"))
	if s.Unfinished > 0 {
		fmt.Fprintf(&b, ", %s unfinished", GroupDigits(uint64(s.Unfinished)))
	}
	if s.CostUSD != nil {
		fmt.Fprintf(&b, " · %s", FormatCost(*s.CostUSD))
	}
	if s.APM.Known {
		fmt.Fprintf(&b, " · APM %.2f", s.APM.Value)
	} else {
		b.WriteString(" · APM unknown")
	}
	if s.APM.Source == APMFromCompanion && s.APM.Companion != "" {
		fmt.Fprintf(&b, " (from %s)", s.APM.Companion)
	}
	return b.String()
}

// PhaseLensTitle is the lens above an @phase line: the phase's duration,
// tool calls, errors and output tokens.
func PhaseLensTitle(p *Phase) string {
	var b strings.Builder
	name := p.Name
	if name == "" {
		name = "phase"
	}
	b.WriteString(name)
	b.WriteString(": ")
	if d, ok := p.Duration(); ok {
		b.WriteString(FormatDuration(d))
	} else {
		b.WriteString("time unknown")
	}
	fmt.Fprintf(&b, " · %s, %s · %s tokens out", countOf(p.Calls, "tool call"), countOf(p.Errors, "error"), GroupDigits(p.Tokens.Out))
	return b.String()
}

func countOf(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return GroupDigits(uint64(n)) + " " + what + "s"
}

// InlayHintOptions say which hints to give.
type InlayHintOptions struct {
	// Latency gives, after each o: line, its call's latency.
	Latency bool
	// Gaps gives, before each line with a ts= that follows the previous
	// timestamp by at least MinGap, the pause.
	Gaps   bool
	MinGap time.Duration
	// Calls say which calls end in the range, for the latency hints: the
	// document's SessionTracker, or a Session; nil means SessionOf(t).
	Calls CallSource
}

// InlayHint is one hint: a label at a byte offset.
type InlayHint struct {
	Offset int
	Label  string
	// Tooltip says where the number comes from.
	Tooltip string
	// Before is true for a hint placed before the text it is about (a
	// pause, at the start of its line), false for one after it.
	Before bool
}

// InlayHints returns the hints for the lines that begin in the byte range
// [start, end), in offset order. Latency hints read the calls that end in
// the range (a SessionTracker finds them at the cost of the range); pause
// hints read only the range and, through the chunk summaries, the
// timestamp before it.
func InlayHints(t *grammar.Tree, start, end int, opts InlayHintOptions) []InlayHint {
	var out []InlayHint
	if opts.Gaps && opts.MinGap > 0 {
		for _, g := range GapsIn(t, start, end, opts.MinGap) {
			out = append(out, InlayHint{Offset: g.Start, Before: true, Label: "+" + FormatDuration(g.Duration),
				Tooltip: fmt.Sprintf("%s since the timestamp on line %d (pauses of %s or more are shown)",
					FormatDuration(g.Duration), g.PreviousLine+1, FormatDuration(opts.MinGap))})
		}
	}
	if opts.Latency {
		calls := opts.Calls
		if calls == nil {
			calls = SessionOf(t)
		}
		for _, c := range calls.CallsEndingIn(start, end) {
			if !c.HasLatency || c.ResultLine == c.Line {
				continue
			}
			l := t.Line(c.ResultLine)
			if l.Kind != grammar.Observation {
				continue
			}
			out = append(out, InlayHint{Offset: l.End, Label: FormatDuration(c.Latency), Tooltip: latencyTooltip(&c)})
		}
	}
	slices.SortStableFunc(out, func(a, b InlayHint) int { return a.Offset - b.Offset })
	return out
}

func latencyTooltip(c *Call) string {
	how := "from this line's latency_ms="
	if !c.StartTime.IsZero() && !c.EndTime.IsZero() {
		how = fmt.Sprintf("from the ts= of line %d to this line's", c.Line+1)
	}
	return fmt.Sprintf("%s call (line %d): %s, %s, %s", c.Tool, c.Line+1, c.Outcome, FormatDuration(c.Latency), how)
}

// LineTime is a body line's ts= value.
type LineTime struct {
	Line int
	Time time.Time
}

// LineTimes lists the body lines with a valid ts=, in file order, with
// their times (not sorted: converted sessions have side chains whose
// times go back).
func LineTimes(t *grammar.Tree) []LineTime {
	var out []LineTime
	for l := range t.Body() {
		if !l.TS.Valid() {
			continue
		}
		if when, ok := timestampValue(t.Slice(l.TS.Start, l.TS.End)); ok {
			out = append(out, LineTime{Line: l.Num, Time: when})
		}
	}
	return out
}
