package rlog

import (
	"context"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/companion"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/lsp"
)

// A log's companion is the lossless record of the same session beside it
// (NAME.jsonl or NAME.json; see package companion). The server finds it
// for every log opened from disk, keeps it indexed (a fixed cost per
// record, never its text), joins each line of the log to its record, and
// reads a record only to answer a request about it.

// companionLimit is how many companions the server keeps indexed; the
// least recently used beyond it are dropped (and indexed again if asked).
const companionLimit = 16

// relocateAfter is how long a log found without a companion is believed
// to have none: a session that is starting creates it a moment later.
const relocateAfter = time.Second

// companions finds and keeps the companions of the logs the editor has.
type companions struct {
	// views are the session files shown as views, whose companions they
	// are.
	views   *views
	mu      sync.Mutex
	entries map[string]*companionEntry // by log path
	tick    uint64
	// watching is set once the client was asked to report changes to
	// companion files.
	watching sync.Once
	// diskLogs are the logs of open companions whose logs are not open,
	// read from disk (logFor), oldest first.
	diskLogs []diskLog
}

type companionEntry struct {
	c       *companion.Companion // nil when the log has none
	checked time.Time            // when a log without one was last looked at
	used    uint64
}

func newCompanions(vs *views) *companions {
	return &companions{views: vs, entries: map[string]*companionEntry{}}
}

// snapshot returns the companion of the log at logPath as its files are
// now, or nil when it has none.
func (cs *companions) snapshot(logPath string) *companion.Snapshot {
	return cs.current(logPath, func() (companion.Files, bool) { return companion.Locate(logPath) })
}

// snapshotFor returns the companion of a document as its files are now, or
// nil: a log's, found beside it, or the session file a view shows.
func (cs *companions) snapshotFor(uri protocol.DocumentURI) *companion.Snapshot {
	if src, ok := viewSource(uri); ok {
		return cs.current(src, func() (companion.Files, bool) { return cs.views.companionFiles(src) })
	}
	p, ok := lsp.FilePath(uri)
	if !ok {
		return nil
	}
	return cs.snapshot(p)
}

// current returns the companion kept under key (a log's path, or the
// session file of a view), found by locate when it is not kept yet.
func (cs *companions) current(key string, locate func() (companion.Files, bool)) *companion.Snapshot {
	cs.mu.Lock()
	cs.tick++
	e := cs.entries[key]
	if e == nil || e.c == nil && time.Since(e.checked) > relocateAfter {
		e = &companionEntry{checked: time.Now()}
		if files, ok := locate(); ok {
			e.c = companion.Open(files)
		}
		cs.entries[key] = e
		cs.evict()
	}
	e.used = cs.tick
	c := e.c
	cs.mu.Unlock()
	if c == nil {
		return nil
	}
	s, err := c.Current()
	if err != nil {
		// Deleted, unreadable, or not a companion after all.
		cs.mu.Lock()
		if cs.entries[key] == e {
			delete(cs.entries, key)
		}
		cs.mu.Unlock()
		return nil
	}
	return s
}

// evict drops the least recently used entries over the limit. cs.mu is
// held.
func (cs *companions) evict() {
	for len(cs.entries) > companionLimit {
		var oldest string
		var at uint64
		for p, e := range cs.entries {
			if oldest == "" || e.used < at {
				oldest, at = p, e.used
			}
		}
		delete(cs.entries, oldest)
	}
}

// forget makes the next use of logPath look for its companion again.
func (cs *companions) forget(logPath string) {
	cs.mu.Lock()
	if e := cs.entries[logPath]; e != nil && e.c == nil {
		delete(cs.entries, logPath)
	}
	cs.mu.Unlock()
}

// isRecordDocument reports whether a document is a JSON or JSONL file
// (a companion opened in the editor, which gets navigation only).
func isRecordDocument(uri protocol.DocumentURI) bool {
	p := string(uri)
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	ext := strings.ToLower(path.Ext(p))
	return ext == ".jsonl" || ext == ".json"
}

// pairing returns the log document's join with its companion, or nil
// (also when ctx is done before the join is).
func (cs *companions) pairing(ctx context.Context, doc *lsp.Document[Doc]) *companion.Pairing {
	if isRecordDocument(doc.URI) {
		return nil
	}
	s := cs.snapshotFor(doc.URI)
	if s == nil {
		return nil
	}
	return doc.Text.pairWith(ctx, s)
}

