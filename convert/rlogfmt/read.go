// Package rlogfmt reads and writes rlog/1 (docs/format.md): a YAML header
// between `---` lines, then one event per line. The reader is built on the
// project's parser (grammar), so it classifies lines and finds metadata
// exactly as `rlog-ls check` does; the writer uses the real converter's line
// forms (§1.11) with the improvements of §8.2, and its output is checked by
// the project's rules in the tests.
package rlogfmt

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
	"unsafe"

	yaml "go.yaml.in/yaml/v3"

	"github.com/rlog-ls/rlog-ls/convert/internal/strblock"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
	"github.com/rlog-ls/rlog-ls/usage"
)

// Name is the format name used by the CLI.
const Name = "rlog"

// maxHeaderBuffer bounds what the reader holds while it looks for the end
// of the header. A file whose header does not end within it is parsed
// whole, as the parser does with an unclosed header.
const maxHeaderBuffer = 4 << 20

// Read reads an rlog/1 document line by line: only the header is
// buffered (at most maxHeaderBuffer of it). Lines the model has no kind for (t~:, s:, p:, m:, r:, q:,
// unknown lines) pass through whole and are reported; an rlog writer
// writes them back verbatim.
func Read(r io.Reader, sink model.Sink, rep *model.Report) error {
	return read(r, sink, rep, (*grammar.LineTokens).Read, false)
}

