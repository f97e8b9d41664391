package lsp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/segmentio/encoding/json"
	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
)

// wireStream is the jsonrpc2.Stream under the server's connection. It
// replaces jsonrpc2.NewStream, whose Read fails, and so closes the whole
// connection, on any frame it cannot decode (pitfall 7). Here:
//   - a frame that is not JSON gets a ParseError reply with id null;
//   - JSON that is not a request gets InvalidRequest (with its id when it
//     has a usable one);
//   - an id jsonrpc2 cannot hold (above 2^31-1, null, "") is remapped and
//     restored on the reply (see idTable);
//
// and in every case the stream reads on. It also writes each frame in one
// place, which is where the --trace log is taken.
type wireStream struct {
	rwc    io.ReadWriteCloser
	frames *frameReader
	ids    *idTable
	log    *zap.Logger
	trace  *tracer

	// writeMu serialises writes: the connection writes under its own lock,
	// but the read side writes its rejections too.
	writeMu sync.Mutex

	// params holds the raw params of a request between Read and the
	// handler (see takeParams). jsonrpc2 calls the handler right after each
	// Read, so it holds one entry at most.
	paramsMu sync.Mutex
	params   map[jsonrpc2.Request]json.RawMessage
}

func newWireStream(rwc io.ReadWriteCloser, log *zap.Logger, trace *tracer) *wireStream {
	return &wireStream{rwc: rwc, frames: newFrameReader(rwc), ids: newIDTable(), log: log, trace: trace,
		params: map[jsonrpc2.Request]json.RawMessage{}}
}

