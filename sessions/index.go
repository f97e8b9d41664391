package sessions

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlog-ls/rlog-ls/convert"
)

// IndexVersion is the version of the index file's layout: an index of
// another version is read as empty and rebuilt.
const IndexVersion = 6

// IndexEnv names the environment variable that moves the index file.
const IndexEnv = "RLOG_LS_SESSIONS_INDEX"

// DefaultIndexPath is where the index is kept: $RLOG_LS_SESSIONS_INDEX,
// else rlog-ls/sessions.json in the user's cache folder
// (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on Linux).
func DefaultIndexPath() (string, error) {
	if p := os.Getenv(IndexEnv); p != "" {
		return p, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "rlog-ls", "sessions.json"), nil
}

// entry is what the index keeps of one file, valid while the file has
// the size and modification time it had when it was read.
type entry struct {
	Path    string `json:"path"`
	Size    int64  `json:"size"`
	ModNS   int64  `json:"mod_ns"`
	Session bool   `json:"session"` // a session (else: a file that is not one)
	// HeadOnly says only the header was read (Cwd), for a Codex file of
	// another folder.
	HeadOnly bool   `json:"head_only,omitempty"`
	Cwd      string `json:"cwd,omitempty"`
	Row      *Row   `json:"row,omitempty"`
	Err      string `json:"err,omitempty"`
	// Cut is where the file is read on from when it grows (resume.go);
	// Rest what such a read gained, when its changes, prompts, calls and
	// phases before the cut are in the changes file (fillChanges joins
	// them).
	Cut  *cut  `json:"cut,omitempty"`
	Rest *rest `json:"rest,omitempty"`
	// changes, prompts, calls and phases are the session's when it was
	// read by this process, until they are saved (kept in the changes
	// file, changesPath, not in the index: only --touched and workspace
	// symbols need them); changed says so.
	changes []Change
	prompts []Prompt
	calls   []Call
	phases  []Phase
	changed bool
	// unplaced says changes, prompts and calls have no lines yet
	// (placeAll): a listing reads for its rows, and places them only when
	// asked for them.
	unplaced bool
	seen     bool
	// resumed says the file was read from its cut only (Listing.Resumed):
	// its changes, prompts, calls and phases are those before the cut
	// (kept by this process, or in the changes file: Rest) and those read.
	resumed bool
	// spilled says where changes, prompts, calls and phases are while a
	// listing that does not need them runs (they are then nil): in the
	// index's spill file, until they are saved.
	spilled *spillRef
}

// changeEntry is what the changes file keeps of one session: its file
// changes, valid while the file has that size and modification time.
type changeEntry struct {
	Path    string   `json:"path"`
	Size    int64    `json:"size"`
	ModNS   int64    `json:"mod_ns"`
	Changes []Change `json:"changes"`
	Prompts []Prompt `json:"prompts,omitempty"`
	Calls   []Call   `json:"calls,omitempty"`
	Phases  []Phase  `json:"phases,omitempty"`
	// Unplaced says Changes, Prompts and Calls have no lines yet.
	Unplaced bool `json:"unplaced,omitempty"`
}

// changesVersion is the version of the changes file's layout (6: with
// each session's calls and phases), IndexVersion the index's: a changes
// file of another version is read as empty, and its sessions are read
// again when they are asked for.
const changesVersion = 6

func (c *changeEntry) lists() lists { return lists{c.Changes, c.Prompts, c.Calls, c.Phases} }

func (e *entry) lists() lists { return lists{e.changes, e.prompts, e.calls, e.phases} }

func (e *entry) setLists(l lists) {
	e.spilled = nil
	e.changes, e.prompts, e.calls, e.phases = l.Changes, l.Prompts, l.Calls, l.Phases
}

// changeEntry is what the changes file keeps of e.
func (e *entry) changeEntry() *changeEntry {
	return &changeEntry{Path: e.Path, Size: e.Size, ModNS: e.ModNS, Changes: e.changes, Prompts: e.prompts,
		Calls: e.calls, Phases: e.phases, Unplaced: e.unplaced}
}