// read is Read reading each line with readLine: grammar.LineTokens.Read,
// which reads a line once, or, as the tests' reference, the parser's line
// scan and tokenizer one after the other (TestOnePassEqualsTwoPasses).
// With copies, each string of an event is a copy of its own, as the
// tests' reference makes it (lineParts.copies).
func read(r io.Reader, sink model.Sink, rep *model.Report, readLine func(*grammar.LineTokens, []byte), copies bool) error {
	rd := &reader{sink: sink, rep: rep, h: &model.Header{SourceFormat: Name}, readLine: readLine}
	rd.borrow = model.BorrowsEvents(sink)
	rd.parts.copies = copies
	rd.parts.ids, rd.parts.lines = idRoom(), lineRoom()
	var head headLines
	err := model.Lines(r, rep, func(line []byte, n int) error {
		if head.done {
			return rd.bodyLine(line, n)
		}
		// The header: everything up to the second "---" line.
		rep.InvalidUTF8Text(line, model.Loc{Line: n})
		head.add(line, n)
		switch {
		case head.delims == 2:
			head.done = true
			rd.header(grammar.Parse(head.text.Bytes()), head.nums)
		case head.text.Len() > maxHeaderBuffer:
			head.done = true
			return rd.whole(&head)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !head.done {
		if err := rd.whole(&head); err != nil {
			return err
		}
	}
	return rd.end()
}

// headLines are the lines of the header as they are read, with their
// numbers, until its second "---" line (done).
type headLines struct {
	text   bytes.Buffer
	nums   []int
	delims int
	done   bool
}

func (h *headLines) add(line []byte, n int) {
	if string(bytes.TrimSpace(line)) == "---" {
		h.delims++
	}
	h.text.Write(line)
	h.text.WriteByte('\n')
	h.nums = append(h.nums, n)
}

// whole reads a header that did not close within what was buffered (up
// to maxHeaderBuffer, or the whole file when it is shorter): the parser
// decides where the body starts in the buffered part, as `rlog-ls check`
// does with an unclosed header; the lines after it stream. A closing "---"
// later than maxHeaderBuffer is taken as a body line.
func (rd *reader) whole(head *headLines) error {
	tree := grammar.Parse(head.text.Bytes())
	rd.header(tree, head.nums)
	for l := range tree.Body() {
		if l.Num >= len(head.nums) {
			break
		}
		if err := rd.line(tree.Text(l), head.nums[l.Num]); err != nil {
			return err
		}
	}
	head.text.Reset()
	return nil
}

type reader struct {
	sink model.Sink
	rep  *model.Report
	h    *model.Header
	// readLine reads a line into its kind, metadata, result arrow and
	// tokens, in one pass (grammar.LineTokens.Read).
	readLine func(*grammar.LineTokens, []byte)

	pending *model.Event // held back: continuation lines may extend it
	// cont is the text of pending that continuation lines extend, and
	// contOf the string it becomes when pending is sent (continueText):
	// one string made however many lines continue it.
	cont   []byte
	contOf *string
	// raw is where a passed-through line's JSON string is made before it
	// is copied to the room of lines (passthrough).
	raw []byte

	parts lineParts // the line being read, refilled for each line
	args  callArgs  // the call being read, refilled for each call
	names names     // the tool names, sub-agent types and verbs read lately

	prevUsage *model.Usage // last usage-bearing line without message_id
	prevMsg   string
	msgID     []byte // where prevMsg is made
	endTotals *model.Usage
	endCost   *float64

	// The events, usages, calls and results the reader makes, allocated
	// a block at a time (blocks).
	events  blocks[model.Event]
	usages  blocks[model.Usage]
	calls   blocks[model.ToolCall]
	results blocks[model.ToolResult]

	// borrow says the sink borrows events (model.BorrowsEvents): the
	// events and the values behind them are the slots', rewritten for each
	// line, not new ones. cur is the slot event last handed out; prevKept
	// holds prevUsage's value, two so that continuationUsage's probe
	// leaves the one it restores as it was.
	borrow   bool
	slots    [3]eventSlot
	cur      *eventSlot
	probe    eventSlot
	prevKept [2]model.Usage

	// unanswered are the ids made up for t!: lines without an id that no
	// o: line has answered yet, oldest first (at most maxUnanswered): an
	// o: line without an id answers the oldest.
	unanswered []string
}

// blocks hands out new zero values of T allocated a block at a time: one
// allocation for several events (or usages, calls, results), not one
// each; a line makes an event, and its allocation was the largest of the
// line's. A block is about 4 KB for events (nine of 448 bytes today fill
// 4,032 of the allocator's 4,096-byte size class) and 1 KB for the
// smaller values. A block stays alive while any of its values does: a sink
// that keeps an event keeps the rest of its block with it, never more
// than that per value it keeps.
type blocks[T any] struct{ free []T }

// blockBytes is the size a block aims at: the largest multiple of T's
// size that fits (at least one T).
func blockBytes(size uintptr) uintptr {
	if size > 256 {
		return 4096
	}
	return 1024
}

// new is a new zero T.
func (b *blocks[T]) new() *T {
	if len(b.free) == 0 {
		var zero T
		n := max(1, int(blockBytes(unsafe.Sizeof(zero))/unsafe.Sizeof(zero)))
		b.free = make([]T, n)
	}
	v := &b.free[0]
	b.free = b.free[1:]
	return v
}

// idRoom is the room for ids and times: a block of about a hundred. The
// reader keeps them apart from the lines (lineRoom), so that an id a
// writer caches keeps a block of ids alive, not lines.
func idRoom() strblock.Room { return strblock.New(2048, 64) }

// lineRoom is the room for the lines whose parts events hold as their
// text, and the calls' input objects: a block of about a hundred of the
// generated sessions' lines.
func lineRoom() strblock.Room { return strblock.New(16<<10, 2<<10) }

// event is a new zero event: allocated, or when the sink borrows events a
// slot's, reset. Three slots are enough: besides the one handed out, the
// event held back (pending) and the one handed out last (passthrough's
// read, tool's call) may be alive.
func (rd *reader) event() *model.Event {
	if !rd.borrow {
		return rd.events.new()
	}
	return rd.slotEvent()
}

// slotEvent is event when the sink borrows events: a free slot's, reset.
func (rd *reader) slotEvent() *model.Event {
	for i := range rd.slots {
		s := &rd.slots[i]
		if s != rd.cur && &s.ev != rd.pending {
			s.reset()
			rd.cur = s
			return &s.ev
		}
	}
	panic("rlogfmt: no free event slot")
}

// eventSlot is an event and the values behind it that a reader reuses
// when its sink borrows events: the event's call, result, usage,
// sub-agent and compaction point at these, its Extra at extra's array.
type eventSlot struct {
	ev         model.Event
	call       model.ToolCall
	result     model.ToolResult
	usage      model.Usage
	subagent   model.Subagent
	compaction model.Compaction
	extra      model.Fields
}

// reset leaves nothing of the slot's last event: a zero event whose Extra
// is the slot's array, emptied (flush makes an Extra left empty nil, as
// an allocated event's is, and takes the array back when the event's
// appends grew it). The values behind it are zeroed as they are handed
// out (reader.newUsage...).
func (s *eventSlot) reset() {
	clear(s.extra[:cap(s.extra)])
	s.ev = model.Event{Extra: s.extra[:0]}
}

// slotOf is the slot whose event e is; nil for another event.
func (rd *reader) slotOf(e *model.Event) *eventSlot {
	for i := range rd.slots {
		if &rd.slots[i].ev == e {
			return &rd.slots[i]
		}
	}
	return nil
}

// newUsage, newCall, newResult, newSubagent and newCompaction are new zero
// values for the event event last handed out: allocated, or its slot's.
func (rd *reader) newUsage() *model.Usage {
	if rd.borrow {
		rd.cur.usage = model.Usage{}
		return &rd.cur.usage
	}
	return rd.usages.new()
}

func (rd *reader) newCall() *model.ToolCall {
	if rd.borrow {
		rd.cur.call = model.ToolCall{}
		return &rd.cur.call
	}
	return rd.calls.new()
}

func (rd *reader) newResult() *model.ToolResult {
	if rd.borrow {
		rd.cur.result = model.ToolResult{}
		return &rd.cur.result
	}
	return rd.results.new()
}

func (rd *reader) newSubagent() *model.Subagent {
	if rd.borrow {
		rd.cur.subagent = model.Subagent{}
		return &rd.cur.subagent
	}
	return new(model.Subagent)
}

func (rd *reader) newCompaction() *model.Compaction {
	if rd.borrow {
		rd.cur.compaction = model.Compaction{}
		return &rd.cur.compaction
	}
	return new(model.Compaction)
}

// ownUsage is u as the usage of the event event last handed out: u, or
// when the sink borrows events a copy in that event's slot, so that no
// event points into another's slot.
func (rd *reader) ownUsage(u *model.Usage) *model.Usage {
	if !rd.borrow || u == nil {
		return u
	}
	rd.cur.usage = *u
	return &rd.cur.usage
}

// names are the strings of the names lines start with (a call's tool, a
// sub-agent's type, a lifecycle verb) lately read: a log names a handful
// of tools thousands of times, and a name read again is the string made
// the last time, not a new one. A table of numNames sets of two places:
// a hash of the name's first two bytes, last byte and length chooses the
// set, the name is looked for in both places, and a name not there takes
// the first place, the name that was there moving to the second (the
// name in the second makes way). So two names that the hash puts in one
// set, as a tool log's Read and Edit, are both kept; what it holds is
// bounded: 2 × numNames strings of at most maxNameLen bytes. FuzzNamesOf
// holds of to string(b).
type names [numNames][2]string

const (
	numNames   = 64
	maxNameLen = 64
)

// of is string(b), the one made before when it is in its set.
func (n *names) of(b []byte) string {
	if len(b) < 2 || len(b) > maxNameLen {
		return string(b)
	}
	set := &n[nameSet(b)]
	if set[0] == string(b) {
		return set[0]
	}
	if set[1] == string(b) {
		set[0], set[1] = set[1], set[0]
		return set[0]
	}
	s := string(b)
	set[0], set[1] = s, set[0]
	return s
}

// nameSet is the set of names where b is kept: a multiplicative hash of
// its first two bytes, its last and its length, to the top six bits.
func nameSet(b []byte) uint32 {
	return (uint32(b[0]) | uint32(b[1])<<8 | uint32(b[len(b)-1])<<16 | uint32(len(b))<<24) * 0x9E3779B1 >> 26
}

// maxUnanswered bounds the made-up ids waiting for an o: line without an
// id; a log with more unanswered id-less calls than that is not one a
// reader can pair anyway.
const maxUnanswered = 64

// madeUpCallID is the id of a call whose line has none: made from the line
// number, so every format the call is converted to carries the same id and
// the way back to rlog gives it again.
func madeUpCallID(line int) string { return "call_L" + strconv.Itoa(line) }

func (rd *reader) header(t *grammar.Tree, nums []int) {
	h := t.Header()
	reg := t.Region()
	if !h.Present {
		rd.rep.Add(model.LossMalformed, "no rlog header (---)", model.Loc{Line: 1})
		return
	}
	if reg.HeaderStart > 0 {
		rd.rep.AddN(model.LossDroppedEvent, "text before the header (ignored by rlog/1)", model.Loc{Line: 1}, reg.HeaderStart)
	}
	for _, e := range h.Errors {
		line := 0
		if e.Line < len(nums) {
			line = nums[e.Line]
		}
		rd.rep.Add(model.LossMalformed, "header: "+e.Message, model.Loc{Line: line})
	}
	mh := rd.h
	get := func(k string) string { v, _ := h.Get(k); return v }
	mh.SourceVersion = get(fieldFormat)
	mh.ID = get(fieldID)
	mh.RepoSHA = get(fieldRepoSHA)
	for _, f := range agentFields {
		*f.of(mh) = get(f.name)
	}
	var tot model.Usage
	for _, f := range totalFields {
		*f.of(&tot), _ = strconv.ParseInt(get(f.name), 10, 64)
	}
	if !tot.IsZero() {
		// A crashed session keeps 0 totals: those mean "unknown".
		mh.Totals = &tot
	}
	values := headerValues(t)
	for _, f := range h.Fields {
		if modelHeaderFields[f.Key] {
			continue
		}
		if v, ok := values[f.Key]; ok {
			mh.Extra.Set(f.Key, v)
		}
	}
}

// headerValues decodes every header value as JSON: strings stay strings
// (`repo_sha: 560549231` is "560549231"), YAML booleans and numbers become
// JSON ones, and collections become arrays and objects.
func headerValues(t *grammar.Tree) map[string]json.RawMessage {
	h := t.Header()
	out := map[string]json.RawMessage{}
	if !h.Present || h.End <= h.Start+1 {
		return out
	}
	last := h.End - 1
	if !h.Closed {
		last = h.End
	}
	src := t.Slice(t.Line(h.Start+1).Start, t.Line(last).Next)
	var doc yaml.Node
	if yaml.Unmarshal(src, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return out
	}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i].Value, root.Content[i+1]
		if _, dup := out[k]; dup {
			continue
		}
		if j, ok := yamlJSON(v); ok {
			out[k] = j
		}
	}
	return out
}

func yamlJSON(n *yaml.Node) (json.RawMessage, bool) {
	switch n.Kind {
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return json.RawMessage("null"), true
		case "!!bool", "!!int", "!!float":
			var v any
			if n.Decode(&v) == nil {
				if b, err := json.Marshal(v); err == nil {
					return b, true
				}
			}
		}
		return model.MustJSON(n.Value), true
	case yaml.AliasNode:
		return yamlJSON(n.Alias)
	case yaml.SequenceNode:
		parts := make([]json.RawMessage, 0, len(n.Content))
		for _, c := range n.Content {
			j, ok := yamlJSON(c)
			if !ok {
				return nil, false
			}
			parts = append(parts, j)
		}
		return model.MustJSON(parts), true
	case yaml.MappingNode:
		var f model.Fields
		for i := 0; i+1 < len(n.Content); i += 2 {
			j, ok := yamlJSON(n.Content[i+1])
			if !ok {
				return nil, false
			}
			f.Set(n.Content[i].Value, j)
		}
		if f == nil {
			f = model.Fields{}
		}
		return model.MustJSON(f), true
	}
	return nil, false
}

