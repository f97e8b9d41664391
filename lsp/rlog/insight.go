package rlog

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert/companion"
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

// sessionOf is an open document's session statistics, computed once per
// version and shared by the lenses, the hints and the view.
func sessionOf(doc *lsp.Document[Doc]) *analysis.Session {
	return analysis.SessionFor(doc.Text.Tree, sessionOptions(doc.Text))
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
	s := sessionOf(doc)
	title := analysis.SessionLensTitle(s)
	if data.Phase >= 0 {
		title = "(no phase here any more)"
		if p := phaseAtLine(s, data.Line); p != nil {
			title = analysis.PhaseLensTitle(p)
		}
	}
	lens.Command = &protocol.Command{
		Title:     title,
		Command:   CommandShowSessionView,
		Arguments: []any{sessionViewArgs{URI: data.URI, Line: data.Line}},
	}
	return lens, nil
}

// phaseAtLine is the phase whose @phase line is line, else the one that
// holds it.
func phaseAtLine(s *analysis.Session, line int) *analysis.Phase {
	var holder *analysis.Phase
	for i := range s.Phases {
		p := &s.Phases[i]
		if p.Line == line {
			return p
		}
		if p.Line < line && line <= p.EndLine {
			holder = p
		}
	}
	return holder
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
	set := dc.Settings.InlayHints
	out := []lsp.InlayHint{}
	if !set.Latency && !set.Gaps {
		return out, nil
	}
	t := dc.Doc.Text.Tree
	start, end := dc.Mapper.Span(p.Range)
	start = t.Line(t.LineAt(start)).Start // whole lines
	opts := analysis.InlayHintOptions{Latency: set.Latency, Gaps: set.Gaps, MinGap: dc.Settings.GapThreshold()}
	if set.Latency {
		opts.Session = sessionOf(dc.Doc)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	positions := dc.Mapper.Positions()
	first, last := min(p.Range.Start.Line, p.Range.End.Line), max(p.Range.Start.Line, p.Range.End.Line)
	for _, h := range analysis.InlayHints(t, start, max(end, start+1), opts) {
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
