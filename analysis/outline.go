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
// At most maxItems entries are built; a last entry says how many were left
// out. The entries shown are exactly those, with exactly the ranges, of
// reading every line and keeping the first maxItems.
func Outline(t *grammar.Tree, maxItems int) []Symbol {
	if maxItems <= 0 {
		maxItems = DefaultOutlineItems
	}
	b := outlineBuilder{t: t, max: maxItems}
	return b.build()
}

type outlineBuilder struct {
	t       *grammar.Tree
	max     int
	count   int
	session Symbol
	phase   *Symbol // current phase, nil before the first
	turn    *Symbol // current user turn, nil before the first in this phase
	// prevTrimEnd is where the last non-empty body line before the chunk
	// being read ends, 0 if none.
	prevTrimEnd int
	ends        subagentEnds
}

// A turn runs from its user line to the last non-empty line before the
// next user line or phase, and a phase to the last one before the next
// phase (or the document's last non-empty line): as the folds end a phase,
// so that siblings never share a line. That is true whether the next line
// that opens a section is read or, past the cap, only found in the chunk
// summaries, so a capped outline does not depend on where chunks end.
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

	b.ends = subagentEnds{t: t, byID: map[string][]lineEnd{}}
	totals := outlineTotalsOf(t)
	// Where the reading stopped: the last entry taken, as chunk i's k-th.
	var (
		lastChunk = -1
		rest      []outlineEntry // chunk lastChunk's entries after the last taken
		restFirst int            // chunk lastChunk's first line
	)
	for i := 0; i < t.ChunkCount() && b.count < b.max; i++ {
		_, firstLine, start := t.ChunkAt(i)
		entries := chunkOutline(t, i, b.count < memoizedOutlineEntries)
		for k, e := range entries {
			b.entry(e, firstLine, start)
			lastChunk, rest, restFirst = i, entries[k+1:], firstLine
			if b.count >= b.max {
				break
			}
		}
		if s := summaryOf(t, i); s.lastNonEmpty >= 0 {
			b.prevTrimEnd = t.Line(firstLine + s.lastNonEmpty).TrimEnd
		}
	}
	// Close what is open where its successor starts. Past the cap the
	// successor is found, not read: the first user line or phase after the
	// last entry taken, in the rest of its chunk or in the summaries.
	if b.turn != nil {
		b.closeTurn(b.endBefore(b.successor(totals, lastChunk, rest, restFirst, true)))
	}
	if b.phase != nil {
		b.closePhase(b.endBefore(b.successor(totals, lastChunk, rest, restFirst, false)))
	}
	if dropped := totals.itemsFrom[0] - b.count; dropped > 0 {
		last := t.Line(t.LineCount() - 1)
		b.session.Children = append(b.session.Children, Symbol{
			Name: fmt.Sprintf("… %d more not shown", dropped), Detail: "raise rlog.outline.maxItems to see them",
			Kind: MoreSymbol, Span: grammar.Span{Start: last.Start, End: last.End}, Selection: grammar.Span{Start: last.Start, End: last.Start}, Line: last.Num,
		})
	}
	return []Symbol{b.session}
}

// successor is the first line after the last entry taken that ends the
// open turn (a user line or a phase; turns) or the open phase (a phase),
// or -1 if there is none.
func (b *outlineBuilder) successor(totals *outlineTotals, chunk int, rest []outlineEntry, restFirst int, turns bool) int {
	for _, e := range rest {
		if e.kind == grammar.Phase || turns && e.kind == grammar.User {
			return restFirst + e.Line
		}
	}
	n := totals.nextPhase[chunk+1]
	if u := totals.nextUser[chunk+1]; turns && u >= 0 && (n < 0 || u < n) {
		n = u
	}
	return n
}

// endBefore is where a section whose successor starts on line n ends: the
// last non-empty line before n, or the document's when n < 0.
func (b *outlineBuilder) endBefore(n int) int {
	if n < 0 {
		return outlineTotalsOf(b.t).lastTrimEnd
	}
	if l := lastNonEmptyBefore(b.t, n); l >= 0 {
		return b.t.Line(l).TrimEnd
	}
	return 0
}

