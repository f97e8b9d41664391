// Package rlog is the rlog/1 language on top of the server plumbing in lsp:
// it turns analysis results into LSP answers. It holds no state of its own
// beyond a bounded cache of workspace files' symbols.
package rlog

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/lsp"
)

// Doc is an open document's text: the parser's tree. The plumbing edits
// documents through Apply; the tree calls it Edit and reparses only the
// lines an edit touches.
//
// Every version of one opened document shares its analysis state, so each
// diagnostics run only brings the previous run's analysis up to date. The
// state lives and dies with the document's snapshots: closing the document
// drops it, with nothing to clean up.
type Doc struct {
	*grammar.Tree
	analysis *docAnalysis
}

type docAnalysis struct {
	mu       sync.Mutex
	analyzer *analysis.Analyzer
	// pair is the newest join with the log's companion.
	pair pairState
	// session keeps the statistics behind the lenses and hints.
	session sessionTrack
}

// Apply implements lsp.Editable.
func (d Doc) Apply(start, end int, text []byte) Doc {
	return Doc{Tree: d.Tree.Edit(start, end, text), analysis: d.analysis}
}

// EditorLineBounds implements lsp.LineFinder: where editor lines are the
// parser's (no lone CR), one line lookup gives all three.
func (d Doc) EditorLineBounds(off int) (line, start, end int) {
	t := d.Tree
	if t.EditorLineCount() != t.LineCount() {
		line = t.EditorLineAt(off)
		return line, t.EditorLineStart(line), t.EditorLineEnd(line)
	}
	l := t.Line(t.LineAt(off))
	return l.Num, l.Start, l.End
}

// Parse builds a Doc from a document's bytes.
func Parse(src []byte) Doc { return Doc{Tree: grammar.Parse(src), analysis: &docAnalysis{}} }

// findings brings the document's analysis to this version and returns its
// first limit findings (all when limit is negative), how many more there
// are, and whether this was the document's first analysis. Runs for one
// document are serialized; a late run for an older version is still
// correct (the analyzer can move to any tree).
func (d Doc) findings(cfg analysis.Config, limit int) (found []analysis.Finding, more int, first bool) {
	d.analysis.mu.Lock()
	defer d.analysis.mu.Unlock()
	if first = d.analysis.analyzer == nil; first {
		d.analysis.analyzer = analysis.NewAnalyzer(d.Tree)
	} else {
		d.analysis.analyzer.Update(d.Tree)
	}
	found, more = d.analysis.analyzer.FindingsUpTo(cfg, limit)
	return found, more, first
}

type (
	docCtx = lsp.DocumentContext[Doc]
	wsCtx  = lsp.WorkspaceContext[Doc]
)

// DocsURL is where each diagnostic code is explained; diagnostics link to
// DocsURL#<code>.
const DocsURL = "https://github.com/rlog-ls/rlog-ls/blob/main/docs/diagnostics.md"

