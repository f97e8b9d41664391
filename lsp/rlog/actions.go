package rlog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/lsp"
)

// The commands the server runs (workspace/executeCommand).
const (
	// CommandConvert converts an open rlog document; its argument is
	// {"uri": <document>, "format": <target format>}.
	CommandConvert = "rlog-ls.convert"
	// CommandConvertToRlog converts a JSON or JSONL session file (any
	// readable format, detected) to an .rlog beside it; its argument is the
	// file's URI.
	CommandConvertToRlog = "rlog-ls.convertToRlog"
)

// exportKind is the code action kind of the conversion of an rlog
// document to format f (source.convert.atif).
func exportKind(f convert.Format) protocol.CodeActionKind {
	return protocol.CodeActionKind("source.convert." + string(f))
}

// Hooks through which other features add code actions and commands
// without a second textDocument/codeAction or executeCommand handler
// (redact.go registers "Write a redacted copy" here). codeActions appends
// what each actionHook returns; executeCommand runs commandHooks[command]
// with the command's one argument.
var (
	actionHooks  []func(ctx context.Context, dc *docCtx, p *protocol.CodeActionParams) []codeAction
	commandHooks = map[string]func(ctx context.Context, wc *wsCtx, arg json.RawMessage) (any, error){}
)

// actionCapabilities advertises code actions and the commands.
func actionCapabilities(caps *lsp.ServerCapabilities) {
	caps.CodeActionProvider = &protocol.CodeActionOptions{
		CodeActionKinds: []protocol.CodeActionKind{protocol.QuickFix, protocol.Source},
	}
	commands := []string{CommandConvert, CommandConvertToRlog}
	for c := range commandHooks {
		commands = append(commands, c)
	}
	slices.Sort(commands[2:])
	caps.ExecuteCommandProvider = &protocol.ExecuteCommandOptions{Commands: commands}
}

// codeAction is the wire CodeAction; protocol v0.12.0's has the fields, but
// an edit of our own type cannot go in it, and isPreferred is what we set.
type codeAction struct {
	Title       string                  `json:"title"`
	Kind        protocol.CodeActionKind `json:"kind,omitempty"`
	Diagnostics []protocol.Diagnostic   `json:"diagnostics,omitempty"`
	IsPreferred bool                    `json:"isPreferred,omitempty"`
	Edit        *protocol.WorkspaceEdit `json:"edit,omitempty"`
	Command     *protocol.Command       `json:"command,omitempty"`
}

// wants reports whether the client asked for actions of kind (context.only).
func wants(only []protocol.CodeActionKind, kind protocol.CodeActionKind) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if kind == o || strings.HasPrefix(string(kind), string(o)+".") {
			return true
		}
	}
	return false
}