func (rd *reader) flush() error {
	if rd.pending == nil {
		return nil
	}
	e := rd.pending
	rd.pending = nil
	if rd.contOf != nil {
		if rd.parts.copies {
			*rd.contOf = string(rd.cont)
		} else {
			*rd.contOf = rd.parts.lines.Of(rd.cont)
		}
		rd.contOf = nil
		rd.cont = smallBuffer(rd.cont)
	}
	rd.rep.Events++
	if rd.borrow {
		if s := rd.slotOf(e); s != nil && cap(e.Extra) > cap(s.extra) {
			s.extra = e.Extra[:0] // the reader's appends grew it: the slot's now
		}
		if len(e.Extra) == 0 {
			e.Extra = nil
		}
	}
	return rd.sink.Event(rd.h, e)
}

func (rd *reader) emit(e *model.Event) error {
	if err := rd.flush(); err != nil {
		return err
	}
	rd.pending = e
	return nil
}

func (rd *reader) end() error {
	if err := rd.flush(); err != nil {
		return err
	}
	if rd.h.Totals == nil && rd.endTotals != nil {
		rd.h.Totals = rd.endTotals
	}
	if rd.h.CostUSD == nil && rd.endCost != nil {
		rd.h.CostUSD = rd.endCost
	}
	return rd.sink.End(rd.h)
}

// unquote returns a written value unquoted: a JSON string literal is
// decoded, other quotes are stripped, anything else is as written.
func unquote(raw string) string { return unquoteBytes([]byte(raw)) }

func unquoteBytes(raw []byte) string {
	if len(raw) >= 2 && raw[0] == '"' {
		// What encoding/json would decode (jsonscan's validator and decoder
		// agree with it), without its reflection on every metadata value.
		if jsonscan.Valid(raw) {
			s, _ := jsonscan.String(bytes.TrimRight(raw, " \t\r\n"))
			return s
		}
		if raw[len(raw)-1] == '"' {
			return string(raw[1 : len(raw)-1])
		}
		return string(raw[1:])
	}
	return string(raw)
}

// lineParts is a line split the way the model needs it. The reader keeps
// one and refills it for every line, so that its slices are reused.
type lineParts struct {
	lt    grammar.LineTokens // the line as it was read
	li    *grammar.LineInfo  // &lt.Info
	text  []byte
	toks  []grammar.Token    // lt.Tokens: a key=value is one token, its key
	pairs []grammar.KeyValue // lt.Pairs: every key=value, in order
	// metaStart is where the trailing metadata starts (the end of the text
	// when there is none): the run of pairs whose keys are Trailing
	// (grammar's rule of what is metadata) at the end of the line. metaSet
	// has a bit for each key among those trailing pairs, and metaSpan the
	// value as written of the last one of each key (unquoted when asked
	// for: most are never asked); interrupted is the flag among them.
	metaStart   int
	metaSet     keySet
	metaSpan    [grammar.NumKeys]grammar.Span
	interrupted bool
	// arrowSet and arrowSpan are the same for the first pair of each
	// Trailing key before the result arrow (see metaValue).
	arrowSet  keySet
	arrowSpan [grammar.NumKeys]grammar.Span
	// last is the last value written without quotes of each key (str).
	last [grammar.NumKeys]string
	// ids makes the strings str makes; lines makes line (Read sets
	// both: the zero rooms make strings of their own).
	ids, lines strblock.Room
	// line is the part of the line from lineAt on that events hold, as a
	// string, made the first time the event needs a string of it (sub);
	// hasLine says it is made. The event's texts (its text, a result's
	// content, a call's summary) are parts of it: one copy a line, not
	// one a string.
	line    string
	lineAt  int
	hasLine bool
	// copies makes each string a copy of its own, found as it was before
	// the parts of one string (the tests' reference: FuzzReadOnePass).
	copies bool
}

// keySet has a bit for each grammar.Key.
type keySet uint64

// The table's keys fit in a keySet.
var _ [64 - grammar.NumKeys]struct{}

func (s keySet) has(k grammar.Key) bool { return s&(1<<k) != 0 }

func split(text []byte) *lineParts {
	p := &lineParts{}
	p.lt.Read(text)
	p.fill(text)
	return p
}

// fill splits text, which p.lt holds as read.
func (p *lineParts) fill(text []byte) {
	p.li, p.text = &p.lt.Info, text
	p.line, p.hasLine = "", false
	p.toks, p.pairs = p.lt.Tokens, p.lt.Pairs
	p.arrowSet = 0
	if p.li.Arrow.Valid() {
		for i := range p.pairs {
			pr := &p.pairs[i]
			if pr.Key.Start >= p.li.Arrow.Start {
				break
			}
			if !pr.Value.Valid() {
				continue
			}
			if k := pr.K; k.Trailing() && !p.arrowSet.has(k) {
				p.arrowSet |= 1 << k
				p.arrowSpan[k] = pr.Value
			}
		}
	}
	// The trailing metadata: known keys (and the flag "interrupted") at the
	// end of the line, after any text.
	p.metaStart = p.li.Trim.End
	p.metaSet = 0
	p.interrupted = false
	toks := p.toks
	last := len(p.pairs) - 1 // the pair of the next key token back
	for i := len(toks) - 1; i >= 0; i-- {
		t := &toks[i]
		switch t.Kind {
		case grammar.TokKey:
			pr := &p.pairs[last]
			last--
			switch pr.Kind {
			case grammar.TokValue, grammar.TokString, grammar.TokJSON:
			default:
				return // no value (no kind), or a marker
			}
			k := pr.K
			if !k.Trailing() {
				return
			}
			if bit := keySet(1) << k; p.metaSet&bit == 0 {
				p.metaSet |= bit
				p.metaSpan[k] = pr.Value
			}
			p.metaStart = pr.Key.Start
		case grammar.TokFlag:
			if string(text[t.Span.Start:t.Span.End]) == grammar.Interrupted {
				p.interrupted = true
			}
			p.metaStart = t.Span.Start
		default:
			return
		}
	}
}

