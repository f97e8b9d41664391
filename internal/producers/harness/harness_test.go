package harness

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReplaceDir(t *testing.T) {
	root := t.TempDir()
	dest, fresh := filepath.Join(root, "v"), filepath.Join(root, "new")
	os.MkdirAll(dest, 0o755)
	os.WriteFile(filepath.Join(dest, "old.txt"), nil, 0o644)
	os.MkdirAll(fresh, 0o755)
	os.WriteFile(filepath.Join(fresh, "new.txt"), nil, 0o644)
	if err := ReplaceDir(fresh, dest); err != nil {
		t.Fatal(err)
	}
	if !IsFile(filepath.Join(dest, "new.txt")) || IsFile(filepath.Join(dest, "old.txt")) {
		t.Error("dest does not hold exactly the fresh folder")
	}
	if _, err := os.Stat(dest + ".old"); !os.IsNotExist(err) {
		t.Error("the old folder is left behind")
	}
}
