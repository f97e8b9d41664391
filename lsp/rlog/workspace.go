package rlog

import (
	"context"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/lsp"
)

// Limits of workspace symbol search: it reads files from disk, so it must
// stay bounded in time and memory however large the workspace is.
const (
	workspaceMaxFiles     = 2000
	workspaceMaxFileBytes = 64 << 20
	workspaceMaxResults   = 1000
	workspaceSymbolsCap   = 2000 // outline entries read per file
)

// workspaceCacheBudget bounds the symbols the cache holds over all files
// (each about 150 bytes): 2,000 files of 2,000 symbols would otherwise keep
// 600 MB. Files past it are parsed again at each search instead.
var workspaceCacheBudget = 200_000

// workspaceSymbol is a symbol with its place, independent of any session.
type workspaceSymbol struct {
	name, container string
	kind            protocol.SymbolKind
	rng             protocol.Range
}

type cachedFile struct {
	modTime time.Time
	size    int64
	symbols []workspaceSymbol
}

// workspaceIndex caches the symbols of workspace files that are not open,
// keyed by path and invalidated by modification time and size. Each search
// rebuilds the map from the files it finds, so deleted files drop out.
type workspaceIndex struct {
	// sessions, when set, adds the sessions index's symbols: the agents'
	// sessions of the workspace folder, in every format.
	sessions *sessionLists
	mu       sync.Mutex
	files    map[string]cachedFile
	cached   int // symbols held in files, at most workspaceCacheBudget
}

func newWorkspaceIndex() *workspaceIndex { return &workspaceIndex{files: map[string]cachedFile{}} }

// symbols answers workspace/symbol: sessions, phases, tool calls and
// subagents across open documents and the workspace's *.rlog files, then
// the sessions, prompts, phases and calls of the sessions index (the
// agents' stores for the workspace folder), at most workspaceMaxResults in
// all.
func (w *workspaceIndex) symbols(ctx context.Context, wc *wsCtx, p *protocol.WorkspaceSymbolParams) (any, error) {
	query := strings.ToLower(p.Query)
	out := []protocol.SymbolInformation{}
	add := func(uri protocol.DocumentURI, syms []workspaceSymbol) bool {
		for _, s := range syms {
			if len(out) == workspaceMaxResults {
				return false
			}
			if fuzzyMatch(query, s.name) {
				out = append(out, protocol.SymbolInformation{
					Name: s.name, Kind: s.kind, ContainerName: s.container,
					Location: protocol.Location{URI: uri, Range: s.rng},
				})
			}
		}
		return true
	}
	open := map[string]bool{}
	for _, d := range wc.Docs {
		if isRecordDocument(d.URI) {
			continue
		}
		if path, ok := lsp.FilePath(d.URI); ok {
			open[path] = true
		}
		if !add(d.URI, collectSymbols(d.Text, wc.Mapper(d))) {
			return out, nil
		}
	}
	for _, path := range w.walk(ctx, workspaceRoots(wc.Session)) {
		if open[path] {
			continue
		}
		open[path] = true
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		syms, ok := w.fileSymbols(path, wc.Session.Encoding)
		if ok && !add(fileURI(path), syms) {
			return out, nil
		}
	}
	if w.sessions != nil && len(out) < workspaceMaxResults {
		match := func(name string) bool { return fuzzyMatch(query, name) }
		indexed := w.sessions.indexedSymbols(ctx, wc, open, match, workspaceMaxResults-len(out))
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for _, s := range indexed {
			out = append(out, protocol.SymbolInformation{
				Name: s.name, Kind: s.kind, ContainerName: s.container,
				Location: protocol.Location{URI: s.uri, Range: s.rng},
			})
		}
	}
	return out, nil
}

// collectSymbols flattens a document's outline to the kinds worth finding
// across files.
func collectSymbols(d Doc, m lsp.Mapper) []workspaceSymbol {
	var out []workspaceSymbol
	var walk func(ss []analysis.Symbol, container string)
	walk = func(ss []analysis.Symbol, container string) {
		for _, s := range ss {
			switch s.Kind {
			case analysis.SessionSymbol, analysis.PhaseSymbol, analysis.ToolCallSymbol, analysis.SubagentSymbol:
				out = append(out, workspaceSymbol{name: s.Name, container: container, kind: symbolKinds[s.Kind], rng: m.Range(s.Selection.Start, s.Selection.End)})
			}
			walk(s.Children, s.Name)
		}
	}
	walk(analysis.Outline(d.Tree, workspaceSymbolsCap), "")
	return out
}

