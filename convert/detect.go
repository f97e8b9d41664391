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

	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

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

// DetectHead is detection's answer for h.
func DetectHead(h *Head) (Format, error) { return detect(h) }

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

// detect is the format of the input h is the head of: the format whose
// probe claims it most strongly; among formats that claim it as strongly,
// the one its name names (AmbiguousError when that does not settle it);
// failing any claim (an empty input too), the format its name names.
func detect(h *Head) (Format, error) {
	best := strongest(h)
	if len(best) > 1 {
		named := slices.DeleteFunc(slices.Clone(best), func(f FormatInfo) bool { return !f.NamedBy(h.Name) })
		if len(named) != 1 {
			return "", &AmbiguousError{Input: inputName(h), Candidates: best}
		}
		best = named
	}
	if len(best) == 1 {
		return best[0].Name, nil
	}
	if f, ok := byName(h.Name); ok {
		return f.Name, nil
	}
	return "", fmt.Errorf("%w: %s", ErrUndetected, describe(h))
}

// strongest lists the formats whose probes claim h most strongly, in table
// order (none for an empty input, or one no probe claims).
func strongest(h *Head) []FormatInfo {
	var best []FormatInfo
	top := model.NoEvidence
	if h.Empty {
		return nil
	}
	for _, f := range formats {
		if f.Detect == nil {
			continue
		}
		switch e := f.Detect(h); {
		case e > top:
			best, top = append(best[:0], f), e
		case e == top && e > model.NoEvidence:
			best = append(best, f)
		}
	}
	return best
}

// AmbiguousError is detection's answer for an input that several formats
// claim as strongly, and whose name does not tell which: a user names the
// format (--from). It is an ErrUndetected.
type AmbiguousError struct {
	Input      string
	Candidates []FormatInfo
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%v: %s could be %s", ErrUndetected, e.Input, claimants(e.Candidates))
}

// claimants lists formats for a message: "a (…), b (…) or c (…)".
func claimants(fs []FormatInfo) string {
	var names []string
	for _, f := range fs {
		names = append(names, fmt.Sprintf("%s (%s)", f.Name, f.Description))
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	last := len(names) - 1
	return strings.Join(names[:last], ", ") + " or " + names[last]
}

func (e *AmbiguousError) Unwrap() error { return ErrUndetected }

// inputName names an input in messages.
func inputName(h *Head) string {
	if h.Name == "" {
		return "the input"
	}
	return h.Name
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
	name := inputName(h)
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
	if h.Empty || fi.Detect == nil {
		return nil
	}
	if slices.ContainsFunc(strongest(h), func(f FormatInfo) bool { return f.Name == from }) {
		return nil // it fits as well as any: --from settles an ambiguous input
	}
	what := inputName(h)
	got, err := detect(h)
	var amb *AmbiguousError
	switch {
	case err == nil && got != from:
		gi, _ := Lookup(got)
		return fmt.Errorf("--from %s does not fit %s, which is %s: %s; use --from %s or leave --from out", from, what, got, gi.Description, got)
	case errors.As(err, &amb):
		return fmt.Errorf("--from %s does not fit %s, which %s claim more strongly; use one of them or leave --from out", from, what, claimants(amb.Candidates))
	case h.Text != nil && fi.JSON || h.Text == nil && !fi.JSON:
		return fmt.Errorf("--from %s does not fit: %s", from, describe(h))
	}
	return nil
}
