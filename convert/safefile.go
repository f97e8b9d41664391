package convert

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrExists is returned when the output exists and force is false.
var ErrExists = errors.New("output file exists (use force to overwrite)")

// ErrOutsideDir is returned for a name that would leave the directory,
// directly or through a symbolic link.
var ErrOutsideDir = errors.New("output path leaves the target directory")

// afterCheck runs between the checks and the write; tests use it to change
// the file system under WriteFileAtomic, as a racing process would.
var afterCheck func()

// WriteFileAtomic writes data to dir/name and returns the path written.
//
//   - name is relative to dir and may have subdirectories, which must
//     exist; it may not be absolute or climb out with "..".
//   - Every step happens inside dir through an os.Root (openat with
//     symlink checks), and the write itself inside the target's directory
//     opened once: a symbolic link that leads out of dir is refused, also
//     one swapped in for a subdirectory after the checks (the write then
//     still lands in the directory that was checked).
//   - An existing file is only replaced when force is true, and keeps its
//     permissions; an existing symbolic link (or anything that is not a
//     regular file) is never replaced nor followed. Without force the
//     file is created with a hard link, which fails if something appeared
//     at the name meanwhile: no overwrite by race either.
//   - The data goes to a temporary file in the same directory, is synced,
//     and is renamed (or linked) over the target, so readers never see
//     half a file and a failed write leaves nothing behind.
func WriteFileAtomic(dir, name string, data []byte, force bool) (string, error) {
	if name == "" || filepath.IsAbs(name) || filepath.VolumeName(name) != "" || strings.ContainsRune(name, 0) {
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
	root, err := os.OpenRoot(realDir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	parent, base := root, filepath.Base(clean)
	if sub := filepath.Dir(clean); sub != "." {
		parent, err = root.OpenRoot(sub)
		if err != nil {
			return "", outsideOr(err, name)
		}
		defer parent.Close()
	}
	target := filepath.Join(realDir, clean)

	perm := fs.FileMode(0o644)
	fi, err := parent.Lstat(base)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return "", fmt.Errorf("%w: %s is not a regular file", ErrOutsideDir, target)
	case err == nil && !force:
		return "", fmt.Errorf("%w: %s", ErrExists, target)
	case err == nil:
		perm = fi.Mode().Perm() // replacing: a private file stays private
	case !errors.Is(err, fs.ErrNotExist):
		return "", outsideOr(err, name)
	}
	if afterCheck != nil {
		afterCheck()
	}

	tmp, tmpName, err := createTemp(parent, base, perm)
	if err != nil {
		return "", err
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			parent.Remove(tmpName)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return "", err
	}
	if err := tmp.Sync(); err != nil {
		return "", err
	}
	if force {
		// The umask did not apply to a replaced file's own permissions.
		if err := tmp.Chmod(perm); err != nil {
			return "", err
		}
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if force {
		// Rename replaces whatever is at base now, a symbolic link
		// included, without following it.
		if err := parent.Rename(tmpName, base); err != nil {
			return "", err
		}
	} else if err := parent.Link(tmpName, base); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("%w: %s", ErrExists, target)
		}
		// A file system without hard links: check again and rename (a
		// narrower race than none at all, which is the best it allows).
		if _, lerr := parent.Lstat(base); lerr == nil {
			return "", fmt.Errorf("%w: %s", ErrExists, target)
		}
		if err := parent.Rename(tmpName, base); err != nil {
			return "", err
		}
	} else {
		parent.Remove(tmpName)
	}
	done = true
	syncDir(parent)
	return target, nil
}

// createTemp creates a new file beside base, never following a link.
func createTemp(dir *os.Root, base string, perm fs.FileMode) (*os.File, string, error) {
	for range 100 {
		var r [6]byte
		_, _ = rand.Read(r[:])
		name := "." + base + ".tmp-" + hex.EncodeToString(r[:])
		f, err := dir.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", errors.New("cannot create a temporary file")
}

// syncDir makes the rename durable; where a directory cannot be synced,
// the rename is still atomic, only not yet on disk.
func syncDir(dir *os.Root) {
	if d, err := dir.Open("."); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// outsideOr turns os.Root's refusal of a path that escapes into
// ErrOutsideDir, and keeps any other error.
func outsideOr(err error, name string) error {
	if err != nil && strings.Contains(err.Error(), "path escapes from parent") {
		return fmt.Errorf("%w: %q: %v", ErrOutsideDir, name, err)
	}
	return err
}
