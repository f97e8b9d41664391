package analysis

// The outline and the folds as they were computed before they were made
// to read only chunk memos: the reference the new code must equal, on any
// document, chunk size, cap and edit history (see outline_folding_test.go).

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/grammar"
)

func refFoldsUpTo(t *grammar.Tree, limit int) []Fold {
	f := refFoldScanner{t: t, phaseStart: -1, sessionStart: -1, parent: -1, lastCont: -1, commentStart: -1,
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

type refFoldScanner struct {
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
func (f *refFoldScanner) started() int {
	n := len(f.out) + len(f.open)
	if f.phaseStart >= 0 {
		n++
	}
	if f.sessionStart >= 0 {
		n++
	}
	return n
}

func (f *refFoldScanner) clone() *refFoldScanner {
	c := *f
	c.out = slices.Clone(f.out)
	c.open = make(map[string]int, len(f.open))
	for k, v := range f.open {
		c.open[k] = v
	}
	return &c
}

func (f *refFoldScanner) flushCont() {
	if f.parent >= 0 && f.lastCont > f.parent {
		f.out = append(f.out, Fold{StartLine: f.parent, EndLine: f.lastCont, Kind: FoldRegion})
	}
	f.parent, f.lastCont = -1, -1
}

func (f *refFoldScanner) flushComments() {
	if f.commentStart >= 0 && f.lastComment > f.commentStart {
		f.out = append(f.out, Fold{StartLine: f.commentStart, EndLine: f.lastComment, Kind: FoldComment})
	}
	f.commentStart, f.lastComment = -1, -1
}

func (f *refFoldScanner) flushPhase(end int) {
	if f.phaseStart >= 0 && end > f.phaseStart {
		f.out = append(f.out, Fold{StartLine: f.phaseStart, EndLine: end, Kind: FoldRegion})
	}
	f.phaseStart = -1
}

func (f *refFoldScanner) line(l grammar.Line) {
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
func (f *refFoldScanner) readRun(n int) int {
	for l := range f.t.LinesFrom(n) {
		if l.Kind != grammar.Continuation && l.Kind != grammar.Empty {
			return l.Num
		}
		f.line(l)
	}
	return f.t.LineCount()
}

// finish closes what is open at the end of the document.
func (f *refFoldScanner) finish() []Fold {
	f.flushCont()
	f.flushComments()
	f.flushPhase(f.lastNonEmpty)
	refSortFolds(f.out)
	return f.out
}

// finishFrom closes the open folds as if the rest of the document, from
// line next on, had been read, using the chunk summaries for where phases,
// the session and subagents end. The continuation and comment runs are
// closed: the scan stops only on a line that ends them.
func (f *refFoldScanner) finishFrom(next int) []Fold {
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
	refSortFolds(f.out)
	return f.out
}

func refSortFolds(f []Fold) {
	slices.SortStableFunc(f, func(a, b Fold) int {
		if a.StartLine != b.StartLine {
			return a.StartLine - b.StartLine
		}
		return b.EndLine - a.EndLine
	})
}

func refOutline(t *grammar.Tree, maxItems int) []Symbol {
	if maxItems <= 0 {
		maxItems = DefaultOutlineItems
	}
	b := refOutlineBuilder{t: t, max: maxItems}
	return b.build()
}

type refOutlineBuilder struct {
	t        *grammar.Tree
	max      int
	count    int
	dropped  int
	session  Symbol
	phase    *Symbol // current phase, nil before the first
	turn     *Symbol // current user turn, nil before the first in this phase
	lastLine grammar.Line
	// subagentEnds maps a subagent id to its [done]/[error] lines, in order.
	subagentEnds map[string][]grammar.Line
}

func (b *refOutlineBuilder) build() []Symbol {
	t := b.t
	first := t.Line(0)
	b.session = Symbol{Name: "session", Kind: SessionSymbol, Span: grammar.Span{Start: 0, End: t.Len()}, Line: 0,
		Selection: grammar.Span{Start: first.Start, End: first.TrimEnd}}
	h := t.Header()
	if id, ok := h.Get("id"); ok {
		b.session.Name = id
		if f := h.Field("id"); f != nil {
			b.session.Selection = f.ValueSpan
			b.session.Line = f.Line
		}
	}
	var details []string
	for _, k := range []string{"agent", "model", "branch"} {
		if v, ok := h.Get(k); ok && v != "" {
			details = append(details, v)
		}
	}
	b.session.Detail = strings.Join(details, " · ")

	b.subagentEnds = map[string][]grammar.Line{}
	for i := range t.ChunkCount() {
		_, first, start := t.ChunkAt(i)
		for _, e := range summaryOf(t, i).subagentEnds {
			b.subagentEnds[e.id] = append(b.subagentEnds[e.id], grammar.Line{Num: first + e.line, TrimEnd: start + e.end})
		}
	}
	// Every line is read, past the cap too: a dropped user line or phase
	// still closes the turn or phase before it.
	for l := range t.Body() {
		b.line(l)
	}
	b.closeTurn(b.lastLine)
	b.closePhase(b.lastLine)
	if b.dropped > 0 {
		last := t.Line(t.LineCount() - 1)
		b.session.Children = append(b.session.Children, Symbol{
			Name: fmt.Sprintf("… %d more not shown", b.dropped), Detail: "raise rlog.outline.maxItems to see them",
			Kind: MoreSymbol, Span: grammar.Span{Start: last.Start, End: last.End}, Selection: grammar.Span{Start: last.Start, End: last.Start}, Line: last.Num,
		})
	}
	return []Symbol{b.session}
}

// take counts an entry and reports whether it fits under the cap.
func (b *refOutlineBuilder) take() bool {
	if b.count >= b.max {
		b.dropped++
		return false
	}
	b.count++
	return true
}

func (b *refOutlineBuilder) add(s Symbol) {
	switch {
	case b.turn != nil:
		b.turn.Children = append(b.turn.Children, s)
	case b.phase != nil:
		b.phase.Children = append(b.phase.Children, s)
	default:
		b.session.Children = append(b.session.Children, s)
	}
}

// extend makes s cover everything up to line last, and its children (a
// subagent can finish after the next user turn).
func (b *refOutlineBuilder) extend(s *Symbol, last grammar.Line) {
	s.Span.End = max(s.Span.End, last.TrimEnd)
	for _, c := range s.Children {
		s.Span.End = max(s.Span.End, c.Span.End)
	}
}

func (b *refOutlineBuilder) closeTurn(last grammar.Line) {
	if b.turn == nil {
		return
	}
	b.extend(b.turn, last)
	turn := *b.turn
	b.turn = nil
	b.add(turn)
}

func (b *refOutlineBuilder) closePhase(last grammar.Line) {
	if b.phase == nil {
		return
	}
	b.extend(b.phase, last)
	b.session.Children = append(b.session.Children, *b.phase)
	b.phase = nil
}

// toolCall names a call by its tool and target: "Read src/lib.rs".
func (b *refOutlineBuilder) toolCall(l grammar.Line) Symbol {
	t := b.t
	text := t.Text(l)
	s := Symbol{Name: string(t.Slice(l.Name.Start, l.Name.End)), Detail: "tool call", Kind: ToolCallSymbol, Span: refLineSpan(l), Selection: l.Name, Line: l.Num}
	if l.Kind == grammar.Mcp {
		s.Detail = "MCP call"
	}
	if target := refCallTargetAt(text, l.Name.End-l.Start, l.TrimEnd-l.Start); target != "" {
		s.Name += " " + target
	}
	if l.ID.Valid() {
		s.Detail += " " + string(t.Slice(l.ID.Start, l.ID.End))
	}
	return s
}

// callTargetAt looks for the target after the tool name (at nameEnd).
func refCallTargetAt(text []byte, nameEnd, end int) string {
	for _, k := range targetKeys {
		if v, ok := grammar.ValueOf(text[:end], k, nameEnd); ok {
			return refSummarize(unquote(text[v.Start:v.End]), 50)
		}
	}
	// Positional arguments ("t:read src/auth.rs → [ok]"), or the first
	// argument that is not bookkeeping.
	rest := text[nameEnd:end]
	if a := bytes.Index(rest, []byte("→")); a >= 0 {
		rest = rest[:a]
	}
	for _, f := range bytes.Fields(rest) {
		k, v, isPair := bytes.Cut(f, []byte("="))
		if !isPair {
			return refSummarize(f, 50)
		}
		if !isBookkeepingKey(string(k)) && len(v) > 0 {
			return refSummarize(unquote(v), 50)
		}
	}
	return ""
}

func (b *refOutlineBuilder) subagent(l grammar.Line) Symbol {
	t := b.t
	text := t.Text(l)
	name := string(t.Slice(l.Name.Start, l.Name.End))
	s := Symbol{Name: name, Detail: "subagent", Kind: SubagentSymbol, Span: refLineSpan(l), Selection: l.Name, Line: l.Num}
	for _, k := range []string{"summary", "desc"} {
		if v, ok := grammar.ValueOf(text[:l.TrimEnd-l.Start], k, l.Name.End-l.Start); ok {
			s.Name += " " + refSummarize(unquote(text[v.Start:v.End]), 50)
			break
		}
	}
	// The subagent's range runs to its [done] line, so its work folds with it.
	if l.ID.Valid() {
		ends := b.subagentEnds[string(t.Slice(l.ID.Start, l.ID.End))]
		i := sort.Search(len(ends), func(i int) bool { return ends[i].Num > l.Num })
		if i < len(ends) {
			s.Span.End = ends[i].TrimEnd
		}
	}
	return s
}

// summarize shortens text to n characters at a word boundary, with runs of
// whitespace made one space and invalid bytes shown as U+FFFD.
func refSummarize(b []byte, n int) string {
	var out strings.Builder
	out.Grow(min(len(b), n*4))
	runes, lastSpace := 0, -1
	pendingSpace := false
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		i += size
		if unicode.IsSpace(r) {
			pendingSpace = out.Len() > 0
			continue
		}
		if pendingSpace {
			if runes == n-1 {
				break
			}
			lastSpace = out.Len()
			out.WriteByte(' ')
			runes++
			pendingSpace = false
		}
		if runes == n-1 {
			// One more character would not fit with the ellipsis: cut at the
			// last word boundary if it keeps at least half.
			s := out.String()
			if lastSpace > len(s)/2 {
				s = s[:lastSpace]
			}
			return s + "…"
		}
		out.WriteRune(r)
		runes++
	}
	return out.String()
}

// line adds what one body line contributes to the outline. A turn or
// phase it closes ends at the non-empty line before it.
func (b *refOutlineBuilder) line(l grammar.Line) {
	t := b.t
	prev := b.lastLine
	if l.Kind != grammar.Empty {
		b.lastLine = l
	}
	switch l.Kind {
	case grammar.Phase:
		b.closeTurn(prev)
		b.closePhase(prev)
		if b.take() {
			name := string(t.Slice(l.Name.Start, l.Name.End))
			b.phase = &Symbol{Name: name, Detail: "phase", Kind: PhaseSymbol, Span: refLineSpan(l), Selection: l.Name, Line: l.Num}
		}
	case grammar.User:
		b.closeTurn(prev)
		if b.take() {
			b.turn = &Symbol{Name: refSummarize(t.Slice(l.Content, l.TrimEnd), 60), Detail: "user", Kind: TurnSymbol,
				Span: refLineSpan(l), Selection: grammar.Span{Start: l.Start, End: l.TrimEnd}, Line: l.Num}
		}
	case grammar.ToolStart, grammar.Tool, grammar.Mcp:
		if b.take() {
			b.add(b.toolCall(l))
		}
	case grammar.Subagent:
		if isSubagentEnd(t.Slice(l.Content, l.TrimEnd)) {
			return // the [started] line names the subagent
		}
		if b.take() {
			b.add(b.subagent(l))
		}
	case grammar.Question:
		if b.take() {
			b.add(Symbol{Name: refSummarize(t.Slice(l.Content, l.TrimEnd), 60), Detail: "question", Kind: QuestionSymbol,
				Span: refLineSpan(l), Selection: grammar.Span{Start: l.Start, End: l.TrimEnd}, Line: l.Num})
		}
	}
}

func refLineSpan(l grammar.Line) grammar.Span { return grammar.Span{Start: l.Start, End: l.TrimEnd} }
