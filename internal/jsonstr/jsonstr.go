// Package jsonstr decodes JSON string literals quickly: the runs between
// escapes are copied whole (bytes.IndexByte and utf8.Valid are vectorized),
// so a string of hundreds of megabytes (a document's text in didOpen, a
// tool output in a transcript) decodes at memory speed.
package jsonstr

import (
	"bytes"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// Invalid says what happens to bytes that are not UTF-8.
type Invalid bool

const (
	// Replace writes U+FFFD for each invalid byte, as encoding/json does.
	Replace Invalid = true
	// Keep copies invalid bytes as they are, so a document keeps its exact
	// bytes and editors count each invalid byte as one character.
	Keep Invalid = false
)

// Unquote decodes a JSON string literal, quotes included, appending to dst.
// Escaped lone surrogates become U+FFFD, as in encoding/json. ok is false
// when lit is not a well-formed string literal.
func Unquote(dst, lit []byte, invalid Invalid) (out []byte, ok bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return dst, false
	}
	s := lit[1 : len(lit)-1]
	if invalid == Replace && utf8.Valid(s) {
		// Escapes are ASCII, so the runs between them of a valid string are
		// valid too: one pass here instead of one call per run.
		invalid = Keep
	}
	if invalid == Keep {
		return unquoteKeep(dst, s)
	}
	// Invalid UTF-8 to replace: run by run.
	return unquoteRuns(dst, s, invalid)
}

// unquoteRuns is Unquote of the string body s a run between escapes and
// an escape at a time: the plain way, which unquoteKeep must agree with
// (FuzzUnquoteMatchesRuns), and the way invalid UTF-8 is replaced.
func unquoteRuns(dst, s []byte, invalid Invalid) (out []byte, ok bool) {
	out = dst
	for {
		esc := bytes.IndexByte(s, '\\')
		run := s
		if esc >= 0 {
			run = s[:esc]
		}
		out = appendRun(out, run, invalid)
		if esc < 0 {
			return out, true
		}
		s = s[esc:]
		var n int
		if out, n, ok = appendEscape(out, s); !ok {
			return dst, false
		}
		s = s[n:]
	}
}

// unquoteKeep is Unquote of the string body s, its bytes kept as they are.
// The output is never longer than s, so it is made room for once, and the
// common escapes are decoded here rather than in a call: text with an
// escape every few dozen bytes (tool output, code) spends more on the
// calls per escape than on its bytes.
func unquoteKeep(dst, s []byte) (out []byte, ok bool) {
	out = slices.Grow(dst, len(s))
	for {
		esc := bytes.IndexByte(s, '\\')
		if esc < 0 {
			return append(out, s...), true
		}
		out = append(out, s[:esc]...)
		s = s[esc:]
		if len(s) >= 2 {
			switch c := s[1]; c {
			case 'n':
				out = append(out, '\n')
				s = s[2:]
				continue
			case '"', '\\', '/':
				out = append(out, c)
				s = s[2:]
				continue
			case 't':
				out = append(out, '\t')
				s = s[2:]
				continue
			}
		}
		var n int
		if out, n, ok = appendEscape(out, s); !ok {
			return dst, false
		}
		s = s[n:]
	}
}

// appendEscape decodes the escape that starts s (a backslash) and returns
// how many bytes of s it took; ok is false for a malformed escape.
func appendEscape(out, s []byte) (_ []byte, n int, ok bool) {
	if len(s) < 2 {
		return out, 0, false
	}
	n = 2
	switch c := s[1]; c {
	case '"', '\\', '/':
		out = append(out, c)
	case 'b':
		out = append(out, '\b')
	case 'f':
		out = append(out, '\f')
	case 'n':
		out = append(out, '\n')
	case 'r':
		out = append(out, '\r')
	case 't':
		out = append(out, '\t')
	case 'u':
		r, ok := hex4(s[2:])
		if !ok {
			return out, 0, false
		}
		n = 6
		if utf16.IsSurrogate(r) {
			r2, ok2 := rune(-1), false
			if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
				r2, ok2 = hex4(s[8:])
			}
			if pair := utf16.DecodeRune(r, r2); ok2 && pair != utf8.RuneError {
				r, n = pair, 12
			} else {
				r = utf8.RuneError
			}
		}
		out = utf8.AppendRune(out, r)
	default:
		return out, 0, false
	}
	return out, n, true
}

func appendRun(out, b []byte, invalid Invalid) []byte {
	if invalid == Keep || utf8.Valid(b) {
		return append(out, b...)
	}
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			out = append(out, "\uFFFD"...)
		} else {
			out = append(out, b[:size]...)
		}
		b = b[size:]
	}
	return out
}

// hex4 reads the four hex digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		r <<= 4
		switch {
		case '0' <= c && c <= '9':
			r |= rune(c - '0')
		case 'a' <= c && c <= 'f':
			r |= rune(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// Replacements tells what Unquote(dst, lit, Replace) replaces with U+FFFD
// that lit does not hold as such: invalid counts the invalid UTF-8
// sequences of the literal (each as utf8.DecodeRune splits them), and
// surrogates the escapes of a lone UTF-16 surrogate (`\ud800` not followed
// by a low surrogate). Both zero: the decoded string is exactly what lit
// says. lit must be a well-formed string literal.
func Replacements(lit []byte) (invalid, surrogates int) {
	if len(lit) < 2 {
		return 0, 0
	}
	s := lit[1 : len(lit)-1]
	if !utf8.Valid(s) {
		for b := s; len(b) > 0; {
			r, size := utf8.DecodeRune(b)
			if r == utf8.RuneError && size == 1 {
				invalid++
			}
			b = b[size:]
		}
	}
	for {
		esc := bytes.IndexByte(s, '\\')
		if esc < 0 || esc+1 >= len(s) {
			return invalid, surrogates
		}
		s = s[esc:]
		if s[1] != 'u' {
			s = s[2:]
			continue
		}
		r, ok := hex4(s[2:])
		if !ok {
			return invalid, surrogates
		}
		n := 6
		if utf16.IsSurrogate(r) {
			r2, ok2 := rune(-1), false
			if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
				r2, ok2 = hex4(s[8:])
			}
			if ok2 && utf16.DecodeRune(r, r2) != utf8.RuneError {
				n = 12
			} else {
				surrogates++
			}
		}
		s = s[n:]
	}
}
