package analysis

import (
	"bytes"
	"cmp"
	"path"
	"regexp"
	"slices"
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
			return []Fix{{Title: renumberTitle, Preferred: true, Edits: edits}}
		}
	case "W011":
		if bytes.Equal(t.Slice(f.Span.Start, f.Span.End), []byte("->")) {
			return []Fix{{Title: "Replace `->` with the result arrow `→`", Preferred: true,
				Edits: []Edit{{Start: f.Span.Start, End: f.Span.End, NewText: "→"}}}}
		}
	case "I002":
		return []Fix{{Title: "Add `@end` at the end of the session", Preferred: true, Edits: AddEnd(t)}}
	case "E004":
		for _, key := range grammar.RequiredFields() {
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

const renumberTitle = "Renumber every step= 1..N"

// RenumberSteps is the reference `recorder fix --renumber-steps`: every
// `step=(\d+)` on every line, the header included,
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
		return grammar.FormatVersion
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
		return `"` + grammar.NullRepoSHA + `"  # git's null id: replace with the commit the session ran on`
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
	required := grammar.RequiredFields()
	for i, k := range required {
		if k != key {
			continue
		}
		for _, later := range required[i+1:] {
			if f := h.Field(later); f != nil && t.Line(f.Line).Start < at {
				at = t.Line(f.Line).Start
			}
		}
	}
	return []Edit{{Start: at, End: at, NewText: key + ": " + value + nl}}
}

// FixableCodes are the codes whose findings have a quick fix, in the order
// FixAll considers them.
var FixableCodes = []string{"E004", "W004", "W011", "I002"}

// AppliedFix is one fix FixAll chose: the finding's code and line, and
// the fix's title.
type AppliedFix struct {
	Code  string
	Line  int // 0-based line of the finding
	Title string
	Edits int
}

// FixAll gathers the preferred quick fix of every finding of t whose code
// is in codes (every fixable code when codes is empty) into one list of
// edits, sorted by position and never overlapping: a fix that would touch
// what another already changes is left out, and a fix that a previous one
// already made (W004's renumbering, found once per decreasing step) is
// taken once. Renumbering (W004's code) is also made when no step
// decreases but the steps are not exactly 1..N (`step=1`, `step=3`), as
// the reference's `recorder fix --renumber-steps` does. name is the
// document's file name, for a missing id.
func FixAll(t *grammar.Tree, name string, codes map[string]bool) ([]Edit, []AppliedFix) {
	var edits []Edit
	var applied []AppliedFix
	seen := map[Edit]bool{}
	take := func(code string, line int, fix *Fix) {
		if fix == nil || len(fix.Edits) == 0 {
			return
		}
		fresh, clash := 0, false
		for _, e := range fix.Edits {
			if seen[e] {
				continue
			}
			fresh++
			for _, o := range edits {
				if e.Start < o.End && o.Start < e.End {
					clash = true
				}
			}
		}
		if fresh == 0 || clash {
			return
		}
		for _, e := range fix.Edits {
			if !seen[e] {
				seen[e] = true
				edits = append(edits, e)
			}
		}
		applied = append(applied, AppliedFix{Code: code, Line: line, Title: fix.Title, Edits: fresh})
	}
	for _, f := range Check(t, Config{}) {
		if len(codes) > 0 && !codes[f.Code] {
			continue
		}
		for _, candidate := range Fixes(t, f, name) {
			if candidate.Preferred {
				take(f.Code, f.Line, &candidate)
				break
			}
		}
	}
	if len(codes) == 0 || codes["W004"] {
		if renumber := RenumberSteps(t); len(renumber) > 0 {
			take("W004", t.LineAt(renumber[0].Start), &Fix{Title: renumberTitle, Preferred: true, Edits: renumber})
		}
	}
	slices.SortStableFunc(edits, func(a, b Edit) int { return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End)) })
	return edits, applied
}

// ApplyEdits returns src with edits (sorted, not overlapping) made.
func ApplyEdits(src []byte, edits []Edit) []byte {
	size := len(src)
	for _, e := range edits {
		size += len(e.NewText) - (e.End - e.Start)
	}
	out := make([]byte, 0, size)
	at := 0
	for _, e := range edits {
		out = append(out, src[at:e.Start]...)
		out = append(out, e.NewText...)
		at = e.End
	}
	return append(out, src[at:]...)
}
