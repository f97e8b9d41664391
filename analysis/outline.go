package analysis

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode"
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
	for i := range t.ChunkCount() {
		_, first, start := t.ChunkAt(i)
		for _, e := range summaryOf(t, i).subagentEnds {
			b.subagentEnds[e.id] = append(b.subagentEnds[e.id], grammar.Line{Num: first + e.line, TrimEnd: start + e.end})
		}
	}
	for i := range t.ChunkCount() {
		s := summaryOf(t, i)
		if b.count >= b.max {
			// Past the cap only the count matters: the summary has it.
			b.dropped += s.outlineItems
			if s.lastNonEmpty >= 0 {
				_, first, _ := t.ChunkAt(i)
				b.lastLine = t.Line(first + s.lastNonEmpty)
			}
			continue
		}
		for l := range t.ChunkLines(i) {
			if l.Kind.IsBody() {
				b.line(l)
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
	s := Symbol{Name: string(t.Slice(l.Name.Start, l.Name.End)), Detail: "tool call", Kind: ToolCallSymbol, Span: lineSpan(l), Selection: l.Name, Line: l.Num}
	if l.Kind == grammar.Mcp {
		s.Detail = "MCP call"
	}
	if target := callTargetAt(text, l.Name.End-l.Start, l.TrimEnd-l.Start); target != "" {
		s.Name += " " + target
	}
	if l.ID.Valid() {
		s.Detail += " " + string(t.Slice(l.ID.Start, l.ID.End))
	}
	return s
}

// targetKeys are the arguments that best name what a call is about, best first.
var targetKeys = []string{"file_path", "path", "cmd", "command", "pattern", "url", "query", "desc", "description"}

// callTarget is the most telling argument of a call: a path, a command, a
// pattern, a description, else the first other argument or word.
func callTarget(text []byte, li *grammar.LineInfo) string {
	return callTargetAt(text, li.Name.End, li.Trim.End)
}

// callTargetAt looks for the target after the tool name (at nameEnd).
func callTargetAt(text []byte, nameEnd, end int) string {
	for _, k := range targetKeys {
		if v, ok := grammar.ValueOf(text[:end], k, nameEnd); ok {
			return summarize(unquote(text[v.Start:v.End]), 50)
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
			return summarize(f, 50)
		}
		if !isBookkeepingKey(string(k)) && len(v) > 0 {
			return summarize(unquote(v), 50)
		}
	}
	return ""
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
	for _, k := range []string{"summary", "desc"} {
		if v, ok := grammar.ValueOf(text[:l.TrimEnd-l.Start], k, l.Name.End-l.Start); ok {
			s.Name += " " + summarize(unquote(text[v.Start:v.End]), 50)
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

// summarize shortens text to n characters at a word boundary, with runs of
// whitespace made one space and invalid bytes shown as U+FFFD.
func summarize(b []byte, n int) string {
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

// line adds what one body line contributes to the outline.
func (b *outlineBuilder) line(l grammar.Line) {
	t := b.t
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
			return // the [started] line names the subagent
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