func (e *entry) fresh(fi os.FileInfo) bool {
	return e.Size == fi.Size() && e.ModNS == fi.ModTime().UnixNano()
}

// Index is the sessions index: the rows of the files read before, kept in
// a file between runs. It is safe for concurrent use; two processes may
// use one file at once (each writes a whole index in its place, the last
// one's is kept, and what the other read is read again next time).
type Index struct {
	path    string
	mu      sync.Mutex
	entries map[string]*entry
	dirty   bool
	// changes are the changes file's entries once it is read (nil before),
	// changesDirty says sessions were read since.
	changes      map[string]*changeEntry
	changesDirty bool
	// keepChanges says a listing asked for the changes: they stay read
	// for the next one (a server's next workspace symbols query).
	keepChanges bool
	// spill is where listings that do not need the sessions' changes,
	// prompts, calls and phases put those of the sessions they read, until
	// they are saved (nil when none are); spilling counts the listings
	// writing to it now. spillMu guards both.
	spillMu  sync.Mutex
	spill    *spillFile
	spilling int
	// Rebuilt says why the file was not read (corrupt, another version),
	// "" when it was or there was none.
	Rebuilt string
}

// Open reads the index at path; a missing file is an empty index, and so
// is a corrupt one or one of another version (Rebuilt says which).
func Open(path string) *Index {
	ix := &Index{path: path, entries: map[string]*entry{}}
	f, err := os.Open(path)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			ix.Rebuilt = err.Error()
		}
		return ix
	}
	defer f.Close()
	err = readEntries(f, IndexVersion, func() *entry { return new(entry) }, func(e *entry) {
		if e != nil && e.Path != "" {
			ix.entries[e.Path] = e
		}
	})
	var ve versionError
	switch {
	case errors.As(err, &ve):
		ix.Rebuilt = ve.Error()
	case err != nil:
		ix.Rebuilt = "the index was corrupt: " + err.Error()
	}
	if err != nil {
		clear(ix.entries)
	}
	return ix
}

// Path is the index file's path.
func (ix *Index) Path() string { return ix.path }

// Save writes the index when it changed, atomically: a temporary file in
// the same folder, renamed over the old one, so that no reader ever sees
// half an index. Entries of files that are gone are dropped.
func (ix *Index) Save() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for p, e := range ix.entries {
		if !e.seen {
			if _, err := os.Stat(p); err != nil {
				delete(ix.entries, p)
				ix.dirty = true
			}
		}
	}
	if ix.changesDirty {
		if err := ix.saveChanges(); err != nil {
			return err
		}
	}
	if !ix.dirty {
		return nil
	}
	entries := make([]*entry, 0, len(ix.entries))
	for _, e := range ix.entries {
		entries = append(entries, e)
	}
	slices.SortFunc(entries, func(a, b *entry) int { return cmp.Compare(a.Path, b.Path) })
	if err := writeEntries(ix.path, IndexVersion, entries); err != nil {
		return err
	}
	ix.dirty = false
	return nil
}

// changesPath is the changes file: beside the index, NAME.changes.json.
func (ix *Index) changesPath() string {
	return strings.TrimSuffix(ix.path, ".json") + ".changes.json"
}

