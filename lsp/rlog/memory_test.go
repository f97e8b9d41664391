package rlog

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/rlog-ls/rlog-ls/internal/gen"
	"github.com/rlog-ls/rlog-ls/lsp"
)

// leanClient speaks to a server and keeps nothing it does not wait for, so
// that the test's own memory stays flat while the server's is measured.
type leanClient struct {
	t       testing.TB
	conn    net.Conn
	writeMu sync.Mutex
	mu      sync.Mutex
	waiting map[string]chan json.RawMessage
	done    chan struct{}
	// notified, when set, sees each notification's body (set it before
	// the server sends any).
	notified func(body []byte)
}

func startLean(t testing.TB, opts lsp.Options[Doc]) *leanClient {
	return startLeanWith(t, opts, nil)
}

// startLeanPublishing starts a lean client of a server with every feature,
// initialized on the workspace dir with diagnostics at once; the channel
// gets a value each time diagnostics are published (one kept, the rest
// dropped).
func startLeanPublishing(t testing.TB, dir string) (*leanClient, chan struct{}) {
	published := make(chan struct{}, 1)
	c := startLeanWith(t, lsp.Options[Doc]{Features: Features(), Name: "rlog-ls", Version: "mem", Logger: zap.NewNop()}, func(body []byte) {
		if bytes.Contains(body[:min(len(body), 80)], []byte("publishDiagnostics")) {
			select {
			case published <- struct{}{}:
			default:
			}
		}
	})
	c.call("0", "initialize", map[string]any{"processId": nil, "rootUri": fileURI(dir), "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"diagnostics": map[string]any{"debounceMs": 0}}})
	c.notify("initialized", map[string]any{})
	return c, published
}

func startLeanWith(t testing.TB, opts lsp.Options[Doc], notified func(body []byte)) *leanClient {
	serverEnd, clientEnd := net.Pipe()
	served := make(chan struct{})
	go func() {
		lsp.Serve(context.Background(), serverEnd, opts)
		serverEnd.Close()
		close(served)
	}()
	c := &leanClient{t: t, conn: clientEnd, waiting: map[string]chan json.RawMessage{}, done: make(chan struct{}), notified: notified}
	go c.read()
	t.Cleanup(func() {
		clientEnd.Close()
		<-served
		<-c.done
	})
	return c
}

func (c *leanClient) read() {
	defer close(c.done)
	in := bufio.NewReaderSize(c.conn, 1<<16)
	tp := textproto.NewReader(in)
	for {
		h, err := tp.ReadMIMEHeader()
		if err != nil {
			return
		}
		n, _ := strconv.Atoi(h.Get("Content-Length"))
		body := make([]byte, n)
		if _, err := io.ReadFull(in, body); err != nil {
			return
		}
		if !bytes.Contains(body[:min(len(body), 64)], []byte(`"id"`)) {
			if c.notified != nil {
				c.notified(body)
			}
			continue // a notification (diagnostics, messages): dropped
		}
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(body, &env) != nil || env.Method != "" {
			continue
		}
		c.mu.Lock()
		ch := c.waiting[string(env.ID)]
		delete(c.waiting, string(env.ID))
		c.mu.Unlock()
		if ch != nil {
			if env.Error != nil {
				ch <- env.Error
			} else {
				ch <- env.Result
			}
		}
	}
}

func (c *leanClient) send(msg string) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if _, err := fmt.Fprintf(c.conn, "Content-Length: %d\r\n\r\n%s", len(msg), msg); err != nil {
		c.t.Fatalf("send: %v", err)
	}
}

func (c *leanClient) notify(method string, params any) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	c.send(string(b))
}

// call sends a request with the id as written and waits for its answer.
func (c *leanClient) call(id, method string, params any) json.RawMessage {
	p, _ := json.Marshal(params)
	ch := make(chan json.RawMessage, 1)
	c.mu.Lock()
	c.waiting[id] = ch
	c.mu.Unlock()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, p))
	select {
	case res := <-ch:
		return res
	case <-time.After(5 * time.Minute): // a guard against a hang, not a timing (a 100 MB view's request took over a minute beside CPU hogs)
		c.t.Fatalf("no answer to %s %s", method, id)
		return nil
	}
}

