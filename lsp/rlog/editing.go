package rlog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/lsp"
)

// Help while editing a log: completion, rename of call ids and document
// links. The candidates, edits and links are analysis's (byte offsets);
// this file places them in the editor's positions and, for links, finds
// the files on disk.

// completionTriggers open completion as they are typed: a value after
// "id=", a lifecycle event after "@", a tool name after "t!:", a status
// after "→ [".
var completionTriggers = []string{"=", "@", ":", "["}

var completionKinds = map[analysis.CompletionKind]protocol.CompletionItemKind{
	analysis.CompleteCallID:    protocol.CompletionItemKindReference,
	analysis.CompleteTool:      protocol.CompletionItemKindFunction,
	analysis.CompleteKey:       protocol.CompletionItemKindProperty,
	analysis.CompleteVerb:      protocol.CompletionItemKindEvent,
	analysis.CompleteHeaderKey: protocol.CompletionItemKindField,
	analysis.CompleteSnippet:   protocol.CompletionItemKindSnippet,
	analysis.CompleteStatus:    protocol.CompletionItemKindEnumMember,
}

func completion(_ context.Context, dc *docCtx, p *protocol.CompletionParams) (any, error) {
	invoked := p.Context == nil || p.Context.TriggerKind == protocol.CompletionTriggerKindInvoked
	found := analysis.Complete(dc.Doc.Text.Tree, dc.Mapper.Offset(p.Position), invoked)
	snippets := snippetSupport(dc.Session)
	items := make([]protocol.CompletionItem, 0, len(found))
	for i, c := range found {
		item := protocol.CompletionItem{
			Label:  c.Label,
			Kind:   completionKinds[c.Kind],
			Detail: c.Detail,
			// The order analysis chose (calls without a result first).
			SortText: fmt.Sprintf("%04d", i),
			TextEdit: &protocol.TextEdit{Range: dc.Mapper.Range(c.Replace.Start, c.Replace.End), NewText: c.Insert},
		}
		if c.Doc != "" {
			item.Documentation = protocol.MarkupContent{Kind: protocol.Markdown, Value: c.Doc}
		}
		if c.Snippet {
			if snippets {
				item.InsertTextFormat = protocol.InsertTextFormatSnippet
			} else {
				item.TextEdit.NewText = plainSnippet(c.Insert)
			}
		}
		items = append(items, item)
	}
	// Candidates are filtered by the word typed: ask again as it grows.
	return protocol.CompletionList{IsIncomplete: true, Items: items}, nil
}

func snippetSupport(sess *lsp.Session) bool {
	td := sess.Capabilities.TextDocument
	return td != nil && td.Completion != nil && td.Completion.CompletionItem != nil && td.Completion.CompletionItem.SnippetSupport
}

var snippetPlaceholder = regexp.MustCompile(`\$\{\d+:((?:[^{}]|\$\{\d+:[^{}]*\})*)\}|\$\d+`)

// plainSnippet is a snippet's text for a client without snippets: each
// placeholder becomes its default text.
func plainSnippet(s string) string {
	for {
		next := snippetPlaceholder.ReplaceAllString(s, "$1")
		if next == s {
			return next
		}
		s = next
	}
}

func prepareRename(_ context.Context, dc *docCtx, p *protocol.PrepareRenameParams) (any, error) {
	ref, err := analysis.PrepareRename(dc.Doc.Text.Tree, dc.Mapper.Offset(p.Position))
	if err != nil {
		return nil, lsp.RequestFailed("%v", err)
	}
	return prepareRenameResult{Range: dc.Mapper.Range(ref.Span.Start, ref.Span.End), Placeholder: ref.Name}, nil
}

// prepareRenameResult is LSP's { range, placeholder } answer (protocol
// v0.12.0 has only a Range).
type prepareRenameResult struct {
	Range       protocol.Range `json:"range"`
	Placeholder string         `json:"placeholder"`
}

func rename(_ context.Context, dc *docCtx, p *protocol.RenameParams) (any, error) {
	edits, err := analysis.Rename(dc.Doc.Text.Tree, dc.Mapper.Offset(p.Position), p.NewName)
	switch {
	case errors.Is(err, analysis.ErrNotRenamable):
		return nil, lsp.RequestFailed("%v", err)
	case err != nil:
		return nil, lsp.InvalidParams("%v", err)
	}
	out := make([]protocol.TextEdit, 0, len(edits))
	for _, e := range edits {
		out = append(out, protocol.TextEdit{Range: dc.Mapper.Range(e.Start, e.End), NewText: e.NewText})
	}
	return protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{dc.Doc.URI: out}}, nil
}