// loadChanges reads the changes file once (with ix.mu held); a missing,
// corrupt or old one is empty: the sessions it lacks are read again when
// their changes are needed.
func (ix *Index) loadChanges() {
	if ix.changes != nil {
		return
	}
	ix.changes = map[string]*changeEntry{}
	f, err := os.Open(ix.changesPath())
	if err != nil {
		return
	}
	defer f.Close()
	// A tool's name, a file's path and a phase's name recur in many
	// sessions (a heavy user's have a million calls of a few dozen
	// tools): one string each is kept.
	names := map[string]string{}
	intern := func(s string) string {
		if n, ok := names[s]; ok {
			return n
		}
		names[s] = s
		return s
	}
	// Each entry is decoded into the one scratch entry and kept in slices
	// of its size.
	next := scratchChangeEntry()
	clone := func(c changeEntry) *changeEntry {
		c.Changes, c.Prompts = cloneOrNil(c.Changes), cloneOrNil(c.Prompts)
		c.Calls, c.Phases = cloneOrNil(c.Calls), cloneOrNil(c.Phases)
		for i := range c.Changes {
			c.Changes[i].Tool, c.Changes[i].Target = intern(c.Changes[i].Tool), intern(c.Changes[i].Target)
		}
		for i := range c.Calls {
			c.Calls[i].Tool, c.Calls[i].Target = intern(c.Calls[i].Tool), intern(c.Calls[i].Target)
		}
		for i := range c.Phases {
			c.Phases[i].Name = intern(c.Phases[i].Name)
		}
		return &c
	}
	err = readEntries(f, changesVersion, next, func(c *changeEntry) {
		if c.Path != "" {
			ix.changes[c.Path] = clone(*c)
		}
	})
	if err != nil {
		clear(ix.changes)
	}
}

// scratchChangeEntry gives the one entry each entry of a changes file is
// decoded into, emptied, its slices growing to the longest.
func scratchChangeEntry() func() *changeEntry {
	scratch := new(changeEntry)
	return func() *changeEntry {
		*scratch = changeEntry{Changes: scratch.Changes[:0], Prompts: scratch.Prompts[:0], Calls: scratch.Calls[:0], Phases: scratch.Phases[:0]}
		return scratch
	}
}

// cloneOrNil is a copy of s of its length, nil when s is empty.
func cloneOrNil[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return slices.Clone(s)
}

// saveChanges merges the changes of the sessions read into the changes
// file, without those of files the index no longer has (with ix.mu held).
// When the changes file was not read (no listing asked for the changes),
// it is written by streamChanges, holding one of its entries at a time.
func (ix *Index) saveChanges() error {
	if ix.changes == nil && !ix.keepChanges {
		if err := ix.streamChanges(); err != nil {
			return err
		}
		ix.saved()
		return nil
	}
	ix.loadChanges()
	for p, e := range ix.entries {
		ix.unspill(e)
		if e.changed {
			ix.changes[p] = e.changeEntry()
		}
	}
	entries := make([]*changeEntry, 0, len(ix.changes))
	for p, c := range ix.changes {
		if e, ok := ix.entries[p]; !ok || (e.Size != c.Size || e.ModNS != c.ModNS) && !e.Rest.follows(c) {
			delete(ix.changes, p)
			continue
		}
		entries = append(entries, c)
	}
	slices.SortFunc(entries, func(a, b *changeEntry) int { return cmp.Compare(a.Path, b.Path) })
	if err := writeEntries(ix.changesPath(), changesVersion, entries); err != nil {
		return err
	}
	ix.saved()
	return nil
}

// saved lets go of what the changes file holds now, which is not kept
// twice: the entries let go of theirs, and so does the index unless a
// listing asked for them (a listing of rows, the server's Sessions view,
// keeps none of them); the spill file goes unless a listing writes to it.
func (ix *Index) saved() {
	ix.changesDirty = false
	for _, e := range ix.entries {
		if e.changed {
			e.setLists(lists{})
			e.changed = false
		}
	}
	if !ix.keepChanges {
		ix.changes = nil
	}
	ix.spillMu.Lock()
	if ix.spill != nil && ix.spilling == 0 {
		ix.spill.close()
		ix.spill = nil
	}
	ix.spillMu.Unlock()
}

// errOldChanges says the changes file is corrupt, of another version or
// not in path order: it is written again as if there were none.
var errOldChanges = errors.New("the changes file could not be read")

// streamChanges writes the changes file as saveChanges does from memory,
// the same bytes, holding one of its entries at a time: those of the old
// file, read in path order, merged with those of the sessions read (spilled
// or held), in path order; an old file that cannot be read is none.
func (ix *Index) streamChanges() error {
	var read []*entry
	for _, e := range ix.entries {
		if e.changed {
			read = append(read, e)
		}
	}
	slices.SortFunc(read, func(a, b *entry) int { return cmp.Compare(a.Path, b.Path) })
	err := ix.writeChangesMerged(read, true)
	if errors.Is(err, errOldChanges) {
		err = ix.writeChangesMerged(read, false)
	}
	return err
}

