package convert

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/internal/jsonscan"
)

// Head is what detection learns from the start of an input: the first
// JSON object's top-level keys (in order) and short string values, and the
// keys one level down; or, for text, its first bytes. Formats are told
// apart by these (each FormatInfo's Probe), never by reading a whole
// document: the scan stops after the first top-level list, whose first
// element it looks into.
type Head struct {
	// Name is the input's base name in lower case ("" for stdin).
	Name string
	// Empty is set for an input with nothing but white space.
	Empty bool
	// Text is the start of an input that is not JSON (up to 64 KB).
	Text []byte
	// Keys are the top-level keys of the first JSON object, in order, as
	// far as the scan got.
	Keys []string
	// Strings holds the top-level string values (up to 1 KB each).
	Strings map[string]string
	// Inner holds, for a top-level object value, its keys, and for a
	// top-level list, the keys of its first element when it is an object.
	Inner map[string][]string
	// Stopped is why the scan ended before the first object did: a
	// syntax error, or the end of what could be seen (DetectReader sees
	// as far as its buffer). Nil when the object was seen to its end or
	// the scan stopped at its first list on purpose.
	Stopped error
	// JSONArray is set when the input is a JSON array, which no format is.
	JSONArray bool
}

// Has reports whether the first object has any of keys.
func (h *Head) Has(keys ...string) bool {
	for _, k := range keys {
		if slices.Contains(h.Keys, k) {
			return true
		}
	}
	return false
}

// String is the top-level string value of key ("" when absent).
func (h *Head) String(key string) string { return h.Strings[key] }

// InnerHas reports whether the object under key (or the first element of
// the list under key) has inner.
func (h *Head) InnerHas(key, inner string) bool { return slices.Contains(h.Inner[key], inner) }

// IsJSON reports whether the input starts with a JSON value.
func (h *Head) IsJSON() bool { return !h.Empty && h.Text == nil }

// errStop ends the head scan at the first top-level list.
var errStop = errors.New("stop")

const (
	textHead     = 64 << 10 // how much of a text input detection looks at
	maxHeadValue = 1 << 10  // longest top-level string kept in Head.Strings
)

// scanHead reads the head of an input whose first bytes are first (at
// least up to the first non-space byte, or all of it when shorter) and
// whose rest is r (nil when first is all there is).
func scanHead(name string, first []byte, r io.Reader) *Head {
	h := &Head{Name: strings.ToLower(filepath.Base(name))}
	if name == "" || name == "-" {
		h.Name = ""
	}
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(first, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case len(trimmed) == 0:
		h.Empty = true
		return h
	case trimmed[0] == '[':
		h.JSONArray = true
		return h
	case trimmed[0] != '{':
		h.Text = first[:min(len(first), textHead)]
		return h
	}
	var src io.Reader = bytes.NewReader(first)
	if r != nil {
		src = io.MultiReader(src, r)
	}
	w := jsonscan.NewWalker(src, false)
	h.Strings = map[string]string{}
	h.Inner = map[string][]string{}
	err := w.Object(func(k []byte, _ jsonscan.Pos) error {
		key := jsonscan.Key(k)
		h.Keys = append(h.Keys, key)
		switch w.Kind() {
		case '"':
			v, _, err := w.Value()
			if err != nil {
				return err
			}
			if len(v) <= maxHeadValue {
				h.Strings[key], _ = jsonscan.String(v)
			}
			return nil
		case '{':
			return w.Object(func(ik []byte, _ jsonscan.Pos) error {
				h.Inner[key] = append(h.Inner[key], jsonscan.Key(ik))
				return nil
			})
		case '[':
			h.Inner[key] = []string{}
			err := w.Elems(func(i int, _ jsonscan.Pos) error {
				if w.Kind() == '{' {
					err := w.Object(func(ik []byte, _ jsonscan.Pos) error {
						h.Inner[key] = append(h.Inner[key], jsonscan.Key(ik))
						return nil
					})
					if err != nil {
						return err
					}
				}
				return errStop
			})
			if err == nil {
				return nil // an empty list: go on
			}
			return err
		}
		return nil
	})
	if err != nil && err != errStop {
		h.Stopped = err
	}
	return h
}

// ErrUndetected is returned when detection cannot tell the format.
var ErrUndetected = errors.New("cannot detect the input format")

// Detect tells the format of an input from its first bytes (head) and its
// name, which only breaks ties and covers empty files. Prefer DetectFile
// and DetectReader, which read as far as the first record needs.
func Detect(name string, head []byte) (Format, error) {
	return detect(scanHead(name, head, nil))
}

