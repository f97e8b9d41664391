package rlogfmt

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/convert/internal/idset"
	"github.com/rlog-ls/rlog-ls/convert/internal/jsonw"
	"github.com/rlog-ls/rlog-ls/convert/internal/recent"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// The autopilot writer's limits (docs/format.md#truncation), applied where rlog is
// the summary of a fuller source. From an rlog source nothing is cut.
const (
	LimitUser     = 200
	LimitAgent    = 200
	LimitThinking = 150
	LimitOutput   = 100
	LimitSummary  = 80
	LimitSig      = 20
	LimitTodo     = 30
	LimitComment  = 1000 // passthrough records written as # comments
	limitArg      = 50
	limitArgs     = 200
)

// NullSHA is written as repo_sha when neither the options nor the source
// give one: git's own "no object" id. `unknown`, the real converter's
// placeholder, fails the rules' repo_sha check (W009) on its own output;
// this value passes it and still says plainly that there is no commit. It
// is reported as a synthesized value.
const NullSHA = grammar.NullRepoSHA

// Write writes s as rlog/1.
func Write(w io.Writer, s *model.Session, rep *model.Report, opt model.Options) error {
	return model.Replay(s, NewWriter(w, rep, opt))
}

// NewWriter returns an rlog writer (a model.Sink) that writes as events
// arrive: the header at the first event, then one line per event. It holds
// back only the events of one model response at a time (to put the
// response's usage, merged, on its first line), a call written on one line
// with its result, and a lifecycle end (the last one gets the totals).
func NewWriter(w io.Writer, rep *model.Report, opt model.Options) model.Sink {
	return &writer{
		bw:        bufio.NewWriterSize(w, 1<<16),
		rep:       rep,
		opt:       opt,
		cur:       recent.New[string](recentIDs),
		open:      map[string]openCalls{},
		agentType: recent.New[string](recentIDs),
	}
}

// recentIDs is how many source call ids the writer remembers for results
// and sub-agent lines that refer to them.
const recentIDs = 4096

// The bound on one held response: a response of more events (or bytes) is
// written in parts, each with the usage merged so far.
const (
	maxRunEvents = 4096
	maxRunBytes  = 16 << 20
)

type writer struct {
	bw   *bufio.Writer
	line line // the line being written (newLine)
	// runLedger merges the usage of the held response (flushRun).
	runLedger model.Ledger
	rep       *model.Report
	opt       model.Options
	h         *model.Header
	same      bool // the source is rlog: nothing is cut, lines keep their forms
	err       error

	begun  bool
	wrote  writtenHeader // what the header said, to report what came later
	ledger model.Ledger  // session totals, for @end
	ids    int           // events with DAG ids (reported as dropped)

	// side is the x: line id of the sub-agent whose turns are being
	// written when they name no agent (Claude Code 1.x's inline
	// sidechains): their tid=.
	side string
	// totalsInHeader is set when the header (or the source's own @end)
	// has the session's totals; costWritten when a line has its cost.
	totalsInHeader, costWritten bool
	// run is the response being held: events of one message id.
	run      []*model.Event
	runBytes int
	// heldCall is a call the source wrote on one line with its result
	// (t:), waiting for that result; heldEnd a lifecycle end, which gets
	// the totals when it is the last.
	heldCall *model.Event
	heldUse  *model.Usage // nil or &heldUsage
	heldEnd  *model.Event
	fullEnd  bool // the last @end written has the totals
	// runUsage is the held response's merged usage, and heldUsage the
	// held call's: kept here, not in a variable of their own per
	// response (which the pointers passed on would move to the heap).
	runUsage, heldUsage model.Usage
	// cont is text's list of continuation lines, reused.
	cont []string

	// cur maps recent source call ids to the rlog id of their latest call;
	// open holds the rlog ids of calls without a result yet, oldest first,
	// per source id (emptied entries are removed; openCalls). used has a
	// 64-bit hash of every rlog id given (from a source other than rlog,
	// whose ids are written as they are): uniqueness needs the whole
	// session's set, and a hash is the smallest thing that tells them
	// apart.
	cur   *recent.Map[string]
	open  map[string]openCalls
	used  idset.Set
	ncall int
	// agentType is the subagent_type of recent Task calls, by source id:
	// Claude's sub-agent events do not repeat it.
	agentType *recent.Map[string]
}

// openCalls are the rlog ids of one source id's calls without a result,
// oldest first. A source id has one open call at a time, but where a
// source reused it for calls in flight together (the early autopilot
// logs' toolu_01): that one is first, in the map's value itself, and only
// the others take a slice (a slice for every call was a tenth of the
// writer's allocations).
type openCalls struct {
	first string
	more  []string
}

// addOpen adds id, the rlog id of a call of source id src, as the newest
// of src's open calls.
func (wr *writer) addOpen(src, id string) {
	q, ok := wr.open[src]
	if !ok {
		wr.open[src] = openCalls{first: id}
		return
	}
	q.more = append(q.more, id)
	wr.open[src] = q
}

// answerOldest takes the oldest open call of source id src off its list
// and returns its rlog id.
func (wr *writer) answerOldest(src string) (string, bool) {
	q, ok := wr.open[src]
	if !ok {
		return "", false
	}
	if len(q.more) == 0 {
		delete(wr.open, src)
	} else {
		wr.open[src] = openCalls{first: q.more[0], more: q.more[1:]}
	}
	return q.first, true
}

// answerNewest takes the newest open call of source id src off its list.
func (wr *writer) answerNewest(src string) {
	q, ok := wr.open[src]
	switch {
	case !ok:
	case len(q.more) == 0:
		delete(wr.open, src)
	default:
		q.more = q.more[:len(q.more)-1]
		wr.open[src] = q
	}
}

// writtenHeader is what the header said when it was written.
type writtenHeader struct {
	fields map[string]string
	model  string // fields["model"], which meta compares every line with
	extra  map[string]bool
}

// writeLine writes the concatenation of parts and a line break.
func (wr *writer) writeLine(parts ...string) {
	for _, p := range parts {
		if wr.err == nil {
			_, wr.err = wr.bw.WriteString(p)
		}
	}
	if wr.err == nil {
		wr.err = wr.bw.WriteByte('\n')
	}
}

// Event implements model.Sink.
func (wr *writer) Event(h *model.Header, e *model.Event) error {
	if !wr.begun {
		wr.begin(h, e)
	}
	if !wr.same {
		// The totals @end writes (an rlog source's own @end has its own).
		wr.ledger.Add(e)
	}
	if e.ID != "" || e.ParentID != "" {
		wr.ids++
	}
	if len(wr.run) > 0 && e.MessageID == wr.run[0].MessageID && len(wr.run) < maxRunEvents && wr.runBytes < maxRunBytes {
		wr.run = append(wr.run, e)
		wr.runBytes += len(e.Text) + 200
		return wr.err
	}
	wr.flushRun()
	if e.MessageID != "" {
		wr.run = append(wr.run, e)
		wr.runBytes = len(e.Text) + 200
		return wr.err
	}
	wr.write(e, e.Usage)
	return wr.err
}

