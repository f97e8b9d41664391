package rlog

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/companion"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/lsp"
	"github.com/rlog-ls/rlog-ls/report"
)

// Session insight in the editor: code lenses with the session's numbers
// above the header and each phase's above its @phase line, inlay hints
// (call latencies, pauses), and the session view, the page `rlog-ls
// report` writes, through a request and a command.

const (
	// MethodSessionReport is the custom request for the session view of
	// an open document. Params: {"textDocument": {"uri": ...}, "format":
	// "data" | "html"} ("data" when absent). The result is the view's data
	// (report.Data, described in docs/report.md), or {"html": page} for
	// "html": the page `rlog-ls report` writes, with the document's
	// current text and the user's diagnostic settings.
	MethodSessionReport = "rlog/sessionReport"
	// CommandShowSessionView is the code lenses' command: show the session
	// view at a place. Its argument is {"uri": <document>, "line": <0-based
	// line>}. Editors map it to their own view (the VS Code extension
	// opens a webview there); run by the server, it writes the page to a
	// new temporary folder and asks the editor to open it in a browser
	// (window/showDocument, external).
	CommandShowSessionView = "rlog-ls.showSessionView"
)

func init() {
	commandHooks[CommandShowSessionView] = showSessionView
}

// sessionOf is an open document's whole session, built once per version
// for the session view, which shows every call. The lenses and hints read
// the document's SessionTracker instead (withSession), which an edit
// brings up to date at the cost of what it changed.
func sessionOf(doc *lsp.Document[Doc]) *analysis.Session {
	return analysis.SessionFor(doc.Text.Tree, sessionOptions(doc.Text))
}

// sessionTrack keeps an open document's SessionTracker, shared by its
// versions like the analyzer: each lens or hint request brings it to the
// version it is about, under the lock, and reads it there, so a request
// on an older version sees that version's numbers (the tracker moves to
// any tree; between versions, at the cost of what differs). It is made
// on the first request, so a document nobody asks lenses or hints of
// never pays for it, and an edit costs nothing until they are asked.
type sessionTrack struct {
	mu      sync.Mutex
	tracker *analysis.SessionTracker
}

// withSession runs f with the document's session tracker at this
// version; f must not keep it.
func (d Doc) withSession(f func(*analysis.SessionTracker)) {
	st := &d.analysis.session
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.tracker == nil {
		st.tracker = analysis.NewSessionTracker(d.Tree)
	} else {
		st.tracker.Update(d.Tree)
	}
	f(st.tracker)
}

// sessionOptions are the options of the session of a log. This is where
// the log's companion comes in: its action counts, as last joined to the
// log (companion.go), give APM its counts and times in the lenses and the
// view.
func sessionOptions(d Doc) analysis.SessionOptions {
	return analysis.SessionOptions{Companion: d.companionCounts()}
}

// lensData is what a code lens carries from textDocument/codeLens to
// codeLens/resolve: the document, the line, and which lens it is (Phase
// -1: the session's).
type lensData struct {
	URI   protocol.DocumentURI `json:"uri"`
	Line  int                  `json:"line"`
	Phase int                  `json:"phase"`
}

// sessionViewArgs is CommandShowSessionView's argument.
type sessionViewArgs struct {
	URI  protocol.DocumentURI `json:"uri"`
	Line int                  `json:"line"`
}

// codeLenses answers textDocument/codeLens with the lenses' places only:
// finding them costs the number of phases, and the numbers, which need the
// whole session, come in codeLens/resolve for the lenses on screen.
func codeLenses(ctx context.Context, dc *docCtx, _ *protocol.CodeLensParams) (any, error) {
	places := analysis.LensPlaces(dc.Doc.Text.Tree)
	positions := dc.Mapper.Positions()
	out := make([]protocol.CodeLens, 0, len(places))
	for i, pl := range places {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out = append(out, protocol.CodeLens{
			Range: positions.Range(pl.Start, pl.End),
			Data:  lensData{URI: dc.Doc.URI, Line: pl.Line, Phase: pl.Phase},
		})
	}
	return out, nil
}

