package lsp

import (
	"bytes"
	"strconv"

	"github.com/segmentio/encoding/json"
)

// decodeDidOpen decodes didOpen's params without a second pass of the
// codec over the document's text. The envelope's decode (wireStream.decode)
// has already parsed the whole message, params included, so raw is
// well-formed JSON; decoding it again with the codec would check the text
// (hundreds of megabytes) a second time before unquoteJSON copies it.
// Here the params are walked member by member: each value is passed over
// by finding its end (a string's end with bytes.IndexByte), and the text
// is unquoted once. ok is false for anything out of the ordinary (a key
// written with an escape or in another case, a value of another type, a
// version that is not a plain integer): the codec then decodes raw as
// before, so the result is always the codec's. FuzzDecodeDidOpen holds the
// two equal.
func decodeDidOpen(raw []byte) (p didOpenParams, ok bool) {
	ok = members(raw, func(key, value []byte) bool {
		switch {
		case string(key) == "textDocument":
			if len(value) == 0 || value[0] != '{' {
				return false
			}
			return members(value, func(key, value []byte) bool { return p.setItemField(key, value) })
		case bytes.EqualFold(key, []byte("textDocument")):
			return false
		}
		return true
	})
	return p, ok
}

// setItemField sets one member of the text document item, as the codec
// would; false when it is not sure to.
func (p *didOpenParams) setItemField(key, value []byte) bool {
	item := &p.TextDocument
	switch string(key) {
	case "uri":
		return value[0] == '"' && json.Unmarshal(value, &item.URI) == nil
	case "languageId":
		return value[0] == '"' && json.Unmarshal(value, &item.LanguageID) == nil
	case "version":
		v, err := strconv.ParseInt(string(value), 10, 32)
		if err != nil {
			return false
		}
		item.Version = int32(v)
		return true
	case "text":
		if string(value) == "null" {
			item.Text = nil
			return true
		}
		if value[0] != '"' {
			return false
		}
		text, err := unquoteJSON(value)
		if err != nil {
			return false
		}
		item.Text = text
		return true
	}
	for _, name := range []string{"uri", "languageId", "version", "text"} {
		if bytes.EqualFold(key, []byte(name)) {
			return false // the codec matches field names in any case
		}
	}
	return true
}

// members calls fn with each member of the well-formed JSON object b: the
// key without its quotes (false when it holds an escape) and the value
// without surrounding whitespace. It stops with false when fn does, or
// when b is not an object.
func members(b []byte, fn func(key, value []byte) bool) bool {
	i := skipJSONSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipJSONSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for i < len(b) && b[i] == '"' {
		ke := stringEnd(b, i)
		if ke < 0 {
			return false
		}
		key := b[i+1 : ke-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			return false
		}
		i = skipJSONSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		vs := skipJSONSpace(b, i+1)
		ve := valueEnd(b, vs)
		if ve < 0 || !fn(key, b[vs:ve]) {
			return false
		}
		i = skipJSONSpace(b, ve)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case '}':
			return true
		case ',':
			i = skipJSONSpace(b, i+1)
		default:
			return false
		}
	}
	return false
}

// valueEnd returns the end of the JSON value starting at i, or -1. Strings
// are passed over to their closing quote, containers to their closing
// bracket, counting the brackets outside strings.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				e := stringEnd(b, i)
				if e < 0 {
					return -1
				}
				i = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	e := i
	for e < len(b) && !isJSONSpace(b[e]) && b[e] != ',' && b[e] != '}' && b[e] != ']' {
		e++
	}
	if e == i {
		return -1
	}
	return e
}

// stringEnd returns the end (one past the closing quote) of the string
// literal starting at i, or -1. A quote closes the string unless an odd
// number of backslashes comes right before it.
func stringEnd(b []byte, i int) int {
	for j := i + 1; ; {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			return -1
		}
		q += j
		n := 0
		for k := q - 1; k > i && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && isJSONSpace(b[i]) {
		i++
	}
	return i
}
