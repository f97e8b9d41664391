package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

type noParams struct{}

// startWithRequests starts an initialized toy server with extra requests.
func startWithRequests(t *testing.T, requests map[string]Request[*plainText]) *lsptest.Client {
	t.Helper()
	opts := testOptions(t)
	for method, r := range requests {
		opts.Features.Requests[method] = r
	}
	c := startServer(t, opts)
	c.Initialize(initParams(noDebounce))
	return c
}

func workspaceRequest(run func(ctx context.Context) (any, error)) Request[*plainText] {
	return WorkspaceRequest(func(ctx context.Context, _ *WorkspaceContext[*plainText], _ *noParams) (any, error) {
		return run(ctx)
	})
}

func TestUnknownMethods(t *testing.T) {
	c := startInitialized(t)
	resp := c.RawRequest(`{"jsonrpc":"2.0","id":1000,"method":"textDocument/inlayHint","params":{}}`)
	if resp.Error == nil || resp.Error.Code != -32601 {
		t.Fatalf("unknown request: %s", resp.Body)
	}
	// Unknown notifications, $/ ones included, are ignored without a reply.
	c.SendRaw(`{"jsonrpc":"2.0","method":"$/someExtension","params":{"a":1}}`)
	c.SendRaw(`{"jsonrpc":"2.0","method":"custom/notification"}`)
	c.SendRaw(`{"jsonrpc":"2.0","method":"$/setTrace","params":{"value":"verbose"}}`)
	alive(t, c)
	for _, f := range c.Frames() {
		if f.IsResponse() && string(f.ID) != "1" && string(f.ID) != "1000" && string(f.ID) != `"alive"` {
			t.Errorf("a notification was answered: %s", f.Body)
		}
	}
}

// Every error reply carries a real JSON-RPC code, never 0 (pitfall 4): a
// plain Go error is InternalError with its message, a coded error keeps its
// code and the whole message even when wrapped, a panic is InternalError,
// and a result that cannot be encoded still gets a reply.
func TestErrorReplies(t *testing.T) {
	c := startWithRequests(t, map[string]Request[*plainText]{
		"toy/plain": workspaceRequest(func(context.Context) (any, error) { return nil, errors.New("disk on fire") }),
		"toy/wrapped": workspaceRequest(func(context.Context) (any, error) {
			return nil, fmt.Errorf("while reading: %w", RequestFailed("file gone"))
		}),
		"toy/panic":       workspaceRequest(func(context.Context) (any, error) { panic("boom") }),
		"toy/unencodable": workspaceRequest(func(context.Context) (any, error) { return make(chan int), nil }),
		"toy/prepanic":    {prepare: func(*server[*plainText], json.RawMessage) (compute, error) { panic("in prepare") }},
	})
	for _, tc := range []struct {
		method  string
		code    int
		message string
	}{
		{"toy/plain", -32603, "disk on fire"},
		{"toy/wrapped", -32803, "while reading: file gone"},
		{"toy/panic", -32603, "boom"},
		{"toy/unencodable", -32603, "encoding the result"},
		{"toy/prepanic", -32603, "in prepare"},
	} {
		resp := c.RawRequest(`{"jsonrpc":"2.0","id":"` + tc.method + `","method":"` + tc.method + `"}`)
		if resp.Error == nil || resp.Error.Code != tc.code || !strings.Contains(resp.Error.Message, tc.message) || resp.Result != nil {
			t.Errorf("%s: got %s", tc.method, resp.Body)
		}
	}
	alive(t, c)
}

// Params of the wrong type are InvalidParams for requests; for notifications
// (no reply possible) they are logged and the server carries on.
func TestWrongParamTypes(t *testing.T) {
	c := startInitialized(t)
	for _, params := range []string{`"a string"`, `[1,2]`, `{"textDocument":{"uri":5}}`, `{"textDocument":{"uri":"file:///a"},"position":{"line":"x"}}`} {
		resp := c.RawRequest(`{"jsonrpc":"2.0","id":1000,"method":"toy/roundTrip","params":` + params + `}`)
		if resp.Error == nil || resp.Error.Code != -32602 {
			t.Errorf("params %s: got %s", params, resp.Body)
		}
	}
	for _, n := range []string{
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":"x"}`,
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":1}}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":null}`,
		`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"contentChanges":"x"}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didClose","params":[]}`,
		`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":{"x":1}}}`,
		`{"jsonrpc":"2.0","method":"$/cancelRequest"}`,
		`{"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":7}`,
	} {
		c.SendRaw(n)
	}
	alive(t, c)
}

