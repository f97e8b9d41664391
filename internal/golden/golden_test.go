package golden

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestParseFormat(t *testing.T) {
	src := []byte("what this shows\n-- input.rlog --\nu: hi\r\nbad \xff byte\x00\n-- want --\n-- last --\nno final newline")
	a := Parse(src)
	if string(a.Comment) != "what this shows\n" || len(a.Files) != 3 {
		t.Fatalf("%q %+v", a.Comment, a.Files)
	}
	if got := a.Files[0]; got.Name != "input.rlog" || string(got.Data) != "u: hi\r\nbad \xff byte\x00\n" {
		t.Errorf("input: %+v", got)
	}
	if got := a.Files[1]; got.Name != "want" || len(got.Data) != 0 {
		t.Errorf("empty file: %+v", got)
	}
	if got := a.Files[2]; string(got.Data) != "no final newline\n" {
		t.Errorf("last file gets its line break: %q", got.Data)
	}
	if want := append(src, '\n'); !bytes.Equal(a.Format(), want) {
		t.Errorf("format:\n%q\nwant\n%q", a.Format(), want)
	}
	// Lines that only look like markers are content.
	b := Parse([]byte("-- a --\n--  --\n-- b\n-x- c --\n"))
	if len(b.Files) != 1 || string(b.Files[0].Data) != "--  --\n-- b\n-x- c --\n" {
		t.Errorf("%+v", b.Files)
	}
}

// Check passes on equal output, fails on a difference or a missing file,
// and under -update sets the file and Run writes the archive back.
func TestCheckAndUpdate(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "case.txtar")
	if err := os.WriteFile(p, []byte("comment\n-- in --\nx\n-- out --\nold\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := Parse([]byte("-- out --\nold\n"))
	var rec recorder
	a.Check(&rec, "out", []byte("old"))
	a.Check(&rec, "out", []byte("new\n"))
	a.Check(&rec, "missing", []byte("x\n"))
	if rec.errors != 2 {
		t.Fatalf("%d errors, want 2 (a difference, a missing file)", rec.errors)
	}

	*update = true
	defer func() { *update = false }()
	Run(t, filepath.Join(dir, "*.txtar"), func(t *testing.T, a *Archive) {
		if string(a.File(t, "in")) != "x\n" {
			t.Errorf("in: %q", a.File(t, "in"))
		}
		a.Check(t, "out", []byte("new\n"))
		a.Check(t, "added", []byte("more"))
		a.Check(t, "in.out", []byte("after in"))
	})
	got, _ := os.ReadFile(p)
	if want := "comment\n-- in --\nx\n-- in.out --\nafter in\n-- out --\nnew\n-- added --\nmore\n"; string(got) != want {
		t.Errorf("archive after -update:\n%s\nwant\n%s", got, want)
	}
}

type recorder struct {
	testing.TB
	errors int
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.errors++ }