// metaRaw is the trailing metadata value of key k as written.
func (p *lineParts) metaRaw(k grammar.Key) ([]byte, bool) {
	if !p.metaSet.has(k) {
		return nil, false
	}
	return p.text[p.metaSpan[k].Start:p.metaSpan[k].End], true
}

// metaGet is the trailing metadata value of key k, unquoted. It is small
// enough to be inlined: most keys a line is asked for it does not have,
// and the answer is then one test of a bit, without a call.
func (p *lineParts) metaGet(k grammar.Key) (string, bool) {
	if !p.metaSet.has(k) {
		return "", false
	}
	return p.metaStr(k), true
}

// metaStr is the trailing metadata value of key k, which the line has,
// unquoted. Not inlined, so that metaGet is.
//
//go:noinline
func (p *lineParts) metaStr(k grammar.Key) string {
	return p.str(k, p.metaSpan[k])
}

// str is unquoteBytes of the value of key k written at sp, never a part
// of the line's string (sub): writers keep ids, times and names in their
// caches and sets, where a part would keep its whole line, which can be
// long, alive. A value written without quotes is made in the reader's
// room (strblock.Room.Of), with other short strings, not in an allocation of its
// own. A value written without quotes
// that is the last such value of k (an id on a call and on its result, a
// model, a thread) is the string made of that one, not a new copy.
func (p *lineParts) str(k grammar.Key, sp grammar.Span) string {
	raw := p.text[sp.Start:sp.End]
	if len(raw) == 0 || raw[0] == '"' {
		return unquoteBytes(raw)
	}
	if last := p.last[k]; last == string(raw) {
		return last
	}
	var s string
	if p.copies {
		s = string(raw)
	} else {
		s = p.ids.Of(raw)
	}
	p.last[k] = s
	return s
}

// sub is string(p.text[from:to]), a part of the line's string, which it
// makes the first time it is asked: for the text an event holds (its
// text, a result's content, a call's summary), not for its ids (str). A
// part keeps the whole line's string alive as long as the event that
// holds it, and the text is most of the line. The line's string is the
// line from the first part asked for to its end or the trailing
// metadata's start, whichever is later: the parts asked for later on a
// line are after the first (a call's summary, then its result), and the
// trailing metadata (times, ids, counts, a thinking's signature) is read
// into strings of their own (str), so it is not copied with the text. A
// part outside it (none of the reader's lines ask for one) makes the
// string again, from that part on.
func (p *lineParts) sub(from, to int) string {
	if from >= to {
		return ""
	}
	if p.copies {
		return string(p.text[from:to])
	}
	if !p.hasLine || from < p.lineAt || to > p.lineAt+len(p.line) {
		end := max(to, p.metaStart)
		p.line, p.lineAt, p.hasLine = p.lines.Of(p.text[from:end]), from, true
	}
	return p.line[from-p.lineAt : to-p.lineAt]
}

// meta1 is metaGet's value alone ("" when absent).
func (p *lineParts) meta1(k grammar.Key) string {
	v, _ := p.metaGet(k)
	return v
}

// value is pr's value unquoted ("" when it has none).
func (p *lineParts) value(pr grammar.KeyValue) string {
	return unquoteBytes(p.text[pr.Value.Start:pr.Value.End])
}

// metaValue is the value of metadata key k: from the trailing metadata,
// or, on a line with a result arrow, from the pairs before the arrow (where
// writers put `id=`). A key=value inside the text itself is text: the
// parser's first-match rule would read `step=5` in prose as the line's
// step, but no writer puts metadata there.
func (p *lineParts) metaValue(k grammar.Key) (string, bool) {
	if (p.metaSet|p.arrowSet)&(1<<k) == 0 {
		return "", false
	}
	return p.valueOf(k), true
}

// valueOf is metaValue's value, which the line has. Not inlined, so that
// metaValue is.
//
//go:noinline
func (p *lineParts) valueOf(k grammar.Key) string {
	if p.metaSet.has(k) {
		return p.metaStr(k)
	}
	return p.arrowStr(k)
}

// arrowValue is metaValue's value from before the result arrow.
func (p *lineParts) arrowValue(k grammar.Key) (string, bool) {
	if !p.arrowSet.has(k) {
		return "", false
	}
	return p.arrowStr(k), true
}

// arrowStr is arrowValue's value, which the line has.
func (p *lineParts) arrowStr(k grammar.Key) string {
	v := p.str(k, p.arrowSpan[k])
	if k == grammar.KeyID {
		// \bid=(\w+), as the rules read it.
		return idPrefix(v)
	}
	return v
}

// metaInt is metaValue's value as a number: ok false when it is absent or
// no integer (strconv.ParseInt). A bare run of digits, as writers write
// counts, is read from the line without a string made of it.
func (p *lineParts) metaInt(k grammar.Key) (int64, bool) {
	if raw, ok := p.metaRaw(k); ok {
		if n, ok := jsonscan.Digits(raw); ok {
			return n, true
		}
		n, err := strconv.ParseInt(unquoteBytes(raw), 10, 64)
		return n, err == nil
	}
	v, ok := p.arrowValue(k)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}

// idPrefix is the part of v the rlog/1 id pattern (\w+, Unicode-aware)
// reads.
func idPrefix(v string) string {
	// ASCII ids (nearly all) without decoding runes, one lookup a byte.
	i := 0
	for i < len(v) && idASCII[v[i]] {
		i++
	}
	if i == len(v) || v[i] < utf8.RuneSelf {
		return v[:i]
	}
	return v[:i+len(idPrefixRunes(v[i:]))]
}

// idASCII has the ASCII bytes of \w: letters, digits and '_'.
var idASCII = func() (t [256]bool) {
	for c := 0; c < utf8.RuneSelf; c++ {
		t[c] = c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	}
	return t
}()

// idPrefixRunes is idPrefix decoding every rune: the whole of it for the
// part of an id from its first byte that is not ASCII (FuzzIDPrefix holds
// idPrefix to it).
func idPrefixRunes(v string) string {
	for i, r := range v {
		if !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)) {
			return v[:i]
		}
	}
	return v
}

// lineID is the id a line names: id_full when present (the whole id the
// parser's \w+ cannot hold), else its id=.
func (p *lineParts) lineID() string {
	if v, ok := p.metaGet(grammar.KeyIDFull); ok {
		return v
	}
	if v, ok := p.metaGet(grammar.KeyID); ok {
		return idPrefix(v)
	}
	v, _ := p.arrowValue(grammar.KeyID) // idPrefix'd already
	return v
}

// wordID is the value of the line's first id= with one, wherever it is.
func (p *lineParts) wordID() string {
	for _, pr := range p.pairs {
		if pr.Value.Valid() && pr.K == grammar.KeyID {
			return idPrefix(unquoteBytes(p.text[pr.Value.Start:pr.Value.End]))
		}
	}
	return ""
}

// textBetween returns the line text in [from, to) trimmed.
func (p *lineParts) textBetween(from, to int) string {
	if to > len(p.text) {
		to = len(p.text)
	}
	if from >= to {
		return ""
	}
	return p.trimmed(from, to)
}

// trimmed is string(bytes.TrimSpace(p.text[from:to])), a part of the
// line's string (sub).
func (p *lineParts) trimmed(from, to int) string {
	b := p.text[from:to]
	t := bytes.TrimSpace(b)
	if p.copies {
		return string(t)
	}
	if len(t) == 0 {
		return ""
	}
	from += cap(b) - cap(t) // t is a part of b
	return p.sub(from, from+len(t))
}

