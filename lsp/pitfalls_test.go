package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"net"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// The 16 pitfalls of go.lsp.dev/protocol v0.12.0 and jsonrpc2 v0.10.0 that
// the package documentation lists (package lsp, "Libraries"). Each TestPitfallNN pins the library's
// behaviour: it passes while the pitfall exists, so a dependency bump that
// changes it fails here and is looked at on purpose. Next to each pin, the
// test(s) that show the server avoids it are named.

// 1. A whole-document change decodes like an insertion at 0:0.
// Avoided: ContentChange.Range is a pointer (TestWholeDocumentChange).
func TestPitfall01ContentChangeRangeIsAValue(t *testing.T) {
	var full, insert protocol.TextDocumentContentChangeEvent
	_ = json.Unmarshal([]byte(`{"text":"x"}`), &full)
	_ = json.Unmarshal([]byte(`{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":"x"}`), &insert)
	if full != insert {
		t.Fatal("protocol now tells a whole-document change from an insertion")
	}
}

// 2. CancelHandler switches on int32, but a JSON number decodes as float64.
// Avoided: our own $/cancelRequest (TestCancelRequest).
func TestPitfall02CancelIDIsFloat64(t *testing.T) {
	var p protocol.CancelParams
	if err := json.Unmarshal([]byte(`{"id":7}`), &p); err != nil {
		t.Fatal(err)
	}
	if _, ok := p.ID.(float64); !ok {
		t.Fatalf("id decoded as %T", p.ID)
	}
}

// 3. nil Diagnostics goes out as null.
// Avoided: finalizeDiagnostics never returns nil; forget sends []
// (TestDiagnosticsWireShapes).
func TestPitfall03NilDiagnosticsIsNull(t *testing.T) {
	b, _ := json.Marshal(&protocol.PublishDiagnosticsParams{URI: "file:///a"})
	if !bytes.Contains(b, []byte(`"diagnostics":null`)) {
		t.Fatalf("got %s", b)
	}
}

// 4. A plain error goes out with code 0; a wrapped coded error loses the
// outer message.
// Avoided: wireError in every reply (TestErrorReplies, TestWireErrorKeepsCodes).
func TestPitfall04ErrorCodes(t *testing.T) {
	resp, _ := jsonrpc2.NewResponse(jsonrpc2.NewNumberID(1), nil, errors.New("boom"))
	b, _ := json.Marshal(resp)
	if !bytes.Contains(b, []byte(`"code":0`)) {
		t.Fatalf("got %s", b)
	}
	resp, _ = jsonrpc2.NewResponse(jsonrpc2.NewNumberID(1), nil, errors.Join(errors.New("context"), jsonrpc2.ErrInvalidParams))
	b, _ = json.Marshal(resp)
	if !bytes.Contains(b, []byte(`"code":-32602`)) || bytes.Contains(b, []byte("context")) {
		t.Fatalf("got %s", b)
	}
}

// pipeConns connects two jsonrpc2 connections over jsonrpc2's own stream.
func pipeConns(t *testing.T, handler jsonrpc2.Handler) (server, client jsonrpc2.Conn) {
	a, b := net.Pipe()
	server, client = jsonrpc2.NewConn(jsonrpc2.NewStream(a)), jsonrpc2.NewConn(jsonrpc2.NewStream(b))
	server.Go(context.Background(), handler)
	client.Go(context.Background(), jsonrpc2.MethodNotFoundHandler)
	t.Cleanup(func() { _ = server.Close(); _ = client.Close(); <-server.Done(); <-client.Done() })
	return server, client
}

// 5. A handler that returns an error closes the connection. Worse: the
// connection then fails again on its next read, and storing that second
// error panics (sync/atomic: inconsistently typed value) unless it happens
// to have the same type as the first: the process dies. This pin returns a
// *fmt.wrapError, the type of the read error, to stay alive.
// Avoided: handle always returns nil (TestWrongParamTypes, TestErrorReplies).
func TestPitfall05HandlerErrorClosesConnection(t *testing.T) {
	server, client := pipeConns(t, func(context.Context, jsonrpc2.Replier, jsonrpc2.Request) error {
		return fmt.Errorf("handler failed: %w", io.EOF)
	})
	_ = client.Notify(context.Background(), "anything", nil)
	<-server.Done()
	if server.Err() == nil {
		t.Fatal("no error recorded")
	}
}

