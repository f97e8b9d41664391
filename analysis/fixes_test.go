package analysis

import (
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/grammar"
)

func applyEdits(src string, edits []Edit) string {
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		src = src[:e.Start] + e.NewText + src[e.End:]
	}
	return src
}

func codes(src string) map[string]int {
	out := map[string]int{}
	for _, f := range Check(grammar.Parse([]byte(src)), Config{}) {
		out[string(f.Code)]++
	}
	return out
}

// fixFor applies the first fix of the first finding with code, checks that
// the finding is gone, and returns the fixed text.
func fixFor(t *testing.T, src, code, name string) (string, Fix) {
	t.Helper()
	tree := grammar.Parse([]byte(src))
	for _, f := range Check(tree, Config{}) {
		if string(f.Code) != code {
			continue
		}
		fixes := Fixes(tree, f, name)
		if len(fixes) == 0 {
			t.Fatalf("no fix for %s", code)
		}
		out := applyEdits(src, fixes[0].Edits)
		if n := codes(out)[code]; n >= codes(src)[code] {
			t.Fatalf("%s still reported after %q:\n%s", code, fixes[0].Title, out)
		}
		return out, fixes[0]
	}
	t.Fatalf("no %s in\n%s", code, src)
	return "", Fix{}
}

const hdr = "---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\nrunner: ci\n---\n"

func TestFixRenumberSteps(t *testing.T) {
	src := "---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\nrunner: ci\n# step=9 in the header\n---\n" +
		"u: go step=3\na: ok step=2 and substep=7\nt:Read id=a step=10 → [ok]\n"
	out, fix := fixFor(t, src, "W004", "s.rlog")
	want := strings.NewReplacer("step=9", "step=1", "go step=3", "go step=2", "ok step=2", "ok step=3", "substep=7", "substep=4", "step=10", "step=5").Replace(src)
	if out != want || !fix.Preferred {
		t.Errorf("renumbered:\n%s\nwant:\n%s", out, want)
	}
	if edits := RenumberSteps(grammar.Parse([]byte(out))); edits != nil {
		t.Errorf("already 1..N, yet edits %v", edits)
	}
}

func TestFixArrowAndEnd(t *testing.T) {
	out, fix := fixFor(t, hdr+"@start id=s\nt:Read id=a file=x -> [ok]\n", "W011", "s.rlog")
	if !strings.Contains(out, "file=x → [ok]") || !fix.Preferred {
		t.Errorf("arrow: %s", out)
	}
	// @end after a last line without a break, in the document's CRLF.
	src := strings.ReplaceAll(hdr+"@start id=s\nu: hi", "\n", "\r\n")
	out, _ = fixFor(t, src, "I002", "s.rlog")
	if !strings.HasSuffix(out, "u: hi\r\n@end\r\n") {
		t.Errorf("end: %q", out)
	}
	out, _ = fixFor(t, hdr+"@start id=s\nu: hi\n", "I002", "s.rlog")
	if !strings.HasSuffix(out, "u: hi\n@end\n") {
		t.Errorf("end: %q", out)
	}
}

func TestFixHeaderFields(t *testing.T) {
	src := "---\nrunner: ci\n---\nu: hi\n"
	for range 3 { // format, id, repo_sha: one finding each, in that order
		var fix Fix
		src, fix = fixFor(t, src, "E004", "/logs/2025 run.rlog")
		if !fix.Preferred {
			t.Error("not preferred")
		}
	}
	want := "---\nrunner: ci\nformat: rlog/1\nid: \"2025 run\"\nrepo_sha: \"0000000000000000000000000000000000000000\"  # git's null id: replace with the commit the session ran on\n---\nu: hi\n"
	if src != want {
		t.Errorf("header:\n%s\nwant:\n%s", src, want)
	}
	if c := codes(src); c["E004"] != 0 || c["W009"] != 0 {
		t.Errorf("findings after the fixes: %v", c)
	}
	// An empty value is filled in where it is.
	out, _ := fixFor(t, "---\nformat: rlog/1\nid:\nrepo_sha: abcdef\n---\n", "E004", "x.rlog")
	if !strings.Contains(out, "\nid: x\nrepo_sha") {
		t.Errorf("empty id: %s", out)
	}
	// No header: no edit (E001 comes first).
	if edits := AddHeaderField(grammar.Parse([]byte("u: hi\n")), "id", "x"); edits != nil {
		t.Errorf("edits without a header: %v", edits)
	}
}

