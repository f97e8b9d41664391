package lsp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The base protocol frames each message as
//
//	Content-Length: <n>\r\n
//	[other headers]\r\n
//	\r\n
//	<n bytes of JSON>
//
// frameReader reads such frames and, unlike jsonrpc2 v0.10.0's stream, treats
// a broken header as the client's mistake rather than the end of the
// connection: it reports a badFrameError and skips ahead to the next
// "Content-Length:" so that the following messages are still served.

const (
	frameBufferSize = 64 << 10 // also the longest header line accepted
	// bodyPrealloc is the largest body allocated in one piece before any of
	// it arrives; longer bodies grow as they are read, so a lying header
	// cannot make us allocate memory the client never sends.
	bodyPrealloc = 64 << 20
)

var contentLengthHeader = []byte("Content-Length:")

// badFrameError is a frame that could not be read. The reader has already
// resynchronised; the caller replies ParseError and reads on.
type badFrameError struct{ reason string }

func (e *badFrameError) Error() string { return "bad frame: " + e.reason }

type frameReader struct {
	in *bufio.Reader
}

func newFrameReader(r io.Reader) *frameReader {
	return &frameReader{in: bufio.NewReaderSize(r, frameBufferSize)}
}

// next returns the body of the next frame. An error is either a
// *badFrameError (read on) or the transport's (the client has gone).
func (r *frameReader) next() ([]byte, error) {
	length := int64(-1)
	headerLines := 0
	for {
		line, err := r.in.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, r.resync("header line too long")
		}
		if err != nil {
			return nil, err
		}
		text := strings.TrimSpace(string(line))
		if text == "" {
			if headerLines == 0 {
				continue // stray blank line between frames
			}
			break
		}
		headerLines++
		if i := strings.Index(text, string(contentLengthHeader)); i > 0 {
			text = text[i:] // junk glued to the front of a header line
		}
		name, value, ok := strings.Cut(text, ":")
		if !ok {
			return nil, r.resync(fmt.Sprintf("malformed header line %q", truncate(text, 80)))
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, perr := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if perr != nil || n < 0 {
				return nil, r.resync(fmt.Sprintf("invalid Content-Length %q", truncate(value, 40)))
			}
			length = n
		}
		// Other headers (Content-Type) carry nothing we need.
	}
	if length < 0 {
		return nil, r.resync("missing Content-Length")
	}
	return r.body(length)
}

func (r *frameReader) body(n int64) ([]byte, error) {
	if n <= bodyPrealloc {
		b := make([]byte, n)
		if _, err := io.ReadFull(r.in, b); err != nil {
			return nil, err
		}
		return b, nil
	}
	var buf bytes.Buffer
	buf.Grow(bodyPrealloc)
	if _, err := io.CopyN(&buf, r.in, n); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// resync skips input up to the next "Content-Length:" and returns a
// *badFrameError, or the transport error that ended the search.
func (r *frameReader) resync(reason string) error {
	keep := len(contentLengthHeader) - 1 // a tail that may begin the header
	for {
		if _, err := r.in.Peek(1); err != nil {
			return err
		}
		buf, _ := r.in.Peek(r.in.Buffered())
		if i := bytes.Index(buf, contentLengthHeader); i >= 0 {
			_, _ = r.in.Discard(i)
			return &badFrameError{reason: reason}
		}
		if len(buf) > keep {
			_, _ = r.in.Discard(len(buf) - keep)
			continue
		}
		// Too little buffered to decide: wait for one more byte.
		if _, err := r.in.Peek(len(buf) + 1); err != nil {
			return err
		}
	}
}

// writeFrame writes one message body with its header.
func writeFrame(w io.Writer, body []byte) (int64, error) {
	header := "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
	n, err := io.WriteString(w, header)
	total := int64(n)
	if err != nil {
		return total, err
	}
	n, err = w.Write(body)
	return total + int64(n), err
}