// entry adds what one outline line contributes; e is relative to the
// chunk whose first line and byte are firstLine and start.
func (b *outlineBuilder) entry(e outlineEntry, firstLine, start int) {
	s := e.Symbol
	s.Span, s.Selection, s.Line = moveSpan(s.Span, start), moveSpan(s.Selection, start), s.Line+firstLine
	// A turn or phase this line closes ends at the non-empty line before it.
	end := b.prevTrimEnd
	if e.before >= 0 {
		end = start + e.before
	}
	switch e.kind {
	case grammar.Phase:
		b.closeTurn(end)
		b.closePhase(end)
		if b.take() {
			b.phase = &s
		}
	case grammar.User:
		b.closeTurn(end)
		if b.take() {
			b.turn = &s
		}
	case grammar.Subagent:
		if b.take() {
			// The subagent's range runs to its [done] line, so its work
			// folds with it.
			if e.id != "" {
				if end, ok := b.ends.after(e.id, s.Line); ok {
					s.Span.End = end
				}
			}
			b.add(s)
		}
	default:
		if b.take() {
			b.add(s)
		}
	}
}

// outlineEntry is the entry one line makes, as the line alone makes it:
// Span and Selection relative to its chunk's first byte, Line to its
// chunk's first line, and a subagent's span still only its line.
type outlineEntry struct {
	Symbol
	kind grammar.Kind // the line's: phases and user turns open levels
	id   string       // a subagent's id, to find the line that ends it
	// before is where the last non-empty body line before this one in the
	// chunk ends (relative to the chunk), -1 if none: what this line closes
	// ends there.
	before int
}

type outlineKey struct{ notBody int }

// memoizedOutlineEntries bounds the entries memoized on chunks: those of
// the default cap, with room. Past it an outline reads the lines each
// time, so a raised cap does not make an open document hold its whole
// outline (about 50 MB for a 100 MB log).
const memoizedOutlineEntries = 2 * DefaultOutlineItems

// chunkOutline returns the entries chunk i's lines make, memoized on the
// chunk if memoize (under notBody, as summaryOf does): an outline reads
// only these, not the lines, from its second request on, and after an
// edit only the chunks the edit made new are read again.
func chunkOutline(t *grammar.Tree, i int, memoize bool) []outlineEntry {
	c, _, _ := t.ChunkAt(i)
	if memoize {
		return c.Memo(outlineKey{notBody(t, i)}, func() any {
			// The summary counts the entries: the memo is allocated once.
			return outlineEntriesOf(t, i, summaryOf(t, i).outlineItems)
		}).([]outlineEntry)
	}
	return outlineEntriesOf(t, i, 0)
}

func outlineEntriesOf(t *grammar.Tree, i, entries int) []outlineEntry {
	_, firstLine, start := t.ChunkAt(i)
	out := make([]outlineEntry, 0, entries)
	before := -1
	for l := range t.ChunkLines(i) {
		if !l.Kind.IsBody() || l.Kind == grammar.Empty {
			continue
		}
		e := outlineEntry{kind: l.Kind, before: before}
		before = l.TrimEnd - start
		switch l.Kind {
		case grammar.Phase:
			e.Symbol = Symbol{Name: string(t.Slice(l.Name.Start, l.Name.End)), Detail: "phase", Kind: PhaseSymbol, Span: lineSpan(l), Selection: l.Name, Line: l.Num}
		case grammar.User:
			e.Symbol = Symbol{Name: summarize(t.Slice(l.Content, l.TrimEnd), 60), Detail: "user", Kind: TurnSymbol,
				Span: lineSpan(l), Selection: grammar.Span{Start: l.Start, End: l.TrimEnd}, Line: l.Num}
		case grammar.ToolStart, grammar.Tool, grammar.Mcp:
			e.Symbol = toolCall(t, l)
		case grammar.Subagent:
			if isSubagentEnd(t.Slice(l.Content, l.TrimEnd)) {
				continue // the [started] line names the subagent
			}
			e.Symbol = subagent(t, l)
			if l.ID.Valid() {
				e.id = string(t.Slice(l.ID.Start, l.ID.End))
			}
		case grammar.Question:
			e.Symbol = Symbol{Name: summarize(t.Slice(l.Content, l.TrimEnd), 60), Detail: "question", Kind: QuestionSymbol,
				Span: lineSpan(l), Selection: grammar.Span{Start: l.Start, End: l.TrimEnd}, Line: l.Num}
		default:
			continue
		}
		e.Span, e.Selection, e.Line = moveSpan(e.Span, -start), moveSpan(e.Selection, -start), e.Line-firstLine
		out = append(out, e)
	}
	return out
}