// Features returns the rlog/1 language for lsp.Serve.
func Features() lsp.Features[Doc] {
	ws := newWorkspaceIndex()
	vs := newViews()
	cs := newCompanions(vs)
	sl := newSessionLists()
	ws.sessions = sl
	ch := newHierarchy()
	return lsp.Features[Doc]{
		Parse:    Parse,
		Section:  "rlog",
		Settings: DefaultSettings(),
		Diagnose: func(ctx context.Context, dc *docCtx) lsp.Diagnostics {
			if isRecordDocument(dc.Doc.URI) {
				return lsp.Diagnostics{} // a companion opened in the editor: navigation only
			}
			if isView(dc.Doc.URI) {
				vs.poke() // follow it
			}
			return cs.pairDiagnostics(ctx, dc, diagnose(ctx, dc))
		},
		Requests: map[string]lsp.Request[Doc]{
			protocol.MethodTextDocumentHover:             lsp.WorkspaceRequest(cs.hover),
			protocol.MethodTextDocumentDefinition:        lsp.WorkspaceRequest(cs.definition),
			protocol.MethodTextDocumentReferences:        lsp.DocumentRequest(logOnly(references)),
			protocol.MethodTextDocumentDocumentHighlight: lsp.DocumentRequest(logOnly(highlight)),
			protocol.MethodTextDocumentFoldingRange:      lsp.DocumentRequest(logOnly(foldingRanges)),
			protocol.MethodTextDocumentDocumentSymbol:    lsp.DocumentRequest(logOnly(documentSymbols)),
			protocol.MethodWorkspaceSymbol:               lsp.WorkspaceRequest(ws.symbols),
			protocol.MethodSemanticTokensFull:            lsp.DocumentRequest(logOnly(semanticTokensFull)),
			protocol.MethodSemanticTokensRange:           lsp.DocumentRequest(logOnly(semanticTokensRange)),
			protocol.MethodTextDocumentCodeAction:        lsp.DocumentRequest(editableOnly(codeActions)),
			protocol.MethodTextDocumentCompletion:        lsp.DocumentRequest(editableOnly(completion)),
			protocol.MethodTextDocumentPrepareRename:     lsp.DocumentRequest(editableOnly(prepareRename)),
			protocol.MethodTextDocumentRename:            lsp.DocumentRequest(editableOnly(rename)),
			protocol.MethodTextDocumentDocumentLink: lsp.DocumentRequest(logOnly(func(ctx context.Context, dc *docCtx, p *protocol.DocumentLinkParams) (any, error) {
				links, err := documentLinks(ctx, dc, p)
				if err != nil {
					return nil, err
				}
				// And each x: line to its subagent's own file.
				return append(links.([]protocol.DocumentLink), cs.subagentLinks(ctx, dc)...), nil
			})),
			protocol.MethodTextDocumentCodeLens: lsp.DocumentRequest(logOnly(func(ctx context.Context, dc *docCtx, p *protocol.CodeLensParams) (any, error) {
				lenses, err := codeLenses(ctx, dc, p)
				if err != nil {
					return nil, err
				}
				// And on each output the log cut short, one to its full record.
				return append(lenses.([]protocol.CodeLens), cs.recordLenses(ctx, dc)...), nil
			})),
			protocol.MethodCodeLensResolve:  lsp.WorkspaceRequest(resolveCodeLens),
			lsp.MethodTextDocumentInlayHint: lsp.DocumentRequest(logOnly(inlayHints)),
			MethodSessionReport:             lsp.DocumentRequest(logOnly(sessionReport)),
			MethodCompanionRecord:           lsp.DocumentRequest(logOnly(cs.record)),
			MethodSessionView:               lsp.WorkspaceRequest(vs.view),
			MethodSessionFormat:             lsp.WorkspaceRequest(vs.format),
			MethodMaskedView:                lsp.WorkspaceRequest(vs.maskedView),
			MethodSessions:                  lsp.WorkspaceRequest(sl.list),
			// The sub-agent tree (callhierarchy.go).
			protocol.MethodTextDocumentPrepareCallHierarchy: lsp.WorkspaceRequest(ch.prepare),
			protocol.MethodCallHierarchyIncomingCalls:       lsp.WorkspaceRequest(ch.incoming),
			protocol.MethodCallHierarchyOutgoingCalls:       lsp.WorkspaceRequest(ch.outgoing),
			protocol.MethodWorkspaceExecuteCommand: lsp.WorkspaceRequest(func(ctx context.Context, wc *wsCtx, p *protocol.ExecuteCommandParams) (any, error) {
				if p.Command == CommandOpenCompanionRecord && len(p.Arguments) == 1 {
					raw, _ := json.Marshal(p.Arguments[0])
					return cs.openRecord(ctx, wc, raw)
				}
				return executeCommand(ctx, wc, p)
			}),
		},
		Notifications: map[string]lsp.Notification[Doc]{
			protocol.MethodWorkspaceDidChangeWatchedFiles: lsp.OnNotification(cs.filesChanged),
		},
		Background: func(ctx context.Context, workspace func() *wsCtx) {
			go sl.follow(ctx, workspace)
			vs.follow(ctx, workspace)
		},
		Capabilities: func(caps *lsp.ServerCapabilities, sess *lsp.Session) {
			caps.HoverProvider = true
			caps.DefinitionProvider = true
			caps.ReferencesProvider = true
			caps.DocumentHighlightProvider = true
			caps.FoldingRangeProvider = true
			caps.DocumentSymbolProvider = true
			caps.WorkspaceSymbolProvider = true
			caps.SemanticTokensProvider = semanticTokensCapability
			caps.CompletionProvider = &protocol.CompletionOptions{TriggerCharacters: completionTriggers}
			caps.RenameProvider = renameCapability(sess)
			caps.DocumentLinkProvider = &protocol.DocumentLinkOptions{}
			actionCapabilities(caps)
			caps.ExecuteCommandProvider.Commands = append(caps.ExecuteCommandProvider.Commands, CommandOpenCompanionRecord)
			caps.CodeLensProvider = &protocol.CodeLensOptions{ResolveProvider: true}
			caps.InlayHintProvider = true
			caps.CallHierarchyProvider = true
		},
	}
}

// logOnly answers a request about a companion opened in the editor (a
// JSON or JSONL file, which gets navigation only) with null.
func logOnly[P any](h func(context.Context, *docCtx, *P) (any, error)) func(context.Context, *docCtx, *P) (any, error) {
	return func(ctx context.Context, dc *docCtx, p *P) (any, error) {
		if isRecordDocument(dc.Doc.URI) {
			return nil, nil
		}
		return h(ctx, dc, p)
	}
}

