// Package jsonl reads JSON Lines input one line at a time, with line
// numbers, a large per-line limit and no whole-file buffering, so a reader
// over a 1 GB file holds one line at a time.
package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxLine is the longest line accepted. Claude Code lines carrying a
// base64 image or a big tool result reach tens of MB; anything past this is
// reported as malformed and skipped, never loaded.
const DefaultMaxLine = 256 << 20

// ErrLineTooLong is reported for a line over the limit.
var ErrLineTooLong = errors.New("line too long")

// Reader yields the non-blank lines of a JSONL stream.
type Reader struct {
	br      *bufio.Reader
	buf     []byte
	line    int
	maxLine int
	err     error
}

// bufferSize is the read buffer. Lines longer than it are assembled in the
// Reader's own line buffer, so it bounds nothing; larger buffers only cost:
// a fresh 1 MB buffer (allocated and cleared per file, and pushing the GC
// to run) took half the time of reading a 40 KB file.
const bufferSize = 64 << 10

// NewReader returns a Reader over r with DefaultMaxLine.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, bufferSize), maxLine: DefaultMaxLine}
}

// SetMaxLine changes the per-line limit.
func (r *Reader) SetMaxLine(n int) { r.maxLine = n }

// Next returns the next non-blank line (without its line ending) and its
// 1-based line number. The slice is only valid until the next call. A line
// over the limit is returned with ErrLineTooLong and an empty slice; the
// caller reports it and continues. At the end it returns io.EOF.
func (r *Reader) Next() (line []byte, number int, err error) {
	for {
		if r.err != nil {
			return nil, r.line, r.err
		}
		l, tooLong, err := r.readLine()
		if err != nil {
			r.err = err
			if len(l) == 0 && !tooLong {
				return nil, r.line, err
			}
		}
		r.line++
		if tooLong {
			return nil, r.line, fmt.Errorf("%w (over %d bytes)", ErrLineTooLong, r.maxLine)
		}
		if r.line == 1 {
			l = bytes.TrimPrefix(l, []byte("\xef\xbb\xbf"))
		}
		l = bytes.TrimRight(l, "\r")
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		return l, r.line, nil
	}
}

// Line returns the number of the last line read.
func (r *Reader) Line() int { return r.line }

// readLine reads through the next '\n'. A line over the limit is drained
// without keeping it.
func (r *Reader) readLine() (line []byte, tooLong bool, err error) {
	s, err := r.br.ReadSlice('\n')
	if err == nil {
		return s[:len(s)-1], false, nil
	}
	if err != bufio.ErrBufferFull {
		if err == io.EOF && len(s) > 0 {
			return s, false, nil
		}
		return s, false, err
	}
	r.buf = append(r.buf[:0], s...)
	for {
		s, err = r.br.ReadSlice('\n')
		if !tooLong {
			if len(r.buf)+len(s) > r.maxLine {
				tooLong = true
				r.buf = r.buf[:0]
			} else {
				r.buf = append(r.buf, s...)
			}
		}
		switch err {
		case nil:
			if tooLong {
				return nil, true, nil
			}
			return r.buf[:len(r.buf)-1], false, nil
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			if tooLong {
				return nil, true, nil
			}
			return r.buf, false, nil
		default:
			return r.buf, tooLong, err
		}
	}
}

// Each is the read loop of every JSON Lines reader and validator: it
// calls line with each non-blank line (without its line ending, the
// first without a byte order mark) and its 1-based number, in order, until
// the input ends (nil), fails, or line returns an error, which Each
// returns. A line over the limit never reaches line: tooLong gets its
// number and an error wrapping ErrLineTooLong, and reading goes on. The
// slice is only valid during the call.
func (r *Reader) Each(line func(b []byte, n int) error, tooLong func(n int, err error)) error {
	for {
		b, n, err := r.Next()
		switch {
		case err == nil:
			if err := line(b, n); err != nil {
				return err
			}
		case err == io.EOF:
			return nil
		case errors.Is(err, ErrLineTooLong):
			tooLong(n, err)
		default:
			return err
		}
	}
}

// Each reads r with a Reader of DefaultMaxLine (see Reader.Each).
func Each(r io.Reader, line func(b []byte, n int) error, tooLong func(n int, err error)) error {
	return NewReader(r).Each(line, tooLong)
}
