package analysis

// The outline and the folds by their definitions, read line by line over
// the whole document with no memo, summary or cap to stop early: the
// reference that Outline and FoldsUpTo, which read chunk memos and stop
// early, must equal (outline_folding_test.go). A line's own entry is made
// by the functions Outline uses (toolCall, subagent, summarize, tested on
// their own); what is checked here is which entries there are, where they
// nest and where they end.

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// refFoldsUpTo is every fold, in start order (the longer first), cut to
// limit when it is not negative: the header; a line and the continuation
// lines after it (empty lines between them do not end the run); a run of
// two or more comment lines in a row; a phase, to the last non-empty line
// before the next phase or the end; the session, from the first @start to
// the @end after it (and again after that); a subagent, from its
// [started] line to the next line of its id that ends it.
func refFoldsUpTo(t *grammar.Tree, limit int) []Fold {
	var out []Fold
	fold := func(start, end int, kind FoldKind) {
		if end > start {
			out = append(out, Fold{StartLine: start, EndLine: end, Kind: kind})
		}
	}
	r := t.Region()
	if r.HeaderStart >= 0 {
		fold(r.HeaderStart, r.BodyStart-1, FoldHeader)
	}
	var body []grammar.Line // the non-empty body lines
	for l := range t.Body() {
		if l.Kind != grammar.Empty {
			body = append(body, l)
		}
	}
	phase, session := -1, -1
	open := map[string]int{} // subagents started, by id
	for i, l := range body {
		content := t.Slice(l.Content, l.TrimEnd)
		switch {
		case l.Kind == grammar.Continuation:
			continue
		case l.Kind == grammar.Comment && (i == 0 || body[i-1].Kind != grammar.Comment || body[i-1].Num != l.Num-1):
			end := i
			for end+1 < len(body) && body[end+1].Kind == grammar.Comment && body[end+1].Num == body[end].Num+1 {
				end++
			}
			fold(l.Num, body[end].Num, FoldComment)
		case l.Kind == grammar.Phase:
			if phase >= 0 {
				fold(phase, body[i-1].Num, FoldRegion)
			}
			phase = l.Num
		case l.Kind == grammar.Lifecycle && bytes.HasPrefix(content, []byte("start")) && session < 0:
			session = l.Num
		case l.Kind == grammar.Lifecycle && bytes.HasPrefix(content, []byte("end")) && session >= 0:
			fold(session, l.Num, FoldRegion)
			session = -1
		case l.Kind == grammar.Subagent && l.ID.Valid():
			id := string(t.Slice(l.ID.Start, l.ID.End))
			if start, ok := open[id]; ok && isSubagentEnd(content) {
				fold(start, l.Num, FoldRegion)
				delete(open, id)
			} else if !ok && bytes.Contains(content, []byte("[started]")) {
				open[id] = l.Num
			}
		}
		if l.Kind == grammar.Continuation {
			continue
		}
		end := i
		for end+1 < len(body) && body[end+1].Kind == grammar.Continuation {
			end++
		}
		fold(l.Num, body[end].Num, FoldRegion)
	}
	if phase >= 0 {
		fold(phase, body[len(body)-1].Num, FoldRegion)
	}
	slices.SortStableFunc(out, func(a, b Fold) int {
		if a.StartLine != b.StartLine {
			return a.StartLine - b.StartLine
		}
		return b.EndLine - a.EndLine
	})
	if limit >= 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// refOutline is the session's outline: its entries are the phases, the
// user turns, and the tool calls, subagents ([started], not the lines that
// end them) and questions, in line order, the first maxItems of them
// (DefaultOutlineItems when it is not positive), and an entry counting the
// rest. A phase holds what follows it up to the next phase, a turn what
// follows it up to the next turn or phase; each ends on the last non-empty
// line before the one that opens its successor (the document's last), or
// where its last child ends; a subagent ends on the next line of its id
// that ends it.
func refOutline(t *grammar.Tree, maxItems int) []Symbol {
	if maxItems <= 0 {
		maxItems = DefaultOutlineItems
	}
	first := t.Line(0)
	session := Symbol{Name: "session", Kind: SessionSymbol, Span: grammar.Span{Start: 0, End: t.Len()},
		Selection: grammar.Span{Start: first.Start, End: first.TrimEnd}}
	h := t.Header()
	if id, ok := h.Get("id"); ok {
		session.Name = id
		if f := h.Field("id"); f != nil {
			session.Selection, session.Line = f.ValueSpan, f.Line
		}
	}
	var details []string
	for _, k := range []string{"agent", "model", "branch"} {
		if v, ok := h.Get(k); ok && v != "" {
			details = append(details, v)
		}
	}
	session.Detail = strings.Join(details, " · ")

	var body []grammar.Line // the non-empty body lines
	for l := range t.Body() {
		if l.Kind != grammar.Empty {
			body = append(body, l)
		}
	}
	// endBefore is where a section opened on body[i] ends: on the last line
	// before the next line that opens is(kind), or the document's last.
	endBefore := func(i int, opens func(grammar.Kind) bool) int {
		for j := i + 1; j < len(body); j++ {
			if opens(body[j].Kind) {
				return body[j-1].TrimEnd
			}
		}
		return body[len(body)-1].TrimEnd
	}
	isPhase := func(k grammar.Kind) bool { return k == grammar.Phase }
	isTurnOrPhase := func(k grammar.Kind) bool { return k == grammar.Phase || k == grammar.User }

	var phase, turn *Symbol
	var phaseEnd, turnEnd int
	add := func(s Symbol) {
		switch {
		case turn != nil:
			turn.Children = append(turn.Children, s)
		case phase != nil:
			phase.Children = append(phase.Children, s)
		default:
			session.Children = append(session.Children, s)
		}
	}
	closeTurn := func() {
		if turn != nil {
			s := *turn
			turn = nil
			add(ended(s, turnEnd))
		}
	}
	closePhase := func() {
		if phase != nil {
			session.Children = append(session.Children, ended(*phase, phaseEnd))
			phase = nil
		}
	}
	count, total := 0, 0
	for i, l := range body {
		var s Symbol
		switch l.Kind {
		case grammar.Phase:
			s = Symbol{Name: string(t.Slice(l.Name.Start, l.Name.End)), Detail: "phase", Kind: PhaseSymbol, Span: lineSpan(l), Selection: l.Name, Line: l.Num}
		case grammar.User:
			s = Symbol{Name: refSummarize(t.Slice(l.Content, l.TrimEnd), 60), Detail: "user", Kind: TurnSymbol,
				Span: lineSpan(l), Selection: grammar.Span{Start: l.Start, End: l.TrimEnd}, Line: l.Num}
		case grammar.ToolStart, grammar.Tool, grammar.Mcp:
			s = toolCall(t, l)
		case grammar.Subagent:
			if isSubagentEnd(t.Slice(l.Content, l.TrimEnd)) {
				continue
			}
			s = subagent(t, l)
			for _, e := range body[i+1:] {
				if e.Kind == grammar.Subagent && l.ID.Valid() && e.ID.Valid() && isSubagentEnd(t.Slice(e.Content, e.TrimEnd)) &&
					bytes.Equal(t.Slice(e.ID.Start, e.ID.End), t.Slice(l.ID.Start, l.ID.End)) {
					s.Span.End = e.TrimEnd
					break
				}
			}
		case grammar.Question:
			s = Symbol{Name: refSummarize(t.Slice(l.Content, l.TrimEnd), 60), Detail: "question", Kind: QuestionSymbol,
				Span: lineSpan(l), Selection: grammar.Span{Start: l.Start, End: l.TrimEnd}, Line: l.Num}
		default:
			continue
		}
		total++
		if count == maxItems {
			continue
		}
		count++
		switch l.Kind {
		case grammar.Phase:
			closeTurn()
			closePhase()
			phase, phaseEnd = &s, endBefore(i, isPhase)
		case grammar.User:
			closeTurn()
			turn, turnEnd = &s, endBefore(i, isTurnOrPhase)
		default:
			add(s)
		}
	}
	closeTurn()
	closePhase()
	if dropped := total - count; dropped > 0 {
		last := t.Line(t.LineCount() - 1)
		session.Children = append(session.Children, Symbol{
			Name: fmt.Sprintf("… %d more not shown", dropped), Detail: "raise rlog.outline.maxItems to see them",
			Kind: MoreSymbol, Span: grammar.Span{Start: last.Start, End: last.End}, Selection: grammar.Span{Start: last.Start, End: last.Start}, Line: last.Num,
		})
	}
	return []Symbol{session}
}

// ended is s reaching end, and as far as its children reach.
func ended(s Symbol, end int) Symbol {
	s.Span.End = max(s.Span.End, end)
	for _, c := range s.Children {
		s.Span.End = max(s.Span.End, c.Span.End)
	}
	return s
}

// refSummarize is summarize, plainly: the words of text (invalid bytes
// U+FFFD) joined by one space; past n-1 characters, the first n-1, and
// where the n-th is not a space, cut at the last space if that keeps more
// than half, with an ellipsis.
func refSummarize(b []byte, n int) string {
	text := []rune(strings.Join(strings.FieldsFunc(string([]rune(string(b))), unicode.IsSpace), " "))
	if n <= 0 || len(text) < n {
		return string(text)
	}
	s := string(text[:n-1])
	if text[n-1] == ' ' {
		return s
	}
	if i := strings.LastIndexByte(s, ' '); i > len(s)/2 {
		s = s[:i]
	}
	return s + "…"
}
