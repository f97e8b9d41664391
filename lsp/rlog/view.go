package rlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/rlog-ls/rlog-ls/companion"
	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/lsp"
)

// Views: a session file in any format rlog-ls reads (a Claude Code
// transcript, an ATIF trajectory ...) shown in the editor as a read-only
// rlog document. The server owns the view: it converts the file
// (MethodSessionView, the text `rlog-ls convert --to rlog` writes), the
// client opens that text under the view's own URI, and every request then
// answers on it as on any log, with the session file as its companion. While
// the view is open the server follows the file and sends the client the
// edits that keep the view equal to a fresh conversion
// (MethodSessionViewChanged). docs/views.md is the reference.
const (
	// ViewScheme is the scheme of views: rlog-view: and the session
	// file's path with ".rlog" after it.
	ViewScheme = "rlog-view"
	// MethodSessionView is a request of our own: the view of a session
	// file. Params: {textDocument: {uri}}, the file (or a view of it).
	// Result: a sessionView. A file rlog-ls cannot read is an error that
	// says why.
	MethodSessionView = "rlog/sessionView"
	// MethodSessionFormat says whether a file is a session rlog-ls can show
	// as a view, from its first record: {textDocument: {uri}} gives
	// {format, description, uri} or null.
	MethodSessionFormat = "rlog/sessionFormat"
	// MethodSessionViewChanged is the server's notification that an open
	// view changed: {textDocument: {uri, version}, edits}, the edits that
	// turn that version of the view into the new one.
	MethodSessionViewChanged = "rlog/sessionViewChanged"
)

// viewURI is the URI of the view of the session file at path.
func viewURI(path string) protocol.DocumentURI {
	return protocol.DocumentURI(ViewScheme + strings.TrimPrefix(string(fileURI(path)), "file") + ".rlog")
}

// viewSource is the session file a view shows, and false for any other
// URI.
func viewSource(uri protocol.DocumentURI) (string, bool) {
	s := string(uri)
	i := strings.IndexByte(s, ':')
	if i < 0 || !strings.EqualFold(s[:i], ViewScheme) {
		return "", false
	}
	p, ok := lsp.FilePath(protocol.DocumentURI("file" + s[i:]))
	if !ok {
		return "", false
	}
	p, ok = strings.CutSuffix(p, ".rlog")
	return p, ok && filepath.Base(p) != "" && !strings.HasSuffix(p, string(filepath.Separator))
}

// isView reports whether a document is a view.
func isView(uri protocol.DocumentURI) bool {
	_, ok := viewSource(uri)
	return ok
}

// sessionView is MethodSessionView's result.
type sessionView struct {
	// URI is the view's: the client opens Text under it.
	URI protocol.DocumentURI `json:"uri"`
	// Source is the session file.
	Source protocol.DocumentURI `json:"source"`
	// Format is the file's format as the CLI names it ("claude"), and
	// Description says it in words.
	Format      string `json:"format"`
	Description string `json:"description"`
	Text        string `json:"text"`
	// Losses is the loss report of the conversion, as `rlog-ls convert`
	// prints it: what the view does not carry.
	Losses string `json:"losses"`
	// Joined says whether the view's lines are joined to the file's
	// records (hover shows a record in full, Go to Definition opens it):
	// for the formats a companion can be (Claude Code transcripts, Codex
	// CLI rollouts, Gemini CLI sessions, the autopilot's JSONL and
	// trajectory JSON).
	Joined bool `json:"joined"`
}

// sessionFormat is MethodSessionFormat's result.
type sessionFormat struct {
	Format      string               `json:"format"`
	Description string               `json:"description"`
	URI         protocol.DocumentURI `json:"uri"` // the view's
}

type sessionParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
}

// companionFormats are the formats whose files companion indexes and joins
// to a log's lines.
var companionFormats = companion.Formats

// views is what the server knows of the session files it shows: for each,
// the files as last converted and what that conversion lost. It follows the
// open views (follow) and drops what no open view needs.
type views struct {
	mu     sync.Mutex
	byPath map[string]*viewState
	// wake tells follow that a view was made or opened, or a file changed.
	wake chan struct{}
}