// body is the free text of a line: from its content start to its trailing
// metadata.
func (p *lineParts) body() string { return p.textBetween(p.li.Content, p.metaStart) }

// bodyLine reads a line after the header, which nothing checked before:
// the scanner's flag says whether it is valid UTF-8, so the line is not
// validated a second time (Report.InvalidUTF8Text).
func (rd *reader) bodyLine(text []byte, num int) error {
	p := &rd.parts
	rd.readLine(&p.lt, text)
	if p.lt.Info.Flags&grammar.FlagInvalidUTF8 != 0 && rd.rep != nil {
		rd.rep.Add(model.LossInvalidUTF8, model.DetailInvalidUTF8, model.Loc{Line: num})
	}
	return rd.scanned(text, num)
}

// line reads a line whose UTF-8 was checked as it was read.
func (rd *reader) line(text []byte, num int) error {
	rd.readLine(&rd.parts.lt, text)
	return rd.scanned(text, num)
}

// scanned reads a line that rd.parts.lt holds as read.
func (rd *reader) scanned(text []byte, num int) error {
	p := &rd.parts
	p.fill(text)
	li := p.li
	if li.Kind == grammar.Empty {
		return nil
	}
	loc := model.Loc{Line: num}
	if li.Kind == grammar.Continuation {
		if rd.continueText(bytes.TrimSpace(text)) {
			rd.continuationUsage(loc)
			return nil
		}
		return rd.passthrough(p, loc, nil)
	}
	ev := rd.event()
	ev.Loc = loc
	rd.common(p, ev)
	switch li.Kind {
	case grammar.User:
		ev.Kind = model.KindUser
		ev.Text = p.body()
		ev.Meta = p.meta1(grammar.KeyMeta) == "true"
		ev.ID = p.lineID()
	case grammar.Agent:
		ev.Kind = model.KindAgent
		ev.Text = p.body()
	case grammar.Thinking:
		ev.Kind = model.KindThinking
		ev.Text = p.body()
		ev.Signature = p.meta1(grammar.KeySig)
	case grammar.ToolStart, grammar.Tool, grammar.Mcp:
		return rd.tool(p, ev)
	case grammar.Observation:
		ev.Kind = model.KindToolResult
		ev.Result = rd.result(p, p.lineID())
		if ev.Result.CallID == "" {
			ev.Result.CallID = p.meta1(grammar.KeyOrphanID)
		}
		if ev.Result.CallID == "" && len(rd.unanswered) > 0 {
			ev.Result.CallID = rd.unanswered[0]
			rd.unanswered = rd.unanswered[1:]
		}
	case grammar.Subagent:
		ev.Kind = model.KindSubagent
		// The line's tid= is the sub-agent's own id.
		sa := rd.newSubagent()
		sa.ID, sa.Type, sa.AgentID = p.lineID(), rd.names.of(text[li.Name.Start:li.Name.End]), ev.AgentID
		if li.Result.Valid() {
			status, rest := statusWord(p.textBetween(li.Result.Start, p.metaStart))
			sa.Status = status
			sa.Summary = rest
		}
		for _, pr := range p.pairs {
			if pr.K == grammar.KeySummary && pr.Key.Start > li.Arrow.Start {
				sa.Summary = p.value(pr)
			}
		}
		ev.Subagent = sa
	case grammar.Comment:
		body := p.trimmed(li.Content, li.Trim.End)
		switch {
		case strings.HasPrefix(body, "status:"):
			// Without the line's metadata (ts=), which writers put there.
			ev.Kind = model.KindStatus
			ev.Text = strings.TrimSpace(strings.TrimPrefix(p.body(), "status:"))
		case strings.HasPrefix(body, "system:"):
			ev.Kind = model.KindSystem
			ev.Text = strings.TrimSpace(strings.TrimPrefix(p.body(), "system:"))
		default:
			ev.Kind = model.KindComment
			ev.Text = body
		}
		// A comment's metadata is the parser's, but its words are text.
		ev.Extra = nil
	case grammar.Todos:
		ev.Kind = model.KindTodos
		ev.Todos = parseTodos(p.body())
	case grammar.Lifecycle, grammar.Phase:
		return rd.lifecycle(p, ev)
	default:
		// t~:, s:, p:, m:, r:, q: and unknown lines have no model kind;
		// the usage such a line has is still a message's, as the rules
		// count it.
		return rd.passthrough(p, loc, ev)
	}
	return rd.emit(ev)
}

// common reads the metadata every kind of line may carry.
func (rd *reader) common(p *lineParts, ev *model.Event) {
	if ts, ok := p.metaValue(grammar.KeyTS); ok {
		ev.Time = ts
	}
	ev.Step, _ = p.metaInt(grammar.KeyStep)
	if m, ok := p.metaValue(grammar.KeyModel); ok {
		ev.Model = m
	}
	if v, ok := p.metaGet(grammar.KeyUUID); ok {
		ev.ID = v
	}
	if v, ok := p.metaGet(grammar.KeyParentFull); ok {
		ev.ParentID = v
	} else if v, ok := p.metaValue(grammar.KeyParent); ok {
		ev.ParentID = v
	}
	if v, ok := p.metaValue(grammar.KeyTID); ok {
		ev.AgentID = v
		ev.Sidechain = true
	}
	rd.usage(p, ev)
	if p.metaSet&extraKeySet != 0 {
		for _, k := range extraKeys {
			if v, ok := p.metaGet(k); ok {
				ev.Extra.SetString(k.String(), v)
			}
		}
	}
	if p.interrupted {
		ev.Extra.Set(grammar.Interrupted, json.RawMessage("true"))
	}
}

// extraKeys are the trailing metadata the model has no field for, kept as
// event extras under their rlog names (an rlog writer writes them back).
var extraKeys = []grammar.Key{grammar.KeySpan, grammar.KeyLatency, grammar.KeyAttempt, grammar.KeyLevel, grammar.KeySession, grammar.KeyRole, grammar.KeyStop}

// extraKeySet has the bits of extraKeys: a line without any of them (most)
// is not asked for each.
var extraKeySet = func() (s keySet) {
	for _, k := range extraKeys {
		s |= 1 << k
	}
	return s
}()