// resolveCodeLens gives a lens its title and command, from the session of
// the document as it is now (the lens may be from a version before).
func resolveCodeLens(_ context.Context, wc *wsCtx, lens *protocol.CodeLens) (any, error) {
	raw, err := json.Marshal(lens.Data)
	if err != nil {
		return nil, lsp.InvalidParams("code lens data: %v", err)
	}
	var data lensData
	if err := json.Unmarshal(raw, &data); err != nil || data.URI == "" {
		return nil, lsp.InvalidParams("a code lens of rlog-ls carries {uri, line, phase}, not %s", raw)
	}
	doc := openDocument(wc, data.URI)
	if doc == nil {
		lens.Command = &protocol.Command{Title: "(the document was closed)", Command: ""}
		return lens, nil
	}
	lens.Command = &protocol.Command{
		Title:     doc.Text.lensTitle(data, sessionOptions(doc.Text)),
		Command:   CommandShowSessionView,
		Arguments: []any{sessionViewArgs{URI: data.URI, Line: data.Line}},
	}
	return lens, nil
}

// lensTitle is the title of the lens data describes, in this version of
// the document: the session's (Phase < 0) or that of the phase at
// data.Line.
func (d Doc) lensTitle(data lensData, opts analysis.SessionOptions) string {
	var title string
	d.withSession(func(st *analysis.SessionTracker) {
		if data.Phase < 0 {
			title = analysis.SessionLensTitle(st.Totals(opts))
			return
		}
		title = "(no phase here any more)"
		if p, ok := st.PhaseAt(data.Line); ok {
			title = analysis.PhaseLensTitle(&p)
		}
	})
	return title
}

func openDocument(wc *wsCtx, uri protocol.DocumentURI) *lsp.Document[Doc] {
	for _, d := range wc.Docs {
		if d.URI == uri {
			return d
		}
	}
	return nil
}

// inlayHints answers textDocument/inlayHint for the lines of the range:
// latencies after o: lines and pauses before lines, as the settings ask.
func inlayHints(ctx context.Context, dc *docCtx, p *lsp.InlayHintParams) (any, error) {
	settings := settingsOf(dc.Settings)
	set := settings.InlayHints
	out := []lsp.InlayHint{}
	if !set.Latency && !set.Gaps {
		return out, nil
	}
	t := dc.Doc.Text.Tree
	start, end := dc.Mapper.Span(p.Range)
	start = t.Line(t.LineAt(start)).Start // whole lines
	opts := analysis.InlayHintOptions{Latency: set.Latency, Gaps: set.Gaps, MinGap: settings.GapThreshold()}
	hints := dc.Doc.Text.inlayHints(start, max(end, start+1), opts)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	positions := dc.Mapper.Positions()
	first, last := min(p.Range.Start.Line, p.Range.End.Line), max(p.Range.Start.Line, p.Range.End.Line)
	for _, h := range hints {
		// The hints are those of the rlog lines the range touches; a line
		// holding a lone CR spans editor lines, and its hint at its start
		// may lie above the range: the editor asks for it with that line.
		pos := positions.Position(h.Offset)
		if pos.Line < first || pos.Line > last {
			continue
		}
		out = append(out, lsp.InlayHint{
			Position:     pos,
			Label:        h.Label,
			Tooltip:      h.Tooltip,
			PaddingLeft:  !h.Before,
			PaddingRight: h.Before,
		})
	}
	return out, nil
}

// inlayHints are the hints of the lines that begin in [start, end) in
// this version of the document; the latency hints read the calls ending
// there from the document's session tracker.
func (d Doc) inlayHints(start, end int, opts analysis.InlayHintOptions) []analysis.InlayHint {
	if !opts.Latency {
		return analysis.InlayHints(d.Tree, start, end, opts)
	}
	var hints []analysis.InlayHint
	d.withSession(func(st *analysis.SessionTracker) {
		opts.Calls = st
		hints = analysis.InlayHints(d.Tree, start, end, opts)
	})
	return hints
}

// sessionReportParams are rlog/sessionReport's params.
type sessionReportParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
	Format       string                          `json:"format"`
}

// sessionReportHTML is rlog/sessionReport's result for "html".
type sessionReportHTML struct {
	HTML string `json:"html"`
}

