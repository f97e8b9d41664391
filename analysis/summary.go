package analysis

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// chunkSummary is what the rules need from one chunk's lines alone. Line
// numbers are relative to the chunk and spans to its first byte, so the
// summary stays valid when edits elsewhere move the chunk. It is immutable
// and memoized on the chunk.
type chunkSummary struct {
	local   []Finding    // findings a line earns on its own (W003, W005, W006, W011-W013, H001, H002)
	ids     chunkIDTable // finds an id's index into idList and idOrder
	idList  []chunkID    // in order of first appearance
	idOrder []string     // the ids, in the same order, for deterministic output
	// Steps: the first step= in the chunk, the last, and the decreases
	// within the chunk (W004); the first is compared across chunks.
	firstStep, lastStep stepMark
	stepViolations      []Finding
	startLine           int  // first lifecycle line starting with "start", -1
	hasEnd              bool // a lifecycle line starting with "end"
	lines               int
	// For the outline: how many lines would be entries, and the lines that
	// end a subagent ([done] or [error]) by id.
	outlineItems int
	subagentEnds []subagentEnd
	lastNonEmpty int // last non-empty body line, -1
	firstUser    int // first user line, -1: the first line that can close a turn
	// For folding: phase lines and lifecycle lines starting with "end".
	phaseLines []int
	endLines   []int
	// For hover on ts=: the last line with a valid ts=, and the first
	// @start line with one, or -1.
	lastTS, startTS int
}

type subagentEnd struct {
	id   string
	line int
	end  int // TrimEnd, relative to the chunk
}

type stepMark struct {
	ok    bool
	value uint64
	line  int
	span  grammar.Span
}

// chunkID is everything one chunk says about one call id.
type chunkID struct {
	reg       int32    // first line that registers the id (t!:, t:, x:, c:, q:), -1
	completed bool     // an o: line, or a t: line with a result
	marks     []idMark // its t!: (starts) and o:/t~: (refs, which must name a registered id) lines, in order
}

type idMark struct {
	line       int32
	start, end int32 // span, relative to the chunk
	kind       grammar.Kind
}

func (m idMark) span() grammar.Span { return grammar.Span{Start: int(m.start), End: int(m.end)} }

// id returns what the chunk says about call id name, or nil.
func (s *chunkSummary) id(name string) *chunkID {
	if k, ok := s.ids.find(s.idOrder, name); ok {
		return &s.idList[k]
	}
	return nil
}

// firstStart returns the first t!: mark, if any.
func (ci *chunkID) firstStart() (idMark, bool) {
	for _, m := range ci.marks {
		if m.kind == grammar.ToolStart {
			return m, true
		}
	}
	return idMark{}, false
}

type summaryKey struct{ notBody int }

// summaryOf returns chunk i's summary, memoized on the chunk.
func summaryOf(t *grammar.Tree, i int) *chunkSummary {
	c, _, _ := t.ChunkAt(i)
	return c.Memo(summaryKey{notBody(t, i)}, func() any { return summarizeChunk(t, i) }).(*chunkSummary)
}

// notBody is how many of chunk i's first lines are not body lines (the
// preamble and the header). What is computed from a chunk's lines alone
// depends on that too, which an edit elsewhere can change (closing the
// header), so memos on a chunk are kept under it: the chunk that holds
// the header, often with the first long lines of the body, is not read
// again by every request.
func notBody(t *grammar.Tree, i int) int {
	c, first, _ := t.ChunkAt(i)
	return min(max(t.Region().BodyStart-first, 0), c.LineCount())
}

// lastNonEmptyBefore is the last non-empty body line before line n, or -1:
// where a phase or a turn ends when the next one starts on line n (the
// outline and the folds end sections there). It reads the lines of n's
// chunk before n and, before those, the summaries of the chunks, so it
// costs a chunk's line table at most, whatever lies between.
func lastNonEmptyBefore(t *grammar.Tree, n int) int {
	bodyStart := t.Region().BodyStart
	n = min(n, t.LineCount())
	if n <= bodyStart {
		return -1
	}
	ci := t.ChunkIndexOfLine(n - 1)
	last := -1
	for l := range t.ChunkLines(ci) {
		if l.Num >= n {
			break
		}
		if l.Num >= bodyStart && l.Kind != grammar.Empty {
			last = l.Num
		}
	}
	for i := ci - 1; last < 0 && i >= 0; i-- {
		if s := summaryOf(t, i); s.lastNonEmpty >= 0 {
			_, first, _ := t.ChunkAt(i)
			last = first + s.lastNonEmpty
		}
	}
	return last
}