// renameCapability offers prepareRename to the clients that say they use it
// (the specification allows RenameOptions only then).
func renameCapability(sess *lsp.Session) any {
	td := sess.Capabilities.TextDocument
	if td != nil && td.Rename != nil && td.Rename.PrepareSupport {
		return &protocol.RenameOptions{PrepareProvider: true}
	}
	return true
}

// blobFolder is where the recorder stores blobs: a folder beside the log
// (or at the workspace's root), one file per blob named by its SHA-256.
const blobFolder = ".bbox-blobs"

// maxLinkLookups bounds the files looked up for one document's links.
const maxLinkLookups = 5000

func documentLinks(ctx context.Context, dc *docCtx, _ *protocol.DocumentLinkParams) (any, error) {
	t := dc.Doc.Text.Tree
	r := linkResolver{exists: map[string]bool{}, roots: workspaceRoots(dc.Session)}
	if path, ok := lsp.FilePath(dc.Doc.URI); ok {
		r.docDir = filepath.Dir(path)
	}
	if cwd, ok := t.Header().Get("cwd"); ok && filepath.IsAbs(cwd) {
		r.cwd = filepath.Clean(cwd)
	}
	positions := dc.Mapper.Positions()
	out := []protocol.DocumentLink{}
	for i, l := range analysis.Links(t) {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var target, tooltip string
		switch l.Kind {
		case analysis.LinkURL:
			target = l.Target
		case analysis.LinkFile:
			if path, ok := r.file(l.Target); ok {
				target, tooltip = string(fileURI(path)), "Open "+r.display(path)
			}
		case analysis.LinkBlob:
			if path, ok := r.blob(l.Target); ok {
				target, tooltip = string(fileURI(path)), "Open the blob "+l.Target
			}
		}
		if target == "" {
			continue
		}
		out = append(out, protocol.DocumentLink{Range: positions.Range(l.Span.Start, l.Span.End), Target: protocol.DocumentURI(target), Tooltip: tooltip})
	}
	return out, nil
}

// linkResolver finds the files a log's paths name. A path is looked for as
// written, relative to the session's working folder (the header's cwd:),
// then to each workspace folder and the log's folder; an absolute path
// under the session's cwd is also looked for under those folders, so a log
// recorded on another machine or in a container links to the same file in
// this checkout.
type linkResolver struct {
	docDir string
	cwd    string
	roots  []string
	exists map[string]bool
}

func (r *linkResolver) file(target string) (string, bool) {
	target = filepath.FromSlash(target)
	var rel string
	var tries []string
	if filepath.IsAbs(target) {
		tries = append(tries, target)
		if r.cwd != "" && strings.HasPrefix(target, r.cwd+string(filepath.Separator)) {
			rel = target[len(r.cwd)+1:]
		}
	} else {
		rel = target
		if r.cwd != "" {
			tries = append(tries, filepath.Join(r.cwd, rel))
		}
	}
	if rel != "" {
		for _, root := range r.roots {
			tries = append(tries, filepath.Join(root, rel))
		}
		if r.docDir != "" {
			tries = append(tries, filepath.Join(r.docDir, rel))
		}
	}
	for _, p := range tries {
		if r.isFile(p) {
			return p, true
		}
	}
	return "", false
}

func (r *linkResolver) blob(sha string) (string, bool) {
	var dirs []string
	if r.docDir != "" {
		dirs = append(dirs, r.docDir)
	}
	dirs = append(dirs, r.roots...)
	for _, d := range dirs {
		if p := filepath.Join(d, blobFolder, sha); r.isFile(p) {
			return p, true
		}
	}
	return "", false
}

// isFile reports whether p is a regular file, looking each path up once
// and at most maxLinkLookups paths.
func (r *linkResolver) isFile(p string) bool {
	if ok, seen := r.exists[p]; seen {
		return ok
	}
	if len(r.exists) >= maxLinkLookups {
		return false
	}
	info, err := os.Stat(p)
	ok := err == nil && info.Mode().IsRegular()
	r.exists[p] = ok
	return ok
}

// display is a path relative to the workspace folder holding it.
func (r *linkResolver) display(p string) string {
	for _, root := range r.roots {
		if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return p
}