// codeActions answers textDocument/codeAction: quick fixes for the
// diagnostics the client sent, and on a file the conversions. A conversion
// is a command, run only when chosen: computing four conversions of a large
// log every time the cursor moves would be waste, and the loss report is
// shown when the file is made.
func codeActions(ctx context.Context, dc *docCtx, p *protocol.CodeActionParams) (any, error) {
	out := []codeAction{}
	if wants(p.Context.Only, protocol.QuickFix) && len(p.Context.Diagnostics) > 0 {
		out = append(out, quickFixes(dc, p.Context.Diagnostics)...)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if _, isFile := lsp.FilePath(dc.Doc.URI); isFile {
		// The formats the table offers an export to, in its order.
		for _, f := range convert.Formats() {
			if f.Export == "" || !f.CanWrite() || !wants(p.Context.Only, exportKind(f.Name)) {
				continue
			}
			out = append(out, codeAction{
				Title: f.Export,
				Kind:  exportKind(f.Name),
				Command: &protocol.Command{
					Title:     f.Export,
					Command:   CommandConvert,
					Arguments: []any{convertArgs{URI: dc.Doc.URI, Format: string(f.Name)}},
				},
			})
		}
	}
	for _, hook := range actionHooks {
		out = append(out, hook(ctx, dc, p)...)
	}
	return out, nil
}

type convertArgs struct {
	URI    protocol.DocumentURI `json:"uri"`
	Format string               `json:"format"`
}

func diagCode(d protocol.Diagnostic) string {
	s, _ := d.Code.(string)
	return s
}

// quickFixes matches the client's diagnostics with the document's findings
// (same code and range) and turns their fixes into edits. One fix that
// answers several diagnostics (renumbering answers every W004) is one
// action listing them all. The findings are the document's diagnostics
// (its analysis, brought to this version); each one of a code the client
// asks about is mapped once, in document order, so the matching costs no
// more than publishing them did.
func quickFixes(dc *docCtx, diags []protocol.Diagnostic) []codeAction {
	t := dc.Doc.Text.Tree
	asked := map[analysis.Code]bool{}
	for _, d := range diags {
		if code := diagCode(d); code != "" && (d.Source == "" || d.Source == "rlog-ls") {
			asked[analysis.Code(code)] = true
		}
	}
	if len(asked) == 0 {
		return nil
	}
	findings, _, _ := dc.Doc.Text.findings(analysisConfig(dc.Settings), -1)
	type where struct {
		code analysis.Code
		rng  protocol.Range
	}
	byRange := map[where]analysis.Finding{}
	positions := dc.Mapper.Positions()
	for _, f := range findings {
		if !asked[f.Code] {
			continue
		}
		w := where{f.Code, positions.Range(f.Span.Start, f.Span.End)}
		if _, dup := byRange[w]; !dup {
			byRange[w] = f
		}
	}
	name := documentName(dc.Doc.URI)
	var out []codeAction
	index := map[string]int{} // title -> action, to merge
	for _, d := range diags {
		f, ok := byRange[where{analysis.Code(diagCode(d)), d.Range}]
		if !ok || d.Source != "" && d.Source != "rlog-ls" {
			continue
		}
		for _, fix := range analysis.Fixes(t, f, name) {
			if i, ok := index[fix.Title]; ok {
				out[i].Diagnostics = append(out[i].Diagnostics, d)
				continue
			}
			edits := make([]protocol.TextEdit, 0, len(fix.Edits))
			editPositions := dc.Mapper.Positions() // a fix's edits are sorted
			for _, e := range fix.Edits {
				edits = append(edits, protocol.TextEdit{Range: editPositions.Range(e.Start, e.End), NewText: e.NewText})
			}
			index[fix.Title] = len(out)
			out = append(out, codeAction{
				Title:       fix.Title,
				Kind:        protocol.QuickFix,
				Diagnostics: []protocol.Diagnostic{d},
				IsPreferred: fix.Preferred,
				Edit:        &protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{dc.Doc.URI: edits}},
			})
		}
	}
	return out
}

// documentName is the last segment of a URI's path, for any scheme
// (untitled:Untitled-1 gives Untitled-1).
func documentName(uri protocol.DocumentURI) string {
	if p, ok := lsp.FilePath(uri); ok {
		return filepath.Base(p)
	}
	u, err := url.Parse(string(uri))
	if err != nil {
		return ""
	}
	s := u.Path
	if s == "" {
		s = u.Opaque
	}
	return path.Base(s)
}

// executeCommand runs the conversion commands. The work happens in the
// request's own goroutine (off the read loop), which is what lets it ask
// the client to apply an edit and show a document.
func executeCommand(ctx context.Context, wc *wsCtx, p *protocol.ExecuteCommandParams) (any, error) {
	if len(p.Arguments) != 1 {
		return nil, lsp.InvalidParams("%s takes one argument, got %d", p.Command, len(p.Arguments))
	}
	raw, _ := json.Marshal(p.Arguments[0])
	if hook, ok := commandHooks[p.Command]; ok {
		return hook(ctx, wc, raw)
	}
	switch p.Command {
	case CommandConvert:
		var a convertArgs
		if err := json.Unmarshal(raw, &a); err != nil || a.URI == "" {
			return nil, lsp.InvalidParams("%s needs {\"uri\", \"format\"}", CommandConvert)
		}
		to := convert.Format(a.Format)
		if fi, ok := convert.Lookup(to); !ok || !fi.CanWrite() {
			return nil, lsp.InvalidParams("cannot write format %q", a.Format)
		}
		src, err := documentBytes(wc, a.URI)
		if err != nil {
			return nil, err
		}
		conv, err := convert.Prepare(convert.Job{Source: convert.Source{Bytes: src, Name: documentName(a.URI)}, From: convert.Rlog, FromKnown: true, To: to})
		if err != nil {
			return nil, lsp.RequestFailed("%v", err)
		}
		return deliver(ctx, wc, a.URI, conv)
	case CommandConvertToRlog:
		uri, ok := commandURI(raw)
		if !ok {
			return nil, lsp.InvalidParams("%s needs the URI of a session file", CommandConvertToRlog)
		}
		file, ok := lsp.FilePath(uri)
		if !ok {
			return nil, lsp.InvalidParams("%s converts files on disk; %s is not a file: URI", CommandConvertToRlog, uri)
		}
		conv, err := convert.Prepare(convert.Job{Source: convert.Source{Path: file}, To: convert.Rlog})
		if err != nil {
			return nil, lsp.RequestFailed("%v", err)
		}
		return deliver(ctx, wc, uri, conv)
	}
	return nil, lsp.InvalidParams("unknown command %q", p.Command)
}

