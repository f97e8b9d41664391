package lsp

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"strconv"
	"testing"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

// randomValidText is randomText without invalid UTF-8, which JSON cannot
// carry unchanged.
func randomValidText(r *rand.Rand, n int) []byte {
	return bytes.ToValidUTF8(randomText(r, n), []byte("?"))
}

// Random edit batches sent as didChange notifications, in UTF-16 columns
// with astral characters and every kind of line end, leave the server with
// exactly the text of a naive model.
func TestRandomEditsOverTheWire(t *testing.T) {
	opts := testOptions(t)
	opts.Logger = zap.NewNop()
	c := startServer(t, opts)
	c.Initialize(nil) // UTF-16
	r := rand.New(rand.NewPCG(5, 6))
	const uri = "untitled:soak"
	model := string(randomValidText(r, 200))
	openDoc(c, uri, 0, model)
	for v := int32(1); v <= 300; v++ {
		var batch []ContentChange
		for range 1 + r.IntN(4) {
			ch, next := randomChange(r, model, UTF16, randomValidText)
			batch = append(batch, ch)
			model = next
		}
		change(c, uri, v, batch...)
		if v%25 == 0 {
			if got := docText(t, c, uri); got.Text != model || got.Version != v {
				t.Fatalf("after version %d: server has %q, model %q", v, got.Text, model)
			}
		}
	}
	if !utf8.ValidString(model) {
		t.Fatal("the model went invalid")
	}
}

// Opening and closing many documents, with requests whose ids had to be
// remapped, leaves no trace: every map shrinks back to empty.
func TestClosedDocumentsLeaveNothing(t *testing.T) {
	opts := testOptions(t)
	opts.Logger = zap.NewNop()
	srv := newServer(opts)
	c := lsptest.Start(t, func(ctx context.Context, rwc io.ReadWriteCloser) int { return srv.serve(ctx, rwc) })
	c.Initialize(initParams(noDebounce))
	for i := range 500 {
		uri := protocol.DocumentURI("untitled:doc-" + strconv.Itoa(i))
		openDoc(c, uri, 1, "TODO")
		id := strconv.Itoa(3000000000 + i)
		c.RawRequest(`{"jsonrpc":"2.0","id":` + id + `,"method":"toy/text","params":{"textDocument":{"uri":"` + string(uri) + `"}}}`)
		if i%2 == 0 {
			c.WaitDiagnostics(uri, lsptest.AtVersion(1))
		}
		closeDoc(c, uri)
	}
	alive(t, c)
	if n := srv.docs.Len(); n != 0 {
		t.Errorf("%d documents held", n)
	}
	srv.diagnostics.mu.Lock()
	if n := len(srv.diagnostics.entries); n != 0 {
		t.Errorf("%d diagnostics entries held", n)
	}
	srv.diagnostics.mu.Unlock()
	srv.mu.Lock()
	if n := len(srv.inflight); n != 0 {
		t.Errorf("%d requests in flight", n)
	}
	srv.mu.Unlock()
	srv.stream.ids.mu.Lock()
	if n := len(srv.stream.ids.original); n != 0 {
		t.Errorf("%d remapped ids held", n)
	}
	srv.stream.ids.mu.Unlock()
}
