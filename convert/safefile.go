package convert

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrExists is returned when the output exists and force is false.
var ErrExists = errors.New("output file exists (use force to overwrite)")

// ErrOutsideDir is returned for a name that would leave the directory,
// directly or through a symbolic link.
var ErrOutsideDir = errors.New("output path leaves the target directory")

// WriteFileAtomic writes data to dir/name and returns the path written.
//
//   - name is relative to dir and may have subdirectories, which must
//     exist; it may not be absolute or climb out with "..".
//   - The resolved parent directory (symlinks followed) must be inside the
//     resolved dir, so a symlinked subdirectory cannot lead elsewhere.
//   - An existing file is only replaced when force is true; an existing
//     symbolic link (or anything that is not a regular file) is never
//     replaced nor followed.
//   - The data goes to a temporary file in the same directory, is synced,
//     and is renamed over the target, so readers never see half a file and
//     a failed write leaves nothing behind.
func WriteFileAtomic(dir, name string, data []byte, force bool) (string, error) {
	if name == "" || filepath.IsAbs(name) || strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("%w: %q", ErrOutsideDir, name)
	}
	clean := filepath.Clean(name)
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) || clean == "." {
		return "", fmt.Errorf("%w: %q", ErrOutsideDir, name)
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	realDir, err = filepath.Abs(realDir)
	if err != nil {
		return "", err
	}
	target := filepath.Join(realDir, clean)
	parent, err := filepath.EvalSymlinks(filepath.Dir(target))
	if err != nil {
		return "", err
	}
	if !within(realDir, parent) {
		return "", fmt.Errorf("%w: %q resolves to %s", ErrOutsideDir, name, parent)
	}
	target = filepath.Join(parent, filepath.Base(target))
	if fi, err := os.Lstat(target); err == nil {
		if !fi.Mode().IsRegular() {
			return "", fmt.Errorf("%w: %s is not a regular file", ErrOutsideDir, target)
		}
		if !force {
			return "", fmt.Errorf("%w: %s", ErrExists, target)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	tmp, err := os.CreateTemp(parent, "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return "", err
	}
	tmpName := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmpName)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return "", err
	}
	if err := tmp.Sync(); err != nil {
		return "", err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if !force {
		// Link fails if the target appeared meanwhile: no overwrite by race.
		if err := os.Link(tmpName, target); err != nil {
			if errors.Is(err, os.ErrExist) {
				return "", fmt.Errorf("%w: %s", ErrExists, target)
			}
			// Filesystems without hard links: fall back to rename.
			if err := os.Rename(tmpName, target); err != nil {
				return "", err
			}
			ok = true
			return target, nil
		}
		os.Remove(tmpName)
		ok = true
		return target, nil
	}
	if err := os.Rename(tmpName, target); err != nil {
		return "", err
	}
	ok = true
	return target, nil
}

func within(dir, p string) bool {
	if p == dir {
		return true
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
