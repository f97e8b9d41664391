package lsp

import (
	"bytes"
	"context"
	"io"
	"testing"

	"go.lsp.dev/protocol"
	"go.uber.org/zap/zaptest"

	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

// The plumbing tests run the server over plainText with a toy language:
// every "TODO" is a warning (code "todo") and every "FIXME" an error (code
// "fixme"), so diagnostics are easy to provoke and to predict.

func toyDiagnose(_ context.Context, dc *DocumentContext[*plainText]) Diagnostics {
	var out []protocol.Diagnostic
	text := dc.Doc.Text.b
	for _, w := range []struct {
		word     string
		severity protocol.DiagnosticSeverity
	}{{"TODO", protocol.DiagnosticSeverityWarning}, {"FIXME", protocol.DiagnosticSeverityError}} {
		for off := 0; ; {
			i := bytes.Index(text[off:], []byte(w.word))
			if i < 0 {
				break
			}
			start := off + i
			out = append(out, protocol.Diagnostic{
				Range:    dc.Mapper.Range(start, start+len(w.word)),
				Severity: w.severity,
				Code:     string(bytes.ToLower([]byte(w.word))),
				Source:   "toy",
				Message:  w.word + " left in the text",
			})
			off = start + len(w.word)
		}
	}
	return Diagnostics{List: out}
}

// toyText answers "toy/text": the document as the server holds it.
type toyText struct {
	URI     protocol.DocumentURI `json:"uri"`
	Version int32                `json:"version"`
	Text    string               `json:"text"`
}

func toyFeatures() Features[*plainText] {
	return Features[*plainText]{
		Parse:    parsePlain,
		Diagnose: toyDiagnose,
		Section:  "rlog",
		Requests: map[string]Request[*plainText]{
			"toy/text": DocumentRequest(func(_ context.Context, dc *DocumentContext[*plainText], _ *documentParams) (any, error) {
				return toyText{URI: dc.Doc.URI, Version: dc.Doc.Version, Text: dc.Doc.Text.String()}, nil
			}),
			// toy/roundTrip maps a position to a byte offset and back.
			"toy/roundTrip": DocumentRequest(func(_ context.Context, dc *DocumentContext[*plainText], p *protocol.TextDocumentPositionParams) (any, error) {
				off := dc.Mapper.Offset(p.Position)
				return map[string]any{"offset": off, "position": dc.Mapper.Position(off)}, nil
			}),
		},
		Capabilities: func(caps *ServerCapabilities, _ *Session) {
			caps.HoverProvider = true
		},
	}
}

// docText asks the server for uri's text and version.
func docText(t testing.TB, c *lsptest.Client, uri protocol.DocumentURI) toyText {
	t.Helper()
	var res toyText
	if err := c.Call("toy/text", documentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}}, &res); err != nil {
		t.Fatalf("toy/text: %v", err)
	}
	return res
}

// testOptions are the options of a server under test: the toy language,
// a test logger, and diagnostics without debounce unless a test sets one.
func testOptions(t testing.TB) Options[*plainText] {
	return Options[*plainText]{
		Features: toyFeatures(),
		Name:     "rlog-ls",
		Version:  "test",
		Logger:   zaptest.NewLogger(t),
	}
}

// startServer runs a server with opts and connects a test client to it.
func startServer(t testing.TB, opts Options[*plainText]) *lsptest.Client {
	t.Helper()
	return lsptest.Start(t, func(ctx context.Context, rwc io.ReadWriteCloser) int {
		return Serve(ctx, rwc, opts)
	})
}

// startWatched runs a server with opts and initializes it with the client's
// process id 4242, which opts' probes answer for.
func startWatched(t testing.TB, opts Options[*plainText]) *lsptest.Client {
	t.Helper()
	c := startServer(t, opts)
	params := initParams(noDebounce)
	params["processId"] = 4242
	c.Initialize(params)
	return c
}

// noDebounce is initializationOptions that publish diagnostics at once.
var noDebounce = map[string]any{"diagnostics": map[string]any{"debounceMs": 0}}

// initParams are DefaultInitializeParams with the given initializationOptions
// and positionEncodings offered.
func initParams(options any, encodings ...string) map[string]any {
	p := lsptest.DefaultInitializeParams()
	if options != nil {
		p["initializationOptions"] = options
	}
	if encodings != nil {
		p["capabilities"] = map[string]any{"general": map[string]any{"positionEncodings": encodings}}
	}
	return p
}

// startInitialized starts a toy server and initializes it without debounce.
func startInitialized(t testing.TB) *lsptest.Client {
	t.Helper()
	c := startServer(t, testOptions(t))
	c.Initialize(initParams(noDebounce))
	return c
}

func openDoc(c *lsptest.Client, uri protocol.DocumentURI, version int32, text string) {
	c.Notify(protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: uri, LanguageID: "rlog", Version: version, Text: text},
	})
}

// change sends one didChange; a nil range in a change means the whole text.
func change(c *lsptest.Client, uri protocol.DocumentURI, version int32, changes ...ContentChange) {
	c.Notify(protocol.MethodTextDocumentDidChange, didChangeParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}, Version: version},
		ContentChanges: changes,
	})
}

func rng(l1, c1, l2, c2 uint32) *protocol.Range {
	return &protocol.Range{Start: protocol.Position{Line: l1, Character: c1}, End: protocol.Position{Line: l2, Character: c2}}
}

func closeDoc(c *lsptest.Client, uri protocol.DocumentURI) {
	c.Notify(protocol.MethodTextDocumentDidClose, protocol.DidCloseTextDocumentParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri},
	})
}