func (w *workspaceIndex) fileSymbols(path string, enc lsp.PositionEncoding) ([]workspaceSymbol, bool) {
	info, err := os.Stat(path)
	if err != nil || info.Size() > workspaceMaxFileBytes {
		return nil, false
	}
	w.mu.Lock()
	c, ok := w.files[path]
	w.mu.Unlock()
	if ok && c.modTime.Equal(info.ModTime()) && c.size == info.Size() {
		return c.symbols, true
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	d := Parse(src)
	syms := collectSymbols(d, lsp.Mapper{Text: d, Encoding: enc})
	w.mu.Lock()
	if old, ok := w.files[path]; ok {
		w.cached -= len(old.symbols)
		delete(w.files, path)
	}
	if w.cached+len(syms) <= workspaceCacheBudget {
		w.files[path] = cachedFile{modTime: info.ModTime(), size: info.Size(), symbols: syms}
		w.cached += len(syms)
	}
	w.mu.Unlock()
	return syms, true
}

// walk lists the *.rlog files under the roots (skipping VCS, dependency and
// hidden folders), at most workspaceMaxFiles, and forgets cached files that
// were not seen.
func (w *workspaceIndex) walk(ctx context.Context, roots []string) []string {
	var files []string
	seen := map[string]bool{}
	for _, root := range roots {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || ctx.Err() != nil || len(files) >= workspaceMaxFiles {
				if d != nil && d.IsDir() || err == nil {
					return filepath.SkipDir
				}
				return nil
			}
			name := d.Name()
			if d.IsDir() {
				if p != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor" || name == "target") {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.EqualFold(filepath.Ext(name), ".rlog") && !seen[p] {
				seen[p] = true
				files = append(files, p)
			}
			return nil
		})
	}
	sort.Strings(files)
	w.mu.Lock()
	for p, c := range w.files {
		if !seen[p] {
			w.cached -= len(c.symbols)
			delete(w.files, p)
		}
	}
	w.mu.Unlock()
	return files
}

// fileURI is the file: URI of a local path.
func fileURI(path string) protocol.DocumentURI {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x is file:///C:/x
	}
	return protocol.DocumentURI((&url.URL{Scheme: "file", Path: p}).String())
}

// workspaceRoots are the local folders of the workspace; a client with no
// workspace (a single file) has none, and only open documents are searched.
func workspaceRoots(sess *lsp.Session) []string {
	var roots []string
	for _, f := range sess.WorkspaceFolders {
		if p, ok := lsp.FilePath(protocol.DocumentURI(f.URI)); ok {
			roots = append(roots, p)
		}
	}
	if len(roots) == 0 {
		if p, ok := lsp.FilePath(sess.RootURI); ok {
			roots = append(roots, p)
		}
	}
	return roots
}

// fuzzyMatch reports whether the runes of query (lower case) appear in
// name in order, ignoring case: what editors expect of workspace symbol
// search. ASCII is compared a byte at a time (a query is tried against
// every call of every indexed session, a million for a heavy user); from
// the first byte that is not, fuzzyMatchRunes goes on (a rune such as the
// Kelvin sign is lower-cased to an ASCII letter).
func fuzzyMatch(query, name string) bool {
	j := 0
	for i := 0; i < len(query); i++ {
		q := query[i]
		if q >= utf8.RuneSelf {
			return fuzzyMatchRunes(query[i:], name[j:])
		}
		if asciiSpace[q] {
			continue
		}
		for {
			if j == len(name) {
				return false
			}
			c := name[j]
			if c >= utf8.RuneSelf {
				return fuzzyMatchRunes(query[i:], name[j:])
			}
			j++
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c == q {
				break
			}
		}
	}
	return true
}

// asciiSpace[c] says unicode.IsSpace(c), for an ASCII c.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// fuzzyMatchRunes is fuzzyMatch a rune at a time.
func fuzzyMatchRunes(query, name string) bool {
	for _, q := range query {
		if unicode.IsSpace(q) {
			continue
		}
		found := false
		for len(name) > 0 {
			r, size := utf8.DecodeRuneInString(name)
			name = name[size:]
			if unicode.ToLower(r) == q {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
