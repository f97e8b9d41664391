package analysis

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/edittest"
)

// completionDoc is a session with running and completed calls, subagents,
// and tools used more than once; ‸ marks the cursor in each case.
const completionDoc = `---
format: rlog/1
id: sess-1
repo_sha: abcdef1
---
@start id=s ts=2025-12-19T20:29:02Z
u: 😀 fix it
t!:Read id=r1 file_path=src/a.go → [running]
o: id=r1 → [ok] 20 lines
t!:Bash id=b1 cmd="make" → [running]
t!:Read id=r2 file_path=src/漢字.go → [running]
x:Explore id=x1 → [started]
t:Grep id=g1 pattern=TODO → [ok]
`

// completions renders Complete's answer at ‸ as "label [insert] on 'replaced'"
// lines, in order.
func completions(t *testing.T, doc string, invoked bool) string {
	t.Helper()
	off := strings.Index(doc, "‸")
	if off < 0 {
		t.Fatal("no ‸ in the document")
	}
	src := doc[:off] + doc[off+len("‸"):]
	tr := grammar.Parse([]byte(src))
	var b strings.Builder
	for _, c := range Complete(tr, off, invoked) {
		fmt.Fprintf(&b, "%s [%s] on %q", c.Label, c.Insert, src[c.Replace.Start:c.Replace.End])
		if c.Detail != "" {
			fmt.Fprintf(&b, " (%s)", c.Detail)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestComplete(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		invoked   bool
		want      string
	}{
		{"call ids after o: id=, the calls without a result first, the nearest first",
			completionDoc + "o: id=‸\n", false, `x1 [x1] on "" (x:Explore, line 12, no result yet)
r2 [r2] on "" (t!:Read src/漢字.go, line 11, no result yet)
b1 [b1] on "" (t!:Bash make, line 10, no result yet)
g1 [g1] on "" (t:Grep TODO, line 13, completed)
r1 [r1] on "" (t!:Read src/a.go, line 8, completed)
`},
		{"the typed start of an id filters, and the whole id is replaced",
			completionDoc + "o: 😀 id=r‸x → [ok]\n", false, `r2 [r2] on "rx" (t!:Read src/漢字.go, line 11, no result yet)
r1 [r1] on "rx" (t!:Read src/a.go, line 8, completed)
`},
		{"only calls started above; a result counts above the cursor",
			strings.Replace(completionDoc, "o: id=r1", "o: id=‸r1", 1), false, `r1 [r1] on "r1" (t!:Read src/a.go, line 8, no result yet)
`},
		{"subagents after x: id=",
			completionDoc + "x:Explore id=‸ [done]\n", false, `x1 [x1] on "" (x:Explore, line 12, no result yet)
`},
		{"no ids where a line starts a call", completionDoc + "t!:Read id=‸\n", false, ""},
		{"tid= is not id=", completionDoc + "o: tid=‸\n", false, ""},
		{"after the tool, its arguments",
			completionDoc + "t!:Bash c‸\n", false, `cmd [cmd=] on "c" (on 1 line of this kind nearby)
`},
		{"tool names after t!:, the most used first",
			completionDoc + "t!:B‸ cmd=ls\n", false, `Bash [Bash] on "B" (1 call in this session)
`},
		{"tool names after t!:, the most used first",
			completionDoc + "t!:‸ cmd=ls\n", false, `Read [Read] on "" (2 calls in this session)
Bash [Bash] on "" (1 call in this session)
Grep [Grep] on "" (1 call in this session)
`},
		{"tool names filtered by what is typed", completionDoc + "t:R‸ea id=q\n", false, `Read [Read] on "Rea" (2 calls in this session)
`},
		{"lifecycle events after @", completionDoc + "@ch‸\n", false, `@checkpoint [checkpoint] on "ch" (a checkpoint the session can be resumed from)
`},
		{"@phase takes a name", completionDoc + "@pha‸\n", false, `@phase [phase ] on "pha" (a phase marker; ` + "`@phase NAME`" + ` starts a named phase)
`},
		{"header fields not yet written, required first", "---\nformat: rlog/1\nr‸\n---\n", false, `repo_sha [repo_sha: ] on "r" (required)
repo [repo: ] on "r" (optional)
runner [runner: ] on "r" (optional)
`},
		{"no header keys after the colon", "---\nid: ‸\n---\n", false, ""},
		{"keys of an o: line, without those it has",
			completionDoc + "o: id=r2 ‸→ [ok]\n", false, `ts [ts=] on "" (metadata key)
step [step=] on "" (metadata key)
latency_ms [latency_ms=] on "" (metadata key)
tid [tid=] on "" (metadata key)
span [span=] on "" (metadata key)
`},
		{"a tool's arguments from its other calls, then the keys of t!: lines",
			completionDoc + "t!:Read id=r3 f‸\n", false, `file_path [file_path=] on "f" (on 2 lines of this kind nearby)
`},
		{"keys in a message only when asked for", completionDoc + "a: done st‸\n", false, ""},
		{"keys in a message when asked for", completionDoc + "a: done st‸\n", true, `step [step=] on "st" (metadata key)
`},
		{"keys in a result only when asked for", completionDoc + "o: id=r2 → [ok] t‸\n", false, ""},
		{"statuses after the arrow's bracket, filtered by what is typed, the bracket closed",
			completionDoc + "o: id=r2 → [d‸\n", false, `[denied] [denied]] on "d" (the call was denied: a permission rule or the user refused it, and it did not run.)
[done] [done]] on "d" (the subagent finished.)
`},
		{"a status's closing bracket is not doubled",
			completionDoc + "o: id=r2 → [int‸]\n", false, `[interrupted] [interrupted] on "int" (the call was interrupted: the user stopped it (or rejected it) before it finished.)
`},
		{"no status after a bracket in the result's text", completionDoc + "o: id=r2 → [ok] see [d‸\n", false, ""},
		{"nothing in a continuation line", completionDoc + "  t‸\n", true, ""},
	} {
		if got := completions(t, tc.doc, tc.invoked); got != tc.want {
			t.Errorf("%s:\n got\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}

// At the start of a line, "t!:" offers a tool call with its observation,
// with an id no line uses.
func TestCompleteSnippet(t *testing.T) {
	for _, typed := range []string{"", "t", "t!", "t!:"} {
		doc := completionDoc + typed + "‸\n"
		off := strings.Index(doc, "‸")
		src := doc[:off] + doc[off+len("‸"):]
		tr := grammar.Parse([]byte(src))
		got := Complete(tr, off, true)
		if typed == "t!:" {
			got = got[len(got)-1:] // after the tools
		}
		if len(got) != 1 || got[0].Kind != CompleteSnippet || !got[0].Snippet || src[got[0].Replace.Start:got[0].Replace.End] != typed {
			t.Fatalf("%q: %+v", typed, got)
		}
		ins := got[0].Insert
		id := strings.Fields(strings.TrimPrefix(ins[strings.Index(ins, " id=")+4:], ""))[0]
		if len(id) != 8 || strings.Contains(src, id) || !strings.Contains(ins, "\no: id="+id+" → [${4:ok}] $0") ||
			!strings.HasPrefix(ins, "t!:${1:Tool} id="+id+" ") {
			t.Fatalf("%q: snippet %q", typed, ins)
		}
		// The same document and place give the same id.
		if again := Complete(tr, off, true); again[len(again)-1].Insert != ins {
			t.Fatalf("the id changed: %q then %q", ins, again[0].Insert)
		}
	}
	// Right after "t!:", the tools come first.
	if got := Complete(grammar.Parse([]byte(completionDoc+"t!:\n")), len(completionDoc)+3, true); len(got) != 4 || got[0].Label != "Read" || got[3].Kind != CompleteSnippet {
		t.Fatalf("after t!:, tools, then the snippet: %+v", got)
	}
}

// Completion never panics and its spans stay on the cursor's line, at
// every offset of documents with multi-byte characters, CRLF and invalid
// UTF-8.
func TestCompleteEveryOffset(t *testing.T) {
	for _, doc := range []string{completionDoc, "---\r\nid: x\r\n---\r\no: id=\xff\r\n@\r\nt!:\r\n", "", "@", "t!:", "---\nr"} {
		tr := grammar.Parse([]byte(doc))
		for off := 0; off <= len(doc); off++ {
			for _, c := range Complete(tr, off, true) {
				l := tr.Line(tr.LineAt(off))
				cursor := min(off, l.End) // an offset in the line end is the line's end
				if c.Replace.Start < l.Start || c.Replace.End > l.End || c.Replace.Start > cursor || c.Replace.End < cursor {
					t.Fatalf("%q at %d: %+v replaces [%d,%d) outside its line [%d,%d) or away from the cursor", doc, off, c.Label, c.Replace.Start, c.Replace.End, l.Start, l.End)
				}
			}
		}
	}
}

// Completion answers the same whatever the chunks: on a tree edited with
// tiny chunks and on a fresh parse of its text. The windows it reads (the
// lines above for call ids, around for keys) are counted in lines; counted
// in chunks they depended on the edits' history (the differential harness
// found a key's count of "lines of this kind nearby" differ).
func TestCompletionDoesNotDependOnChunks(t *testing.T) {
	t.Cleanup(grammar.SetChunkLimitsForTest(4, 150))
	r := rand.New(rand.NewPCG(41, 42))
	ids := []string{"a1", "a2", "ab", "b1", "b2", "bb3", "c"}
	line := func() string {
		id := ids[r.IntN(len(ids))]
		switch r.IntN(9) {
		case 0:
			return "t!:Read id=" + id + " file_path=src/a.go → [running]\n"
		case 1:
			return "t!:Bash id=" + id + " cmd=x timeout=5 → [running]\n"
		case 2:
			return "o: id=" + id + " → [ok]\n"
		case 3:
			return "t:Grep id=" + id + " pattern=p → [ok]\n"
		case 4:
			return "x:Explore id=" + id + " → [started] summary=s\n"
		case 5:
			return "a: x session=s1 uuid=u1\n"
		case 6:
			return "\n"
		case 7:
			return "o: id=" + id + " extra=1 → [ok]\n"
		}
		return "u: go on\n"
	}
	var b strings.Builder
	b.WriteString("---\nformat: rlog/1\nid: s\nrepo_sha: abcdef1\n---\n")
	for range 3000 {
		b.WriteString(line())
	}
	src := []byte(b.String())
	edited := grammar.Parse(bytes.Clone(src))
	for range 40 {
		at := r.IntN(len(src) + 1)
		at = bytes.LastIndexByte(src[:at], '\n') + 1
		end := at
		if r.IntN(2) == 0 {
			if i := bytes.IndexByte(src[at:], '\n'); i >= 0 {
				end = at + i + 1
			}
		}
		ins := []byte(line())
		edited = edited.Edit(at, end, bytes.Clone(ins))
		src = edittest.Splice(src, at, end, ins)
	}
	fresh := grammar.Parse(bytes.Clone(src))
	// Offsets in an o: line's id and after a call's arguments, and anywhere.
	var offs []int
	for i := 0; i+3 < len(src); i++ {
		if bytes.HasPrefix(src[i:], []byte("o: id=")) && r.IntN(20) == 0 {
			offs = append(offs, i+6, i+7)
		}
		if bytes.HasPrefix(src[i:], []byte(" → ")) && r.IntN(30) == 0 {
			offs = append(offs, i+1, i)
		}
	}
	for range 200 {
		offs = append(offs, r.IntN(len(src)+1))
	}
	for _, off := range offs {
		for _, invoked := range []bool{false, true} {
			got, want := Complete(edited, off, invoked), Complete(fresh, off, invoked)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("offset %d (line %d), invoked %v:\n edited %+v\n fresh  %+v", off, fresh.LineAt(off), invoked, got, want)
			}
		}
	}
}
