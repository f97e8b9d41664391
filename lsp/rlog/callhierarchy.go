package rlog

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/companion"
	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/lsp"
)

// The sub-agent tree, as the editor's call hierarchy: a session "calls"
// the sub-agents it started. An item is a session's document as the editor
// shows it (an rlog log as it is, any other session file as its view), or
// an x: line whose sub-agent has no file of its own. Outgoing calls are
// the sub-agents a session started, from its x: lines; incoming calls the
// session that started one, at its x: line. Which files are linked is
// convert's (Subagents, ParentOf), for every format; here they become
// documents and ranges. docs/features.md is the reference.

// hierarchyData is what an item carries from prepareCallHierarchy to the
// incoming and outgoing calls.
type hierarchyData struct {
	// Path is the session file (a transcript, or an rlog log) the item
	// is, or whose x: line it is.
	Path string `json:"path"`
	// Line, for a sub-agent with no file of its own, is its x: line in
	// the document of Path (0-based).
	Line *int `json:"line,omitempty"`
}

// hierarchy keeps the documents of sessions that are not open in the
// editor, which a call hierarchy walks through (a sub-agent's view, its
// parent's log), while their files do not change.
type hierarchy struct {
	mu    sync.Mutex
	cache []hierarchyDoc
}

// hierarchyCacheSize is how many documents read from disk are kept: a
// step through the tree (prepare, then incoming or outgoing calls) reads
// a session and its neighbours.
const hierarchyCacheSize = 8

// hierarchyDoc is a session's document as the editor shows it.
type hierarchyDoc struct {
	// path is the file the document is of (an rlog log, or the session
	// file a view shows); uri the document's.
	path string
	uri  protocol.DocumentURI
	// tree is the document's text; nil for a file no view can show (an
	// autopilot sub-agent's JSONL), opened as it is.
	tree *grammar.Tree
	// stamp is the file's when read from disk (to keep it while it does
	// not change); zero for an open document.
	size    int64
	modTime time.Time
}

func newHierarchy() *hierarchy { return &hierarchy{} }

// prepare answers textDocument/prepareCallHierarchy: on an x: line, its
// sub-agent (its own file, or the line when it has none); anywhere else,
// the session.
func (h *hierarchy) prepare(ctx context.Context, wc *wsCtx, p *protocol.CallHierarchyPrepareParams) (any, error) {
	d := openDocument(wc, p.TextDocument.URI)
	if d == nil || isRecordDocument(d.URI) {
		return nil, nil
	}
	self := hierarchyDoc{path: documentPath(d.URI), uri: d.URI, tree: d.Text.Tree}
	t := d.Text.Tree
	l := t.Line(t.LineAt(wc.Mapper(d).Offset(p.Position)))
	if l.Kind != grammar.Subagent {
		return []protocol.CallHierarchyItem{h.sessionItem(wc, self, parentName(self.path))}, nil
	}
	if self.path != "" {
		links, _ := convert.Subagents(self.path)
		for _, link := range links {
			if matchesLink(t, l, link) {
				child := h.document(ctx, wc, link.Path, false)
				return []protocol.CallHierarchyItem{h.sessionItem(wc, child, linkName(link))}, nil
			}
		}
	}
	return []protocol.CallHierarchyItem{h.lineItem(wc, self, l)}, nil
}

// outgoing answers callHierarchy/outgoingCalls: the sub-agents the
// session started, each at the x: lines that name it; those with a file
// of their own first, in the order they started, then those without, in
// the order of their lines.
func (h *hierarchy) outgoing(ctx context.Context, wc *wsCtx, p *protocol.CallHierarchyOutgoingCallsParams) (any, error) {
	out := []protocol.CallHierarchyOutgoingCall{}
	data, ok := itemData(p.Item)
	if !ok || data.Line != nil {
		return out, nil // a sub-agent without a file started none we know of
	}
	self := h.itemDocument(ctx, wc, p.Item.URI, data.Path)
	var links []convert.Link
	if self.path != "" {
		links, _ = convert.Subagents(self.path)
	}
	m := h.mapper(wc, self)
	linked := map[int]bool{}
	for _, link := range links {
		var ranges []protocol.Range
		if self.tree != nil {
			for l := range self.tree.Body() {
				if l.Kind == grammar.Subagent && matchesLink(self.tree, l, link) {
					ranges = append(ranges, m.Range(l.Start, l.TrimEnd))
					linked[l.Num] = true
				}
			}
		}
		if len(ranges) == 0 {
			ranges = []protocol.Range{h.sessionItem(wc, self, "").SelectionRange}
		}
		child := h.document(ctx, wc, link.Path, false)
		out = append(out, protocol.CallHierarchyOutgoingCall{To: h.sessionItem(wc, child, linkName(link)), FromRanges: ranges})
	}
	if self.tree == nil {
		return out, nil
	}
	// The x: lines of sub-agents with no file: one item per id, at its
	// first line, called from each of its lines.
	byID := map[string]int{}
	for l := range self.tree.Body() {
		if l.Kind != grammar.Subagent || linked[l.Num] {
			continue
		}
		id := string(self.tree.Slice(l.ID.Start, l.ID.End))
		if i, ok := byID[id]; ok && id != "" {
			out[i].FromRanges = append(out[i].FromRanges, m.Range(l.Start, l.TrimEnd))
			continue
		}
		byID[id] = len(out)
		out = append(out, protocol.CallHierarchyOutgoingCall{To: h.lineItem(wc, self, l), FromRanges: []protocol.Range{m.Range(l.Start, l.TrimEnd)}})
	}
	return out, nil
}

