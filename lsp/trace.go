package lsp

import (
	"go.uber.org/zap"
)

// traceBodyLimit bounds how much of one message the trace shows: a didOpen
// of a 100 MB log must not put 100 MB into the log file.
const traceBodyLimit = 8 << 10

// tracer logs JSON-RPC traffic as the bytes that crossed the wire, ids and
// all (protocol.LoggingStream deadlocks after its first error reply, pitfall
// 9, and sees messages only after jsonrpc2 has decoded them). A nil *tracer
// traces nothing.
type tracer struct {
	log *zap.Logger
}

func newTracer(log *zap.Logger) *tracer {
	if log == nil {
		return nil
	}
	return &tracer{log: log}
}

// received and sent are named from the server's side.
func (t *tracer) received(body []byte) { t.frame("received", body) }
func (t *tracer) sent(body []byte)     { t.frame("sent", body) }

func (t *tracer) frame(direction string, body []byte) {
	if t == nil {
		return
	}
	shown := body
	if len(shown) > traceBodyLimit {
		shown = shown[:traceBodyLimit]
	}
	t.log.Info("rpc "+direction,
		zap.Int("bytes", len(body)),
		zap.ByteString("json", shown),
		zap.Bool("truncated", len(shown) < len(body)))
}
