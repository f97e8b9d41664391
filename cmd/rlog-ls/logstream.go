package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/grammar"
)

// logInput is a log that check and stats read once, from start to end,
// a window at a time (grammar.Stream): their memory does not grow with
// the log but for its call ids. What is known before the first window
// (whether it is text, whether it is JSON) is read from its head.
type logInput struct {
	path string // stdinName for standard input
	br   *bufio.Reader
	// reopen opens the file again (for the stream to read ahead when the
	// log's header is not closed); nil for standard input.
	reopen func() (io.Reader, error)
}

// openLog opens the log at path, or standard input when path is
// stdinName; the caller closes what it returns.
func openLog(path string, open func(string) (io.ReadCloser, error)) (*logInput, io.Closer, error) {
	f, err := open(path)
	if err != nil {
		return nil, nil, err
	}
	in := &logInput{path: path, br: bufio.NewReaderSize(f, 64<<10)}
	if path != stdinName {
		in.reopen = func() (io.Reader, error) { return os.Open(path) }
	}
	return in, f, nil
}

// head is the log's first bytes, as many as CheckBinary looks at.
func (in *logInput) head() ([]byte, error) {
	head, err := in.br.Peek(analysis.BinarySample)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return head, nil
}

// binary is the log's E007 when it is not text.
func (in *logInput) binary(cfg analysis.Config) (analysis.Finding, bool, error) {
	head, err := in.head()
	if err != nil {
		return analysis.Finding{}, false, err
	}
	f, ok := analysis.CheckBinary(head, cfg)
	return f, ok, nil
}

// mayBeJSON reports whether the log might be JSON (its first byte after a
// byte order mark and white space is { or [, or it is all white space as
// far as it was read): then it is read whole, for its format's validator.
func (in *logInput) mayBeJSON() (bool, error) {
	head, err := in.br.Peek(in.br.Size())
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return false, err
	}
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\uFEFF")), " \t\r\n")
	if len(trimmed) == 0 {
		return len(head) == in.br.Size(), nil
	}
	return trimmed[0] == '{' || trimmed[0] == '[', nil
}

// all reads the rest of the log.
func (in *logInput) all() ([]byte, error) { return io.ReadAll(in.br) }

// windowBytes is the size of the windows logs are read in (tests lower
// it); 0 means the grammar's default.
var windowBytes = 0

// windows calls each with the log's windows in order.
func (in *logInput) windows(each func(*grammar.Tree)) error {
	s := grammar.NewStream(in.br, grammar.StreamOptions{Reopen: in.reopen, WindowBytes: windowBytes})
	for {
		w, err := s.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		each(w)
	}
}
