// Package tail follows growing files as `tail -F` does: files named
// explicitly (even before they exist), and the files that match in
// folders, including files and folders that appear later. It delivers
// complete lines as they are appended, and says when a file is truncated,
// replaced by another at the same name (rotated) or removed.
//
// Changes are noticed through the operating system's file notifications
// (fsnotify: inotify, kqueue, ReadDirectoryChangesW), so a line is seen
// as soon as it is written, with a slow poll as a safety net. Where
// notifications do not work it polls instead: on network file systems
// (NFS, SMB, FUSE mounts such as sshfs), whose servers never tell the
// client about writes made elsewhere; when the system's notification
// limits are reached (inotify instances or watches); and when asked to.
package tail

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Kind is what happened to a followed file.
type Kind uint8

const (
	// Opened: the file is followed from now on; its content follows as
	// Appended events, from its start.
	Opened Kind = iota
	// Appended: Data holds complete lines (each ending with a line feed)
	// added to the file.
	Appended
	// Truncated: the file was cut short or rewritten; what follows is read
	// from its start.
	Truncated
	// Rotated: another file took the name (the old one was renamed or
	// removed and a new one created); what follows is the new file's, from
	// its start. The old file's last lines come before it.
	Rotated
	// Removed: the file is gone (for a second, or a poll interval if
	// longer: a new file at its name within it is a rotation); it is
	// followed again if it reappears and was named explicitly or is in a
	// followed folder.
	Removed
	// Failed: Err says why the file could not be read; it is tried again.
	Failed
)

var kindNames = [...]string{"opened", "appended", "truncated", "rotated", "removed", "failed"}

func (k Kind) String() string { return kindNames[k] }

// Event is something that happened to one followed file.
type Event struct {
	Path string
	Kind Kind
	Data []byte // Appended: the lines; never modified afterwards
	Err  error  // Failed
	// AtStart marks an Opened file that was there when following began.
	AtStart bool
	// ModTime and Size are the file's modification time and size when it
	// was opened (Opened).
	ModTime time.Time
	Size    int64
	// Backlog marks Appended lines that were in the file when it was
	// opened (or truncated, or rotated in), as opposed to lines written
	// since.
	Backlog bool
	// CaughtUp marks the Appended event that ends the backlog.
	CaughtUp bool
}

// Options configure Follow.
type Options struct {
	// Match selects the files followed in folders, by name; nil follows
	// every file. Files named explicitly are always followed.
	Match func(name string) bool
	// Poll polls instead of using file notifications.
	Poll bool
	// Interval is how often files are polled (default 1 s). With
	// notifications it is the pace of the safety net, five times slower.
	Interval time.Duration
	// ReadSize bounds the bytes read from a file at once (default 4 MB):
	// a long file arrives as several Appended events.
	ReadSize int
}

// Follower follows files; read what happens from Events.
type Follower struct {
	// Events delivers what happened, in order for each file. It is closed
	// when the context given to Follow is done.
	Events <-chan Event
	// Started is closed once following has begun: every file there at
	// the start has been opened and its Opened and backlog events sent.
	// A line written after that is never in the backlog; one written
	// between Follow's return and then may be.
	Started <-chan struct{}
	// Mode says how changes are noticed: "notifications", or "polling"
	// and why.
	Mode string
}

// Follow starts following paths: files, and folders (recursively). A file
// that does not exist yet is awaited, if its folder exists. It fails only
// when a path can never be followed.
func Follow(ctx context.Context, paths []string, opts Options) (*Follower, error) {
	if opts.Interval <= 0 {
		opts.Interval = time.Second
	}
	if opts.ReadSize <= 0 {
		opts.ReadSize = 4 << 20
	}
	if opts.Match == nil {
		opts.Match = func(string) bool { return true }
	}
	fl := &follower{
		opts:     opts,
		out:      make(chan Event, 64),
		begun:    make(chan struct{}),
		files:    map[string]*file{},
		explicit: map[string]bool{},
		folders:  map[string]bool{},
		watched:  map[string]bool{},
	}
	var roots []string
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		info, err := os.Stat(abs)
		switch {
		case err == nil && info.IsDir():
			fl.folders[abs] = true
			roots = append(roots, abs)
		case err == nil:
			fl.explicit[abs] = true
			roots = append(roots, filepath.Dir(abs))
		case errors.Is(err, fs.ErrNotExist):
			// Awaited: its folder must exist to be watched.
			dir := filepath.Dir(abs)
			if d, derr := os.Stat(dir); derr != nil || !d.IsDir() {
				return nil, fmt.Errorf("%s: no such file or folder", p)
			}
			fl.explicit[abs] = true
			roots = append(roots, dir)
		default:
			return nil, err
		}
	}
	fl.mode = fl.startNotifications(roots)
	go fl.run(ctx)
	return &Follower{Events: fl.out, Started: fl.begun, Mode: fl.mode}, nil
}