// summarizeChunk reads chunk i of t line by line: what each body line
// counts for the outline and folding, its own findings, its call id, step
// and timestamp.
func summarizeChunk(t *grammar.Tree, i int) *chunkSummary {
	c, firstLine, base := t.ChunkAt(i)
	sc := summaryScratches.Get().(*summaryScratch)
	sz := &summarizer{
		s: &chunkSummary{idList: sc.idList[:0],
			startLine: -1, lines: c.LineCount(), lastNonEmpty: -1, firstUser: -1, lastTS: -1, startTS: -1},
		firstLine: firstLine,
		base:      base,
		ids:       sc.ids.reset(c.LineCount()),
		marks:     sc.marks[:0],
		secrets:   sc.secrets[:0],
	}
	if !c.HasCR() {
		// One scan for the credentials of every line (see AppendSecrets);
		// a chunk with a CR is scanned line by line, as Redact does.
		sz.secrets, sz.chunkSecrets = AppendSecrets(sz.secrets, c.Text()), true
	}
	// The lines before the body (a preamble, the header) are not read.
	var l grammar.Line
	for li := notBody(t, i); li < c.LineCount(); li++ {
		text := t.ChunkLineInto(c, firstLine, base, li, &l)
		sz.line(&l, text)
	}
	s := sz.s
	sc.ends = s.groupMarks(sz.marks, sc.ends)
	// The ids were gathered in the scratch's table and lists; the summary,
	// which lives as long as its chunk, gets them at their size.
	sc.ids, sc.idList, sc.marks, sc.secrets = sz.ids, s.idList, sz.marks, sz.secrets
	s.idList = slices.Clone(s.idList)
	s.idOrder, s.ids = sz.ids.names(), sz.ids.sized()
	sc.reset()
	summaryScratches.Put(sc)
	return s
}

// summaryScratch is what summarizing a chunk grows as it reads the lines,
// kept from one chunk to the next: the ids seen and their marks. Growing
// them for every chunk cost more than anything else summarizing allocates.
type summaryScratch struct {
	ids     idTableScratch
	ends    []int32 // groupMarks' counts
	idList  []chunkID
	marks   []pendingMark
	secrets []SecretMatch
}

var summaryScratches = sync.Pool{New: func() any { return new(summaryScratch) }}

// reset empties the scratch and drops what it refers to.
func (sc *summaryScratch) reset() {
	clear(sc.idList)
	clear(sc.secrets)
	sc.idList, sc.marks, sc.secrets = sc.idList[:0], sc.marks[:0], sc.secrets[:0]
}

// summarizer is a chunk's summary while its lines are read. Lines are
// numbered from the chunk's first line, spans from its first byte.
type summarizer struct {
	s               *chunkSummary
	firstLine, base int
	ids             idTableScratch // the ids seen, by their hashes
	marks           []pendingMark
	secrets         []SecretMatch // scratch for AppendSecrets
	// chunkSecrets: secrets holds the matches of the whole chunk (offsets
	// from its first byte), and the lines before nextSecret are done.
	chunkSecrets bool
	nextSecret   int
}

func (sz *summarizer) add(code Code, line int, span grammar.Span, msg string) {
	sz.s.local = append(sz.s.local, finding(code, line, span, msg))
}

// line reads one body line.
func (sz *summarizer) line(l *grammar.Line, text []byte) {
	line := l.Num - sz.firstLine
	if l.Kind != grammar.Empty {
		sz.s.lastNonEmpty = line
	}
	sz.outline(l, text, line)
	switch l.Kind {
	case grammar.Unknown:
		sz.add(W003, line, grammar.Span{Start: l.Content, End: l.TrimEnd}.Shift(-sz.base), "Unknown line format: "+cut(text, 50))
	case grammar.Lifecycle:
		sz.lifecycle(l, text, line)
	}
	if l.ID.Valid() {
		sz.marks = sz.s.addID(&sz.ids, sz.marks, valueOf(l, text, l.ID), line, l.ID.Shift(-sz.base), l)
	}
	if l.Step.Valid() {
		sz.step(l, text, line)
	}
	if l.TS.Valid() {
		sz.timestamp(l, text, line)
	}
	if l.Flags&textFindingFlags != 0 || !sz.chunkSecrets ||
		sz.nextSecret < len(sz.secrets) && sz.secrets[sz.nextSecret].Start < l.End-sz.base {
		sz.textFindings(l, text, line)
	}
}