// pairState keeps a document's newest join, shared by its versions: the
// join is made only when something asks for it (the diagnostics, a hover,
// Go to Definition, the lenses, the links), once per version of the log
// and of the companion, and the requests about that version share it.
// No lock is held while joining: a request about another version does not
// wait for it, and a join whose requests are all gone (the user typed
// on: the diagnostics run was cancelled) stops.
type pairState struct {
	mu   sync.Mutex
	last *pairJoin // the newest join made or under way
	// counts are the companion's APM counts, nil when the pair is not one
	// session.
	counts *analysis.ActionCounts
}

// pairJoin is one join, made or under way (done not closed yet).
type pairJoin struct {
	tree *grammar.Tree
	snap *companion.Snapshot
	done chan struct{}
	p    *companion.Pairing // nil when it stopped
}

func (d Doc) pairWith(ctx context.Context, s *companion.Snapshot) *companion.Pairing {
	ps := &d.analysis.pair
	for ctx.Err() == nil {
		ps.mu.Lock()
		j := ps.last
		if j != nil && j.tree == d.Tree && j.snap == s {
			ps.mu.Unlock()
			select {
			case <-j.done:
			case <-ctx.Done():
				return nil
			}
			if j.p != nil {
				return j.p
			}
			continue // the one who started it stopped: join again
		}
		j = &pairJoin{tree: d.Tree, snap: s, done: make(chan struct{})}
		ps.last = j
		ps.mu.Unlock()
		p, err := companion.JoinContext(ctx, d.Tree, s)
		joinsDone.Add(1)
		ps.mu.Lock()
		if err == nil {
			j.p = p
			if ps.counts = nil; !p.Mismatch {
				c := s.ActionCounts()
				ps.counts = &c
			}
		} else if ps.last == j {
			ps.last = nil
		}
		close(j.done)
		ps.mu.Unlock()
		return p
	}
	return nil
}

// joinsDone counts the joins made, for the tests that a join is not made
// again for nothing.
var joinsDone atomic.Int64

// companionCounts are the APM counts of the log's companion as last joined
// (a hover, definition or diagnostics run joins it), or nil. They depend
// on the companion alone, so an edit of the log does not change them.
func (d Doc) companionCounts() *analysis.ActionCounts {
	ps := &d.analysis.pair
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.counts
}

// pairDiagnostics adds where the log and its companion disagree to a
// log's diagnostics, and asks the client, once, to report changes to
// companion files.
func (cs *companions) pairDiagnostics(ctx context.Context, dc *docCtx, d lsp.Diagnostics) lsp.Diagnostics {
	p := cs.pairing(ctx, dc.Doc)
	if p == nil {
		return d
	}
	cs.watch(ctx, dc)
	positions := dc.Mapper.Positions()
	for _, f := range companion.Filter(p.Findings(), analysisConfig(dc.Settings)) {
		diag := toDiagnostic(dc, positions, f.Finding)
		for _, in := range f.In {
			if loc, ok := placeLocation(in.Path, in.Place, dc.Session.Encoding); ok {
				diag.RelatedInformation = append(diag.RelatedInformation, protocol.DiagnosticRelatedInformation{Location: loc, Message: in.Message})
			}
		}
		d.List = append(d.List, diag)
	}
	return d
}

// watch registers, once and where the client can, a watcher for JSON and
// JSONL files, so that a companion that grows (a session still running)
// updates the log's diagnostics as it grows. Without it the files are
// checked (size and time) whenever they are used.
func (cs *companions) watch(ctx context.Context, dc *docCtx) {
	ws := dc.Session.Capabilities.Workspace
	if ws == nil || ws.DidChangeWatchedFiles == nil || !ws.DidChangeWatchedFiles.DynamicRegistration {
		return
	}
	cs.watching.Do(func() {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		err := dc.Client.RegisterCapability(ctx, protocol.Registration{
			ID:     "rlog-ls.companions",
			Method: protocol.MethodWorkspaceDidChangeWatchedFiles,
			RegisterOptions: protocol.DidChangeWatchedFilesRegistrationOptions{Watchers: []protocol.FileSystemWatcher{
				{GlobPattern: "**/*.jsonl"}, {GlobPattern: "**/*.json"},
			}},
		})
		if err != nil {
			dc.Log.Debug("watching companion files failed", zap.Error(err))
		}
	})
}

