package rlog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/companion"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/lsp"
)

// The companion's requests and command.
const (
	// MethodCompanionRecord is a request of our own: the full record a
	// line of a log was written from, for a client to show as its own
	// document. Params: {textDocument: {uri}, position}. Result: a
	// companionRecord, or null when the line has none.
	MethodCompanionRecord = "rlog/companionRecord"
	// CommandOpenCompanionRecord opens the companion at the record a line
	// was written from (window/showDocument with the record selected). Its
	// argument is {"uri": <log>, "line": <0-based line>}; the code lens on
	// a cut-short result runs it.
	CommandOpenCompanionRecord = "rlog-ls.openCompanionRecord"
)

// companionRecord is MethodCompanionRecord's result.
type companionRecord struct {
	// Title says what the record is: "Output of Read", "Agent message" ...
	Title string `json:"title"`
	// Text is the whole content; Language is "json" for a tool input,
	// "text" otherwise.
	Text     string `json:"text"`
	Language string `json:"language"`
	// Location is the record in its file.
	Location protocol.Location `json:"location"`
	// Line is the log line (0-based) the record was written to.
	Line int `json:"line"`
	// Failed marks a result that is an error.
	Failed bool `json:"failed,omitempty"`
}

// hover answers textDocument/hover: on a log, the analysis hover and,
// on a line the companion has, its full record; on a companion, the line
// of the log its record was written to.
func (cs *companions) hover(ctx context.Context, wc *wsCtx, p *protocol.HoverParams) (any, error) {
	d := openDocument(wc, p.TextDocument.URI)
	if d == nil {
		return nil, nil
	}
	dc := docContext(wc, d)
	if isRecordDocument(d.URI) {
		return cs.recordHover(ctx, wc, dc, p.Position)
	}
	t := d.Text.Tree
	off := dc.Mapper.Offset(p.Position)
	h, ok := analysis.Hover(t, off)
	full := ""
	pr := cs.pairing(ctx, d)
	if pr != nil && isPairHoverToken(t, off) {
		full = recordHover(pr, t, t.LineAt(off))
	}
	if pr != nil && isHeaderID(t, t.LineAt(off)) {
		full = companionSummary(d, pr)
	}
	if src, ok := viewSource(d.URI); ok && t.Line(t.LineAt(off)).Kind == grammar.HeaderDelimiter {
		full = cs.views.summary(src, pr != nil && !pr.Mismatch)
	}
	if !ok && full == "" {
		return nil, nil
	}
	md, span := h.Markdown, h.Span
	switch {
	case !ok:
		l := t.Line(t.LineAt(off))
		md, span = full, grammar.Span{Start: l.Start, End: l.TrimEnd}
	case full != "":
		md += "\n\n---\n\n" + full
	}
	rng := dc.Mapper.Range(span.Start, span.End)
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: md}, Range: &rng}, nil
}

// recordHover is the full record of line n, or "" when the line shows it
// whole already or has none.
func recordHover(pr *companion.Pairing, t *grammar.Tree, n int) string {
	ref, ok := pr.Record(n)
	if !ok {
		return ""
	}
	ix := pr.Snap.Files[ref.File]
	rec := ix.Record(int(ref.Rec))
	c, err := pr.Snap.Content(ref)
	if err != nil {
		why := err.Error()
		if errors.Is(err, companion.ErrTooLarge) {
			why = fmt.Sprintf("it is %s, too large to show here", analysis.ByteSize(int64(rec.Len)))
		}
		return fmt.Sprintf("The full record is in `%s` line %d (%s): Go to Definition opens it.", filepath.Base(ix.Path), rec.Line+1, why)
	}
	if shownWhole(t, t.Line(n), c) {
		return ""
	}
	return companion.Markdown(c, ix.Path, int(rec.Line))
}

// isHeaderID reports whether line n is the header's id field.
func isHeaderID(t *grammar.Tree, n int) bool {
	for _, f := range t.Header().Fields {
		if f.Key == "id" && f.Line == n {
			return true
		}
	}
	return false
}

