package lsp

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/segmentio/encoding/json"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// notificationHandler handles a notification on the read loop. Its error is
// logged: a notification has no reply.
type notificationHandler[T Editable[T]] func(s *server[T], ctx context.Context, params json.RawMessage) error

type inflightRequest struct {
	method string
	cancel context.CancelFunc
	once   sync.Once
	send   func(res any, err error)
}

// answer replies to the request unless it has been answered already: the
// compute step and $/cancelRequest race to answer it.
func (r *inflightRequest) answer(res any, err error) {
	r.once.Do(func() { r.send(res, err) })
}

// methodTable is the server's own methods plus the features' requests.
// Unknown requests get MethodNotFound; unknown notifications (including
// every "$/" one we do not know) are ignored, as the specification asks.
func (s *server[T]) methodTable() (map[string]Request[T], map[string]notificationHandler[T]) {
	requests := map[string]Request[T]{}
	for method, r := range s.opts.Features.Requests {
		requests[method] = r
	}
	requests[protocol.MethodInitialize] = Request[T]{inline: true, prepare: (*server[T]).initialize}
	requests[protocol.MethodShutdown] = Request[T]{inline: true, prepare: (*server[T]).shutdown}

	notifications := map[string]notificationHandler[T]{}
	for method, n := range s.opts.Features.Notifications {
		notifications[method] = n.handle
	}
	for method, h := range map[string]notificationHandler[T]{
		protocol.MethodInitialized:                     (*server[T]).initialized,
		protocol.MethodCancelRequest:                   (*server[T]).cancelRequest,
		protocol.MethodTextDocumentDidOpen:             (*server[T]).didOpen,
		protocol.MethodTextDocumentDidChange:           (*server[T]).didChange,
		protocol.MethodTextDocumentDidClose:            (*server[T]).didClose,
		protocol.MethodWorkspaceDidChangeConfiguration: (*server[T]).didChangeConfiguration,
	} {
		notifications[method] = h
	}
	return requests, notifications
}

// handle is the connection's only jsonrpc2.Handler, called on the read
// loop for every request and notification in wire order. It always returns
// nil: in jsonrpc2 v0.10.0 an error from the handler closes the connection
// (pitfall 5). Replies do not go through jsonrpc2's Replier (see reply).
func (s *server[T]) handle(ctx context.Context, _ jsonrpc2.Replier, req jsonrpc2.Request) error {
	ctx = onReadLoop(ctx)
	params := s.stream.takeParams(req)
	if call, ok := req.(*jsonrpc2.Call); ok {
		s.handleCall(ctx, call, params)
	} else {
		s.handleNotification(ctx, req.Method(), params)
	}
	return nil
}

func (s *server[T]) handleNotification(ctx context.Context, method string, params json.RawMessage) {
	if method == protocol.MethodExit {
		s.exit()
		return
	}
	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	if state != stateRunning {
		// Before initialize notifications are dropped; after shutdown there
		// is nothing left to do with them.
		s.log.Debug("notification dropped", zap.String("method", method), zap.Int("state", int(state)))
		return
	}
	h, ok := s.notifications[method]
	if !ok {
		s.log.Debug("notification ignored", zap.String("method", method))
		return
	}
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("notification handler panicked", zap.String("method", method),
				zap.Any("panic", p), zap.ByteString("stack", debug.Stack()))
		}
	}()
	if err := h(s, ctx, params); err != nil {
		s.log.Warn("notification failed", zap.String("method", method), zap.Error(err))
	}
}