// usage reads tokens_*; lines of one message (same message_id, or without
// one, the input and cache counts of the usage line before, as the usage
// rule takes them) share a message id so the usage counts once.
func (rd *reader) usage(p *lineParts, ev *model.Event) {
	// The usage as the rules read it (grammar.LineUsage: the first
	// tokens_*= anywhere on the line), so that a conversion counts what
	// `rlog-ls stats` counts.
	// Most lines have none of the counts: they are told without the call
	// (HasCounts).
	var gu grammar.Usage
	has := p.li.HasCounts()
	if has {
		gu, has = grammar.LineUsage(p.text, p.li)
	}
	// The rules' message id when the line has usage and one, else the
	// metadata's: the string is made once.
	msg, hasMsg := gu.MessageID, has && gu.MessageID != ""
	if !hasMsg {
		msg, hasMsg = p.metaValue(grammar.KeyMessageID)
	}
	if hasMsg {
		ev.MessageID = msg
	}
	if !has {
		return
	}
	u := model.UsageOf(usage.Counts{In: gu.In, Out: gu.Out, Cached: gu.Cached, CacheCreate: gu.CacheCreate})
	if p.li.Kind == grammar.Lifecycle && bytes.HasPrefix(p.text[p.li.Content:], []byte(grammar.VerbEnd)) {
		return // @end's numbers are totals, read by lifecycle
	}
	// Allocated here, not as u: most lines have no usage.
	kept := rd.newUsage()
	*kept = u
	ev.Usage = kept
	const usageKeys keySet = 1<<grammar.KeyTokensIn | 1<<grammar.KeyTokensOut | 1<<grammar.KeyTokensCached | 1<<grammar.KeyTokensCacheCreate
	if (p.metaSet|p.arrowSet)&usageKeys == 0 {
		ev.Form.UsageInText = true // not in the metadata: in the text, which keeps it
	}
	switch {
	case hasMsg:
		rd.prevUsage, rd.prevMsg = nil, ""
	case rd.prevUsage != nil && usage.SameRequest(rd.prevUsage.Counts(), u.Counts()):
		ev.MessageID = rd.prevMsg
	default:
		if rd.borrow {
			// kept is a slot's, rewritten by a later line: its value is
			// kept apart, where prevUsage does not point (the value
			// continuationUsage may restore).
			prev := &rd.prevKept[0]
			if rd.prevUsage == prev {
				prev = &rd.prevKept[1]
			}
			*prev = *kept
			kept = prev
		}
		rd.prevUsage = kept
		id := append(rd.msgID[:0], SyntheticMessagePrefix+"rlog-line-"...)
		id = strconv.AppendInt(id, int64(ev.Loc.Line), 10)
		rd.msgID, rd.prevMsg = id, p.ids.Of(id)
		ev.MessageID = rd.prevMsg
	}
}

// continuationUsage reads the usage a continuation line ends with (a
// writer that puts a line's metadata after its whole text, continuation
// lines included): the usage of the line it continues, which the rules
// count. The words stay in the text, where an rlog writer finds them
// again (Form.UsageInText); a line that has usage of its own keeps it,
// and the continuation's is reported.
func (rd *reader) continuationUsage(loc model.Loc) {
	p := &rd.parts
	e := rd.pending
	var probe model.Event
	probe.Loc = e.Loc
	prevUsage, prevMsg := rd.prevUsage, rd.prevMsg
	cur := rd.cur
	if rd.borrow {
		rd.cur = &rd.probe // the probe's usage is not pending's until taken
	}
	rd.usage(p, &probe)
	rd.cur = cur
	switch {
	case probe.Usage == nil:
		rd.prevUsage, rd.prevMsg = prevUsage, prevMsg
	case e.Usage == nil && (e.MessageID == "" || e.MessageID == probe.MessageID || model.SyntheticMessageID(probe.MessageID)):
		e.Usage, e.Form.UsageInText = probe.Usage, true
		if s := rd.slotOf(e); s != nil {
			s.usage = *probe.Usage
			e.Usage = &s.usage
		}
		if e.MessageID == "" {
			e.MessageID = probe.MessageID
		}
	case *e.Usage != *probe.Usage:
		rd.prevUsage, rd.prevMsg = prevUsage, prevMsg
		rd.rep.Add(model.LossDroppedField, "token usage on a continuation line below a line with usage of its own (kept in the text)", loc)
	}
}

// outcome is the header's outcome, made when there is none.
func (rd *reader) outcome() *model.Outcome {
	if rd.h.Outcome == nil {
		rd.h.Outcome = &model.Outcome{}
	}
	return rd.h.Outcome
}

