package grammar

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/internal/corpus"
)

// checkHeader asserts what every consumer of a header relies on: each
// field's and error's line is a header line, and each span lies in the
// header's bytes; a plain key's span holds the key.
func checkHeader(t *testing.T, src []byte) {
	t.Helper()
	tr := Parse(bytes.Clone(src))
	h := tr.Header()
	if !h.Present {
		return
	}
	first, last := h.Start, h.End
	if last < first {
		last = first
	}
	lo, hi := tr.Line(first).Start, tr.Line(last).Next
	inHeader := func(what string, line int, s Span) {
		t.Helper()
		if line < first || line > last {
			t.Fatalf("%s on line %d, outside the header's lines %d..%d\n%q", what, line, first, last, src)
		}
		if s.Start < lo || s.End > hi || s.End < s.Start {
			t.Fatalf("%s span %+v outside the header's bytes %d..%d\n%q", what, s, lo, hi, src)
		}
	}
	for _, f := range h.Fields {
		inHeader("field "+f.Key, f.Line, f.KeySpan)
		inHeader("value of "+f.Key, f.Line, Span{f.ValueSpan.Start, f.ValueSpan.Start})
		if f.ValueSpan.Start < lo || f.ValueSpan.End > hi {
			t.Fatalf("value span of %s %+v outside the header\n%q", f.Key, f.ValueSpan, src)
		}
		// (A tag or quotes may be inside the span too: "!t key", "'key'".)
		if plainKey(f.Key) && !bytes.Contains(tr.Slice(f.KeySpan.Start, f.KeySpan.End), []byte(f.Key)) {
			t.Fatalf("key %q has span %+v = %q\n%q", f.Key, f.KeySpan, tr.Slice(f.KeySpan.Start, f.KeySpan.End), src)
		}
	}
	for _, e := range h.Errors {
		inHeader("error "+e.Message, e.Line, e.Span)
	}
}

func plainKey(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range []byte(k) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// The YAML header of any document: no panic, every position inside the
// header. Seeded with the corpus's headers when it is present.
func FuzzHeader(f *testing.F) {
	for _, s := range []string{
		"---\nformat: rlog/1\nid: s\nrepo_sha: abc\n---\n",
		"---\nformat: rlog/1\nid: [a, b\n---\nu: x\n",
		"---\na: &x [1, 2]\nb: *x\nc: {d: e}\n\"quoted key\": 'v'\n---\n",
		"\ufeff---\r\nformat: rlog/1\r\nnotes: |\r\n  multi\r\n  line\r\n---\r\n",
		"---\nformat: rlog/1\nid: x\nid: y\n---\n",
		"---\n\tformat: x\n---\n",
		"---\nformat: rlog/1\n\n@start\n",
		"---\n" + strings.Repeat("a: &a [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n", 3) + "---\n",
		"---\nk: \"\xff\xfe\"\n---\n",
	} {
		f.Add([]byte(s))
	}
	if dir, ok := corpus.Find(); ok {
		files, _ := filepath.Glob(filepath.Join(dir, "rlog", "*", "*", "*.rlog"))
		for i, p := range files {
			if i == 6 {
				break
			}
			if src, err := os.ReadFile(p); err == nil {
				if end := bytes.Index(src[min(len(src), 4):], []byte("\n---")); end >= 0 {
					f.Add(src[:4+end+5])
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) { checkHeader(t, src) })
}

// Regression (found by FuzzHeader): YAML ends a line at a lone CR, the
// parser does not, so a header with lone CRs gave fields lines past the
// header (Line 12 in a three-line document) and key spans on other text.
// A field must stay on the document line that holds it.
func TestHeaderLoneCRPositions(t *testing.T) {
	for _, src := range []string{
		"---\nformat: rlog/1\rid: x\r\rrepo_sha: abc\n---\nu: x\n",
		"---\n\r\r\r\r\r\r\r\r\r\r\rkey: value\n---\n",
		"---\r\na: 1\rb: 2\r\n---\r\n",
	} {
		t.Run("", func(t *testing.T) { checkHeader(t, []byte(src)) })
	}
}