// filesChanged handles workspace/didChangeWatchedFiles: the logs whose
// companion (or subagent file) changed, appeared or went get their
// diagnostics again. The index itself is brought up to date when next
// used.
func (cs *companions) filesChanged(_ context.Context, wc *wsCtx, p *protocol.DidChangeWatchedFilesParams) error {
	logs := map[string]bool{}
	for _, ch := range p.Changes {
		file, ok := lsp.FilePath(ch.URI)
		if !ok {
			continue
		}
		if l, ok := companion.RlogFor(file); ok {
			logs[l] = true
		} else if ext := filepath.Ext(file); ext != "" {
			logs[strings.TrimSuffix(file, ext)+".rlog"] = true // a companion that went
		}
	}
	for l := range logs {
		cs.forget(l)
	}
	cs.views.poke() // a view's session may have grown
	for _, d := range wc.Docs {
		if file, ok := lsp.FilePath(d.URI); ok && logs[file] {
			wc.Rediagnose(d.URI)
		}
	}
	return nil
}

// recordLocation is where a record is, as a location in its file.
func recordLocation(s *companion.Snapshot, ref companion.Ref, enc lsp.PositionEncoding) (protocol.Location, bool) {
	ix := s.Files[ref.File]
	rec := ix.Record(int(ref.Rec))
	return placeLocation(ix.Path, companion.Place{Off: rec.Off, Len: int64(rec.Len), Line: int(rec.Line)}, enc)
}

// placeLocation turns a place in a companion file into a protocol
// location, reading the file for the columns (in enc's units).
func placeLocation(file string, pl companion.Place, enc lsp.PositionEncoding) (protocol.Location, bool) {
	f, err := os.Open(file)
	if err != nil {
		return protocol.Location{}, false
	}
	defer f.Close()
	lineStart := lineStartBefore(f, pl.Off)
	startChar, _, ok := countUnits(f, lineStart, pl.Off, enc)
	if !ok {
		return protocol.Location{}, false
	}
	endChar, lines, ok := countUnits(f, pl.Off, pl.Off+pl.Len, enc)
	if !ok {
		return protocol.Location{}, false
	}
	if lines == 0 {
		endChar += startChar
	}
	return protocol.Location{
		URI: fileURI(file),
		Range: protocol.Range{
			Start: protocol.Position{Line: uint32(pl.Line), Character: uint32(startChar)},
			End:   protocol.Position{Line: uint32(pl.Line + lines), Character: uint32(endChar)},
		},
	}, true
}

// lineStartBefore finds the start of the line that holds off.
func lineStartBefore(f *os.File, off int64) int64 {
	buf := make([]byte, 4096)
	for end := off; end > 0; {
		start := max(end-int64(len(buf)), 0)
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && !errors.Is(err, io.EOF) {
			return start
		}
		for i := n - 1; i >= 0; i-- {
			if buf[i] == '\n' {
				return start + int64(i) + 1
			}
		}
		end = start
	}
	return 0
}

// countUnits reads [from, to) of f and returns the line ends in it and
// the code units after the last one.
func countUnits(f *os.File, from, to int64, enc lsp.PositionEncoding) (units, lines int, ok bool) {
	buf := make([]byte, 64<<10)
	var carry []byte
	for pos := from; pos < to; {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), to-pos)], pos)
		if n == 0 {
			return 0, 0, err == nil
		}
		pos += int64(n)
		chunk := append(carry, buf[:n]...)
		// Keep an incomplete character for the next chunk.
		cut := len(chunk)
		if pos < to {
			for i := 1; i <= utf8.UTFMax && i <= len(chunk); i++ {
				if utf8.RuneStart(chunk[len(chunk)-i]) {
					if !utf8.FullRune(chunk[len(chunk)-i:]) {
						cut = len(chunk) - i
					}
					break
				}
			}
		}
		part := chunk[:cut]
		for {
			i := indexLineEnd(part)
			if i < 0 {
				break
			}
			lines++
			units = 0
			part = part[i+1:]
		}
		part = trimCR(part)
		units += enc.Count(part)
		carry = append([]byte(nil), chunk[cut:]...)
	}
	return units, lines, true
}

func indexLineEnd(b []byte) int {
	for i, c := range b {
		if c == '\n' {
			return i
		}
	}
	return -1
}

func trimCR(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return b[:len(b)-1]
	}
	return b
}

// lineLocation is a log line's location: its text, without the line end.
func lineLocation(uri protocol.DocumentURI, m lsp.Mapper, l grammar.Line) protocol.Location {
	return protocol.Location{URI: uri, Range: m.Range(l.Start, l.TrimEnd)}
}

