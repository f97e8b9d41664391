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
	tree  *grammar.Tree
	pages []*statePage // parallel to the tree's pages
	// headerStates are the states of the leading chunks that hold header
	// lines, which an edit anywhere can invalidate.
	headerStates []*chunkState
	ids          map[string]*idFacts
	gen          uint32 // bumped by every Update; marks the facts it touched
	view         analyzerView
}

// statePage is the analyzer's view of one page of the tree. A page an edit
// did not touch keeps its statePage; only where it starts is updated.
type statePage struct {
	page    *grammar.Page
	first   int // the index of its first chunk in the current tree
	states  []*chunkState
	tallies []chunkTally // parallel to states
	total   pageTally
}

// chunkState is one chunk of the current tree as the analyzer sees it.
// Where the chunk is in the document is read from the tree by its ordinal
// (its page's first chunk plus its place in the page): an edit moves every
// chunk after it without visiting their states.
type chunkState struct {
	chunk    *grammar.Chunk
	sum      *chunkSummary // nil until summarised
	page     *statePage
	local    int  // its index in page
	header   bool // the chunk held header lines when it was summarised
	gone     bool // no longer in the tree
	dirty    bool
	resolved []Finding
	tally    chunkTally
}

// ord is the chunk's position among the tree's chunks.
func (cs *chunkState) ord() int { return cs.page.first + cs.local }

// place returns the chunk's first line and first byte in the current tree.
func (a *Analyzer) place(cs *chunkState) (firstLine, start int) {
	_, firstLine, start = a.tree.ChunkAt(cs.ord())
	return firstLine, start
}

// chunkTally is what FindingsUpTo reads of a chunk. The tallies of a page
// are kept in one array, and summed per page, so that a capped list counts
// what it leaves out, and skips the chunks without findings, without
// visiting their states.
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

// pageTally sums a page's tallies.
type pageTally struct {
	findings            int // its chunks' findings and the step decreases between them
	firstStep, lastStep uint64
	hasStep             bool
	start               int // the first chunk with an @start line, -1
	hasEnd              bool
	quiet               bool
}

func (sp *statePage) sumTallies() {
	pt := pageTally{start: -1}
	for i, ct := range sp.tallies {
		if ct.flags&tallyQuiet != 0 {
			continue
		}
		pt.findings += int(ct.findings)
		if ct.flags&tallyStep != 0 {
			if !pt.hasStep {
				pt.firstStep = ct.firstStep
			} else if ct.firstStep < pt.lastStep {
				pt.findings++
			}
			pt.lastStep, pt.hasStep = ct.lastStep, true
		}
		if ct.flags&tallyStart != 0 && pt.start < 0 {
			pt.start = i
		}
		pt.hasEnd = pt.hasEnd || ct.flags&tallyEnd != 0
	}
	pt.quiet = pt.findings == 0 && !pt.hasStep && pt.start < 0 && !pt.hasEnd
	sp.total = pt
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
	a.view.a = a
	a.Update(t)
	return a
}

// Tree is the tree the findings are for.
func (a *Analyzer) Tree() *grammar.Tree { return a.tree }

// Update brings the analysis to tree t, usually an edit of the previous one.
// The steps: line the analyzer's pages and chunk states up with t, keeping
// those of the pages and chunks t shares with the previous tree; summarize
// the new chunks; derive again the facts of the ids the dropped and new
// chunks mention; resolve again the chunks whose ids' facts changed; sum
// the tallies of the pages that changed.
func (a *Analyzer) Update(t *grammar.Tree) {
	a.gen++
	d := t.DiffFrom(a.tree)
	pages, dropped, added := a.realign(t, d)
	dropped, added = a.renewHeaderStates(t, pages, dropped, added)
	touched := a.forget(dropped)
	a.tree, a.pages = t, pages
	summarizeAll(t, added)
	dirty := a.learn(added, &touched)
	dirty = a.rederive(touched, dirty)
	a.resolveDirty(dirty, pages[d.NewPages[0]:d.NewPages[1]])
}

