package analysis

import (
	"fmt"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// sequenceRules are the rules across chunks (Scope InSequence): a chunk's
// first step= below the last one before it (W004 between chunks; within a
// chunk, summarizeChunk finds it), a long session without @start (I001),
// an @start without @end (I002). They are fed, in document order, what
// each chunk (or, read from its sums, each page) says of its steps and
// lifecycle lines; the Analyzer and the StreamChecker keep one each.
type sequenceRules struct {
	lastStep         uint64
	hasStep          bool
	hasStart, hasEnd bool
}

// sequenceFacts is what a run of chunks says to sequenceRules.
type sequenceFacts struct {
	firstStep, lastStep uint64 // when hasStep
	hasStep             bool
	hasStart, hasEnd    bool
}

// next takes the facts of the run of chunks after those already read. It
// says whether the run's first step is less than the last one before it,
// previous, and whether the run holds the session's first @start.
func (r *sequenceRules) next(f sequenceFacts) (stepDown bool, previous uint64, firstStart bool) {
	previous = r.lastStep
	if f.hasStep {
		stepDown = r.hasStep && f.firstStep < r.lastStep
		r.lastStep, r.hasStep = f.lastStep, true
	}
	firstStart = f.hasStart && !r.hasStart
	r.hasStart = r.hasStart || f.hasStart
	r.hasEnd = r.hasEnd || f.hasEnd
	return stepDown, previous, firstStart
}

// stepDownFrom is W004 on the chunk's first step=, which is less than the
// last one before the chunk, previous.
func (s *chunkSummary) stepDownFrom(previous uint64) Finding {
	return finding(W004, s.firstStep.line, s.firstStep.span,
		fmt.Sprintf("Step %d is less than previous step %d", s.firstStep.value, previous))
}

// sequenceOf is what a chunk says to sequenceRules.
func (s *chunkSummary) sequenceOf() sequenceFacts {
	return sequenceFacts{
		firstStep: s.firstStep.value, lastStep: s.lastStep.value, hasStep: s.firstStep.ok,
		hasStart: s.startLine >= 0, hasEnd: s.hasEnd,
	}
}

// sequence is what a chunk's tally says to sequenceRules.
func (ct *chunkTally) sequence() sequenceFacts {
	return sequenceFacts{
		firstStep: ct.firstStep, lastStep: ct.lastStep, hasStep: ct.flags&tallyStep != 0,
		hasStart: ct.flags&tallyStart != 0, hasEnd: ct.flags&tallyEnd != 0,
	}
}

// sequence is what a page's sums say to sequenceRules.
func (pt *pageTally) sequence() sequenceFacts {
	return sequenceFacts{
		firstStep: pt.firstStep, lastStep: pt.lastStep, hasStep: pt.hasStep,
		hasStart: pt.start >= 0, hasEnd: pt.hasEnd,
	}
}

// session adds the findings about the whole session, which point at the
// header: a long body without @start (I001), an @start without @end
// (I002). start is the first @start line, when there is one.
func (r *sequenceRules) session(c *checker, bodyLines int, start grammar.Line) {
	if bodyLines > 50 && !r.hasStart {
		c.add(I001, c.headerAnchor(), "Long session without @start lifecycle event")
	}
	if r.hasStart && !r.hasEnd {
		c.add(I002, c.headerAnchor(), "Session has @start but no @end",
			Related{Span: grammar.Span{Start: start.Start, End: start.TrimEnd}, Line: start.Num, Message: "the session starts here"})
	}
}
