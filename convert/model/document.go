package model

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// Document is how a reader of a format that is one JSON document (a
// trajectory, ATIF, mini-prophet) walks it: the root's members one at a
// time, and the one list that holds the session (steps, messages) one
// element at a time, so that a reader holds one step, never the document.
type Document struct {
	// Format names the format in errors.
	Format string
	// List is the root key of the list Elem gets one element of at a
	// time, with its place ($.steps[3]); a document without it is
	// reported.
	List string
	Elem func(i int, b []byte, loc Loc) error
	// Root gets every other root member, its value copied.
	Root func(key string, v json.RawMessage)
	// Skip are root lists passed over one element at a time (validated,
	// not held); Skipped gets how many elements each had.
	Skip    []string
	Skipped func(key string, n int)
	// Index, when set, indexes each element of List as it is validated
	// (jsonscan.Walker.IndexedValue), for Elem to read it with: its
	// ParseRecord (validated) lists its members from the index without
	// passing over it again, and its UTF-8 is checked once, for the
	// report and the reader (Index.InputValidUTF8).
	Index *jsonscan.Index
}

// elemPath is the path of element i of the root's list key, $.key[i]:
// written into a buffer on the stack and made a string once (each element
// has one; concatenated, with the index made a string apart, it cost
// about 600 instructions).
func elemPath(key string, i int) string {
	var buf [64]byte
	b := append(append(append(buf[:0], "$."...), key...), '[')
	return string(append(strconv.AppendInt(b, int64(i), 10), ']'))
}

// ReadTo reads the document, then ends sink with h: the root members
// after the list (a result, the totals) complete the header, so the sink
// gets it only once the whole document is read.
func (d Document) ReadTo(r io.Reader, rep *Report, sink Sink, h *Header) error {
	if err := d.Read(r, rep); err != nil {
		return err
	}
	return sink.End(h)
}

// Read walks the document r holds. Invalid UTF-8 in any value is reported
// where it is. An input that is not one JSON object is an error.
func (d Document) Read(r io.Reader, rep *Report) error {
	w := jsonscan.NewWalker(r, false)
	if w.Kind() != '{' {
		if _, _, err := w.Value(); err != nil {
			return fmt.Errorf("%s: %w", d.Format, err)
		}
		return fmt.Errorf("%s: %w", d.Format, ErrNotObject)
	}
	sawList := false
	err := w.Object(func(k []byte, _ jsonscan.Pos) error {
		key := jsonscan.Key(k)
		switch {
		case key == d.List && w.Kind() == '[':
			sawList = true
			return w.Elems(func(i int, _ jsonscan.Pos) error {
				b, _, err := w.IndexedValue(d.Index)
				if err != nil {
					return err
				}
				loc := Loc{Path: elemPath(key, i)}
				if d.Index == nil || !d.Index.InputValidUTF8() {
					rep.InvalidUTF8(b, loc)
				}
				return d.Elem(i, b, loc)
			})
		case slices.Contains(d.Skip, key) && w.Kind() == '[':
			n := 0
			err := w.Elems(func(int, jsonscan.Pos) error { n++; return nil })
			if d.Skipped != nil {
				d.Skipped(key, n)
			}
			return err
		}
		v, _, err := w.Value()
		if err != nil {
			return err
		}
		rep.InvalidUTF8(v, Loc{Path: "$." + key})
		d.Root(key, jsonscan.Copy(v))
		return nil
	})
	if err == nil {
		err = w.End()
	}
	if err != nil {
		return fmt.Errorf("%s: %w", d.Format, err)
	}
	if !sawList {
		rep.Add(LossMalformed, d.List+" is missing or not a list", Loc{Path: "$." + d.List})
	}
	return nil
}
