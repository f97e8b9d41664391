package lsptest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	segjson "github.com/segmentio/encoding/json"
	"go.lsp.dev/jsonrpc2"
)

// WaitLimit guards every wait of the harness: a message that never comes
// fails the test after this long instead of hanging it. It is not a timing
// assertion; nothing here expects anything to be fast. Inside a
// testing/synctest bubble the clock is fake, so it costs nothing there.
var WaitLimit = 30 * time.Second

// Frame is one message the server sent, as it crossed the wire, with its
// envelope decoded for matching. The harness decodes it with encoding/json,
// not with the server's codec, so the two can disagree and a test see it.
type Frame struct {
	Body   json.RawMessage // the exact JSON the server sent
	Method string          // "" for a response
	ID     json.RawMessage // as written; nil for a notification; `null` for id null
	Params json.RawMessage
	Result json.RawMessage
	Error  *WireError

	idKey     string     // canonical ID, for matching
	published *Published // decoded once, for publishDiagnostics
}

// WireError is an error response's error object.
type WireError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// IsResponse reports whether f answers a request.
func (f Frame) IsResponse() bool { return f.Method == "" }

// IsRequest reports whether f is a request from the server to the client.
func (f Frame) IsRequest() bool { return f.Method != "" && f.ID != nil }

// parseFrame decodes body, which it keeps: the caller must not reuse it.
func parseFrame(body []byte) Frame {
	f := Frame{Body: body}
	if env, ok := decodeEnvelope(body); ok {
		f.Method, f.ID, f.Params, f.Result, f.Error = env.Method, env.ID, env.Params, env.Result, env.Error
	}
	if f.ID != nil {
		f.idKey = string(canonical(f.ID))
	}
	f.published = decodePublished(f)
	return f
}

// envelope is what the harness reads of every message.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *WireError      `json:"error"`
}

// decodeEnvelope is json.Unmarshal(body, &env) in one pass over body
// instead of two: json.Valid checks all of it, then the members of the
// object are only delimited, and the small ones (method, error) decoded.
// A result can be megabytes (a document's outline), and the second pass
// of Unmarshal, which re-scans what it stores in a RawMessage, would be
// most of the time an editor waits for it. Like Unmarshal it matches keys
// without regard to case, and fails on a member of the wrong type.
func decodeEnvelope(body []byte) (env envelope, ok bool) {
	if !json.Valid(body) {
		return envelope{}, false
	}
	i := skipSpace(body, 0)
	if body[i] != '{' {
		return envelope{}, string(body[i:valueEnd(body, i)]) == "null"
	}
	for i = skipSpace(body, i+1); body[i] != '}'; {
		keyEnd := valueEnd(body, i)
		var key string
		if err := json.Unmarshal(body[i:keyEnd], &key); err != nil {
			return envelope{}, false
		}
		i = skipSpace(body, skipSpace(body, keyEnd)+1) // past the colon
		end := valueEnd(body, i)
		value := json.RawMessage(body[i:end:end])
		switch {
		case strings.EqualFold(key, "id"):
			env.ID = value
		case strings.EqualFold(key, "params"):
			env.Params = value
		case strings.EqualFold(key, "result"):
			env.Result = value
		case strings.EqualFold(key, "method"):
			if json.Unmarshal(value, &env.Method) != nil {
				return envelope{}, false
			}
		case strings.EqualFold(key, "error"):
			if json.Unmarshal(value, &env.Error) != nil {
				return envelope{}, false
			}
		}
		if i = skipSpace(body, end); body[i] == ',' {
			i = skipSpace(body, i+1)
		}
	}
	return env, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// valueEnd returns where the JSON value at b[i] ends; b is valid JSON.
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch b[i] {
			case '"':
				i = stringEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	default: // a number, true, false or null
		for i < len(b) && !strings.ContainsRune(",}] \t\n\r", rune(b[i])) {
			i++
		}
		return i
	}
}

// stringEnd returns where the JSON string at b[i] ends.
func stringEnd(b []byte, i int) int {
	for i++; ; i++ {
		i += bytes.IndexByte(b[i:], '"')
		backslashes := 0
		for b[i-1-backslashes] == '\\' {
			backslashes++
		}
		if backslashes%2 == 0 {
			return i + 1
		}
	}
}

// frameLog keeps every frame the server sent, in order, and wakes waiters.
type frameLog struct {
	mu      sync.Mutex
	frames  []Frame
	changed chan struct{} // closed and replaced on every change
	ended   bool          // the server's side of the stream is closed
}

func newFrameLog() *frameLog { return &frameLog{changed: make(chan struct{})} }

func (l *frameLog) add(f Frame) {
	l.mu.Lock()
	l.frames = append(l.frames, f)
	close(l.changed)
	l.changed = make(chan struct{})
	l.mu.Unlock()
}

func (l *frameLog) end() {
	l.mu.Lock()
	if !l.ended {
		l.ended = true
		close(l.changed)
		l.changed = make(chan struct{})
	}
	l.mu.Unlock()
}