type follower struct {
	opts     Options
	out      chan Event
	files    map[string]*file // followed, by absolute path
	explicit map[string]bool  // files named explicitly (followed or awaited)
	folders  map[string]bool  // folders named explicitly
	watched  map[string]bool  // folders with a notification watch
	fsw      *fsnotify.Watcher
	mode     string
	started  bool          // the first scan is over
	begun    chan struct{} // closed when it is
}

// file is one followed file.
type file struct {
	path    string
	f       *os.File
	info    os.FileInfo // of f, to tell a new file at the same name
	off     int64       // bytes of f read
	partial []byte      // bytes read after the last line feed
	head    []byte      // the first bytes read, to tell a rewritten file
	backlog int64       // the file's size when it was opened or truncated
	goneAt  time.Time   // when its name was first found gone, if it is
	// caughtUp is set once the backlog has been read.
	caughtUp bool
}

// removeGrace is the least time a followed name may be gone before its
// file counts as removed rather than rotated: a writer renames the old file
// and then creates the new one, which a busy machine may take a while to do.
const removeGrace = time.Second

// headSize is how many of a file's first bytes are kept to notice that it
// was rewritten while it was not watched shrinking.
const headSize = 64

// startNotifications sets up file notifications for the folders, or says
// why it polls.
func (fl *follower) startNotifications(roots []string) string {
	if fl.opts.Poll {
		return "polling (asked for)"
	}
	for _, r := range roots {
		if fsType, remote := networkFileSystem(r); remote {
			return fmt.Sprintf("polling (%s is on %s, which sends no notifications of writes made elsewhere)", r, fsType)
		}
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Sprintf("polling (file notifications are unavailable: %v)", err)
	}
	fl.fsw = w
	for _, r := range roots {
		if err := fl.watch(r); err != nil {
			_ = w.Close()
			fl.fsw = nil
			clear(fl.watched)
			return fmt.Sprintf("polling (file notifications are unavailable: %v)", err)
		}
	}
	return "notifications"
}

