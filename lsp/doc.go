// Package lsp is the language server's plumbing: transport, dispatch,
// lifecycle, documents, positions, diagnostics publishing and settings. It
// knows nothing of rlog; a language plugs in through Features.
//
// # Libraries
//
// go.lsp.dev/protocol v0.12.0 supplies the types and go.lsp.dev/jsonrpc2
// v0.10.0 the connection; both are pinned (jsonrpc2@latest is an
// incompatible rewrite). Their rough edges, 16 pitfalls, are wrapped here
// and pinned by pitfalls_test.go, one test each:
//   - wireStream replaces jsonrpc2's stream: bad frames get ParseError and the
//     connection lives on; ids jsonrpc2 cannot hold are remapped;
//   - the method table replaces protocol.ServerHandler: notifications run in
//     order on the read loop, requests are prepared there and computed in
//     their own goroutine, $/cancelRequest works for every id, panics
//     become InternalError replies, every error reply has a real code;
//   - didChange, publishDiagnostics, initialize and the capabilities use our
//     own or extended types where protocol's are wrong or missing;
//   - Client replaces protocol.Client for server-to-client calls.
//
// # Positions
//
// Inside the server every location is a byte offset into a document's Text.
// A Mapper converts to and from protocol positions in the encoding
// negotiated at initialize (UTF-8 when the client offers it, else UTF-16),
// clamping whatever the client sends.
//
// # Adding a feature
//
// A feature is an entry in Features.Requests, built with DocumentRequest
// (params that name a document) or WorkspaceRequest, plus the provider it
// advertises in Features.Capabilities:
//
//	Requests: map[string]lsp.Request[Doc]{
//		protocol.MethodTextDocumentHover: lsp.DocumentRequest(hover),
//	},
//	Capabilities: func(caps *lsp.ServerCapabilities, _ *lsp.Session) {
//		caps.HoverProvider = true
//	},
//
//	func hover(ctx context.Context, dc *lsp.DocumentContext[Doc], p *protocol.HoverParams) (any, error) {
//		off := dc.Mapper.Offset(p.Position) // byte offset in dc.Doc.Text
//		...
//	}
//
// The handler sees an immutable snapshot (dc.Doc) and may take its time: it
// runs in its own goroutine, ctx is cancelled by $/cancelRequest, and it may
// call the client through dc.Client. Return nil for a null result, an error
// built with InvalidParams or RequestFailed for a coded error; any other
// error or a panic becomes InternalError.
//
// Notifications a language needs (didSave, didChangeWatchedFiles ...) go in
// Features.Notifications, built with OnNotification; they run on the read
// loop, in order with the text sync, and must be quick.
//
// Tests drive the server in-process through package lsptest.
package lsp