// textFindingFlags are the flags of a line that textFindings reads further.
// A line with none of them, in a chunk whose credentials were found at once
// and none of them before the line's end, has no text finding: most lines
// are not looked at again.
const textFindingFlags = grammar.FlagBlob | grammar.FlagASCIIArrow | grammar.FlagInvalidUTF8 | grammar.FlagNUL | grammar.FlagLegacyRedact

// valueOf is the text of span sp (absolute) of line l.
func valueOf(l *grammar.Line, text []byte, sp grammar.Span) []byte {
	return text[sp.Start-l.Start : sp.End-l.Start]
}

// outline counts the lines that are outline entries, and notes the phase
// lines and the lines that end a subagent.
func (sz *summarizer) outline(l *grammar.Line, text []byte, line int) {
	s := sz.s
	switch l.Kind {
	case grammar.Phase:
		s.outlineItems++
		s.phaseLines = append(s.phaseLines, line)
	case grammar.User:
		s.outlineItems++
		if s.firstUser < 0 {
			s.firstUser = line
		}
	case grammar.ToolStart, grammar.Tool, grammar.Mcp, grammar.Question:
		s.outlineItems++
	case grammar.Subagent:
		if !isSubagentEnd(text[l.Content-l.Start : l.TrimEnd-l.Start]) {
			s.outlineItems++
		} else if l.ID.Valid() {
			s.subagentEnds = append(s.subagentEnds, subagentEnd{id: string(valueOf(l, text, l.ID)), line: line, end: l.TrimEnd - sz.base})
		}
	}
}

// lifecycle notes @start and @end lines (by prefix, as the reference
// does), and hints at an event rlog/1 does not have (H001).
func (sz *summarizer) lifecycle(l *grammar.Line, text []byte, line int) {
	s := sz.s
	content := text[l.Content-l.Start:]
	if bytes.HasPrefix(content, []byte("start")) && s.startLine < 0 {
		s.startLine = line
	}
	if bytes.HasPrefix(content, []byte("end")) {
		s.hasEnd = true
		s.endLines = append(s.endLines, line)
	}
	verb := verbSpan(text, *l)
	if v := string(valueOf(l, text, verb)); !isKnownVerb(v) {
		msg := fmt.Sprintf("Unknown lifecycle event `@%s`", v)
		if sug := closestVerb(v); sug != "" {
			msg += fmt.Sprintf(" (did you mean `@%s`?)", sug)
		}
		sz.add(H001, line, verb.Shift(-sz.base), msg)
	}
}

// step notes the chunk's first and last step= and the decreases within it
// (W004); the first is compared across chunks.
func (sz *summarizer) step(l *grammar.Line, text []byte, line int) {
	s := sz.s
	step, err := strconv.ParseUint(string(valueOf(l, text, l.Step)), 10, 32)
	if err != nil {
		return
	}
	m := stepMark{ok: true, value: step, line: line, span: l.Step.Shift(-sz.base)}
	if !s.firstStep.ok {
		s.firstStep = m
	} else if step < s.lastStep.value {
		s.stepViolations = append(s.stepViolations, finding(W004, line, m.span,
			fmt.Sprintf("Step %d is less than previous step %d", step, s.lastStep.value)))
	}
	s.lastStep = m
}

// timestamp reports a ts= that is not a timestamp (W005), and notes the
// last valid one and the first on an @start line, for hover.
func (sz *summarizer) timestamp(l *grammar.Line, text []byte, line int) {
	s := sz.s
	ts := valueOf(l, text, l.TS)
	if !ValidTimestamp(ts) {
		sz.add(W005, line, l.TS.Shift(-sz.base), "Invalid timestamp format: "+string(ts))
		return
	}
	s.lastTS = line
	if s.startTS < 0 && l.Kind == grammar.Lifecycle && bytes.HasPrefix(text[l.Content-l.Start:], []byte("start")) {
		s.startTS = line
	}
}

