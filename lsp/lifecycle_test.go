package lsp

import (
	"context"
	"testing"
	"testing/synctest"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

func TestInitializeResultWireShape(t *testing.T) {
	c := startServer(t, testOptions(t))
	res := c.Initialize(nil)
	lsptest.AssertJSON(t, res, `{
		"capabilities": {
			"textDocumentSync": {"openClose": true, "change": 2},
			"hoverProvider": true,
			"positionEncoding": "utf-16"
		},
		"serverInfo": {"name": "rlog-ls", "version": "test"}
	}`)
}

func TestInitializeNegotiatesPositionEncoding(t *testing.T) {
	for _, tc := range []struct {
		offered []string
		want    string
	}{
		{nil, "utf-16"},
		{[]string{"utf-16"}, "utf-16"},
		{[]string{"utf-32", "utf-16"}, "utf-16"},
		{[]string{"utf-16", "utf-8"}, "utf-8"},
		{[]string{"utf-8"}, "utf-8"},
	} {
		c := startServer(t, testOptions(t))
		var res struct {
			Capabilities struct {
				PositionEncoding string `json:"positionEncoding"`
			} `json:"capabilities"`
		}
		if err := c.Call(protocol.MethodInitialize, initParams(nil, tc.offered...), &res); err != nil {
			t.Fatal(err)
		}
		if got := res.Capabilities.PositionEncoding; got != tc.want {
			t.Errorf("offered %v: positionEncoding %q, want %q", tc.offered, got, tc.want)
		}
	}
}

// Null processId, rootUri and workspaceFolders (a client with no workspace,
// pitfall 13) and unknown fields (pitfall 15) are all fine.
func TestInitializeWithNullsAndUnknownFields(t *testing.T) {
	c := startServer(t, testOptions(t))
	resp := c.RawRequest(`{"jsonrpc":"2.0","id":1000,"method":"initialize","params":{
		"processId":null,"rootUri":null,"rootPath":null,"workspaceFolders":null,
		"initializationOptions":null,"capabilities":{"future":{"x":[1,2]},"general":{"positionEncodings":["utf-8"]}},
		"somethingNew":{"a":1}}}`)
	if resp.Error != nil {
		t.Fatalf("initialize failed: %+v", resp.Error)
	}
}

// A client that gets a capability's type wrong is still served.
func TestInitializeWithMistypedCapability(t *testing.T) {
	c := startServer(t, testOptions(t))
	resp := c.RawRequest(`{"jsonrpc":"2.0","id":1000,"method":"initialize","params":{
		"processId":1,"capabilities":{"workspace":{"configuration":"yes"},"general":{"positionEncodings":["utf-8"]}}}}`)
	if resp.Error != nil {
		t.Fatalf("initialize failed: %+v", resp.Error)
	}
	lsptest.AssertJSON(t, resp.Result, `{"capabilities":{"textDocumentSync":{"openClose":true,"change":2},"hoverProvider":true,"positionEncoding":"utf-8"},"serverInfo":{"name":"rlog-ls","version":"test"}}`)
}

func TestInitializeWithWrongParamsIsInvalidParams(t *testing.T) {
	c := startServer(t, testOptions(t))
	resp := c.RawRequest(`{"jsonrpc":"2.0","id":1000,"method":"initialize","params":[1,2]}`)
	if resp.Error == nil || resp.Error.Code != -32602 || resp.Result != nil {
		t.Fatalf("got %s", resp.Body)
	}
	// And the server is still waiting for a proper initialize.
	if res := c.Initialize(nil); len(res) == 0 {
		t.Fatal("no initialize result")
	}
}

func TestRequestBeforeInitializeIsServerNotInitialized(t *testing.T) {
	c := startServer(t, testOptions(t))
	resp := c.RawRequest(`{"jsonrpc":"2.0","id":1000,"method":"textDocument/hover","params":{}}`)
	if resp.Error == nil || resp.Error.Code != -32002 {
		t.Fatalf("got %s", resp.Body)
	}
	resp = c.RawRequest(`{"jsonrpc":"2.0","id":1001,"method":"shutdown"}`)
	if resp.Error == nil || resp.Error.Code != -32002 {
		t.Fatalf("shutdown before initialize: got %s", resp.Body)
	}
}

// Notifications before initialize are dropped: a didOpen sent then is not
// remembered.
func TestNotificationBeforeInitializeIsDropped(t *testing.T) {
	c := startServer(t, testOptions(t))
	openDoc(c, "file:///early.rlog", 1, "TODO")
	c.Initialize(initParams(noDebounce))
	resp := c.RawRequest(`{"jsonrpc":"2.0","id":1000,"method":"toy/text","params":{"textDocument":{"uri":"file:///early.rlog"}}}`)
	lsptest.AssertJSON(t, resp.Body, `{"jsonrpc":"2.0","id":1000,"result":null}`)
}

func TestSecondInitializeIsInvalidRequest(t *testing.T) {
	c := startInitialized(t)
	resp := c.RawRequest(`{"jsonrpc":"2.0","id":1000,"method":"initialize","params":{"capabilities":{}}}`)
	if resp.Error == nil || resp.Error.Code != -32600 {
		t.Fatalf("got %s", resp.Body)
	}
}

// shutdown answers "result": null whatever its params (none, null, {}:
// pitfall 11); afterwards requests are InvalidRequest and exit gives 0.
func TestShutdownThenExit(t *testing.T) {
	for _, params := range []string{``, `,"params":null`, `,"params":{}`} {
		c := startInitialized(t)
		resp := c.RawRequest(`{"jsonrpc":"2.0","id":1000,"method":"shutdown"` + params + `}`)
		lsptest.AssertJSON(t, resp.Body, `{"jsonrpc":"2.0","id":1000,"result":null}`)

		resp = c.RawRequest(`{"jsonrpc":"2.0","id":1001,"method":"toy/text","params":{}}`)
		if resp.Error == nil || resp.Error.Code != -32600 {
			t.Fatalf("request after shutdown: got %s", resp.Body)
		}
		resp = c.RawRequest(`{"jsonrpc":"2.0","id":1002,"method":"shutdown"}`)
		if resp.Error == nil || resp.Error.Code != -32600 {
			t.Fatalf("second shutdown: got %s", resp.Body)
		}
		c.Notify(protocol.MethodExit, nil)
		if code := c.ExitCode(); code != 0 {
			t.Fatalf("exit after shutdown: code %d, want 0", code)
		}
	}
}

func TestExitWithoutShutdownIsOne(t *testing.T) {
	c := startInitialized(t)
	c.Notify(protocol.MethodExit, nil)
	if code := c.ExitCode(); code != 1 {
		t.Fatalf("code %d, want 1", code)
	}
}

func TestExitBeforeInitializeIsOne(t *testing.T) {
	c := startServer(t, testOptions(t))
	c.Notify(protocol.MethodExit, nil)
	if code := c.ExitCode(); code != 1 {
		t.Fatalf("code %d, want 1", code)
	}
}

// A client that goes away (stdin closes) ends the server; without shutdown
// that is exit code 1.
func TestServerEndsWhenInputCloses(t *testing.T) {
	c := startInitialized(t)
	openDoc(c, "file:///a.rlog", 1, "TODO")
	c.WaitDiagnostics("file:///a.rlog", nil)
	c.CloseInput()
	if code := c.ExitCode(); code != 1 {
		t.Fatalf("code %d, want 1", code)
	}
}

func TestServerEndsWhenInputClosesAfterShutdown(t *testing.T) {
	c := startInitialized(t)
	if err := c.Call(protocol.MethodShutdown, nil, nil); err != nil {
		t.Fatal(err)
	}
	c.CloseInput()
	if code := c.ExitCode(); code != 0 {
		t.Fatalf("code %d, want 0", code)
	}
}

// Work that ignores its context cannot keep the server from exiting.
func TestExitDespiteStuckBackgroundWork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		started := make(chan struct{})
		opts := testOptions(t)
		opts.Features.Diagnose = func(context.Context, *DocumentContext[*plainText]) Diagnostics {
			close(started)
			<-release // ignores its context
			return Diagnostics{}
		}
		c := startServer(t, opts)
		c.Initialize(initParams(noDebounce))
		openDoc(c, "untitled:stuck", 1, "x")
		<-started
		if code := c.Shutdown(); code != 0 {
			t.Fatalf("exit code %d", code)
		}
		close(release) // let the bubble's goroutines end
	})
}