// heapAfterGC is the live heap once garbage is collected.
func heapAfterGC() uint64 {
	var ms runtime.MemStats
	for range 3 {
		runtime.GC()
	}
	debug.FreeOSMemory()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// Opening and closing 10,000 documents, each used by a request (some with
// ids the server must remap, some cancelled after the answer), edited and
// diagnosed, with workspace symbol searches over a folder in between,
// leaves the server's heap and goroutines where they were: closing a
// document frees everything (store, diagnostics entry, analysis state,
// request bookkeeping), and nothing grows per document.
func TestOpenCloseManyDocumentsMemory(t *testing.T) {
	n := 10000
	if raceEnabled || testing.Short() {
		n = 1500
	}
	ws := t.TempDir()
	var sample bytes.Buffer
	gen.Write(&sample, gen.Options{Bytes: 6 << 10, FindingRate: 0.05, Seed: 3})
	for i := range 5 {
		os.WriteFile(filepath.Join(ws, fmt.Sprintf("w%d.rlog", i)), sample.Bytes(), 0o644)
	}
	c := startLean(t, lsp.Options[Doc]{Features: Features(), Name: "rlog-ls", Version: "mem", Logger: zap.NewNop()})
	c.call("0", "initialize", map[string]any{
		"processId": nil, "rootUri": fileURI(ws), "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"diagnostics": map[string]any{"debounceMs": 0}},
	})
	c.notify("initialized", map[string]any{})
	text := sample.String()
	cycle := func(i int) {
		uri := fmt.Sprintf("file:///mem/doc-%d.rlog", i)
		if i%3 == 0 {
			uri = fmt.Sprintf("untitled:Untitled-%d", i)
		}
		td := map[string]any{"uri": uri}
		c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "rlog", "version": 1, "text": text}})
		id := strconv.Itoa(1_000_000 + i)
		if i%7 == 0 {
			id = strconv.Itoa(3_000_000_000 + i) // remapped: above 2^31
		}
		switch i % 4 {
		case 0:
			c.call(id, "textDocument/hover", map[string]any{"textDocument": td, "position": map[string]any{"line": 12, "character": 5}})
		case 1:
			c.call(id, "textDocument/semanticTokens/full", map[string]any{"textDocument": td})
		case 2:
			c.call(id, "textDocument/documentSymbol", map[string]any{"textDocument": td})
		default:
			c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
				"contentChanges": []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": 14, "character": 0}, "end": map[string]any{"line": 14, "character": 0}}, "text": "o: id=zz → [ok]\n"}}})
			c.call(id, "textDocument/codeAction", map[string]any{"textDocument": td, "range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 20, "character": 0}}, "context": map[string]any{"diagnostics": []any{}}})
		}
		c.notify("$/cancelRequest", map[string]any{"id": json.RawMessage(id)}) // already answered
		c.notify("textDocument/didClose", map[string]any{"textDocument": td})
		if i%500 == 0 {
			c.call(strconv.Itoa(2_000_000+i), "workspace/symbol", map[string]any{"query": "e"})
		}
	}
	for i := range 300 { // warm up: pools, caches, the workspace index
		cycle(-1 - i)
	}
	c.call(`"sync"`, "workspace/symbol", map[string]any{"query": ""})
	goroutines := runtime.NumGoroutine()
	base := heapAfterGC()
	for i := range n {
		cycle(i)
	}
	c.call(`"sync2"`, "workspace/symbol", map[string]any{"query": ""})
	// Background diagnostics runs of the last documents end once they see
	// the document closed; wait for them (a guard, not a timing).
	for deadline := time.Now().Add(time.Minute); runtime.NumGoroutine() > goroutines+2; {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines, %d before", runtime.NumGoroutine(), goroutines)
		}
		time.Sleep(10 * time.Millisecond)
	}
	after := heapAfterGC()
	grown := int64(after) - int64(base)
	t.Logf("%d documents of %d bytes: heap %d -> %d bytes (%+d)", n, len(text), base, after, grown)
	// 40 bytes per document: one forgotten map entry per document exceeds
	// it (a diagnostics entry is about 120), and keeping the documents
	// themselves would be 60 MB.
	if limit := max(128<<10, 40*int64(n)); grown > limit {
		t.Errorf("the heap grew by %d bytes over %d documents opened and closed (limit %d)", grown, n, limit)
	}
}
