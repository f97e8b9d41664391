package analysis

import (
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// Analyzer keeps one document's findings current across edits. Update
// takes the document's newest tree; the chunks the edit did not touch keep
// their summaries and their resolved findings, and only the chunks that
// mention an id whose document-wide facts changed are resolved again. So an
// edit costs in proportion to what it touched, not to the document's size.
//
// An Analyzer is not safe for concurrent use: it belongs to whoever owns
// the document's diagnostics.
type Analyzer struct {
	tree         *grammar.Tree
	chunks       []*chunkState // parallel to the tree's chunks
	tallies      []chunkTally  // parallel to chunks
	headerChunks int           // the leading chunks that hold header lines
	ids          map[string]*idFacts
	gen          uint32 // bumped by every Update; marks the facts it touched
}

// chunkState is one chunk of the current tree as the analyzer sees it.
// Where the chunk is in the document is read from the tree by ord: an edit
// moves every chunk after it, and the states of those chunks are not
// touched unless the number of chunks changes.
type chunkState struct {
	chunk    *grammar.Chunk
	sum      *chunkSummary
	ord      int  // position among the current tree's chunks
	header   bool // the chunk held header lines when it was summarised
	resolved []Finding
	dirty    bool
}

// chunkTally is what FindingsUpTo reads of every chunk. The tallies are
// kept in one array, so that a capped list counts what it leaves out, and
// skips the chunks without findings, without visiting their states.
type chunkTally struct {
	firstStep, lastStep uint64 // the chunk's first and last step= (tallyStep)
	findings            int32  // its own and resolved findings and step decreases, all codes
	flags               uint8
}

const (
	tallyQuiet = 1 << iota // no findings, steps or lifecycle events
	tallyStep              // a valid step= somewhere
	tallyStart             // an @start line
	tallyEnd               // an @end line
)

func tallyOf(cs *chunkState) chunkTally {
	s := cs.sum
	ct := chunkTally{findings: int32(len(s.local) + len(cs.resolved) + len(s.stepViolations))}
	if s.firstStep.ok {
		ct.flags |= tallyStep
		ct.firstStep, ct.lastStep = s.firstStep.value, s.lastStep.value
	}
	if s.startLine >= 0 {
		ct.flags |= tallyStart
	}
	if s.hasEnd {
		ct.flags |= tallyEnd
	}
	if ct.findings == 0 && ct.flags == 0 {
		ct.flags = tallyQuiet
	}
	return ct
}

// place returns the chunk's first line and first byte in the current tree.
func (a *Analyzer) place(cs *chunkState) (firstLine, start int) {
	_, firstLine, start = a.tree.ChunkAt(cs.ord)
	return firstLine, start
}

// idFacts is what the whole document says about one call id: the chunks it
// appears in, and the facts the rules derive from them.
type idFacts struct {
	touched    uint32        // the last Update that had to derive these facts again
	completed  bool          // completed somewhere (order does not matter)
	one        *chunkState   // the chunk it appears in, when only one
	more       []*chunkState // every chunk it appears in, when several
	firstReg   *chunkState   // the first chunk that registers it
	firstStart *chunkState   // the first chunk with a t!: line for it
}

// chunks lists the chunks the id appears in.
func (f *idFacts) chunks() []*chunkState {
	if f.more != nil {
		return f.more
	}
	if f.one != nil {
		return []*chunkState{f.one}
	}
	return nil
}

func (f *idFacts) add(cs *chunkState) {
	switch {
	case f.more != nil:
		f.more = append(f.more, cs)
	case f.one == nil:
		f.one = cs
	default:
		f.more = []*chunkState{f.one, cs}
		f.one = nil
	}
}

func (f *idFacts) remove(cs *chunkState) {
	if f.one == cs {
		f.one = nil
		return
	}
	f.more = removeChunk(f.more, cs)
	if len(f.more) == 1 {
		f.one, f.more = f.more[0], nil
	} else if len(f.more) == 0 {
		f.more = nil
	}
}

func (f *idFacts) empty() bool { return f.one == nil && len(f.more) == 0 }

// NewAnalyzer analyses a whole tree.
func NewAnalyzer(t *grammar.Tree) *Analyzer {
	a := &Analyzer{ids: map[string]*idFacts{}}
	a.Update(t)
	return a
}

// Tree is the tree the findings are for.
func (a *Analyzer) Tree() *grammar.Tree { return a.tree }

// Update brings the analysis to tree t, usually an edit of the previous one.
func (a *Analyzer) Update(t *grammar.Tree) {
	a.gen++
	bodyStart := t.Region().BodyStart
	n, oldN := t.ChunkCount(), len(a.chunks)
	// An edit replaces a contiguous run of chunks: the states of the common
	// prefix and suffix are kept, everything between is new.
	prefix := 0
	for prefix < min(n, oldN) {
		if c, _, _ := t.ChunkAt(prefix); c != a.chunks[prefix].chunk {
			break
		}
		prefix++
	}
	suffix := 0
	for suffix < min(n, oldN)-prefix {
		if c, _, _ := t.ChunkAt(n - 1 - suffix); c != a.chunks[oldN-1-suffix].chunk {
			break
		}
		suffix++
	}
	chunks := make([]*chunkState, n)
	copy(chunks, a.chunks[:prefix])
	copy(chunks[n-suffix:], a.chunks[oldN-suffix:])
	tallies := make([]chunkTally, n)
	copy(tallies, a.tallies[:prefix])
	copy(tallies[n-suffix:], a.tallies[oldN-suffix:])
	dropped := slices.Clip(a.chunks[prefix : oldN-suffix])
	var added []*chunkState
	renew := func(i int) {
		c, first, _ := t.ChunkAt(i)
		cs := &chunkState{chunk: c, header: first < bodyStart, ord: i}
		chunks[i] = cs
		added = append(added, cs)
	}
	for i := prefix; i < n-suffix; i++ {
		renew(i)
	}
	if n != oldN {
		for i := n - suffix; i < n; i++ {
			chunks[i].ord = i
		}
	}
	// A chunk holding header lines is summarised knowing where the body
	// starts, which edits anywhere can move: such a summary is never
	// reused, and neither is any other once its chunk holds header lines.
	// Those chunks lead the document, before and after the edit.
	headerChunks := 0
	for headerChunks < n {
		if _, first, _ := t.ChunkAt(headerChunks); first >= bodyStart {
			break
		}
		headerChunks++
	}
	keptHeader := func(i int) bool { // chunks[i] was kept and held header lines
		return (i < prefix || i >= n-suffix) && chunks[i].header
	}
	for i := range min(n, max(headerChunks, a.headerChunks)) {
		if i < headerChunks && (i < prefix || i >= n-suffix) || keptHeader(i) {
			dropped = append(dropped, chunks[i])
			renew(i)
		}
	}
	// Old header chunks kept at the end: everything before the edit moved
	// there (an edit before the header).
	for i := max(n-suffix, headerChunks); i < n && oldN-(n-i) < a.headerChunks; i++ {
		if keptHeader(i) {
			dropped = append(dropped, chunks[i])
			renew(i)
		}
	}
	a.headerChunks = headerChunks
	// The ids mentioned by dropped or new chunks, each once.
	type touchedID struct {
		id    string
		facts *idFacts
	}
	var touched []touchedID
	touch := func(id string, f *idFacts) {
		if f.touched != a.gen {
			f.touched = a.gen
			touched = append(touched, touchedID{id, f})
		}
	}
	for _, cs := range dropped {
		for _, id := range cs.sum.idOrder {
			f := a.ids[id]
			f.remove(cs)
			touch(id, f)
		}
	}
	summarizeAll(t, added)
	var dirty []*chunkState
	markDirty := func(cs *chunkState) {
		if !cs.dirty {
			cs.dirty = true
			dirty = append(dirty, cs)
		}
	}
	for _, cs := range added {
		markDirty(cs)
		for _, id := range cs.sum.idOrder {
			f := a.ids[id]
			if f == nil {
				f = &idFacts{}
				a.ids[id] = f
			}
			f.add(cs)
			touch(id, f)
		}
	}
	a.tree, a.chunks, a.tallies = t, chunks, tallies
	for _, tid := range touched {
		id, f := tid.id, tid.facts
		if f.empty() {
			delete(a.ids, id)
			continue
		}
		before := *f
		f.derive(id)
		if before.firstReg != f.firstReg || before.firstStart != f.firstStart || before.completed != f.completed {
			for _, cs := range f.chunks() {
				markDirty(cs)
			}
		}
	}
	for _, cs := range dirty {
		a.resolve(cs)
		cs.dirty = false
		tallies[cs.ord] = tallyOf(cs)
	}
}

// summarizeAll computes the summaries of new chunks, on every core when
// there are many (opening a large document).
func summarizeAll(t *grammar.Tree, states []*chunkState) {
	workers := min(runtime.GOMAXPROCS(0), len(states)/4)
	if workers <= 1 {
		for _, cs := range states {
			cs.sum = summaryOf(t, cs.ord)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan *chunkState)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for cs := range next {
				cs.sum = summaryOf(t, cs.ord)
			}
		}()
	}
	for _, cs := range states {
		next <- cs
	}
	close(next)
	wg.Wait()
}