// writeChangesMerged writes the changes file: read's entries and, withOld,
// the old file's of the files the index still has, fresh or followed by
// their Rest, in path order (an entry of read replaces the old one).
func (ix *Index) writeChangesMerged(read []*entry, withOld bool) error {
	return writeEntriesFrom(ix.changesPath(), changesVersion, func(put func(any) error) error {
		i := 0
		// putRead puts read's entries up to the path upTo (all: nil).
		putRead := func(upTo *string) error {
			for ; i < len(read) && (upTo == nil || read[i].Path <= *upTo); i++ {
				e := read[i]
				if e.spilled == nil {
					if err := put(e.changeEntry()); err != nil {
						return err
					}
					continue
				}
				// Lists the spill file cannot give back are not kept: the
				// session is read again when they are asked for.
				if b, err := e.spilled.bytes(); err == nil {
					if err := put(json.RawMessage(b)); err != nil {
						return err
					}
				}
			}
			return nil
		}
		f, err := os.Open(ix.changesPath())
		if err == nil {
			defer f.Close()
		}
		if withOld && err == nil {
			var putErr error
			last := ""
			err := readEntries(f, changesVersion, scratchChangeEntry(), func(c *changeEntry) {
				if putErr != nil || c.Path == "" {
					return
				}
				if c.Path <= last {
					putErr = errOldChanges
					return
				}
				last = c.Path
				if putErr = putRead(&c.Path); putErr != nil || i > 0 && read[i-1].Path == c.Path {
					return
				}
				if e, ok := ix.entries[c.Path]; !ok || (e.Size != c.Size || e.ModNS != c.ModNS) && !e.Rest.follows(c) {
					return
				}
				// As loadChanges keeps it: an empty list is none.
				c.Changes, c.Prompts = nilIfEmpty(c.Changes), nilIfEmpty(c.Prompts)
				c.Calls, c.Phases = nilIfEmpty(c.Calls), nilIfEmpty(c.Phases)
				putErr = put(c)
			})
			if putErr != nil {
				return putErr
			}
			if err != nil {
				return errOldChanges
			}
		}
		return putRead(nil)
	})
}

// nilIfEmpty is s, nil when it is empty.
func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// spillFile is a temporary file beside the index that sessions' changes,
// prompts, calls and phases are written to, each as the changeEntry the
// changes file will keep, until they are saved: a listing that does not
// need them holds those of the sessions it reads at once, not of all.
type spillFile struct {
	f    *os.File
	name string // "" once removed
	end  int64
}

// spillRef is where an entry's lists are in a spill file.
type spillRef struct {
	f      *spillFile
	off, n int64
}

func newSpillFile(dir string) (*spillFile, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, ".sessions-*.spill")
	if err != nil {
		return nil, err
	}
	sf := &spillFile{f: f, name: f.Name()}
	// Removed at once where an open file can be: nothing is left of it
	// however the process ends.
	if os.Remove(f.Name()) == nil {
		sf.name = ""
	}
	return sf, nil
}

func (sf *spillFile) close() {
	sf.f.Close()
	if sf.name != "" {
		os.Remove(sf.name)
	}
}

// bytes is the changeEntry spilled, as JSON.
func (r *spillRef) bytes() ([]byte, error) {
	b := make([]byte, r.n)
	if _, err := r.f.f.ReadAt(b, r.off); err != nil {
		return nil, err
	}
	return b, nil
}

