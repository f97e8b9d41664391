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
	"sync/atomic"

	"github.com/rlog-ls/rlog-ls/internal/openfiles"
)

// ErrExists is returned when the output exists and force is false.
var ErrExists = errors.New("output file exists (use force to overwrite)")

// ErrOutsideDir is returned for a name that would leave the directory,
// directly or through a symbolic link.
var ErrOutsideDir = errors.New("output path leaves the target directory")

// ErrIsFolder is returned for a name that is a folder, not a file.
var ErrIsFolder = errors.New("is a folder, not a file")

// ErrNotRegular is returned for a name that is a device, a named pipe or a
// socket: not a file that can be replaced.
var ErrNotRegular = errors.New("is not a regular file")

// ErrChanged is returned when the file being replaced changed after it was
// read (or, for CreateAtomic, after the checks): it is not replaced, so
// nothing written to it meanwhile is lost.
var ErrChanged = errors.New("changed while it was being replaced")

// ErrOpenForWriting is returned when another process holds the file being
// replaced open for writing (where the system tells it, Linux): what it
// writes after the rename would go to the old, unlinked file and be lost.
var ErrOpenForWriting = errors.New("open for writing by another process")

// ErrOwner is returned when the new version of a file could not be given
// the old one's owner and group: it is not replaced.
var ErrOwner = errors.New("cannot keep the owner and group")

// NotReplacedError says why an existing file was not replaced: Err is
// ErrChanged, ErrOpenForWriting or ErrOwner, and Why the particulars
// ("7 bytes were added", "pid 12 (claude)", "uid 65534, gid 0: operation
// not permitted").
type NotReplacedError struct {
	Path string
	Err  error
	Why  string
}

func (e *NotReplacedError) Error() string {
	switch e.Err {
	case ErrOpenForWriting:
		return e.Path + " is open for writing by " + e.Why
	case ErrOwner:
		return "cannot keep the owner and group of " + e.Path + " (" + e.Why + ")"
	}
	return e.Path + " " + e.Err.Error() + ": " + e.Why
}

