package grammar

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// ValueKind is the YAML shape of a header value.
type ValueKind uint8

const (
	Null ValueKind = iota // null, ~ or nothing: counts as missing
	Scalar
	Sequence
	Mapping
)

func (k ValueKind) String() string {
	return [...]string{"null", "scalar", "sequence", "mapping"}[k]
}

// HeaderField is one top-level key of the YAML header. Scalars are kept as
// the strings they were written as: "repo_sha: 560549231" is "560549231".
type HeaderField struct {
	Key       string
	KeySpan   Span
	Kind      ValueKind
	Value     string   // the scalar, "" for null and collections
	Tag       string   // the YAML tag the value would resolve to (!!str, !!int, !!bool, ...)
	ValueSpan Span     // for null values, an empty span after the colon
	Items     []string // the scalar items of a sequence
	Line      int      // the key's line in the document
}

// HeaderError is a YAML problem with its place in the document.
type HeaderError struct {
	Span    Span
	Line    int
	Message string
}

// Header is the document's YAML header.
type Header struct {
	Present bool // an opening "---" exists
	Closed  bool // a closing "---" exists
	Start   int  // line of the opening "---"
	End     int  // line of the closing "---", or the last header line when not closed
	Fields  []HeaderField
	Errors  []HeaderError
}

// Field returns the first field named key, or nil.
func (h *Header) Field(key string) *HeaderField {
	for i := range h.Fields {
		if h.Fields[i].Key == key {
			return &h.Fields[i]
		}
	}
	return nil
}

// Get returns a scalar field's value; null and missing fields are absent.
func (h *Header) Get(key string) (string, bool) {
	f := h.Field(key)
	if f == nil || f.Kind != Scalar {
		return "", false
	}
	return f.Value, true
}

func parseHeader(t *Tree) *Header {
	r := t.region
	h := &Header{Start: r.HeaderStart, End: r.HeaderEnd}
	if r.HeaderStart < 0 {
		return h
	}
	h.Present = true
	h.Closed = r.HeaderEnd >= 0
	last := r.BodyStart - 1
	if h.Closed {
		last = r.HeaderEnd - 1
	} else {
		h.End = last
	}
	if last <= r.HeaderStart {
		return h
	}
	first := r.HeaderStart + 1
	src := t.Slice(t.Line(first).Start, t.Line(last).Next)
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		h.Errors = append(h.Errors, yamlError(t, first, last, err))
		return h
	}
	if len(doc.Content) == 0 {
		return h
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		// A node at the very end of the header's text (what follows a
		// document marker) would fall on the line after the header, whose
		// text an edit may change without touching the header: the error
		// stays on the header's last line.
		at := nodeSpan(t, first, last, root).Start
		l := t.Line(min(t.LineAt(at), last))
		h.Errors = append(h.Errors, HeaderError{
			Span:    Span{l.Start, l.TrimEnd},
			Line:    l.Num,
			Message: "the header must be a mapping of `key: value` lines",
		})
		return h
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		f := HeaderField{Key: k.Value}
		f.KeySpan = nodeSpan(t, first, last, k)
		f.Line = t.LineAt(f.KeySpan.Start)
		f.ValueSpan = nodeSpan(t, first, last, v)
		switch v.Kind {
		case yaml.ScalarNode:
			f.Tag = v.ShortTag()
			if f.Tag == "!!null" {
				f.Kind = Null
			} else {
				f.Kind = Scalar
				f.Value = v.Value
			}
		case yaml.SequenceNode:
			f.Kind = Sequence
			f.Tag = "!!seq"
			for _, it := range v.Content {
				f.Items = append(f.Items, it.Value)
			}
		case yaml.MappingNode:
			f.Kind = Mapping
			f.Tag = "!!map"
		case yaml.AliasNode:
			f.Kind = Scalar
			f.Tag = "!!str"
			f.Value = v.Value
		}
		if prev, dup := seen[f.Key]; dup {
			h.Errors = append(h.Errors, HeaderError{
				Span:    f.KeySpan,
				Line:    f.Line,
				Message: fmt.Sprintf("duplicate field `%s` (first defined on line %d)", f.Key, prev+1),
			})
			continue
		}
		seen[f.Key] = f.Line
		h.Fields = append(h.Fields, f)
	}
	return h
}

// nodeSpan turns a node's 1-based line and rune column into a byte span.
// YAML ends lines at CR, LF and CRLF, as editors do, so its lines are
// counted as editor lines from the header's first line.
//
// A node YAML places past the header's last line (the empty value of a
// `? key` on that line, which YAML puts where the next line starts) is
// placed at the end of the last line's text instead: the line after the
// header is the body's, which an edit, or a stream's window, may change
// without touching the header, and the header must not depend on it.
func nodeSpan(t *Tree, first, last int, n *yaml.Node) Span {
	el := t.EditorLineAt(t.Line(first).Start) + n.Line - 1
	if lastEl := t.EditorLineAt(t.Line(last).End); el > lastEl {
		end := t.EditorLineEnd(lastEl)
		return Span{end, end}
	}
	lineStart := t.EditorLineStart(el)
	text := t.Slice(lineStart, t.EditorLineEnd(el))
	start := runeOffset(text, n.Column-1)
	end := start
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" && n.Value == "":
	case n.Kind == yaml.ScalarNode:
		end = scalarEnd(text, start, n)
	default:
		_, end = trimBounds(text)
	}
	return Span{lineStart + start, lineStart + max(end, start)}
}

func runeOffset(text []byte, col int) int {
	off := 0
	for ; col > 0 && off < len(text); col-- {
		_, n := utf8.DecodeRune(text[off:])
		off += n
	}
	return off
}

// scalarEnd finds where a scalar written at text[start:] ends on its line.
func scalarEnd(text []byte, start int, n *yaml.Node) int {
	_, lineEnd := trimBounds(text)
	switch n.Style {
	case yaml.DoubleQuotedStyle:
		for i := start + 1; i < len(text); i++ {
			switch text[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
	case yaml.SingleQuotedStyle:
		for i := start + 1; i < len(text); i++ {
			if text[i] == '\'' {
				if i+1 < len(text) && text[i+1] == '\'' {
					i++
					continue
				}
				return i + 1
			}
		}
	case yaml.LiteralStyle, yaml.FoldedStyle:
		return lineEnd
	default:
		if !strings.Contains(n.Value, "\n") && bytes.HasPrefix(text[start:], []byte(n.Value)) {
			return start + len(n.Value)
		}
	}
	return lineEnd
}

// yamlError places a parser error ("yaml: line N: message") on its line,
// counting lines as YAML does (editor lines), within the header.
func yamlError(t *Tree, first, last int, err error) HeaderError {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := first
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if i := strings.IndexByte(rest, ':'); i > 0 {
			if n, perr := strconv.Atoi(rest[:i]); perr == nil {
				el := t.EditorLineAt(t.Line(first).Start) + n - 1
				line = min(max(t.LineAt(t.EditorLineStart(el)), first), last)
				msg = strings.TrimSpace(rest[i+1:])
			}
		}
	}
	l := t.Line(line)
	s, e := trimBounds(t.Text(l))
	return HeaderError{Span: Span{l.Start + s, l.Start + e}, Line: l.Num, Message: msg}
}