// commandURI is the argument of a command that takes one document: its URI
// alone (a string), or {"uri": ...}; false when it is neither, or the
// object's uri is empty.
func commandURI(raw json.RawMessage) (protocol.DocumentURI, bool) {
	var uri protocol.DocumentURI
	if json.Unmarshal(raw, &uri) == nil {
		return uri, true
	}
	var a struct {
		URI protocol.DocumentURI `json:"uri"`
	}
	if json.Unmarshal(raw, &a) != nil || a.URI == "" {
		return "", false
	}
	return a.URI, true
}

// documentBytes is an open document's current text, or a file's contents.
func documentBytes(wc *wsCtx, uri protocol.DocumentURI) ([]byte, error) {
	for _, d := range wc.Docs {
		if d.URI == uri {
			return d.Text.Tree.Bytes(), nil
		}
	}
	file, ok := lsp.FilePath(uri)
	if !ok {
		return nil, lsp.InvalidParams("%s is not open and not a file", uri)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, lsp.RequestFailed("%v", err)
	}
	return b, nil
}

// convertResult is executeCommand's answer: the file made (or "").
type convertResult struct {
	URI     protocol.DocumentURI `json:"uri,omitempty"`
	Created bool                 `json:"created"`
}

// deliver runs a conversion (convert's pipeline: the output checked by its
// format's validator as it is made), creates the file beside source, and
// tells the user what was lost. With a client that can create files in a workspace edit,
// the file is made by workspace/applyEdit (CreateFile that never
// overwrites, then the content), so it is undoable and the editor owns it;
// otherwise the server writes it (never over an existing file, never
// outside the source's folder) and asks the client to show it.
func deliver(ctx context.Context, wc *wsCtx, source protocol.DocumentURI, conv *convert.Conversion) (any, error) {
	file, ok := lsp.FilePath(source)
	if !ok {
		msg := fmt.Sprintf("rlog-ls: %s is not saved to disk; save it first, the conversion is written beside it.", documentName(source))
		_ = wc.Client.ShowMessage(ctx, protocol.MessageTypeWarning, msg)
		return convertResult{}, nil
	}
	var buf bytes.Buffer
	res, err := conv.Run(&buf)
	if err != nil {
		_ = wc.Client.ShowMessage(ctx, protocol.MessageTypeError, fmt.Sprintf("rlog-ls: converting %s failed: %v", filepath.Base(file), err))
		return convertResult{}, nil
	}
	to := conv.To()
	target := convert.OutputPath(file, to)
	targetURI := fileURI(target)
	name := filepath.Base(target)
	if _, _, err := workspaceRootOf(wc.Session, filepath.Dir(target)); err != nil {
		_ = wc.Client.ShowMessage(ctx, protocol.MessageTypeError, fmt.Sprintf("rlog-ls: %s was not created: %v", name, err))
		return convertResult{}, nil
	}

	if canCreate(wc.Session) {
		res, err := wc.Client.ApplyEdit(ctx, lsp.ApplyEditParams{
			Label: fmt.Sprintf("Convert %s to %s", filepath.Base(file), to),
			Edit:  createWithContent(targetURI, buf.String()),
		})
		switch {
		case err != nil:
			wc.Log.Warn("applyEdit failed", zap.Error(err))
			_ = wc.Client.ShowMessage(ctx, protocol.MessageTypeError, fmt.Sprintf("rlog-ls: could not create %s: %v", name, err))
			return convertResult{}, nil
		case !res.Applied:
			why := res.FailureReason
			if why == "" {
				why = "the editor did not apply the edit (does the file exist already?)"
			}
			_ = wc.Client.ShowMessage(ctx, protocol.MessageTypeError, fmt.Sprintf("rlog-ls: %s was not created: %s", name, why))
			return convertResult{}, nil
		}
	} else {
		_, err := writeInWorkspace(wc.Session, filepath.Dir(file), name, buf.Bytes())
		if err != nil {
			msg := fmt.Sprintf("rlog-ls: could not write %s: %v", name, err)
			if errors.Is(err, convert.ErrExists) {
				msg = fmt.Sprintf("rlog-ls: %s exists already; it was left as it is (delete or rename it to convert again).", name)
			}
			_ = wc.Client.ShowMessage(ctx, protocol.MessageTypeError, msg)
			return convertResult{}, nil
		}
	}
	tellLosses(ctx, wc, filepath.Base(file), name, res)
	if _, err := wc.Client.ShowDocument(ctx, protocol.ShowDocumentParams{URI: protocol.URI(targetURI), TakeFocus: true}); err != nil {
		wc.Log.Debug("showDocument", zap.Error(err))
	}
	return convertResult{URI: targetURI, Created: true}, nil
}

