package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/usage"
)

// HoverInfo is Markdown about the token under the cursor and its span.
type HoverInfo struct {
	Markdown string
	Span     grammar.Span
}

// Hover explains the token at byte offset off: a line prefix, a metadata key
// or value, the result, a header field, or a marker. Of a long line it
// reads the tokens up to off, and what explaining its token needs.
func Hover(t *grammar.Tree, off int) (HoverInfo, bool) { return hover(t, off, false) }

// hover is Hover; with wholeLine it tokenizes all of the line (what Hover
// must answer the same as).
func hover(t *grammar.Tree, off int, wholeLine bool) (HoverInfo, bool) {
	n := t.LineAt(off)
	l := t.Line(n)
	li, text := t.Info(n)
	rel := off - l.Start
	stop := rel + 1
	if wholeLine {
		stop = len(text)
	}
	toks := grammar.AppendTokensUntil(nil, text, &li, stop)
	idx := -1
	for i, tok := range toks {
		if tok.Span.Start <= rel && rel < tok.Span.End || rel == tok.Span.End && rel > tok.Span.Start && (i+1 == len(toks) || toks[i+1].Span.Start > rel) {
			idx = i
			break
		}
	}
	if idx < 0 {
		return HoverInfo{}, false
	}
	h := hoverer{t: t, l: l, li: &li, text: text, toks: toks}
	md, span := h.token(idx)
	if md == "" {
		return HoverInfo{}, false
	}
	return HoverInfo{Markdown: md, Span: span.Shift(l.Start)}, true
}

type hoverer struct {
	t    *grammar.Tree
	l    grammar.Line
	li   *grammar.LineInfo
	text []byte
	toks []grammar.Token
}

func (h *hoverer) str(s grammar.Span) string { return string(h.text[s.Start:s.End]) }

func (h *hoverer) token(i int) (string, grammar.Span) {
	tok := h.toks[i]
	switch tok.Kind {
	case grammar.TokPrefix:
		if h.l.Kind == grammar.HeaderLine {
			return "A YAML list item of the header field above.", tok.Span
		}
		return kindDocs(h.l.Kind), tok.Span
	case grammar.TokName:
		return h.name(tok.Span), tok.Span
	case grammar.TokKey, grammar.TokEquals:
		key := tok.Span
		if tok.Kind == grammar.TokEquals && i > 0 {
			key = h.toks[i-1].Span
		}
		var value grammar.Span
		for _, v := range h.toks[i:] {
			if v.Key == key {
				value = v.Span
				break
			}
		}
		return h.pair(h.str(key), value), grammar.Span{Start: key.Start, End: max(value.End, key.End+1)}
	case grammar.TokValue, grammar.TokString, grammar.TokJSON:
		return h.pair(h.str(tok.Key), tok.Span), grammar.Span{Start: tok.Key.Start, End: tok.Span.End}
	case grammar.TokArrow:
		if h.str(tok.Span) == "->" {
			return "`->` is not read as a result arrow: only `→` (U+2192) starts a result, so this line has no result. See W011.", tok.Span
		}
		return h.result(), tok.Span
	case grammar.TokStatus:
		return h.result(), tok.Span
	case grammar.TokMarker:
		return markerDocs(h.str(tok.Span)), tok.Span
	case grammar.TokFlag:
		return "**interrupted**: the tool call was interrupted before it finished (by the user or a timeout).", tok.Span
	case grammar.TokDelimiter:
		if h.l.Num == h.t.Region().HeaderStart {
			return "Start of the YAML header. Lines before it are ignored.", tok.Span
		}
		return "End of the YAML header; the session's events follow.", tok.Span
	case grammar.TokHeaderKey, grammar.TokHeaderValue:
		return h.headerField(), tok.Span
	case grammar.TokText:
		if h.li.Arrow.Valid() && tok.Span.Start >= h.li.Arrow.End {
			return h.result(), tok.Span
		}
	case grammar.TokComment:
		if h.l.Kind == grammar.Preamble {
			return "Before the header: ignored by rlog/1 parsers.", tok.Span
		}
		return commentDocs(h.str(tok.Span)), tok.Span
	}
	return "", tok.Span
}

