package analysis

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/grammar"
)

const renameDoc = `---
format: rlog/1
id: sess-1
repo_sha: abcdef1
---
@start id=c1 ts=2025-12-19T20:29:02Z
u: 😀 id=c1 set in prose uuid=c1
t!:Read id=c1 file_path=a.go → [running]
t~:Read id=c1 [1/2]
o: 漢字 id=c1 → [ok]
t:Read id=c1 → [ok] again
x:Explore id=c1 → [started]
t!:Bash id=c10 cmd=ls → [running]
o: id=c10 → [ok]
`

func TestRename(t *testing.T) {
	tr := grammar.Parse([]byte(renameDoc))
	on := func(probe string, shift int) int { return strings.Index(renameDoc, probe) + shift }
	edits, err := Rename(tr, on("o: 漢字 id=c1", len("o: 漢字 id=")+1), "call_9")
	if err != nil {
		t.Fatal(err)
	}
	// Every line that carries the call, none that only mentions the word:
	// the session id of @start, a message's id and uuid, prose, c10.
	var lines []string
	for _, e := range edits {
		if renameDoc[e.Start:e.End] != "c1" || e.NewText != "call_9" {
			t.Fatalf("edit %+v replaces %q", e, renameDoc[e.Start:e.End])
		}
		lines = append(lines, fmt.Sprint(strings.Count(renameDoc[:e.Start], "\n")+1))
	}
	if got := strings.Join(lines, " "); got != "8 9 10 11 12" {
		t.Fatalf("renamed on lines %s, want 8 9 10 11 12", got)
	}
	// From the key too.
	if e2, err := Rename(tr, on("t~:Read id=c1", len("t~:Read ")), "z"); err != nil || len(e2) != 5 {
		t.Fatalf("from id=: %d edits, %v", len(e2), err)
	}

	for _, tc := range []struct {
		name, probe string
		shift       int
		newName     string
		err         string
	}{
		{"the session id", "@start id=c1", len("@start id="), "x", ErrNotRenamable.Error()},
		{"a message id", "u: 😀 id=c1", len("u: 😀 id="), "x", ErrNotRenamable.Error()},
		{"a uuid", "uuid=c1", len("uuid="), "x", ErrNotRenamable.Error()},
		{"prose", "set in prose", 2, "x", ErrNotRenamable.Error()},
		{"a tool name", "t!:Read", 4, "x", ErrNotRenamable.Error()},
		{"the header", "id: sess-1", 5, "x", ErrNotRenamable.Error()},
		{"a name that is not a word", "o: id=c10", len("o: id="), "a-b", `"a-b" cannot be a call id: ids are letters, digits and underscores (the parser reads \w+ after id=)`},
		{"an empty name", "o: id=c10", len("o: id="), "", `"" cannot be a call id: ids are letters, digits and underscores (the parser reads \w+ after id=)`},
		{"a name in use", "o: id=c10", len("o: id="), "c1", "call id c1 is already used on line 8"},
	} {
		_, err := Rename(tr, on(tc.probe, tc.shift), tc.newName)
		if err == nil || err.Error() != tc.err {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
		}
	}
	if e, err := Rename(tr, on("o: id=c10", len("o: id=")), "c10"); err != nil || len(e) != 0 {
		t.Fatalf("the same name: %v %v", e, err)
	}
	ref, err := PrepareRename(tr, on("x:Explore id=c1", len("x:Explore id=c")))
	if err != nil || ref.Name != "c1" || renameDoc[ref.Span.Start:ref.Span.End] != "c1" {
		t.Fatalf("prepare: %+v %v", ref, err)
	}
}

func TestLinks(t *testing.T) {
	doc := `---
format: rlog/1
id: s
repo: https://github.com/rlog-ls/rlog-ls
repo_sha: abcdef1
---
t!:Read id=r1 file_path=src/漢字.go → [running]
t!:Edit id=e1 file_path="docs/a b.md" old="x" → [running]
o: id=r1 → [ok] see https://example.com/a_(b)), and (https://x.org/y).
t!:NotebookEdit id=n1 notebook_path=/work/n.ipynb → [running]
o: id=n1 → @blob sha256=0123abcd bytes=10 file_path=not/an/argument.go
a: links like xhttps://no and http:// alone are not links
t!:Read id=q file_path="un\"quoted" → [running]
`
	tr := grammar.Parse([]byte(doc))
	var got []string
	for _, l := range Links(tr) {
		got = append(got, fmt.Sprintf("%d %q→%s", l.Kind, doc[l.Span.Start:l.Span.End], l.Target))
	}
	want := []string{
		`3 "https://github.com/rlog-ls/rlog-ls"→https://github.com/rlog-ls/rlog-ls`,
		`1 "src/漢字.go"→src/漢字.go`,
		`1 "docs/a b.md"→docs/a b.md`,
		`3 "https://example.com/a_(b)"→https://example.com/a_(b)`,
		`3 "https://x.org/y"→https://x.org/y`,
		`1 "/work/n.ipynb"→/work/n.ipynb`,
		`2 "@blob sha256=0123abcd"→0123abcd`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("links:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Links are found per chunk and made absolute: the same on a document of
// many chunks, after edits, as on a fresh parse.
func TestLinksAcrossChunks(t *testing.T) {
	t.Cleanup(grammar.SetChunkLimitsForTest(3, 64))
	var b strings.Builder
	b.WriteString("---\nid: s\n---\n")
	for i := range 60 {
		fmt.Fprintf(&b, "t!:Read id=r%d file_path=f%d.go → [running] https://h/%d\n", i, i, i)
	}
	src := b.String()
	tr := grammar.Parse([]byte(src))
	first := Links(tr)
	if len(first) != 120 {
		t.Fatalf("%d links", len(first))
	}
	tr = tr.Edit(0, 0, []byte("# a comment\n"))
	for i, l := range Links(tr) {
		if l.Span.Start != first[i].Span.Start+len("# a comment\n") || l.Target != first[i].Target {
			t.Fatalf("link %d after an edit: %+v, before %+v", i, l, first[i])
		}
	}
}