// spillLists writes e's lists to the spill file and lets go of them (any
// goroutine); they stay held when it cannot be written.
func (ix *Index) spillLists(e *entry) {
	if !e.changed || e.lists().empty() {
		return
	}
	b, err := json.Marshal(e.changeEntry())
	if err != nil {
		return
	}
	ix.spillMu.Lock()
	defer ix.spillMu.Unlock()
	if ix.spill == nil {
		sf, err := newSpillFile(filepath.Dir(ix.path))
		if err != nil {
			return
		}
		ix.spill = sf
	}
	sf := ix.spill
	if _, err := sf.f.WriteAt(b, sf.end); err != nil {
		return
	}
	ref := &spillRef{sf, sf.end, int64(len(b))}
	sf.end += ref.n
	e.setLists(lists{})
	e.spilled = ref
}

// unspill gives e back the lists it spilled (with ix.mu held); lists the
// spill file cannot give back are lost: e has none (changed is false) and
// the session is read again when they are asked for.
func (ix *Index) unspill(e *entry) {
	if e.spilled == nil {
		return
	}
	b, err := e.spilled.bytes()
	var c changeEntry
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil {
		e.setLists(lists{})
		e.changed = false
		return
	}
	e.setLists(c.lists())
}

// Listing is the result of a listing: the sessions, newest first, and the
// files that could not be read.
type Listing struct {
	Sessions []*Session
	Problems []Problem
	// Read counts the files read for this listing (the others' rows came
	// from the index), Resumed those of them read from a cut only.
	Read, Resumed int
}

// Problem is a file that could not be listed, and why.
type Problem struct {
	File string `json:"file"`
	Err  string `json:"error"`
}

func (p Problem) Error() string { return p.File + ": " + p.Err }

// Request is what to list: Files are sessions named by the user (an
// error when one is not); Candidates are files found in folders, listed
// when they are sessions; Maybe are candidates listed when they are
// sessions whose header's cwd is Cwd.
type Request struct {
	Files, Candidates, Maybe []string
	Cwd                      string
	// Folders are where new sessions would appear (Places.Folders).
	Folders []string
	// Changes asks for each session's file changes and prompts too
	// (--touched, workspace symbols), which the index keeps apart.
	Changes bool
	// Progress, when set, is told how many of the files to read are read.
	Progress func(done, total int)
}

// List lists the sessions of req, reading only the files the index has no
// fresh entry for (on every core), and keeps what it read.
func (ix *Index) List(ctx context.Context, req Request) *Listing {
	out := &Listing{}
	jobs, fresh := ix.plan(req, out)
	read := ix.read(ctx, jobs, req, out)
	ix.rows(out, append(fresh, read...), req)
	if req.Changes {
		ix.fillChanges(ctx, out.Sessions)
	}
	SortNewestFirst(out.Sessions)
	slices.SortFunc(out.Problems, func(a, b Problem) int { return cmp.Compare(a.File, b.File) })
	return out
}

// readJob is a file a listing reads: the index has no fresh entry for it.
type readJob struct {
	path     string
	named    bool
	headOnly bool // a Maybe file: its cwd first
	fi       os.FileInfo
	old      *entry // a copy of the index's entry, not fresh
}

// plan sorts the files of req into those to read and the index's fresh
// entries for the others, each file once; a file named by the user that
// is missing or a folder is a problem of out.
func (ix *Index) plan(req Request, out *Listing) (jobs []readJob, fresh []*entry) {
	seen := map[string]bool{}
	look := func(paths []string, named, maybe bool) {
		for _, p := range paths {
			if seen[p] {
				continue
			}
			seen[p] = true
			fi, err := os.Stat(p)
			if err != nil {
				if named {
					out.Problems = append(out.Problems, Problem{p, describe(err)})
				}
				continue
			}
			if fi.IsDir() {
				if named {
					out.Problems = append(out.Problems, Problem{p, "is a folder"})
				}
				continue
			}
			ix.mu.Lock()
			e, ok := ix.entries[p]
			var was *entry // e as it is now: its changes may be given others
			if ok {
				e.seen = true
				if !e.fresh(fi) {
					c := *e
					ix.unspill(&c)
					was = &c
				}
			}
			ix.mu.Unlock()
			if ok && e.fresh(fi) && (!e.HeadOnly || maybe && e.Cwd != req.Cwd) {
				fresh = append(fresh, e)
				continue
			}
			jobs = append(jobs, readJob{p, named, maybe, fi, was})
		}
	}
	look(req.Files, true, false)
	look(req.Candidates, false, false)
	look(req.Maybe, false, true)
	return jobs, fresh
}