// realign makes the analyzer's pages for t from d: the pages t shares with
// the previous tree keep their statePages, the others get new ones in
// which the chunks t shares keep their states. It returns the new pages,
// the states of the chunks t no longer has (marked gone) and the states
// made for its new chunks.
func (a *Analyzer) realign(t *grammar.Tree, d grammar.Diff) (pages []*statePage, dropped, added []*chunkState) {
	pages, dropped, added = realignPages(t, d, a.pages,
		func(sp *statePage) []*chunkState { return sp.states },
		func(sp *statePage) int { return sp.first },
		func(c *grammar.Chunk) *chunkState { return &chunkState{chunk: c} },
		func(pg *grammar.Page, states []*chunkState) *statePage {
			sp := &statePage{page: pg, states: states, tallies: make([]chunkTally, len(states))}
			for i, cs := range states {
				cs.page, cs.local = sp, i
				sp.tallies[i] = cs.tally
			}
			return sp
		})
	for p, sp := range pages {
		_, sp.first = t.PageAt(p)
	}
	for _, cs := range dropped {
		cs.gone = true
	}
	return pages, dropped, added
}

// renewHeaderStates gives new states to the chunks that hold header lines,
// and records them. A chunk holding header lines is summarised knowing where
// the body starts, which edits anywhere can move: such a summary is never
// reused, and neither is any other once its chunk holds header lines. Those
// chunks lead the document.
func (a *Analyzer) renewHeaderStates(t *grammar.Tree, pages []*statePage, dropped, added []*chunkState) ([]*chunkState, []*chunkState) {
	renew := func(cs *chunkState) {
		cs.gone = true
		dropped = append(dropped, cs)
		again := &chunkState{chunk: cs.chunk, page: cs.page, local: cs.local}
		cs.page.states[cs.local] = again
		added = append(added, again)
	}
	for _, cs := range a.headerStates {
		if !cs.gone {
			renew(cs)
		}
	}
	a.headerStates = a.headerStates[:0]
	bodyStart := t.Region().BodyStart
	for ci := range t.ChunkCount() {
		if _, first, _ := t.ChunkAt(ci); first >= bodyStart {
			break
		}
		sp := pages[0]
		for p := 1; p < len(pages) && pages[p].first <= ci; p++ {
			sp = pages[p]
		}
		cs := sp.states[ci-sp.first]
		if cs.sum != nil {
			renew(cs)
			cs = sp.states[ci-sp.first]
		}
		cs.header = true
		a.headerStates = append(a.headerStates, cs)
	}
	return dropped, added
}

// touchedID is an id whose document-wide facts an Update derives again.
type touchedID struct {
	id    string
	facts *idFacts
}

// touch adds id to the ids this Update derives again, once.
func (a *Analyzer) touch(touched []touchedID, id string, f *idFacts) []touchedID {
	if f.touched != a.gen {
		f.touched = a.gen
		touched = append(touched, touchedID{id, f})
	}
	return touched
}

// forget removes the dropped chunks from the facts of the ids they
// mention, and returns those ids.
func (a *Analyzer) forget(dropped []*chunkState) []touchedID {
	var touched []touchedID
	for _, cs := range dropped {
		if cs.sum == nil {
			continue // made and renewed in this Update
		}
		for _, id := range cs.sum.idOrder {
			f := a.ids[id]
			f.remove(cs)
			touched = a.touch(touched, id, f)
		}
	}
	return touched
}

// learn adds the new chunks, summarised, to the facts of the ids they
// mention, adds those ids to touched, and returns the new chunks as the
// first ones to resolve.
func (a *Analyzer) learn(added []*chunkState, touched *[]touchedID) []*chunkState {
	dirty := make([]*chunkState, 0, len(added))
	// The first Update learns every id of the document: the map, the list
	// of touched ids and the facts are made once at their size (the ids of
	// the chunks, counting an id once per chunk it appears in), not grown
	// id by id. Later Updates learn a few chunks' ids.
	var slab []idFacts
	if len(a.ids) == 0 && len(added) > 1 {
		n := 0
		for _, cs := range added {
			n += len(cs.sum.idOrder)
		}
		a.ids = make(map[string]*idFacts, n)
		*touched = slices.Grow(*touched, n)
		slab = make([]idFacts, n)
	}
	for _, cs := range added {
		cs.dirty = true
		dirty = append(dirty, cs)
		for _, id := range cs.sum.idOrder {
			f := a.ids[id]
			if f == nil {
				if len(slab) > 0 {
					f, slab = &slab[0], slab[1:]
				} else {
					f = &idFacts{}
				}
				a.ids[id] = f
			}
			f.add(cs)
			*touched = a.touch(*touched, id, f)
		}
	}
	return dirty
}