func (l *frameLog) snapshot() []Frame {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Frame(nil), l.frames...)
}

// forget drops the frames received so far.
func (l *frameLog) forget() {
	l.mu.Lock()
	l.frames = nil
	l.mu.Unlock()
}

// wait returns the first frame that matches, waiting for it if needed.
func (l *frameLog) wait(t testing.TB, what string, match func(Frame) bool) Frame {
	t.Helper()
	limit := time.NewTimer(WaitLimit)
	defer limit.Stop()
	for seen := 0; ; {
		l.mu.Lock()
		frames, changed, ended := l.frames, l.changed, l.ended
		l.mu.Unlock()
		for ; seen < len(frames); seen++ {
			if match(frames[seen]) {
				return frames[seen]
			}
		}
		if ended {
			t.Fatalf("waiting for %s: the server closed the stream", what)
		}
		select {
		case <-changed:
		case <-limit.C:
			t.Fatalf("waiting for %s: nothing after %v", what, WaitLimit)
		}
	}
}

// clientStream is the harness's end of the pipe: it records every frame
// before jsonrpc2 decodes it, so frames jsonrpc2 cannot decode (a response
// with id 3000000000, or null) are still seen by the test.
//
// The answers to Client.Call are not decoded by jsonrpc2 at all: jsonrpc2
// gets them without their result, which Call takes from the frame, read
// once. (jsonrpc2 would decode a response twice more, with segmentio's
// streaming decoder: for a 1 MB result, more than the server's whole work.)
type clientStream struct {
	rwc     io.ReadWriteCloser
	in      *bufio.Reader
	log     *frameLog
	writeMu sync.Mutex

	callsMu sync.Mutex
	calls   map[jsonrpc2.ID]*Frame // Client.Call's requests, and their answers once in
}

func newClientStream(rwc io.ReadWriteCloser, log *frameLog) *clientStream {
	return &clientStream{rwc: rwc, in: bufio.NewReader(rwc), log: log, calls: map[jsonrpc2.ID]*Frame{}}
}

func (s *clientStream) Read(context.Context) (jsonrpc2.Message, int64, error) {
	for {
		body, err := readFrame(s.in)
		if err != nil {
			s.log.end()
			return nil, 0, err
		}
		f := parseFrame(body)
		s.log.add(f)
		if msg := s.answer(f); msg != nil {
			return msg, int64(len(body)), nil
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err != nil {
			continue // only the frame log can hold it
		}
		return msg, int64(len(body)), nil
	}
}

// callKey marks the context of Client.Call's requests.
type callKey struct{}

// answer returns, for a response to one of Client.Call's requests, the
// response jsonrpc2 gets: without the result, which waits for Call.
func (s *clientStream) answer(f Frame) jsonrpc2.Message {
	if !f.IsResponse() || f.ID == nil {
		return nil
	}
	n, err := strconv.ParseInt(string(f.ID), 10, 32)
	if err != nil {
		return nil
	}
	id := jsonrpc2.NewNumberID(int32(n))
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	if f0, ok := s.calls[id]; !ok || f0 != nil {
		return nil
	}
	s.calls[id] = &f
	var replyErr error
	if f.Error != nil {
		e := &jsonrpc2.Error{Code: jsonrpc2.Code(f.Error.Code), Message: f.Error.Message}
		if f.Error.Data != nil {
			data := segjson.RawMessage(f.Error.Data)
			e.Data = &data
		}
		replyErr = e
	}
	resp, err := jsonrpc2.NewResponse(id, nil, replyErr)
	if err != nil {
		return nil
	}
	return resp
}

// takeAnswer forgets Client.Call's request id and returns its answer, if
// it came.
func (s *clientStream) takeAnswer(id jsonrpc2.ID) *Frame {
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	f := s.calls[id]
	delete(s.calls, id)
	return f
}

func (s *clientStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if call, ok := msg.(*jsonrpc2.Call); ok && ctx.Value(callKey{}) != nil {
		s.callsMu.Lock()
		s.calls[call.ID()] = nil
		s.callsMu.Unlock()
	}
	body, err := json.Marshal(msg)
	if err != nil {
		return 0, err
	}
	return s.writeRaw(frame(body))
}

func (s *clientStream) writeRaw(b []byte) (int64, error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	n, err := s.rwc.Write(b)
	return int64(n), err
}

func (s *clientStream) Close() error { return s.rwc.Close() }

// frame puts the Content-Length header before body.
func frame(body []byte) []byte {
	return append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)
}

// readFrame reads one frame of a well-behaved sender (the server).
func readFrame(in *bufio.Reader) ([]byte, error) {
	header, err := textproto.NewReader(in).ReadMIMEHeader()
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(header.Get("Content-Length"))
	if err != nil {
		return nil, fmt.Errorf("bad Content-Length from the server: %w", err)
	}
	body := make([]byte, n)
	_, err = io.ReadFull(in, body)
	return body, err
}

// hasID reports whether f's id is the JSON value whose canonical text is key.
func (f Frame) hasID(key string) bool { return f.ID != nil && f.idKey == key }