// End implements model.Sink.
func (wr *writer) End(h *model.Header) error {
	wr.h = h
	if !wr.begun {
		wr.begin(h, nil)
	}
	wr.flushRun()
	if c := wr.heldCall; c != nil {
		wr.heldCall = nil
		wr.toolCall(c, wr.heldUse, nil)
	}
	if !wr.same {
		if e := wr.heldEnd; e != nil {
			wr.heldEnd = nil
			wr.end(e)
		} else if !wr.fullEnd {
			wr.end(nil)
		}
	}
	if wr.ids > 0 {
		wr.rep.LoseN(model.LossDroppedField, "*.id, *.parent", "entry uuid and parentUuid (the message DAG; rlog keeps the order only)", model.Loc{}, wr.ids)
	}
	wr.reportLateHeader()
	if err := wr.bw.Flush(); err != nil && wr.err == nil {
		wr.err = err
	}
	return wr.err
}

// flushRun writes the held response: its merged usage on its first line.
// An empty agent text (a turn that only calls tools, as mini-prophet and
// ATIF write them) is left out when the response has other events.
func (wr *writer) flushRun() {
	run := wr.run
	if len(run) == 0 {
		return
	}
	wr.run = wr.run[:0]
	var usage *model.Usage
	if !wr.same {
		// The response's usage on its first line (an rlog source's
		// lines keep their own: below).
		l := &wr.runLedger
		l.Reset()
		for _, e := range run {
			if e.Usage != nil {
				l.AddUsage(e.MessageID, *e.Usage)
			}
		}
		if !l.Empty() {
			wr.runUsage = l.Total()
			usage = &wr.runUsage
		}
	}
	empty := func(e *model.Event) bool {
		return e.Kind == model.KindAgent && strings.TrimSpace(e.Text) == "" && len(run) > 1
	}
	// A left-out empty text's usage can be the response's largest (an
	// ATIF step whose texts were joined keeps each text's usage, the
	// last one's on an event without text): it goes to the first line
	// that has usage, never away.
	var dropped *model.Usage
	takes := -1 // the event that takes it
	for i, e := range run {
		switch {
		case empty(e) && e.Usage != nil:
			u := *e.Usage
			if dropped != nil {
				u = u.Max(*dropped)
			}
			dropped = &u
		case !empty(e) && (takes < 0 || run[takes].Usage == nil && e.Usage != nil):
			takes = i
		}
	}
	for i, e := range run {
		if empty(e) {
			wr.dropExtras(e)
			continue
		}
		if wr.same {
			// An rlog source's lines each with the usage they had: the
			// response's on each line that repeated it, none on a line
			// without (whose text may swallow what follows it).
			u := e.Usage
			if i == takes && dropped != nil {
				m := *dropped
				if u != nil {
					m = m.Max(*u)
				}
				u = &m
			}
			wr.write(e, u)
			continue
		}
		if e.Kind == model.KindPassthrough {
			// A comment, which carries no usage: the next line does.
			wr.write(e, nil)
			continue
		}
		wr.write(e, usage)
		usage = nil
	}
	clear(run)
}

// write writes e with usage (nil for none) on its line, holding back a
// call written inline with its result and a lifecycle end.
func (wr *writer) write(e *model.Event, usage *model.Usage) {
	if end := wr.heldEnd; end != nil {
		// Not the last end: a plain @end.
		wr.heldEnd = nil
		wr.plainEnd(end)
	}
	if c := wr.heldCall; c != nil {
		wr.heldCall = nil
		if e.Kind == model.KindToolResult && e.Form.Inline && e.Result != nil && e.Result.CallID == c.Call.ID {
			wr.toolCall(c, wr.heldUse, e)
			return
		}
		wr.toolCall(c, wr.heldUse, nil)
	}
	switch {
	case wr.same && e.Kind == model.KindToolCall && e.Form.Inline:
		// A copy of the usage: the next response's reuses runUsage.
		wr.heldCall, wr.heldUse = e, nil
		if usage != nil {
			wr.heldUsage = *usage
			wr.heldUse = &wr.heldUsage
		}
	case !wr.same && e.Kind == model.KindLifecycle && e.Name == grammar.VerbEnd:
		wr.heldEnd = e
	default:
		wr.event(e, usage)
	}
}

// ---- body

// line collects one output line: its text, then its metadata (each
// item with the space before it). The writer reuses one (newLine).
type line struct {
	b    []byte
	meta []byte
}

// newLine is the writer's line, emptied.
func (wr *writer) newLine() *line {
	l := &wr.line
	l.b, l.meta = l.b[:0], l.meta[:0]
	return l
}

func (l *line) add(s string) {
	if s == "" {
		return
	}
	if len(l.b) > 0 {
		l.b = append(l.b, ' ')
	}
	l.b = append(l.b, s...)
}

// kv appends k=v to the line's metadata.
func (l *line) kv(k grammar.Key, v string) {
	l.meta = append(append(append(append(l.meta, ' '), k.String()...), '='), v...)
}

// tokens adds u's counts, to the metadata or (inText: @end's totals) to
// the text: input and output always, cached and cache creation when there
// are any.
func (l *line) tokens(u *model.Usage, inText bool) {
	for _, c := range [...]struct {
		k      grammar.Key
		n      int64
		always bool
	}{
		{grammar.KeyTokensIn, u.Input, true},
		{grammar.KeyTokensOut, u.Output, true},
		{grammar.KeyTokensCached, u.CacheRead, false},
		{grammar.KeyTokensCacheCreate, u.CacheCreate, false},
	} {
		if !c.always && c.n <= 0 {
			continue
		}
		if inText {
			l.addPairInt(c.k, c.n)
		} else {
			l.kvInt(c.k, c.n)
		}
	}
}

// kvInt appends k=n to the line's metadata.
func (l *line) kvInt(k grammar.Key, n int64) {
	l.meta = jsonw.AppendInt(append(append(append(l.meta, ' '), k.String()...), '='), n)
}

// addPairInt adds k=n to the line's text.
func (l *line) addPairInt(k grammar.Key, n int64) {
	if len(l.b) > 0 {
		l.b = append(l.b, ' ')
	}
	l.b = jsonw.AppendInt(append(append(l.b, k.String()...), '='), n)
}

// begin starts the line with prefix and, right after it, name (a tool, a
// subagent's type, a lifecycle event).
func (l *line) begin(prefix, name string) {
	l.b = append(append(l.b, prefix...), name...)
}

// addPair adds k=v to the line's text (a call's id=, @end's totals).
func (l *line) addPair(k grammar.Key, v string) {
	if len(l.b) > 0 {
		l.b = append(l.b, ' ')
	}
	l.b = append(append(append(l.b, k.String()...), '='), v...)
}

func (wr *writer) emit(l *line, cont []string) {
	b := l.b
	for len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	b = append(append(b, l.meta...), '\n')
	for _, c := range cont {
		b = append(append(append(b, "  "...), c...), '\n')
	}
	l.b = b[:0]
	if wr.err == nil {
		_, wr.err = wr.bw.Write(b)
	}
}

