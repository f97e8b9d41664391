package jsonw

import (
	"encoding/binary"
	"math/bits"

	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// newlineIndent is a line break and the indentation of the first levels,
// which appendNewline appends a prefix of in one call.
const newlineIndent = "\n                                                                " +
	"                                                                "

// appendNewline appends a line break and the indentation of depth (none
// below 0, which only an unbalanced raw value reaches).
func appendNewline(buf []byte, depth int) []byte {
	if n := 1 + 2*depth; uint(n) <= uint(len(newlineIndent)) {
		return append(buf, newlineIndent[:n]...)
	}
	return appendDeepNewline(buf, depth)
}

// newlineWord is a line break and seven spaces, the first word putNewline
// stores.
const newlineWord = 0x2020202020202000 | '\n'

// putNewline appends a line break and the indentation of depth (0 or
// more) as appendNewline does, stored a word at a time (the first a line
// break and seven spaces, the others spaces) into buf's free space, which
// must hold 2*depth+8 bytes: the last word may store spaces past what is
// appended, where nothing was yet.
func putNewline(buf []byte, depth int) []byte {
	l, n := len(buf), 1+2*depth
	w := buf[l : l+n : cap(buf)]
	binary.LittleEndian.PutUint64(w[:8], newlineWord)
	for i := 8; i < n; i += 8 {
		binary.LittleEndian.PutUint64(w[i:i+8], spaces)
	}
	return buf[:l+n]
}

func appendDeepNewline(buf []byte, depth int) []byte {
	buf = append(buf, '\n')
	for range depth {
		buf = append(buf, "  "...)
	}
	return buf
}

// AppendIndent appends the JSON value v as it stands in a document that
// json.Indent(dst, src, "", "  ") indents, v being inside depth objects
// and lists: its members and elements on lines of their own, its closing
// bracket on the line of depth. White space between v's tokens is left
// out first, as json.Compact leaves it out; empty objects and lists stay
// {} and []. It is how an indenting Obj writes a value that comes
// encoded already (Raw), the only bytes it reads again.
//
// Inside a string, where most of the bytes are, it copies the run up to
// the next quote or backslash, found eight bytes at a time (stringRun);
// only the bytes between strings are looked at one by one.
func AppendIndent(dst, v []byte, depth int) []byte {
	open := false // after { or [: its line break waits for the next token, which may close it
	for i := 0; i < len(v); {
		c := v[i]
		i++
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			continue
		}
		if open {
			open = false
			if c == '}' || c == ']' {
				depth--
				dst = append(dst, c)
				continue
			}
			dst = appendNewline(dst, depth)
		}
		switch c {
		case '"':
			// The string whole: runs up to each quote or backslash, a
			// backslash with the byte it escapes.
			j := i
			for {
				j += stringRun(v[j:])
				if j >= len(v) {
					break
				}
				if v[j] == '"' {
					j++
					break
				}
				j = min(j+2, len(v))
			}
			dst = append(dst, v[i-1:j]...)
			i = j
		case '{', '[':
			dst = append(dst, c)
			depth++
			open = true
		case '}', ']':
			depth--
			dst = append(appendNewline(dst, depth), c)
		case ',':
			dst = appendNewline(append(dst, ','), depth)
		case ':':
			dst = append(dst, ':', ' ')
		default:
			// A number or a literal: copied up to its end.
			j := i
			for j < len(v) && inLiteral[v[j]] {
				j++
			}
			dst = append(dst, v[i-1:j]...)
			i = j
		}
	}
	return dst
}

// inLiteral holds the bytes that go on a number or a literal (true,
// false, null): all but structure, quotes and white space.
var inLiteral = func() (t [256]bool) {
	for c := range t {
		t[c] = true
	}
	for _, c := range []byte("{}[],:\" \t\n\r") {
		t[c] = false
	}
	return t
}()

// stringRun is the index of the first '"' or '\\' in p (the end of a run
// of a string's bytes), or len(p). It tests eight bytes at a time with the
// JSON scanner's jsonscan.NotPlain8, whose marks also include the control
// bytes, which valid JSON has only in invalid strings: those are passed
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
