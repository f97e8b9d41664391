package jsonl

import (
	"bytes"
	"errors"
	"io"
	"os"
)

// Head calls fn with each of the first n lines of the file at path, in
// order, until fn returns false: what a file says of itself in its first
// records, read without reading the rest.
func Head(path string, n int, fn func(line []byte) bool) error {
	seen := 0
	return scan(path, func(line []byte) bool {
		seen++
		return fn(line) && seen < n
	}, func() bool { seen++; return seen < n })
}

// Grep calls fn with each line of the file at path that holds needle, in
// order, until fn returns false. The other lines are only searched, not
// parsed, and a line is held only while it is read.
func Grep(path string, needle []byte, fn func(line []byte) bool) error {
	return scan(path, func(line []byte) bool {
		return !bytes.Contains(line, needle) || fn(line)
	}, func() bool { return true })
}

// scan reads the file at path line by line while line returns true; a
// line over the limit is passed over while tooLong returns true.
func scan(path string, line func([]byte) bool, tooLong func() bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := NewReader(f)
	for {
		b, _, err := r.Next()
		switch {
		case err == nil:
			if !line(b) {
				return nil
			}
		case errors.Is(err, ErrLineTooLong):
			if !tooLong() {
				return nil
			}
		case err == io.EOF:
			return nil
		default:
			return err
		}
	}
}
