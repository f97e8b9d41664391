package analysis

import (
	"bytes"
	"cmp"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// CompletionKind says what a completion candidate is.
type CompletionKind uint8

const (
	CompleteCallID    CompletionKind = iota + 1 // a call id after id=
	CompleteTool                                // a tool name after t!: or t:
	CompleteKey                                 // a metadata key, key=
	CompleteVerb                                // a lifecycle event after @
	CompleteHeaderKey                           // a header field
	CompleteSnippet                             // a t!: line with its o: line
	CompleteStatus                              // a result's status after "→ ["
)

// Completion is one candidate for the text at the cursor.
type Completion struct {
	Label  string
	Kind   CompletionKind
	Detail string // one line: where a call started, what a key is
	Doc    string // Markdown
	// Insert replaces Replace, a span of the cursor's line (the word being
	// typed, which may be empty). With Snippet it is in the LSP snippet
	// syntax ($1, ${2:id}) and may span lines.
	Insert  string
	Snippet bool
	Replace grammar.Span
}

// maxCompletions bounds a list: the candidates are filtered by what has
// been typed, so a client asks again as the word grows.
const maxCompletions = 200

// Complete returns the candidates for the text at byte offset off: call
// ids after id= on the lines that refer to a call (calls without a result
// first), tool names after t!: and t:, the metadata keys that fit the
// line's kind, lifecycle events after @, header fields in the header, and
// at the start of an empty line a t!: line with its o: line, and a
// result's status after the line's first "→ [". Candidates
// start with the word being typed. Keys in free text (messages, thinking,
// a result) are offered only when asked for (invoked), not while typing.
func Complete(t *grammar.Tree, off int, invoked bool) []Completion {
	off = max(0, min(off, t.Len()))
	n := t.LineAt(off)
	l := t.Line(n)
	text := t.Text(l)
	rel := min(off-l.Start, len(text))
	c := completer{t: t, l: l, n: n, text: text, rel: rel, invoked: invoked}
	c.ws, c.we = rel, rel
	for c.ws > 0 && isKeyByte(text[c.ws-1]) {
		c.ws--
	}
	for c.we < len(text) && isKeyByte(text[c.we]) {
		c.we++
	}
	c.word = string(text[c.ws:rel])
	r := t.Region()
	if r.HeaderStart >= 0 && n > r.HeaderStart && (r.HeaderEnd < 0 || n < r.HeaderEnd) {
		return c.headerKeys()
	}
	if !l.Kind.IsBody() {
		return nil
	}
	return c.body()
}

type completer struct {
	t       *grammar.Tree
	l       grammar.Line
	n       int
	text    []byte
	rel     int
	ws, we  int    // the word around the cursor (key characters), relative to the line
	word    string // its part before the cursor
	invoked bool
}

func isKeyByte(b byte) bool {
	return b == '_' || b == '.' || b == '-' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// span is a span of the line, relative to it, made absolute.
func (c *completer) span(start, end int) grammar.Span {
	return grammar.Span{Start: c.l.Start + start, End: c.l.Start + end}
}

// hasPrefix filters candidates by the word typed so far, ignoring case.
func hasPrefix(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func (c *completer) body() []Completion {
	text, rel := c.text, c.rel
	// At the start of a line (nothing after the cursor): the t!: and o:
	// snippet while "t!:" is being typed.
	start := grammar.ToolStart.Prefix()
	if len(bytes.TrimSpace(text[rel:])) == 0 && strings.HasPrefix(start, string(text[:rel])) {
		if rel == len(start) {
			return append(c.tools(rel), c.snippet()...)
		}
		return c.snippet()
	}
	ts := 0
	for ts < len(text) && (text[ts] == ' ' || text[ts] == '\t') {
		ts++
	}
	if ts > 0 {
		return nil // a continuation line: free text
	}
	switch {
	case c.atStatus():
		return c.statuses()
	case bytes.HasPrefix(text, []byte(grammar.Lifecycle.Prefix())) && c.ws == len(grammar.Lifecycle.Prefix()):
		return c.verbs()
	case c.ws > 0 && text[c.ws-1] == '=':
		return c.values()
	}
	if prefixEnd, ok := toolPrefix(text); ok && c.ws == prefixEnd && rel >= prefixEnd {
		return c.tools(prefixEnd)
	}
	if c.ws == 0 || text[c.ws-1] != ' ' && text[c.ws-1] != '\t' {
		return nil
	}
	return c.keys()
}

// toolPrefix recognises t!:, t: and t~: lines, typed so far or whole, and
// returns where the tool name starts.
func toolPrefix(text []byte) (int, bool) {
	for _, k := range [...]grammar.Kind{grammar.ToolStart, grammar.ToolProgress, grammar.Tool} {
		if p := k.Prefix(); bytes.HasPrefix(text, []byte(p)) {
			return len(p), true
		}
	}
	return 0, false
}

// snippet is a tool call: its t!: line and the o: line that completes it,
// sharing an id no line of the document has.
func (c *completer) snippet() []Completion {
	id := c.freshID()
	start, obs, idKey := grammar.ToolStart.Prefix(), grammar.Observation.Prefix(), grammar.KeyID.String()+"="
	running, ok := "["+grammar.StatusRunning+"]", grammar.StatusOK
	return []Completion{{
		Label:   start + " tool call with its " + obs + " result",
		Kind:    CompleteSnippet,
		Detail:  start + "Tool " + idKey + id + " … → " + running + " and " + obs + " " + idKey + id + " → [" + ok + "] …",
		Doc:     "A tool call that started (`" + start + "`) and the observation that completes it (`" + obs + "`), with a new call id.",
		Insert:  start + "${1:Tool} " + idKey + id + " ${2:file_path=${3:path}} → " + running + "\n" + obs + " " + idKey + id + " → [${4:" + ok + "}] $0",
		Snippet: true,
		Replace: c.span(0, c.rel),
	}}
}

// freshID makes a call id that the document does not use, in the style of
// the ids writers make (eight letters and digits), the same for the same
// document and place.
func (c *completer) freshID() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	for salt := 0; ; salt++ {
		h := fnv.New64a()
		fmt.Fprintf(h, "%d/%d/%d", c.t.Len(), c.n, salt)
		v := h.Sum64()
		var b [8]byte
		for i := range b {
			b[i] = alphabet[v%uint64(len(alphabet))]
			v /= uint64(len(alphabet))
		}
		if len(Occurrences(c.t, SymbolRef{Kind: CallRef, Name: string(b[:])})) == 0 {
			return string(b[:])
		}
	}
}

// atStatus reports whether the word at the cursor follows "[" right
// after the line's first result arrow (and its spaces): a status.
func (c *completer) atStatus() bool {
	before := c.text[:c.ws]
	if len(before) == 0 || before[len(before)-1] != '[' {
		return false
	}
	before = bytes.TrimRight(before[:len(before)-1], " \t")
	arrow := "→"
	return bytes.HasSuffix(before, []byte(arrow)) && bytes.Index(c.text, []byte(arrow)) == len(before)-len(arrow)
}

// statuses completes a result's status with the vocabulary's, closing
// the bracket unless it is there.
func (c *completer) statuses() []Completion {
	closing := "]"
	if c.we < len(c.text) && c.text[c.we] == ']' {
		closing = ""
	}
	var out []Completion
	for _, s := range grammar.Statuses {
		word := strings.Trim(s.Word, "[]")
		if !hasPrefix(word, c.word) {
			continue
		}
		out = append(out, Completion{Label: s.Word, Kind: CompleteStatus, Detail: s.Doc, Insert: word + closing,
			Replace: c.span(c.ws, c.we)})
	}
	return out
}

func (c *completer) verbs() []Completion {
	var out []Completion
	for _, v := range grammar.Verbs {
		if !hasPrefix(v.Name, c.word) {
			continue
		}
		insert := v.Name
		if v.Name == "phase" {
			insert = "phase " // @phase NAME
		}
		out = append(out, Completion{Label: "@" + v.Name, Kind: CompleteVerb, Detail: v.Doc, Insert: insert,
			Replace: c.span(c.ws, c.we)})
	}
	return out
}

// headerKeys completes a header field's key with the fields not written
// yet, in the order writers put them (the required ones first).
func (c *completer) headerKeys() []Completion {
	if c.ws != 0 || bytes.IndexByte(c.text[:c.rel], ':') >= 0 {
		return nil // indented (a list item) or past the key
	}
	h := c.t.Header()
	var out []Completion
	for _, f := range grammar.FieldSpecs {
		if h.Field(f.Name) != nil || !hasPrefix(f.Name, c.word) {
			continue
		}
		detail := "optional"
		if f.Required {
			detail = "required"
		}
		out = append(out, Completion{Label: f.Name, Kind: CompleteHeaderKey, Detail: detail, Doc: f.Doc,
			Insert: f.Name + ": ", Replace: c.span(0, c.we)})
	}
	return out
}

// values completes the value of key=: call ids after id= on the lines that
// refer to a call.
func (c *completer) values() []Completion {
	ke := c.ws - 1
	ks := ke
	for ks > 0 && isKeyByte(c.text[ks-1]) {
		ks--
	}
	if string(c.text[ks:ke]) != grammar.KeyID.String() || ks > 0 && c.text[ks-1] != ' ' && c.text[ks-1] != '\t' {
		return nil
	}
	var wantKinds func(grammar.Kind) bool
	switch {
	case bytes.HasPrefix(c.text, []byte(grammar.Observation.Prefix())), bytes.HasPrefix(c.text, []byte(grammar.ToolProgress.Prefix())):
		wantKinds = grammar.Kind.RegistersID
	case bytes.HasPrefix(c.text, []byte(grammar.Subagent.Prefix())):
		wantKinds = func(k grammar.Kind) bool { return k == grammar.Subagent }
	default:
		return nil // a line that starts a call names a new one
	}
	// The value ends where the parser's id ends (\w+).
	end := c.rel
	for end < len(c.text) && (isAlnum(c.text[end]) || c.text[end] == '_') {
		end++
	}
	picked := c.calls(wantKinds)
	var out []Completion
	for _, ci := range picked {
		dl := c.t.Line(ci.defLine)
		dtext := c.t.Text(dl)
		dli := grammar.ScanLine(dtext)
		what := fmt.Sprintf("%s%s", dl.Kind.Prefix(), c.t.Slice(dl.Name.Start, dl.Name.End))
		if target := callTarget(dtext, &dli); target != "" {
			what += " " + target
		}
		state := "no result yet"
		if ci.completed {
			state = "completed"
		}
		out = append(out, Completion{
			Label: ci.name, Kind: CompleteCallID,
			Detail:  fmt.Sprintf("%s, line %d, %s", what, ci.defLine+1, state),
			Insert:  ci.name,
			Replace: c.span(c.ws, end),
		})
	}
	return out
}

// callWindow is how many lines above the cursor are always read for call
// ids; further up only until enough are found. It counts lines, not
// chunks, so that the answer does not depend on where edits left chunk
// boundaries.
const callWindow = 8192

// calls lists the calls registered above the cursor by lines of the kinds
// wanted, whose id starts with the word typed: those without a result
// between their start and the cursor first, then the others, the nearest
// first in each, at most maxCompletions. It walks up from the cursor line
// by line, skipping the chunks whose summary holds no id that starts with
// the word, so its cost follows how far up it has to look, not the size of
// the document.
func (c *completer) calls(want func(grammar.Kind) bool) []callInfo {
	var open, done []callInfo
	completed := map[string]bool{} // completed between its start and the cursor
	taken := map[string]bool{}
	add := func(name string, line int, kind grammar.Kind) {
		if taken[name] || !want(kind) || !hasPrefix(name, c.word) {
			return
		}
		taken[name] = true
		ci := callInfo{name: name, defLine: line, completed: completed[name]}
		if ci.completed {
			done = append(done, ci)
		} else {
			open = append(open, ci)
		}
	}
	t := c.t
	var lines []grammar.Line
	for i := t.ChunkIndexOfLine(c.n); i >= 0; i-- {
		if !slices.ContainsFunc(summaryOf(t, i).idOrder, func(name string) bool { return hasPrefix(name, c.word) }) {
			continue // no line of it names a call the word can complete
		}
		lines = lines[:0]
		for l := range t.ChunkLines(i) {
			if l.Num >= c.n {
				break
			}
			lines = append(lines, l)
		}
		for k := len(lines) - 1; k >= 0; k-- {
			l := lines[k]
			if c.n-l.Num > callWindow && len(open)+len(done) >= maxCompletions {
				return append(open, done...)[:maxCompletions]
			}
			if !l.Kind.IsBody() || !l.ID.Valid() || l.Kind == grammar.User {
				continue
			}
			name := string(t.Slice(l.ID.Start, l.ID.End))
			if l.Kind == grammar.Observation || l.Kind == grammar.Tool && l.Result.Valid() {
				completed[name] = true
			}
			if l.Kind.RegistersID() {
				add(name, l.Num, l.Kind)
			}
		}
	}
	return append(open, done...)[:min(len(open)+len(done), maxCompletions)]
}

// tools completes a tool name with the names the session uses, the most
// used first.
func (c *completer) tools(start int) []Completion {
	end := start
	for end < len(c.text) && c.text[end] != ' ' && c.text[end] != '\t' {
		end++
	}
	counts := toolNames(c.t)
	// The name being typed is not one the session uses.
	typed := ""
	if c.l.Kind == grammar.ToolStart || c.l.Kind == grammar.Tool {
		typed = string(c.t.Slice(c.l.Name.Start, c.l.Name.End))
	}
	names := make([]string, 0, len(counts))
	for name, n := range counts {
		if name == typed {
			n--
		}
		if n > 0 && hasPrefix(name, c.word) {
			names = append(names, name)
		}
	}
	count := func(name string) int {
		if name == typed {
			return counts[name] - 1
		}
		return counts[name]
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(count(b), count(a)), cmp.Compare(a, b))
	})
	var out []Completion
	for _, name := range names[:min(len(names), maxCompletions)] {
		out = append(out, Completion{Label: name, Kind: CompleteTool, Detail: plural(count(name), "call") + " in this session",
			Insert: name, Replace: c.span(start, end)})
	}
	return out
}