// rederive derives the facts of the touched ids again; where they changed,
// every chunk mentioning the id is added to dirty. Ids no chunk mentions
// any more are forgotten.
func (a *Analyzer) rederive(touched []touchedID, dirty []*chunkState) []*chunkState {
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
				if !cs.dirty {
					cs.dirty = true
					dirty = append(dirty, cs)
				}
			}
		}
	}
	return dirty
}

// resolveDirty resolves the dirty chunks again, updates their tallies, and
// sums the tallies of their pages and of the new pages.
func (a *Analyzer) resolveDirty(dirty []*chunkState, newPages []*statePage) {
	stale := slices.Clone(newPages)
	for _, cs := range dirty {
		a.resolve(cs)
		cs.dirty = false
		cs.tally = tallyOf(cs)
		cs.page.tallies[cs.local] = cs.tally
		if len(stale) == 0 || stale[len(stale)-1] != cs.page {
			stale = append(stale, cs.page)
		}
	}
	for _, sp := range stale {
		sp.sumTallies() // a page may be summed twice: cheaper than a set
	}
}

// summarizeAll computes the summaries of new chunks, on every core when
// there are many (opening a large document).
func summarizeAll(t *grammar.Tree, states []*chunkState) {
	workers := min(runtime.GOMAXPROCS(0), len(states)/4)
	if workers <= 1 {
		for _, cs := range states {
			cs.sum = summaryOf(t, cs.ord())
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
				cs.sum = summaryOf(t, cs.ord())
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
		if ci.reg >= 0 && (f.firstReg == nil || cs.ord() < f.firstReg.ord()) {
			f.firstReg = cs
		}
		if _, ok := ci.firstStart(); ok && (f.firstStart == nil || cs.ord() < f.firstStart.ord()) {
			f.firstStart = cs
		}
		f.completed = f.completed || ci.completed
	}
}

// resolve computes the findings of a chunk that depend on the rest of the
// document: unknown ids (W001, W002), unfinished calls (W007) and calls
// started twice (W010). Spans stay relative to the chunk.
func (a *Analyzer) resolve(cs *chunkState) {
	a.view.cs = cs
	cs.resolved = resolveChunk(cs.resolved[:0], cs.sum, &a.view)
}

// idView is what the rest of a document says about the ids of one chunk,
// as resolveChunk asks it: the Analyzer answers from the whole document,
// a StreamChecker from the chunks before (and W007 is then provisional).
type idView interface {
	// facts says whether id (ci in the chunk) is registered in an
	// earlier chunk, whether the chunk has its first t!: line, and whether
	// it is completed anywhere.
	facts(id string, ci *chunkID) (regBefore, firstStartHere, completed bool)
	// firstStart is the id's first t!: line, in an earlier chunk (its
	// span relative to that chunk).
	firstStart(id string) idMark
}

// analyzerView answers idView for one chunk of the Analyzer's document.
type analyzerView struct {
	a  *Analyzer
	cs *chunkState
}

func (v *analyzerView) facts(id string, _ *chunkID) (regBefore, firstStartHere, completed bool) {
	f := v.a.ids[id]
	return f.firstReg != nil && f.firstReg.ord() < v.cs.ord(), f.firstStart == v.cs, f.completed
}

func (v *analyzerView) firstStart(id string) idMark {
	m, _ := v.a.ids[id].firstStart.sum.id(id).firstStart()
	return m
}

// resolveChunk appends to out the findings of the chunk summarised by s
// that depend on the rest of the document, as v says it, in position
// order: unknown ids (W001, W002), unfinished calls (W007) and calls
// started twice (W010). Spans stay relative to the chunk.
func resolveChunk(out []Finding, s *chunkSummary, v idView) []Finding {
	for k, id := range s.idOrder {
		ci := &s.idList[k]
		regBefore, firstStartHere, completed := v.facts(id, ci)
		var first idMark
		var hasStart bool
		for _, m := range ci.marks {
			if m.kind == grammar.ToolStart {
				if !hasStart && firstStartHere {
					first, hasStart = m, true
					if !completed {
						out = append(out, finding(W007, int(m.line), m.span(), fmt.Sprintf("Tool start '%s' has no completion", id)))
					}
					continue
				}
				// A second start of the id: the first is in this chunk or before it.
				if !hasStart {
					first, hasStart = v.firstStart(id), true
				}
				fd := finding(W010, int(m.line), m.span(), "")
				fd.startedTwice = id
				fd.Related = []Related{{Span: first.span(), Line: int(first.line), Message: "first started here"}}
				out = append(out, fd)
				continue
			}
			if regBefore || ci.reg >= 0 && ci.reg < m.line {
				continue
			}
			code, what := W002, "Observation"
			if m.kind == grammar.ToolProgress {
				code, what = W001, "Tool progress"
			}
			out = append(out, finding(code, int(m.line), m.span(), fmt.Sprintf("%s references unknown call id: %s", what, id)))
		}
	}
	slices.SortStableFunc(out, byPosition)
	return out
}

func byPosition(a, b Finding) int { return a.Span.Start - b.Span.Start }

func finding(code Code, line int, span grammar.Span, msg string) Finding {
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
	return a.findings(cfg, limit, 0)
}

// FindingsFrom returns the findings on line from (0-based) and after, in
// report order. The chunks before it are not visited, so following a
// growing document costs in proportion to what it appended. The
// session-level I001 and I002 point at the header, so they are among them
// only when from is 0.
func (a *Analyzer) FindingsFrom(cfg Config, from int) []Finding {
	out, _ := a.findings(cfg, -1, max(from, 0))
	return out
}

// findings lists the findings in report order from line from, the first
// limit of them (all of them when limit is negative), and counts the rest.
// Its job is paging: which pages and chunks to read, which to count from
// their tallies and which to list; the rules across chunks are
// sequenceRules'.
func (a *Analyzer) findings(cfg Config, limit, from int) ([]Finding, int) {
	pg := pager{c: checker{t: a.tree, cfg: cfg}, limit: limit}
	if limit >= 0 {
		pg.c.out = make([]Finding, 0, min(limit, 4096)+16) // a chunk's findings may overshoot the cap
	}
	if from == 0 || from < a.tree.Region().BodyStart {
		pg.c.header()
	}
	var seq sequenceRules
	var startCS *chunkState // the chunk with the first @start line
	for p, sp := range a.pages {
		pt := &sp.total
		if pt.quiet {
			continue
		}
		// A page before the first line wanted is read from its sums, for
		// what later pages are compared with (the last step, @start and
		// @end); so is a page past the limit, counted from them: its
		// findings and step decreases, and one more if its first step is
		// below the last one before it.
		before := from > 0 && a.pageEnd(p) <= from
		if before || pg.countsOnly() {
			stepDown, _, firstStart := seq.next(pt.sequence())
			if firstStart {
				startCS = sp.states[pt.start]
			}
			if !before {
				pg.more += pt.findings + int(b2i(stepDown))
			}
			continue
		}
		for i := range sp.tallies {
			ct := &sp.tallies[i]
			if ct.flags&tallyQuiet != 0 {
				continue
			}
			cs := sp.states[i]
			stepDown, previous, firstStart := seq.next(ct.sequence())
			if firstStart {
				startCS = cs
			}
			if ct.findings == 0 && !stepDown {
				continue
			}
			if from > 0 {
				if first, _ := a.place(cs); first+cs.chunk.LineCount() <= from {
					continue
				}
			}
			a.chunkFindings(&pg, cs, ct, stepDown, previous)
		}
	}
	var startLine grammar.Line
	if startCS != nil {
		first, _ := a.place(startCS)
		startLine = a.tree.Line(first + startCS.sum.startLine)
	}
	seq.session(&pg.c, a.tree.BodyLineCount(), startLine)
	return pg.finish(from)
}

// chunkFindings lists a chunk's findings, or counts them past the limit;
// stepDown adds the W004 of its first step, below previous.
func (a *Analyzer) chunkFindings(pg *pager, cs *chunkState, ct *chunkTally, stepDown bool, previous uint64) {
	if pg.countsOnly() {
		pg.more += int(ct.findings) + int(b2i(stepDown))
		return
	}
	s := cs.sum
	var crossStep []Finding
	if stepDown {
		crossStep = append(crossStep, s.stepDownFrom(previous))
	}
	if pg.full() {
		pg.more += pg.c.count(s.local, cs.resolved, crossStep, s.stepViolations)
		return
	}
	firstLine, start := a.place(cs)
	pg.c.emitChunk(firstLine, start, a.firstStartAt, s.local, cs.resolved, crossStep, s.stepViolations)
}

// pager is a list of findings capped at limit (none when negative), and
// the count of those past it.
type pager struct {
	c     checker
	limit int
	more  int
}

// full says whether the list holds limit findings.
func (pg *pager) full() bool { return pg.limit >= 0 && len(pg.c.out) >= pg.limit }

// countsOnly says whether the rest is counted from the tallies: the list
// is full, and every code is enabled, so that every finding a tally
// counts is one.
func (pg *pager) countsOnly() bool { return pg.full() && len(pg.c.cfg.Disabled) == 0 }

// finish cuts the list to its limit, counting what it cuts, and leaves out
// the findings before line from (the first chunk listed may begin before
// it).
func (pg *pager) finish(from int) ([]Finding, int) {
	if pg.limit >= 0 && len(pg.c.out) > pg.limit {
		pg.more += len(pg.c.out) - pg.limit
		pg.c.out = pg.c.out[:pg.limit:pg.limit]
	}
	if from > 0 {
		pg.c.out = slices.DeleteFunc(pg.c.out, func(f Finding) bool { return f.Line < from })
	}
	return pg.c.out, pg.more
}

// pageEnd is the line after page p's last line.
func (a *Analyzer) pageEnd(p int) int {
	if p+1 < len(a.pages) {
		return a.pages[p+1].firstLine(a.tree)
	}
	return a.tree.LineCount()
}

// firstLine is the first line of the page in t.
func (sp *statePage) firstLine(t *grammar.Tree) int {
	_, line, _ := t.ChunkAt(sp.first)
	return line
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

// emitChunk merges the finding lists of a chunk whose first line and first
// byte are firstLine and start in position order, and makes their places
// absolute; firstStartAt places the chunk that holds a call id's first
// start (W010 names its line).
func (c *checker) emitChunk(firstLine, start int, firstStartAt func(id string) (firstLine, start int), lists ...[]Finding) {
	from := len(c.out)
	for _, list := range lists {
		for _, f := range list {
			if !c.cfg.enabled(f.Code) {
				continue
			}
			f.Severity = c.cfg.severity(f.Code, f.Severity)
			f.Span = f.Span.Shift(start)
			f.Line += firstLine
			if id := f.startedTwice; id != "" {
				first := f.Related[0]
				firstLine, start := firstStartAt(id)
				rel := Related{Span: first.Span.Shift(start), Line: first.Line + firstLine, Message: first.Message}
				f.Message = fmt.Sprintf("Call id '%s' was already started on line %d", id, rel.Line+1)
				f.Related = []Related{rel}
				f.startedTwice = ""
			}
			c.out = append(c.out, f)
		}
	}
	slices.SortStableFunc(c.out[from:], byPosition)
}

// firstStartAt places the chunk that holds id's first start.
func (a *Analyzer) firstStartAt(id string) (firstLine, start int) {
	return a.place(a.ids[id].firstStart)
}
