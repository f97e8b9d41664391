package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strconv"
	"testing"

	"go.uber.org/zap"
)

// Seeds for the wire fuzzers: a session's worth of well-formed frames, and
// the broken shapes the stream tests use.
var wireSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"capabilities":{"general":{"positionEncodings":["utf-8"]}}}}`,
	`{"jsonrpc":"2.0","method":"initialized","params":{}}`,
	`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"untitled:a","languageId":"rlog","version":1,"text":"TODO é😀\r\nx\ry"}}}`,
	`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"untitled:a","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":5},"end":{"line":9,"character":0}},"text":"FIXME"},{"text":"whole"}]}}`,
	`{"jsonrpc":"2.0","id":3000000000,"method":"toy/roundTrip","params":{"textDocument":{"uri":"untitled:a"},"position":{"line":0,"character":4294967295}}}`,
	`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":3000000000}}`,
	`{"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"untitled:a"}}}`,
	`{"jsonrpc":"2.0","id":null,"method":"shutdown"}`,
	`{"jsonrpc":"2.0","method":"exit"}`,
	`{"jsonrpc":"1.0","id":[1],"method":7}`,
	`[{"jsonrpc":"2.0"}]`,
	`{"jsonrpc":"2.0","id":5,"result":{"applied":true}}`,
}

func framed(body string) []byte {
	return []byte("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
}

// Reading frames from any bytes ends (every call consumes input) and
// never panics.
func FuzzFrameReader(f *testing.F) {
	for _, s := range wireSeeds {
		f.Add(framed(s))
	}
	f.Add([]byte("Content-Length: x\r\n\r\nContent-Length: 2\r\n\r\n{}"))
	f.Add([]byte("junkContent-Length: 2\r\n\r\n{}Content-Lengt"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := newFrameReader(bytes.NewReader(data))
		for range len(data) + 1 {
			_, err := r.next()
			var bad *badFrameError
			if err != nil && !errors.As(err, &bad) {
				return
			}
		}
		t.Fatalf("no end after %d frames of %d bytes", len(data)+1, len(data))
	})
}

// Decoding any frame body gives a message or a rejection that is valid
// JSON, and never panics.
func FuzzDecodeMessage(f *testing.F) {
	for _, s := range wireSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		s := newWireStream(nil, zap.NewNop(), nil)
		msg, id, rejection := s.decode(body)
		if rejection != nil {
			b, err := json.Marshal(wireResponse{Version: "2.0", ID: orNull(id), Error: rejection})
			if err != nil || !json.Valid(b) {
				t.Fatalf("rejection %s does not encode: %v", b, err)
			}
			return
		}
		if msg != nil {
			if _, err := json.Marshal(msg); err != nil {
				t.Fatalf("message does not re-encode: %v", err)
			}
		}
	})
}

func orNull(id json.RawMessage) json.RawMessage {
	if id == nil {
		return jsonNull
	}
	return id
}

// A whole server fed any bytes keeps answering in well-formed frames and
// returns when its input ends.
func FuzzServer(f *testing.F) {
	var session []byte
	for _, s := range wireSeeds {
		session = append(session, framed(s)...)
	}
	f.Add(session)
	f.Add(framed(wireSeeds[0]))
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := Options[*plainText]{Features: toyFeatures(), Logger: zap.NewNop()}
		serverEnd, clientEnd := net.Pipe()
		done := make(chan struct{})
		go func() {
			Serve(context.Background(), serverEnd, opts)
			_ = serverEnd.Close()
			close(done)
		}()
		replies := make(chan error, 1)
		go func() { replies <- readAllFrames(clientEnd) }()
		_, _ = clientEnd.Write(data)
		_ = clientEnd.Close() // the server must now return
		<-done
		if err := <-replies; err != nil {
			t.Fatal(err)
		}
	})
}

// readAllFrames reads the server's output until it ends and checks that
// each frame is one JSON value.
func readAllFrames(r io.Reader) error {
	fr := newFrameReader(r)
	for {
		body, err := fr.next()
		if err != nil {
			var bad *badFrameError
			if errors.As(err, &bad) {
				return err
			}
			return nil
		}
		if !json.Valid(body) {
			return errors.New("server sent invalid JSON: " + string(body))
		}
	}
}