func removeChunk(in []*chunkState, cs *chunkState) []*chunkState {
	for i, c := range in {
		if c == cs {
			in[i] = in[len(in)-1]
			return in[:len(in)-1]
		}
	}
	return in
}

// derive recomputes the facts of id from the chunks it appears in.
func (f *idFacts) derive(id string) {
	f.firstReg, f.firstStart, f.completed = nil, nil, false
	for _, cs := range f.chunks() {
		ci := cs.sum.id(id)
		if ci.reg >= 0 && (f.firstReg == nil || cs.ord < f.firstReg.ord) {
			f.firstReg = cs
		}
		if _, ok := ci.firstStart(); ok && (f.firstStart == nil || cs.ord < f.firstStart.ord) {
			f.firstStart = cs
		}
		f.completed = f.completed || ci.completed
	}
}

// resolve computes the findings of a chunk that depend on the rest of the
// document: unknown ids (W001, W002), unfinished calls (W007) and calls
// started twice (W010). Spans stay relative to the chunk.
func (a *Analyzer) resolve(cs *chunkState) {
	cs.resolved = cs.resolved[:0]
	for _, id := range cs.sum.idOrder {
		ci := cs.sum.id(id)
		f := a.ids[id]
		regBefore := f.firstReg != nil && f.firstReg.ord < cs.ord
		var first idMark
		var hasStart bool
		for _, m := range ci.marks {
			if m.kind == grammar.ToolStart {
				if !hasStart && f.firstStart == cs {
					first, hasStart = m, true
					if !f.completed {
						cs.resolved = append(cs.resolved, finding("W007", int(m.line), m.span(), fmt.Sprintf("Tool start '%s' has no completion", id)))
					}
					continue
				}
				// A second start of the id: the first is in this chunk or before it.
				if !hasStart {
					first, _ = f.firstStart.sum.id(id).firstStart()
					hasStart = true
				}
				fd := finding("W010", int(m.line), m.span(), id) // rendered with the first start's line at output, which edits above it move
				fd.Related = []Related{{Span: first.span(), Line: int(first.line), Message: "first started here"}}
				cs.resolved = append(cs.resolved, fd)
				continue
			}
			if regBefore || ci.reg >= 0 && ci.reg < m.line {
				continue
			}
			code, what := "W002", "Observation"
			if m.kind == grammar.ToolProgress {
				code, what = "W001", "Tool progress"
			}
			cs.resolved = append(cs.resolved, finding(code, int(m.line), m.span(), fmt.Sprintf("%s references unknown call id: %s", what, id)))
		}
	}
	slices.SortStableFunc(cs.resolved, byPosition)
}