func sessionReport(ctx context.Context, dc *docCtx, p *sessionReportParams) (any, error) {
	if p.Format != "" && p.Format != "data" && p.Format != "html" {
		return nil, lsp.InvalidParams(`format is "data" or "html", not %q`, p.Format)
	}
	d, err := reportData(dc)
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if p.Format != "html" {
		return d, nil
	}
	page, err := report.HTML(d, report.NewNonce())
	if err != nil {
		return nil, err
	}
	return sessionReportHTML{HTML: string(page)}, nil
}

// reportData is the session view's data of an open document, with the
// findings its diagnostics show (the user's severities and disabled codes).
func reportData(dc *docCtx) (*report.Data, error) {
	t := dc.Doc.Text.Tree
	if f, ok := analysis.CheckBinary(t.Slice(0, min(t.Len(), analysis.BinarySample)), analysis.Config{}); ok {
		return nil, lsp.RequestFailed("%s: %s", documentName(dc.Doc.URI), f.Message)
	}
	findings, more, _ := dc.Doc.Text.findings(analysisConfig(dc.Settings), report.DefaultMaxFindings)
	return report.Build(t, sessionOf(dc.Doc), findings, more, report.Options{Name: documentName(dc.Doc.URI), Generator: "rlog-ls"}), nil
}

// showSessionView is the server's own CommandShowSessionView, for editors
// that do not map it to a view of their own: the page goes to a new
// temporary folder (never over anything) and the editor is asked to open
// it in a browser, at the line.
func showSessionView(ctx context.Context, wc *wsCtx, arg json.RawMessage) (any, error) {
	var a sessionViewArgs
	if err := json.Unmarshal(arg, &a); err != nil || a.URI == "" {
		return nil, lsp.InvalidParams("%s needs {\"uri\", \"line\"}", CommandShowSessionView)
	}
	var page []byte
	if doc := openDocument(wc, a.URI); doc != nil {
		dc := &docCtx{Doc: doc, Mapper: wc.Mapper(doc), Settings: wc.Settings, Session: wc.Session, Client: wc.Client, Log: wc.Log}
		d, err := reportData(dc)
		if err != nil {
			return nil, err
		}
		if page, err = report.HTML(d, report.NewNonce()); err != nil {
			return nil, err
		}
	} else {
		src, err := documentBytes(wc, a.URI)
		if err != nil {
			return nil, err
		}
		if f, ok := analysis.CheckBinary(src, analysis.Config{}); ok {
			return nil, lsp.RequestFailed("%s: %s", documentName(a.URI), f.Message)
		}
		t := grammar.Parse(src)
		findings, more := analysis.NewAnalyzer(t).FindingsUpTo(analysisConfig(wc.Settings), report.DefaultMaxFindings)
		opts := analysis.SessionOptions{}
		if path, ok := lsp.FilePath(a.URI); ok {
			opts = companion.SessionOptions(path, t)
		}
		d := report.Build(t, analysis.SessionFor(t, opts), findings, more, report.Options{Name: documentName(a.URI), Generator: "rlog-ls"})
		if page, err = report.HTML(d, report.NewNonce()); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp("", "rlog-ls-view-")
	if err != nil {
		return nil, lsp.RequestFailed("%v", err)
	}
	name := documentName(a.URI)
	if name == "" || name == "." || name == "/" {
		name = "session"
	}
	file := filepath.Join(dir, strings.TrimSuffix(name, filepath.Ext(name))+".report.html")
	if err := os.WriteFile(file, page, 0o600); err != nil {
		return nil, lsp.RequestFailed("%v", err)
	}
	uri := string(fileURI(file)) + fmt.Sprintf("#L%d", a.Line+1)
	shown := false
	if w := wc.Session.Capabilities.Window; w != nil && w.ShowDocument != nil && w.ShowDocument.Support {
		shown, err = wc.Client.ShowDocument(ctx, protocol.ShowDocumentParams{URI: protocol.URI(uri), External: true})
		if err != nil {
			wc.Log.Debug("showDocument", zap.Error(err))
		}
	}
	if !shown {
		_ = wc.Client.ShowMessage(ctx, protocol.MessageTypeInfo, "rlog-ls: the session view is in "+file+"; open it in a browser.")
	}
	return sessionViewResult{URI: uri}, nil
}

// sessionViewResult is CommandShowSessionView's result: the page written.
type sessionViewResult struct {
	URI string `json:"uri"`
}