// compactionText is the text of an @compact line but its trigger= and
// pre_tokens=, which are the compaction's fields.
func compactionText(s string) string {
	var out []string
	for _, w := range strings.Fields(s) {
		if !strings.HasPrefix(w, "trigger=") && !strings.HasPrefix(w, "pre_tokens=") {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// SyntheticMessagePrefix starts the message ids the reader gives lines of
// one model response that carry no message_id. Writers do not write them.
const SyntheticMessagePrefix = model.SyntheticMessagePrefix

func (rd *reader) tool(p *lineParts, ev *model.Event) error {
	li := p.li
	name := rd.names.of(p.text[li.Name.Start:li.Name.End])
	if li.Kind == grammar.Mcp {
		ev.Form.Prefix = "c"
	}
	argsEnd := p.metaStart
	if li.Arrow.Valid() {
		argsEnd = li.Arrow.Start
	}
	call := rd.newCall()
	call.ID, call.Name = p.lineID(), name
	if call.ID == "" && !li.Arrow.Valid() {
		// A line without its result arrow names its call by an id= among
		// its words, as the rules read it (`t:read id=c1 x -> [64 lines]`).
		call.ID = p.wordID()
	}
	if call.ID == "" {
		call.ID = madeUpCallID(ev.Loc.Line)
		rd.rep.Add(model.LossSynthesized, "tool call id (the rlog line has none; call_L<line> made from its line number)", ev.Loc)
		if li.Kind == grammar.ToolStart {
			if len(rd.unanswered) == maxUnanswered {
				rd.unanswered = rd.unanswered[1:]
			}
			rd.unanswered = append(rd.unanswered, call.ID)
		}
	}
	args := &rd.args
	args.reset()
	abbreviated, hasAbbreviated := abbreviatedArgs[call.Name]
	pairs := 0      // the key tokens before i
	summaryAt := -1 // where the summary's first word is in the line
	for i := 0; i < len(p.toks); i++ {
		t := &p.toks[i]
		if t.Kind == grammar.TokKey {
			pairs++
		}
		if t.Span.Start < li.Name.End || t.Span.Start >= argsEnd {
			continue
		}
		if args.words == 0 {
			summaryAt = t.Span.Start // the first word, if it is one
		}
		if t.Kind == grammar.TokKey {
			pr := &p.pairs[pairs-1]
			key := p.text[pr.Key.Start:pr.Key.End]
			k := pr.K
			end := pr.Key.End + 1
			value := pr.Value
			if value.Valid() {
				end = value.End
			}
			if k.CallMeta() {
				continue // metadata, not an argument of the call
			}
			args.word(p.text[t.Span.Start:end])
			alias := ""
			if hasAbbreviated && string(key) == abbreviated.rlog {
				alias = abbreviated.input
			}
			args.set(key, alias, p.text[value.Start:value.End])
			continue
		}
		args.word(p.text[t.Span.Start:t.Span.End])
	}
	if s := args.summary; summaryAt >= 0 && !p.copies && bytes.HasPrefix(p.text[summaryAt:], s) {
		// Written with one space between its words, as most are: the
		// summary is that part of the line.
		call.Summary = p.sub(summaryAt, summaryAt+len(s))
	} else {
		call.Summary = string(s)
	}
	if in, ok := p.metaGet(grammar.KeyInput); ok && json.Valid([]byte(in)) {
		call.Input = json.RawMessage(in)
		ev.Form.WholeInput = true
	} else if len(args.args) > 0 {
		in := &p.lines
		var own strblock.Room // the tests' reference: a slice of its own
		if p.copies {
			in = &own
		}
		call.Input = args.object(in)
	}
	ev.Kind = model.KindToolCall
	ev.Call = call
	var status string
	if li.Result.Valid() {
		status, _ = statusWord(p.textBetween(li.Result.Start, p.metaStart))
	}
	if li.Kind == grammar.ToolStart || !li.Result.Valid() {
		if status != "" && status != grammar.StatusRunning {
			ev.Extra.SetString("rlog_status", status)
		}
		if li.Kind == grammar.Tool {
			// A t: line without its result (`t:read x -> [64 lines]`,
			// an ASCII arrow): still one line, not a call that waits.
			ev.Form.Inline = true
		}
		return rd.emit(ev)
	}
	// t: and c: lines carry their result inline: a call and its result.
	ev.Form.Inline = true
	if err := rd.emit(ev); err != nil {
		return err
	}
	res := rd.event()
	*res = model.Event{Kind: model.KindToolResult, Loc: ev.Loc, Time: ev.Time, AgentID: ev.AgentID, Sidechain: ev.Sidechain}
	res.Result = rd.result(p, call.ID)
	res.Form.Inline = true
	return rd.emit(res)
}

// callArgs are a call's summary and input as its line is read, in
// buffers the reader keeps for every call: a call's line costs its summary
// and its input object, one copy each, not a string and a JSON value for
// each of its words and arguments. TestCallArgsEqualFields holds it to
// the model's fields (Fields.Set, then the object of them).
type callArgs struct {
	summary []byte    // the words and key=values, one space between
	words   int       // how many words summary has
	values  []byte    // each argument's value as JSON, one after another
	args    []callArg // the arguments by name, in the order first set
	obj     []byte    // the input object, built by object
}

// callArg is one argument: its name as written, or the tool's own name
// for it (alias, abbreviatedArgs), and where its value is in values.
type callArg struct {
	key        []byte
	alias      string
	start, end int
}

func (c *callArgs) reset() {
	c.summary, c.words, c.values, c.args = c.summary[:0], 0, c.values[:0], c.args[:0]
}

// word adds w to the summary.
func (c *callArgs) word(w []byte) {
	if c.words > 0 {
		c.summary = append(c.summary, ' ')
	}
	c.summary = append(c.summary, w...)
	c.words++
}

// set sets the argument key (alias, when not "") to the value written
// raw: the last value of a name wins, in the place of its first.
func (c *callArgs) set(key []byte, alias string, raw []byte) {
	start := len(c.values)
	c.values = appendArgJSON(c.values, raw)
	a := callArg{key: key, alias: alias, start: start, end: len(c.values)}
	for i := range c.args {
		if c.args[i].sameName(&a) {
			c.args[i].start, c.args[i].end = a.start, a.end
			return
		}
	}
	c.args = append(c.args, a)
}

func (a *callArg) sameName(b *callArg) bool {
	switch {
	case a.alias != "" && b.alias != "":
		return a.alias == b.alias
	case a.alias != "":
		return a.alias == string(b.key)
	case b.alias != "":
		return b.alias == string(a.key)
	}
	return bytes.Equal(a.key, b.key)
}

// object is the arguments as a JSON object, made in in (strblock.Room.Bytes).
func (c *callArgs) object(in *strblock.Room) json.RawMessage {
	b := append(c.obj[:0], '{')
	for i := range c.args {
		a := &c.args[i]
		if i > 0 {
			b = append(b, ',')
		}
		if a.alias != "" {
			b = strconv.AppendQuote(b, a.alias)
		} else {
			b = appendQuotedKey(b, a.key)
		}
		b = append(b, ':')
		b = append(b, c.values[a.start:a.end]...)
	}
	b = append(b, '}')
	c.obj = b
	return in.Bytes(b)
}

// appendQuotedKey is strconv.AppendQuote of key: key itself between
// quotes when it is printable ASCII without a quote or a backslash, as
// keys are.
func appendQuotedKey(b, key []byte) []byte {
	for _, c := range key {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return strconv.AppendQuote(b, string(key))
		}
	}
	b = append(b, '"')
	b = append(b, key...)
	return append(b, '"')
}

// appendArgJSON appends argValue(raw) to b: a plain word, or a quoted
// one, with nothing to escape is its JSON string as it stands, without the
// strings argValue makes of it. FuzzArgJSON holds the two equal.
func appendArgJSON(b, raw []byte) []byte {
	switch {
	case len(raw) > 0 && (raw[0] == '{' || raw[0] == '['):
	case plainJSON(raw):
		b = append(b, '"')
		b = append(b, raw...)
		return append(b, '"')
	case len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' && plainJSON(raw[1:len(raw)-1]):
		return append(b, raw...)
	}
	return append(b, argValue(string(raw))...)
}

// plainJSON reports whether s is a JSON string's contents as it stands:
// no control byte, quote, backslash or byte beyond ASCII.
func plainJSON(s []byte) bool {
	for _, c := range s {
		if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// argValue turns a written argument value into JSON: a JSON object or array
// stays one, a quoted string is unquoted, the rest is a string.
func argValue(raw string) json.RawMessage {
	if len(raw) > 0 && (raw[0] == '{' || raw[0] == '[') && json.Valid([]byte(raw)) {
		return json.RawMessage(raw)
	}
	return jsonString(unquote(raw))
}

// jsonString is s as a JSON string literal (no HTML escaping).
func jsonString(s string) json.RawMessage {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return model.MustJSON(s)
		}
	}
	return json.RawMessage(`"` + s + `"`)
}

func (rd *reader) result(p *lineParts, callID string) *model.ToolResult {
	r := rd.newResult()
	r.CallID = callID
	if !p.li.Result.Valid() {
		return r
	}
	status, rest := statusWord(p.textBetween(p.li.Result.Start, p.metaStart))
	switch status {
	case grammar.StatusOK, "":
	case grammar.StatusError, "err":
		r.IsError = true
	default:
		// [err: msg], [denied], [interrupted]: a failure with its word.
		r.IsError = grammar.StatusFails([]byte(status))
		r.Status = status
	}
	r.Content = rest
	if status == "" {
		r.Content = p.textBetween(p.li.Result.Start, p.metaStart)
	}
	return r
}

// statusWord splits "[ok] text" into "ok" and "text". `[err: msg]` gives
// "err: msg". Text without a leading bracket has no status.
func statusWord(s string) (string, string) {
	if !strings.HasPrefix(s, "[") {
		return "", s
	}
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return "", s
	}
	return s[1:end], strings.TrimSpace(s[end+1:])
}

func (rd *reader) lifecycle(p *lineParts, ev *model.Event) error {
	li := p.li
	verb := rd.names.of(p.text[li.Name.Start:li.Name.End])
	// @wait-approval: hyphenated verbs.
	for e := li.Name.End; e+1 < len(p.text) && p.text[e] == '-'; {
		n := e + 1
		for n < len(p.text) && (p.text[n] == '_' || p.text[n] == '-' || isAlnum(p.text[n])) {
			n++
		}
		if n == e+1 {
			break
		}
		verb = string(p.text[li.Name.Start:n])
		e = n
	}
	restAt := li.Name.Start + len(verb)
	if li.Kind == grammar.Phase {
		verb = grammar.VerbPhase
		restAt = li.Name.Start
	}
	rest := p.textBetween(restAt, len(p.text))
	ev.Extra = nil
	switch verb {
	case grammar.VerbInit:
		// model= and ts= are the line's metadata, not its text.
		ev.Kind = model.KindInit
		ev.Text = p.textBetween(li.Name.End, p.metaStart)
	case grammar.VerbCompact:
		ev.Kind = model.KindCompaction
		c := rd.newCompaction()
		for _, pr := range p.pairs {
			switch pr.K {
			case grammar.KeyTrigger:
				c.Trigger = p.value(pr)
			case grammar.KeyPreTokens:
				c.PreTokens, _ = strconv.ParseInt(p.value(pr), 10, 64)
			case grammar.KeyPostTokens:
				c.PostTokens, _ = strconv.ParseInt(p.value(pr), 10, 64)
			}
		}
		ev.Compaction = c
		ev.Text = compactionText(p.textBetween(li.Name.End, p.metaStart))
	default:
		ev.Kind = model.KindLifecycle
		ev.Name = verb
		ev.Text = rest
	}
	if verb == grammar.VerbEnd {
		var u model.Usage
		has := false
		for _, pr := range p.pairs {
			v := p.value(pr)
			n, err := strconv.ParseInt(v, 10, 64)
			switch key := pr.K; {
			case key == grammar.KeyCostUSD:
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					rd.endCost = &f
				}
			case err != nil:
			case key == grammar.KeyTokensIn:
				u.Input, has = n, true
			case key == grammar.KeyTokensOut:
				u.Output, has = n, true
			case key == grammar.KeyTokensCached:
				u.CacheRead, has = n, true
			case key == grammar.KeyTokensCacheCreate:
				u.CacheCreate, has = n, true
			case key == grammar.KeyNumTurns:
				rd.outcome().NumTurns = n
			case key == grammar.KeyDurationMS:
				rd.outcome().DurationMS = n
			}
			if pr.K == grammar.KeySuccess && (v == "true" || v == "false") {
				// The outcome a writer of rlog puts on @end.
				b := v == "true"
				rd.outcome().Success = &b
			}
		}
		if has && !u.IsZero() {
			rd.endTotals = &u
		}
		if ev.Time != "" {
			// The session's last @end says when it ended.
			rd.h.Ended = ev.Time
		}
	}
	if verb == grammar.VerbStart && rd.h.Started == "" {
		rd.h.Started = ev.Time
	}
	return rd.emit(ev)
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// parseTodos reads `[status] content [status] content ...`.
func parseTodos(s string) []model.Todo {
	var out []model.Todo
	for s != "" {
		status, rest := statusWord(s)
		if status == "" {
			if len(out) == 0 {
				out = append(out, model.Todo{Content: s})
			} else {
				out[len(out)-1].Content += " " + s
			}
			break
		}
		next := strings.Index(rest, " [")
		content := rest
		s = ""
		if next >= 0 {
			content, s = rest[:next], strings.TrimSpace(rest[next:])
		}
		out = append(out, model.Todo{Status: status, Content: strings.TrimSpace(content)})
	}
	return out
}

// continueText appends a continuation line to the held event's text. The
// text is built in rd.cont and made a string once, when the event is sent
// (flush): a text of n lines is one string, not n strings each a copy of
// the one before.
func (rd *reader) continueText(s []byte) bool {
	e := rd.pending
	if e == nil {
		return false
	}
	var text *string
	switch {
	case e.Kind == model.KindToolResult && e.Result != nil:
		text = &e.Result.Content
	case e.Kind == model.KindUser, e.Kind == model.KindAgent, e.Kind == model.KindThinking,
		e.Kind == model.KindComment, e.Kind == model.KindSystem, e.Kind == model.KindStatus:
		text = &e.Text
	default:
		return false
	}
	if rd.parts.copies {
		// The tests' reference (FuzzReadContinued): the text made again
		// at each line, as before the buffer.
		*text += "\n" + string(s)
		return true
	}
	if rd.contOf != text {
		rd.cont, rd.contOf = append(rd.cont[:0], *text...), text
	}
	rd.cont = append(append(rd.cont, '\n'), s...)
	return true
}

// maxKeptBuffer is the most a buffer the reader reuses from line to line
// (the continued text, a passed-through line's JSON) keeps once it is
// done with it: a larger one, made for one huge text, is let go rather
// than held until the read ends.
const maxKeptBuffer = 64 << 10

// smallBuffer is b emptied, or nil when its room is over maxKeptBuffer.
func smallBuffer(b []byte) []byte {
	if cap(b) > maxKeptBuffer {
		return nil
	}
	return b[:0]
}

// RawType of the passthrough events the reader makes: "rlog " and the line
// kind; Raw is the line as a JSON string.
const rawTypePrefix = "rlog "

// passthrough passes a line on whole; read, when set, is what common read
// of it (its usage is kept).
func (rd *reader) passthrough(p *lineParts, loc model.Loc, read *model.Event) error {
	text, li := p.text, p.li
	line := p.sub(0, len(text))
	if li.Flags&grammar.FlagInvalidUTF8 != 0 {
		line = strings.ToValidUTF8(line, "\uFFFD")
	}
	var raw json.RawMessage
	if p.copies {
		raw = model.StringJSON(line)
	} else {
		// Made in the room of lines, as a call's input object: one
		// allocation a block of lines, not one a line.
		rd.raw = model.AppendStringJSON(rd.raw[:0], line)
		raw = p.lines.Bytes(rd.raw)
		rd.raw = smallBuffer(rd.raw)
	}
	names := &passthroughNames[li.Kind]
	ev := rd.event()
	*ev = model.Event{
		Kind:    model.KindPassthrough,
		RawType: names.rawType,
		Raw:     raw,
		Text:    p.trimmed(0, len(text)),
		Loc:     loc,
	}
	if read != nil && read.Usage != nil {
		ev.Usage, ev.MessageID = rd.ownUsage(read.Usage), read.MessageID
	}
	rd.rep.Passthrough(ev, names.detail)
	return rd.emit(ev)
}

// passthroughNames are, for each line kind, the RawType of its passthrough
// events and the loss report's detail for them, made once rather than for
// every line.
var passthroughNames = func() (names [256]struct{ rawType, detail string }) {
	for k := range names {
		kind := grammar.Kind(k).String()
		if p := grammar.Kind(k).Prefix(); p != "" {
			kind = p
		}
		names[k].rawType = rawTypePrefix + kind
		names[k].detail = "rlog line " + kind + " (no event kind in the model; kept whole)"
	}
	return names
}()

// zTime rewrites an RFC 3339 timestamp with an offset in UTC with a Z: the
// rlog/1 reference parser drops offsets. Other strings are returned
// as they are, with ok false when they are no timestamp at all.
func zTime(ts string) (string, bool) {
	if ts == "" {
		return "", false
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		// ISO 8601 without a zone (Python isoformat): read as UTC.
		t, err = time.Parse("2006-01-02T15:04:05.999999999", ts)
		if err != nil {
			return ts, false
		}
	}
	frac := 0
	if i := strings.IndexByte(ts, '.'); i >= 0 {
		for j := i + 1; j < len(ts) && ts[j] >= '0' && ts[j] <= '9'; j++ {
			frac++
		}
	}
	layout := "2006-01-02T15:04:05"
	if frac > 0 {
		layout += "." + strings.Repeat("0", min(frac, 9))
	}
	return t.UTC().Format(layout) + "Z", true
}