// textLine starts the line of a message (u:, a:, th:): its prefix and e's
// text cut at limit (what names it in the loss report), and cont its
// continuation lines.
func (wr *writer) textLine(k grammar.Kind, limit int, what string, e *model.Event) (l *line, cont []string) {
	l = wr.newLine()
	l.add(k.Prefix())
	text, cont := wr.text(e.Text, limit, what, e)
	l.add(text)
	return l, cont
}

// noteLine writes the `# status:` or `# system:` line (label) of e, with
// its metadata; what names its text in the loss report.
func (wr *writer) noteLine(label, what string, e *model.Event) {
	l := wr.newLine()
	text, cont := wr.text(e.Text, LimitAgent, what, e)
	l.add("# " + label + ": " + text)
	wr.meta(l, e, nil)
	wr.emit(l, cont)
}

// event writes the line (and continuation lines) of one event, with usage
// (nil for none) in its metadata.
func (wr *writer) event(e *model.Event, usage *model.Usage) {
	if !wr.same {
		wr.reportForm(e)
	}
	switch e.Kind {
	case model.KindUser:
		l, cont := wr.textLine(grammar.User, LimitUser, "user text", e)
		if e.Meta {
			l.kv(grammar.KeyMeta, "true")
		}
		wr.meta(l, e, usage)
		wr.emit(l, cont)
	case model.KindAgent:
		l, cont := wr.textLine(grammar.Agent, LimitAgent, "agent text", e)
		wr.meta(l, e, usage)
		wr.emit(l, cont)
	case model.KindThinking:
		l, cont := wr.textLine(grammar.Thinking, LimitThinking, "thinking", e)
		if e.Signature != "" {
			sig := e.Signature
			if !wr.same && utf8.RuneCountInString(sig) > LimitSig {
				sig = string([]rune(sig)[:LimitSig]) + "..."
				wr.rep.Lose(model.LossTruncated, "thinking.signature", "thinking signature (first 20 characters)", e.Loc)
			}
			l.kv(grammar.KeySig, wordless(sig))
		}
		wr.meta(l, e, usage)
		wr.emit(l, cont)
	case model.KindToolCall:
		wr.toolCall(e, usage, nil)
	case model.KindToolResult:
		wr.toolResult(e, usage)
	case model.KindSubagent:
		wr.subagent(e, usage)
	case model.KindInit:
		l := wr.newLine()
		l.begin(grammar.Lifecycle.Prefix(), grammar.VerbInit)
		if e.Text != "" {
			text, cont := wr.text(e.Text, LimitAgent, "init text", e)
			l.add(text)
			if len(cont) > 0 {
				l.add(strings.Join(cont, " "))
			}
		}
		if e.Model != "" {
			l.kv(grammar.KeyModel, wordless(e.Model))
		}
		wr.timeMeta(l, e)
		if e.Step != 0 {
			l.kvInt(grammar.KeyStep, e.Step)
		}
		wr.emit(l, nil)
		wr.dropExtras(e)
	case model.KindStatus:
		wr.noteLine("status", "status text", e)
	case model.KindCompaction:
		l := wr.newLine()
		l.begin(grammar.Lifecycle.Prefix(), grammar.VerbCompact)
		if c := e.Compaction; c != nil {
			if c.Trigger != "" {
				l.addPair(grammar.KeyTrigger, argText(c.Trigger))
			}
			if c.PreTokens > 0 {
				l.addPairInt(grammar.KeyPreTokens, c.PreTokens)
			}
			if c.PostTokens > 0 {
				l.addPairInt(grammar.KeyPostTokens, c.PostTokens)
			}
		}
		if e.Text != "" {
			text, _ := wr.text(e.Text, LimitAgent, "compaction text", e)
			l.add(text)
		}
		if usage == nil {
			wr.timeMeta(l, e)
			if e.Step != 0 {
				l.kvInt(grammar.KeyStep, e.Step)
			}
			wr.dropExtras(e)
		} else {
			// The compaction's own model call: its tokens count as a
			// message's (meta writes the time, the step and the extras).
			wr.meta(l, e, usage)
		}
		wr.emit(l, nil)
	case model.KindSystem:
		wr.noteLine("system", "system text", e)
		if e.Name != "" && !wr.same {
			wr.rep.Lose(model.LossDroppedField, "system.name", "the kind of a system message ("+e.Name+"; rlog writes # system:)", e.Loc)
		}
	case model.KindComment:
		l := wr.newLine()
		text, cont := wr.text(e.Text, LimitComment, "comment", e)
		l.add("# " + text)
		wr.emit(l, cont)
		wr.dropExtras(e)
	case model.KindTodos:
		l := wr.newLine()
		l.add(grammar.Todos.Prefix())
		for _, t := range e.Todos {
			c, cut := cutLine(sanitize(t.Content), LimitTodo)
			if cut && !wr.same {
				wr.rep.Lose(model.LossTruncated, "todos", "todo text (30 characters)", e.Loc)
			} else if cut {
				c = sanitize(t.Content)
			}
			l.add("[" + pick(t.Status, "pending") + "] " + wr.neutral(c, "todos"))
		}
		wr.meta(l, e, usage)
		wr.emit(l, nil)
	case model.KindLifecycle:
		wr.lifecycle(e)
	case model.KindPassthrough:
		wr.passthrough(e)
	}
}

// reportForm reports what of e an rlog line does not hold beyond its
// fields: how the source wrote it (a message's content as a list of
// blocks, a result without output), a structured result.
func (wr *writer) reportForm(e *model.Event) {
	if e.Form.Content != "" || e.Form.NoOutput || e.Form.Keys != "" {
		wr.rep.Lose(model.LossDroppedField, e.Kind.String()+".form", "how the source wrote the event (its content as a string or blocks, a result without output, its token counters)", e.Loc)
	}
	if r := e.Result; r != nil && len(r.ContentRaw) > 0 {
		wr.rep.Lose(model.LossDroppedField, "tool_result.result.raw", "structured tool result (its text is kept)", e.Loc)
	}
	if len(e.Parts) > 0 {
		wr.rep.Lose(model.LossDroppedField, e.Kind.String()+".parts", "message content parts (their text is kept)", e.Loc)
	}
}

// text prepares free text for a line: valid UTF-8, no control characters,
// metadata-looking words defused. From an rlog source the lines after the
// first become continuation lines; otherwise only the first line is kept
// and cut to limit, as the autopilot writer does, and the cut is reported.
func (wr *writer) text(s string, limit int, what string, e *model.Event) (string, []string) {
	s = validUTF8(s)
	if wr.same {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return sanitizeValid(s), nil
		}
		// Each line sanitized, the empty ones after the first left
		// out, in a list the writer reuses (valid until the next call).
		first, cont := sanitizeValid(s[:i]), wr.cont[:0]
		for s = s[i+1:]; ; s = s[i+1:] {
			i = strings.IndexByte(s, '\n')
			next := s
			if i >= 0 {
				next = s[:i]
			}
			if c := strings.TrimSpace(sanitizeValid(next)); c != "" {
				cont = append(cont, c)
			}
			if i < 0 {
				break
			}
		}
		wr.cont = cont
		return first, cont
	}
	subject := e.Kind.String() + ".text"
	if e.Kind == model.KindToolResult {
		subject = "tool_result.result.content"
	}
	first, cut := cutLine(s, limit)
	if cut {
		wr.rep.Lose(model.LossTruncated, subject, what+" (first line, "+strconv.Itoa(limit)+" characters)", e.Loc)
	}
	return wr.neutral(first, subject), nil
}

