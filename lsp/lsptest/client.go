// Package lsptest is an in-process editor for testing the language server:
// it runs the server on one end of a net.Pipe and speaks to it from the
// other, both as a typed client (protocol.ServerDispatcher) and as raw JSON
// frames, and it records every frame the server sends so tests can wait for
// diagnostics and compare wire shapes exactly.
//
// It does not import the server: Start takes the function that serves, so
// tests inside package lsp and outside it can both use it.
package lsptest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// ServeFunc serves LSP on rwc until the client leaves, and returns the
// process exit code (lsp.Serve with its options bound).
type ServeFunc func(ctx context.Context, rwc io.ReadWriteCloser) int

// RequestHandler answers one request from the server.
type RequestHandler func(params json.RawMessage) (result any, err error)

// Client is the test's editor.
type Client struct {
	t testing.TB
	// Conn is the raw connection, for calls with params or results of our
	// own types (protocol v0.12.0 lacks some) and for notifications.
	Conn jsonrpc2.Conn
	// Server is the typed view of the same connection.
	Server protocol.Server

	stream *clientStream
	frames *frameLog
	pipe   net.Conn
	cancel context.CancelFunc

	served   chan struct{} // closed when the server's Serve returned
	exitCode int

	mu       sync.Mutex
	handlers map[string]RequestHandler
}

// Start runs serve on an in-memory pipe and connects a client to it. The
// test's cleanup closes the client and waits for the server to return.
func Start(t testing.TB, serve ServeFunc) *Client {
	t.Helper()
	serverEnd, clientEnd := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	c := &Client{
		t:      t,
		frames: newFrameLog(),
		pipe:   clientEnd,
		cancel: cancel,
		served: make(chan struct{}),
	}
	c.handlers = defaultHandlers()
	go func() {
		c.exitCode = serve(ctx, serverEnd)
		_ = serverEnd.Close()
		close(c.served)
	}()
	c.stream = newClientStream(clientEnd, c.frames)
	c.Conn = jsonrpc2.NewConn(c.stream)
	c.Conn.Go(ctx, c.handle)
	c.Server = protocol.ServerDispatcher(c.Conn, zap.NewNop())
	t.Cleanup(func() {
		_ = c.pipe.Close()
		<-c.served
		<-c.Conn.Done()
		cancel()
	})
	return c
}

func defaultHandlers() map[string]RequestHandler {
	null := func(json.RawMessage) (any, error) { return nil, nil }
	return map[string]RequestHandler{
		protocol.MethodWorkspaceConfiguration: func(params json.RawMessage) (any, error) {
			var p protocol.ConfigurationParams
			_ = json.Unmarshal(params, &p)
			return make([]any, len(p.Items)), nil // null for each item: "nothing configured"
		},
		protocol.MethodWorkspaceApplyEdit: func(json.RawMessage) (any, error) {
			return map[string]any{"applied": true}, nil
		},
		protocol.MethodShowDocument: func(json.RawMessage) (any, error) {
			return map[string]any{"success": true}, nil
		},
		protocol.MethodClientRegisterCapability:   null,
		protocol.MethodClientUnregisterCapability: null,
		protocol.MethodSemanticTokensRefresh:      null,
		protocol.MethodWorkDoneProgressCreate:     null,
	}
}

// OnRequest sets how the client answers the server's requests for method.
func (c *Client) OnRequest(method string, h RequestHandler) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.handlers[method] = h
}

// handle answers the server's requests; notifications need nothing, the
// frame log has them. It always returns nil: jsonrpc2 closes the connection
// on a handler's error, and its next read error, of another type, then
// panics (the library's pitfall 5) — which a reply that fails because the
// test is closing the pipe would otherwise cause.
func (c *Client) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	if _, ok := req.(*jsonrpc2.Call); !ok {
		return nil
	}
	c.mu.Lock()
	h := c.handlers[req.Method()]
	c.mu.Unlock()
	if h == nil {
		_ = reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "test client: "+req.Method()))
		return nil
	}
	res, err := h(json.RawMessage(req.Params()))
	_ = reply(ctx, res, err)
	return nil
}

// DefaultInitializeParams are those of a plain client with no workspace.
func DefaultInitializeParams() map[string]any {
	return map[string]any{
		"processId":    nil,
		"rootUri":      nil,
		"clientInfo":   map[string]any{"name": "lsptest", "version": "1"},
		"capabilities": map[string]any{},
	}
}