// read reads the files of jobs on every core and keeps their entries in
// the index, counting in out what it read.
func (ix *Index) read(ctx context.Context, jobs []readJob, req Request, out *Listing) []*entry {
	// A listing that does not need the sessions' changes, prompts, calls
	// and phases spills those it reads as it reads them: it holds those of
	// the sessions being read, not those of the store.
	ix.mu.Lock()
	spill := !req.Changes && !ix.keepChanges
	ix.mu.Unlock()
	if spill {
		ix.spillMu.Lock()
		ix.spilling++
		ix.spillMu.Unlock()
	}
	read := make([]*entry, len(jobs))
	var done atomic.Int64
	eachParallel(ctx, len(jobs), func(i int) {
		j := jobs[i]
		read[i] = readEntry(j.path, j.fi, j.named, j.headOnly, req.Cwd, j.old)
		if spill && read[i] != nil {
			ix.spillLists(read[i])
		}
		if req.Progress != nil {
			req.Progress(int(done.Add(1)), len(jobs))
		}
	})
	ix.mu.Lock()
	for _, e := range read {
		if e != nil {
			e.seen = true
			ix.entries[e.Path] = e
			ix.dirty = true
			if e.changed {
				ix.changesDirty = true
			}
			if e.resumed {
				out.Resumed++
			}
			out.Read++
		}
	}
	if spill {
		ix.spillMu.Lock()
		ix.spilling--
		ix.spillMu.Unlock()
	}
	ix.mu.Unlock()
	return read
}

// rows adds to out the sessions among entries (the index's fresh ones and
// those this listing read) that req lists, and the problems of the files it
// named: a Maybe file of another folder is left out, and a sub-agent's file
// is its parent's child unless named.
func (ix *Index) rows(out *Listing, entries []*entry, req Request) {
	named := map[string]bool{}
	for _, p := range req.Files {
		named[p] = true
	}
	maybe := map[string]bool{}
	for _, p := range req.Maybe {
		maybe[p] = true
	}
	// Entries are changed only under ix.mu (fillChanges gives them their
	// changes): another listing may run at once, in the server.
	ix.mu.Lock()
	for _, e := range entries {
		switch {
		case e == nil:
		case maybe[e.Path] && !named[e.Path] && e.Cwd != req.Cwd:
		case e.Err != "" && (named[e.Path] || e.Session):
			out.Problems = append(out.Problems, Problem{e.Path, e.Err})
		case e.Session && e.Row != nil && e.Row.Parent != "" && !named[e.Path]:
			// A sub-agent's file: its parent's child.
		case e.Session && e.Row != nil:
			s := &Session{Row: *e.Row}
			if !e.unplaced {
				s.Changes, s.Prompts, s.Calls, s.Phases = e.changes, e.prompts, e.calls, e.phases
			}
			out.Sessions = append(out.Sessions, s)
		case named[e.Path] && !e.Session:
			out.Problems = append(out.Problems, Problem{e.Path, "not a session rlog-ls reads"})
		}
	}
	ix.mu.Unlock()
}