// watch adds a notification watch on dir and, for followed folders, on
// the folders under it.
func (fl *follower) watch(dir string) error {
	if fl.fsw == nil || fl.watched[dir] {
		return nil
	}
	if err := fl.fsw.Add(dir); err != nil {
		return fmt.Errorf("watching %s: %w", dir, err)
	}
	fl.watched[dir] = true
	if !fl.inFolder(dir) {
		return nil
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			if err := fl.watch(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// inFolder reports whether path is a followed folder or under one.
func (fl *follower) inFolder(path string) bool {
	for dir := path; ; {
		if fl.folders[dir] {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

func (fl *follower) run(ctx context.Context) {
	defer close(fl.out)
	defer func() {
		for _, f := range fl.files {
			f.close()
		}
		if fl.fsw != nil {
			_ = fl.fsw.Close()
		}
	}()
	fl.scan(ctx)
	fl.started = true
	close(fl.begun)
	interval := fl.opts.Interval
	var events <-chan fsnotify.Event
	var errs <-chan error
	if fl.fsw != nil {
		interval *= 5
		events, errs = fl.fsw.Events, fl.fsw.Errors
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			fl.notified(ctx, ev)
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			// A lost event (the queue overflowed) may be anything: look at
			// everything again.
			_ = err
			fl.scan(ctx)
		case <-tick.C:
			if fl.fsw == nil {
				fl.scan(ctx)
			} else {
				fl.pollAll(ctx)
			}
		}
	}
}

// notified handles one file notification: the file it names is read,
// started or dropped; a new folder in a followed folder is watched and
// read.
func (fl *follower) notified(ctx context.Context, ev fsnotify.Event) {
	path := ev.Name
	if _, ok := fl.files[path]; ok {
		fl.poll(ctx, path)
		return
	}
	info, err := os.Stat(path)
	if err != nil {
		return
	}
	if info.IsDir() {
		if fl.inFolder(path) {
			_ = fl.watch(path) // on failure the safety poll still reads it
			fl.scanFolder(ctx, path)
		}
		return
	}
	if fl.wanted(path) {
		fl.start(ctx, path, true)
	}
}

// wanted reports whether a file at path is to be followed.
func (fl *follower) wanted(path string) bool {
	return fl.explicit[path] || fl.inFolder(filepath.Dir(path)) && fl.opts.Match(filepath.Base(path))
}

// scan looks at everything: the files named, the folders' files (new ones
// are started), and every followed file.
func (fl *follower) scan(ctx context.Context) {
	for _, p := range slices.Sorted(maps.Keys(fl.explicit)) {
		if _, ok := fl.files[p]; !ok {
			if info, err := os.Stat(p); err == nil && !info.IsDir() {
				fl.start(ctx, p, true)
			}
		}
	}
	for _, d := range slices.Sorted(maps.Keys(fl.folders)) {
		fl.scanFolder(ctx, d)
	}
	fl.pollAll(ctx)
}

// scanFolder starts the matching files under dir that are not followed yet.
func (fl *follower) scanFolder(ctx context.Context, dir string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || ctx.Err() != nil {
			return nil
		}
		if d.IsDir() {
			_ = fl.watch(p)
			return nil
		}
		if _, ok := fl.files[p]; !ok && fl.opts.Match(d.Name()) && d.Type().IsRegular() {
			fl.start(ctx, p, true)
		}
		return nil
	})
}

func (fl *follower) pollAll(ctx context.Context) {
	for _, p := range slices.Sorted(maps.Keys(fl.files)) {
		fl.poll(ctx, p)
	}
}

// start begins following the file at path from its start; a new file at
// a followed name (a rotation) is not announced again.
func (fl *follower) start(ctx context.Context, path string, announce bool) {
	f, err := os.Open(path)
	if err != nil {
		fl.send(ctx, Event{Path: path, Kind: Failed, Err: err})
		return
	}
	info, err := f.Stat()
	if err != nil {
		_ = f.Close()
		fl.send(ctx, Event{Path: path, Kind: Failed, Err: err})
		return
	}
	fl.files[path] = &file{path: path, f: f, info: info, backlog: info.Size()}
	if announce {
		fl.send(ctx, Event{Path: path, Kind: Opened, AtStart: !fl.started, ModTime: info.ModTime(), Size: info.Size()})
	}
	fl.read(ctx, fl.files[path])
}

// poll checks one followed file for growth, truncation, rotation and
// removal.
func (fl *follower) poll(ctx context.Context, path string) {
	fi := fl.files[path]
	if fi == nil {
		return
	}
	info, err := os.Stat(path)
	if err == nil {
		fi.goneAt = time.Time{}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A rotation renames the file and then creates a new one: the name
		// is given a moment to come back before the file counts as removed.
		if fi.goneAt.IsZero() {
			fl.read(ctx, fi) // the last lines written before it went
			fi.goneAt = time.Now()
			return
		}
		if time.Since(fi.goneAt) < max(fl.opts.Interval, removeGrace) {
			return
		}
		fi.close()
		delete(fl.files, path)
		fl.send(ctx, Event{Path: path, Kind: Removed})
	case err != nil:
		fl.send(ctx, Event{Path: path, Kind: Failed, Err: err})
	case !os.SameFile(info, fi.info):
		fl.read(ctx, fi)
		fi.close()
		delete(fl.files, path)
		fl.send(ctx, Event{Path: path, Kind: Rotated})
		fl.start(ctx, path, false)
	case info.Size() < fi.off || fi.rewritten():
		fi.off, fi.partial, fi.head, fi.backlog, fi.caughtUp = 0, nil, nil, info.Size(), false
		fl.send(ctx, Event{Path: path, Kind: Truncated})
		fl.read(ctx, fi)
	case info.Size() > fi.off:
		fl.read(ctx, fi)
	}
}

// rewritten reports whether the file's first bytes are no longer those
// read: it was rewritten, however long it is now.
func (fi *file) rewritten() bool {
	if len(fi.head) == 0 {
		return false
	}
	now := make([]byte, len(fi.head))
	n, _ := fi.f.ReadAt(now, 0)
	return n < len(now) || !bytes.Equal(now, fi.head)
}

// read reads what was appended to the file and sends its complete lines.
func (fl *follower) read(ctx context.Context, fi *file) {
	buf := make([]byte, fl.opts.ReadSize)
	for ctx.Err() == nil {
		n, err := fi.f.ReadAt(buf, fi.off)
		if n > 0 {
			if len(fi.head) < headSize {
				fi.head = append(fi.head, buf[:min(n, headSize-len(fi.head))]...)
			}
			fi.off += int64(n)
			data := append(fi.partial, buf[:n]...)
			end := bytes.LastIndexByte(data, '\n') + 1
			fi.partial = bytes.Clone(data[end:])
			if end > 0 {
				backlog := fi.off-int64(len(data)-end) <= fi.backlog && !fi.caughtUp
				fi.caughtUp = fi.caughtUp || fi.off >= fi.backlog
				fl.send(ctx, Event{Path: fi.path, Kind: Appended, Data: data[:end:end], Backlog: backlog, CaughtUp: backlog && fi.caughtUp})
			}
		}
		if err != nil || n < len(buf) {
			if err != nil && !errors.Is(err, io.EOF) {
				fl.send(ctx, Event{Path: fi.path, Kind: Failed, Err: err})
			}
			return
		}
	}
}

func (fi *file) close() { _ = fi.f.Close() }

func (fl *follower) send(ctx context.Context, ev Event) {
	select {
	case fl.out <- ev:
	case <-ctx.Done():
	}
}
