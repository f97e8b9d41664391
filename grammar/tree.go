package grammar

import (
	"bytes"
	"encoding/binary"
	"iter"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Chunk limits. A chunk holds whole lines; an edit re-scans only the chunks it
// touches, so these bound the work per keystroke, and the number of chunks
// bounds the work of re-assembling the tree. Tests lower them to put chunk
// boundaries everywhere.
var (
	chunkMaxLines = 128
	chunkMaxBytes = 16 << 10
)

// storedLine is the compact form of LineInfo kept for every line (40
// bytes): off is relative to the chunk, the other offsets to the line
// start, in 16 bits. The few lines longer than 64 KB keep 32-bit offsets in
// their chunk's wide table instead.
type storedLine struct {
	off, len uint32
	flags    Flags
	lineSpans[uint16]
	kind           Kind
	termLen, loneC uint8 // terminator length (0, 1 or 2); lone CRs in the line (saturating)
}

// lineSpans are the offsets of a line's parts from its start: 16 bits in
// storedLine, 32 in a chunk's wide table for a line longer than 64 KB.
type lineSpans[T uint16 | uint32] struct {
	content, trimEnd   T
	arrow, result      T // start+1; 0 means absent
	name, id, step, ts [2]T
}

// wideSpans are a long line's offsets.
type wideSpans = lineSpans[uint32]

// setSpans writes the offsets of li's parts into sp, which is zero,
// straight in the width they are kept in (in place: a line's are
// written once).
func setSpans[T uint16 | uint32](sp *lineSpans[T], li *LineInfo) {
	id, step, ts := &li.Meta[KeyID], &li.Meta[KeyStep], &li.Meta[KeyTS]
	sp.content, sp.trimEnd = T(li.Content), T(li.Trim.End)
	sp.name = [2]T{T(li.Name.Start), T(li.Name.End)}
	sp.id = [2]T{T(id.Start), T(id.End)}
	sp.step = [2]T{T(step.Start), T(step.End)}
	sp.ts = [2]T{T(ts.Start), T(ts.End)}
	if li.Arrow.Valid() {
		sp.arrow = T(li.Arrow.Start + 1)
	}
	if li.Result.Valid() {
		sp.result = T(li.Result.Start + 1)
	}
}

const maxNarrowLine = 1<<16 - 1

// storedUsage is the compact form of Usage (28 bytes); a line whose counts
// do not fit in 32 bits keeps its Usage in the chunk's wide table.
type storedUsage struct {
	line                    uint32
	in, out, cached, create uint32
	msgOff                  uint32 // message_id value start in the chunk +1; 0 means none
	msgLen                  uint16
	has                     uint8
}

const (
	hasIn = 1 << iota
	hasOut
	hasCached
	hasCache
	hasWide
)

// Usage is the token usage written on one line.
type Usage struct {
	Line                               int
	In, Out, Cached, CacheCreate       uint64
	MessageID                          string // message_id= value, if any
	HasIn, HasOut, HasCached, HasCache bool
}

// Chunk is a run of whole lines that an edit re-scans as a unit. A chunk an
// edit did not touch is shared, unchanged, by the trees before and after
// it, so results computed from a chunk alone can be memoized on it.
type Chunk struct {
	text      []byte
	lines     []storedLine
	wide      map[int32]*wideSpans // lines longer than 64 KB, by index
	usage     []storedUsage
	wideUsage map[int32]Usage // usage that does not fit storedUsage, by line index
	delims    [2]int32        // the first two delimiter lines ("---"), -1 if none
	loneCR    int             // lone CRs in the chunk (extra editor lines)
	cr        bool            // a CR somewhere in the chunk, lone or before a line break

	memo memoTable
}

// Memo returns the value memoized under key on this chunk, computing it
// with compute the first time. compute must depend only on the chunk's own
// lines (never on its neighbours or its place in the tree).
func (c *Chunk) Memo(key any, compute func() any) any { return c.memo.get(key, compute) }

// Text is the chunk's bytes: whole lines with their terminators.
func (c *Chunk) Text() []byte { return c.text }

// LineCount is the number of lines in the chunk.
func (c *Chunk) LineCount() int { return len(c.lines) }

// HasCR reports a CR anywhere in the chunk's text: the scan searched the
// chunk for one, so its readers need not.
func (c *Chunk) HasCR() bool { return c.cr }

// ChunkCount is the number of chunks.
func (t *Tree) ChunkCount() int { return t.pageFirst[len(t.pages)] }

// ChunkAt returns chunk i with its first line and first byte in the tree.
func (t *Tree) ChunkAt(i int) (c *Chunk, firstLine, start int) {
	c, at := t.chunk(i)
	return c, at.lines, at.bytes
}

// ChunkLines iterates over the lines of chunk i, as Lines would.
func (t *Tree) ChunkLines(i int) iter.Seq2[Line, []byte] {
	return func(yield func(Line, []byte) bool) {
		c, at := t.chunk(i)
		base := at.bytes
		var l Line
		for li := range c.lines {
			t.lineInto(&l, c, at, li)
			if !yield(l, c.text[l.Start-base:l.End-base]) {
				return
			}
		}
	}
}

// Tree is an immutable parse of a whole document. Edits return a new Tree that
// shares every chunk the edit did not touch.
type Tree struct {
	pages     []*Page
	pageStart []pos // pageStart[p] is what pages[:p] hold; the last entry is the document's total
	pageFirst []int // pageFirst[p] is the index of page p's first chunk; the last entry is the chunk count
	region    Region
	header    *Header
	serial    uint64 // unique to this tree
	edit      edited // what Edit replaced to make this tree; base 0 if Parse made it
	// buf is the buffer a Stream read this window into, which
	// Stream.Recycle hands back; nil for the first window and for trees
	// Parse and Edit make.
	buf []byte

	memo memoTable
}

// Memo returns the value memoized under key on this tree, computing it with
// compute the first time. Trees are immutable, so anything derived from one
// can be kept with it; an edit makes a new tree with an empty memo.
func (t *Tree) Memo(key any, compute func() any) any { return t.memo.get(key, compute) }

// memoTable holds values derived from something immutable, computed once.
type memoTable struct {
	mu   sync.Mutex
	vals map[any]any
}

func (m *memoTable) get(key any, compute func() any) any {
	m.mu.Lock()
	v, ok := m.vals[key]
	m.mu.Unlock()
	if ok {
		return v
	}
	v = compute() // outside the lock: compute may take long, or memoize too
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.vals[key]; ok {
		return old // another goroutine got there first; keep one value
	}
	if m.vals == nil {
		m.vals = map[any]any{}
	}
	m.vals[key] = v
	return v
}

// Region says where the parts of a document are, as 0-based line numbers.
type Region struct {
	HeaderStart int // the opening "---", -1 if there is none
	HeaderEnd   int // the closing "---", -1 if there is none
	BodyStart   int // first body line
}

// Line is one line of a Tree with absolute byte offsets.
type Line struct {
	Num     int  // 0-based line number
	Start   int  // first byte of the line
	End     int  // end of the line's text, before its terminator
	Next    int  // first byte of the next line
	Kind    Kind // body kind, or Preamble/HeaderDelimiter/HeaderLine
	Flags   Flags
	Content int  // where the reference parser's content starts
	TrimEnd int  // end of the text without trailing whitespace
	Name    Span // see LineInfo.Name
	Arrow   Span // the first result arrow
	Result  Span // the result text
	ID      Span // the id= value (reference semantics: \bid=(\w+))
	Step    Span // the step= value
	TS      Span // the ts= value (the whole token)
}

// Parse parses a whole document. The Tree takes ownership of src, which the
// caller must not modify afterwards.
func Parse(src []byte) *Tree {
	t := &Tree{pages: paginate(buildChunks(src, true, true)), serial: treeSerial.Add(1)}
	t.index()
	t.region = t.findRegion()
	t.header = parseHeader(t)
	return t
}

// buildChunks splits text, which holds whole lines, into scanned chunks. If
// first is set, text starts the document (and may start with a BOM); if last
// is set, text ends the document and gets a final line even when empty.
func buildChunks(text []byte, first, last bool) []*Chunk {
	return buildChunksAt(text, chunkBounds(text, last), first, last)
}

// buildChunksAt is buildChunks of text whose chunks end at bounds (as
// chunkBounds(text, last) gives them): a Stream finds them as it reads.
func buildChunksAt(text []byte, bounds []int, first, last bool) []*Chunk {
	out := make([]*Chunk, len(bounds))
	scan := func(i int) {
		start := 0
		if i > 0 {
			start = bounds[i-1]
		}
		end := bounds[i]
		out[i] = scanChunk(text[start:end:end], first && i == 0, last && i == len(bounds)-1)
	}
	// Opening a large document scans its chunks on every core: they are
	// independent, and where they start depends only on the line breaks.
	workers := min(runtime.GOMAXPROCS(0), len(bounds)/parallelChunks)
	if workers <= 1 {
		for i := range bounds {
			scan(i)
		}
		return out
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(parallelChunks)) - parallelChunks
				if i >= len(bounds) {
					return
				}
				for j := i; j < min(i+parallelChunks, len(bounds)); j++ {
					scan(j)
				}
			}
		})
	}
	wg.Wait()
	return out
}

