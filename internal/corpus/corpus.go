// Package corpus locates the corpus of real session logs that some tests
// sweep in addition to the project's own fixtures: the folder $RLOG_CORPUS
// names, or else a folder "corpus" inside a folder "shared" next to the
// repository's (where the project's developers keep it). RLOG_CORPUS=none
// (or a folder that does not exist) says there is no corpus, as on a fresh
// clone.
//
// Every test must pass without the corpus, and run: what it checks on real
// files it checks on fixtures in testdata/ too. Sweep, SweepFiles,
// SweepGlob and SweepFile give the corpus for a test's extra pass over the
// real files; without one they log why and give nothing, and the test goes
// on with its fixtures (no skip). Only a benchmark may skip for want of
// the corpus (Path).
package corpus

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Sweep returns the corpus directory, or logs that there is none and
// returns false, for a test's extra pass over the real files.
func Sweep(t testing.TB) (string, bool) {
	t.Helper()
	dir, err := find()
	if err != nil {
		t.Logf("no sweep over the corpus (%v): set RLOG_CORPUS to a folder of real logs", err)
		return "", false
	}
	return dir, true
}

// SweepFiles lists the corpus files under each of dirs whose name ends in
// ext, or logs that there is no corpus (or no such folder in it) and
// returns nil.
func SweepFiles(t testing.TB, ext string, dirs ...string) []string {
	t.Helper()
	root, ok := Sweep(t)
	if !ok {
		return nil
	}
	var out []string
	for _, d := range dirs {
		dir := filepath.Join(root, filepath.FromSlash(d))
		if _, err := os.Stat(dir); err != nil {
			t.Logf("no sweep over %s: %v", d, err)
			continue
		}
		out = append(out, walk(t, dir, ext)...)
	}
	return out
}

// SweepGlob returns the corpus files matching pattern (relative to the
// corpus), or logs that there is no corpus and returns nil.
func SweepGlob(t testing.TB, pattern string) []string {
	t.Helper()
	root, ok := Sweep(t)
	if !ok {
		return nil
	}
	m, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(pattern)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// SweepFile returns the corpus file rel, for a test that pins what it
// knows of one real file; or logs that the corpus (or the file in it) is
// absent and returns false.
func SweepFile(t testing.TB, rel string) (string, bool) {
	t.Helper()
	root, ok := Sweep(t)
	if !ok {
		return "", false
	}
	p := filepath.Join(root, filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		t.Logf("no sweep over %s: %v", rel, err)
		return "", false
	}
	return p, true
}

// Path returns a corpus file for a benchmark, or skips the benchmark when
// the corpus (or the file) is absent: benchmarks are run by hand, on the
// real files. It takes a *testing.B so that no test can skip this way.
func Path(b *testing.B, rel string) string {
	b.Helper()
	dir, err := find()
	if err != nil {
		b.Skipf("corpus not found (%v): set RLOG_CORPUS to a folder of real logs", err)
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		b.Skipf("corpus file missing: %v", err)
	}
	return p
}

func walk(t testing.TB, root, ext string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && filepath.Ext(p) == ext {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Root returns the corpus directory, or "" when it is absent, for callers
// that go on without it (fuzz seeds).
func Root() string {
	dir, err := find()
	if err != nil {
		return ""
	}
	return dir
}

var errNone = errors.New("RLOG_CORPUS=none")

func find() (string, error) {
	if d := os.Getenv("RLOG_CORPUS"); d != "" {
		if d == "none" {
			return "", errNone
		}
		_, err := os.Stat(d)
		return d, err
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	d := filepath.Join(root, "..", "shared", "corpus")
	_, err := os.Stat(d)
	return filepath.Clean(d), err
}
