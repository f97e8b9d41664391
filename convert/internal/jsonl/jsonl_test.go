package jsonl

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

type line struct {
	text    string
	number  int
	tooLong bool
}

func readAll(t *testing.T, r *Reader) []line {
	t.Helper()
	var out []line
	for {
		l, n, err := r.Next()
		if err == io.EOF {
			return out
		}
		if errors.Is(err, ErrLineTooLong) {
			out = append(out, line{number: n, tooLong: true})
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, line{text: string(l), number: n})
	}
}

// Lines longer than the read buffer come back whole, with the right numbers
// for the lines around them.
func TestLinesLongerThanTheBuffer(t *testing.T) {
	long := strings.Repeat("x", 3*bufferSize+17)
	in := "\xef\xbb\xbf{\"a\":1}\r\n\n  \n" + long + "\n" + long + "\r\nlast"
	got := readAll(t, NewReader(strings.NewReader(in)))
	want := []line{{text: `{"a":1}`, number: 1}, {text: long, number: 4}, {text: long, number: 5}, {text: "last", number: 6}}
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: got %q (%d), want %q (%d)", i, trim(got[i].text), got[i].number, trim(want[i].text), want[i].number)
		}
	}
}

// A line over the limit is reported and skipped, and reading goes on.
func TestLineOverTheLimit(t *testing.T) {
	r := NewReader(bytes.NewReader([]byte("a\n" + strings.Repeat("y", 2*bufferSize) + "\nb\n" + strings.Repeat("z", 2*bufferSize))))
	r.SetMaxLine(bufferSize)
	got := readAll(t, r)
	want := []line{{text: "a", number: 1}, {number: 2, tooLong: true}, {text: "b", number: 3}, {number: 4, tooLong: true}}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

func trim(s string) string {
	if len(s) > 20 {
		return s[:20] + "..."
	}
	return s
}