type viewState struct {
	format convert.Format
	report *convert.Report // of the last conversion; nil before one
	stamp  sessionStamp    // the files as last converted
	// version is the view's version the last edits were made for; sent
	// says they were sent and the client has not applied them yet.
	version int32
	sent    bool
	sentAt  time.Time
	retry   time.Duration // how long to wait for sent edits before sending them again
	// took is how long the last conversion took, at convertedAt.
	took        time.Duration
	convertedAt time.Time
	// touched is when a request last asked for the view, to keep the
	// state of a view the client is about to open.
	touched time.Time
}

// How views are followed: how often the files of open views are looked
// at, how long a state is kept for a view not opened (yet), and how long
// sent edits may wait for the client before they are sent again (doubling
// up to viewRetryMax).
const (
	viewPoll      = 300 * time.Millisecond
	viewKeep      = 30 * time.Second
	viewRetryMax  = 5 * time.Minute
	viewHoverLoss = 40 // lines of the loss report a hover shows
)

// viewRetry is a variable for the test of a client that drops edits.
var viewRetry = 5 * time.Second

func newViews() *views {
	return &views{byPath: map[string]*viewState{}, wake: make(chan struct{}, 1)}
}

// poke wakes follow.
func (vs *views) poke() {
	select {
	case vs.wake <- struct{}{}:
	default:
	}
}

// state returns path's state, made if needed.
func (vs *views) state(path string) *viewState {
	st := vs.byPath[path]
	if st == nil {
		st = &viewState{retry: viewRetry, touched: time.Now()}
		vs.byPath[path] = st
	}
	return st
}

// sessionStamp is what a session's files were: each one's path, size and
// modification time, the main file first.
type sessionStamp []fileStamp

type fileStamp struct {
	path    string
	size    int64
	modTime time.Time
}

// stampOf stamps the session whose main file is path, with its subagent
// files.
func stampOf(path string) (sessionStamp, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	out := sessionStamp{{path, info.Size(), info.ModTime()}}
	files := companion.FilesOf(path)
	subs := make([]string, 0, len(files.Subagents))
	for _, p := range files.Subagents {
		subs = append(subs, p)
	}
	slices.Sort(subs)
	for _, p := range subs {
		if info, err := os.Stat(p); err == nil {
			out = append(out, fileStamp{p, info.Size(), info.ModTime()})
		}
	}
	return out, nil
}

func (s sessionStamp) equal(o sessionStamp) bool {
	return slices.EqualFunc(s, o, func(a, b fileStamp) bool {
		return a.path == b.path && a.size == b.size && a.modTime.Equal(b.modTime)
	})
}

// sessionFile is the session file a request names: the file itself, or
// the one a view shows.
func sessionFile(uri protocol.DocumentURI) (string, error) {
	if src, ok := viewSource(uri); ok {
		return src, nil
	}
	p, ok := lsp.FilePath(uri)
	if !ok {
		return "", lsp.InvalidParams("a view is made of a file on disk; %s is not a file: URI", uri)
	}
	return p, nil
}

// errNotSession says a file is not a session rlog-ls shows as a view.
type errNotSession struct{ why string }

func (e errNotSession) Error() string { return e.why }

// readableSession tells the format of the session file at path, or why it
// cannot be shown as a view.
func readableSession(path string) (convert.FormatInfo, error) {
	name := filepath.Base(path)
	from, err := convert.DetectFile(path)
	if err != nil {
		if errors.Is(err, convert.ErrUndetected) {
			why := strings.TrimPrefix(err.Error(), convert.ErrUndetected.Error()+": ")
			return convert.FormatInfo{}, errNotSession{fmt.Sprintf("%s is not a session rlog-ls reads: %s. rlog-ls reads %s",
				name, why, strings.Join(sessionFormatNames(), ", "))}
		}
		if errors.Is(err, os.ErrNotExist) {
			return convert.FormatInfo{}, errNotSession{fmt.Sprintf("%s does not exist", path)}
		}
		return convert.FormatInfo{}, errNotSession{err.Error()}
	}
	fi, _ := convert.Lookup(from)
	if from == convert.Rlog {
		return fi, errNotSession{fmt.Sprintf("%s is an rlog log already: open it as it is", name)}
	}
	if !fi.CanRead() {
		return fi, errNotSession{fmt.Sprintf("%s is a %s (%s): rlog-ls has no reader for it yet", name, fi.Description, fi.Name)}
	}
	return fi, nil
}