// parallelChunks is how many chunks a worker takes at a time: enough that
// handing out work costs nothing next to scanning it.
const parallelChunks = 16

// chunkBounds returns where each chunk of text ends: after at most
// chunkMaxLines lines or once it reaches chunkMaxBytes. A document's last
// chunk exists even when the text is empty (it holds the final line).
func chunkBounds(text []byte, last bool) []int {
	return appendChunkBounds(nil, text, last)
}

// appendChunkBounds is chunkBounds continued after the ends in bounds,
// those of text's first chunks, appended to them.
func appendChunkBounds(bounds []int, text []byte, last bool) []int {
	start := 0
	if n := len(bounds); n > 0 {
		start = bounds[n-1]
	}
	for start < len(text) || (last && len(bounds) == 0) {
		end := chunkEnd(text, start)
		bounds = append(bounds, end)
		if end == len(text) {
			break
		}
		start = end
	}
	return bounds
}

// chunkEnd returns where the chunk of text starting at start ends: after
// the line that reaches chunkMaxBytes, or after chunkMaxLines lines if that
// comes first. Lines average a hundred bytes or more, so the byte limit
// usually comes first: then the line breaks in the chunk's first
// chunkMaxBytes bytes are counted at once (bytes.Count is vectorised), all
// those lines are in the chunk, and so is the line that crosses the limit.
// Otherwise the lines are taken one by one. FuzzChunkBounds holds it equal
// to taking them one by one.
func chunkEnd(text []byte, start int) int {
	if w := start + chunkMaxBytes; w <= len(text) {
		window := text[start:w]
		if n := bytes.Count(window, []byte{'\n'}); n < chunkMaxLines {
			end := start + bytes.LastIndexByte(window, '\n') + 1 // start when n is 0
			if end == w {
				return end // the last line ends right at the limit
			}
			nl := bytes.IndexByte(text[end:], '\n')
			if nl < 0 {
				return len(text)
			}
			return end + nl + 1
		}
	}
	return chunkEndByLines(text, start)
}