// Initialize sends initialize with params (DefaultInitializeParams if nil)
// and then initialized, and returns the initialize result as sent.
func (c *Client) Initialize(params any) json.RawMessage {
	c.t.Helper()
	if params == nil {
		params = DefaultInitializeParams()
	}
	var res json.RawMessage
	if err := c.Call(protocol.MethodInitialize, params, &res); err != nil {
		c.t.Fatalf("initialize: %v", err)
	}
	c.Notify(protocol.MethodInitialized, map[string]any{})
	return res
}

// Call sends a request through the connection and decodes the result, as
// the frame log read it (with encoding/json), into result. A result that
// is a *json.RawMessage gets the result's text as the server sent it.
func (c *Client) Call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), WaitLimit)
	defer cancel()
	id, err := c.Conn.Call(context.WithValue(ctx, callKey{}, true), method, params, nil)
	f := c.stream.takeAnswer(id)
	if err != nil || result == nil || f == nil || len(f.Result) == 0 {
		return err
	}
	if raw, ok := result.(*json.RawMessage); ok {
		*raw = f.Result
		return nil
	}
	if err := json.Unmarshal(f.Result, result); err != nil {
		return fmt.Errorf("unmarshaling result: %w", err)
	}
	return nil
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) {
	c.t.Helper()
	if err := c.Conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("notify %s: %v", method, err)
	}
}

// SendRaw sends body as one frame, unchecked: it may be anything, invalid
// JSON included. Raw request ids must not collide with the connection's own
// (1, 2, 3 ...): use strings or numbers from 1000 on.
func (c *Client) SendRaw(body string) {
	c.t.Helper()
	c.SendBytes(frame([]byte(body)))
}

// SendBytes writes b to the server as is, headers and all.
func (c *Client) SendBytes(b []byte) {
	c.t.Helper()
	if _, err := c.stream.writeRaw(b); err != nil {
		c.t.Fatalf("write to server: %v", err)
	}
}

// RawRequest sends a request written as JSON and returns the response frame.
func (c *Client) RawRequest(body string) Frame {
	c.t.Helper()
	var env struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal([]byte(body), &env); err != nil || env.ID == nil {
		c.t.Fatalf("RawRequest needs a JSON request with an id: %s", body)
	}
	c.SendRaw(body)
	return c.WaitResponse(string(env.ID))
}

// WaitResponse waits for the response whose id is the JSON text id (`7`,
// `"a"`, `null`).
func (c *Client) WaitResponse(id string) Frame {
	c.t.Helper()
	key := string(canonical([]byte(id)))
	return c.frames.wait(c.t, "the response to id "+id, func(f Frame) bool {
		return f.IsResponse() && f.hasID(key)
	})
}

// WaitFrame waits for the first frame (since the start) that matches.
func (c *Client) WaitFrame(what string, match func(Frame) bool) Frame {
	c.t.Helper()
	return c.frames.wait(c.t, what, match)
}

// ForgetFrames drops the frames received so far, so that a long test (a
// soak) does not hold every one of them; later waits see only newer frames.
// Call it when no wait is in progress.
func (c *Client) ForgetFrames() { c.frames.forget() }

// Frames returns every frame the server has sent so far.
func (c *Client) Frames() []Frame { return c.frames.snapshot() }

// Requests returns the server's requests for method so far.
func (c *Client) Requests(method string) []Frame {
	var out []Frame
	for _, f := range c.Frames() {
		if f.IsRequest() && f.Method == method {
			out = append(out, f)
		}
	}
	return out
}

// Notifications returns the server's notifications of method so far.
func (c *Client) Notifications(method string) []Frame {
	var out []Frame
	for _, f := range c.Frames() {
		if f.Method == method && f.ID == nil {
			out = append(out, f)
		}
	}
	return out
}

// CloseInput closes the client's end, as an editor that dies does.
func (c *Client) CloseInput() { _ = c.pipe.Close() }

// ExitCode waits for the server to return and gives its exit code.
func (c *Client) ExitCode() int {
	c.t.Helper()
	select {
	case <-c.served:
	case <-time.After(WaitLimit):
		c.t.Fatalf("the server did not return after %v", WaitLimit)
	}
	return c.exitCode
}

// Served is closed when the server has returned.
func (c *Client) Served() <-chan struct{} { return c.served }

// Shutdown sends shutdown and exit and returns the server's exit code.
func (c *Client) Shutdown() int {
	c.t.Helper()
	if err := c.Call(protocol.MethodShutdown, nil, nil); err != nil {
		c.t.Fatalf("shutdown: %v", err)
	}
	c.Notify(protocol.MethodExit, nil)
	return c.ExitCode()
}
