package lsp

import (
	"bytes"
	"errors"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonString is a JSON string decoded by unquoteJSON instead of the codec.
// Document texts arrive as one JSON string, up to hundreds of megabytes;
// segmentio decodes strings at about 100 MB/s (it checks and coerces UTF-8
// rune by rune), while copying the runs between escapes goes at memory
// speed. Invalid UTF-8 is kept as it is: the Text counts each invalid byte
// as one character, as editors do.
type jsonString string

func (s *jsonString) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*s = ""
		return nil
	}
	out, err := unquoteJSON(b)
	if err != nil {
		return err
	}
	*s = jsonString(out)
	return nil
}

var errBadJSONString = errors.New("malformed JSON string")

// unquoteJSON decodes a JSON string literal, quotes included. Escaped lone
// surrogates become U+FFFD, as in encoding/json.
func unquoteJSON(b []byte) ([]byte, error) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return nil, errBadJSONString
	}
	s := b[1 : len(b)-1]
	out := make([]byte, 0, len(s))
	for {
		i := bytes.IndexByte(s, '\\')
		if i < 0 {
			return append(out, s...), nil
		}
		out = append(out, s[:i]...)
		s = s[i:]
		if len(s) < 2 {
			return nil, errBadJSONString
		}
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
				return nil, errBadJSONString
			}
			s = s[6:]
			if utf16.IsSurrogate(r) {
				if len(s) >= 6 && s[0] == '\\' && s[1] == 'u' {
					if r2, ok := hex4(s[2:]); ok {
						if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
							out = utf8.AppendRune(out, pair)
							s = s[6:]
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		default:
			return nil, errBadJSONString
		}
		s = s[2:]
	}
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