// kindDocs is the hover of a line's prefix: "**t!: tool start**: a tool
// call began. ..."
func kindDocs(k grammar.Kind) string {
	if k.Doc() == "" {
		return ""
	}
	return "**" + k.Title() + "**: " + k.Doc()
}

func (h *hoverer) name(s grammar.Span) string {
	name := h.str(s)
	switch h.l.Kind {
	case grammar.Lifecycle:
		verb := h.str(verbSpan(h.text, grammar.Line{Name: h.li.Name}))
		if v, ok := grammar.VerbNamed(verb); ok {
			return fmt.Sprintf("**@%s**: %s.", verb, v.Doc)
		}
		return fmt.Sprintf("**@%s**: not a known lifecycle event (see H001).", verb)
	case grammar.Phase:
		return fmt.Sprintf("**Phase `%s`**", name) + h.phaseSummary()
	case grammar.Subagent:
		return fmt.Sprintf("**Subagent `%s`**", name)
	case grammar.Mcp:
		return fmt.Sprintf("**MCP call** `%s`", name)
	case grammar.Mode:
		return fmt.Sprintf("**Mode** `%s`", name)
	}
	calls := 0
	for l := range h.t.Body() {
		if (l.Kind == grammar.ToolStart || l.Kind == grammar.Tool) && bytes.Equal(h.t.Slice(l.Name.Start, l.Name.End), []byte(name)) {
			calls++
		}
	}
	return fmt.Sprintf("**Tool `%s`**: %s in this session.", name, plural(calls, "call"))
}

// phaseSummary counts the phase's calls; its lines end where its outline
// entry and fold end, at the last non-empty line before the next phase.
func (h *hoverer) phaseSummary() string {
	calls, end := 0, h.l.Num
	for l := range h.t.LinesFrom(h.l.Num + 1) {
		if l.Kind == grammar.Phase {
			break
		}
		if l.Kind != grammar.Empty {
			end = l.Num
		}
		if l.Kind == grammar.ToolStart || l.Kind == grammar.Tool || l.Kind == grammar.Mcp {
			calls++
		}
	}
	return fmt.Sprintf(": lines %d–%d, %s.", h.l.Num+1, end+1, plural(calls, "tool call"))
}

func plural(n int, w string) string {
	if n == 1 {
		return "1 " + w
	}
	return fmt.Sprintf("%d %ss", n, w)
}

// pair explains key=value.
func (h *hoverer) pair(key string, value grammar.Span) string {
	val := ""
	if value.Valid() {
		val = h.str(value)
	}
	abs := value.Shift(h.l.Start)
	k, known := grammar.KeyNamed(key)
	switch {
	case known && k.Parsed():
		return h.metadata(k, val, abs)
	case k == grammar.KeyParentFull || k == grammar.KeyUUID || k == grammar.KeyIDFull:
		if ref, ok := RefAt(h.t, abs.Start); ok {
			return h.callHover(ref)
		}
	case k == grammar.KeySession || k == grammar.KeyStop:
		return fmt.Sprintf("**%s**: %s", k, k.Doc())
	case k == grammar.KeySummary || key == "desc": // desc=: the Task call's description, abbreviated
		return fmt.Sprintf("**%s**: %s", key, strings.Trim(val, `"`))
	case k == grammar.KeyInput:
		return inputDocs(val)
	case k == grammar.KeyCostUSD:
		return fmt.Sprintf("**cost**: $%s for the session.", val)
	}
	if h.l.Kind == grammar.ToolStart || h.l.Kind == grammar.Tool || h.l.Kind == grammar.Mcp {
		return fmt.Sprintf("**%s**: an argument of the call (writers abbreviate arguments; the full input is in the companion JSONL).", key)
	}
	return ""
}

