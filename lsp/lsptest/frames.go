package lsptest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"sync"
	"testing"
	"time"

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

func parseFrame(body []byte) Frame {
	f := Frame{Body: append(json.RawMessage(nil), body...)}
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  *WireError      `json:"error"`
	}
	if json.Unmarshal(body, &env) == nil {
		f.Method, f.ID, f.Params, f.Result, f.Error = env.Method, env.ID, env.Params, env.Result, env.Error
	}
	if f.ID != nil {
		f.idKey = string(canonical(f.ID))
	}
	f.published = decodePublished(f)
	return f
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
type clientStream struct {
	rwc     io.ReadWriteCloser
	in      *bufio.Reader
	log     *frameLog
	writeMu sync.Mutex
}

func newClientStream(rwc io.ReadWriteCloser, log *frameLog) *clientStream {
	return &clientStream{rwc: rwc, in: bufio.NewReader(rwc), log: log}
}

func (s *clientStream) Read(context.Context) (jsonrpc2.Message, int64, error) {
	for {
		body, err := readFrame(s.in)
		if err != nil {
			s.log.end()
			return nil, 0, err
		}
		s.log.add(parseFrame(body))
		msg, err := jsonrpc2.DecodeMessage(body)
		if err != nil {
			continue // only the frame log can hold it
		}
		return msg, int64(len(body)), nil
	}
}

func (s *clientStream) Write(_ context.Context, msg jsonrpc2.Message) (int64, error) {
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
