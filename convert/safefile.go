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
	"sync"
)

// ErrExists is returned when the output exists and force is false.
var ErrExists = errors.New("output file exists (use force to overwrite)")

// ErrOutsideDir is returned for a name that would leave the directory,
// directly or through a symbolic link.
var ErrOutsideDir = errors.New("output path leaves the target directory")

// afterCheck runs between the checks and the write; tests use it to change
// the file system under CreateAtomic, as a racing process would.
var afterCheck func()

// WriteFileAtomic writes data to dir/name and returns the path written.
// It is CreateAtomic, one Write and Commit; see CreateAtomic for the rules.
func WriteFileAtomic(dir, name string, data []byte, force bool) (string, error) {
	f, err := CreateAtomic(dir, name, force)
	if err != nil {
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return "", err
	}
	return f.Commit()
}

// AtomicFile is an output being written: a temporary file beside its
// target that becomes the target on Commit and disappears on Abort. A
// conversion streams into it, so neither the output nor a half-written
// target is ever held or shown. Abort may be called from another goroutine
// (a signal handler) while Write runs; Write then fails.
type AtomicFile struct {
	mu        sync.Mutex
	root      *os.Root // dir's root; parent may be it
	parent    *os.Root // the target's folder
	tmp       *os.File
	tmpName   string
	base      string
	target    string
	perm      fs.FileMode
	force     bool
	done      bool // committed or aborted
	committed bool
	written   int64
}

// CreateAtomic starts writing dir/name.
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
//     file is created with a hard link on Commit, which fails if something
//     appeared at the name meanwhile: no overwrite by race either.
//   - The data goes to a temporary file `.NAME.tmp-XXXX` in the same
//     directory; Commit syncs it and renames (or links) it over the target,
//     so readers never see half a file, and Abort, or a failed Commit,
//     removes it: a failure leaves nothing behind.
func CreateAtomic(dir, name string, force bool) (*AtomicFile, error) {
	if name == "" || filepath.IsAbs(name) || filepath.VolumeName(name) != "" || strings.ContainsRune(name, 0) {
		return nil, fmt.Errorf("%w: %q", ErrOutsideDir, name)
	}
	clean := filepath.Clean(name)
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) || clean == "." {
		return nil, fmt.Errorf("%w: %q", ErrOutsideDir, name)
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	realDir, err = filepath.Abs(realDir)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(realDir)
	if err != nil {
		return nil, err
	}
	f := &AtomicFile{root: root, parent: root, base: filepath.Base(clean), target: filepath.Join(realDir, clean), force: force, perm: 0o644}
	fail := func(err error) (*AtomicFile, error) {
		f.closeRoots()
		return nil, err
	}
	if sub := filepath.Dir(clean); sub != "." {
		f.parent, err = root.OpenRoot(sub)
		if err != nil {
			f.parent = root
			return fail(outsideOr(err, name))
		}
	}
	fi, err := f.parent.Lstat(f.base)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return fail(fmt.Errorf("%w: %s is not a regular file", ErrOutsideDir, f.target))
	case err == nil && !force:
		return fail(fmt.Errorf("%w: %s", ErrExists, f.target))
	case err == nil:
		f.perm = fi.Mode().Perm() // replacing: a private file stays private
	case !errors.Is(err, fs.ErrNotExist):
		return fail(outsideOr(err, name))
	}
	if afterCheck != nil {
		afterCheck()
	}
	f.tmp, f.tmpName, err = createTemp(f.parent, f.base, f.perm)
	if err != nil {
		return fail(err)
	}
	return f, nil
}

// Target is the path the file will have once committed.
func (f *AtomicFile) Target() string { return f.target }

// Written is how many bytes have been written so far.
func (f *AtomicFile) Written() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.written
}

// ErrAborted is returned by Write and Commit after Abort.
var ErrAborted = errors.New("output aborted")

// Write appends to the temporary file.
func (f *AtomicFile) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return 0, ErrAborted
	}
	n, err := f.tmp.Write(p)
	f.written += int64(n)
	return n, err
}

// Commit makes the temporary file the target and returns the target's
// path. On failure the temporary file is removed and the target is as it
// was.
func (f *AtomicFile) Commit() (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return "", ErrAborted
	}
	if err := f.commit(); err != nil {
		f.abort()
		return "", err
	}
	f.done, f.committed = true, true
	syncDir(f.parent)
	f.closeRoots()
	return f.target, nil
}

func (f *AtomicFile) commit() error {
	if err := f.tmp.Sync(); err != nil {
		return err
	}
	if f.force {
		// The umask did not apply to a replaced file's own permissions.
		if err := f.tmp.Chmod(f.perm); err != nil {
			return err
		}
	}
	if err := f.tmp.Close(); err != nil {
		return err
	}
	if f.force {
		// Rename replaces whatever is at base now, a symbolic link
		// included, without following it.
		return f.parent.Rename(f.tmpName, f.base)
	}
	if err := f.parent.Link(f.tmpName, f.base); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%w: %s", ErrExists, f.target)
		}
		// A file system without hard links: check again and rename (a
		// narrower race than none at all, which is the best it allows).
		if _, lerr := f.parent.Lstat(f.base); lerr == nil {
			return fmt.Errorf("%w: %s", ErrExists, f.target)
		}
		return f.parent.Rename(f.tmpName, f.base)
	}
	f.parent.Remove(f.tmpName)
	return nil
}

// Abort removes the temporary file; the target is as it was. It may be
// called more than once, after Commit (then it does nothing), and from
// another goroutine than the writer's. It reports whether the target was
// committed.
func (f *AtomicFile) Abort() (committed bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return f.committed
	}
	f.abort()
	return false
}

func (f *AtomicFile) abort() {
	f.done = true
	f.tmp.Close()
	f.parent.Remove(f.tmpName)
	f.closeRoots()
}

func (f *AtomicFile) closeRoots() {
	if f.parent != f.root {
		f.parent.Close()
	}
	f.root.Close()
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