// 6. ReplyHandler panics when a handler replies twice.
// Avoided: no ReplyHandler; each request is answered once, by reply
// (TestCancelFinishedOrUnknownRequest counts the replies).
func TestPitfall06ReplyHandlerPanicsOnSecondReply(t *testing.T) {
	h := jsonrpc2.ReplyHandler(func(ctx context.Context, reply jsonrpc2.Replier, _ jsonrpc2.Request) error {
		_ = reply(ctx, nil, nil)
		return reply(ctx, nil, nil)
	})
	call, _ := jsonrpc2.NewCall(jsonrpc2.NewNumberID(1), "x", nil)
	defer func() {
		if recover() == nil {
			t.Fatal("a second reply no longer panics")
		}
	}()
	_ = h(context.Background(), func(context.Context, any, error) error { return nil }, call)
}

// 7. Ids above 2^31-1 do not decode, and jsonrpc2's stream closes the
// connection on any frame it cannot decode.
// Avoided: wireStream (TestRequestIDsComeBackAsSent, TestBadFramesGetParseErrorAndConnectionSurvives).
func TestPitfall07LargeIDAndBadFrameCloseConnection(t *testing.T) {
	if _, err := jsonrpc2.DecodeMessage([]byte(`{"jsonrpc":"2.0","id":3000000000,"method":"x"}`)); err == nil {
		t.Fatal("a large id decodes now")
	}
	a, b := net.Pipe()
	server := jsonrpc2.NewConn(jsonrpc2.NewStream(a))
	server.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, _ jsonrpc2.Request) error {
		return reply(ctx, nil, nil)
	})
	body := `{"jsonrpc":"2.0","id":3000000000,"method":"x"}`
	go func() { _, _ = b.Write([]byte("Content-Length: 46\r\n\r\n" + body)) }()
	<-server.Done() // the connection ends instead of answering
	_ = b.Close()
}

// 8. WithLogger and WithClient share a context key.
// Avoided: neither is used (TestForbiddenLibraryAPIs).
func TestPitfall08ContextKeysCollide(t *testing.T) {
	a, _ := net.Pipe()
	defer a.Close()
	logger := zap.NewExample()
	client := protocol.ClientDispatcher(jsonrpc2.NewConn(jsonrpc2.NewStream(a)), zap.NewNop())
	ctx := protocol.WithClient(protocol.WithLogger(context.Background(), logger), client)
	if protocol.LoggerFromContext(ctx) == logger {
		t.Fatal("the keys no longer collide")
	}
}

// 9. LoggingStream deadlocks after logging an error response: it returns
// with its log mutex still locked, so the next message blocks forever.
// Avoided: our tracer (TestTraceToLogFile traces past an error reply).
func TestPitfall09LoggingStreamDeadlocks(t *testing.T) {
	var buf syncBuffer
	ls := protocol.LoggingStream(idleStream{}, &buf)
	errResp, _ := jsonrpc2.NewResponse(jsonrpc2.NewNumberID(1), nil, jsonrpc2.ErrInternal)
	_, _ = ls.Write(context.Background(), errResp)
	// Look at the mutex instead of waiting for a second Write to hang.
	mu := reflect.ValueOf(ls).Elem().FieldByName("logMu")
	if !mu.IsValid() {
		t.Fatal("LoggingStream changed shape")
	}
	if (*sync.Mutex)(unsafe.Pointer(mu.UnsafeAddr())).TryLock() {
		t.Fatal("LoggingStream no longer leaves its mutex locked")
	}
}

type idleStream struct{}

func (idleStream) Read(context.Context) (jsonrpc2.Message, int64, error)  { select {} }
func (idleStream) Write(context.Context, jsonrpc2.Message) (int64, error) { return 0, nil }
func (idleStream) Close() error                                           { return nil }