func TestFixAll(t *testing.T) {
	// No format or id, two steps out of order (two W004 findings, one
	// renumbering), two ASCII arrows, and no @end after the last line,
	// which has no line break.
	src := "---\nrepo_sha: abc1234\nrunner: ci\n---\n" +
		"@start id=s ts=2025-01-01T00:00:00Z\n" +
		"a: one step=3\n" +
		"a: two step=1\n" +
		"t:Read x -> [ok]\n" +
		"t:Read y -> [ok]\n" +
		"a: three step=2\n" +
		"a: four step=1"
	tree := grammar.Parse([]byte(src))
	edits, applied := FixAll(tree, "my-session.rlog", nil)
	var titles []string
	for _, a := range applied {
		titles = append(titles, string(a.Code)+" "+a.Title)
	}
	want := []string{
		"E004 Add `format: rlog/1` to the header",
		"E004 Add `id: my-session` to the header",
		"W004 Renumber every step= 1..N",
		"W011 Replace `->` with the result arrow `→`",
		"W011 Replace `->` with the result arrow `→`",
		"I002 Add `@end` at the end of the session",
	}
	if strings.Join(titles, "\n") != strings.Join(want, "\n") {
		t.Fatalf("applied:\n%s", strings.Join(titles, "\n"))
	}
	out := string(ApplyEdits([]byte(src), edits))
	if out != applyEdits(src, edits) {
		t.Fatal("ApplyEdits and the test's own application disagree")
	}
	wantOut := "---\nformat: rlog/1\nid: my-session\nrepo_sha: abc1234\nrunner: ci\n---\n" +
		"@start id=s ts=2025-01-01T00:00:00Z\n" +
		"a: one step=1\n" +
		"a: two step=2\n" +
		"t:Read x → [ok]\n" +
		"t:Read y → [ok]\n" +
		"a: three step=3\n" +
		"a: four step=4\n@end\n"
	if out != wantOut {
		t.Fatalf("fixed:\n%s\nwant:\n%s", out, wantOut)
	}
	if left := codes(out); left["E004"]+left["W004"]+left["W011"]+left["I002"] != 0 {
		t.Fatalf("left after fixing: %v", left)
	}
	// Only the codes asked for.
	edits, applied = FixAll(tree, "my-session.rlog", map[Code]bool{"I002": true})
	if len(applied) != 1 || string(ApplyEdits([]byte(src), edits)) != src+"\n@end\n" {
		t.Fatalf("%v", applied)
	}
	// Nothing to fix: no edits.
	if edits, applied := FixAll(grammar.Parse([]byte(wantOut)), "x", nil); len(edits)+len(applied) != 0 {
		t.Fatalf("%v %v", edits, applied)
	}
}

// TestFixAllRenumbersGaps: fix --renumber-steps renumbers whenever the
// steps are not exactly 1..N, as the reference's recorder fix does, not
// only when one decreases (no W004 is found on step=1, step=3).
func TestFixAllRenumbersGaps(t *testing.T) {
	src := hdr + "a: one step=1\na: two step=3\n"
	if c := codes(src); c["W004"] != 0 {
		t.Fatalf("W004 on increasing steps: %v", c)
	}
	for _, want := range []map[Code]bool{{"W004": true}, nil} {
		edits, applied := FixAll(grammar.Parse([]byte(src)), "s.rlog", want)
		out := string(ApplyEdits([]byte(src), edits))
		if out != hdr+"a: one step=1\na: two step=2\n" {
			t.Errorf("codes %v: fixed:\n%s", want, out)
		}
		if len(applied) != 1 || applied[0].Code != "W004" || applied[0].Line != 7 || applied[0].Edits != 1 {
			t.Errorf("codes %v: applied %+v", want, applied)
		}
	}
	// Other codes asked for: the steps stay.
	if edits, _ := FixAll(grammar.Parse([]byte(src)), "s.rlog", map[Code]bool{"I002": true}); len(edits) != 0 {
		t.Errorf("renumbered without --renumber-steps: %v", edits)
	}
}

// TestHeaderFixReadsTheField: the E004 fix adds the field the finding
// names as data, whatever its message says (it once parsed the message).
func TestHeaderFixReadsTheField(t *testing.T) {
	tree := grammar.Parse([]byte("---\nformat: rlog/1\nrepo_sha: abcdef\n---\nu: hi\n"))
	var found []Finding
	for _, f := range Check(tree, Config{}) {
		if f.Code == E004 {
			found = append(found, f)
		}
	}
	if len(found) != 1 || found[0].Field != "id" {
		t.Fatalf("E004 findings %+v: want one, about id", found)
	}
	f := found[0]
	f.Message = "reworded"
	fixes := Fixes(tree, f, "s.rlog")
	if len(fixes) != 1 || fixes[0].Title != "Add `id: s` to the header" {
		t.Fatalf("fixes %+v", fixes)
	}
	f.Field = ""
	if fixes := Fixes(tree, f, "s.rlog"); fixes != nil {
		t.Fatalf("a finding naming no field has no fix: %+v", fixes)
	}
}