// companionSummary is the hover on the header's id: the companion, what it
// holds, and the session's APM counted from it.
func companionSummary(d *lsp.Document[Doc], pr *companion.Pairing) string {
	main := pr.Snap.Main()
	var b strings.Builder
	fmt.Fprintf(&b, "**Full record**: `%s` (%s)", filepath.Base(main.Path), companion.Title(main.Format))
	if pr.Mismatch {
		fmt.Fprintf(&b, " records another session, %s (W014): it is not joined to this log.", main.SessionID)
		return b.String()
	}
	records := 0
	for _, ix := range pr.Snap.Files {
		records += ix.Len()
	}
	fmt.Fprintf(&b, ", %d records", records)
	if n := len(pr.Snap.Files) - 1; n > 0 {
		fmt.Fprintf(&b, " with %d subagent file%s", n, map[bool]string{true: "s"}[n > 1])
	}
	fmt.Fprintf(&b, "; %d lines of this log are joined to their record.", pr.Joined())
	var a analysis.APM
	d.Text.withSession(func(st *analysis.SessionTracker) { a = st.Totals(sessionOptions(d.Text)).APM })
	if a.Known {
		fmt.Fprintf(&b, "\n\nAPM %.2f = (%d messages + %d tool calls) / %.1f min, from the full record.", a.Value, a.Messages, a.ToolCalls, a.Minutes)
	} else {
		fmt.Fprintf(&b, "\n\nAPM unknown: the full record gives no duration (%d messages + %d tool calls).", a.Messages, a.ToolCalls)
	}
	return b.String()
}

// shownWhole reports whether line l already shows all of c: a message or
// result of one short line that the writer did not cut.
func shownWhole(t *grammar.Tree, l grammar.Line, c companion.Content) bool {
	if c.Language == "json" || strings.Contains(strings.TrimRight(c.Text, "\n"), "\n") {
		return false
	}
	full := strings.TrimSpace(c.Text)
	var shown string
	switch l.Kind {
	case grammar.Observation:
		if !l.Result.Valid() {
			return full == ""
		}
		shown = string(t.Slice(l.Result.Start, l.Result.End))
		if i := strings.IndexByte(shown, ']'); strings.HasPrefix(shown, "[") && i > 0 {
			shown = shown[i+1:]
		}
	case grammar.User, grammar.Agent:
		shown = string(t.Slice(l.Content, l.TrimEnd))
	default:
		return false
	}
	shown = strings.TrimSpace(shown)
	return strings.HasPrefix(shown, full) && !strings.HasPrefix(strings.TrimPrefix(shown, full), "...")
}

// recordHover on a companion document says which line of the log the
// record under the cursor was written to.
func (cs *companions) recordHover(ctx context.Context, wc *wsCtx, dc *docCtx, pos protocol.Position) (any, error) {
	logDoc, pr, ref, ok := cs.recordUnder(ctx, wc, dc, pos)
	if !ok {
		return nil, nil
	}
	n, ok := pr.Line(ref)
	if !ok {
		return nil, nil
	}
	t := logDoc.Text.Tree
	l := t.Line(n)
	text := string(t.Text(l))
	if len(text) > 300 {
		text = text[:300] + "…"
	}
	md := fmt.Sprintf("Written to `%s` as line %d (Go to Definition opens it):\n\n%s", documentName(logDoc.URI), n+1, fence(text))
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: md}}, nil
}

func fence(s string) string { return fenced(s, "rlog") }

// fenced is s in a Markdown code block of language lang.
func fenced(s, lang string) string {
	f := "```"
	for strings.Contains(s, f) {
		f += "`"
	}
	return f + lang + "\n" + s + "\n" + f
}