// 10. ServerHandler ignores its fallback: unknown methods go to
// Server.Request.
// Avoided: our method table (TestUnknownMethods).
func TestPitfall10ServerHandlerIgnoresFallback(t *testing.T) {
	fallbackCalled := false
	h := protocol.ServerHandler(stubServer{}, func(context.Context, jsonrpc2.Replier, jsonrpc2.Request) error {
		fallbackCalled = true
		return nil
	})
	call, _ := jsonrpc2.NewCall(jsonrpc2.NewNumberID(1), "rlog/custom", map[string]int{"a": 1})
	var replied error
	_ = h(context.Background(), func(_ context.Context, _ any, err error) error { replied = err; return nil }, call)
	if fallbackCalled || replied == nil || !strings.Contains(replied.Error(), "stub Request") {
		t.Fatalf("fallback called %v, reply %v", fallbackCalled, replied)
	}
}

// stubServer embeds a nil protocol.Server: any method not overridden panics.
type stubServer struct{ protocol.Server }

func (stubServer) Shutdown(context.Context) error { return nil }
func (stubServer) Request(context.Context, string, any) (any, error) {
	return nil, errors.New("stub Request")
}

// 11. ServerHandler refuses shutdown with any params but null.
// Avoided: shutdown ignores its params (TestShutdownThenExit sends none, null and {}).
func TestPitfall11ShutdownParams(t *testing.T) {
	h := protocol.ServerHandler(stubServer{}, nil)
	for params, wantErr := range map[string]bool{`null`: false, `{}`: true} {
		var call jsonrpc2.Call
		if err := json.Unmarshal([]byte(`{"jsonrpc":"2.0","id":1,"method":"shutdown","params":`+params+`}`), &call); err != nil {
			t.Fatal(err)
		}
		var replied error
		_ = h(context.Background(), func(_ context.Context, _ any, err error) error { replied = err; return nil }, &call)
		if (replied != nil) != wantErr {
			t.Errorf("params %s: reply error %v", params, replied)
		}
	}
}

// 12. PublishDiagnosticsParams.Version is a uint32 with omitempty: version 0
// disappears.
// Avoided: publishDiagnosticsParams (TestDiagnosticsWireShapes publishes version 0).
func TestPitfall12DiagnosticsVersionZeroOmitted(t *testing.T) {
	b, _ := json.Marshal(&protocol.PublishDiagnosticsParams{URI: "file:///a", Version: 0, Diagnostics: []protocol.Diagnostic{}})
	if bytes.Contains(b, []byte("version")) {
		t.Fatalf("got %s", b)
	}
	if f, _ := reflect.TypeOf(protocol.PublishDiagnosticsParams{}).FieldByName("Version"); f.Type.Kind() != reflect.Uint32 {
		t.Fatalf("Version is %v now", f.Type)
	}
}

// 13. Number oddities that happen to be harmless: TextDocumentSyncKind is a
// float64 that encodes as 2; FoldingRange characters omit 0; a null
// processId decodes as 0.
// Relied on: TestInitializeResultWireShape ("change": 2), TestInitializeWithNullsAndUnknownFields.
func TestPitfall13NumberEncodings(t *testing.T) {
	b, _ := json.Marshal(&protocol.TextDocumentSyncOptions{OpenClose: true, Change: protocol.TextDocumentSyncKindIncremental})
	if string(b) != `{"openClose":true,"change":2}` {
		t.Fatalf("got %s", b)
	}
	b, _ = json.Marshal(protocol.FoldingRange{StartLine: 1, StartCharacter: 0, EndLine: 2})
	if bytes.Contains(b, []byte("Character")) {
		t.Fatalf("got %s", b)
	}
	var p protocol.InitializeParams
	//lint:ignore SA1019 the pitfall is how a null rootUri, deprecated but still sent, decodes
	if err := json.Unmarshal([]byte(`{"processId":null,"rootUri":null,"capabilities":{}}`), &p); err != nil || p.ProcessID != 0 || p.RootURI != "" {
		t.Fatalf("got %+v, %v", p, err)
	}
}