// incoming answers callHierarchy/incomingCalls: the session that started
// the sub-agent, at the x: lines that name it.
func (h *hierarchy) incoming(ctx context.Context, wc *wsCtx, p *protocol.CallHierarchyIncomingCallsParams) (any, error) {
	out := []protocol.CallHierarchyIncomingCall{}
	data, ok := itemData(p.Item)
	if !ok {
		return out, nil
	}
	if data.Line != nil {
		// A sub-agent without a file: its session, at its lines.
		self := h.itemDocument(ctx, wc, p.Item.URI, data.Path)
		if self.tree == nil || *data.Line < 0 || *data.Line >= self.tree.LineCount() {
			return out, nil
		}
		m := h.mapper(wc, self)
		at := self.tree.Line(*data.Line)
		id := self.tree.Slice(at.ID.Start, at.ID.End)
		var ranges []protocol.Range
		for l := range self.tree.Body() {
			if l.Num == at.Num || l.Kind == grammar.Subagent && len(id) > 0 && bytes.Equal(self.tree.Slice(l.ID.Start, l.ID.End), id) {
				ranges = append(ranges, m.Range(l.Start, l.TrimEnd))
			}
		}
		return append(out, protocol.CallHierarchyIncomingCall{From: h.sessionItem(wc, self, parentName(self.path)), FromRanges: ranges}), nil
	}
	if data.Path == "" {
		return out, nil
	}
	link, ok, _ := convert.ParentOf(data.Path)
	if !ok {
		return out, nil
	}
	parent := h.document(ctx, wc, link.Path, true)
	from := h.sessionItem(wc, parent, parentName(parent.path))
	var ranges []protocol.Range
	if parent.tree != nil {
		m := h.mapper(wc, parent)
		for l := range parent.tree.Body() {
			if l.Kind == grammar.Subagent && matchesLink(parent.tree, l, link) {
				ranges = append(ranges, m.Range(l.Start, l.TrimEnd))
			}
		}
	}
	if len(ranges) == 0 {
		ranges = []protocol.Range{from.SelectionRange}
	}
	return append(out, protocol.CallHierarchyIncomingCall{From: from, FromRanges: ranges}), nil
}

// itemData is the data an item carries, or what its URI says when a
// client did not keep it.
func itemData(it protocol.CallHierarchyItem) (hierarchyData, bool) {
	var d hierarchyData
	if raw, err := json.Marshal(it.Data); err == nil && json.Unmarshal(raw, &d) == nil && d.Path != "" {
		return d, true
	}
	if p := documentPath(it.URI); p != "" {
		return hierarchyData{Path: p}, true
	}
	return hierarchyData{}, false
}

// documentPath is the file a document is of: an rlog log's, or the
// session file a view shows; "" for a document not on disk.
func documentPath(uri protocol.DocumentURI) string {
	if src, ok := viewSource(uri); ok {
		return src
	}
	if p, ok := lsp.FilePath(uri); ok {
		return p
	}
	return ""
}

// matchesLink reports whether x: line l names the sub-agent of link: its
// tid= is the sub-agent's id, or its id= (id_full=) the call that started
// it, or (the autopilot's) the sub-agent's id.
func matchesLink(t *grammar.Tree, l grammar.Line, link convert.Link) bool {
	text := t.Slice(l.Start, l.End)
	value := func(key string) string {
		v, ok := grammar.ValueOf(text, key, l.Content-l.Start)
		if !ok {
			return ""
		}
		return string(bytes.Trim(text[v.Start:v.End], `"`))
	}
	id := string(t.Slice(l.ID.Start, l.ID.End))
	switch tid := value("tid"); {
	case link.AgentID != "" && tid != "":
		return tid == link.AgentID
	case link.CallID != "" && (id == link.CallID || value("id_full") == link.CallID):
		return true
	default:
		return link.AgentID != "" && id == link.AgentID
	}
}

// document is the document of the session file at path as the editor
// shows it: the open one, or read from disk (a view converted as the view
// request does). A parent is shown as the rlog log it is the companion of,
// when there is one.
func (h *hierarchy) document(ctx context.Context, wc *wsCtx, path string, parent bool) hierarchyDoc {
	if parent {
		if log, ok := companion.RlogFor(path); ok {
			if f, ok := companion.Locate(log); ok && f.Main == path {
				path = log
			}
		}
	}
	var uri protocol.DocumentURI
	view := false
	switch {
	case strings.EqualFold(filepath.Ext(path), ".rlog"):
		uri = fileURI(path)
	default:
		if _, err := readableSession(path); err == nil {
			uri, view = viewURI(path), true
		} else {
			return hierarchyDoc{path: path, uri: fileURI(path)}
		}
	}
	return h.itemDocumentAs(ctx, wc, uri, path, view)
}