// cutLine keeps the first non-empty line of s and cuts it to limit
// characters (limit-3 and "..."), reporting whether anything was lost.
func cutLine(s string, limit int) (string, bool) {
	s = strings.TrimLeft(s, " \t\r\n")
	cut := false
	if i := lineBreak(s); i >= 0 {
		cut = strings.TrimSpace(s[i:]) != ""
		s = s[:i]
	}
	s = sanitize(s)
	if len(s) > limit && utf8.RuneCountInString(s) > limit {
		// s is valid UTF-8 (sanitize): limit-3 runes are as many
		// DecodeRune steps.
		end := 0
		for range limit - 3 {
			_, size := utf8.DecodeRuneInString(s[end:])
			end += size
		}
		return strings.TrimRight(s[:end], " ") + "...", true
	}
	if cut {
		return s + " ...", true
	}
	return s, false
}

// sanitize makes s safe inside one line: valid UTF-8 (else W012), no NUL
// (W013), no CR or LF (editors would break the line there). Other control
// characters, such as the ESC of terminal colours, are harmless and kept.
func sanitize(s string) string { return sanitizeValid(validUTF8(s)) }

// sanitizeValid is sanitize of s that is valid UTF-8 (text has checked
// it: checking it again was a tenth of the writer's instructions).
func sanitizeValid(s string) string {
	if strings.IndexByte(s, 0) >= 0 || lineBreak(s) >= 0 {
		s = lineBreaks.Replace(s)
	}
	end := len(s)
	for end > 0 && (s[end-1] == ' ' || s[end-1] == '\t') {
		end--
	}
	return s[:end]
}

// lineBreaks replaces what would end a line, and NUL, by spaces.
var lineBreaks = strings.NewReplacer("\x00", " ", "\r", " ", "\n", " ")

// validUTF8 is s with each invalid byte sequence replaced by U+FFFD, as
// strings.ToValidUTF8 makes it, without copying s when it is valid.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// lineBreak is the index of the first CR or LF in s, or -1
// (strings.IndexAny(s, "\r\n") with two vectorised searches).
func lineBreak(s string) int {
	n := strings.IndexByte(s, '\n')
	in := s
	if n >= 0 {
		in = s[:n]
	}
	if r := strings.IndexByte(in, '\r'); r >= 0 {
		return r
	}
	return n
}

// neutral defuses words of free text that would be read as the line's
// metadata (grammar's rule, Key): a key the rules check or count wherever
// the parser finds it (Key.Checked: it takes the first match anywhere, so
// `step=3` in prose raises W004), and metadata at the very end of the text
// (a reader takes trailing key=value pairs of Trailing keys as metadata).
// A space goes before their "=". Text from an rlog source is left as it is.
func (wr *writer) neutral(s, subject string) string {
	if wr.same || !strings.Contains(s, "=") {
		return s
	}
	prefix := grammar.Agent.Prefix() + " "
	orig := s
	for range 256 {
		line := []byte(prefix + s)
		li := grammar.ScanLine(line)
		eq := -1
		for k, sp := range li.Meta {
			if grammar.Key(k).Checked() && sp.Valid() && (eq < 0 || sp.Start-1 < eq) {
				eq = sp.Start - 1
			}
		}
		if eq < 0 {
			if p := split(line); p.metaStart < p.li.Trim.End {
				if i := strings.IndexByte(string(line[p.metaStart:]), '='); i >= 0 {
					eq = p.metaStart + i
				}
			}
		}
		if eq < 0 {
			eq = openValue(line)
		}
		if eq < len(prefix) {
			break
		}
		eq -= len(prefix)
		s = s[:eq] + " " + s[eq:]
	}
	if s != orig {
		wr.rep.Lose(model.LossUnfaithful, subject, "text word `key=` written as `key =` so it is not read as line metadata", model.Loc{})
	}
	return s
}

