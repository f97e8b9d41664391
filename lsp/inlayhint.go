package lsp

import (
	"context"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// Inlay hints (LSP 3.17), which protocol v0.12.0 lacks: the method names
// and the wire types, as the specification defines them.
const (
	// MethodTextDocumentInlayHint asks for the hints of a range.
	MethodTextDocumentInlayHint = "textDocument/inlayHint"
	// MethodWorkspaceInlayHintRefresh asks the client to ask again, for
	// every document (after a setting the hints depend on changed).
	MethodWorkspaceInlayHintRefresh = "workspace/inlayHint/refresh"
)

// InlayHintParams are textDocument/inlayHint's params: the document and
// the range (usually the visible lines) to give hints for.
type InlayHintParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
	Range        protocol.Range                  `json:"range"`
}

// InlayHintKind is InlayHint.Kind. Hints that are neither leave it out.
type InlayHintKind uint32

// The kinds of LSP 3.17.
const (
	InlayHintKindType      InlayHintKind = 1
	InlayHintKindParameter InlayHintKind = 2
)

// InlayHint is one hint. The specification also allows a label made of
// parts and a MarkupContent tooltip; a plain string is all we need.
type InlayHint struct {
	Position     protocol.Position `json:"position"`
	Label        string            `json:"label"`
	Kind         InlayHintKind     `json:"kind,omitempty"`
	Tooltip      string            `json:"tooltip,omitempty"`
	PaddingLeft  bool              `json:"paddingLeft,omitempty"`
	PaddingRight bool              `json:"paddingRight,omitempty"`
}

// InlayHintOptions is the inlayHintProvider server capability (a client
// asks inlayHint/resolve only when ResolveProvider is set).
type InlayHintOptions struct {
	ResolveProvider bool `json:"resolveProvider,omitempty"`
}

// clientRefreshes are the 3.17 refresh requests a client says it answers
// (workspace.inlayHint.refreshSupport; protocol v0.12.0 knows only the
// code lens one, under the same name).
type clientRefreshes struct {
	Workspace struct {
		InlayHint struct {
			RefreshSupport bool `json:"refreshSupport"`
		} `json:"inlayHint"`
	} `json:"workspace"`
}

// RefreshInlayHints asks the client to request inlay hints again. Send it
// only to a client whose Session says InlayHintRefresh.
func (c *Client) RefreshInlayHints(ctx context.Context) error {
	return c.call(ctx, MethodWorkspaceInlayHintRefresh, nil, nil)
}

// RefreshCodeLenses asks the client to request code lenses again. Send it
// only to a client whose Session says CodeLensRefresh.
func (c *Client) RefreshCodeLenses(ctx context.Context) error {
	return c.call(ctx, protocol.MethodCodeLensRefresh, nil, nil)
}

// refreshInlayHints asks a client that supports it to fetch inlay hints
// again, when the features answer them: the hints depend on settings that
// just changed. It waits for the client, so it runs in the background.
func (s *server[T]) refreshInlayHints() {
	if _, ok := s.requests[MethodTextDocumentInlayHint]; !ok || !s.session().InlayHintRefresh {
		return
	}
	s.goBackground(func() {
		ctx, cancel := context.WithTimeout(s.bg, configurationTimeout)
		defer cancel()
		if err := s.client.RefreshInlayHints(ctx); err != nil {
			s.log.Debug("inlay hint refresh", zap.Error(err))
		}
	})
}