// recordUnder finds the record under the cursor in a companion document,
// its log and their join.
func (cs *companions) recordUnder(ctx context.Context, wc *wsCtx, dc *docCtx, pos protocol.Position) (*lsp.Document[Doc], *companion.Pairing, companion.Ref, bool) {
	file, ok := lsp.FilePath(dc.Doc.URI)
	if !ok {
		return nil, nil, companion.Ref{}, false
	}
	logDoc, ok := cs.logFor(wc, file)
	if !ok {
		return nil, nil, companion.Ref{}, false
	}
	s := cs.snapshotFor(logDoc.URI)
	if s == nil {
		return nil, nil, companion.Ref{}, false
	}
	for fi, ix := range s.Files {
		if ix.Path != file {
			continue
		}
		rec, ok := ix.RecordAt(int64(dc.Mapper.Offset(pos)), int(pos.Line))
		if !ok {
			break
		}
		pr := logDoc.Text.pairWith(ctx, s)
		if pr == nil {
			break
		}
		return logDoc, pr, companion.Ref{File: int32(fi), Rec: int32(rec)}, true
	}
	return nil, nil, companion.Ref{}, false
}

// definition answers textDocument/definition. On a log: an id goes to the
// line that started the call, as before; anywhere else on a line the
// companion has (and on the id of the line that starts the call), to its
// record in the companion; an x: line also to its subagent's file. On a
// companion: back to the line of the log the record was written to.
func (cs *companions) definition(ctx context.Context, wc *wsCtx, p *protocol.DefinitionParams) (any, error) {
	d := openDocument(wc, p.TextDocument.URI)
	if d == nil {
		return nil, nil
	}
	dc := docContext(wc, d)
	out := []protocol.Location{}
	if isRecordDocument(d.URI) {
		logDoc, pr, ref, ok := cs.recordUnder(ctx, wc, dc, p.Position)
		if !ok {
			return out, nil
		}
		if n, ok := pr.Line(ref); ok {
			t := logDoc.Text.Tree
			out = append(out, lineLocation(logDoc.URI, wc.Mapper(logDoc), t.Line(n)))
		}
		return out, nil
	}
	t := d.Text.Tree
	off := dc.Mapper.Offset(p.Position)
	n := t.LineAt(off)
	def, hasDef := analysis.Definition(t, off)
	if hasDef && t.LineAt(def.Span.Start) != n {
		return append(out, protocol.Location{URI: d.URI, Range: dc.Mapper.Range(def.Span.Start, def.Span.End)}), nil
	}
	if pr := cs.pairing(ctx, d); pr != nil {
		if file, ok := pr.SubagentFile(n); ok {
			out = append(out, protocol.Location{URI: fileURI(file)})
		}
		if ref, ok := pr.Record(n); ok {
			if loc, ok := recordLocation(pr.Snap, ref, dc.Session.Encoding); ok {
				out = append(out, loc)
			}
		}
		if len(out) > 0 {
			return out, nil
		}
	}
	if hasDef {
		out = append(out, protocol.Location{URI: d.URI, Range: dc.Mapper.Range(def.Span.Start, def.Span.End)})
	}
	return out, nil
}

// lensSlack is how many bytes a result's record may exceed the text the
// log shows before the line gets a code lens: the JSON around the output
// (tool_use_id, type, quotes and escapes) takes about this much.
const lensSlack = 120

// recordLenses are the code lenses on each o: line whose output the log
// cut short: each opens the full output in the companion. (They come with
// their command: codeLens/resolve is for the session lenses.)
func (cs *companions) recordLenses(ctx context.Context, dc *docCtx) []protocol.CodeLens {
	var out []protocol.CodeLens
	pr := cs.pairing(ctx, dc.Doc)
	if pr == nil {
		return out
	}
	t := dc.Doc.Text.Tree
	positions := dc.Mapper.Positions()
	for n, ref := range pr.Links() {
		l := t.Line(n)
		if l.Kind != grammar.Observation {
			continue
		}
		ix := pr.Snap.Files[ref.File]
		rec := ix.Record(int(ref.Rec))
		// Writers mark what they cut with "..."; an output whose first line
		// is short ("{") is cut without the mark, and its record is larger.
		cut := bytes.HasSuffix(t.Slice(l.Result.Start, l.Result.End), []byte("..."))
		if !cut && int(rec.Len) <= l.Result.Len()+lensSlack {
			continue
		}
		out = append(out, protocol.CodeLens{
			Range: positions.Range(l.Start, l.TrimEnd),
			Command: &protocol.Command{
				Title:     fmt.Sprintf("Full output: %s in %s line %d", analysis.ByteSize(int64(rec.Len)), filepath.Base(ix.Path), rec.Line+1),
				Command:   CommandOpenCompanionRecord,
				Arguments: []any{recordArgs{URI: dc.Doc.URI, Line: n}},
			},
		})
	}
	return out
}

