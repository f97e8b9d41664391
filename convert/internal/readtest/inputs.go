package readtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Inputs are the files of at most 1 MB under the testdata folders dirs
// (and their folders, fuzz corpora left out): inputs of every format, for
// a reader's differential tests (a file of another format is malformed
// input to it).
func Inputs(t testing.TB, dirs ...string) map[string][]byte {
	t.Helper()
	in := map[string][]byte{}
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if d.Name() == "fuzz" {
					return filepath.SkipDir
				}
				return nil
			}
			if fi, err := d.Info(); err == nil && fi.Size() <= 1<<20 {
				if b, err := os.ReadFile(p); err == nil {
					in[p] = b
				}
			}
			return nil
		})
	}
	if len(in) == 0 {
		t.Fatalf("no inputs under %v", dirs)
	}
	return in
}
