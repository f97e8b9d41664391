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

// QuickFix is a rule's quick fix (Rule.Fix): the editor offers it on the
// rule's findings, and `rlog-ls fix` makes it.
type QuickFix struct {
	// Name is the fix's flag, `rlog-ls fix --NAME`, and About what it does,
	// for the flag's help.
	Name, About string
	// Make returns the fixes for finding f of document t; name is the
	// document's file name (or any last path segment).
	Make func(t *grammar.Tree, f Finding, name string) []Fix
	// Unprompted, when set, gives the fix FixAll makes even when no finding
	// asks for it.
	Unprompted func(t *grammar.Tree) (Fix, bool)
}

// The quick fixes of the rules that have one.
var (
	renumberStepsFix = QuickFix{
		Name: "renumber-steps", About: "renumber every step= 1..N",
		Make: func(t *grammar.Tree, _ Finding, _ string) []Fix {
			if fix, ok := renumberSteps(t); ok {
				return []Fix{fix}
			}
			return nil
		},
		// As the reference's `recorder fix --renumber-steps` does, also
		// when no step decreases but the steps are not exactly 1..N
		// (`step=1`, `step=3`).
		Unprompted: renumberSteps,
	}
	resultArrowFix = QuickFix{
		Name: "arrows", About: "replace ASCII arrows -> with →",
		Make: func(t *grammar.Tree, f Finding, _ string) []Fix {
			if !bytes.Equal(t.Slice(f.Span.Start, f.Span.End), []byte("->")) {
				return nil
			}
			return []Fix{{Title: "Replace `->` with the result arrow `→`", Preferred: true,
				Edits: []Edit{{Start: f.Span.Start, End: f.Span.End, NewText: "→"}}}}
		},
	}
	addEndFix = QuickFix{
		Name: "add-end", About: "add @end at the end of a session that has @start",
		Make: func(t *grammar.Tree, _ Finding, _ string) []Fix {
			return []Fix{{Title: "Add `@end` at the end of the session", Preferred: true, Edits: AddEnd(t)}}
		},
	}
	addHeaderFieldFix = QuickFix{
		Name: "header", About: "add the missing required header fields: format, id, repo_sha",
		Make: func(t *grammar.Tree, f Finding, name string) []Fix {
			if f.Field == "" {
				return nil
			}
			edits := AddHeaderField(t, f.Field, name)
			if len(edits) == 0 {
				return nil
			}
			return []Fix{{Title: "Add `" + f.Field + ": " + HeaderPlaceholder(f.Field, name) + "` to the header", Preferred: true, Edits: edits}}
		},
	}
)

// Fixes returns the quick fixes for a finding of document t: its rule's.
// name is the document's file name (or any last path segment), used for a
// missing id. Codes without a fix give nil.
func Fixes(t *grammar.Tree, f Finding, name string) []Fix {
	if r, ok := RuleFor(f.Code); ok && r.Fix != nil {
		return r.Fix.Make(t, f, name)
	}
	return nil
}

// renumberSteps is RenumberSteps as a fix, when it changes anything.
func renumberSteps(t *grammar.Tree) (Fix, bool) {
	edits := RenumberSteps(t)
	return Fix{Title: renumberTitle, Preferred: true, Edits: edits}, len(edits) > 0
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

// AppliedFix is one fix FixAll chose: the finding's code and line, and
// the fix's title.
type AppliedFix struct {
	Code  Code
	Line  int // 0-based line of the finding
	Title string
	Edits int
}

// FixAll gathers the preferred quick fix of every finding of t whose code
// is in codes (every fixable code when codes is empty) into one list of
// edits, sorted by position and never overlapping: a fix that would touch
// what another already changes is left out, and a fix that a previous one
// already made (W004's renumbering, found once per decreasing step) is
// taken once. A rule's unprompted fix is made too, finding or not
// (W004's renumbering of steps that do not decrease but are not exactly
// 1..N). name is the document's file name, for a missing id.
func FixAll(t *grammar.Tree, name string, codes map[Code]bool) ([]Edit, []AppliedFix) {
	var edits []Edit
	var applied []AppliedFix
	seen := map[Edit]bool{}
	take := func(code Code, line int, fix *Fix) {
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
	for _, r := range Rules {
		if r.Fix == nil || r.Fix.Unprompted == nil || len(codes) > 0 && !codes[r.Code] {
			continue
		}
		if fix, ok := r.Fix.Unprompted(t); ok {
			take(r.Code, t.LineAt(fix.Edits[0].Start), &fix)
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