// editableOnly answers a request that edits the document (completion,
// rename, code actions) with null on a view, which is read only, and on a
// companion.
func editableOnly[P any](h func(context.Context, *docCtx, *P) (any, error)) func(context.Context, *docCtx, *P) (any, error) {
	return logOnly(func(ctx context.Context, dc *docCtx, p *P) (any, error) {
		if isView(dc.Doc.URI) {
			return nil, nil
		}
		return h(ctx, dc, p)
	})
}

// analysisConfig turns the user's settings into the rules' configuration.
func analysisConfig(s lsp.Settings) analysis.Config {
	cfg, _ := analysis.DisableCodes(s.DisabledCodes)
	// Unknown codes are ignored, as in disabledCodes; the settings reader
	// has already dropped, and logged, unknown levels.
	cfg, _ = cfg.SetSeverities(settingsOf(s).Severity)
	return cfg
}

// diagnose builds the diagnostics the editor is shown: up to the cap, and
// one more that places the note about the rest, which are only counted.
func diagnose(ctx context.Context, dc *docCtx) lsp.Diagnostics {
	limit := -1
	if shown := dc.Settings.Diagnostics.MaxPerDocument; shown > 0 {
		limit = shown + 1
	}
	cfg := analysisConfig(dc.Settings)
	t := dc.Doc.Text.Tree
	if f, ok := analysis.CheckBinary(t.Slice(0, min(t.Len(), analysis.BinarySample)), cfg); ok {
		// Not text: one diagnostic, as `rlog-ls check` gives.
		return lsp.Diagnostics{List: []protocol.Diagnostic{toDiagnostic(dc, dc.Mapper.Positions(), f)}}
	}
	findings, more, first := dc.Doc.Text.findings(cfg, limit)
	var warm func()
	if first {
		// Editors ask for folds and the outline right after opening: reading
		// the lines they need once the diagnostics are out, while the
		// summaries are fresh in memory, saves the first of those requests
		// most of its work in a large log. Later requests re-read only the
		// chunks edits replace.
		tree, folds, outline := dc.Doc.Text.Tree, foldingLimit(dc.Session), settingsOf(dc.Settings).Outline.MaxItems
		warm = func() {
			analysis.FoldsUpTo(tree, folds)
			analysis.Outline(tree, outline)
		}
	}
	out := make([]protocol.Diagnostic, 0, len(findings))
	positions := dc.Mapper.Positions() // findings come in file order
	for i, f := range findings {
		if i%1024 == 0 && ctx.Err() != nil {
			return lsp.Diagnostics{}
		}
		out = append(out, toDiagnostic(dc, positions, f))
	}
	return lsp.Diagnostics{List: out, NotBuilt: more, AfterPublish: warm}
}

// toDiagnostic is the one place a finding becomes an LSP diagnostic, so the
// editor shows exactly what `rlog-ls check` prints.
func toDiagnostic(dc *docCtx, positions *lsp.PositionCache, f analysis.Finding) protocol.Diagnostic {
	d := protocol.Diagnostic{
		Range:           positions.Range(f.Span.Start, f.Span.End),
		Severity:        protocol.DiagnosticSeverity(f.Severity),
		Code:            string(f.Code), // a string on the wire and to the code actions' diagCode
		CodeDescription: &protocol.CodeDescription{Href: protocol.URI(DocsURL + "#" + strings.ToLower(string(f.Code)))},
		Source:          "rlog-ls",
		Message:         f.Message,
	}
	for _, r := range f.Related {
		d.RelatedInformation = append(d.RelatedInformation, protocol.DiagnosticRelatedInformation{
			Location: protocol.Location{URI: dc.Doc.URI, Range: positions.Range(r.Span.Start, r.Span.End)},
			Message:  r.Message,
		})
	}
	return d
}

func occurrencesAt(dc *docCtx, pos protocol.Position) []analysis.Occurrence {
	t := dc.Doc.Text.Tree
	ref, ok := analysis.RefAt(t, dc.Mapper.Offset(pos))
	if !ok {
		return nil
	}
	return analysis.Occurrences(t, ref)
}

func references(_ context.Context, dc *docCtx, p *protocol.ReferenceParams) (any, error) {
	out := []protocol.Location{}
	positions := dc.Mapper.Positions() // occurrences come in document order
	for _, o := range occurrencesAt(dc, p.Position) {
		if o.Def && !p.Context.IncludeDeclaration {
			continue
		}
		out = append(out, protocol.Location{URI: dc.Doc.URI, Range: positions.Range(o.Span.Start, o.Span.End)})
	}
	return out, nil
}