// sessionFormatNames are the formats a view can be made of.
func sessionFormatNames() []string {
	var out []string
	for _, n := range convert.Names(false) {
		if n != string(convert.Rlog) {
			out = append(out, n)
		}
	}
	return out
}

// convertSession converts the session file at path to rlog into w (a
// strings.Builder or bytes.Buffer), as `rlog-ls convert --to rlog` does,
// and stops when ctx is done.
func convertSession[W interface {
	io.Writer
	Grow(int)
}](ctx context.Context, path string, from convert.Format, w W) (*convert.Report, error) {
	if info, err := os.Stat(path); err == nil {
		// A session's rlog is a quarter of its JSON, give or take: growing
		// the text to that once saves most of the copies growing it by
		// doubling makes.
		w.Grow(int(min(info.Size()/4, 1<<30)))
	}
	rep, err := convert.ConvertFile(path, from, convert.Rlog, ctxWriter{ctx, w}, convert.Options{})
	if err == nil {
		err = ctx.Err()
	}
	return rep, err
}

// ctxWriter fails its writes once ctx is done, which stops a conversion.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (w ctxWriter) Write(p []byte) (int, error) {
	if err := w.ctx.Err(); err != nil {
		return 0, err
	}
	return w.w.Write(p)
}

// view answers MethodSessionView.
func (vs *views) view(ctx context.Context, _ *wsCtx, p *sessionParams) (any, error) {
	path, err := sessionFile(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	fi, err := readableSession(path)
	if err != nil {
		return nil, lsp.RequestFailed("%v", err)
	}
	stamp, err := stampOf(path)
	if err != nil {
		return nil, lsp.RequestFailed("%v", err)
	}
	// The text is built once, in a string: it goes to the client as it is.
	var text strings.Builder
	rep, err := convertSession(ctx, path, fi.Name, &text)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, lsp.RequestFailed("converting %s to rlog failed: %v", filepath.Base(path), err)
	}
	vs.mu.Lock()
	st := vs.state(path)
	st.format, st.report, st.stamp, st.touched = fi.Name, rep, stamp, time.Now()
	st.sent, st.version = false, -1
	vs.mu.Unlock()
	vs.poke()
	return sessionView{
		URI: viewURI(path), Source: fileURI(path), Format: string(fi.Name), Description: fi.Description,
		Text: text.String(), Losses: rep.Text(), Joined: slices.Contains(companionFormats, fi.Name),
	}.encode(), nil
}

// encode is v as json.Marshal writes it, the text copied once: a view can
// be tens of megabytes, which reflection would copy and grow more.
func (v sessionView) encode() lsp.EncodedResult {
	b := make([]byte, 0, len(v.Text)+len(v.Text)/8+len(v.Losses)+1024)
	field := func(name, value string) {
		b = append(b, ',', '"')
		b = append(b, name...)
		b = append(b, '"', ':')
		b = lsp.AppendJSONString(b, value)
	}
	b = append(b, `{"uri":`...)
	b = lsp.AppendJSONString(b, string(v.URI))
	field("source", string(v.Source))
	field("format", v.Format)
	field("description", v.Description)
	field("text", v.Text)
	field("losses", v.Losses)
	b = append(b, `,"joined":`...)
	b = strconv.AppendBool(b, v.Joined)
	return append(b, '}')
}

