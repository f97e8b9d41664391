package lsp

import (
	"context"
	"errors"
	"fmt"

	"github.com/segmentio/encoding/json"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Client makes the server's calls to the editor. It goes straight to the
// connection instead of protocol.Client: that one decodes the applyEdit
// reply into a bool (clients answer {"applied": true}), lacks showDocument
// and semanticTokens/refresh, and logs through its own logger.
//
// A request to the client can only be answered by the read loop, so a call
// made on the read loop would wait for itself forever (jsonrpc2 v0.10.0
// delivers responses there). Calls check for that and fail at once with
// ErrCallOnReadLoop; notifications are safe everywhere.
type Client struct {
	conn jsonrpc2.Conn
}

// ErrCallOnReadLoop is returned by a Client request made from a
// notification handler or a request's prepare step.
var ErrCallOnReadLoop = errors.New("lsp: a request to the client from the read loop would deadlock; make it from a request's compute step or a goroutine")

type readLoopKey struct{}

// onReadLoop marks ctx as belonging to the read loop.
func onReadLoop(ctx context.Context) context.Context {
	return context.WithValue(ctx, readLoopKey{}, true)
}

func isReadLoop(ctx context.Context) bool {
	on, _ := ctx.Value(readLoopKey{}).(bool)
	return on
}

func (c *Client) call(ctx context.Context, method string, params, result any) error {
	if isReadLoop(ctx) {
		return ErrCallOnReadLoop
	}
	_, err := c.conn.Call(ctx, method, params, result)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

func (c *Client) notify(ctx context.Context, method string, params any) error {
	return c.conn.Notify(ctx, method, params)
}

// ApplyEditParams is workspace/applyEdit's params with the edit left open:
// protocol v0.12.0's WorkspaceEdit cannot hold CreateFile and friends.
type ApplyEditParams struct {
	Label string `json:"label,omitempty"`
	Edit  any    `json:"edit"`
}

// ApplyEdit asks the client to apply a workspace edit.
func (c *Client) ApplyEdit(ctx context.Context, params ApplyEditParams) (protocol.ApplyWorkspaceEditResponse, error) {
	var res protocol.ApplyWorkspaceEditResponse
	err := c.call(ctx, protocol.MethodWorkspaceApplyEdit, params, &res)
	return res, err
}

// Configuration asks for configuration sections; each answer is raw JSON
// (null when the client has nothing for that item).
func (c *Client) Configuration(ctx context.Context, items ...protocol.ConfigurationItem) ([]json.RawMessage, error) {
	var res []json.RawMessage
	err := c.call(ctx, protocol.MethodWorkspaceConfiguration, protocol.ConfigurationParams{Items: items}, &res)
	return res, err
}

// ShowDocument asks the client to show a document (LSP 3.16).
func (c *Client) ShowDocument(ctx context.Context, params protocol.ShowDocumentParams) (bool, error) {
	var res protocol.ShowDocumentResult
	err := c.call(ctx, protocol.MethodShowDocument, params, &res)
	return res.Success, err
}

// RefreshSemanticTokens asks the client to request semantic tokens again.
func (c *Client) RefreshSemanticTokens(ctx context.Context) error {
	return c.call(ctx, protocol.MethodSemanticTokensRefresh, nil, nil)
}

// RegisterCapability registers capabilities dynamically.
func (c *Client) RegisterCapability(ctx context.Context, regs ...protocol.Registration) error {
	return c.call(ctx, protocol.MethodClientRegisterCapability, protocol.RegistrationParams{Registrations: regs}, nil)
}

// ShowMessage shows a message to the user.
func (c *Client) ShowMessage(ctx context.Context, typ protocol.MessageType, message string) error {
	return c.notify(ctx, protocol.MethodWindowShowMessage, protocol.ShowMessageParams{Type: typ, Message: message})
}

// Notify sends a notification of the language's own (a method of its
// protocol extension).
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	return c.notify(ctx, method, params)
}

// LogMessage writes a message to the client's log for this server.
func (c *Client) LogMessage(ctx context.Context, typ protocol.MessageType, message string) error {
	return c.notify(ctx, protocol.MethodWindowLogMessage, protocol.LogMessageParams{Type: typ, Message: message})
}