// envelope is any JSON-RPC message, undecoded.
type envelope struct {
	Version json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// wireResponse is a response as written on the wire: the id is raw text so
// that a remapped id goes back exactly as the client wrote it.
type wireResponse struct {
	Version string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *jsonrpc2.Error `json:"error,omitempty"`
}

var jsonNull = json.RawMessage("null")

// Read implements jsonrpc2.Stream. It returns only well-formed messages or
// the transport's error.
func (s *wireStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, err := s.frames.next()
		if bad, ok := err.(*badFrameError); ok {
			s.log.Warn("unreadable frame skipped", zap.String("reason", bad.reason))
			s.reject(nil, rpcError(jsonrpc2.ParseError, "%s", bad.reason))
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		s.trace.received(body)
		msg, rejectID, rejectErr := s.decode(body)
		if rejectErr != nil {
			s.log.Warn("invalid message rejected", zap.Int("code", int(rejectErr.Code)), zap.String("message", rejectErr.Message))
			s.reject(rejectID, rejectErr)
			continue
		}
		if msg == nil {
			continue // a response nobody can be waiting for; logged by decode
		}
		return msg, int64(len(body)), nil
	}
}

// decode turns a frame body into a jsonrpc2 message, or says how to reject
// it. A nil message with no rejection means: drop silently.
func (s *wireStream) decode(body []byte) (jsonrpc2.Message, json.RawMessage, *jsonrpc2.Error) {
	var env envelope
	// ZeroCopy: the raw fields alias body, which is never reused.
	rest, err := json.Parse(body, &env, json.ZeroCopy)
	if err == nil && len(bytes.TrimSpace(rest)) > 0 {
		err = fmt.Errorf("data after the message")
	}
	if err != nil {
		if !json.Valid(body) {
			return nil, nil, rpcError(jsonrpc2.ParseError, "parse error: %v", err)
		}
		return nil, nil, rpcError(jsonrpc2.InvalidRequest, "a message must be a JSON object")
	}
	echoID := env.ID // what a rejection may answer with, if usable
	if kind, _ := classifyID(env.ID); kind == idInvalid {
		echoID = nil
	}
	if len(env.Version) > 0 && string(bytes.TrimSpace(env.Version)) != `"2.0"` {
		return nil, echoID, rpcError(jsonrpc2.InvalidRequest, "jsonrpc must be \"2.0\"")
	}
	if isAbsent(env.Method) {
		return s.decodeResponse(env), nil, nil
	}
	var method string
	if err := json.Unmarshal(env.Method, &method); err != nil {
		return nil, echoID, rpcError(jsonrpc2.InvalidRequest, "method must be a string")
	}
	// The messages are built without params, which travel beside them (see
	// takeParams): jsonrpc2's constructors would re-encode them, a full
	// copy of a 100 MB didOpen.
	if env.ID == nil {
		n, err := jsonrpc2.NewNotification(method, nil)
		if err != nil {
			return nil, nil, rpcError(jsonrpc2.InvalidRequest, "%v", err)
		}
		s.stashParams(n, env.Params)
		return n, nil, nil
	}
	kind, id := classifyID(env.ID)
	switch kind {
	case idInvalid:
		return nil, nil, rpcError(jsonrpc2.InvalidRequest, "id must be a string, a number or null")
	case idRemap:
		id = s.ids.remap(env.ID)
	}
	call, err := jsonrpc2.NewCall(id, method, nil)
	if err != nil {
		s.ids.release(id)
		return nil, echoID, rpcError(jsonrpc2.InvalidRequest, "%v", err)
	}
	s.stashParams(call, env.Params)
	return call, nil, nil
}

func (s *wireStream) stashParams(req jsonrpc2.Request, params json.RawMessage) {
	if len(params) == 0 {
		return // absent: the message's own null
	}
	s.paramsMu.Lock()
	s.params[req] = params
	s.paramsMu.Unlock()
}

// takeParams returns the raw params of a request that Read returned.
func (s *wireStream) takeParams(req jsonrpc2.Request) json.RawMessage {
	s.paramsMu.Lock()
	defer s.paramsMu.Unlock()
	params, ok := s.params[req]
	if !ok {
		return req.Params()
	}
	delete(s.params, req)
	return params
}

// decodeResponse handles the client's answer to one of our calls. Our ids
// are small positive numbers, so anything else cannot match a pending call.
func (s *wireStream) decodeResponse(env envelope) jsonrpc2.Message {
	kind, id := classifyID(env.ID)
	if env.ID == nil || kind != idNative {
		s.log.Warn("response with an id we never sent dropped", zap.ByteString("id", env.ID))
		return nil
	}
	var replyErr error
	if !isAbsent(env.Error) {
		var e jsonrpc2.Error
		if err := json.Unmarshal(env.Error, &e); err != nil {
			e = jsonrpc2.Error{Code: jsonrpc2.InternalError, Message: fmt.Sprintf("malformed error response: %v", err)}
		}
		replyErr = &e
	}
	var result any
	if len(env.Result) > 0 {
		result = env.Result
	}
	resp, err := jsonrpc2.NewResponse(id, result, replyErr)
	if err != nil {
		s.log.Warn("response dropped", zap.Error(err))
		return nil
	}
	return resp
}

func isAbsent(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// reject answers a message that never reached the handler. id nil means
// null, as JSON-RPC asks when the id could not be read.
func (s *wireStream) reject(id json.RawMessage, rpcErr *jsonrpc2.Error) {
	if id == nil {
		id = jsonNull
	}
	body, err := json.Marshal(wireResponse{Version: jsonrpc2.Version, ID: id, Error: rpcErr})
	if err == nil {
		_, err = s.writeBody(body)
	}
	if err != nil {
		s.log.Debug("rejection not sent", zap.Error(err))
	}
}

// Write implements jsonrpc2.Stream.
func (s *wireStream) Write(_ context.Context, msg jsonrpc2.Message) (int64, error) {
	var body []byte
	var err error
	if resp, ok := msg.(*jsonrpc2.Response); ok {
		w := wireResponse{Version: jsonrpc2.Version, ID: s.ids.release(resp.ID())}
		if resp.Err() != nil {
			w.Error = wireError(resp.Err())
		} else if w.Result = resp.Result(); len(w.Result) == 0 {
			w.Result = jsonNull
		}
		body, err = json.Marshal(w)
	} else {
		body, err = json.Marshal(msg)
	}
	if err != nil {
		return 0, fmt.Errorf("encoding message: %w", err)
	}
	return s.writeBody(body)
}

// writeReply writes the server's response to request id: result, which is
// JSON as json.Marshal writes it, or rpcErr if it is not nil. It is Write
// without the result's re-encoding: the result goes into the envelope as
// it is.
func (s *wireStream) writeReply(id jsonrpc2.ID, result []byte, rpcErr *jsonrpc2.Error) (int64, error) {
	head, err := json.Marshal(wireResponse{Version: jsonrpc2.Version, ID: s.ids.release(id), Error: rpcErr})
	if err != nil {
		return 0, fmt.Errorf("encoding message: %w", err)
	}
	if rpcErr != nil {
		return s.writeBody(head)
	}
	// head is {"jsonrpc":"2.0","id":...}: the result is the next field. The
	// result is written as it is, not copied into one body with the
	// envelope: a view's text can be tens of megabytes.
	const resultKey = `,"result":`
	return s.writeParts(append(head[:len(head)-1:len(head)-1], resultKey...), result, []byte("}"))
}

// writeNotification writes a notification whose params are JSON as
// json.Marshal writes it, as they are: jsonrpc2's Notify would validate and
// re-escape them twice more, which for a thousand diagnostics costs more
// than computing them.
func (s *wireStream) writeNotification(method string, params []byte) (int64, error) {
	head, err := json.Marshal(wireNotification{Version: jsonrpc2.Version, Method: method})
	if err != nil {
		return 0, fmt.Errorf("encoding message: %w", err)
	}
	// head is {"jsonrpc":"2.0","method":...}: the params are the next field.
	const paramsKey = `,"params":`
	body := make([]byte, 0, len(head)+len(paramsKey)+len(params)+1)
	body = append(body, head[:len(head)-1]...)
	body = append(body, paramsKey...)
	body = append(body, params...)
	body = append(body, '}')
	return s.writeBody(body)
}

// wireNotification is the envelope of writeNotification.
type wireNotification struct {
	Version string `json:"jsonrpc"`
	Method  string `json:"method"`
}

// writeParts writes one message whose body is the parts in a row.
func (s *wireStream) writeParts(parts ...[]byte) (int64, error) {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if s.trace != nil {
		s.trace.sent(bytes.Join(parts, nil))
	}
	header := "Content-Length: " + strconv.Itoa(n) + "\r\n\r\n"
	written, err := io.WriteString(s.rwc, header)
	total := int64(written)
	for _, p := range parts {
		if err != nil {
			break
		}
		var k int
		k, err = s.rwc.Write(p)
		total += int64(k)
	}
	return total, err
}

func (s *wireStream) writeBody(body []byte) (int64, error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.trace.sent(body)
	return writeFrame(s.rwc, body)
}

// Close implements jsonrpc2.Stream.
func (s *wireStream) Close() error { return s.rwc.Close() }

// requestKey is the key of a request id as delivered by Read.
func (s *wireStream) requestKey(id jsonrpc2.ID) requestKey { return s.ids.key(id) }