// chunkEndByLines is chunkEnd taking the lines one by one.
func chunkEndByLines(text []byte, start int) int {
	end, n := start, 0
	for end < len(text) && n < chunkMaxLines && end-start < chunkMaxBytes {
		nl := bytes.IndexByte(text[end:], '\n')
		if nl < 0 {
			return len(text)
		}
		end += nl + 1
		n++
	}
	return end
}

// scanChunk scans the lines of text; the document's last chunk gets a final
// line after its last newline (possibly empty).
func scanChunk(text []byte, first, last bool) *Chunk {
	c := &Chunk{text: text, delims: [2]int32{-1, -1}}
	nlines := bytes.Count(text, []byte{'\n'})
	if last {
		nlines++
	}
	c.lines = make([]storedLine, 0, nlines)
	var li LineInfo // each line's scan, cleared only where it may leave a value (clearMeta)
	var found uint16
	lacks := lacksOf(text)
	c.cr = !lacks.cr
	next := searchesOf(text)
	scratch := usageScratch.Get().(*[]storedUsage)
	c.usage = (*scratch)[:0] // grown in the scratch, then copied at its size
	for off := 0; off < len(text) || (last && off == len(text) && len(c.lines) < nlines); {
		end := len(text)
		term := 0
		if nl := bytes.IndexByte(text[off:], '\n'); nl >= 0 {
			end = off + nl
			term = 1
			if end > off && text[end-1] == '\r' {
				end--
				term = 2
			}
		}
		lineText := text[off:end]
		clearMeta(&li, found)
		if first && off == 0 {
			found = scanDocLine(lineText, &li, lacks, next, off)
		} else {
			found = scanLine(lineText, &li, lacks, next, off)
		}
		// The line is stored in place, in the room made for every line.
		if len(c.lines) == cap(c.lines) {
			c.lines = slices.Grow(c.lines, 1) // a last line without its '\n' (nlines counts them)
		}
		c.lines = c.lines[:len(c.lines)+1]
		sl := &c.lines[len(c.lines)-1]
		sl.off, sl.len, sl.kind, sl.flags, sl.termLen = uint32(off), uint32(end-off), li.Kind, li.Flags, uint8(term)
		if term == 2 {
			sl.flags |= FlagCR
		}
		if end-off > maxNarrowLine {
			if c.wide == nil {
				c.wide = map[int32]*wideSpans{}
			}
			wide := new(wideSpans)
			setSpans(wide, &li)
			c.wide[int32(len(c.lines)-1)] = wide
		} else {
			setSpans(&sl.lineSpans, &li)
		}
		if li.Flags&FlagLoneCR != 0 {
			n := bytes.Count(lineText, []byte{'\r'})
			c.loneCR += n
			sl.loneC = uint8(min(n, 255))
		}
		if li.Flags&FlagDelimiter != 0 {
			if c.delims[0] < 0 {
				c.delims[0] = int32(len(c.lines) - 1)
			} else if c.delims[1] < 0 {
				c.delims[1] = int32(len(c.lines) - 1)
			}
		}
		if li.HasCounts() {
			c.storeLineUsage(len(c.lines)-1, off, lineText, &li)
		}
		off = end + term
		if term == 0 {
			break
		}
	}
	// A chunk lives long: its usage has no spare room, and the scratch
	// goes back for the next chunk.
	grown := c.usage
	c.usage = nil
	if len(grown) > 0 {
		c.usage = slices.Clone(grown)
	}
	*scratch = grown[:0]
	usageScratch.Put(scratch)
	return c
}

// usageScratch holds the slices scanChunk gathers a chunk's usage in
// (chunks are scanned on every core): a chunk's usage grows line by line,
// and growing it in a new slice each time allocated about seven times per
// chunk.
var usageScratch = sync.Pool{New: func() any { return new([]storedUsage) }}

var bom = []byte("\uFEFF")

// scanDocLine is scanLine for the document's first line, which may start
// with a byte order mark: that is not text, so what follows it is
// classified.
func scanDocLine(text []byte, li *LineInfo, lacks textLacks, next *searches, off int) uint16 {
	if !bytes.HasPrefix(text, bom) {
		return scanLine(text, li, lacks, next, off)
	}
	found := scanLine(text[len(bom):], li, lacks, next, off+len(bom))
	li.shift(len(bom))
	return found
}

func (li *LineInfo) shift(d int) {
	li.Trim = li.Trim.Shift(d)
	if li.Trim.Start == 0 {
		li.Trim = Span{d, d}
	}
	li.Content += d
	li.Name = li.Name.Shift(d)
	li.Arrow = li.Arrow.Shift(d)
	li.Result = li.Result.Shift(d)
	for k := range li.Meta {
		li.Meta[k] = li.Meta[k].Shift(d)
	}
}