// proseKinds are lines of free text, where a word is rarely a key.
func (c *completer) inProse() bool {
	switch c.l.Kind {
	case grammar.User, grammar.Agent, grammar.Thinking, grammar.Todos, grammar.Comment, grammar.Unknown, grammar.Empty:
		return true
	}
	// A result is free text too, but for the usage t!: lines carry after it.
	return c.l.Kind != grammar.ToolStart && c.l.Arrow.Valid() && c.l.Start+c.ws >= c.l.Arrow.End
}

// keyWindow is how many lines, and keyWindowBytes how many bytes, on each
// side of the cursor's line are read for the keys lines of the same kind
// use: lines and bytes, not chunks, so that the answer does not depend on
// where edits left chunk boundaries.
const (
	keyWindow      = 1024
	keyWindowBytes = 128 << 10
)

func (c *completer) keys() []Completion {
	if c.inProse() && !c.invoked {
		return nil
	}
	if c.l.Name.Valid() && c.l.Start+c.ws < c.l.Name.End || c.ws < c.l.Content-c.l.Start {
		return nil // the line's prefix or name
	}
	li := grammar.ScanLine(c.text)
	present := map[string]bool{}
	for _, p := range grammar.Pairs(c.text, &li) {
		if p.Key.Start != c.ws {
			present[string(c.text[p.Key.Start:p.Key.End])] = true
		}
	}
	// The keys that fit the line's kind (grammar's table), and those the
	// document's lines of the same kind use nearby.
	base := c.l.Kind.Keys()
	counts := map[string]int{}
	for _, k := range base {
		counts[k.String()] = 0
	}
	// Keys the document's lines of this kind use around here: a tool's
	// arguments (file_path=, cmd=) on the same tool's lines, a converter's
	// (session=, uuid=).
	isCall := c.l.Kind == grammar.ToolStart || c.l.Kind == grammar.Tool
	tool := c.t.Slice(c.l.Name.Start, c.l.Name.End)
	for ol := range c.t.LinesFrom(max(0, c.n-keyWindow)) {
		if ol.Num > c.n+keyWindow || ol.Start > c.l.Next+keyWindowBytes {
			break
		}
		if ol.Start < c.l.Start-keyWindowBytes || ol.Kind != c.l.Kind || ol.Num == c.n {
			continue
		}
		otext := c.t.Text(ol)
		if isCall && !bytes.Equal(otext[ol.Name.Start-ol.Start:ol.Name.End-ol.Start], tool) {
			continue
		}
		oli := grammar.ScanLine(otext)
		for _, p := range grammar.Pairs(otext, &oli) {
			counts[string(otext[p.Key.Start:p.Key.End])]++
		}
	}
	names := make([]string, 0, len(counts))
	for k := range counts {
		if !present[k] && hasPrefix(k, c.word) && k != c.word {
			names = append(names, k)
		}
	}
	rank := func(k string) int {
		if i := slices.IndexFunc(base, func(b grammar.Key) bool { return b.String() == k }); i >= 0 {
			return i
		}
		return len(base)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(rank(a), rank(b)), cmp.Compare(a, b))
	})
	var out []Completion
	for _, k := range names[:min(len(names), maxCompletions)] {
		item := Completion{Label: k, Kind: CompleteKey, Detail: keyDetail(k, counts[k]), Insert: k + "=",
			Replace: c.span(c.ws, c.we)}
		if key, ok := grammar.KeyNamed(k); ok && key.Parsed() {
			item.Doc = "**" + k + "**: " + key.Doc()
		}
		out = append(out, item)
	}
	return out
}

