package jsonw

import (
	"encoding/binary"
	"io"
	"math/bits"

	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// Indenter writes compact JSON written to it as json.Indent(dst, src, "",
// "  ") would, as it arrives: a document written piece by piece (its head,
// then one step at a time) comes out indented without ever being whole in
// memory. Empty objects and lists stay {} and []. Input must be compact
// JSON (no white space outside strings); it may be cut anywhere.
//
// The output is appended to a buffer of its own and written out 64 KB at
// a time. Inside a string, where most of the bytes are, it copies the run
// up to the next quote or backslash, found eight bytes at a time
// (stringRun); only the bytes between strings are looked at one by one.
type Indenter struct {
	w      io.Writer
	buf    []byte
	err    error
	depth  int
	inStr  bool
	escape bool
	// open is set after { or [: its line break waits for the next byte,
	// which may close it at once.
	open bool
}

// indentBufSize is how much output the Indenter holds before writing it.
const indentBufSize = 64 << 10

// NewIndenter returns an Indenter writing to w. Call Flush at the end.
func NewIndenter(w io.Writer) *Indenter {
	return &Indenter{w: w, buf: make([]byte, 0, indentBufSize+1024)}
}

// newlineIndent is a line break and the indentation of the first levels,
// which newline writes a prefix of in one call.
const newlineIndent = "\n                                                                " +
	"                                                                "

// appendNewline appends a line break and the indentation of depth.
func appendNewline(buf []byte, depth int) []byte {
	if n := 1 + 2*depth; n <= len(newlineIndent) {
		return append(buf, newlineIndent[:n]...)
	}
	return appendDeepNewline(buf, depth)
}

func appendDeepNewline(buf []byte, depth int) []byte {
	buf = append(buf, '\n')
	for range depth {
		buf = append(buf, "  "...)
	}
	return buf
}

// Write takes the next piece of the document. The state lives in locals
// while it runs: the loop is the writers' hottest.
func (x *Indenter) Write(p []byte) (int, error) {
	buf := x.buf
	depth, inStr, escape, open := x.depth, x.inStr, x.escape, x.open
	for i := 0; i < len(p); {
		if len(buf) >= indentBufSize {
			buf = x.spill(buf)
		}
		if inStr {
			if escape {
				escape = false
				buf = append(buf, p[i])
				i++
				continue
			}
			j := i + stringRun(p[i:])
			if j == len(p) {
				buf = x.appendRun(buf, p[i:])
				break
			}
			buf = x.appendRun(buf, p[i:j+1])
			if p[j] == '\\' {
				escape = true
			} else {
				inStr = false
			}
			i = j + 1
			continue
		}
		// Between strings: structure, numbers and literals, up to the
		// next string.
		for i < len(p) {
			if len(buf) >= indentBufSize {
				buf = x.spill(buf)
			}
			c := p[i]
			i++
			if open {
				open = false
				if c == '}' || c == ']' {
					depth--
					buf = append(buf, c)
					continue
				}
				buf = appendNewline(buf, depth)
			}
			switch c {
			case '"':
				// The string's first run is copied at once, and the
				// whole string when it has no escape (most do not).
				j := i + stringRun(p[i:])
				buf = x.appendRun(buf, p[i-1:j])
				i = j
				if j < len(p) && p[j] == '"' {
					buf = append(buf, '"')
					i++
					continue
				}
				inStr = true
			case '{', '[':
				buf = append(buf, c)
				depth++
				open = true
			case '}', ']':
				depth--
				buf = appendNewline(buf, depth)
				buf = append(buf, c)
			case ',':
				buf = append(buf, c)
				buf = appendNewline(buf, depth)
			case ':':
				buf = append(buf, ": "...)
			case ' ', '\t', '\n', '\r':
			default:
				// A number or a literal: copied up to its end.
				j := i
				for j < len(p) && inLiteral[p[j]] {
					j++
				}
				buf = x.appendRun(buf, p[i-1:j])
				i = j
			}
			if inStr {
				break
			}
		}
	}
	x.buf = buf
	x.depth, x.inStr, x.escape, x.open = depth, inStr, escape, open
	return len(p), nil
}

// inLiteral holds the bytes that go on a number or a literal (true,
// false, null) in compact JSON: all but structure, quotes and white space.
var inLiteral = func() (t [256]bool) {
	for c := range t {
		t[c] = true
	}
	for _, c := range []byte("{}[],:\" \t\n\r") {
		t[c] = false
	}
	return t
}()

// appendRun appends a run of input, or writes it out when the buffer
// cannot hold it: the buffer never grows past its capacity.
func (x *Indenter) appendRun(buf, run []byte) []byte {
	if len(buf)+len(run) <= cap(buf) {
		return append(buf, run...)
	}
	buf = x.spill(buf)
	if len(run) > cap(buf)-256 {
		if x.err == nil {
			_, x.err = x.w.Write(run)
		}
		return buf
	}
	return append(buf, run...)
}

// spill writes out what buf holds and returns it emptied; the first write
// error is kept for Flush.
func (x *Indenter) spill(buf []byte) []byte {
	if x.err == nil {
		_, x.err = x.w.Write(buf)
	}
	return buf[:0]
}

// Flush writes what is buffered; the document should be complete.
func (x *Indenter) Flush() error {
	x.buf = x.spill(x.buf)
	return x.err
}

// stringRun is the index of the first '"' or '\\' in p (the end of a run
// of a string's bytes), or len(p). It tests eight bytes at a time with the
// JSON scanner's jsonscan.NotPlain8, whose marks also include the control
// bytes, which compact JSON has only in invalid strings: those are passed
// over one by one.
func stringRun(p []byte) int {
	i := 0
	for i+8 <= len(p) {
		m := jsonscan.NotPlain8(binary.LittleEndian.Uint64(p[i:]))
		if m == 0 {
			i += 8
			continue
		}
		i += bits.TrailingZeros64(m) / 8
		if c := p[i]; c == '"' || c == '\\' {
			return i
		}
		i++
	}
	for ; i < len(p); i++ {
		if c := p[i]; c == '"' || c == '\\' {
			return i
		}
	}
	return i
}
