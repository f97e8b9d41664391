package analysis

import (
	"bytes"
	"slices"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// FoldKind says what a folding range holds.
type FoldKind uint8

const (
	FoldRegion  FoldKind = iota + 1 // phases, the session, subagents, continuation runs
	FoldComment                     // runs of comment lines
	FoldHeader                      // the YAML header
)

// Fold is a range of whole lines that an editor can collapse.
type Fold struct {
	StartLine, EndLine int
	Kind               FoldKind
}

// Folds lists the foldable ranges in start order: the header, each @phase
// section, @start...@end, a subagent from [started] to [done], a line with
// its continuation lines, and runs of two or more comments.
func Folds(t *grammar.Tree) []Fold { return FoldsUpTo(t, -1) }

// FoldsUpTo returns the first limit folds in start order (all of them when
// limit < 0): what an editor keeps of the full list when it has a limit.
// It reads lines only until limit folds have started, and finds where the
// long ones (phases, the session, subagents) end from the chunk summaries,
// so a capped request on a huge document reads only its beginning.
func FoldsUpTo(t *grammar.Tree, limit int) []Fold {
	f := foldScanner{t: t, phaseStart: -1, sessionStart: -1, parent: -1, lastCont: -1, commentStart: -1,
		lastComment: -1, lastNonEmpty: -1, open: map[string]int{}}
	r := t.Region()
	if r.HeaderStart >= 0 && r.BodyStart-1 > r.HeaderStart {
		f.out = append(f.out, Fold{StartLine: r.HeaderStart, EndLine: r.BodyStart - 1, Kind: FoldHeader})
	}
	for l := range t.Body() {
		f.line(l)
		if limit >= 0 && f.started() >= limit && l.Kind != grammar.Continuation && l.Kind != grammar.Comment && l.Kind != grammar.Empty {
			// Every fold starting up to here is now known or open: close
			// the open ones where they will end, and stop if that is enough.
			c := f.clone()
			if out := c.finishFrom(c.readRun(l.Num + 1)); len(out) >= limit {
				return out[:limit]
			}
		}
	}
	out := f.finish()
	if limit >= 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

type foldScanner struct {
	t            *grammar.Tree
	out          []Fold
	lastNonEmpty int
	phaseStart   int
	sessionStart int
	parent       int // the line continuation lines belong to
	lastCont     int
	commentStart int
	lastComment  int
	open         map[string]int // subagents started and not yet done, by id
}

// started counts the folds found and the ones open (which may end up folds).
func (f *foldScanner) started() int {
	n := len(f.out) + len(f.open)
	if f.phaseStart >= 0 {
		n++
	}
	if f.sessionStart >= 0 {
		n++
	}
	return n
}

func (f *foldScanner) clone() *foldScanner {
	c := *f
	c.out = slices.Clone(f.out)
	c.open = make(map[string]int, len(f.open))
	for k, v := range f.open {
		c.open[k] = v
	}
	return &c
}

func (f *foldScanner) flushCont() {
	if f.parent >= 0 && f.lastCont > f.parent {
		f.out = append(f.out, Fold{StartLine: f.parent, EndLine: f.lastCont, Kind: FoldRegion})
	}
	f.parent, f.lastCont = -1, -1
}

func (f *foldScanner) flushComments() {
	if f.commentStart >= 0 && f.lastComment > f.commentStart {
		f.out = append(f.out, Fold{StartLine: f.commentStart, EndLine: f.lastComment, Kind: FoldComment})
	}
	f.commentStart, f.lastComment = -1, -1
}

func (f *foldScanner) flushPhase(end int) {
	if f.phaseStart >= 0 && end > f.phaseStart {
		f.out = append(f.out, Fold{StartLine: f.phaseStart, EndLine: end, Kind: FoldRegion})
	}
	f.phaseStart = -1
}

func (f *foldScanner) line(l grammar.Line) {
	t := f.t
	switch l.Kind {
	case grammar.Empty:
		return
	case grammar.Continuation:
		if f.parent >= 0 {
			f.lastCont = l.Num
		}
		f.lastNonEmpty = l.Num
		return
	}
	f.flushCont()
	f.parent = l.Num
	if l.Kind == grammar.Comment {
		if f.commentStart < 0 || f.lastComment != l.Num-1 {
			f.flushComments()
			f.commentStart = l.Num
		}
		f.lastComment = l.Num
	} else {
		f.flushComments()
	}
	switch l.Kind {
	case grammar.Phase:
		f.flushPhase(f.lastNonEmpty)
		f.phaseStart = l.Num
	case grammar.Lifecycle:
		content := t.Slice(l.Content, l.TrimEnd)
		if bytes.HasPrefix(content, []byte("start")) && f.sessionStart < 0 {
			f.sessionStart = l.Num
		} else if bytes.HasPrefix(content, []byte("end")) && f.sessionStart >= 0 {
			f.out = append(f.out, Fold{StartLine: f.sessionStart, EndLine: l.Num, Kind: FoldRegion})
			f.sessionStart = -1
		}
	case grammar.Subagent:
		if l.ID.Valid() {
			id := string(t.Slice(l.ID.Start, l.ID.End))
			content := t.Slice(l.Content, l.TrimEnd)
			if start, open := f.open[id]; open && isSubagentEnd(content) {
				f.out = append(f.out, Fold{StartLine: start, EndLine: l.Num, Kind: FoldRegion})
				delete(f.open, id)
			} else if !open && bytes.Contains(content, []byte("[started]")) {
				f.open[id] = l.Num
			}
		}
	}
	f.lastNonEmpty = l.Num
}

// readRun reads the continuation (and empty) lines from line n on, which
// may extend the run of the line before; it returns the next other line.
func (f *foldScanner) readRun(n int) int {
	for l := range f.t.LinesFrom(n) {
		if l.Kind != grammar.Continuation && l.Kind != grammar.Empty {
			return l.Num
		}
		f.line(l)
	}
	return f.t.LineCount()
}

// finish closes what is open at the end of the document.
func (f *foldScanner) finish() []Fold {
	f.flushCont()
	f.flushComments()
	f.flushPhase(f.lastNonEmpty)
	sortFolds(f.out)
	return f.out
}

// finishFrom closes the open folds as if the rest of the document, from
// line next on, had been read, using the chunk summaries for where phases,
// the session and subagents end. The continuation and comment runs are
// closed: the scan stops only on a line that ends them.
func (f *foldScanner) finishFrom(next int) []Fold {
	f.flushCont()
	f.flushComments()
	if f.phaseStart >= 0 || f.sessionStart >= 0 || len(f.open) > 0 {
		t := f.t
		nextPhase, end := -1, -1
		subEnds := map[string]int{}
		lastNonEmpty := f.lastNonEmpty
		for i := t.ChunkIndexOfLine(next); i < t.ChunkCount(); i++ {
			s := summaryOf(t, i)
			_, first, _ := t.ChunkAt(i)
			for _, p := range s.phaseLines {
				if nextPhase < 0 && first+p >= next {
					nextPhase = first + p
				}
			}
			for _, e := range s.endLines {
				if end < 0 && first+e >= next {
					end = first + e
				}
			}
			for _, e := range s.subagentEnds {
				if _, open := f.open[e.id]; open && first+e.line >= next {
					if _, seen := subEnds[e.id]; !seen {
						subEnds[e.id] = first + e.line
					}
				}
			}
			if nextPhase < 0 && s.lastNonEmpty >= 0 {
				lastNonEmpty = max(lastNonEmpty, first+s.lastNonEmpty)
			}
			if nextPhase >= 0 && (end >= 0 || f.sessionStart < 0) && len(subEnds) == len(f.open) {
				break
			}
		}
		if f.phaseStart >= 0 {
			if nextPhase >= 0 {
				lastNonEmpty = lastNonEmptyBefore(t, nextPhase)
			}
			f.flushPhase(lastNonEmpty)
		}
		if f.sessionStart >= 0 && end >= 0 {
			f.out = append(f.out, Fold{StartLine: f.sessionStart, EndLine: end, Kind: FoldRegion})
		}
		for id, start := range f.open {
			if e, ok := subEnds[id]; ok {
				f.out = append(f.out, Fold{StartLine: start, EndLine: e, Kind: FoldRegion})
			}
		}
	}
	sortFolds(f.out)
	return f.out
}

// lastNonEmptyBefore is the last non-empty line before line n.
func lastNonEmptyBefore(t *grammar.Tree, n int) int {
	for m := n - 1; m >= t.Region().BodyStart; m-- {
		if t.Line(m).Kind != grammar.Empty {
			return m
		}
	}
	return -1
}

func sortFolds(f []Fold) {
	slices.SortStableFunc(f, func(a, b Fold) int {
		if a.StartLine != b.StartLine {
			return a.StartLine - b.StartLine
		}
		return b.EndLine - a.EndLine
	})
}