// openValue is the "=" of a quoted or JSON value in line (free text
// after the reader's line prefix) that runs to the end of the line, and so
// would take in the metadata written after the text (`ws-connect="/ws"`
// followed by a backquote does not close); -1 when there is none.
func openValue(line []byte) int {
	probe := append(append(append(line[:len(line):len(line)], ' '), grammar.KeyTS.String()...), "=0"...)
	p := split(probe)
	if p.metaSet.has(grammar.KeyTS) {
		return -1
	}
	for i := len(p.pairs) - 1; i >= 0; i-- {
		if pr := p.pairs[i]; (pr.Kind == grammar.TokString || pr.Kind == grammar.TokJSON) && pr.Value.Valid() && pr.Value.End == len(probe) {
			return pr.Key.End
		}
	}
	return -1
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// meta appends the metadata every event line may carry: time, thread,
// step, model, message id and the message's usage.
func (wr *writer) meta(l *line, e *model.Event, u *model.Usage) {
	wr.timeMeta(l, e)
	switch {
	case e.AgentID != "":
		l.kv(grammar.KeyTID, wordless(e.AgentID))
	case e.Sidechain && wr.side != "":
		// A sub-agent's turn that names no agent (Claude Code 1.x's
		// inline sidechain): its x: line's id is its thread.
		l.kv(grammar.KeyTID, wr.side)
		wr.rep.Lose(model.LossSynthesized, "*.agent_id, subagent.subagent.agent_id", "sub-agent thread of inline sidechain turns (tid= the x: line's id)", e.Loc)
	case e.Sidechain && e.Kind != model.KindSubagent:
		wr.rep.Lose(model.LossDroppedField, "*.sidechain", "sidechain flag of a turn outside any sub-agent (rlog says it with tid=)", e.Loc)
	}
	if e.Step != 0 {
		l.kvInt(grammar.KeyStep, e.Step)
	}
	if e.Model != "" && e.Model != wr.wrote.model {
		l.kv(grammar.KeyModel, wordless(e.Model))
	}
	if wr.same && e.Form.UsageInText {
		u = nil // on the continuation line, in the text
	} else if e.MessageID != "" && !model.SyntheticMessageID(e.MessageID) {
		l.kv(grammar.KeyMessageID, wordless(e.MessageID))
	}
	if u != nil {
		l.tokens(u, false)
	}
	if wr.same {
		if len(e.Extra) == 0 {
			return // most lines: no key to look for
		}
		for _, k := range extraKeys {
			if v, ok := e.Extra.String(k.String()); ok {
				l.kv(k, argText(v))
			}
		}
		if v, ok := e.Extra.Get(grammar.Interrupted); ok && string(v) == "true" {
			l.meta = append(append(l.meta, ' '), grammar.Interrupted...)
		}
		return
	}
	wr.dropExtras(e)
}

func (wr *writer) timeMeta(l *line, e *model.Event) {
	if e.Time == "" {
		return
	}
	if wr.same {
		l.kv(grammar.KeyTS, wordless(e.Time))
		return
	}
	if z, ok := zTime(e.Time); ok {
		l.kv(grammar.KeyTS, z)
		return
	}
	wr.rep.Lose(model.LossDroppedField, "*.time", "timestamp that is not RFC 3339", e.Loc)
}

func (wr *writer) dropExtras(e *model.Event) {
	if !wr.same {
		wr.rep.DropExtras(e)
	}
}

// wordless makes a metadata value one token: spaces would end it.
func wordless(s string) string {
	if printableASCII(s) {
		// Most values: a name, a time, an id (FuzzWordless).
		return s
	}
	s = sanitize(s)
	if strings.ContainsAny(s, " \t") {
		return strings.Join(strings.Fields(s), "_")
	}
	return s
}

// printableASCII reports whether every byte of s is '!' to DEL: valid
// UTF-8 without white space, NUL, CR or LF, which sanitize and wordless
// leave as it is.
func printableASCII(s string) bool {
	for ; len(s) >= 8; s = s[8:] {
		// Eight bytes at once: a byte from 0x80 has its high bit, and
		// the lowest byte under '!' borrows into its own (a byte
		// above it may too, but the answer is already false).
		w := s[:8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		if (x|(x-eachByte*0x21))&(eachByte*0x80) != 0 {
			return false
		}
	}
	for i := 0; i < len(s); i++ {
		if s[i]-0x21 >= 0x5f {
			return false
		}
	}
	return true
}

// eachByte has a 1 in each byte of a word.
const eachByte = 0x0101010101010101

// ---- tool calls and results

// callID gives a call its rlog id: the source id with every character the
// rlog/1 id pattern (\w+) stops at replaced by "_", shortened to its last
// 32 characters when longer than 40, and made unique with "_2", "_3" ...
// when a call already used it. The rlog/1 parser reads `id=a#2` as `a`, so
// the "#n" suffix of other formats would not keep ids apart here.
func (wr *writer) callID(src string, e *model.Event) string {
	wr.ncall++
	base := idText(src)
	if base == "" {
		base = "call_" + strconv.Itoa(wr.ncall)
		wr.rep.Lose(model.LossSynthesized, "tool_call.call.id, tool_result.result.call_id", "tool call id (the source call has none)", e.Loc)
	}
	id := base
	// From rlog, an id used twice is the source's own (the early
	// autopilot writer's toolu_01): written as it was, as check reads it.
	// The set of ids given is not needed then, and not kept.
	if !wr.same {
		if wr.taken(id) {
			n := 2
			for wr.taken(base + "_" + strconv.Itoa(n)) {
				n++
			}
			id = base + "_" + strconv.Itoa(n)
			wr.rep.Add(model.LossIDUnique, "call id used twice, written as <id>_n (id_full keeps the source id)", e.Loc)
		}
		wr.used.Add(id)
	}
	wr.cur.Set(src, id)
	wr.addOpen(src, id)
	return id
}

// taken reports whether an rlog id was given to a call already.
func (wr *writer) taken(id string) bool { return wr.used.Has(id) }

// idText is src reduced to rlog/1's id characters (ASCII word characters).
func idText(src string) string {
	plain := len(src) <= 40
	for i := 0; plain && i < len(src); i++ {
		plain = isWordByte(src[i])
	}
	if plain {
		return src
	}
	var b strings.Builder
	for _, r := range src {
		if r < 0x80 && isWordByte(byte(r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if len(s) > 40 {
		s = s[len(s)-32:]
	}
	return s
}

// refID is the rlog id a subagent line uses for source id src: its latest
// call's.
func (wr *writer) refID(src string) (string, bool) {
	return wr.cur.Get(src)
}

// resultID is the rlog id a result for source id src answers: the oldest
// call with that id still without a result, else the latest call. Where a
// source reused one id for calls in flight together (the early autopilot
// logs' toolu_01), results are matched to calls in order.
func (wr *writer) resultID(src string) (string, bool) {
	if id, ok := wr.answerOldest(src); ok {
		return id, true
	}
	return wr.refID(src)
}

func (wr *writer) toolCall(e *model.Event, usage *model.Usage, inline *model.Event) {
	c := e.Call
	l := wr.newLine()
	name := c.Name
	kind := grammar.ToolStart
	// A t: line of an rlog source without its result stays one.
	bare := inline == nil && wr.same && e.Form.Inline
	if inline != nil || bare {
		kind = grammar.Tool
	}
	if e.Form.Prefix == "c" && wr.same {
		kind = grammar.Mcp
	}
	if kind != grammar.Mcp {
		name = toolName(name)
		if name != c.Name {
			wr.rep.Lose(model.LossDroppedField, "tool_call.call.name", "tool name changed to fit rlog ("+strconv.Quote(c.Name)+" written as "+name+")", e.Loc)
		}
	}
	l.begin(kind.Prefix(), name)
	id := wr.callID(c.ID, e)
	// Only an input that has the key, or a key with an escape in it, can
	// name a sub-agent type: the others are not parsed for it.
	if bytes.Contains(c.Input, []byte("subagent_type")) || bytes.IndexByte(c.Input, '\\') >= 0 {
		if args := c.Args(); args != nil {
			if t, ok := args.String("subagent_type"); ok && t != "" {
				wr.agentType.Set(c.ID, t)
			}
		}
	}
	if inline != nil {
		// Answered on this line: the newest open call of its id.
		wr.answerNewest(c.ID)
	}
	l.addPair(grammar.KeyID, id)
	args := ""
	if wr.same && c.Summary != "" {
		args = c.Summary
	} else {
		var lossy bool
		args, lossy = toolArgs(c.Name, c.Input)
		if lossy && !wr.same {
			wr.rep.Lose(model.LossTruncated, "tool_call.call.input", "tool input (abbreviated to key=value arguments)", e.Loc)
		}
	}
	l.add(args)
	switch {
	case inline != nil:
		// A t: line's result, whose continuation lines would be read as
		// the call's: kept on one line.
		status, text, cont := wr.resultParts(inline)
		l.addResult(status, text)
		for _, c := range cont {
			l.b = append(append(l.b, ' '), c...)
		}
	case bare:
	default:
		status := grammar.StatusRunning
		if s, ok := e.Extra.String("rlog_status"); ok && wr.same {
			status = s
		}
		l.add("→ [" + status + "]")
	}
	if id != c.ID && c.ID != "" {
		l.kv(grammar.KeyIDFull, model.Quote(c.ID))
	}
	if wr.same && e.Form.WholeInput && len(c.Input) > 0 {
		var b strings.Builder
		if compactJSON(&b, c.Input) == nil {
			l.kv(grammar.KeyInput, b.String())
		}
	}
	wr.meta(l, e, usage)
	wr.emit(l, nil)
}

// toolName makes a name the rlog/1 tool pattern reads whole: no spaces,
// starting with a word character.
func toolName(s string) string {
	s = wordless(s)
	if s == "" {
		return "tool"
	}
	if isWordByte(s[0]) {
		// A word character after "t!:" is a tool start whatever
		// follows (FuzzWordless).
		return s
	}
	li := grammar.ScanLine([]byte(grammar.ToolStart.Prefix() + s))
	if li.Kind != grammar.ToolStart {
		return "tool_" + s
	}
	return s
}

// addResult adds a result to the line: its arrow, [status], and text
// (none when empty).
func (l *line) addResult(status, text string) {
	if len(l.b) > 0 {
		l.b = append(l.b, ' ')
	}
	l.b = append(append(append(l.b, "→ ["...), status...), ']')
	if text != "" {
		l.b = append(append(l.b, ' '), text...)
	}
}

// resultParts is the status and the result text of a tool result event
// and, from an rlog source, its continuation lines (wr.text's, valid
// until its next call).
func (wr *writer) resultParts(e *model.Event) (status, text string, cont []string) {
	r := e.Result
	status = grammar.StatusOK
	switch {
	case r.Status != "":
		status = r.Status
	case r.IsError:
		status = grammar.StatusError
	}
	if r.IsError && !grammar.StatusFails([]byte(status)) {
		status = grammar.StatusError
	}
	text, cont = wr.text(r.Content, LimitOutput, "tool output", e)
	return status, text, cont
}

func (wr *writer) toolResult(e *model.Event, usage *model.Usage) {
	l := wr.newLine()
	l.add(grammar.Observation.Prefix())
	id, known := wr.resultID(e.Result.CallID)
	if known {
		l.addPair(grammar.KeyID, id)
	}
	status, text, cont := wr.resultParts(e)
	l.addResult(status, text)
	if known && id != e.Result.CallID {
		l.kv(grammar.KeyIDFull, model.Quote(e.Result.CallID))
	}
	if !known && e.Result.CallID != "" {
		// An id= the rules cannot resolve would be W002; the source id is
		// kept under a key the parser does not read as an id.
		l.kv(grammar.KeyOrphanID, model.Quote(e.Result.CallID))
		wr.rep.Add(model.LossMoved, "tool result whose call is not before it (written with orphan_id=)", e.Loc)
	}
	wr.meta(l, e, usage)
	wr.emit(l, cont)
	if !wr.same {
		if path, size, ok := persistedOutput(e.Result.Content); ok {
			// The whole output is in a file of its own: the line says
			// where, as the preview the model saw does.
			wr.writeLine("# saved: ", sanitize(path), " (", sanitize(size), ")")
			wr.rep.Lose(model.LossSynthesized, "comment", "a # saved: comment after the o: line of an output the agent kept in a file of its own (Claude Code's persisted output), naming the file", e.Loc)
		}
	}
}

// persistedRE is the start of a tool output Claude Code kept in a file of
// its own (SESSION/tool-results/ID.txt): the model sees a preview, which
// names the file.
var persistedRE = regexp.MustCompile(`^<persisted-output>\s*Output too large \(([^)\n]*)\)\. Full output saved to: (\S+)`)

// persistedOutput is the file and size a persisted output's preview
// names.
func persistedOutput(content string) (path, size string, ok bool) {
	if !strings.HasPrefix(content, "<persisted-output>") {
		return "", "", false
	}
	m := persistedRE.FindStringSubmatch(content)
	if m == nil {
		return "", "", false
	}
	return m[2], m[1], true
}

func (wr *writer) subagent(e *model.Event, usage *model.Usage) {
	sa := e.Subagent
	if sa == nil {
		return
	}
	l := wr.newLine()
	typ := sa.Type
	if typ == "" {
		typ, _ = wr.agentType.Get(sa.ID)
	}
	if typ == "" {
		typ = "agent"
	}
	if sa.Type == "" && !wr.same {
		wr.rep.Lose(model.LossSynthesized, "subagent.subagent.type", "subagent type (x: needs one; the Task call's subagent_type, else agent)", e.Loc)
	}
	l.begin(grammar.Subagent.Prefix(), toolName(typ))
	if sa.ID != "" {
		id, ok := wr.refID(sa.ID)
		if !ok {
			id = idText(sa.ID)
		}
		l.addPair(grammar.KeyID, id)
		if id != sa.ID {
			l.kv(grammar.KeyIDFull, model.Quote(sa.ID))
		}
		if e.Sidechain && e.AgentID == "" && sa.AgentID == "" && sa.Status == grammar.StatusStarted {
			// Its turns, which name no agent, carry this id as tid=.
			wr.side = id
		}
	}
	l.add("→ [" + pick(sa.Status, grammar.StatusStarted) + "]")
	if sa.Summary != "" {
		s, cut := cutLine(sa.Summary, LimitSummary)
		if wr.same {
			s = sanitize(sa.Summary)
		} else if cut {
			wr.rep.Lose(model.LossTruncated, "subagent.subagent.summary", "subagent summary (first line, 80 characters)", e.Loc)
		}
		l.addPair(grammar.KeySummary, quoteArg(s))
	}
	if sa.AgentID != "" && !wr.same && e.AgentID == "" {
		l.kv(grammar.KeyTID, wordless(sa.AgentID))
	}
	if !wr.same && sa.SessionID != "" && sa.SessionID != sa.AgentID {
		wr.rep.Lose(model.LossDroppedField, "subagent.subagent.session_id", "subagent's own session id (an x: line names its thread only)", e.Loc)
	}
	if !wr.same && sa.TrajectoryPath != "" {
		wr.rep.Lose(model.LossDroppedField, "subagent.subagent.trajectory_path", "subagent's own trajectory file (an x: line names its thread only)", e.Loc)
	}
	wr.meta(l, e, usage)
	wr.emit(l, nil)
	if sa.Status != grammar.StatusStarted && e.AgentID == "" && sa.AgentID == "" {
		wr.side = ""
	}
}

// abbreviatedArgs are the tool arguments rlog writes under a key of its
// own, by tool: Bash's command as cmd=, Task's description as desc=
// (docs/format.md#truncation). The reader gives them back their tool's
// key, so that a call converted to the agent's format is one its tool
// takes.
var abbreviatedArgs = map[string]struct{ rlog, input string }{
	"Bash": {"cmd", "command"},
	"Task": {"desc", "description"},
}

// toolArgs abbreviates a tool input the way the autopilot writer does
// (docs/format.md#truncation): file_path= for Read/Edit/Write, cmd= for Bash,
// pattern= for Glob and Grep, desc= for Task; for other tools the scalar
// arguments as key=value. It reports whether anything was left out.
func toolArgs(name string, input json.RawMessage) (string, bool) {
	args, _ := model.ParseFields(input)
	if len(args) == 0 {
		return "", len(input) > 0 && string(input) != "{}" && string(input) != "null"
	}
	str := func(k string) (string, bool) { return args.String(k) }
	one := func(key, src string, limit int) (string, bool) {
		v, ok := str(src)
		if !ok {
			return "", false
		}
		cut := false
		if limit > 0 {
			v, cut = cutLine(v, limit)
		}
		return key + "=" + quoteArg(v), !cut && len(args) == 1 && key == src
	}
	var out string
	var exact, ok bool
	switch name {
	case "Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "NotebookRead":
		out, exact = one("file_path", "file_path", 0)
		ok = out != ""
	case "Bash":
		out, exact = one(abbreviatedArgs["Bash"].rlog, "command", limitArg)
		ok = out != ""
	case "Glob":
		out, exact = one("pattern", "pattern", 0)
		ok = out != ""
	case "Grep":
		out, exact = one("pattern", "pattern", 30)
		ok = out != ""
	case "Task":
		out, exact = one(abbreviatedArgs["Task"].rlog, "description", 40)
		ok = out != ""
	}
	if ok {
		return out, !exact
	}
	var parts []string
	lossy := false
	total := 0
	for _, f := range args {
		v, scalar := model.ScalarText(f.Value)
		if !scalar || !yamlKey.MatchString(f.Key) || strings.Contains(f.Key, ".") {
			lossy = true
			continue
		}
		v2, cut := cutLine(v, limitArg)
		if cut || v2 != v || f.Value[0] != '"' {
			// Read back, every argument is a string of one line.
			lossy = true
		}
		p := f.Key + "=" + quoteArg(v2)
		if total+len(p) > limitArgs {
			lossy = true
			break
		}
		total += len(p) + 1
		parts = append(parts, p)
	}
	return strings.Join(parts, " "), lossy
}

// quoteArg writes an argument value bare when the tokenizer reads it back
// whole, and as a JSON string otherwise, with "=" and "→" escaped so that
// neither the metadata scan nor the result arrow finds them inside.
func quoteArg(v string) string {
	if v != "" && !strings.ContainsAny(v, " \t\"'=[]{}\\,") && !strings.Contains(v, "→") && !strings.Contains(v, "->") {
		return v
	}
	return quoteJSON(v)
}

// quoteJSON is v as a JSON string with "=" and "→" escaped.
func quoteJSON(v string) string {
	q := model.Quote(sanitize(v))
	q = strings.ReplaceAll(q, "=", `\u003d`)
	q = strings.ReplaceAll(q, "→", `\u2192`)
	return q
}

// argText is quoteArg for metadata values of the writer's own.
func argText(v string) string { return quoteArg(v) }

// ---- lifecycle and passthrough

// startLine writes @start with the session id and time ts.
func (wr *writer) startLine(ts string) {
	l := wr.newLine()
	l.begin(grammar.Lifecycle.Prefix(), grammar.VerbStart)
	if id := idText(wr.h.ID); id != "" {
		l.addPair(grammar.KeyID, id[:min(8, len(id))])
	}
	if z, ok := zTime(ts); ok {
		l.addPair(grammar.KeyTS, z)
	}
	wr.emit(l, nil)
}

// start writes the source's own start event.
func (wr *writer) start(e *model.Event) {
	ts := wr.h.Started
	if e.Time != "" {
		ts = e.Time
	}
	wr.startLine(ts)
	wr.dropExtras(e)
}

// plainEnd writes an end event that is not the session's last: its time
// only.
func (wr *writer) plainEnd(e *model.Event) {
	l := wr.newLine()
	l.begin(grammar.Lifecycle.Prefix(), grammar.VerbEnd)
	wr.timeMeta(l, e)
	wr.emit(l, nil)
	wr.dropExtras(e)
	wr.fullEnd = false
}

// end writes the session's last @end, with the totals and the outcome
// (e is the source's end event, nil when there is none).
func (wr *writer) end(e *model.Event) {
	wr.fullEnd = true
	h := wr.h
	if out := h.Outcome; out != nil && out.ResultText != "" {
		text, _ := cutLine(out.ResultText, LimitAgent)
		wr.writeLine("# result: ", wr.neutral(text, "header.outcome.result"))
		wr.rep.Lose(model.LossUnfaithful, "header.outcome.result, comment", "outcome text written as a # result: comment before @end, which readers take as a comment", model.Loc{})
	}
	if e != nil && e.Text != "" {
		wr.rep.Lose(model.LossDroppedField, "lifecycle.text", "text of the session's end event (@end holds the totals and the outcome)", e.Loc)
	}
	l := wr.newLine()
	l.begin(grammar.Lifecycle.Prefix(), grammar.VerbEnd)
	if tot, ok := model.Totals(h, &wr.ledger); ok {
		if !wr.totalsInHeader {
			wr.rep.Lose(model.LossMoved, "header.totals", "header tokens_total_in, tokens_total_out, tokens_cached, tokens_cache_create: on @end only "+
				"(the input was read once, as standard input is; a file is read twice to put them in the header)", model.Loc{})
		}
		if h.Totals == nil {
			wr.rep.Lose(model.LossSynthesized, "header.totals", "token totals summed from the messages' usage (the source states none; readers take them as the session's)", model.Loc{})
		}
		l.tokens(&tot, true)
	}
	if h.CostUSD != nil {
		// Every digit the source has (0.0653 stays 0.0653).
		l.addPair(grammar.KeyCostUSD, strconv.FormatFloat(*h.CostUSD, 'f', -1, 64))
		wr.costWritten = true
	}
	if out := h.Outcome; out != nil {
		if out.Success != nil {
			l.addPair(grammar.KeySuccess, strconv.FormatBool(*out.Success))
		}
		if out.NumTurns > 0 {
			l.addPairInt(grammar.KeyNumTurns, out.NumTurns)
		}
		if out.DurationMS > 0 {
			l.addPairInt(grammar.KeyDurationMS, out.DurationMS)
		}
		if len(out.Errors) > 0 {
			wr.rep.LoseN(model.LossDroppedField, "header.outcome.errors", "outcome errors", model.Loc{}, len(out.Errors))
		}
	}
	ts := h.Ended
	if e != nil && e.Time != "" {
		ts = e.Time
	}
	if z, ok := zTime(ts); ok {
		l.addPair(grammar.KeyTS, z)
	}
	if e == nil || e.Time == "" && ts != "" {
		wr.rep.Lose(model.LossSynthesized, "lifecycle", "@end line (the source's session has no end event; rlog's @end holds the totals)", model.Loc{})
	}
	if h.Ended != "" && e != nil && e.Time != "" && h.Ended != e.Time {
		wr.rep.Lose(model.LossDroppedField, "header.ended", "session end time (rlog has no end field; the last line's ts= stands for it)", model.Loc{})
	}
	wr.emit(l, nil)
	if e != nil {
		wr.dropExtras(e)
	}
}

func (wr *writer) lifecycle(e *model.Event) {
	if wr.same {
		if e.Name == grammar.VerbEnd {
			// The source's own @end, with its totals and cost.
			wr.costWritten = wr.costWritten || strings.Contains(e.Text, grammar.KeyCostUSD.String()+"=")
			wr.totalsInHeader = wr.totalsInHeader || strings.Contains(e.Text, grammar.KeyTokensIn.String()+"=")
		}
		l := wr.newLine()
		if e.Name == grammar.VerbPhase {
			l.add(grammar.Phase.Prefix())
		} else {
			l.begin(grammar.Lifecycle.Prefix(), e.Name)
		}
		l.add(sanitize(e.Text))
		wr.emit(l, nil)
		return
	}
	switch {
	case e.Name == grammar.VerbStart:
		wr.start(e)
	case isVerb(e.Name):
		l := wr.newLine()
		l.begin(grammar.Lifecycle.Prefix(), e.Name)
		text, _ := cutLine(e.Text, LimitAgent)
		l.add(wr.neutral(text, "lifecycle.text"))
		wr.timeMeta(l, e)
		wr.emit(l, nil)
		wr.dropExtras(e)
		if e.Time != "" || text != e.Text {
			wr.rep.Lose(model.LossUnfaithful, "lifecycle.text", "a lifecycle event's text, which rlog reads with its line's metadata (ts=)", e.Loc)
		}
	default:
		// A lifecycle event rlog/1 has no verb for (REPLAY's PlanStart ...):
		// a comment keeps it without a hint for an unknown @verb.
		text := e.Text
		if len(e.Extra) > 0 {
			text = strings.TrimSpace(text + " " + string(model.MustJSON(e.Extra)))
		}
		text, cut := cutLine(text, LimitComment)
		if cut {
			wr.rep.Lose(model.LossTruncated, "lifecycle, comment", "lifecycle event written as a comment (1000 characters)", e.Loc)
		}
		wr.rep.Lose(model.LossPassthrough, "lifecycle, comment", "lifecycle event "+e.Name+" (no rlog/1 verb; written as a # comment)", e.Loc)
		wr.writeLine("# ", wordless(e.Name), ": ", wr.neutral(text, "lifecycle, comment"))
	}
}

func (wr *writer) passthrough(e *model.Event) {
	if strings.HasPrefix(e.RawType, rawTypePrefix) {
		// An rlog line with no model kind, from an rlog source directly or
		// through another format: written back as it was.
		if s, ok := rawString(e.Raw); ok {
			wr.writeLine(sanitizeRaw(s))
			return
		}
	}
	if e.Bookkeeping != "" {
		wr.rep.Lose(model.LossDroppedEvent, "passthrough", e.RawType+" record ("+e.Bookkeeping+")", e.Loc)
		return
	}
	raw, _ := model.ParseFields(e.Raw)
	switch e.RawType {
	case "block:image", "block:document":
		// A marker: what it is and how large, not its data.
		typ, _ := raw.String("type")
		var media string
		size := 0
		if src, ok := raw.Get("source"); ok {
			sf, _ := model.ParseFields(src)
			media, _ = sf.String("media_type")
			data, _ := sf.String("data")
			size = base64.StdEncoding.DecodedLen(len(data)) - (len(data) - len(strings.TrimRight(data, "=")))
		}
		l := wr.newLine()
		l.add("# " + wordless(typ) + ":")
		if media != "" {
			l.add(wordless(media))
		}
		if size > 0 {
			l.add("(" + strconv.Itoa(size) + " bytes)")
		}
		wr.emit(l, nil)
		wr.rep.Lose(model.LossDroppedField, "passthrough, comment", typ+" data (written as a # "+typ+": marker with its media type and size)", e.Loc)
		return
	case "block:redacted_thinking":
		data, _ := raw.String("data")
		l := wr.newLine()
		l.add("# redacted thinking: (" + strconv.Itoa(len(data)) + " bytes, encrypted by the provider)")
		wr.emit(l, nil)
		wr.rep.Lose(model.LossDroppedField, "passthrough, comment", "redacted thinking data (written as a # redacted thinking: marker with its size)", e.Loc)
		return
	case "file-history-snapshot":
		// The reference converter's form.
		msg, _ := raw.String("messageId")
		files := 0
		var ts string
		if snap, ok := raw.Get("snapshot"); ok {
			sf, _ := model.ParseFields(snap)
			if b, ok := sf.Get("trackedFileBackups"); ok {
				tf, _ := model.ParseFields(b)
				files = len(tf)
			}
			ts, _ = sf.String("timestamp")
		}
		l := wr.newLine()
		l.add("# file-snapshot: " + wordless(lastN(msg, 8)))
		l.add("files=" + strconv.Itoa(files))
		if z, ok := zTime(ts); ok {
			l.addPair(grammar.KeyTS, z)
		}
		wr.emit(l, nil)
		wr.rep.Lose(model.LossDroppedField, "passthrough, comment", "file-history-snapshot contents (written as a # file-snapshot: summary)", e.Loc)
		return
	case "queue-operation":
		op, _ := raw.String("operation")
		content, _ := raw.String("content")
		ts, _ := raw.String("timestamp")
		c, cut := cutLine(content, 50)
		if cut {
			wr.rep.Lose(model.LossTruncated, "passthrough, comment", "queue-operation content (50 characters)", e.Loc)
		}
		l := wr.newLine()
		l.add("# queue: " + wordless(op) + " " + quoteJSON(c))
		if z, ok := zTime(ts); ok {
			l.addPair(grammar.KeyTS, z)
		}
		wr.emit(l, nil)
		wr.rep.Lose(model.LossUnfaithful, "passthrough, comment", "queue-operation record written as a # queue: comment, which readers take as a comment", e.Loc)
		return
	}
	var b strings.Builder
	if compactJSON(&b, e.Raw) != nil {
		b.Reset()
		b.WriteString(string(e.Raw))
	}
	text, cut := cutLine(b.String(), LimitComment)
	if cut {
		wr.rep.Lose(model.LossTruncated, "passthrough, comment", "passthrough record written as a # comment (1000 characters)", e.Loc)
	}
	typ := wordless(pick(e.RawType, "record"))
	wr.writeLine("# ", typ, ": ", wr.neutral(text, "passthrough, comment"))
	wr.rep.Lose(model.LossUnfaithful, "passthrough, comment", "record written as a # comment, which readers take as a comment", e.Loc)
}

func compactJSON(b *strings.Builder, v json.RawMessage) error {
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		return err
	}
	b.Write(model.MustJSON(x))
	return nil
}

// rawString decodes raw as json.Unmarshal into a string would (null is
// ""), without its reflection: the raw of an rlog line kept whole.
func rawString(raw json.RawMessage) (string, bool) {
	v := bytes.Trim(raw, " \t\r\n")
	if string(v) == "null" {
		return "", true
	}
	if len(v) == 0 || v[0] != '"' || !jsonscan.Valid(v) {
		return "", false
	}
	return jsonscan.String(v)
}

func sanitizeRaw(s string) string {
	return strings.TrimRight(sanitize(strings.ReplaceAll(s, "\n", " ")), " ")
}

func lastN(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

func pick(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