// storeLineUsage stores the token counts of a chunk's line (at lineOff in
// the chunk, scanned into li), if it has any: what usageOf and storeUsage
// store, without the Usage between them. Every line comes through here, so
// a line without a tokens_*= returns at once; a count of up to eight
// digits (all but a few) is read into the stored 32 bits in place, a
// word at a time (narrowCount); a longer one, or a message id longer
// than storedUsage keeps, goes the general way, which keeps it wide
// when it does not fit. FuzzStoreLineUsage holds it equal to
// usageOf and storeUsage.
func (c *Chunk) storeLineUsage(line, lineOff int, lineText []byte, li *LineInfo) {
	m := &li.Meta
	// A value is never empty and starts after its '=', so a key's span
	// ends at 0 exactly when the line does not have it.
	in, out, cached, create := m[KeyTokensIn], m[KeyTokensOut], m[KeyTokensCached], m[KeyTokensCacheCreate]
	if in.End|out.End|cached.End|create.End == 0 {
		return
	}
	mid := m[KeyMessageID]
	if max(in.Len(), out.Len(), cached.Len(), create.Len()) > maxNarrowDigits || mid.Len() > 1<<16-1 {
		if u, ok := usageOf(lineText, li); ok {
			c.storeUsage(line, lineOff, lineText, u, li)
		}
		return
	}
	su := storedUsage{line: uint32(line)}
	if in.End != 0 {
		su.in, su.has = narrowCount(lineText, in), su.has|hasIn
	}
	if out.End != 0 {
		su.out, su.has = narrowCount(lineText, out), su.has|hasOut
	}
	if cached.End != 0 {
		su.cached, su.has = narrowCount(lineText, cached), su.has|hasCached
	}
	if create.End != 0 {
		su.create, su.has = narrowCount(lineText, create), su.has|hasCache
	}
	if mid.End != 0 {
		su.msgOff, su.msgLen = uint32(lineOff+mid.Start+1), uint16(mid.Len())
	}
	c.usage = append(c.usage, su)
}

// maxNarrowDigits is the longest count storeLineUsage reads in place:
// eight digits, one word's worth (narrowCount), are below 1e8, which fits
// 32 bits. A longer count goes the general way (storeUsage), which stores
// it the same when it fits.
const maxNarrowDigits = 8

// narrowCount is the count of 1 to maxNarrowDigits digits at sp,
// converted at once in the word that ends where they do: a count's
// value starts after its key and '=', so the eight bytes are in text.
// The bytes before the digits are masked out (they count as leading
// zeros), and each step joins neighbouring numbers of the step before:
// two digits into 0..99, two of those into 0..9999, two of those into
// the result. The loop that read a digit at a time took about five
// instructions a digit; this is small enough to be inlined.
// FuzzStoreLineUsage holds it to usageOf's loop (number), and
// TestNarrowCountEachLength at each length.
func narrowCount(text []byte, sp Span) uint32 {
	// The digits are the word's highest bytes (the last in text), the
	// first digit in the lowest of them.
	digits := ^uint64(0) << (64 - 8*uint(sp.End-sp.Start))
	x := binary.LittleEndian.Uint64(text[sp.End-8:])&digits - 0x3030303030303030&digits
	x = (x*10 + x>>8) & 0x00FF00FF00FF00FF
	x = (x*100 + x>>16) & 0x0000FFFF0000FFFF
	return uint32(x*10000 + x>>32)
}

func (c *Chunk) storeUsage(line, lineOff int, lineText []byte, u Usage, li *LineInfo) {
	su := storedUsage{line: uint32(line)}
	count := func(has bool, v uint64, bit uint8) uint32 {
		if has {
			su.has |= bit
		}
		if v > 1<<32-1 {
			su.has |= hasWide
		}
		return uint32(v)
	}
	su.in = count(u.HasIn, u.In, hasIn)
	su.out = count(u.HasOut, u.Out, hasOut)
	su.cached = count(u.HasCached, u.Cached, hasCached)
	su.create = count(u.HasCache, u.CacheCreate, hasCache)
	if m := li.Meta[KeyMessageID]; m.Valid() {
		if m.Len() > 1<<16-1 {
			su.has |= hasWide
		}
		su.msgOff, su.msgLen = uint32(lineOff+m.Start+1), uint16(m.Len())
	}
	if su.has&hasWide != 0 {
		if c.wideUsage == nil {
			c.wideUsage = map[int32]Usage{}
		}
		if v, ok := li.value(lineText, KeyMessageID); ok {
			u.MessageID = string(v)
		}
		u.Line = line
		c.wideUsage[int32(line)] = u
	}
	c.usage = append(c.usage, su)
}

// usageAt expands stored usage i of the chunk; Line is relative to it.
func (c *Chunk) usageAt(i int) Usage {
	su := &c.usage[i]
	if su.has&hasWide != 0 {
		return c.wideUsage[int32(su.line)]
	}
	u := Usage{Line: int(su.line), In: uint64(su.in), Out: uint64(su.out), Cached: uint64(su.cached), CacheCreate: uint64(su.create),
		HasIn: su.has&hasIn != 0, HasOut: su.has&hasOut != 0, HasCached: su.has&hasCached != 0, HasCache: su.has&hasCache != 0}
	if su.msgOff > 0 {
		u.MessageID = string(c.text[su.msgOff-1 : su.msgOff-1+uint32(su.msgLen)])
	}
	return u
}

// HasCounts reports whether the line, whose scan is li, has a value for
// any of the four token counts the rules read: without one, LineUsage's
// ok is false, and a reader that goes through every line (the rlog
// reader) asks it first, a few tests in place of LineUsage's call and its
// result. A value is never empty and starts after its '=', so a key's
// span ends at 0 exactly when the line does not have it (storeLineUsage's
// test). FuzzHasCounts holds it to LineUsage.
func (li *LineInfo) HasCounts() bool {
	m := &li.Meta
	return m[KeyTokensIn].End|m[KeyTokensOut].End|m[KeyTokensCached].End|m[KeyTokensCacheCreate].End != 0
}

// LineUsage is the token usage written on a line, whose scan is li, as
// the tree's Usage reports it (with its message_id=): the one reading of a
// line's usage, which the rlog reader of the conversions uses too.
func LineUsage(text []byte, li *LineInfo) (Usage, bool) {
	u, ok := usageOf(text, li)
	if v, has := li.value(text, KeyMessageID); ok && has {
		u.MessageID = string(v)
	}
	return u, ok
}