// DetectReader tells the format of the input r reads, without consuming
// it: it looks at what r can buffer (r.Size(); a first record longer than
// that is judged by the keys before the cut, which is where every format
// puts the keys that tell it apart). name is the input's name ("" or "-"
// for stdin).
func DetectReader(name string, r *bufio.Reader) (Format, error) {
	h, err := peekHead(name, r)
	if err != nil {
		return "", err
	}
	return detect(h)
}

// peekHead scans what r can buffer.
func peekHead(name string, r *bufio.Reader) (*Head, error) {
	head, err := r.Peek(r.Size())
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	return scanHead(name, head, nil), nil
}

// DetectFile tells the format of the file at path. It reads the first
// record whatever its length (holding one value of it at a time), and for
// a document as far as its first list.
func DetectFile(path string) (Format, error) {
	h, err := ReadHead(path)
	if err != nil {
		return "", err
	}
	return detect(h)
}

// HeadOf is what detection sees in data, a whole input (name "" for
// stdin).
func HeadOf(name string, data []byte) *Head { return scanHead(name, data, nil) }

// Detect is detection's answer for h.
func (h *Head) Detect() (Format, error) { return detect(h) }

// ReadHead reads the head of the file at path, as DetectFile does.
func ReadHead(path string) (*Head, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.IsDir() {
		return nil, fmt.Errorf("%s is a folder", path)
	}
	first := make([]byte, textHead)
	n, err := io.ReadFull(f, first)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	return scanHead(path, first[:n], f), nil
}

// detect picks the format whose probe accepts h, in table order; failing
// that, the format its name names.
func detect(h *Head) (Format, error) {
	for _, f := range formats {
		if f.Probe != nil && !h.Empty && f.Probe(h) {
			return f.Name, nil
		}
	}
	if f, ok := byName(h.Name); ok {
		return f.Name, nil
	}
	return "", fmt.Errorf("%w: %s", ErrUndetected, describe(h))
}

// byName is the format whose file names include name.
func byName(name string) (FormatInfo, bool) {
	if name == "" {
		return FormatInfo{}, false
	}
	for _, f := range formats {
		if f.NamedBy(name) {
			return f, true
		}
	}
	return FormatInfo{}, false
}

// describe says what an input looks like, for error messages.
func describe(h *Head) string {
	name := h.Name
	if name == "" {
		name = "the input"
	}
	switch {
	case h.Empty:
		return name + " is empty"
	case h.JSONArray:
		return name + " is a JSON list, which no format is"
	case h.Text != nil:
		return name + " does not start with a JSON object or an rlog header"
	case len(h.Keys) == 0 && h.Stopped != nil:
		return name + " is not valid JSON (" + h.Stopped.Error() + ")"
	}
	keys := h.Keys
	more := ""
	if len(keys) > 6 {
		keys, more = keys[:6], ", …"
	}
	return fmt.Sprintf("%s is JSON of no known shape (keys %s%s)", name, strings.Join(keys, ", "), more)
}

// CheckFrom checks that an input fits the format a user named (--from):
// it returns an error naming what the input is when the input is
// recognisably another format, or JSON where text is needed and the other
// way round. Input it cannot tell (an empty file, a first record that is
// not valid JSON) passes: the reader reports what it cannot read.
func CheckFrom(from Format, name string, r *bufio.Reader) error {
	h, err := peekHead(name, r)
	if err != nil {
		return err
	}
	return checkFrom(from, h)
}

// CheckFromFile is CheckFrom for a file.
func CheckFromFile(from Format, path string) error {
	h, err := ReadHead(path)
	if err != nil {
		return err
	}
	return checkFrom(from, h)
}

func checkFrom(from Format, h *Head) error {
	fi, ok := Lookup(from)
	if !ok {
		return fmt.Errorf("%w %q", ErrUnknownFormat, from)
	}
	if h.Empty || fi.Probe == nil || fi.Probe(h) {
		return nil
	}
	what := h.Name
	if what == "" {
		what = "the input"
	}
	if got, err := detect(h); err == nil && got != from {
		gi, _ := Lookup(got)
		return fmt.Errorf("--from %s does not fit %s, which is %s: %s; use --from %s or leave --from out", from, what, got, gi.Description, got)
	}
	if h.Text != nil && fi.JSON || h.Text == nil && !fi.JSON {
		return fmt.Errorf("--from %s does not fit: %s", from, describe(h))
	}
	return nil
}
