// Package corpus locates the shared corpus of real session logs that tests
// read (../shared/corpus next to the repository, or $RLOG_CORPUS).
package corpus

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir returns the corpus directory, or skips the test with the reason when
// it is not there.
func Dir(t testing.TB) string {
	t.Helper()
	dir, err := find()
	if err != nil {
		t.Skipf("corpus not found (%v): set RLOG_CORPUS or place it at ../shared/corpus next to the repository", err)
	}
	return dir
}

// Path returns a file or folder inside the corpus, skipping like Dir.
func Path(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(Dir(t), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		t.Skipf("corpus file missing: %v", err)
	}
	return p
}

// Files lists the corpus files under rel whose name ends in ext.
func Files(t testing.TB, rel, ext string) []string {
	t.Helper()
	var out []string
	root := Path(t, rel)
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
	if len(out) == 0 {
		t.Skipf("no %s files under %s", ext, root)
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

// Glob returns the corpus files matching pattern (relative to the corpus),
// skipping like Dir when the corpus is absent.
func Glob(t testing.TB, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(Dir(t), filepath.FromSlash(pattern)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func find() (string, error) {
	if d := os.Getenv("RLOG_CORPUS"); d != "" {
		_, err := os.Stat(d)
		return d, err
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	d := filepath.Join(root, "..", "shared", "corpus")
	_, err := os.Stat(d)
	return filepath.Clean(d), err
}