// metadata explains a key the parser reads, with what its value says
// where that is more than the key's own doc.
func (h *hoverer) metadata(k grammar.Key, val string, abs grammar.Span) string {
	switch {
	case k == grammar.KeyID && h.l.ID.Valid():
		if ref, ok := RefAt(h.t, h.l.ID.Start); ok {
			return h.callHover(ref)
		}
	case k == grammar.KeyParent:
		if ref, ok := RefAt(h.t, abs.Start); ok {
			return h.callHover(ref)
		}
	case k == grammar.KeyTS:
		return h.timestamp(val)
	case k == grammar.KeyLatency:
		if n, err := strconv.ParseUint(val, 10, 64); err == nil {
			return fmt.Sprintf("**latency**: %s ms (%s).", GroupDigits(n), time.Duration(n)*time.Millisecond)
		}
	case k.IsUsage():
		return h.tokens()
	case k == grammar.KeyAttempt:
		if a, b, ok := strings.Cut(val, "/"); ok {
			return fmt.Sprintf("**attempt** %s of %s.", a, b)
		}
		return fmt.Sprintf("**attempt** %s.", val)
	case k == grammar.KeyModel:
		return fmt.Sprintf("**model** used for this message: `%s`.", strings.Trim(val, `"`))
	case k == grammar.KeyLevel:
		return fmt.Sprintf("**level**: severity `%s`.", val)
	}
	return fmt.Sprintf("**%s**: %s", k, k.Doc())
}

// callHover says what a call id or message names and where it is used.
func (h *hoverer) callHover(ref SymbolRef) string {
	occ := Occurrences(h.t, ref)
	var def *Occurrence
	for i := range occ {
		if occ[i].Def {
			def = &occ[i]
			break
		}
	}
	var b strings.Builder
	if ref.Kind == MessageRef {
		fmt.Fprintf(&b, "**Message `%s`**", ref.Name)
		if def != nil {
			dl := h.t.Line(def.Line)
			fmt.Fprintf(&b, ": %s on line %d.", kindName(dl.Kind), def.Line+1)
		} else {
			b.WriteString(": not in this file.")
		}
		fmt.Fprintf(&b, "\n\nWritten on %s.", plural(len(occ), "line"))
		return b.String()
	}
	fmt.Fprintf(&b, "**Call `%s`**", ref.Name)
	if def == nil {
		b.WriteString(": no line starts this call (see W002).")
		return b.String()
	}
	dl := h.t.Line(def.Line)
	tool := h.t.Slice(dl.Name.Start, dl.Name.End)
	fmt.Fprintf(&b, ": `%s%s`", dl.Kind.Prefix(), tool)
	dtext := h.t.Text(dl)
	dli := grammar.ScanLine(dtext)
	if target := callTarget(dtext, &dli); target != "" {
		fmt.Fprintf(&b, " %s", target)
	}
	fmt.Fprintf(&b, ", started on line %d.", def.Line+1)
	others := len(occ) - 1
	fmt.Fprintf(&b, "\n\nReferred to by %s", plural(others, "other line"))
	for _, o := range occ {
		ol := h.t.Line(o.Line)
		if ol.Kind == grammar.Observation {
			status := ""
			if ol.Result.Valid() {
				status = " " + summarize(h.t.Slice(ol.Result.Start, ol.Result.End), 40)
			}
			fmt.Fprintf(&b, "; completed on line %d:%s", o.Line+1, status)
			break
		}
	}
	b.WriteString(".")
	return b.String()
}

func kindName(k grammar.Kind) string {
	if s := k.Title(); s != "" {
		return s
	}
	return k.String()
}

