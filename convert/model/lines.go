package model

import (
	"io"

	"github.com/rlog-ls/rlog-ls/internal/jsonl"
)

// Lines is how a reader of a JSON Lines format reads its input: each
// non-blank line goes to line with its 1-based number, one at a time (the
// slice is valid during the call); a line over the size limit
// (jsonl.DefaultMaxLine) is reported as malformed at its line and passed
// over. It returns line's first error or the input's.
func Lines(r io.Reader, rep *Report, line func(b []byte, n int) error) error {
	return jsonl.Each(r, line, rep.Malformed)
}