// isPairHoverToken reports whether hovering the token at off of line l
// should show the line's full record: its text, result, tool, arguments
// and id, but not the metadata that has a hover of its own (ts=,
// tokens_*=, ...).
func isPairHoverToken(t *grammar.Tree, off int) bool {
	n := t.LineAt(off)
	l := t.Line(n)
	li, text := t.Info(n)
	rel := off - l.Start
	for _, tok := range grammar.Tokenize(text, &li) {
		if rel < tok.Span.Start || rel > tok.Span.End {
			continue
		}
		switch tok.Kind {
		case grammar.TokKey, grammar.TokEquals, grammar.TokValue, grammar.TokString, grammar.TokJSON:
			key := tok.Span
			if tok.Kind != grammar.TokKey {
				key = tok.Key
			}
			if tok.Kind == grammar.TokEquals {
				return true
			}
			k, known := grammar.KeyOf(text[key.Start:key.End])
			meta := known && k.Parsed() // the format's metadata, with its own hover
			return !meta || k == grammar.KeyID || k == grammar.KeyIDFull
		}
		return true
	}
	return false
}

// docContext is the DocumentContext of an open document, for requests
// that need the other documents too.
func docContext(wc *wsCtx, d *lsp.Document[Doc]) *docCtx {
	return &docCtx{Doc: d, Mapper: wc.Mapper(d), Settings: wc.Settings, Session: wc.Session, Client: wc.Client, Log: wc.Log}
}

// logFor returns the log a companion file belongs to: its open document,
// or the file read from disk. A log read from disk is kept while it does
// not change (size and modification time), with its join, so that each
// hover or Go to Definition in an open companion does not read, parse and
// join the log again.
func (cs *companions) logFor(wc *wsCtx, file string) (*lsp.Document[Doc], bool) {
	if v, ok := viewOf(wc, file); ok {
		return v, true
	}
	logPath, ok := companion.RlogFor(file)
	if !ok {
		return nil, false
	}
	cs.pruneDiskLogs(wc)
	for _, d := range wc.Docs {
		if p, ok := lsp.FilePath(d.URI); ok && p == logPath {
			return d, true
		}
	}
	info, err := os.Stat(logPath)
	if err != nil {
		return nil, false
	}
	cs.mu.Lock()
	for _, l := range cs.diskLogs {
		if l.path == logPath && l.size == info.Size() && l.modTime.Equal(info.ModTime()) {
			cs.mu.Unlock()
			return l.doc, true
		}
	}
	cs.mu.Unlock()
	src, err := os.ReadFile(logPath)
	if err != nil {
		return nil, false
	}
	doc := &lsp.Document[Doc]{URI: fileURI(logPath), Text: Parse(src)}
	if int64(len(src)) == info.Size() { // else it changed while read: not kept
		cs.mu.Lock()
		cs.diskLogs = slices.DeleteFunc(cs.diskLogs, func(l diskLog) bool { return l.path == logPath })
		cs.diskLogs = append(cs.diskLogs, diskLog{path: logPath, size: info.Size(), modTime: info.ModTime(), doc: doc})
		if len(cs.diskLogs) > diskLogLimit {
			cs.diskLogs = slices.Delete(cs.diskLogs, 0, len(cs.diskLogs)-diskLogLimit)
		}
		cs.mu.Unlock()
	}
	return doc, true
}

// viewOf returns the open view of the session whose file (or subagent
// file) file is.
func viewOf(wc *wsCtx, file string) (*lsp.Document[Doc], bool) {
	for _, d := range wc.Docs {
		src, ok := viewSource(d.URI)
		if !ok {
			continue
		}
		if src == file {
			return d, true
		}
		for _, sub := range companion.FilesOf(src).Subagents {
			if sub == file {
				return d, true
			}
		}
	}
	return nil, false
}

// diskLogLimit is how many logs read from disk (for companions open
// without their logs) the server keeps; the least recently read go first.
const diskLogLimit = 1

// pruneDiskLogs drops the logs read from disk that no open companion
// needs any more: their companions were closed, or the logs opened.
func (cs *companions) pruneDiskLogs(wc *wsCtx) {
	open, needed := map[string]bool{}, map[string]bool{}
	for _, d := range wc.Docs {
		p, ok := lsp.FilePath(d.URI)
		if !ok {
			continue
		}
		open[p] = true
		if isRecordDocument(d.URI) {
			if lp, ok := companion.RlogFor(p); ok {
				needed[lp] = true
			}
		}
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.diskLogs = slices.DeleteFunc(cs.diskLogs, func(l diskLog) bool { return open[l.path] || !needed[l.path] })
}

// diskLog is a log read from disk, as it was at size and modTime.
type diskLog struct {
	path    string
	size    int64
	modTime time.Time
	doc     *lsp.Document[Doc]
}