// format answers MethodSessionFormat.
func (vs *views) format(_ context.Context, _ *wsCtx, p *sessionParams) (any, error) {
	path, err := sessionFile(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	fi, err := readableSession(path)
	if err != nil {
		return nil, nil
	}
	return sessionFormat{Format: string(fi.Name), Description: fi.Description, URI: viewURI(path)}, nil
}

// companionFiles are the files a view's lines are joined to: the session
// file and its subagents', when its format is one a companion can be.
func (vs *views) companionFiles(path string) (companion.Files, bool) {
	vs.mu.Lock()
	var from convert.Format
	if st := vs.byPath[path]; st != nil {
		from = st.format
	}
	vs.mu.Unlock()
	if from == "" {
		f, err := convert.DetectFile(path)
		if err != nil {
			return companion.Files{}, false
		}
		from = f
	}
	if !slices.Contains(companionFormats, from) {
		return companion.Files{}, false
	}
	return companion.FilesOf(path), true
}

// follow keeps the open views equal to a fresh conversion of their files:
// Features.Background, for the whole connection.
func (vs *views) follow(ctx context.Context, workspace func() *wsCtx) {
	tick := time.NewTimer(viewPoll)
	defer tick.Stop()
	for {
		// While no view is open, nothing is looked at until one is, but
		// for forgetting, later, the views asked for and not opened.
		var next <-chan time.Time
		switch open, kept := vs.update(ctx, workspace()); {
		case open:
			tick.Reset(viewPoll)
			next = tick.C
		case kept:
			tick.Reset(viewKeep)
			next = tick.C
		}
		select {
		case <-ctx.Done():
			return
		case <-vs.wake:
		case <-next:
		}
	}
}

// update brings every open view up to date, and forgets the views that
// are not open. It reports whether any is open, and whether states of
// views not open are kept still.
func (vs *views) update(ctx context.Context, wc *wsCtx) (open, kept bool) {
	opened := map[string]bool{}
	for _, d := range wc.Docs {
		src, ok := viewSource(d.URI)
		if !ok || opened[src] {
			continue
		}
		opened[src] = true
		vs.updateView(ctx, wc, d, src)
	}
	vs.mu.Lock()
	defer vs.mu.Unlock()
	for p, st := range vs.byPath {
		if opened[p] {
			continue
		}
		if time.Since(st.touched) > viewKeep {
			delete(vs.byPath, p)
		} else {
			kept = true
		}
	}
	return len(opened) > 0, kept
}

// updateView converts the session of view d again when its files changed
// (at most about every other conversion's length, so that following a
// large session takes no more than half a core) and sends the client the
// edits that bring the view up to date.
func (vs *views) updateView(ctx context.Context, wc *wsCtx, d *lsp.Document[Doc], src string) {
	stamp, err := stampOf(src)
	if err != nil {
		return // gone: the view stays as it was
	}
	now := time.Now()
	vs.mu.Lock()
	st := vs.state(src)
	if st.sent && d.Version != st.version {
		st.sent, st.retry = false, viewRetry // the client applied the last edits
	}
	switch {
	case st.sent:
		// The client has not applied the last edits: wait, then send them
		// again, made anew.
		if now.Sub(st.sentAt) < st.retry {
			vs.mu.Unlock()
			return
		}
		st.retry = min(2*st.retry, viewRetryMax)
	case stamp.equal(st.stamp):
		// The view is as the files are (the client applied the last edits,
		// or there were none).
		st.version = d.Version
		vs.mu.Unlock()
		return
	}
	if now.Sub(st.convertedAt) < 2*st.took {
		vs.mu.Unlock()
		return
	}
	from := st.format
	vs.mu.Unlock()

	if from == "" {
		fi, err := readableSession(src)
		if err != nil {
			vs.mu.Lock()
			st.stamp, st.convertedAt = stamp, now
			vs.mu.Unlock()
			wc.Log.Debug("view of a file that is no session", zap.String("file", src), zap.Error(err))
			return
		}
		from = fi.Name
	}
	var text bytes.Buffer
	rep, err := convertSession(ctx, src, from, &text)
	took := time.Since(now)
	vs.mu.Lock()
	st.format, st.stamp, st.took, st.convertedAt = from, stamp, took, now
	if err != nil {
		vs.mu.Unlock()
		if ctx.Err() == nil {
			wc.Log.Warn("converting a view's session failed", zap.String("file", src), zap.Error(err))
		}
		return
	}
	st.report = rep
	edits := viewEdits(d.Text.Tree, text.Bytes())
	st.version, st.sent, st.sentAt = d.Version, len(edits) > 0, now
	vs.mu.Unlock()
	if len(edits) == 0 {
		return
	}
	m := wc.Mapper(d)
	out := make([]protocol.TextEdit, len(edits))
	for i, e := range edits {
		out[i] = protocol.TextEdit{Range: m.Range(e.start, e.end), NewText: string(e.text)}
	}
	wc.Log.Debug("view changed", zap.String("file", src), zap.Int32("version", d.Version), zap.Int("edits", len(out)), zap.Duration("conversion", took))
	err = wc.Client.Notify(ctx, MethodSessionViewChanged, viewChange{
		TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: d.URI}, Version: d.Version},
		Edits:        out,
	})
	if err != nil && ctx.Err() == nil {
		wc.Log.Debug("sending a view's edits", zap.Error(err))
	}
}