// usageOf reads a line's token counts; the message id stays in the text
// (storeUsage keeps its offset) unless the usage is stored wide.
func usageOf(text []byte, li *LineInfo) (Usage, bool) {
	var u Usage
	u.In, u.HasIn = li.number(text, KeyTokensIn)
	u.Out, u.HasOut = li.number(text, KeyTokensOut)
	u.Cached, u.HasCached = li.number(text, KeyTokensCached)
	u.CacheCreate, u.HasCache = li.number(text, KeyTokensCacheCreate)
	return u, u.HasIn || u.HasOut || u.HasCached || u.HasCache
}

// number reads a digits-only value as a uint64 (false if absent or too big).
func (li *LineInfo) number(text []byte, k Key) (uint64, bool) {
	v, ok := li.value(text, k)
	if !ok || len(v) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range v {
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

// findRegion locates the header: the first line whose trimmed text is "---"
// opens it and the next one closes it (reference parse_header). Without a
// closing line, the header runs until the first empty or recognisable body
// line, so that the body can still be analysed. Pages without a "---" line
// are skipped unless the lines after an unclosed header's start are read.
func (t *Tree) findRegion() Region {
	rs := newRegionScan()
	for _, pg := range t.pages {
		if rs.closed() {
			break
		}
		if !pg.delims && !rs.readsKinds() {
			rs.skip(pg.within[len(pg.chunks)].lines)
			continue
		}
		for _, c := range pg.chunks {
			rs.add(c)
		}
	}
	return rs.region(t.LineCount())
}

// regionScan finds the region of a document from its chunks, read in order
// (findRegion over a tree, Stream over a reader): the first two "---" lines,
// and, while only the first is known, the first line after it that is not
// Unknown, where the body starts if the header is never closed.
type regionScan struct {
	start, end int // the first two "---" lines, -1
	body       int // the first line after start whose kind is not Unknown, -1
	lines      int // lines read
}

func newRegionScan() regionScan { return regionScan{start: -1, end: -1, body: -1} }

// closed reports whether the header's closing line is known: the region no
// longer depends on the lines after it.
func (rs *regionScan) closed() bool { return rs.end >= 0 }

// readsKinds reports whether the kinds of the next lines matter (an
// unclosed header whose body start is not known yet).
func (rs *regionScan) readsKinds() bool { return rs.start >= 0 && rs.end < 0 && rs.body < 0 }

// skip passes over n lines without a "---" line, whose kinds do not matter.
func (rs *regionScan) skip(n int) { rs.lines += n }

// add reads the next chunk.
func (rs *regionScan) add(c *Chunk) {
	first := rs.lines
	rs.lines += len(c.lines)
	if rs.closed() {
		return
	}
	for _, d := range c.delims {
		switch {
		case d < 0:
		case rs.start < 0:
			rs.start = first + int(d)
		case rs.end < 0:
			rs.end = first + int(d)
		}
	}
	if rs.readsKinds() {
		// The scanner's kinds: a line counts as a header line until one is
		// empty or recognisable.
		for li := max(rs.start+1-first, 0); li < len(c.lines); li++ {
			if c.lines[li].kind != Unknown {
				rs.body = first + li
				break
			}
		}
	}
}

// region is the region of a document of lineCount lines, all of them read.
func (rs *regionScan) region(lineCount int) Region {
	r := Region{HeaderStart: rs.start, HeaderEnd: rs.end}
	switch {
	case rs.start < 0:
		r.BodyStart = 0
	case rs.end >= 0:
		r.BodyStart = rs.end + 1
	case rs.body >= 0:
		r.BodyStart = rs.body
	default:
		r.BodyStart = lineCount
	}
	return r
}

// Region returns where the preamble, header and body are.
func (t *Tree) Region() Region { return t.region }

// Header returns the parsed header; it is never nil.
func (t *Tree) Header() *Header { return t.header }

// Len is the document length in bytes.
func (t *Tree) Len() int { return t.total().bytes }

// LineCount is the number of lines; a final newline starts one more (empty) line.
func (t *Tree) LineCount() int { return t.total().lines }

// BodyLineCount counts body lines the way the reference does (Rust's
// str::lines, which yields no line after a final newline).
func (t *Tree) BodyLineCount() int {
	n := t.LineCount() - t.region.BodyStart
	if n > 0 && t.Len() > 0 {
		last := t.Line(t.LineCount() - 1)
		if last.Start == last.End && last.Start == t.Len() {
			n-- // the empty line after the final newline
		}
	} else if t.Len() == 0 {
		n = 0
	}
	return max(n, 0)
}

// chunkOfLine returns the chunk holding line n (the chunk count past the
// last line).
func (t *Tree) chunkOfLine(n int) int { return t.chunkWhere(n, byLines) }

// chunkOfByte returns the chunk holding byte offset off (the last chunk for
// the end of the document).
func (t *Tree) chunkOfByte(off int) int {
	return min(t.chunkWhere(off, byBytes), t.ChunkCount()-1)
}

// Line returns line n (clamped to the document).
func (t *Tree) Line(n int) Line {
	n = max(0, min(n, t.LineCount()-1))
	c, at := t.chunk(t.chunkOfLine(n))
	var l Line
	t.lineInto(&l, c, at, n-at.lines)
	return l
}

// ChunkLineInto fills *l with line li of chunk c, which ChunkAt returned
// with firstLine and start, and returns the line's text: what ChunkLines
// yields, into a Line of the caller's. The chunk summaries read every line
// of a document, and the Line (136 bytes) copied from the tree to the
// iterator and on to the loop cost them more than making it.
func (t *Tree) ChunkLineInto(c *Chunk, firstLine, start, li int, l *Line) []byte {
	t.lineInto(l, c, pos{bytes: start, lines: firstLine}, li)
	return c.text[l.Start-start : l.End-start]
}

// lineInto fills *l with line li of chunk c, which at precedes. It runs for
// every line a request or a summary reads: a line of 64 KB or less (all
// but a few) is read from its stored offsets as they are, without making
// them wide first; a longer one from its chunk's wide table. Each field
// of *l is written once, none cleared first: a Line is 136 bytes, and
// clearing it cost as much as filling it (TestChunkLineIntoLikeLines
// fills one Line with line after line).
func (t *Tree) lineInto(l *Line, c *Chunk, at pos, li int) {
	// A copy: the fields of the line in place, of 8 and 16 bits, were
	// each read with two instructions more, as the compiler does not
	// fold their offset into an index scaled by 8 (a storedLine is 40
	// bytes).
	s := c.lines[li]
	base := at.bytes + int(s.off)
	l.Num = at.lines + li
	l.Start, l.End = base, base+int(s.len)
	l.Next = l.End + int(s.termLen)
	l.Kind, l.Flags = s.kind, s.flags
	var w *wideSpans
	if s.len > maxNarrowLine {
		w = c.wide[int32(li)]
		l.Content, l.TrimEnd = base+int(w.content), base+int(w.trimEnd)
	} else {
		l.Content, l.TrimEnd = base+int(s.content), base+int(s.trimEnd)
	}
	if l.Num < t.region.BodyStart {
		switch {
		case l.Num < t.region.HeaderStart:
			l.Kind = Preamble
		case l.Num == t.region.HeaderStart || l.Num == t.region.HeaderEnd:
			l.Kind = HeaderDelimiter
		default:
			l.Kind = HeaderLine
		}
		l.Name, l.Arrow, l.Result, l.ID, l.Step, l.TS = Span{}, Span{}, Span{}, Span{}, Span{}, Span{}
		return
	}
	arrowAt, resultAt := int(s.arrow), int(s.result)
	if w == nil {
		l.Name, l.ID = unpack(s.name[0], s.name[1], base), unpack(s.id[0], s.id[1], base)
		l.Step, l.TS = unpack(s.step[0], s.step[1], base), unpack(s.ts[0], s.ts[1], base)
	} else {
		l.Name, l.ID = unpack(w.name[0], w.name[1], base), unpack(w.id[0], w.id[1], base)
		l.Step, l.TS = unpack(w.step[0], w.step[1], base), unpack(w.ts[0], w.ts[1], base)
		arrowAt, resultAt = int(w.arrow), int(w.result)
	}
	l.Arrow, l.Result = Span{}, Span{}
	if arrowAt > 0 {
		a := base + arrowAt - 1
		l.Arrow = Span{a, a + len(arrow)}
	}
	if resultAt > 0 {
		l.Result = Span{base + resultAt - 1, l.TrimEnd}
	}
}

// unpack is a stored span of a line that starts at base; absent if empty.
// Its ends are read out of the pair by the caller: the pair passed whole
// went through the stack, four instructions of a span's dozen, four
// spans a line.
func unpack[T uint16 | uint32](start, end T, base int) Span {
	if end <= start {
		return Span{}
	}
	return Span{base + int(start), base + int(end)}
}

// LineAt returns the number of the line holding byte offset off (clamped).
func (t *Tree) LineAt(off int) int {
	off = max(0, min(off, t.Len()))
	c, at := t.chunk(t.chunkOfByte(off))
	rel := off - at.bytes
	li := sort.Search(len(c.lines), func(i int) bool { return int(c.lines[i].off) > rel }) - 1
	return at.lines + max(li, 0)
}

// LineColumn returns the 1-based line and character column of byte offset
// off, as the command line prints a place (an invalid byte counts as one
// character, as editors show it; an offset in a line break is past the
// line's last character).
func (t *Tree) LineColumn(off int) (line, col int) {
	l := t.Line(t.LineAt(off))
	return l.Num + 1, utf8.RuneCount(t.Slice(l.Start, min(off, l.End))) + 1
}

// Lines iterates over every line.
func (t *Tree) Lines() iter.Seq[Line] { return t.LinesFrom(0) }

// LinesFrom iterates over the lines from line n on.
func (t *Tree) LinesFrom(n int) iter.Seq[Line] {
	return func(yield func(Line) bool) {
		if n < 0 {
			n = 0
		}
		if n >= t.LineCount() {
			return
		}
		for _, c := range t.chunksFrom(t.chunkOfLine(n)) {
			var l Line
			for li := max(n-c.at.lines, 0); li < len(c.lines); li++ {
				t.lineInto(&l, c.Chunk, c.at, li)
				if !yield(l) {
					return
				}
			}
		}
	}
}

// Body iterates over the body lines.
func (t *Tree) Body() iter.Seq[Line] { return t.LinesFrom(t.region.BodyStart) }

// Text returns the text of a line without its terminator. The slice shares
// the tree's memory and must not be modified.
func (t *Tree) Text(l Line) []byte { return t.Slice(l.Start, l.End) }

// Info returns what the scanner found on line n, with offsets relative to
// the line start, and the line's text: kind, flags, bounds, name, arrow,
// result, and of the metadata the id=, step= and ts= values the tree keeps
// (ScanLine finds the other keys). It reads the line's text only for its
// leading whitespace, so a request about a point in a long line need not
// read all of it.
func (t *Tree) Info(n int) (LineInfo, []byte) {
	l := t.Line(n)
	text := t.Text(l)
	from := 0
	if l.Num == 0 && bytes.HasPrefix(text, bom) {
		from = len(bom)
	}
	rel := func(s Span) Span { return s.Shift(-l.Start) }
	li := LineInfo{Kind: l.Kind, Flags: l.Flags &^ FlagCR, Trim: Span{skipSpace(text, from), l.TrimEnd - l.Start}}
	if li.Trim.Start > li.Trim.End { // a blank line
		li.Trim.Start = li.Trim.End
	}
	if !l.Kind.IsBody() {
		li.Content = li.Trim.Start
		return li, text
	}
	li.Content = l.Content - l.Start
	li.Name, li.Arrow, li.Result = rel(l.Name), rel(l.Arrow), rel(l.Result)
	li.Meta[KeyID], li.Meta[KeyStep], li.Meta[KeyTS] = rel(l.ID), rel(l.Step), rel(l.TS)
	return li, text
}

// Slice returns bytes [start, end) of the document. It shares memory when
// the range lies within one chunk and copies otherwise.
func (t *Tree) Slice(start, end int) []byte {
	start = max(0, min(start, t.Len()))
	end = max(start, min(end, t.Len()))
	ci := t.chunkOfByte(start)
	if c, at := t.chunk(ci); end <= at.bytes+len(c.text) {
		b := at.bytes
		return c.text[start-b : end-b : end-b]
	}
	out := make([]byte, 0, end-start)
	for _, c := range t.chunksFrom(ci) {
		b := c.at.bytes
		if b >= end {
			break
		}
		out = append(out, c.text[max(start-b, 0):min(end-b, len(c.text))]...)
	}
	return out
}

// Bytes returns a copy of the whole document.
func (t *Tree) Bytes() []byte {
	out := make([]byte, 0, t.Len())
	for _, c := range t.chunksFrom(0) {
		out = append(out, c.text...)
	}
	return out
}

// Usage iterates over the token usage written on body lines, in file order.
func (t *Tree) Usage() iter.Seq[Usage] {
	return func(yield func(Usage) bool) {
		for _, c := range t.chunksFrom(0) {
			for i := range c.usage {
				u := c.usageAt(i)
				u.Line += c.at.lines
				if u.Line < t.region.BodyStart {
					continue
				}
				if !yield(u) {
					return
				}
			}
		}
	}
}

// Edit returns the tree for the document with bytes [start, end) replaced by
// text. Only the chunks the edit touches are re-scanned; the header is parsed
// again only when the edit reaches it. The Tree takes ownership of text.
// The new tree's DiffFrom(t) is what the edit replaced, at no cost.
func (t *Tree) Edit(start, end int, text []byte) *Tree {
	start = max(0, min(start, t.Len()))
	end = max(start, min(end, t.Len()))
	a := t.chunkOfByte(start)
	b := a
	if end > start {
		b = t.chunkOfByte(end - 1)
	}
	first, firstAt := t.chunk(a)
	last, lastAt := t.chunk(b)
	head := first.text[:start-firstAt.bytes]
	tail := last.text[end-lastAt.bytes:]
	merged := make([]byte, 0, len(head)+len(text)+len(tail))
	merged = append(merged, head...)
	merged = append(merged, text...)
	merged = append(merged, tail...)
	// Chunks hold whole lines: absorb following chunks until the text ends
	// with a newline, and absorb a small neighbour so chunks do not fragment.
	n := t.ChunkCount()
	for b+1 < n {
		next, _ := t.chunk(b + 1)
		if len(merged) > 0 && merged[len(merged)-1] == '\n' &&
			(len(merged) >= chunkMaxBytes/4 || len(next.text) >= chunkMaxBytes/2 ||
				len(next.lines)+bytes.Count(merged, []byte{'\n'}) >= chunkMaxLines) {
			break
		}
		b++
		merged = append(merged, next.text...)
	}
	fresh := buildChunks(merged, a == 0, b == n-1)
	pages, replaced := t.replaceChunks(a, b, fresh)
	nt := &Tree{pages: pages, serial: treeSerial.Add(1), edit: edited{base: t.serial, diff: replaced}}
	nt.index()
	nt.region = nt.findRegion()
	headerEnd := 0
	if t.region.BodyStart > 0 {
		headerEnd = t.Line(t.region.BodyStart - 1).Next
	}
	if nt.region != t.region || start <= headerEnd {
		nt.header = parseHeader(nt)
	} else {
		nt.header = t.header
	}
	return nt
}

// replaceChunks returns the pages of t with chunks a..b replaced by fresh,
// and what that replaced: the pages holding a and b are rebuilt, the others
// shared.
func (t *Tree) replaceChunks(a, b int, fresh []*Chunk) ([]*Page, Diff) {
	pa, ia := t.locate(a)
	pb, ib := t.locate(b)
	last := t.pages[pb]
	run := make([]*Chunk, 0, ia+len(fresh)+len(last.chunks)-ib-1+pageMaxChunks)
	run = append(run, t.pages[pa].chunks[:ia]...)
	run = append(run, fresh...)
	run = append(run, last.chunks[ib+1:]...)
	// A run much smaller than a page takes in a neighbour, so that edits
	// that remove chunks do not leave the document in tiny pages.
	if len(run) < pageMaxChunks/4 {
		switch {
		case pb+1 < len(t.pages):
			pb++
			run = append(run, t.pages[pb].chunks...)
		case pa > 0:
			pa--
			run = append(slices.Clip(t.pages[pa].chunks), run...)
		}
	}
	built := paginate(run)
	pages := make([]*Page, 0, len(t.pages)-(pb-pa+1)+len(built))
	pages = append(pages, t.pages[:pa]...)
	pages = append(pages, built...)
	return append(pages, t.pages[pb+1:]...), Diff{
		OldPages: [2]int{pa, pb + 1}, NewPages: [2]int{pa, pa + len(built)},
		OldChunks: [2]int{a, b + 1}, NewChunks: [2]int{a, a + len(fresh)},
	}
}

// EditorLineCount counts lines as editors do: a lone CR also ends a line.
func (t *Tree) EditorLineCount() int { return t.LineCount() + t.total().crs }

// editorLine maps an editor line to the parser line that holds it: its
// chunk, what precedes the chunk, its index in the chunk, and how many lone
// CRs precede the editor line within it.
func (t *Tree) editorLine(el int) (c *Chunk, at pos, li, cr int) {
	if t.total().crs == 0 {
		n := max(0, min(el, t.LineCount()-1))
		c, at = t.chunk(t.chunkOfLine(n))
		return c, at, n - at.lines, 0
	}
	el = max(0, min(el, t.EditorLineCount()-1))
	c, at = t.chunk(min(t.chunkWhere(el, byEditorLines), t.ChunkCount()-1))
	rem := el - at.lines - at.crs
	for li := range c.lines {
		n := c.crCount(li)
		if rem <= n {
			return c, at, li, rem
		}
		rem -= n + 1
	}
	return c, at, len(c.lines) - 1, 0
}

// EditorLineStart returns the offset of the first byte of editor line el.
func (t *Tree) EditorLineStart(el int) int {
	c, at, li, cr := t.editorLine(el)
	start := at.bytes + int(c.lines[li].off)
	if cr == 0 {
		return start
	}
	return start + int(c.loneCRs(li)[cr-1]) + 1
}

// EditorLineEnd returns where the text of editor line el ends.
func (t *Tree) EditorLineEnd(el int) int {
	c, at, li, cr := t.editorLine(el)
	s := &c.lines[li]
	start := at.bytes + int(s.off)
	if s.loneC > 0 {
		if crs := c.loneCRs(li); cr < len(crs) {
			return start + int(crs[cr])
		}
	}
	return start + int(s.len)
}

// EditorLineAt returns the editor line holding byte offset off.
func (t *Tree) EditorLineAt(off int) int {
	off = max(0, min(off, t.Len()))
	n := t.LineAt(off)
	if t.total().crs == 0 {
		return n // no lone CR: editor lines are the parser's lines
	}
	c, at := t.chunk(t.chunkOfLine(n))
	li := n - at.lines
	el := n + at.crs
	for k := range li {
		el += c.crCount(k)
	}
	if s := &c.lines[li]; s.loneC > 0 {
		rel := off - at.bytes - int(s.off)
		crs := c.loneCRs(li)
		el += sort.Search(len(crs), func(i int) bool { return int(crs[i]) >= rel })
	}
	return el
}

// crCount is the number of lone CRs in the chunk's line li.
func (c *Chunk) crCount(li int) int {
	n := int(c.lines[li].loneC)
	if n == 255 { // saturated: count them
		n = len(c.loneCRs(li))
	}
	return n
}

type loneCRsKey struct{}

// loneCRs returns where the lone CRs of the chunk's line li are, relative
// to the line's start. The offsets of every line of the chunk are found
// once and memoized on it, so that mapping an offset in a line with many
// lone CRs to its editor line is a binary search, not a count.
func (c *Chunk) loneCRs(li int) []uint32 {
	if c.lines[li].loneC == 0 {
		return nil
	}
	byLine := c.Memo(loneCRsKey{}, func() any {
		m := map[int32][]uint32{}
		for i, s := range c.lines {
			if s.loneC == 0 {
				continue
			}
			text := c.text[s.off : s.off+s.len]
			offs := make([]uint32, 0, min(int(s.loneC), 255))
			for off := 0; ; {
				k := bytes.IndexByte(text[off:], '\r')
				if k < 0 {
					break
				}
				offs = append(offs, uint32(off+k))
				off += k + 1
			}
			m[int32(i)] = offs
		}
		return m
	}).(map[int32][]uint32)
	return byLine[int32(li)]
}

// SetChunkLimitsForTest makes chunks at most lines lines and about size
// bytes, and pages at most four chunks, so tests of code built on chunks
// can put boundaries everywhere. It returns a function that restores the
// limits. Not for concurrent use.
func SetChunkLimitsForTest(lines, size int) (restore func()) {
	l, s, p := chunkMaxLines, chunkMaxBytes, pageMaxChunks
	chunkMaxLines, chunkMaxBytes, pageMaxChunks = lines, size, 4
	return func() { chunkMaxLines, chunkMaxBytes, pageMaxChunks = l, s, p }
}

// ChunkIndexOfLine returns the index of the chunk holding line n (clamped).
func (t *Tree) ChunkIndexOfLine(n int) int {
	return min(t.chunkOfLine(max(n, 0)), t.ChunkCount()-1)
}

// UsageFrom iterates over the token usage written on body lines from line n on.
func (t *Tree) UsageFrom(n int) iter.Seq[Usage] {
	return func(yield func(Usage) bool) {
		for _, c := range t.chunksFrom(t.ChunkIndexOfLine(n)) {
			for i := range c.usage {
				u := c.usageAt(i)
				u.Line += c.at.lines
				if u.Line < max(n, t.region.BodyStart) {
					continue
				}
				if !yield(u) {
					return
				}
			}
		}
	}
}
