// Package golden runs tests that read as documents: each case is a txtar
// archive in a testdata folder, a short comment saying what it shows, then
// named files, some of them input (a log, a header), the others what the
// code under test makes of that input. A test compares what it makes with
// the archive's file and fails on a difference; `go test -update` writes
// what it made into the archive instead, to be read and committed.
//
// The archive format is txtar's: a comment, then files, each introduced by
// a line "-- NAME --". File contents are kept byte for byte (CRLF, invalid
// UTF-8, NUL), except that a file always ends with a line break.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files (txtar archives and plain golden files) with what the code makes now")

// Updating reports whether the test runs with -update: a test that keeps
// a generated part of another file (a document's examples) rewrites it
// then instead of failing.
func Updating() bool { return *update }

// CheckFile compares got with the golden file at path, an output kept as
// a file of its own (a converted session, a data document); under -update
// it writes the file instead, its folder made.
func CheckFile(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to write it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs (run the test with -update to accept the new output):\n--- want\n%s--- got\n%s", path, want, got)
	}
}

// Archive is one parsed txtar archive.
type Archive struct {
	Path    string
	Comment []byte
	Files   []File

	changed bool
}

// File is one file of an archive.
type File struct {
	Name string
	Data []byte
}

// Parse reads a txtar archive.
func Parse(data []byte) *Archive {
	a := &Archive{}
	name, rest := "", data
	var body []byte
	body, name, rest = cutFile(rest)
	a.Comment = body
	for name != "" {
		n := name
		body, name, rest = cutFile(rest)
		a.Files = append(a.Files, File{Name: n, Data: body})
	}
	return a
}

// cutFile returns the text before the next "-- NAME --" line, NAME, and
// what follows that line.
func cutFile(data []byte) (before []byte, name string, after []byte) {
	for i := 0; i < len(data); {
		line := data[i:]
		end := bytes.IndexByte(line, '\n')
		if end >= 0 {
			line = line[:end+1]
		}
		if n, ok := markerName(line); ok {
			return fixNL(data[:i]), n, data[i+len(line):]
		}
		if end < 0 {
			break
		}
		i += end + 1
	}
	return fixNL(data), "", nil
}

func markerName(line []byte) (string, bool) {
	s := strings.TrimSuffix(string(line), "\n")
	if !strings.HasPrefix(s, "-- ") || !strings.HasSuffix(s, " --") || len(s) < len("-- x --") {
		return "", false
	}
	name := strings.TrimSpace(s[3 : len(s)-3])
	return name, name != ""
}

func fixNL(b []byte) []byte {
	if len(b) == 0 || b[len(b)-1] == '\n' {
		return b
	}
	return append(b[:len(b):len(b)], '\n')
}

// Format writes a in txtar form.
func (a *Archive) Format() []byte {
	var b bytes.Buffer
	b.Write(fixNL(a.Comment))
	for _, f := range a.Files {
		b.WriteString("-- " + f.Name + " --\n")
		b.Write(fixNL(f.Data))
	}
	return b.Bytes()
}

// Get returns the file called name.
func (a *Archive) Get(name string) ([]byte, bool) {
	for _, f := range a.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return nil, false
}

// File returns the input file called name, and fails the test without it.
func (a *Archive) File(t testing.TB, name string) []byte {
	t.Helper()
	b, ok := a.Get(name)
	if !ok {
		t.Fatalf("%s has no file %q", a.Path, name)
	}
	return b
}

// Check compares got with the golden file called name. Under -update it
// sets the file instead (a new one after the files of the same stem), and
// Run writes the archive back.
func (a *Archive) Check(t testing.TB, name string, got []byte) {
	t.Helper()
	got = fixNL(got)
	want, ok := a.Get(name)
	if ok && bytes.Equal(want, got) {
		return
	}
	if *update {
		a.set(name, got)
		return
	}
	if !ok {
		t.Errorf("%s has no golden file %q; run the test with -update to write it. It would be:\n%s", a.Path, name, got)
		return
	}
	t.Errorf("%s: %s differs (run with -update to accept the new output)\n--- want\n%s--- got\n%s", a.Path, name, want, got)
}

func (a *Archive) set(name string, data []byte) {
	a.changed = true
	for i := range a.Files {
		if a.Files[i].Name == name {
			a.Files[i].Data = data
			return
		}
	}
	// A new file goes after the files of the same stem (x.findings after
	// x.rlog), so that each output follows its input.
	at := len(a.Files)
	for i, f := range a.Files {
		if stem(f.Name) == stem(name) {
			at = i + 1
		}
	}
	// A new list, so that a caller ranging over the files meets each once.
	a.Files = slices.Concat(a.Files[:at:at], []File{{Name: name, Data: data}}, a.Files[at:])
}

func stem(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return name[:i]
	}
	return name
}

// Run calls fn on every archive matching pattern (relative to the test's
// folder, such as "testdata/rules/*.txtar"), each in a subtest named after
// the file. A pattern that matches nothing fails the test.
func Run(t *testing.T, pattern string, fn func(t *testing.T, a *Archive)) {
	t.Helper()
	paths, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no archive matches %s", pattern)
	}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) { Use(t, p, fn) })
	}
}

// Use calls fn on the archive at path and, under -update, writes it back
// when its golden files changed. A missing archive fails the test, or
// under -update starts empty and is created.
func Use(t *testing.T, path string, fn func(t *testing.T, a *Archive)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !(*update && os.IsNotExist(err)) {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	a := Parse(data)
	a.Path = path
	fn(t, a)
	if a.changed {
		if err := os.WriteFile(path, a.Format(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("updated %s", path)
	}
}