func highlight(_ context.Context, dc *docCtx, p *protocol.DocumentHighlightParams) (any, error) {
	out := []protocol.DocumentHighlight{}
	positions := dc.Mapper.Positions()
	for _, o := range occurrencesAt(dc, p.Position) {
		kind := protocol.DocumentHighlightKindRead
		if o.Def {
			kind = protocol.DocumentHighlightKindWrite
		}
		out = append(out, protocol.DocumentHighlight{Range: positions.Range(o.Span.Start, o.Span.End), Kind: kind})
	}
	return out, nil
}

func foldingRanges(ctx context.Context, dc *docCtx, _ *protocol.FoldingRangeParams) (any, error) {
	t := dc.Doc.Text.Tree
	limit := foldingLimit(dc.Session)
	// Editors also end lines at a lone CR; only then do line numbers differ.
	mapLines := t.EditorLineCount() != t.LineCount()
	positions := dc.Mapper.Positions()
	folds := analysis.FoldsUpTo(t, limit)
	out := make([]protocol.FoldingRange, 0, len(folds))
	for _, f := range folds {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		start, end := uint32(f.StartLine), uint32(f.EndLine)
		if mapLines {
			start, end = positions.Position(t.Line(f.StartLine).Start).Line, positions.Position(t.Line(f.EndLine).End).Line
		}
		if end <= start {
			continue
		}
		kind := protocol.RegionFoldingRange
		if f.Kind == analysis.FoldComment {
			kind = protocol.CommentFoldingRange
		}
		out = append(out, protocol.FoldingRange{StartLine: start, EndLine: end, Kind: kind})
	}
	return lsp.EncodeFoldingRanges(out), nil
}

// foldingLimit is the client's foldingRange rangeLimit, if it sent one.
func foldingLimit(sess *lsp.Session) int {
	if fr := sess.Capabilities.TextDocument; fr != nil && fr.FoldingRange != nil && fr.FoldingRange.RangeLimit > 0 {
		return int(fr.FoldingRange.RangeLimit)
	}
	return -1
}

var symbolKinds = map[analysis.SymbolKind]protocol.SymbolKind{
	analysis.SessionSymbol:  protocol.SymbolKindModule,
	analysis.PhaseSymbol:    protocol.SymbolKindNamespace,
	analysis.TurnSymbol:     protocol.SymbolKindEvent,
	analysis.ToolCallSymbol: protocol.SymbolKindFunction,
	analysis.SubagentSymbol: protocol.SymbolKindClass,
	analysis.QuestionSymbol: protocol.SymbolKindInterface,
	analysis.MoreSymbol:     protocol.SymbolKindNull,
}

func documentSymbols(_ context.Context, dc *docCtx, _ *protocol.DocumentSymbolParams) (any, error) {
	syms := analysis.Outline(dc.Doc.Text.Tree, settingsOf(dc.Settings).Outline.MaxItems)
	positions := dc.Mapper.Positions()
	if hierarchical(dc.Session) {
		return lsp.EncodeDocumentSymbols(toDocumentSymbols(positions, syms))
	}
	// Clients without hierarchy get the same entries flattened, each with
	// its container's name.
	out := []protocol.SymbolInformation{}
	var walk func(ss []analysis.Symbol, container string)
	walk = func(ss []analysis.Symbol, container string) {
		for _, s := range ss {
			out = append(out, protocol.SymbolInformation{
				Name: s.Name, Kind: symbolKinds[s.Kind], ContainerName: container,
				Location: protocol.Location{URI: dc.Doc.URI, Range: positions.Range(s.Span.Start, s.Span.End)},
			})
			walk(s.Children, s.Name)
		}
	}
	walk(syms, "")
	return out, nil
}

func hierarchical(sess *lsp.Session) bool {
	td := sess.Capabilities.TextDocument
	return td != nil && td.DocumentSymbol != nil && td.DocumentSymbol.HierarchicalDocumentSymbolSupport
}

func toDocumentSymbols(positions *lsp.PositionCache, syms []analysis.Symbol) []protocol.DocumentSymbol {
	out := make([]protocol.DocumentSymbol, 0, len(syms))
	for _, s := range syms {
		out = append(out, protocol.DocumentSymbol{
			Name:           nonEmpty(s.Name),
			Detail:         s.Detail,
			Kind:           symbolKinds[s.Kind],
			Range:          positions.Range(s.Span.Start, s.Span.End),
			SelectionRange: positions.Range(s.Selection.Start, s.Selection.End),
			Children:       toDocumentSymbols(positions, s.Children),
		})
	}
	return out
}

// nonEmpty keeps a symbol's name non-empty: VS Code rejects empty names.
func nonEmpty(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(empty)"
	}
	return s
}