// timestamp shows the absolute time and its distance from @start and from
// the previous timestamp in the file.
func (h *hoverer) timestamp(val string) string {
	ts, ok := parseTimestamp(val)
	if !ok {
		return fmt.Sprintf("**ts** `%s` is not an RFC 3339 timestamp (W005).", val)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**", ts.UTC().Format("Mon 2 Jan 2006 15:04:05.000 UTC"))
	if n, ok := h.startTimestampLine(); ok {
		start, _ := h.lineTimestamp(n)
		fmt.Fprintf(&b, "\n\n%s after `@start` (line %d)", signedDuration(ts.Sub(start)), n+1)
	}
	if n, ok := previousTimestampLine(h.t, h.l.Num); ok {
		prev, _ := h.lineTimestamp(n)
		fmt.Fprintf(&b, "\n\n%s after the previous timestamp (line %d)", signedDuration(ts.Sub(prev)), n+1)
	}
	return b.String()
}

func (h *hoverer) lineTimestamp(n int) (time.Time, bool) {
	l := h.t.Line(n)
	return parseTimestamp(string(h.t.Slice(l.TS.Start, l.TS.End)))
}

// startTimestampLine finds the first @start line with a valid ts= before the
// hovered line, through the chunk summaries.
func (h *hoverer) startTimestampLine() (int, bool) {
	t := h.t
	for i := range t.ChunkCount() {
		_, first, _ := t.ChunkAt(i)
		if first >= h.l.Num {
			break
		}
		if s := summaryOf(t, i); s.startTS >= 0 {
			n := first + s.startTS
			return n, n < h.l.Num
		}
	}
	return 0, false
}

// previousTimestampLine finds the last line with a valid ts= before line
// n: in its own chunk line by line, before it by summaries.
func previousTimestampLine(t *grammar.Tree, n int) (int, bool) {
	ci := t.ChunkIndexOfLine(n)
	_, first, _ := t.ChunkAt(ci)
	for n := n - 1; n >= first; n-- {
		if l := t.Line(n); l.Kind.IsBody() && l.TS.Valid() && ValidTimestamp(t.Slice(l.TS.Start, l.TS.End)) {
			return n, true
		}
	}
	for i := ci - 1; i >= 0; i-- {
		if s := summaryOf(t, i); s.lastTS >= 0 {
			_, first, _ := t.ChunkAt(i)
			return first + s.lastTS, true
		}
	}
	return 0, false
}

func parseTimestamp(s string) (time.Time, bool) { return timestampValue([]byte(s)) }

func signedDuration(d time.Duration) string {
	if d < 0 {
		return "−" + (-d).Round(time.Millisecond).String()
	}
	return "+" + d.Round(time.Millisecond).String()
}

// tokens shows the line's usage and the session's running totals, counted
// by the usage rule.
func (h *hoverer) tokens() string {
	c, mine, ch := runningUsage(h.t, h.l.Num)
	tot := c.Total()
	var b strings.Builder
	b.WriteString("**Token usage** of this message\n\n| | this message | session so far |\n|---|---:|---:|\n")
	row := func(name string, v, total uint64) {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", name, GroupDigits(v), GroupDigits(total))
	}
	row("input", mine.In, tot.In)
	row("output", mine.Out, tot.Out)
	row("cached", mine.Cached, tot.Cached)
	if mine.CacheCreate > 0 || tot.CacheCreate > 0 {
		row("cache created", mine.CacheCreate, tot.CacheCreate)
	}
	switch {
	case isEndSummary(h.t, h.l.Num):
		b.WriteString("\nOn `@end` these are the writer's session totals, not a message's usage.")
	case !ch.New && ch.Grew.IsZero():
		b.WriteString("\nThe same message's usage was already counted on an earlier line; it is not added again.")
	case !ch.New:
		b.WriteString("\nThe same message's usage was counted on an earlier line with smaller numbers; a message counts with its largest, so the session grows by the difference.")
	}
	return b.String()
}

// runningUsage returns the session's usage up to and including line n, the
// usage written on line n, and what it changed (a repeat of a message
// counted before changes nothing, or only what it raises).
func runningUsage(t *grammar.Tree, n int) (c *UsageCounter, mine grammar.Usage, ch usage.Change) {
	c = usageBefore(t, n)
	_, first, _ := t.ChunkAt(t.ChunkIndexOfLine(n))
	for u := range t.UsageFrom(first) {
		if u.Line > n {
			break
		}
		got := c.Add(t, u)
		if u.Line == n {
			mine, ch = u, got
		}
	}
	return c, mine, ch
}

// ByteSize writes a byte count for people: 812 B, 9.8 KB, 1.2 MB, 3.0 GB.
func ByteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// GroupDigits writes n with thousands separated by commas: 1,234,567.
func GroupDigits(n uint64) string {
	s := strconv.FormatUint(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// result explains the text after the arrow.
func (h *hoverer) result() string {
	if !h.li.Result.Valid() {
		return "**→** with nothing after it: the line has no result."
	}
	res := h.text[h.li.Result.Start:h.li.Result.End]
	status := ""
	if bytes.HasPrefix(res, []byte("[")) {
		// A status is a word or two: look no further for its end.
		if e := bytes.IndexByte(res[:min(len(res), maxStatusLen)], ']'); e > 0 {
			status = string(res[:e+1])
		}
	}
	var b strings.Builder
	b.WriteString("**Result**")
	if st, ok := grammar.StatusNamed(status); ok {
		fmt.Fprintf(&b, " `%s`: %s", status, st.Doc)
	}
	if status == "["+grammar.StatusRunning+"]" && h.l.ID.Valid() {
		ref := SymbolRef{Kind: CallRef, Name: string(h.t.Slice(h.l.ID.Start, h.l.ID.End))}
		done := false
		for _, o := range Occurrences(h.t, ref) {
			if l := h.t.Line(o.Line); l.Kind == grammar.Observation {
				fmt.Fprintf(&b, " It completed on line %d.", o.Line+1)
				done = true
				break
			}
		}
		if !done {
			b.WriteString(" It never completed in this file.")
		}
	}
	fmt.Fprintf(&b, "\n\n```text\n%s\n```", summarize(res, 400))
	return b.String()
}

// maxStatusLen bounds how far a result is read for its [status].
const maxStatusLen = 64

func markerDocs(m string) string {
	switch {
	case strings.HasPrefix(m, "@blob"):
		return "**Blob reference**: the full content is stored separately, named by its SHA-256 (`.bbox-blobs/<sha>`)."
	case strings.HasPrefix(m, "[redacted:"):
		return fmt.Sprintf("**Redacted value** of kind `%s`: the writer removed a secret or private value.", strings.TrimSuffix(strings.TrimPrefix(m, "[redacted:"), "]"))
	}
	return "**Redacted value** (legacy form): a value was removed, but its kind was not recorded. rlog/1 writes `[redacted:kind]` (H002)."
}

func commentDocs(c string) string {
	switch {
	case strings.HasPrefix(c, "status:"):
		return "**# status**: the agent's status changed (e.g. `Compacting`: the context is being compacted)."
	case strings.HasPrefix(c, "queue:"):
		return "**# queue**: a queued user message (Claude Code's queue operations)."
	case strings.HasPrefix(c, "file-snapshot:"):
		return "**# file-snapshot**: Claude Code recorded file backups before an edit."
	}
	return ""
}

func inputDocs(val string) string {
	var v any
	if err := json.Unmarshal([]byte(val), &v); err != nil {
		return "**input**: the call's full input, as JSON (not valid JSON here: " + err.Error() + ")."
	}
	pretty, _ := json.MarshalIndent(v, "", "  ")
	s := string(pretty)
	if len(s) > 2000 {
		s = s[:2000] + "\n…"
	}
	return "**input**: the call's full input.\n\n```json\n" + s + "\n```"
}

func (h *hoverer) headerField() string {
	hd := h.t.Header()
	var f *grammar.HeaderField
	for i := range hd.Fields {
		if hd.Fields[i].Line == h.l.Num {
			f = &hd.Fields[i]
		}
	}
	if f == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**", f.Key)
	if spec, ok := grammar.FieldSpecNamed(f.Key); ok {
		b.WriteString(": " + spec.Doc)
	} else {
		b.WriteString(": not a field of rlog/1; kept as extra metadata.")
	}
	switch f.Kind {
	case grammar.Null:
		b.WriteString("\n\nThe value is empty (null), which counts as missing.")
	case grammar.Scalar:
		fmt.Fprintf(&b, "\n\nValue: `%s`", f.Value)
	}
	if strings.HasPrefix(f.Key, "tokens_") {
		s := SessionStats(h.t)
		sum := map[string]uint64{"tokens_total_in": s.TokensIn, "tokens_total_out": s.TokensOut, "tokens_cached": s.TokensCached, "tokens_cache_create": s.TokensCacheCreate}[f.Key]
		fmt.Fprintf(&b, "\n\nThe lines add up to %s (each message counted once).", GroupDigits(sum))
	}
	return b.String()
}
