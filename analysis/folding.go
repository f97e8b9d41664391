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
// so a capped request on a huge document reads only its beginning. What it
// needs of a chunk's lines is memoized on the chunk, so later requests, and
// requests after an edit elsewhere, do not decode those lines again.
func FoldsUpTo(t *grammar.Tree, limit int) []Fold {
	f := foldScanner{t: t, phaseStart: -1, sessionStart: -1, parent: -1, lastCont: -1, commentStart: -1,
		lastComment: -1, lastNonEmpty: -1, open: map[string]int{}}
	r := t.Region()
	if r.HeaderStart >= 0 && r.BodyStart-1 > r.HeaderStart {
		f.out = append(f.out, Fold{StartLine: r.HeaderStart, EndLine: r.BodyStart - 1, Kind: FoldHeader})
	}
	for i := t.ChunkIndexOfLine(r.BodyStart); i < t.ChunkCount(); i++ {
		cf := chunkFoldLinesOf(t, i)
		_, first, _ := t.ChunkAt(i)
		for k, l := range cf.lines {
			f.line(cf, l, first)
			if limit >= 0 && f.started() >= limit && l.kind != grammar.Continuation && l.kind != grammar.Comment {
				// Every fold starting up to here is now known or open: close
				// the open ones where they will end, and stop if that is enough.
				c := f.clone()
				if out := c.finishFrom(c.readRun(i, k+1)); len(out) >= limit {
					return out[:limit]
				}
			}
		}
	}
	out := f.finish()
	if limit >= 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// foldLine is what folding needs of one non-empty body line.
type foldLine struct {
	num  int32 // relative to the chunk's first line
	kind grammar.Kind
	mark foldMark
	id   int32 // a subagent line's id, in chunkFoldLines.ids; -1 if it has none
}

type foldMark uint8

const (
	sessionStartMark  foldMark = 1 << iota // a lifecycle line starting with "start"
	sessionEndMark                         // a lifecycle line starting with "end"
	subagentStartMark                      // a subagent line with [started]
	subagentEndMark                        // a subagent line with [done] or [error]
)

// chunkFoldLines are a chunk's non-empty body lines as folding sees them,
// with each run of ordinary lines (lines that neither fold nor end a fold
// by their kind: not a continuation, comment or phase, nor a marked
// lifecycle or subagent line) kept as its last line only. The scanner does
// the same for every line of such a run: it closes the continuation and
// comment runs before it, and makes the line the parent of continuation
// lines and the last non-empty one; so after the run's last line its state
// is what it would be after all of them. In a log most lines are ordinary,
// and a run of them is mostly a whole turn: the memo holds about a fifth of
// the lines, small enough to keep for every chunk, so a request for all the
// folds of a large log (a client without a rangeLimit) reads no lines
// again. FuzzOutlineAndFolds holds the folds equal to a scan of every line.
type chunkFoldLines struct {
	lines []foldLine
	ids   []string
}

type foldLinesKey struct{ notBody int }

// chunkFoldLinesOf returns chunk i's fold lines, memoized on the chunk
// (under notBody, as summaryOf does).
func chunkFoldLinesOf(t *grammar.Tree, i int) *chunkFoldLines {
	c, _, _ := t.ChunkAt(i)
	return c.Memo(foldLinesKey{notBody(t, i)}, func() any { return foldLinesOf(t, i) }).(*chunkFoldLines)
}

// foldLinesOf reads chunk i's fold lines.
func foldLinesOf(t *grammar.Tree, i int) *chunkFoldLines {
	_, first, _ := t.ChunkAt(i)
	cf := &chunkFoldLines{}
	bodyStart := t.Region().BodyStart
	ordinary := foldLine{num: -1} // the last line of the current run of ordinary lines
	for l := range t.ChunkLines(i) {
		if l.Num < bodyStart || l.Kind == grammar.Empty {
			continue
		}
		fl := foldLine{num: int32(l.Num - first), kind: l.Kind, id: -1}
		switch l.Kind {
		case grammar.Lifecycle:
			content := t.Slice(l.Content, l.TrimEnd)
			if bytes.HasPrefix(content, []byte("start")) {
				fl.mark = sessionStartMark
			} else if bytes.HasPrefix(content, []byte("end")) {
				fl.mark = sessionEndMark
			}
		case grammar.Subagent:
			if l.ID.Valid() {
				content := t.Slice(l.Content, l.TrimEnd)
				if isSubagentEnd(content) {
					fl.mark |= subagentEndMark
				}
				if bytes.Contains(content, []byte("[started]")) {
					fl.mark |= subagentStartMark
				}
				if fl.mark != 0 {
					fl.id = int32(len(cf.ids))
					cf.ids = append(cf.ids, string(t.Slice(l.ID.Start, l.ID.End)))
				}
			}
		}
		if fl.mark == 0 && l.Kind != grammar.Continuation && l.Kind != grammar.Comment && l.Kind != grammar.Phase {
			ordinary = fl
			continue
		}
		if ordinary.num >= 0 {
			cf.lines = append(cf.lines, ordinary)
			ordinary.num = -1
		}
		cf.lines = append(cf.lines, fl)
	}
	if ordinary.num >= 0 {
		cf.lines = append(cf.lines, ordinary)
	}
	cf.lines = exact(cf.lines)
	return cf
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

// line reads fold line l of the chunk whose lines cf are and whose first
// line is first.
func (f *foldScanner) line(cf *chunkFoldLines, l foldLine, first int) {
	num := first + int(l.num)
	if l.kind == grammar.Continuation {
		if f.parent >= 0 {
			f.lastCont = num
		}
		f.lastNonEmpty = num
		return
	}
	f.flushCont()
	f.parent = num
	if l.kind == grammar.Comment {
		if f.commentStart < 0 || f.lastComment != num-1 {
			f.flushComments()
			f.commentStart = num
		}
		f.lastComment = num
	} else {
		f.flushComments()
	}
	switch l.kind {
	case grammar.Phase:
		f.flushPhase(f.lastNonEmpty)
		f.phaseStart = num
	case grammar.Lifecycle:
		if l.mark&sessionStartMark != 0 && f.sessionStart < 0 {
			f.sessionStart = num
		} else if l.mark&sessionEndMark != 0 && f.sessionStart >= 0 {
			f.out = append(f.out, Fold{StartLine: f.sessionStart, EndLine: num, Kind: FoldRegion})
			f.sessionStart = -1
		}
	case grammar.Subagent:
		if l.id >= 0 {
			id := cf.ids[l.id]
			if start, open := f.open[id]; open && l.mark&subagentEndMark != 0 {
				f.out = append(f.out, Fold{StartLine: start, EndLine: num, Kind: FoldRegion})
				delete(f.open, id)
			} else if !open && l.mark&subagentStartMark != 0 {
				f.open[id] = num
			}
		}
	}
	f.lastNonEmpty = num
}

// readRun reads the continuation lines from the k-th fold line of chunk i
// on, which may extend the run of the line before; it returns the next
// other non-empty line.
func (f *foldScanner) readRun(i, k int) int {
	t := f.t
	for ; i < t.ChunkCount(); i, k = i+1, 0 {
		cf := chunkFoldLinesOf(t, i)
		_, first, _ := t.ChunkAt(i)
		for _, l := range cf.lines[k:] {
			if l.kind != grammar.Continuation {
				return first + int(l.num)
			}
			f.line(cf, l, first)
		}
	}
	return t.LineCount()
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
		nextPhase := -1
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
			if nextPhase >= 0 && len(subEnds) == len(f.open) {
				break
			}
		}
		if f.phaseStart >= 0 {
			if nextPhase >= 0 {
				lastNonEmpty = lastNonEmptyBefore(t, nextPhase)
			}
			f.flushPhase(lastNonEmpty)
		}
		if f.sessionStart >= 0 {
			if end := sessionEndFrom(t, next); end >= 0 {
				f.out = append(f.out, Fold{StartLine: f.sessionStart, EndLine: end, Kind: FoldRegion})
			}
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

// sessionEndFrom is the first lifecycle line starting with "end" from
// line n on, or -1. A session usually ends at the end of the document, so
// the first end after each chunk is memoized on the tree.
func sessionEndFrom(t *grammar.Tree, n int) int {
	ci := t.ChunkIndexOfLine(n)
	_, first, _ := t.ChunkAt(ci)
	for _, e := range summaryOf(t, ci).endLines {
		if first+e >= n {
			return first + e
		}
	}
	return sessionEndsOf(t)[ci+1]
}

type sessionEndsKey struct{}

// sessionEndsOf returns, for each chunk i, the first "end" lifecycle line
// in chunk i and after (-1 if none); one more entry, -1, follows the last.
func sessionEndsOf(t *grammar.Tree) []int {
	return t.Memo(sessionEndsKey{}, func() any {
		n := t.ChunkCount()
		ends := make([]int, n+1)
		ends[n] = -1
		for i := n - 1; i >= 0; i-- {
			ends[i] = ends[i+1]
			if s := summaryOf(t, i); len(s.endLines) > 0 {
				_, first, _ := t.ChunkAt(i)
				ends[i] = first + s.endLines[0]
			}
		}
		return ends
	}).([]int)
}

func sortFolds(f []Fold) {
	slices.SortStableFunc(f, func(a, b Fold) int {
		if a.StartLine != b.StartLine {
			return a.StartLine - b.StartLine
		}
		return b.EndLine - a.EndLine
	})
}
