package lsp

import (
	"errors"

	"github.com/rlog-ls/rlog-ls/internal/jsonstr"
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

// unquoteJSON decodes a JSON string literal, quotes included, keeping
// invalid UTF-8 bytes as they are.
func unquoteJSON(b []byte) ([]byte, error) {
	out, ok := jsonstr.Unquote(make([]byte, 0, len(b)), b, jsonstr.Keep)
	if !ok {
		return nil, errBadJSONString
	}
	return out, nil
}