// 14. uri.URI.Filename panics on non-file URIs.
// Avoided: URIs are opaque keys; FilePath checks the scheme (TestNonFileURIs,
// TestFilePath, TestForbiddenLibraryAPIs).
func TestPitfall14FilenamePanicsOnOtherSchemes(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Filename no longer panics on untitled:")
		}
	}()
	_ = uri.URI("untitled:Untitled-1").Filename()
}

// 15. Unknown JSON fields are ignored.
// Relied on: TestInitializeWithNullsAndUnknownFields.
func TestPitfall15UnknownFieldsIgnored(t *testing.T) {
	var p protocol.InitializeParams
	if err := json.Unmarshal([]byte(`{"processId":1,"capabilities":{"x":{"y":1}},"brandNew":[1]}`), &p); err != nil {
		t.Fatal(err)
	}
}

// 16. protocol's dispatchers log every call at Debug on the logger given.
// Avoided: the server uses no protocol dispatcher; it logs itself
// (TestForbiddenLibraryAPIs).
func TestPitfall16DispatchersLogCalls(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go func() { _, _ = io.Copy(io.Discard, b) }()
	client := protocol.ClientDispatcher(jsonrpc2.NewConn(jsonrpc2.NewStream(a)), zap.New(core))
	_ = client.LogMessage(context.Background(), &protocol.LogMessageParams{Type: protocol.MessageTypeLog, Message: "x"})
	if logs.FilterMessage("call window/logMessage").Len() != 1 {
		t.Fatalf("logged %v", logs.All())
	}
}

// The server's own code (every non-test file under lsp/, except the test
// client in lsptest) stays off the library APIs the pitfalls above make
// unsafe. A use that is really needed should come with a pin of its own.
func TestForbiddenLibraryAPIs(t *testing.T) {
	forbidden := map[string]string{
		"protocol.ServerHandler":                  "ignores its fallback (10) and refuses shutdown params (11)",
		"protocol.Handlers":                       "no cancellation of numeric ids (2), serial processing",
		"protocol.CancelHandler":                  "never cancels numeric ids (2)",
		"protocol.NewServer":                      "uses Handlers",
		"protocol.NewClient":                      "uses Handlers",
		"protocol.ClientDispatcher":               "ApplyEdit decodes into bool; logs on its own (16)",
		"protocol.LoggingStream":                  "deadlocks (9)",
		"protocol.WithLogger":                     "context key collision (8)",
		"protocol.WithClient":                     "context key collision (8)",
		"protocol.LoggerFromContext":              "context key collision (8)",
		"protocol.TextDocumentContentChangeEvent": "Range is a value (1)",
		"protocol.DidChangeTextDocumentParams":    "Range is a value (1)",
		"protocol.PublishDiagnosticsParams":       "null diagnostics (3), version 0 lost (12)",
		"protocol.CancelParams":                   "numeric ids are float64 (2)",
		"jsonrpc2.NewStream":                      "closes the connection on a bad frame (7)",
		"jsonrpc2.NewRawStream":                   "closes the connection on a bad frame (7)",
		"jsonrpc2.ReplyHandler":                   "panics on a second reply (6)",
		"jsonrpc2.AsyncHandler":                   "hides handler errors",
		"jsonrpc2.CancelHandler":                  "we cancel ourselves (2)",
		"uri.File":                                "$GOROOT hack (14)",
		"uri.New":                                 "parses file URIs only (14)",
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "lsptest" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			// The build reports it; here it is most likely a file of another
			// package being saved while this test runs.
			t.Logf("skipped: %v", err)
			return nil
		}
		ast.Inspect(file, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if sel.Sel.Name == "Filename" {
				t.Errorf("%s: .Filename(): panics on non-file URIs (14); use FilePath", fset.Position(sel.Pos()))
			}
			if pkg, ok := sel.X.(*ast.Ident); ok {
				if why, bad := forbidden[pkg.Name+"."+sel.Sel.Name]; bad {
					t.Errorf("%s: %s.%s: %s", fset.Position(sel.Pos()), pkg.Name, sel.Sel.Name, why)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
