// Package testcorpus locates the shared sample corpus (../shared/corpus
// relative to the module root) for tests and benchmarks.
package testcorpus

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Root returns the corpus directory, or "" with the reason when it is
// absent.
func Root() (string, string) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", "runtime.Caller failed"
	}
	dir := filepath.Dir(file)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "module root (go.mod) not found above " + filepath.Dir(file)
		}
		dir = parent
	}
	corpus := filepath.Join(dir, "..", "shared", "corpus")
	if fi, err := os.Stat(corpus); err != nil || !fi.IsDir() {
		return "", corpus + " is not a directory"
	}
	return corpus, ""
}

// Dir returns the corpus directory or skips the test.
func Dir(tb testing.TB) string {
	tb.Helper()
	root, why := Root()
	if root == "" {
		tb.Skip("corpus not found at ../shared/corpus: " + why)
	}
	return root
}

// Path returns a file of the corpus, skipping the test when it is missing.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	p := filepath.Join(Dir(tb), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		tb.Skip("corpus not found at ../shared/corpus: missing " + rel)
	}
	return p
}

// Glob returns the corpus files matching pattern (relative to the corpus).
func Glob(tb testing.TB, pattern string) []string {
	tb.Helper()
	m, err := filepath.Glob(filepath.Join(Dir(tb), filepath.FromSlash(pattern)))
	if err != nil {
		tb.Fatal(err)
	}
	return m
}