// Features.Background runs from initialized to shutdown, once, and sees the
// documents as they are when it looks.
func TestFeatureBackgroundRunsFromInitializedToShutdown(t *testing.T) {
	opts := testOptions(t)
	type seen struct {
		docs    int
		stopped bool
	}
	look, report := make(chan struct{}), make(chan seen)
	started := make(chan struct{}, 2)
	opts.Features.Background = func(ctx context.Context, workspace func() *WorkspaceContext[*plainText]) {
		started <- struct{}{}
		for {
			select {
			case <-look:
				report <- seen{docs: len(workspace().Docs)}
			case <-ctx.Done():
				report <- seen{stopped: true}
				return
			}
		}
	}
	c := startServer(t, opts)
	c.Initialize(initParams(noDebounce))
	<-started
	look <- struct{}{}
	if s := <-report; s.docs != 0 || s.stopped {
		t.Fatalf("before any document: %+v", s)
	}
	openDoc(c, "file:///a.txt", 1, "text")
	docText(t, c, "file:///a.txt") // the didOpen has been handled
	look <- struct{}{}
	if s := <-report; s.docs != 1 {
		t.Fatalf("after didOpen it sees %d documents", s.docs)
	}
	c.Notify(protocol.MethodInitialized, map[string]any{}) // a second one starts nothing
	if err := c.Call(protocol.MethodShutdown, nil, nil); err != nil {
		t.Fatal(err)
	}
	if s := <-report; !s.stopped {
		t.Fatalf("not stopped by shutdown: %+v", s)
	}
	c.Notify(protocol.MethodExit, nil)
	if code := c.ExitCode(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if len(started) != 0 {
		t.Fatal("Background ran twice")
	}
}
