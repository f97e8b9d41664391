package rlog

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/lsp"
	"github.com/rlog-ls/rlog-ls/sessions"
)

// The sessions list (docs/views.md): the request, and the notification
// the server sends when what it answered changed on disk.
const (
	MethodSessions        = "rlog/sessions"
	MethodSessionsChanged = "rlog/sessionsChanged"
)

// sessionsParams are rlog/sessions' params: the paths to list (files or
// folders, as paths or file: URIs), none for the workspace folder's
// sessions; touched asks for the calls that changed that file instead.
type sessionsParams struct {
	Paths   []string `json:"paths,omitempty"`
	Touched string   `json:"touched,omitempty"`
}

// sessionsPoll is how often the server looks, with stat only, whether a
// listing it answered changed (only once a client asked for one).
var sessionsPoll = 2 * time.Second

// sessionLists answers rlog/sessions from the sessions index in the
// user's cache folder, and follows the last listing asked for.
type sessionLists struct {
	mu sync.Mutex
	ix *sessions.Index
	// folders and files are what the last listing asked for saw, stamp
	// their sessions.Stamp; asked is false until a listing is asked for.
	asked          bool
	folders, files []string
	stamp          string
	homes          sessions.Homes
	// indexPath is the index's file, "" for sessions.DefaultIndexPath.
	indexPath string
}

func newSessionLists() *sessionLists { return &sessionLists{homes: sessions.DefaultHomes()} }

// index opens the index once.
func (sl *sessionLists) index() (*sessions.Index, error) {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if sl.ix != nil {
		return sl.ix, nil
	}
	p := sl.indexPath
	if p == "" {
		var err error
		if p, err = sessions.DefaultIndexPath(); err != nil {
			return nil, err
		}
	}
	sl.ix = sessions.Open(p)
	return sl.ix, nil
}

// request is what p asks to list, for the workspace of wc.
func (sl *sessionLists) request(wc *wsCtx, p *sessionsParams) sessions.Request {
	var paths []string
	for _, s := range p.Paths {
		paths = append(paths, pathOrURI(s))
	}
	cwd := ""
	if roots := workspaceRoots(wc.Session); len(roots) > 0 {
		cwd = roots[0]
	} else if wd, err := os.Getwd(); err == nil {
		cwd = wd
	}
	return sessions.RequestFor(paths, cwd, sl.homes)
}

// pathOrURI is a file: URI's path, or s itself.
func pathOrURI(s string) string {
	if strings.HasPrefix(s, "file:") {
		if p, ok := lsp.FilePath(protocol.DocumentURI(s)); ok {
			return p
		}
	}
	return s
}

// list answers rlog/sessions: sessions.Doc, or with touched
// sessions.TouchedDoc, as `rlog-ls sessions --format json` prints them.
func (sl *sessionLists) list(ctx context.Context, wc *wsCtx, p *sessionsParams) (any, error) {
	ix, err := sl.index()
	if err != nil {
		return nil, lsp.RequestFailed("no cache folder for the sessions index: %v", err)
	}
	req := sl.request(wc, p)
	req.Changes = p.Touched != ""
	l := ix.List(ctx, req)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err := ix.Save(); err != nil {
		wc.Log.Warn("the sessions index was not saved", zap.Error(err))
	}
	for _, pr := range l.Problems {
		wc.Log.Info("a session was not listed", zap.String("file", pr.File), zap.String("error", pr.Err))
	}
	files := l.Files()
	stamp := sessions.Stamp(req.Folders, files)
	sl.mu.Lock()
	sl.asked, sl.folders, sl.files, sl.stamp = true, req.Folders, files, stamp
	sl.mu.Unlock()
	if p.Touched != "" {
		t := pathOrURI(p.Touched)
		if !filepath.IsAbs(t) && req.Cwd != "" {
			t = filepath.Join(req.Cwd, t)
		}
		return sessions.TouchedDocOf(l, filepath.Clean(t)), nil
	}
	return sessions.DocOf(l), nil
}

// follow tells the client when the last listing it asked for changed on
// disk (a session written, grown or removed): every sessionsPoll, with
// stat only, once a listing was asked for. The client asks again.
func (sl *sessionLists) follow(ctx context.Context, workspace func() *wsCtx) {
	tick := time.NewTicker(sessionsPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		sl.mu.Lock()
		asked, folders, files, was := sl.asked, sl.folders, sl.files, sl.stamp
		sl.mu.Unlock()
		if !asked {
			continue
		}
		now := sessions.Stamp(folders, files)
		if now == was {
			continue
		}
		sl.mu.Lock()
		sl.stamp = now
		sl.mu.Unlock()
		if wc := workspace(); wc != nil {
			wc.Client.Notify(ctx, MethodSessionsChanged, struct{}{})
		}
	}
}