// moveSpan moves s by d bytes, empty or not (unlike Span.Shift), so that
// moving it back restores it exactly.
func moveSpan(s grammar.Span, d int) grammar.Span {
	return grammar.Span{Start: s.Start + d, End: s.End + d}
}

// outlineTotals is what an outline needs from the whole document, from
// the chunk summaries, once per tree.
type outlineTotals struct {
	itemsFrom []int // itemsFrom[i]: the entries chunks i and after make
	// nextUser[i] and nextPhase[i]: the first user line and phase line in
	// chunks i and after, -1 if none (where a turn or phase open past the
	// cap ends).
	nextUser, nextPhase []int
	lastTrimEnd         int // where the last non-empty body line ends, 0 if none
}

type outlineTotalsKey struct{}

func outlineTotalsOf(t *grammar.Tree) *outlineTotals {
	return t.Memo(outlineTotalsKey{}, func() any {
		n := t.ChunkCount()
		o := &outlineTotals{itemsFrom: make([]int, n+1), nextUser: make([]int, n+1), nextPhase: make([]int, n+1)}
		o.nextUser[n], o.nextPhase[n] = -1, -1
		lastNonEmpty := -1
		for i := n - 1; i >= 0; i-- {
			s := summaryOf(t, i)
			_, first, _ := t.ChunkAt(i)
			o.itemsFrom[i] = o.itemsFrom[i+1] + s.outlineItems
			o.nextUser[i], o.nextPhase[i] = o.nextUser[i+1], o.nextPhase[i+1]
			if s.firstUser >= 0 {
				o.nextUser[i] = first + s.firstUser
			}
			if len(s.phaseLines) > 0 {
				o.nextPhase[i] = first + s.phaseLines[0]
			}
			if lastNonEmpty < 0 && s.lastNonEmpty >= 0 {
				lastNonEmpty = first + s.lastNonEmpty
			}
		}
		if lastNonEmpty >= 0 {
			o.lastTrimEnd = t.Line(lastNonEmpty).TrimEnd
		}
		return o
	}).(*outlineTotals)
}

// subagentEnds finds the lines that end subagents ([done], [error]),
// reading the chunk summaries in order and only as far as the subagents
// asked about need: a capped outline of a huge document reads its start.
type subagentEnds struct {
	t    *grammar.Tree
	next int                  // the next chunk to read
	byID map[string][]lineEnd // the ends read so far, in order
}

type lineEnd struct{ line, trimEnd int }

// after returns where the first end of subagent id after line ends.
func (s *subagentEnds) after(id string, line int) (trimEnd int, ok bool) {
	for {
		if ends := s.byID[id]; len(ends) > 0 && ends[len(ends)-1].line > line {
			i := sort.Search(len(ends), func(i int) bool { return ends[i].line > line })
			return ends[i].trimEnd, true
		}
		if s.next >= s.t.ChunkCount() {
			return 0, false
		}
		_, first, start := s.t.ChunkAt(s.next)
		for _, e := range summaryOf(s.t, s.next).subagentEnds {
			s.byID[e.id] = append(s.byID[e.id], lineEnd{line: first + e.line, trimEnd: start + e.end})
		}
		s.next++
	}
}