// fillChanges gives the sessions not read by this listing their file
// changes from the changes file; a session it has none for (the file was
// lost) is read again.
func (ix *Index) fillChanges(ctx context.Context, list []*Session) {
	ix.mu.Lock()
	ix.loadChanges()
	ix.keepChanges = true
	var again, unplaced []*Session
	for _, s := range list {
		e := ix.entries[s.Row.File]
		if e != nil {
			ix.unspill(e)
		}
		if e != nil && e.changed {
			s.Changes, s.Prompts, s.Calls, s.Phases = e.changes, e.prompts, e.calls, e.phases
			if e.unplaced {
				unplaced = append(unplaced, s)
			}
			continue
		}
		if c, ok := ix.changes[s.Row.File]; ok && e != nil && e.Rest.follows(c) {
			l := c.lists().firstThen(e.Rest.Kept, e.Rest.lists)
			s.Changes, s.Prompts, s.Calls, s.Phases = l.Changes, l.Prompts, l.Calls, l.Phases
			e.setLists(l)
			e.changed, e.unplaced, e.Rest = true, true, nil
			ix.changesDirty, ix.dirty = true, true
			unplaced = append(unplaced, s)
			continue
		}
		if c, ok := ix.changes[s.Row.File]; ok && e != nil && c.Size == e.Size && c.ModNS == e.ModNS {
			s.Changes, s.Prompts, s.Calls, s.Phases = c.Changes, c.Prompts, c.Calls, c.Phases
			if c.Unplaced {
				unplaced = append(unplaced, s)
			}
			continue
		}
		again = append(again, s)
	}
	ix.mu.Unlock()
	ix.place(ctx, unplaced)
	for _, s := range again {
		if ctx.Err() != nil {
			return
		}
		if r, err := Read(s.Row.File); err == nil {
			s.Changes, s.Prompts, s.Calls, s.Phases = r.Changes, r.Prompts, r.Calls, r.Phases
			ix.mu.Lock()
			if e := ix.entries[s.Row.File]; e != nil && e.Size == r.Row.Size && e.ModNS == r.Row.Modified.UnixNano() {
				e.setLists(listsOf(r))
				e.changed, e.unplaced, ix.changesDirty = true, false, true
			}
			ix.mu.Unlock()
		}
	}
}

// place gives the sessions' changes, prompts, calls and phases their lines, on every
// core, and keeps them in the index when the file is still the one read.
// The slices are copied, not written in place: another listing may hold
// them. A session whose file cannot be read is given line 1.
func (ix *Index) place(ctx context.Context, list []*Session) {
	eachParallel(ctx, len(list), func(i int) {
		s := list[i]
		s.Changes, s.Prompts = slices.Clone(s.Changes), slices.Clone(s.Prompts)
		s.Calls, s.Phases = slices.Clone(s.Calls), slices.Clone(s.Phases)
		if placeAll(s.Row.File, s) != nil {
			for i := range s.Changes {
				s.Changes[i].Line = 1
			}
			for i := range s.Prompts {
				s.Prompts[i].Line = 1
			}
			for i := range s.Calls {
				s.Calls[i].Line = 1
			}
			for i := range s.Phases {
				s.Phases[i].Line = max(s.Phases[i].Line, 1)
			}
			return
		}
		// The file placed is the one read (a file that changed since is
		// read again by the next listing; its lines are not kept).
		fi, err := os.Stat(s.Row.File)
		if err != nil {
			return
		}
		ix.mu.Lock()
		if e := ix.entries[s.Row.File]; e != nil && e.fresh(fi) && e.Size == s.Row.Size && e.ModNS == s.Row.Modified.UnixNano() {
			e.setLists(listsOf(s))
			e.changed, e.unplaced, ix.changesDirty = true, false, true
		}
		ix.mu.Unlock()
	})
}