// textFindings are the findings about a line's bytes and markers: short
// blob digests (W006), an ASCII arrow (W011), invalid UTF-8 (W012), NUL
// (W013), credentials (S001) and legacy redaction markers (H002).
func (sz *summarizer) textFindings(l *grammar.Line, text []byte, line int) {
	shift := l.Start - sz.base // from the line's start to the chunk's
	if l.Flags&grammar.FlagBlob != 0 {
		for _, m := range grammar.BlobMarkers(text) {
			if m.SHA.Len() < 6 {
				sz.add(W006, line, m.SHA.Shift(shift), "Blob sha256 too short: "+string(text[m.SHA.Start:m.SHA.End]))
			}
		}
	}
	if l.Flags&grammar.FlagASCIIArrow != 0 {
		li := grammar.ScanLine(text)
		if a, ok := grammar.ASCIIArrow(text, &li); ok {
			sz.add(W011, line, a.Shift(shift), "`->` is not a result arrow: write `→` so the result is read")
		}
	}
	if l.Flags&grammar.FlagInvalidUTF8 != 0 {
		sz.add(W012, line, invalidUTF8Span(text).Shift(shift), "Line is not valid UTF-8 (the invalid bytes are shown as \uFFFD)")
	}
	if l.Flags&grammar.FlagNUL != 0 {
		at := bytes.IndexByte(text, 0) + shift
		sz.add(W013, line, grammar.Span{Start: at, End: at + 1}, "Line contains a NUL byte")
	}
	if sz.chunkSecrets {
		sz.chunkSecretFindings(l, line)
	} else {
		sz.secrets = AppendSecrets(sz.secrets[:0], text)
		for _, m := range sz.secrets {
			sz.add(S001, line, grammar.Span{Start: m.Start, End: m.End}.Shift(shift), m.Message())
		}
	}
	if l.Flags&grammar.FlagLegacyRedact != 0 {
		for _, m := range grammar.RedactionMarkers(text) {
			if m.Legacy {
				sz.add(H002, line, m.Span.Shift(shift), fmt.Sprintf("`%s` is counted as a redaction, but rlog/1 writes `[redacted:kind]`", text[m.Span.Start:m.Span.End]))
			}
		}
	}
}

// chunkSecretFindings reports the credentials of line l among the chunk's
// matches. The lines come in order, so the matches before l's start are
// those of lines not summarised (the header's, its delimiters).
func (sz *summarizer) chunkSecretFindings(l *grammar.Line, line int) {
	start, end := l.Start-sz.base, l.End-sz.base
	k := sz.nextSecret
	for k < len(sz.secrets) && sz.secrets[k].Start < start {
		k++
	}
	for ; k < len(sz.secrets) && sz.secrets[k].Start < end; k++ {
		m := sz.secrets[k]
		sz.add(S001, line, grammar.Span{Start: m.Start, End: m.End}, m.Message())
	}
	sz.nextSecret = k
}

// exact returns s in an array of its own length when appending left it
// with spare room.
func exact[S ~[]E, E any](s S) S {
	if cap(s) == len(s) {
		return s
	}
	return append(S(nil), s...)
}

// pendingMark is a mark while its chunk is summarised: the marks of all ids
// are collected in one list, then grouped by id into one array.
type pendingMark struct {
	id   int32
	mark idMark
}

// groupMarks gives each id its marks, in line order, as parts of one
// array; it counts them in scratch, which it returns grown.
func (s *chunkSummary) groupMarks(pending []pendingMark, scratch []int32) []int32 {
	n := len(s.idList)
	scratch = slices.Grow(scratch[:0], 2*n+1)[:2*n+1]
	ends, next := scratch[:n+1], scratch[n+1:]
	clear(ends)
	for _, p := range pending {
		ends[p.id+1]++
	}
	for k := range n {
		ends[k+1] += ends[k]
	}
	all := make([]idMark, len(pending))
	copy(next, ends[:n])
	for _, p := range pending {
		all[next[p.id]] = p.mark
		next[p.id]++
	}
	for k := range n {
		s.idList[k].marks = all[ends[k]:ends[k+1]:ends[k+1]]
	}
	return scratch
}

func (s *chunkSummary) addID(ids *idTableScratch, marks []pendingMark, id []byte, line int, span grammar.Span, l *grammar.Line) []pendingMark {
	k, added := ids.number(id)
	if added {
		s.idList = append(s.idList, chunkID{reg: -1})
	}
	ci := &s.idList[k]
	mark := idMark{line: int32(line), start: int32(span.Start), end: int32(span.End), kind: l.Kind}
	switch {
	case l.Kind == grammar.ToolProgress || l.Kind == grammar.ToolStart:
		marks = append(marks, pendingMark{k, mark})
	case l.Kind == grammar.Observation:
		marks = append(marks, pendingMark{k, mark})
		ci.completed = true
	case l.Kind == grammar.Tool && l.Result.Valid():
		ci.completed = true
	}
	if l.Kind.RegistersID() && ci.reg < 0 {
		ci.reg = int32(line)
	}
	return marks
}
