package rlog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/lsp"
)

// Secrets in the editor: S001 marks credential-like values (the checker
// reports them); here are the two ways to get rid of them.
//   - A quick fix on each value under the cursor (or in the selection):
//     "Redact <kind> in place", an edit to [redacted:kind].
//   - A source action on any saved document, "Write a redacted copy": the
//     command CommandRedact writes NAME.redacted.rlog beside the document,
//     from its current text, with every value redacted, and shows it.

// CommandRedact writes a redacted copy of a document; its argument is
// {"uri": <document>} or the URI itself.
const CommandRedact = "rlog-ls.redact"

// codeActionKindRedact is the kind of "Write a redacted copy".
const codeActionKindRedact protocol.CodeActionKind = "source.redact"

// maxRedactLines bounds the lines a code action request scans for values
// to redact in place: a selection of a whole 100 MB log must not make each
// cursor move slow.
const maxRedactLines = 2000

func init() {
	actionHooks = append(actionHooks, redactActions)
	commandHooks[CommandRedact] = redactCommand
}

// redactActions is the code action hook: in-place quick fixes for the
// values in the requested range, and the command on saved documents.
func redactActions(ctx context.Context, dc *docCtx, p *protocol.CodeActionParams) []codeAction {
	var out []codeAction
	if wants(p.Context.Only, protocol.QuickFix) {
		out = append(out, redactInPlace(ctx, dc, p)...)
	}
	if _, isFile := lsp.FilePath(dc.Doc.URI); isFile && wants(p.Context.Only, codeActionKindRedact) {
		const title = "Write a redacted copy"
		out = append(out, codeAction{
			Title: title,
			Kind:  codeActionKindRedact,
			Command: &protocol.Command{
				Title:     title,
				Command:   CommandRedact,
				Arguments: []any{redactArgs{URI: dc.Doc.URI}},
			},
		})
	}
	return out
}

// redactInPlace offers one quick fix per secret that the request's range
// touches, attached to the client's S001 diagnostic on it when there is one.
func redactInPlace(ctx context.Context, dc *docCtx, p *protocol.CodeActionParams) []codeAction {
	t := dc.Doc.Text.Tree
	start, end := dc.Mapper.Span(p.Range)
	first, last := t.LineAt(start), t.LineAt(end)
	last = min(last, first+maxRedactLines)
	var out []codeAction
	var matches []analysis.SecretMatch
	for n := first; n <= last && n < t.LineCount(); n++ {
		if ctx.Err() != nil {
			return nil
		}
		l := t.Line(n)
		text := t.Text(l)
		matches = analysis.AppendSecrets(matches[:0], text)
		for _, m := range matches {
			ms, me := l.Start+m.Start, l.Start+m.End
			if me < start || ms > end {
				continue // on the line, but outside the range
			}
			rng := dc.Mapper.Range(ms, me)
			marker := analysis.RedactionMarker(m.Kind)
			action := codeAction{
				Title:       fmt.Sprintf("Redact %s: replace it with %s", m.Describe(), marker),
				Kind:        protocol.QuickFix,
				IsPreferred: true,
				Edit: &protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{
					dc.Doc.URI: {{Range: rng, NewText: marker}},
				}},
			}
			for _, d := range p.Context.Diagnostics {
				if diagCode(d) == "S001" && d.Range == rng {
					action.Diagnostics = []protocol.Diagnostic{d}
				}
			}
			out = append(out, action)
		}
	}
	return out
}

type redactArgs struct {
	URI protocol.DocumentURI `json:"uri"`
}

// redactResult is CommandRedact's answer: the copy made, if any, and how
// many values it redacted.
type redactResult struct {
	URI      protocol.DocumentURI `json:"uri,omitempty"`
	Created  bool                 `json:"created"`
	Redacted int                  `json:"redacted"`
}

// redactCommand writes the redacted copy. Failures the user can act on (an
// unsaved document, an existing copy, a folder outside the workspace) are
// shown as messages and answered {"created": false}; only malformed
// arguments are errors.
func redactCommand(ctx context.Context, wc *wsCtx, raw json.RawMessage) (any, error) {
	uri, ok := commandURI(raw)
	if !ok || uri == "" {
		return nil, lsp.InvalidParams("%s needs {\"uri\": <document>}", CommandRedact)
	}
	show := func(typ protocol.MessageType, format string, args ...any) (any, error) {
		_ = wc.Client.ShowMessage(ctx, typ, "rlog-ls: "+fmt.Sprintf(format, args...))
		return redactResult{}, nil
	}
	file, ok := lsp.FilePath(uri)
	if !ok {
		return show(protocol.MessageTypeWarning, "%s is not saved to disk; save it first, the redacted copy is written beside it.", documentName(uri))
	}
	src, err := documentBytes(wc, uri)
	if err != nil {
		return nil, err
	}
	redacted, matches := analysis.Redact(src)
	if len(matches) == 0 {
		return show(protocol.MessageTypeInfo, "no credential found in %s; nothing to redact.", filepath.Base(file))
	}
	name := analysis.RedactedName(filepath.Base(file))
	written, err := writeInWorkspace(wc.Session, filepath.Dir(file), name, redacted)
	switch {
	case errors.Is(err, convert.ErrExists):
		return show(protocol.MessageTypeError, "%s exists already; it was left as it is (delete or rename it to redact again).", name)
	case err != nil:
		return show(protocol.MessageTypeError, "could not write %s: %v", name, err)
	}
	target := fileURI(written)
	_ = wc.Client.ShowMessage(ctx, protocol.MessageTypeInfo,
		fmt.Sprintf("rlog-ls: wrote %s: %s.", name, analysis.RedactionSummary(matches)))
	if _, err := wc.Client.ShowDocument(ctx, protocol.ShowDocumentParams{URI: protocol.URI(target), TakeFocus: true}); err != nil {
		wc.Log.Debug("showDocument: " + err.Error())
	}
	return redactResult{URI: target, Created: true, Redacted: len(matches)}, nil
}