// tellLosses shows the loss summary and logs the full report, and what
// the output's check found.
func tellLosses(ctx context.Context, wc *wsCtx, src, dst string, res *convert.Result) {
	rep := res.Report
	if rep == nil {
		return
	}
	problems := res.Problems()
	summary, _, _ := strings.Cut(rep.Text(), "\n")
	if i := strings.Index(summary, ": "); i >= 0 {
		summary = summary[i+2:]
	}
	typ := protocol.MessageTypeInfo
	msg := fmt.Sprintf("rlog-ls: wrote %s from %s (%s).", dst, src, summary)
	if !rep.Empty() {
		typ = protocol.MessageTypeWarning
		msg += " Not everything could be carried over; the full loss report is in the rlog-ls log."
	}
	if len(problems) > 0 {
		typ = protocol.MessageTypeWarning
		msg += fmt.Sprintf(" The %s validator found problems in it; they are in the rlog-ls log.", res.To)
	}
	_ = wc.Client.ShowMessage(ctx, typ, msg)
	log := "rlog-ls: " + src + " -> " + dst + "\n" + rep.Text()
	for _, p := range problems {
		log += "output check: " + p + "\n"
	}
	_ = wc.Client.LogMessage(ctx, protocol.MessageTypeInfo, log)
}

// canCreate reports whether the client applies CreateFile in workspace
// edits (workspace.workspaceEdit.resourceOperations has "create").
func canCreate(sess *lsp.Session) bool {
	ws := sess.Capabilities.Workspace
	if ws == nil || !ws.ApplyEdit || ws.WorkspaceEdit == nil || !ws.WorkspaceEdit.DocumentChanges {
		return false
	}
	for _, op := range ws.WorkspaceEdit.ResourceOperations {
		if op == "create" {
			return true
		}
	}
	return false
}

// The workspace edit that creates a file with content. protocol v0.12.0's
// WorkspaceEdit holds only TextDocumentEdits in documentChanges, so these
// are our own types.
type (
	createFile struct {
		Kind    string               `json:"kind"`
		URI     protocol.DocumentURI `json:"uri"`
		Options createFileOptions    `json:"options"`
	}
	createFileOptions struct {
		Overwrite      bool `json:"overwrite"`
		IgnoreIfExists bool `json:"ignoreIfExists"`
	}
	textDocumentEdit struct {
		TextDocument optionalVersionedID `json:"textDocument"`
		Edits        []protocol.TextEdit `json:"edits"`
	}
	optionalVersionedID struct {
		URI     protocol.DocumentURI `json:"uri"`
		Version *int32               `json:"version"` // null: the new file has no version yet
	}
	workspaceEdit struct {
		DocumentChanges []any `json:"documentChanges"`
	}
)

func createWithContent(uri protocol.DocumentURI, content string) workspaceEdit {
	return workspaceEdit{DocumentChanges: []any{
		createFile{Kind: "create", URI: uri, Options: createFileOptions{Overwrite: false, IgnoreIfExists: false}},
		textDocumentEdit{
			TextDocument: optionalVersionedID{URI: uri},
			Edits:        []protocol.TextEdit{{Range: protocol.Range{}, NewText: content}},
		},
	}}
}