func (s *server[T]) handleCall(ctx context.Context, call *jsonrpc2.Call, params json.RawMessage) {
	method, id := call.Method(), call.ID()
	answer := func(res any, err error) { s.reply(id, method, res, err) }

	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	switch {
	case state == stateNew && method != protocol.MethodInitialize:
		answer(nil, rpcError(jsonrpc2.ServerNotInitialized, "server not initialized"))
		return
	case state == stateRunning && method == protocol.MethodInitialize:
		answer(nil, rpcError(jsonrpc2.InvalidRequest, "initialize may be sent only once"))
		return
	case state == stateShuttingDown:
		answer(nil, rpcError(jsonrpc2.InvalidRequest, "server is shutting down"))
		return
	}

	r, ok := s.requests[method]
	if !ok {
		answer(nil, rpcError(jsonrpc2.MethodNotFound, "method not found: %s", method))
		return
	}
	run, err := s.prepare(r, method, params)
	if err != nil {
		answer(nil, err)
		return
	}
	if r.inline {
		answer(s.compute(ctx, method, run))
		return
	}

	key := s.stream.requestKey(call.ID())
	cctx, cancel := context.WithCancel(s.bg)
	req := &inflightRequest{method: method, cancel: cancel, send: answer}
	s.mu.Lock()
	s.inflight[key] = req
	s.mu.Unlock()
	started := s.goBackground(func() {
		res, err := s.compute(cctx, method, run)
		if cctx.Err() != nil {
			res, err = nil, rpcError(codeRequestCancelled, "request cancelled")
		}
		s.mu.Lock()
		if s.inflight[key] == req {
			delete(s.inflight, key)
		}
		s.mu.Unlock()
		cancel()
		req.answer(res, err)
	})
	if !started { // Serve is finishing; the connection is gone
		s.mu.Lock()
		delete(s.inflight, key)
		s.mu.Unlock()
		cancel()
	}
}

// prepare runs a request's first step, turning a panic into InternalError.
func (s *server[T]) prepare(r Request[T], method string, params json.RawMessage) (run compute, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = s.panicked(method, p)
		}
	}()
	return r.prepare(s, params)
}

// compute runs a request's second step, turning a panic into InternalError
// (jsonrpc2 v0.10.0 recovers nothing: a panic would end the process).
func (s *server[T]) compute(ctx context.Context, method string, run compute) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, s.panicked(method, p)
		}
	}()
	return run(ctx)
}

func (s *server[T]) panicked(method string, p any) error {
	s.log.Error("request handler panicked", zap.String("method", method),
		zap.Any("panic", p), zap.ByteString("stack", debug.Stack()))
	return rpcError(jsonrpc2.InternalError, "internal error in %s: %v", method, p)
}

// reply sends the one reply of a request. The result is encoded here so
// that a value that cannot be encoded still gets a reply (jsonrpc2 would
// otherwise send nothing and the client would wait forever).
//
// The stream writes the reply, not jsonrpc2's Replier: that would encode
// the encoded result twice more (as a raw message, which segmentio
// validates and re-escapes, once for the Response and once for the frame),
// and on a result of thousands of symbols that costs more than computing it.
func (s *server[T]) reply(id jsonrpc2.ID, method string, res any, err error) {
	var result []byte
	if err == nil {
		result, err = encodeResult(res)
	}
	var rpcErr *jsonrpc2.Error
	if err != nil {
		rpcErr = wireError(err)
		s.log.Debug("request failed", zap.String("method", method), zap.Int("code", int(rpcErr.Code)), zap.String("message", rpcErr.Message))
	}
	if _, werr := s.stream.writeReply(id, result, rpcErr); werr != nil {
		s.log.Debug("reply not sent", zap.String("method", method), zap.Error(werr))
	}
}

// EncodedResult is a request's result already encoded: JSON exactly as
// json.Marshal writes it (compact, with <, > and & escaped), which the
// server sends as it is. Features return it for results of thousands of
// items, which they encode faster than reflection does.
type EncodedResult []byte

func encodeResult(res any) ([]byte, error) {
	if b, ok := res.(EncodedResult); ok {
		if len(b) == 0 {
			return jsonNull, nil
		}
		return b, nil
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("encoding the result: %w", err)
	}
	return b, nil
}

// cancelRequest handles $/cancelRequest for numeric and string ids alike
// (protocol.CancelHandler only knows int32, which a JSON number never
// decodes to: pitfall 2). Cancelling a request that has already been
// answered, or was never sent, does nothing.
func (s *server[T]) cancelRequest(_ context.Context, raw json.RawMessage) error {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if err := decodeParams(raw, &p); err != nil {
		return err
	}
	if p.ID == nil {
		return fmt.Errorf("$/cancelRequest without an id")
	}
	key := keyOf(p.ID)
	s.mu.Lock()
	req := s.inflight[key]
	s.mu.Unlock()
	if req != nil {
		s.log.Debug("request cancelled", zap.String("method", req.method), zap.String("id", string(key)))
		req.cancel()
		// Answer now: the client stops waiting even if the handler is slow
		// to notice its context (its own answer is then dropped).
		req.answer(nil, rpcError(codeRequestCancelled, "request cancelled"))
	}
	return nil
}
