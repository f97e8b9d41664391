package analysis

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// SymbolKind says what an outline entry is.
type SymbolKind uint8

const (
	SessionSymbol SymbolKind = iota + 1
	PhaseSymbol
	TurnSymbol
	ToolCallSymbol
	SubagentSymbol
	QuestionSymbol
	MoreSymbol // "N more not shown": the outline was capped
)

// Symbol is one outline entry. Span covers the lines it groups; Selection is
// the text that names it.
type Symbol struct {
	Name      string
	Detail    string
	Kind      SymbolKind
	Span      grammar.Span
	Selection grammar.Span
	Line      int
	Children  []Symbol
}

// DefaultOutlineItems is the default cap on outline entries: enough for a
// long session, small enough that editors stay responsive on a huge one.
const DefaultOutlineItems = 5000

// Outline builds the session's outline: the session, its phases, and in them
// the user turns with the tool calls, subagents and questions that follow.
// At most maxItems entries are built; a last entry says how many were left out.
func Outline(t *grammar.Tree, maxItems int) []Symbol {
	if maxItems <= 0 {
		maxItems = DefaultOutlineItems
	}
	b := outlineBuilder{t: t, max: maxItems}
	return b.build()
}

type outlineBuilder struct {
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

func (b *outlineBuilder) build() []Symbol {
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
	for l := range t.Body() {
		if l.Kind == grammar.Subagent && l.ID.Valid() && isSubagentEnd(t.Slice(l.Content, l.TrimEnd)) {
			id := string(t.Slice(l.ID.Start, l.ID.End))
			b.subagentEnds[id] = append(b.subagentEnds[id], l)
		}
	}
	for l := range t.Body() {
		if l.Kind != grammar.Empty {
			b.lastLine = l
		}
		switch l.Kind {
		case grammar.Phase:
			b.closeTurn()
			b.closePhase()
			if b.take() {
				name := string(t.Slice(l.Name.Start, l.Name.End))
				b.phase = &Symbol{Name: name, Detail: "phase", Kind: PhaseSymbol, Span: lineSpan(l), Selection: l.Name, Line: l.Num}
			}
		case grammar.User:
			b.closeTurn()
			if b.take() {
				b.turn = &Symbol{Name: summarize(t.Slice(l.Content, l.TrimEnd), 60), Detail: "user", Kind: TurnSymbol,
					Span: lineSpan(l), Selection: grammar.Span{Start: l.Start, End: l.TrimEnd}, Line: l.Num}
			}
		case grammar.ToolStart, grammar.Tool, grammar.Mcp:
			if b.take() {
				b.add(b.toolCall(l))
			}
		case grammar.Subagent:
			if isSubagentEnd(t.Slice(l.Content, l.TrimEnd)) {
				continue // the [started] line names the subagent
			}
			if b.take() {
				b.add(b.subagent(l))
			}
		case grammar.Question:
			if b.take() {
				b.add(Symbol{Name: summarize(t.Slice(l.Content, l.TrimEnd), 60), Detail: "question", Kind: QuestionSymbol,
					Span: lineSpan(l), Selection: grammar.Span{Start: l.Start, End: l.TrimEnd}, Line: l.Num})
			}
		}
	}
	b.closeTurn()
	b.closePhase()
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
func (b *outlineBuilder) take() bool {
	if b.count >= b.max {
		b.dropped++
		return false
	}
	b.count++
	return true
}

func (b *outlineBuilder) add(s Symbol) {
	switch {
	case b.turn != nil:
		b.turn.Children = append(b.turn.Children, s)
	case b.phase != nil:
		b.phase.Children = append(b.phase.Children, s)
	default:
		b.session.Children = append(b.session.Children, s)
	}
}

// extend makes s cover everything up to the last non-empty line seen, and
// its children (a subagent can finish after the next user turn).
func (b *outlineBuilder) extend(s *Symbol) {
	s.Span.End = max(s.Span.End, b.lastLine.TrimEnd)
	for _, c := range s.Children {
		s.Span.End = max(s.Span.End, c.Span.End)
	}
}

func (b *outlineBuilder) closeTurn() {
	if b.turn == nil {
		return
	}
	b.extend(b.turn)
	turn := *b.turn
	b.turn = nil
	b.add(turn)
}

func (b *outlineBuilder) closePhase() {
	if b.phase == nil {
		return
	}
	b.extend(b.phase)
	b.session.Children = append(b.session.Children, *b.phase)
	b.phase = nil
}

// toolCall names a call by its tool and target: "Read src/lib.rs".
func (b *outlineBuilder) toolCall(l grammar.Line) Symbol {
	t := b.t
	text := t.Text(l)
	li := grammar.ScanLine(text)
	name := string(text[li.Name.Start:li.Name.End])
	target := callTarget(text, &li)
	s := Symbol{Name: name, Detail: "tool call", Kind: ToolCallSymbol, Span: lineSpan(l), Selection: l.Name, Line: l.Num}
	if l.Kind == grammar.Mcp {
		s.Detail = "MCP call"
	}
	if target != "" {
		s.Name += " " + target
	}
	if l.ID.Valid() {
		s.Detail += " " + string(t.Slice(l.ID.Start, l.ID.End))
	}
	return s
}

// callTarget is the most telling argument of a call: a path, a command, a
// pattern, a description, or the first argument.
func callTarget(text []byte, li *grammar.LineInfo) string {
	pairs := grammar.Pairs(text, li)
	best := ""
	rank := 0
	for _, p := range pairs {
		if !p.Value.Valid() {
			continue
		}
		key := string(text[p.Key.Start:p.Key.End])
		r := map[string]int{"file_path": 5, "path": 5, "cmd": 5, "command": 5, "pattern": 4, "url": 4, "query": 4, "desc": 3, "description": 3}[key]
		if r == 0 && rank == 0 && !isBookkeepingKey(key) && best == "" {
			r = 1
		}
		if r > rank {
			best, rank = string(unquote(text[p.Value.Start:p.Value.End])), r
		}
	}
	if best == "" && li.Name.End < li.Trim.End {
		// Positional arguments: "t:read src/auth.rs → [ok]".
		rest := text[li.Name.End:li.Trim.End]
		if a := bytes.Index(rest, []byte("→")); a >= 0 {
			rest = rest[:a]
		}
		for _, f := range bytes.Fields(rest) {
			if !bytes.Contains(f, []byte("=")) {
				best = string(f)
				break
			}
		}
	}
	return summarize([]byte(best), 50)
}

func isBookkeepingKey(k string) bool {
	switch k {
	case "id", "id_full", "ts", "step", "tid", "span", "parent", "parent_full", "uuid", "session", "message_id",
		"stop", "model", "sig", "input", "latency_ms", "attempt", "level", "role":
		return true
	}
	return strings.HasPrefix(k, "tokens_")
}

func (b *outlineBuilder) subagent(l grammar.Line) Symbol {
	t := b.t
	text := t.Text(l)
	name := string(t.Slice(l.Name.Start, l.Name.End))
	s := Symbol{Name: name, Detail: "subagent", Kind: SubagentSymbol, Span: lineSpan(l), Selection: l.Name, Line: l.Num}
	li := grammar.ScanLine(text)
	for _, p := range grammar.Pairs(text, &li) {
		if k := string(text[p.Key.Start:p.Key.End]); (k == "summary" || k == "desc") && p.Value.Valid() {
			s.Name += " " + summarize(unquote(text[p.Value.Start:p.Value.End]), 50)
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

// isSubagentEnd reports whether an x: line's content ends a subagent.
func isSubagentEnd(content []byte) bool {
	return bytes.Contains(content, []byte("[done]")) || bytes.Contains(content, []byte("[error]"))
}

func lineSpan(l grammar.Line) grammar.Span { return grammar.Span{Start: l.Start, End: l.TrimEnd} }

// summarize shortens text to n characters at a word boundary.
func summarize(b []byte, n int) string {
	s := strings.Join(strings.Fields(string(bytes.ToValidUTF8(b, []byte("\uFFFD")))), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return cut + "…"
}
