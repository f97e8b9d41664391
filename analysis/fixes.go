package analysis

import (
	"bytes"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// Edit replaces the bytes [Start, End) of a document with NewText. Edits
// of one fix never overlap and are sorted by Start.
type Edit struct {
	Start, End int
	NewText    string
}

// Fix is a quick fix for one finding: a title for the editor's menu and the
// edits that make the finding go away.
type Fix struct {
	Title string
	// Preferred marks the fix an editor may apply without asking (the one
	// obvious repair of the finding).
	Preferred bool
	Edits     []Edit
}

// Fixes returns the quick fixes for a finding of document t. name is the
// document's file name (or any last path segment), used for a missing id.
// Codes without a fix give nil.
func Fixes(t *grammar.Tree, f Finding, name string) []Fix {
	switch f.Code {
	case "W004":
		if edits := RenumberSteps(t); len(edits) > 0 {
			return []Fix{{Title: "Renumber every step= 1..N", Preferred: true, Edits: edits}}
		}
	case "W011":
		if bytes.Equal(t.Slice(f.Span.Start, f.Span.End), []byte("->")) {
			return []Fix{{Title: "Replace `->` with the result arrow `→`", Preferred: true,
				Edits: []Edit{{Start: f.Span.Start, End: f.Span.End, NewText: "→"}}}}
		}
	case "I002":
		return []Fix{{Title: "Add `@end` at the end of the session", Preferred: true, Edits: AddEnd(t)}}
	case "E004":
		for _, key := range RequiredFields {
			if strings.HasPrefix(f.Message, "Missing required header field: "+key) {
				if edits := AddHeaderField(t, key, name); len(edits) > 0 {
					return []Fix{{Title: "Add `" + key + ": " + HeaderPlaceholder(key, name) + "` to the header", Preferred: true, Edits: edits}}
				}
			}
		}
	}
	return nil
}

var stepPattern = regexp.MustCompile(`step=(\d+)`)

// RenumberSteps is the reference `recorder fix --renumber-steps`
// (formats.md §1.9): every `step=(\d+)` on every line, the header included,
// in file order; when they are not already exactly 1..N, the k-th becomes
// `step=k`. It returns no edits when nothing changes.
func RenumberSteps(t *grammar.Tree) []Edit {
	src := t.Bytes()
	matches := stepPattern.FindAllSubmatchIndex(src, -1)
	var edits []Edit
	for k, m := range matches {
		want := strconv.Itoa(k + 1)
		if string(src[m[2]:m[3]]) != want {
			edits = append(edits, Edit{Start: m[2], End: m[3], NewText: want})
		}
	}
	return edits
}

// AddEnd appends an `@end` line to the document (after a line break when
// the last line has none).
func AddEnd(t *grammar.Tree) []Edit {
	n := t.Len()
	last := t.Line(t.LineCount() - 1)
	nl := lineBreak(t)
	text := "@end" + nl
	if last.End > last.Start {
		// The last line has text and no line break after it.
		text = nl + text
	}
	return []Edit{{Start: n, End: n, NewText: text}}
}

// lineBreak is the document's line break: CRLF when its first line ends
// with one.
func lineBreak(t *grammar.Tree) string {
	if t.LineCount() > 1 && t.Line(0).Flags&grammar.FlagCR != 0 {
		return "\r\n"
	}
	return "\n"
}

// HeaderPlaceholder is the value AddHeaderField writes for a required
// field: `rlog/1`; the file's stem as id; and for repo_sha git's null id,
// which says "no commit" without pretending to name one, with a comment
// asking for the real sha.
func HeaderPlaceholder(key, name string) string {
	switch key {
	case "format":
		return "rlog/1"
	case "id":
		stem := path.Base(strings.ReplaceAll(name, "\\", "/"))
		if i := strings.IndexByte(stem, '.'); i > 0 {
			stem = stem[:i]
		}
		if stem == "" || stem == "." || stem == "/" {
			stem = "session"
		}
		return quoteYAML(stem)
	case "repo_sha":
		return `"0000000000000000000000000000000000000000"  # git's null id: replace with the commit the session ran on`
	}
	return ""
}

var plainYAML = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

func quoteYAML(s string) string {
	if plainYAML.MatchString(s) && s != "null" && s != "true" && s != "false" && s != "yes" && s != "no" && s != "on" && s != "off" {
		return s
	}
	return strconv.Quote(s)
}

// AddHeaderField adds the required header field key: it fills in an empty
// `key:` line, or inserts a line before the header's closing `---` (after
// its last line when it has none). Without a header it gives no edit: the
// E001 finding comes first.
func AddHeaderField(t *grammar.Tree, key, name string) []Edit {
	h := t.Header()
	if !h.Present {
		return nil
	}
	value := HeaderPlaceholder(key, name)
	nl := lineBreak(t)
	if f := h.Field(key); f != nil {
		l := t.Line(f.Line)
		return []Edit{{Start: f.KeySpan.Start, End: l.End, NewText: key + ": " + value}}
	}
	// Keep the required fields in their order: after the ones before key.
	at := -1
	if h.Closed {
		at = t.Line(h.End).Start
	} else {
		at = t.Line(h.End).Next
		if t.Line(h.End).Next == t.Line(h.End).End {
			// The header's last line ends the document without a break.
			return []Edit{{Start: at, End: at, NewText: nl + key + ": " + value + nl}}
		}
	}
	for i, k := range RequiredFields {
		if k != key {
			continue
		}
		for _, later := range RequiredFields[i+1:] {
			if f := h.Field(later); f != nil && t.Line(f.Line).Start < at {
				at = t.Line(f.Line).Start
			}
		}
	}
	return []Edit{{Start: at, End: at, NewText: key + ": " + value + nl}}
}