// keyDetail says what a key offered is: one of the format's metadata keys
// (grammar.Key.Parsed), or a key lines nearby use.
func keyDetail(key string, uses int) string {
	if k, ok := grammar.KeyNamed(key); ok && k.Parsed() {
		if uses > 0 {
			return fmt.Sprintf("metadata key, on %s of this kind nearby", plural(uses, "line"))
		}
		return "metadata key"
	}
	if uses > 0 {
		return fmt.Sprintf("on %s of this kind nearby", plural(uses, "line"))
	}
	return ""
}

// callInfo is a call id offered for completion.
type callInfo struct {
	name      string
	defLine   int // the nearest line above the cursor that registers it
	completed bool
}

type toolNamesKey struct{}

// toolNames counts the calls of each tool (t!: and t: lines), once per
// chunk and per tree.
func toolNames(t *grammar.Tree) map[string]int {
	return t.Memo(toolNamesKey{}, func() any {
		all := map[string]int{}
		for i := range t.ChunkCount() {
			c, first, _ := t.ChunkAt(i)
			count := func() any {
				m := map[string]int{}
				for l := range t.ChunkLines(i) {
					if (l.Kind == grammar.ToolStart || l.Kind == grammar.Tool) && l.Name.Valid() {
						m[string(t.Slice(l.Name.Start, l.Name.End))]++
					}
				}
				return m
			}
			var m map[string]int
			if first >= t.Region().BodyStart {
				m = c.Memo(toolNamesKey{}, count).(map[string]int)
			} else {
				m = count().(map[string]int)
			}
			for name, n := range m {
				all[name] += n
			}
		}
		return all
	}).(map[string]int)
}
