package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

// A request's compute step may call the client: it runs off the read loop,
// which stays free to deliver the client's answers.
func TestServerToClientCalls(t *testing.T) {
	type results struct {
		Applied       protocol.ApplyWorkspaceEditResponse
		Configuration []json.RawMessage
		Shown         bool
	}
	c := startWithRequests(t, map[string]Request[*plainText]{
		"toy/callClient": WorkspaceRequest(func(ctx context.Context, wc *WorkspaceContext[*plainText], _ *noParams) (any, error) {
			var r results
			var err error
			edit := map[string]any{"documentChanges": []any{map[string]any{"kind": "create", "uri": "file:///new.json"}}}
			if r.Applied, err = wc.Client.ApplyEdit(ctx, ApplyEditParams{Label: "convert", Edit: edit}); err != nil {
				return nil, err
			}
			if r.Configuration, err = wc.Client.Configuration(ctx, protocol.ConfigurationItem{Section: "rlog"}, protocol.ConfigurationItem{Section: "other"}); err != nil {
				return nil, err
			}
			if r.Shown, err = wc.Client.ShowDocument(ctx, protocol.ShowDocumentParams{URI: "file:///new.json", TakeFocus: true}); err != nil {
				return nil, err
			}
			if err = wc.Client.RefreshSemanticTokens(ctx); err != nil {
				return nil, err
			}
			if err = wc.Client.ShowMessage(ctx, protocol.MessageTypeWarning, "3 lines lost"); err != nil {
				return nil, err
			}
			return r, wc.Client.LogMessage(ctx, protocol.MessageTypeLog, "converted")
		}),
	})
	c.OnRequest(protocol.MethodWorkspaceApplyEdit, func(json.RawMessage) (any, error) {
		return map[string]any{"applied": false, "failureReason": "read-only"}, nil
	})
	c.OnRequest(protocol.MethodWorkspaceConfiguration, func(json.RawMessage) (any, error) {
		return []any{map[string]any{"outline": map[string]any{"maxItems": 3}}, nil}, nil
	})
	var got results
	if err := c.Call("toy/callClient", nil, &got); err != nil {
		t.Fatal(err)
	}
	// The applyEdit reply is an object (protocol.Client.ApplyEdit would fail
	// to decode it into a bool).
	if got.Applied.Applied || got.Applied.FailureReason != "read-only" || !got.Shown ||
		len(got.Configuration) != 2 || string(got.Configuration[1]) != "null" {
		t.Fatalf("got %+v", got)
	}
	lsptest.AssertJSON(t, c.Requests(protocol.MethodWorkspaceApplyEdit)[0].Params,
		`{"label":"convert","edit":{"documentChanges":[{"kind":"create","uri":"file:///new.json"}]}}`)
	lsptest.AssertJSON(t, c.Requests(protocol.MethodShowDocument)[0].Params, `{"uri":"file:///new.json","takeFocus":true}`)
	if len(c.Requests(protocol.MethodSemanticTokensRefresh)) != 1 {
		t.Fatal("no semanticTokens/refresh")
	}
	lsptest.AssertJSON(t, c.Notifications(protocol.MethodWindowShowMessage)[0].Params, `{"type":2,"message":"3 lines lost"}`)
	lsptest.AssertJSON(t, c.Notifications(protocol.MethodWindowLogMessage)[0].Params, `{"type":4,"message":"converted"}`)
}

// A client error in a server->client call reaches the feature as an error.
func TestServerToClientCallError(t *testing.T) {
	c := startWithRequests(t, map[string]Request[*plainText]{
		"toy/show": WorkspaceRequest(func(ctx context.Context, wc *WorkspaceContext[*plainText], _ *noParams) (any, error) {
			_, err := wc.Client.ShowDocument(ctx, protocol.ShowDocumentParams{URI: "file:///x"})
			return nil, err
		}),
	})
	c.OnRequest(protocol.MethodShowDocument, nil) // the test client answers MethodNotFound
	resp := c.RawRequest(`{"jsonrpc":"2.0","id":1000,"method":"toy/show"}`)
	if resp.Error == nil || resp.Error.Code != -32601 {
		t.Fatalf("got %s", resp.Body)
	}
}

// On the read loop a call would wait for a reply only the read loop can
// deliver; it fails at once instead.
func TestClientCallOnReadLoopFails(t *testing.T) {
	var c Client // no connection: the guard must answer before using it
	_, err := c.ShowDocument(onReadLoop(context.Background()), protocol.ShowDocumentParams{})
	if !errors.Is(err, ErrCallOnReadLoop) {
		t.Fatalf("got %v", err)
	}
}