// take counts an entry and reports whether it fits under the cap.
func (b *outlineBuilder) take() bool {
	if b.count >= b.max {
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

// extend makes s reach end, and its children (a subagent can finish after
// the next user turn).
func extend(s *Symbol, end int) {
	s.Span.End = max(s.Span.End, end)
	for _, c := range s.Children {
		s.Span.End = max(s.Span.End, c.Span.End)
	}
}

// closeTurn ends the open turn, if any, at end.
func (b *outlineBuilder) closeTurn(end int) {
	if b.turn == nil {
		return
	}
	extend(b.turn, end)
	turn := *b.turn
	b.turn = nil
	b.add(turn)
}

// closePhase ends the open phase, if any, at end.
func (b *outlineBuilder) closePhase(end int) {
	if b.phase == nil {
		return
	}
	extend(b.phase, end)
	b.session.Children = append(b.session.Children, *b.phase)
	b.phase = nil
}

// toolCall names a call by its tool and target: "Read src/lib.rs".
func toolCall(t *grammar.Tree, l grammar.Line) Symbol {
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

// TargetKeys are the arguments that best name what a call is about, best
// first: an outline entry's target, and what compare aligns calls by.
var TargetKeys = []string{"file_path", "path", "cmd", "command", "pattern", "url", "query", "desc", "description"}

// callTarget is the most telling argument of a call: a path, a command, a
// pattern, a description, else the first other argument or word.
func callTarget(text []byte, li *grammar.LineInfo) string {
	return callTargetAt(text, li.Name.End, li.Trim.End)
}

// targetPatterns are TargetKeys with their '=': a key not in the line
// needs no ValueOf (which would build the pattern and search for it).
var targetPatterns = func() [][]byte {
	pats := make([][]byte, len(TargetKeys))
	for i, k := range TargetKeys {
		pats[i] = []byte(k + "=")
	}
	return pats
}()

// callTargetAt looks for the target after the tool name (at nameEnd).
func callTargetAt(text []byte, nameEnd, end int) string {
	for i, k := range TargetKeys {
		if 0 <= nameEnd && nameEnd <= end && !bytes.Contains(text[nameEnd:end], targetPatterns[i]) {
			continue
		}
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

// subagent names a subagent by its type and summary; its span is its line
// (the outline extends it to the line that ends it).
func subagent(t *grammar.Tree, l grammar.Line) Symbol {
	text := t.Text(l)
	name := string(t.Slice(l.Name.Start, l.Name.End))
	s := Symbol{Name: name, Detail: "subagent", Kind: SubagentSymbol, Span: lineSpan(l), Selection: l.Name, Line: l.Num}
	for _, k := range []string{"summary", "desc"} {
		if v, ok := grammar.ValueOf(text[:l.TrimEnd-l.Start], k, l.Name.End-l.Start); ok {
			s.Name += " " + summarize(unquote(text[v.Start:v.End]), 50)
			break
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
	// cut is the text so far, shortened because one more character would
	// not fit with the ellipsis: at the last word boundary if that keeps at
	// least half.
	cut := func() string {
		s := out.String()
		if lastSpace > len(s)/2 {
			s = s[:lastSpace]
		}
		return s + "…"
	}
	for i := 0; i < len(b); {
		r, size := rune(b[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(b[i:])
		}
		if r < utf8.RuneSelf && asciiSpace[r] || r >= utf8.RuneSelf && unicode.IsSpace(r) {
			pendingSpace = out.Len() > 0
			i += size
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
			return cut()
		}
		if r >= utf8.RuneSelf {
			out.WriteRune(r)
			runes++
			i += size
			continue
		}
		// A run of ASCII other than whitespace goes in at once, as far as
		// it fits.
		end := i + 1
		for end < len(b) && b[end] < utf8.RuneSelf && !asciiSpace[b[end]] {
			end++
		}
		if room := n - 1 - runes; room >= 0 && end-i > room {
			out.Write(b[i : i+room])
			return cut()
		}
		out.Write(b[i:end])
		runes += end - i
		i = end
	}
	return out.String()
}

// asciiSpace marks the ASCII characters unicode.IsSpace reports.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}