// eachParallel calls fn with 0 ... n-1, on GOMAXPROCS goroutines at
// most, until ctx is done.
func eachParallel(ctx context.Context, n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(n, 1)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				if ctx.Err() != nil {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}

// SortNewestFirst sorts sessions by when they started, newest first (a
// session without a time by its file's modification time), then by file.
func SortNewestFirst(s []*Session) {
	when := func(x *Session) time.Time {
		if x.Row.Start != nil {
			return *x.Row.Start
		}
		return x.Row.Modified
	}
	slices.SortStableFunc(s, func(a, b *Session) int {
		if c := when(b).Compare(when(a)); c != 0 {
			return c
		}
		return cmp.Compare(a.Row.File, b.Row.File)
	})
}

// readEntry reads the file at path for the index. A Maybe file (headOnly)
// is read whole only when its header's cwd is cwd. A file old's cut is
// still the start of is read from there on (readByParts).
func readEntry(path string, fi os.FileInfo, named, headOnly bool, cwd string, old *entry) *entry {
	e := &entry{Path: path, Size: fi.Size(), ModNS: fi.ModTime().UnixNano()}
	// One look at the file's head answers every question of its format
	// below (each of which looked again: four reads of 64 KB a session).
	d := convert.DetectedFile(path)
	if named && !readable(d) || !named && !isSession(d) {
		return e
	}
	e.Session = true
	if headOnly && !named {
		c, err := headCwd(path)
		if err != nil {
			e.Err = describe(err)
			return e
		}
		e.Cwd = c
		if c != cwd {
			e.HeadOnly = true
			return e
		}
	}
	if format := resumable(d); format != "" {
		var prev *cut
		if old != nil {
			prev = old.Cut
		}
		if s, c, from, err := readByParts(d, format, fi, prev); err == nil && s != nil {
			// A copy of the row (see below).
			row := s.Row
			e.Row, e.Cwd, e.Cut = &row, row.Cwd, c
			if from > 0 {
				// The changes, prompts, calls and phases before the cut are
				// the first of those this process read of the file before
				// (the server keeps them until they are saved); else those
				// the changes file keeps of it (Rest), or they are read
				// again when asked for.
				k := prev.Kept
				e.resumed = true
				switch {
				case old.changed && old.lists().holds(k):
					e.setLists(old.lists().firstThen(k, listsOf(s)))
					e.changed, e.unplaced = true, !e.lists().empty()
				case old.Rest != nil:
					e.Rest = old.Rest.then(k, listsOf(s))
				default:
					e.Rest = &rest{Size: old.Size, ModNS: old.ModNS, Kept: k, lists: listsOf(s)}
				}
				return e
			}
			e.setLists(listsOf(s))
			e.changed, e.unplaced = true, !e.lists().empty()
			return e
		}
	}
	s, err := read(d, false)
	if err != nil {
		e.Err = describe(err)
		return e
	}
	// A copy: a pointer into s would keep its changes, prompts, calls
	// and phases alive as long as the row.
	row := s.Row
	e.Row, e.Cwd = &row, row.Cwd
	e.changes, e.prompts, e.changed = s.Changes, s.Prompts, true
	e.calls, e.phases = s.Calls, s.Phases
	e.unplaced = len(s.Changes)+len(s.Prompts)+len(s.Calls)+len(s.Phases) > 0
	return e
}

// headCwd is the cwd a Codex CLI rollout's first record (session_meta)
// names, read from the file's first record only (which may be long: it
// holds the agent's instructions).
func headCwd(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var rec struct {
		Type    string `json:"type"`
		Payload struct {
			Cwd string `json:"cwd"`
		} `json:"payload"`
	}
	if json.NewDecoder(bufio.NewReaderSize(f, 64<<10)).Decode(&rec) != nil || rec.Type != "session_meta" {
		return "", nil
	}
	return rec.Payload.Cwd, nil
}

// describe is an error for one line: without Go's operation names.
func describe(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Stamp is a fingerprint of folders and files read with stat only: their
// sizes and modification times. A follower of a listing stamps the
// request's Folders (a new session appears in one) and the listing's
// Files, and lists again when the stamp changes.
func Stamp(folders, files []string) string {
	var b []byte
	for _, p := range append(append([]string{}, folders...), files...) {
		fi, err := os.Stat(p)
		if err != nil {
			b = append(b, '-')
			continue
		}
		b = fmt.Appendf(b, "%d.%d;", fi.Size(), fi.ModTime().UnixNano())
	}
	return string(b)
}

// Files are the files of the listing: its sessions' and its problems'.
func (l *Listing) Files() []string {
	var out []string
	for _, s := range l.Sessions {
		out = append(out, s.Row.File)
	}
	for _, p := range l.Problems {
		out = append(out, p.File)
	}
	return out
}