// recordArgs is CommandOpenCompanionRecord's argument.
type recordArgs struct {
	URI  protocol.DocumentURI `json:"uri"`
	Line int                  `json:"line"`
}

// openRecord runs CommandOpenCompanionRecord.
func (cs *companions) openRecord(ctx context.Context, wc *wsCtx, raw json.RawMessage) (any, error) {
	var a recordArgs
	if err := json.Unmarshal(raw, &a); err != nil || a.URI == "" {
		return nil, lsp.InvalidParams("%s needs {\"uri\", \"line\"}", CommandOpenCompanionRecord)
	}
	d := openDocument(wc, a.URI)
	if d == nil {
		return nil, lsp.InvalidParams("%s is not open", a.URI)
	}
	pr := cs.pairing(ctx, d)
	if pr == nil {
		return nil, lsp.RequestFailed("%s has no companion file", documentName(a.URI))
	}
	ref, ok := pr.Record(a.Line)
	if !ok {
		return nil, lsp.RequestFailed("line %d of %s has no record in the companion", a.Line+1, documentName(a.URI))
	}
	loc, ok := recordLocation(pr.Snap, ref, wc.Session.Encoding)
	if !ok {
		return nil, lsp.RequestFailed("the companion of %s cannot be read", documentName(a.URI))
	}
	sel := protocol.Range{Start: loc.Range.Start, End: loc.Range.Start}
	shown, err := wc.Client.ShowDocument(ctx, protocol.ShowDocumentParams{URI: protocol.URI(loc.URI), TakeFocus: true, Selection: &sel})
	if err != nil {
		return nil, lsp.RequestFailed("%v", err)
	}
	return map[string]any{"uri": loc.URI, "shown": shown}, nil
}

// record answers MethodCompanionRecord.
func (cs *companions) record(ctx context.Context, dc *docCtx, p *protocol.TextDocumentPositionParams) (any, error) {
	pr := cs.pairing(ctx, dc.Doc)
	if pr == nil {
		return nil, nil
	}
	t := dc.Doc.Text.Tree
	n := t.LineAt(dc.Mapper.Offset(p.Position))
	ref, ok := pr.Record(n)
	if !ok {
		return nil, nil
	}
	c, err := pr.Snap.Content(ref)
	if err != nil {
		return nil, lsp.RequestFailed("the record of line %d: %v", n+1, err)
	}
	loc, _ := recordLocation(pr.Snap, ref, dc.Session.Encoding)
	return companionRecord{Title: c.What, Text: c.Text, Language: c.Language, Location: loc, Line: n, Failed: c.Failed}, nil
}

// subagentLinks are the document links of each x: line whose subagent has
// its own file, to that file.
func (cs *companions) subagentLinks(ctx context.Context, dc *docCtx) []protocol.DocumentLink {
	var out []protocol.DocumentLink
	pr := cs.pairing(ctx, dc.Doc)
	if pr == nil {
		return out
	}
	t := dc.Doc.Text.Tree
	for n, file := range pr.Subagents() {
		l := t.Line(n)
		span := l.Name
		if !span.Valid() {
			span = grammar.Span{Start: l.Start, End: l.TrimEnd}
		}
		out = append(out, protocol.DocumentLink{Range: dc.Mapper.Range(span.Start, span.End), Target: fileURI(file),
			Tooltip: "The subagent's own record, " + filepath.Base(file)})
	}
	return out
}
