package jsonw

import (
	"bufio"
	"bytes"
	"io"
)

// Indenter writes compact JSON written to it as json.Indent(dst, src, "",
// "  ") would, as it arrives: a document written piece by piece (its head,
// then one step at a time) comes out indented without ever being whole in
// memory. Empty objects and lists stay {} and []. Input must be compact
// JSON (no white space outside strings); it may be cut anywhere.
type Indenter struct {
	w      *bufio.Writer
	depth  int
	inStr  bool
	escape bool
	// open is set after { or [: its line break waits for the next byte,
	// which may close it at once.
	open bool
}

// NewIndenter returns an Indenter writing to w. Call Flush at the end.
func NewIndenter(w io.Writer) *Indenter {
	return &Indenter{w: bufio.NewWriterSize(w, 64<<10)}
}

// newlineIndent is a line break and the indentation of the first levels,
// which newline writes a prefix of in one call.
const newlineIndent = "\n                                                                " +
	"                                                                "

func (x *Indenter) newline() {
	if n := 1 + 2*x.depth; n <= len(newlineIndent) {
		x.w.WriteString(newlineIndent[:n])
		return
	}
	x.w.WriteByte('\n')
	for range x.depth {
		x.w.WriteString("  ")
	}
}

// Write takes the next piece of the document.
func (x *Indenter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if x.inStr {
			if x.escape {
				x.escape = false
				x.w.WriteByte(p[0])
				p = p[1:]
				continue
			}
			i := quoteOrBackslash(p)
			if i < 0 {
				x.w.Write(p)
				break
			}
			x.w.Write(p[:i+1])
			if p[i] == '\\' {
				x.escape = true
			} else {
				x.inStr = false
			}
			p = p[i+1:]
			continue
		}
		c := p[0]
		p = p[1:]
		if x.open {
			x.open = false
			if c == '}' || c == ']' {
				x.depth--
				x.w.WriteByte(c)
				continue
			}
			x.newline()
		}
		switch c {
		case '"':
			x.inStr = true
			x.w.WriteByte(c)
		case '{', '[':
			x.w.WriteByte(c)
			x.depth++
			x.open = true
		case '}', ']':
			x.depth--
			x.newline()
			x.w.WriteByte(c)
		case ',':
			x.w.WriteByte(c)
			x.newline()
		case ':':
			x.w.WriteString(": ")
		case ' ', '\t', '\n', '\r':
		default:
			x.w.WriteByte(c)
		}
	}
	return n, nil
}

// Flush writes what is buffered; the document should be complete.
func (x *Indenter) Flush() error { return x.w.Flush() }

// quoteOrBackslash is the index of the first '"' or '\\' in p, or -1.
func quoteOrBackslash(p []byte) int {
	q := bytes.IndexByte(p, '"')
	if q < 0 {
		q = len(p)
	}
	if b := bytes.IndexByte(p[:q], '\\'); b >= 0 {
		return b
	}
	if q == len(p) {
		return -1
	}
	return q
}