// blocking returns a request that signals started and then waits for its
// context, returning the context's error; and the started channel.
func blocking() (Request[*plainText], chan struct{}) {
	started := make(chan struct{}, 8)
	return workspaceRequest(func(ctx context.Context) (any, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}), started
}

// $/cancelRequest works for numeric ids (protocol.CancelHandler ignores
// them: pitfall 2), string ids and ids jsonrpc2 cannot hold; the reply is
// RequestCancelled.
func TestCancelRequest(t *testing.T) {
	block, started := blocking()
	c := startWithRequests(t, map[string]Request[*plainText]{"toy/block": block})
	for _, id := range []string{`1001`, `"str-id"`, `3000000000`, `null`} {
		c.SendRaw(`{"jsonrpc":"2.0","id":` + id + `,"method":"toy/block"}`)
		<-started
		c.SendRaw(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":` + id + `}}`)
		resp := c.WaitResponse(id)
		lsptest.AssertJSON(t, resp.Body, `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32800,"message":"request cancelled"}}`)
	}
}

// A slow request does not hold up the read loop: notifications and other
// requests are served while it runs.
func TestSlowRequestDoesNotBlockOthers(t *testing.T) {
	block, started := blocking()
	c := startWithRequests(t, map[string]Request[*plainText]{"toy/block": block})
	c.SendRaw(`{"jsonrpc":"2.0","id":"slow","method":"toy/block"}`)
	<-started
	openDoc(c, "file:///a.rlog", 1, "text")
	if got := docText(t, c, "file:///a.rlog"); got.Text != "text" {
		t.Fatalf("got %+v", got)
	}
	c.SendRaw(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"slow"}}`)
	c.WaitResponse(`"slow"`)
}

// Cancelling a request that has finished, or one never sent, changes
// nothing; a finished request keeps its result.
func TestCancelFinishedOrUnknownRequest(t *testing.T) {
	c := startInitialized(t)
	resp := c.RawRequest(`{"jsonrpc":"2.0","id":1000,"method":"toy/text","params":{"textDocument":{"uri":"file:///x"}}}`)
	c.SendRaw(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1000}}`)
	c.SendRaw(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"never"}}`)
	alive(t, c)
	if resp.Error != nil {
		t.Fatal(string(resp.Body))
	}
	n := 0
	for _, f := range c.Frames() {
		if f.IsResponse() && string(f.ID) == "1000" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d responses to id 1000", n)
	}
}

// The handler never fails the connection (pitfall 5); a notification
// handler that panics is logged and the server carries on.
func TestNotificationPanicKeepsServing(t *testing.T) {
	opts := testOptions(t)
	opts.Features.Parse = func(b []byte) *plainText {
		if string(b) == "panic" {
			panic("parser bug")
		}
		return parsePlain(b)
	}
	c := startServer(t, opts)
	c.Initialize(initParams(noDebounce))
	openDoc(c, "file:///p.rlog", 1, "panic")
	alive(t, c)
}

func TestRequestsOfDocumentsNotOpenAnswerNull(t *testing.T) {
	c := startInitialized(t)
	resp := c.RawRequest(`{"jsonrpc":"2.0","id":1000,"method":"toy/roundTrip","params":{"textDocument":{"uri":"untitled:nothing"},"position":{"line":0,"character":0}}}`)
	lsptest.AssertJSON(t, resp.Body, `{"jsonrpc":"2.0","id":1000,"result":null}`)
}

func TestWireErrorKeepsCodes(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code jsonrpc2.Code
		msg  string
	}{
		{errors.New("x"), jsonrpc2.InternalError, "x"},
		{context.Canceled, codeRequestCancelled, "request cancelled"},
		{fmt.Errorf("ctx: %w", context.Canceled), codeRequestCancelled, "request cancelled"},
		{InvalidParams("bad %d", 1), jsonrpc2.InvalidParams, "bad 1"},
		{fmt.Errorf("outer: %w", ContentModified()), codeContentModified, "outer: content modified"},
		{jsonrpc2.NewError(jsonrpc2.ParseError, strings.Repeat("é", 500)), jsonrpc2.ParseError, strings.Repeat("é", 500)},
	} {
		w := wireError(tc.err)
		if w.Code != tc.code || w.Message != tc.msg {
			t.Errorf("%v: got %d %q", tc.err, w.Code, w.Message)
		}
	}
	if wireError(nil) != nil {
		t.Error("nil error made a reply error")
	}
	long := InvalidParams("%s", strings.Repeat("é", 500)).(*jsonrpc2.Error).Message
	if len(long) > maxErrorMessage+len("…") || !strings.HasSuffix(long, "…") || !strings.HasPrefix(long, "é") {
		t.Errorf("long message not cut on a rune boundary: %d bytes", len(long))
	}
}

// Features add notifications; they run on the read loop, in order with
// text sync, cannot replace the server's own, and cannot call the client.
func TestFeatureNotifications(t *testing.T) {
	type note struct {
		Word string `json:"word"`
	}
	type seen struct {
		word    string
		docs    int
		callErr error
	}
	got := make(chan seen, 4)
	opts := testOptions(t)
	opts.Features.Notifications = map[string]Notification[*plainText]{
		"toy/note": OnNotification(func(ctx context.Context, wc *WorkspaceContext[*plainText], p *note) error {
			_, err := wc.Client.ShowDocument(ctx, protocol.ShowDocumentParams{URI: "file:///x"})
			got <- seen{word: p.Word, docs: len(wc.Docs), callErr: err}
			return nil
		}),
		protocol.MethodTextDocumentDidOpen: OnNotification(func(context.Context, *WorkspaceContext[*plainText], *note) error {
			t.Error("a feature replaced didOpen")
			return nil
		}),
	}
	c := startServer(t, opts)
	c.Initialize(initParams(noDebounce))
	openDoc(c, "untitled:1", 1, "x")
	c.Notify("toy/note", note{Word: "hello"})
	s := <-got
	if s.word != "hello" || s.docs != 1 || !errors.Is(s.callErr, ErrCallOnReadLoop) {
		t.Fatalf("got %+v", s)
	}
	if docText(t, c, "untitled:1").Text != "x" {
		t.Fatal("didOpen lost")
	}
}

// A request whose handler ignores its context is still answered at once
// when cancelled, and only once.
func TestCancelAnswersAtOnceAndOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		started := make(chan struct{})
		c := startWithRequests(t, map[string]Request[*plainText]{
			"toy/stubborn": workspaceRequest(func(context.Context) (any, error) {
				close(started)
				<-release
				return "late result", nil
			}),
		})
		c.SendRaw(`{"jsonrpc":"2.0","id":"stubborn","method":"toy/stubborn"}`)
		<-started
		c.SendRaw(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"stubborn"}}`)
		resp := c.WaitResponse(`"stubborn"`)
		if resp.Error == nil || resp.Error.Code != -32800 {
			t.Fatalf("got %s", resp.Body)
		}
		close(release) // the handler finishes; its answer must be dropped
		synctest.Wait()
		n := 0
		for _, f := range c.Frames() {
			if f.IsResponse() && string(f.ID) == `"stubborn"` {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%d answers", n)
		}
	})
}