// indexedSymbol is a workspace symbol of the sessions index and the
// session file it is in.
type indexedSymbol struct {
	uri protocol.DocumentURI
	workspaceSymbol
}

// indexedSymbols are the workspace symbols of the sessions index that
// match (the query), at most limit, for the workspace folder's sessions
// that are not among skip (the open documents and the workspace's .rlog
// files, whose outlines give theirs), newest session first, each followed
// by its sub-agents' sessions: each session, named by its title (the
// agent's own, else its first prompt), each of its prompts (its first
// line), each of its phases (an @phase's name, @compact, @resume) and each
// of its calls, named "tool target" (Target: the file, pattern, command or
// URL it is about), at the session file's line. The index reads only the
// sessions that changed since the last listing; a cancelled request stops
// it.
func (sl *sessionLists) indexedSymbols(ctx context.Context, wc *wsCtx, skip map[string]bool, match func(name string) bool, limit int) []indexedSymbol {
	if limit <= 0 {
		return nil
	}
	ix, err := sl.index()
	if err != nil {
		return nil
	}
	l, children := sl.listWithSubagents(ctx, ix, wc)
	if ctx.Err() != nil {
		return nil
	}
	if err := ix.Save(); err != nil {
		wc.Log.Warn("the sessions index was not saved", zap.Error(err))
	}
	var out []indexedSymbol
	at := func(line int) protocol.Range {
		p := protocol.Position{Line: uint32(max(line-1, 0))}
		return protocol.Range{Start: p, End: p}
	}
	// session adds s's symbols, then its sub-agents'; false once limit
	// is reached.
	seen := map[string]bool{}
	var session func(s *sessions.Session, container string) bool
	session = func(s *sessions.Session, container string) bool {
		r := &s.Row
		if seen[r.File] {
			return true // a file that names itself among its ancestors
		}
		seen[r.File] = true
		name := r.Title
		if name == "" {
			name = filepath.Base(r.File)
		}
		uri := fileURI(r.File)
		add := func(sym workspaceSymbol) bool {
			if match(sym.name) {
				out = append(out, indexedSymbol{uri, sym})
			}
			return len(out) < limit
		}
		if !skip[r.File] {
			if !add(workspaceSymbol{name: name, container: container, kind: symbolKinds[analysis.SessionSymbol], rng: at(1)}) {
				return false
			}
			for _, p := range s.Prompts {
				if !add(workspaceSymbol{name: p.Text, container: name, kind: symbolKinds[analysis.TurnSymbol], rng: at(p.Line)}) {
					return false
				}
			}
			for _, p := range s.Phases {
				if !add(workspaceSymbol{name: p.Name, container: name, kind: symbolKinds[analysis.PhaseSymbol], rng: at(p.Line)}) {
					return false
				}
			}
			for _, c := range s.Calls {
				if !add(workspaceSymbol{name: strings.TrimSpace(c.Tool + " " + c.Target), container: name, kind: symbolKinds[analysis.ToolCallSymbol], rng: at(c.Line)}) {
					return false
				}
			}
		}
		for _, c := range children[r.File] {
			if !session(c, name) {
				return false
			}
		}
		return true
	}
	for _, s := range l.Sessions {
		container := s.Row.Agent
		if s.Row.Start != nil {
			container = strings.TrimSpace(container + " " + s.Row.Start.Format("2006-01-02 15:04"))
		}
		if !session(s, container) {
			break
		}
	}
	return out
}

// listWithSubagents lists the workspace's sessions with their changes,
// calls and phases, and their sub-agents' sessions by parent file. A
// sub-agent's session is its parent's child, not a row: they are listed by
// name, a generation at a time (a sub-agent may start its own), at most
// maxSubagentDepth deep.
func (sl *sessionLists) listWithSubagents(ctx context.Context, ix *sessions.Index, wc *wsCtx) (*sessions.Listing, map[string][]*sessions.Session) {
	req := sl.request(wc, &sessionsParams{})
	req.Changes = true
	l := ix.List(ctx, req)
	children := map[string][]*sessions.Session{}
	parents := l.Sessions
	for range maxSubagentDepth {
		var files []string
		for _, s := range parents {
			for _, c := range s.Row.Children {
				files = append(files, c.File)
			}
		}
		if len(files) == 0 || ctx.Err() != nil {
			break
		}
		sub := ix.List(ctx, sessions.Request{Files: files, Changes: true})
		for _, s := range sub.Sessions {
			children[s.Row.Parent] = append(children[s.Row.Parent], s)
		}
		parents = sub.Sessions
	}
	return l, children
}

// maxSubagentDepth is how many generations of sub-agents workspace
// symbols look for under a session.
const maxSubagentDepth = 4