func (e *NotReplacedError) Unwrap() error { return e.Err }

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
// (a signal handler) while Write or Commit runs, and wins: Write fails
// within writeChunk bytes, and a Commit that has not renamed yet commits
// nothing.
type AtomicFile struct {
	mu sync.Mutex
	// aborting is set by Abort before it waits for mu, so that a Write or
	// a Commit holding mu gives way to it: with mu, it makes Commit and
	// Abort mutually exclusive, and the first to arrive wins.
	aborting atomic.Bool
	root     *os.Root // dir's root; parent may be it
	parent   *os.Root // the target's folder
	tmp      *os.File
	tmpName  string
	base     string
	target   string
	perm     fs.FileMode
	// replacing is set when an existing file is replaced; was is that
	// file as it was read (ReplaceAtomic) or checked (CreateAtomic).
	replacing bool
	was       fs.FileInfo
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
//   - An existing file is only replaced when force is true, and then as
//     ReplaceAtomic replaces it, as it was at the checks: it keeps its
//     owner, group and permissions, and is not replaced if it changes or
//     another process holds it open for writing. An existing symbolic link
//     (or anything that is not a regular file) is never replaced nor
//     followed. A new file is created with a hard link on Commit, which
//     fails if something appeared at the name meanwhile: no overwrite by
//     race either.
//   - The data goes to a temporary file `.NAME.tmp-XXXX` in the same
//     directory; Commit syncs it and renames (or links) it over the target,
//     so readers never see half a file, and Abort, or a failed Commit,
//     removes it: a failure leaves nothing behind.
func CreateAtomic(dir, name string, force bool) (*AtomicFile, error) {
	return create(dir, name, force, nil)
}

// ReplaceAtomic starts writing a new version of dir/name, an existing
// regular file the caller has read; read is its state from before the
// reading (File.Stat on the descriptor read from). The rules are
// CreateAtomic's with force, and the file is replaced only if it is still
// the same file as read: same device and inode, size, modification and
// change times, and no other process has it open for writing. These are
// checked here, before anything is written (ErrChanged,
// ErrOpenForWriting), and again on Commit, immediately before the
// rename. The new version gets the old one's owner, group and mode; when
// the owner or group cannot be kept (ErrOwner) nothing is replaced.
//
// Why that keeps what a writer appends: a writer either holds the file
// open (an agent writing its log), which Writers sees on Linux, or opens,
// writes and closes it each time (echo >>), which changes its size and
// times, which the last check sees. What remains is a writer that opens
// the file in the microseconds between the last check and the rename and
// writes after it (its descriptor then holds the old, unlinked file), or
// writes within them; no replacement by rename can close that window
// without the writer's cooperation (advisory locks bind only writers that
// take them), so it is kept as short as a stat and a rename. On systems
// that do not tell which processes hold a file, only the state is checked.
func ReplaceAtomic(dir, name string, read fs.FileInfo) (*AtomicFile, error) {
	if read == nil {
		return nil, errors.New("ReplaceAtomic needs the state of the file as it was read")
	}
	return create(dir, name, true, read)
}

func create(dir, name string, force bool, read fs.FileInfo) (*AtomicFile, error) {
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
	f := &AtomicFile{root: root, parent: root, base: filepath.Base(clean), target: filepath.Join(realDir, clean), perm: 0o644}
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
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return fail(fmt.Errorf("%w: %s is a symbolic link", ErrOutsideDir, f.target))
	case err == nil && fi.IsDir():
		return fail(fmt.Errorf("%s %w", f.target, ErrIsFolder))
	case err == nil && !fi.Mode().IsRegular():
		return fail(fmt.Errorf("%s %w", f.target, ErrNotRegular))
	case err == nil && !force:
		return fail(fmt.Errorf("%w: %s", ErrExists, f.target))
	case err == nil:
		f.replacing, f.was = true, fi
		if read != nil {
			f.was = read
		}
		if err := f.unchanged(fi); err != nil {
			return fail(err)
		}
		// A private file stays private; the umask does not apply.
		f.perm = fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	case errors.Is(err, fs.ErrNotExist) && read != nil:
		return fail(&NotReplacedError{f.target, ErrChanged, "it was removed"})
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
	if f.replacing {
		if err := f.keepOwnerAndMode(); err != nil {
			f.abort()
			return nil, err
		}
	}
	return f, nil
}

// unchanged checks that no other process writes to the file being
// replaced and that now, its state at this moment, is its state as read.
func (f *AtomicFile) unchanged(now fs.FileInfo) error {
	// The writers first: they say why the file changes.
	writers, err := openfiles.Writers(now)
	if err == nil && len(writers) > 0 {
		return &NotReplacedError{f.target, ErrOpenForWriting, openfiles.List(writers)}
	}
	if why := changedSince(f.was, now); why != "" {
		return &NotReplacedError{f.target, ErrChanged, why}
	}
	return nil
}

// changedSince says how the file now differs from the file as it was, or
// "" when it is the same file in the same state.
func changedSince(was, now fs.FileInfo) string {
	switch {
	case !os.SameFile(was, now) || now.Mode().Type() != was.Mode().Type():
		// The type too: a name removed and made again can get the same
		// inode number.
		return "another file took its name"
	case now.Size() > was.Size():
		return fmt.Sprintf("%d bytes were added", now.Size()-was.Size())
	case now.Size() != was.Size():
		return fmt.Sprintf("its size went from %d to %d bytes", was.Size(), now.Size())
	case !now.ModTime().Equal(was.ModTime()):
		return "it was modified"
	}
	if c0, ok := changeTime(was); ok {
		if c1, _ := changeTime(now); !c1.Equal(c0) {
			return "it was modified, or its owner or permissions changed"
		}
	}
	return ""
}

// chown gives the temporary file the replaced file's owner; tests replace
// it to refuse, as the system refuses a user who is not root.
var chown = (*os.File).Chown

// keepOwnerAndMode gives the new version the owner, group and mode of the
// file it replaces, or fails with ErrOwner: a file of another user,
// rewritten by root, must not become root's.
func (f *AtomicFile) keepOwnerAndMode() error {
	uid, gid, ok := ownerOf(f.was)
	if ok {
		tfi, err := f.tmp.Stat()
		if err != nil {
			return err
		}
		if tuid, tgid, _ := ownerOf(tfi); tuid != uid || tgid != gid {
			if err := chown(f.tmp, uid, gid); err != nil {
				if cause := errors.Unwrap(err); cause != nil {
					err = cause // the reason, without the temporary file's name
				}
				return &NotReplacedError{f.target, ErrOwner, fmt.Sprintf("uid %d, gid %d: %v", uid, gid, err)}
			}
		}
	}
	// After the chown, which clears the set-id bits.
	return f.tmp.Chmod(f.perm)
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

// writeChunk is the most Write writes without letting an Abort in.
const writeChunk = 1 << 20

// Write appends to the temporary file, a chunk at a time: an Abort from
// another goroutine stops it within a chunk (ErrAborted), rather than
// after the whole of p, which can be a whole page.
func (f *AtomicFile) Write(p []byte) (int, error) {
	n := 0
	for {
		chunk := p[n:min(len(p), n+writeChunk)]
		m, err := f.writeLocked(chunk)
		n += m
		if err != nil || n == len(p) {
			return n, err
		}
	}
}

func (f *AtomicFile) writeLocked(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done || f.aborting.Load() {
		return 0, ErrAborted
	}
	n, err := f.tmp.Write(p)
	f.written += int64(n)
	return n, err
}

// Commit makes the temporary file the target and returns the target's
// path. On failure the temporary file is removed and the target is as it
// was. Once Abort has been called, from any goroutine, Commit commits
// nothing and returns ErrAborted.
func (f *AtomicFile) Commit() (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done || f.aborting.Load() {
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
	if err := f.tmp.Close(); err != nil {
		return err
	}
	// The sync can take a while: an Abort that came meanwhile wins.
	if f.aborting.Load() {
		return ErrAborted
	}
	if f.replacing {
		// The last checks, as close to the rename as they can be (see
		// ReplaceAtomic): the writers first, which takes longest, then
		// the file's state.
		now, err := f.parent.Lstat(f.base)
		if err != nil {
			return &NotReplacedError{f.target, ErrChanged, "it was removed"}
		}
		if err := f.unchanged(now); err != nil {
			return err
		}
		if now, err = f.parent.Lstat(f.base); err != nil {
			return &NotReplacedError{f.target, ErrChanged, "it was removed"}
		}
		if why := changedSince(f.was, now); why != "" {
			return &NotReplacedError{f.target, ErrChanged, why}
		}
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
	f.aborting.Store(true)
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