// A result a feature encoded itself goes on the wire as it is, in the same
// envelope as any other, whatever the request's id; an empty one is null.
func TestEncodedResults(t *testing.T) {
	encoded := `[{"name":"a\u003cb","kind":2},{"line":7}]`
	c := startWithRequests(t, map[string]Request[*plainText]{
		"toy/encoded": workspaceRequest(func(context.Context) (any, error) { return EncodedResult(encoded), nil }),
		"toy/empty":   workspaceRequest(func(context.Context) (any, error) { return EncodedResult(nil), nil }),
	})
	for _, tc := range []struct{ id, method, want string }{
		{`1000`, "toy/encoded", `{"jsonrpc":"2.0","id":1000,"result":` + encoded + `}`},
		{`"s<1>"`, "toy/encoded", `{"jsonrpc":"2.0","id":"s\u003c1\u003e","result":` + encoded + `}`},
		{`3000000000`, "toy/encoded", `{"jsonrpc":"2.0","id":3000000000,"result":` + encoded + `}`},
		{`null`, "toy/empty", `{"jsonrpc":"2.0","id":null,"result":null}`},
	} {
		resp := c.RawRequest(`{"jsonrpc":"2.0","id":` + tc.id + `,"method":"` + tc.method + `"}`)
		if string(resp.Body) != tc.want {
			t.Errorf("id %s:\n got %s\nwant %s", tc.id, resp.Body, tc.want)
		}
	}
}