// viewChange is MethodSessionViewChanged's params.
type viewChange struct {
	TextDocument protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	Edits        []protocol.TextEdit                      `json:"edits"`
}

// byteEdit replaces bytes [start, end) of a text with text.
type byteEdit struct {
	start, end int
	text       []byte
}

// maxViewHeader is the longest header viewEdits looks for; a longer one is
// edited with the body.
const maxViewHeader = 64 << 10

// viewEdits are the edits that turn t into b, in order and not
// overlapping: none when they are equal, else the part that differs, split
// in two when it spans the header and the body. A session that grows
// changes the header's totals and adds lines at the end: two small edits
// instead of one of the whole log.
func viewEdits(t *grammar.Tree, b []byte) []byteEdit {
	start, end, newEnd := t.Replacement(b)
	if start == end && start == newEnd {
		return nil
	}
	whole := []byteEdit{{start, end, b[start:newEnd]}}
	oh := headerLen(t.Slice(0, min(t.Len(), maxViewHeader)))
	nh := headerLen(b[:min(len(b), maxViewHeader)])
	if oh == 0 || nh == 0 || start >= oh || end <= oh {
		return whole
	}
	var out []byteEdit
	// The header, then the body: each its own replacement.
	if pre, suf := t.CommonEnds(0, oh, b[:nh]); pre < oh-suf || pre < nh-suf {
		out = append(out, byteEdit{pre, oh - suf, b[pre : nh-suf]})
	}
	body := b[nh:]
	if pre, suf := t.CommonEnds(oh, t.Len(), body); oh+pre < t.Len()-suf || pre < len(body)-suf {
		out = append(out, byteEdit{oh + pre, t.Len() - suf, body[pre : len(body)-suf]})
	}
	return out
}

// headerLen is the length of the header that b starts with ("---" to
// "---", lines and all), or 0.
func headerLen(b []byte) int {
	first, rest, ok := bytes.Cut(b, []byte("\n"))
	if !ok || string(bytes.TrimRight(first, "\r")) != "---" {
		return 0
	}
	off := len(first) + 1
	for len(rest) > 0 {
		line, after, ok := bytes.Cut(rest, []byte("\n"))
		if !ok {
			return 0
		}
		off += len(line) + 1
		if string(bytes.TrimRight(line, "\r")) == "---" {
			return off
		}
		rest = after
	}
	return 0
}

// summary is the hover on a view's header delimiters: what the view is,
// and what it does not carry.
func (vs *views) summary(src string, joined bool) string {
	vs.mu.Lock()
	var rep *convert.Report
	var from convert.Format
	if st := vs.byPath[src]; st != nil {
		rep, from = st.report, st.format
	}
	vs.mu.Unlock()
	var b strings.Builder
	fi, _ := convert.Lookup(from)
	what := fi.Description
	if what == "" {
		what = "a session file"
	}
	fmt.Fprintf(&b, "**rlog view** of `%s` (%s), read only: the session as `rlog-ls convert --to rlog` writes it, kept up to date while the file grows.", filepath.Base(src), what)
	if joined {
		b.WriteString(" Its lines are joined to the file's records: hover shows a record in full, Go to Definition opens it.")
	} else {
		b.WriteString(" Its lines are not joined to the file's records (rlog-ls joins Claude Code transcripts, Codex CLI rollouts, Gemini CLI sessions and the autopilot's JSONL and trajectory JSON).")
	}
	if rep == nil {
		return b.String()
	}
	if rep.Empty() {
		b.WriteString("\n\nThe conversion lost nothing.")
		return b.String()
	}
	text := strings.TrimRight(rep.Text(), "\n")
	lines := strings.Split(text, "\n")
	more := ""
	if len(lines) > viewHoverLoss {
		more = fmt.Sprintf("\n… %d more lines: `rlog-ls convert --to rlog %s` prints them all.", len(lines)-viewHoverLoss, filepath.Base(src))
		lines = lines[:viewHoverLoss]
	}
	fmt.Fprintf(&b, "\n\n**What the view does not carry** (the loss report):\n\n%s%s", fenced(strings.Join(lines, "\n"), "text"), more)
	return b.String()
}
