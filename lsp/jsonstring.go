package lsp

import (
	"errors"

	"github.com/segmentio/encoding/json"

	"github.com/rlog-ls/rlog-ls/internal/jsonstr"
)

// jsonString is a JSON string decoded by unquoteJSON instead of the codec,
// held as bytes: a document's text is not copied again to become a string
// and then bytes.
// Document texts arrive as one JSON string, up to hundreds of megabytes;
// segmentio decodes strings at about 100 MB/s (it checks and coerces UTF-8
// rune by rune), while copying the runs between escapes goes at memory
// speed. Invalid UTF-8 is kept as it is: the Text counts each invalid byte
// as one character, as editors do.
type jsonString []byte

func (s *jsonString) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*s = nil
		return nil
	}
	out, err := unquoteJSON(b)
	if err != nil {
		return err
	}
	*s = out
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

// MarshalJSON writes the text as a JSON string (a []byte would otherwise be
// written in base64).
func (s jsonString) MarshalJSON() ([]byte, error) { return json.Marshal(string(s)) }