func byPosition(a, b Finding) int { return a.Span.Start - b.Span.Start }

func finding(code string, line int, span grammar.Span, msg string) Finding {
	r, _ := RuleFor(code)
	return Finding{Code: code, Severity: r.Severity, Span: span, Line: line, Message: msg}
}

// Findings returns the current findings in report order: header findings,
// line findings in file order, then the session-level I001 and I002.
func (a *Analyzer) Findings(cfg Config) []Finding {
	out, _ := a.FindingsUpTo(cfg, -1)
	return out
}

// FindingsUpTo returns the first limit findings in report order (all of
// them when limit is negative) and how many more there are. What a capped
// list leaves out is counted, not built: an editor that shows the first
// thousand findings of a noisy log pays for those.
func (a *Analyzer) FindingsUpTo(cfg Config, limit int) ([]Finding, int) {
	c := checker{t: a.tree, cfg: cfg}
	full := func() bool { return limit >= 0 && len(c.out) >= limit }
	more := 0
	c.header()
	var (
		lastStep uint64
		hasStep  bool
		startCS  *chunkState
		hasEnd   bool
	)
	for i := range a.tallies {
		ct := &a.tallies[i]
		if ct.flags&tallyQuiet != 0 {
			continue
		}
		// W004 across chunks: the chunk's first step against the last one before it.
		previous, stepDown := lastStep, false
		if ct.flags&tallyStep != 0 {
			stepDown = hasStep && ct.firstStep < lastStep
			lastStep, hasStep = ct.lastStep, true
		}
		if ct.flags&tallyStart != 0 && startCS == nil {
			startCS = a.chunks[i]
		}
		hasEnd = hasEnd || ct.flags&tallyEnd != 0
		if ct.findings == 0 && !stepDown {
			continue
		}
		if full() && len(cfg.Disabled) == 0 {
			more += int(ct.findings)
			if stepDown {
				more++
			}
			continue
		}
		cs := a.chunks[i]
		s := cs.sum
		var crossStep []Finding
		if stepDown {
			crossStep = append(crossStep, finding("W004", s.firstStep.line, s.firstStep.span,
				fmt.Sprintf("Step %d is less than previous step %d", s.firstStep.value, previous)))
		}
		if full() {
			more += c.count(s.local, cs.resolved, crossStep, s.stepViolations)
			continue
		}
		c.emitChunk(a, cs, s.local, cs.resolved, crossStep, s.stepViolations)
	}
	t := a.tree
	if t.BodyLineCount() > 50 && startCS == nil {
		c.add("I001", c.headerAnchor(), "Long session without @start lifecycle event")
	}
	if startCS != nil && !hasEnd {
		first, _ := a.place(startCS)
		sl := t.Line(first + startCS.sum.startLine)
		c.add("I002", c.headerAnchor(), "Session has @start but no @end",
			Related{Span: grammar.Span{Start: sl.Start, End: sl.TrimEnd}, Line: sl.Num, Message: "the session starts here"})
	}
	if limit >= 0 && len(c.out) > limit {
		more += len(c.out) - limit
		c.out = c.out[:limit:limit]
	}
	return c.out, more
}

