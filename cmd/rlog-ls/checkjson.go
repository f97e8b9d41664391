package main

import (
	"io"
	"strconv"
	"unicode/utf8"
)

// writeCheckJSON writes check's findings as `check --format json` does:
// the bytes encoding/json's Encoder writes of the slice with
// SetIndent("", "  ") (the keys in jsonFinding's order, two spaces a
// level, its escapes, a final newline), written here by hand. The encoder
// took about 14,000 instructions a finding (reflection, then indenting
// its compact output again); FuzzCheckJSONMatchesEncodingJSON holds the
// two equal. The output goes out a buffer of about 64 KB at a time.
func writeCheckJSON(w io.Writer, fs []jsonFinding) error {
	if len(fs) == 0 {
		_, err := io.WriteString(w, "[]\n")
		return err
	}
	const flushAt = 64 << 10
	b := make([]byte, 0, flushAt+1<<10)
	b = append(b, '[')
	for i := range fs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCheckJSONFinding(b, &fs[i])
		if len(b) >= flushAt {
			if _, err := w.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	b = append(b, "\n]\n"...)
	_, err := w.Write(b)
	return err
}

// appendCheckJSONFinding appends one element of the array, from the line
// break before its `{` to its `}`.
func appendCheckJSONFinding(b []byte, f *jsonFinding) []byte {
	b = append(b, "\n  {\n    \"file\": "...)
	b = appendJSONString(b, f.File)
	b = append(b, ",\n    \"line\": "...)
	b = strconv.AppendInt(b, int64(f.Line), 10)
	b = append(b, ",\n    \"column\": "...)
	b = strconv.AppendInt(b, int64(f.Column), 10)
	b = append(b, ",\n    \"end_line\": "...)
	b = strconv.AppendInt(b, int64(f.EndLine), 10)
	b = append(b, ",\n    \"end_column\": "...)
	b = strconv.AppendInt(b, int64(f.EndColumn), 10)
	b = append(b, ",\n    \"severity\": "...)
	b = appendJSONString(b, f.Severity)
	b = append(b, ",\n    \"code\": "...)
	b = appendJSONString(b, f.Code)
	b = append(b, ",\n    \"message\": "...)
	b = appendJSONString(b, f.Message)
	return append(b, "\n  }"...)
}

// appendJSONString appends s quoted as encoding/json quotes a string with
// its HTML escapes on (its default): `"` and `\` escaped, \b \f \n \r \t
// by name and the other control characters as \u00XX, `<`, `>` and `&` as
// \u003c, \u003e and \u0026, each byte that is not UTF-8 as \ufffd, and
// U+2028 and U+2029 as \u2028 and \u2029. A run of bytes that need none
// of it is copied whole.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonPlain[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default: // the other control characters, < > &
				b = append(b, '\\', 'u', '0', '0', jsonHex[c>>4], jsonHex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', jsonHex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const jsonHex = "0123456789abcdef"

// jsonPlain says which ASCII bytes encoding/json writes as they are (with
// its HTML escapes on): every byte from space to DEL but `"`, `\`, `<`,
// `>` and `&`.
var jsonPlain = func() (t [utf8.RuneSelf]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()