// itemDocument is the document of an item: the open document of its URI,
// or the file at path read as the URI says (a view, or a log).
func (h *hierarchy) itemDocument(ctx context.Context, wc *wsCtx, uri protocol.DocumentURI, path string) hierarchyDoc {
	return h.itemDocumentAs(ctx, wc, uri, path, isView(uri))
}

func (h *hierarchy) itemDocumentAs(ctx context.Context, wc *wsCtx, uri protocol.DocumentURI, path string, view bool) hierarchyDoc {
	for _, d := range wc.Docs {
		if d.URI == uri || path != "" && documentPath(d.URI) == path && isView(d.URI) == view {
			return hierarchyDoc{path: path, uri: d.URI, tree: d.Text.Tree}
		}
	}
	out := hierarchyDoc{path: path, uri: uri}
	info, err := os.Stat(path)
	if path == "" || err != nil {
		return out
	}
	h.mu.Lock()
	for _, c := range h.cache {
		if c.uri == uri && c.size == info.Size() && c.modTime.Equal(info.ModTime()) {
			h.mu.Unlock()
			return c
		}
	}
	h.mu.Unlock()
	var src []byte
	if view {
		fi, err := readableSession(path)
		if err != nil {
			return out
		}
		var b bytes.Buffer
		if _, err := convertSession(ctx, path, fi.Name, &b); err != nil {
			return out
		}
		src = b.Bytes()
	} else if src, err = os.ReadFile(path); err != nil {
		return out
	}
	out.tree, out.size, out.modTime = grammar.Parse(src), info.Size(), info.ModTime()
	h.mu.Lock()
	h.cache = append(h.cache, out)
	if len(h.cache) > hierarchyCacheSize {
		h.cache = h.cache[len(h.cache)-hierarchyCacheSize:]
	}
	h.mu.Unlock()
	return out
}

func (h *hierarchy) mapper(wc *wsCtx, d hierarchyDoc) lsp.Mapper {
	return lsp.Mapper{Text: d.tree, Encoding: wc.Session.Encoding}
}

// sessionItem is the item of a session's document: its header (or first
// line), with its id selected; name "" names it after its file.
func (h *hierarchy) sessionItem(wc *wsCtx, d hierarchyDoc, name string) protocol.CallHierarchyItem {
	base := filepath.Base(d.path)
	if d.path == "" {
		base = string(d.uri)
	}
	if name == "" {
		name = base
	}
	it := protocol.CallHierarchyItem{Name: name, Kind: protocol.SymbolKindModule, Detail: base, URI: d.uri, Data: hierarchyData{Path: d.path}}
	if d.tree == nil {
		return it
	}
	m := h.mapper(wc, d)
	t := d.tree
	first := t.Line(0)
	rng, sel := grammar.Span{Start: first.Start, End: first.TrimEnd}, grammar.Span{Start: first.Start, End: first.TrimEnd}
	if hd := t.Header(); hd.Present {
		rng.End = t.Line(min(hd.End, t.LineCount()-1)).TrimEnd
		if f := hd.Field("id"); f != nil && f.ValueSpan.End > f.ValueSpan.Start {
			sel = f.ValueSpan
		}
		if a, ok := hd.Get("agent"); ok && a != "" {
			it.Detail = a + " · " + base
		}
	}
	it.Range, it.SelectionRange = m.Range(rng.Start, rng.End), m.Range(sel.Start, sel.End)
	return it
}

// lineItem is the item of a sub-agent with no file of its own: its x:
// line, with its type selected.
func (h *hierarchy) lineItem(wc *wsCtx, d hierarchyDoc, l grammar.Line) protocol.CallHierarchyItem {
	m := h.mapper(wc, d)
	t := d.tree
	name := string(t.Slice(l.Name.Start, l.Name.End))
	sel := l.Name
	if name == "" {
		name, sel = "subagent", grammar.Span{Start: l.Start, End: l.TrimEnd}
	}
	n := l.Num
	detail := string(t.Slice(l.ID.Start, l.ID.End))
	return protocol.CallHierarchyItem{Name: name, Kind: protocol.SymbolKindFunction, Detail: detail, URI: d.uri,
		Range: m.Range(l.Start, l.TrimEnd), SelectionRange: m.Range(sel.Start, sel.End), Data: hierarchyData{Path: d.path, Line: &n}}
}

// linkName names a sub-agent's item: its type, or its id.
func linkName(l convert.Link) string {
	if l.Type != "" {
		return l.Type
	}
	return l.AgentID
}

// parentName names a session's item: its type when it is itself a
// sub-agent (its own link to its parent says), else its file's name.
func parentName(path string) string {
	if path == "" {
		return ""
	}
	if l, ok, _ := convert.ParentOf(path); ok {
		return linkName(l)
	}
	return ""
}