// count is how many of the findings in lists are enabled.
func (c *checker) count(lists ...[]Finding) int {
	n := 0
	for _, list := range lists {
		if len(c.cfg.Disabled) == 0 {
			n += len(list)
			continue
		}
		for _, f := range list {
			if c.cfg.enabled(f.Code) {
				n++
			}
		}
	}
	return n
}

// emitChunk merges a chunk's finding lists in position order and makes
// their places absolute.
func (c *checker) emitChunk(a *Analyzer, cs *chunkState, lists ...[]Finding) {
	from := len(c.out)
	firstLine, start := a.place(cs)
	for _, list := range lists {
		for _, f := range list {
			if !c.cfg.enabled(f.Code) {
				continue
			}
			f.Span = f.Span.Shift(start)
			f.Line += firstLine
			if f.Code == "W010" {
				first := f.Related[0]
				firstLine, start := a.place(a.ids[f.Message].firstStart)
				rel := Related{Span: first.Span.Shift(start), Line: first.Line + firstLine, Message: first.Message}
				f.Message = fmt.Sprintf("Call id '%s' was already started on line %d", f.Message, rel.Line+1)
				f.Related = []Related{rel}
			}
			c.out = append(c.out, f)
		}
	}
	slices.SortStableFunc(c.out[from:], byPosition)
}
