package lsp

import (
	"context"

	"github.com/segmentio/encoding/json"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// Request is one entry of the server's request table (Features.Requests).
// Build entries with DocumentRequest or WorkspaceRequest.
//
// A request runs in two steps. prepare runs on the read loop, in protocol
// order with the notifications: it decodes the params and captures the
// immutable state the request needs (a document snapshot, the settings).
// The compute step it returns then runs in its own goroutine with a context
// that $/cancelRequest cancels, so a slow request never holds up didChange,
// and may call the client (ApplyEdit, Configuration ...).
type Request[T Editable[T]] struct {
	// inline runs compute on the read loop too: for the lifecycle requests,
	// whose effect later messages must see.
	inline  bool
	prepare func(s *server[T], params json.RawMessage) (compute, error)
}

type compute func(ctx context.Context) (any, error)

// DocumentContext is what a request about one document sees: the document
// as it was when the request arrived, and everything needed to answer.
type DocumentContext[T Editable[T]] struct {
	Doc *Document[T]
	// Mapper converts byte offsets in Doc.Text to protocol positions in the
	// negotiated encoding, and back.
	Mapper   Mapper
	Settings Settings
	Session  *Session
	Client   *Client
	Log      *zap.Logger
}

// WorkspaceContext is what a request not tied to one document sees.
type WorkspaceContext[T Editable[T]] struct {
	Docs     []*Document[T] // every open document, by URI
	Settings Settings
	Session  *Session
	Client   *Client
	Log      *zap.Logger
	// Rediagnose computes an open document's diagnostics again, at once:
	// for a change outside the document that they depend on (a file
	// beside it changed on disk).
	Rediagnose func(uri protocol.DocumentURI)
}

// Mapper returns the position mapper of doc in the negotiated encoding.
func (w *WorkspaceContext[T]) Mapper(doc *Document[T]) Mapper {
	return Mapper{Text: doc.Text, Encoding: w.Session.Encoding}
}

// documentParams is the part of every text document request's params that
// names the document.
type documentParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
}

// DocumentRequest makes a request entry for a method whose params name a
// document in textDocument.uri (hover, definition, documentSymbol ...). The
// params are decoded into P. A request about a document that is not open is
// answered with null: it happens when a client races a close, and an error
// would only show up as noise in the editor.
func DocumentRequest[T Editable[T], P any](run func(ctx context.Context, dc *DocumentContext[T], params *P) (any, error)) Request[T] {
	return Request[T]{prepare: func(s *server[T], raw json.RawMessage) (compute, error) {
		params := new(P)
		if err := decodeParams(raw, params); err != nil {
			return nil, err
		}
		var target documentParams
		if err := decodeParams(raw, &target); err != nil {
			return nil, err
		}
		doc := s.docs.Get(target.TextDocument.URI)
		if doc == nil {
			s.log.Debug("request for a document that is not open", zap.String("uri", string(target.TextDocument.URI)))
			return func(context.Context) (any, error) { return nil, nil }, nil
		}
		dc := s.documentContext(doc)
		return func(ctx context.Context) (any, error) { return run(ctx, dc, params) }, nil
	}}
}

// WorkspaceRequest makes a request entry for a method not tied to one
// document (workspace/symbol, workspace/executeCommand ...).
func WorkspaceRequest[T Editable[T], P any](run func(ctx context.Context, wc *WorkspaceContext[T], params *P) (any, error)) Request[T] {
	return Request[T]{prepare: func(s *server[T], raw json.RawMessage) (compute, error) {
		params := new(P)
		if err := decodeParams(raw, params); err != nil {
			return nil, err
		}
		wc := s.workspaceContext()
		return func(ctx context.Context) (any, error) { return run(ctx, wc, params) }, nil
	}}
}

// decodeParams decodes request or notification params; anything that does
// not fit is InvalidParams. Absent and null params decode as {}.
func decodeParams(raw json.RawMessage, v any) error {
	if isAbsent(raw) {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return InvalidParams("invalid params: %v", err)
	}
	return nil
}

// Notification is one entry of Features.Notifications. Build it with
// OnNotification.
type Notification[T Editable[T]] struct {
	handle notificationHandler[T]
}

// OnNotification makes a notification entry. The handler runs on the read
// loop, in order with the text sync notifications, so it must be quick; it
// sees the open documents as of its arrival. A request to the client from
// it fails with ErrCallOnReadLoop: start a goroutine for that. Its error is
// logged.
func OnNotification[T Editable[T], P any](handle func(ctx context.Context, wc *WorkspaceContext[T], params *P) error) Notification[T] {
	return Notification[T]{handle: func(s *server[T], ctx context.Context, raw json.RawMessage) error {
		params := new(P)
		if err := decodeParams(raw, params); err != nil {
			return err
		}
		return handle(ctx, s.workspaceContext(), params)
	}}
}
