package jsonl

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
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

// Each hands on the lines Next gives, too long ones to tooLong, and stops
// at line's error or the reader's.
func TestEach(t *testing.T) {
	in := "a\n" + strings.Repeat("y", 2*bufferSize) + "\n\nb\nc\n"
	var got []line
	r := NewReader(strings.NewReader(in))
	r.SetMaxLine(bufferSize)
	stop := errors.New("stop")
	err := r.Each(func(b []byte, n int) error {
		got = append(got, line{text: string(b), number: n})
		if string(b) == "b" {
			return stop
		}
		return nil
	}, func(n int, err error) {
		if !errors.Is(err, ErrLineTooLong) {
			t.Errorf("tooLong(%d, %v)", n, err)
		}
		got = append(got, line{number: n, tooLong: true})
	})
	want := []line{{text: "a", number: 1}, {number: 2, tooLong: true}, {text: "b", number: 4}}
	if err != stop || len(got) != len(want) {
		t.Fatalf("Each = %v, lines %+v", err, got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	failing := io.MultiReader(strings.NewReader("x\n"), iotest.ErrReader(stop))
	if err := Each(failing, func([]byte, int) error { return nil }, func(int, error) {}); err != stop {
		t.Errorf("Each over a failing reader = %v, want its error", err)
	}
}
