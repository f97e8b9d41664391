package lsp

import (
	"bytes"
	"sort"
	"sync"
	"time"

	"go.lsp.dev/protocol"
)

// Editable is a Text that can produce an edited copy of itself. The parser's
// tree implements it (Apply is where it reparses incrementally); the type
// parameter lets Apply return the concrete type, so *grammar.Tree satisfies
// Editable[*grammar.Tree] without importing this package.
type Editable[T any] interface {
	Text
	// Apply returns the text with bytes [start, end) replaced by newText.
	// The receiver is left unchanged: older snapshots stay valid.
	Apply(start, end int, newText []byte) T
}

// Document is an immutable snapshot of one open document. A change makes a
// new Document; whoever holds an old one can keep reading it without locks.
type Document[T Editable[T]] struct {
	URI        protocol.DocumentURI // an opaque key: untitled:, git: ... work like file:
	Version    int32
	LanguageID string
	Text       T
}

// ContentChange is our decoding of TextDocumentContentChangeEvent.
// protocol v0.12.0 declares its Range as a value, so a whole-document change
// ({"text": ...}) would read as an insertion at 0:0 and duplicate the
// document (pitfall 1). Here a nil Range means "replace everything".
type ContentChange struct {
	Range *protocol.Range `json:"range,omitempty"`
	Text  jsonString      `json:"text"`
}

// applyChanges applies one didChange batch to text. Ranged changes are
// relative to the text as left by the change before them, so they apply in
// order; a whole-document change discards everything before it, so the
// work starts from the last one ("last full change wins"). A whole
// document is not parsed again: it becomes an edit of the part that
// differs (see replaceText). The summary says what the batch did.
func applyChanges[T Editable[T]](text T, changes []ContentChange, enc PositionEncoding, parse func([]byte) T) (T, ChangeSummary) {
	sum := ChangeSummary{Appended: len(changes) > 0}
	first := 0
	for i := len(changes) - 1; i >= 0; i-- {
		if changes[i].Range == nil {
			var e textEdit
			text, e = replaceText(text, []byte(changes[i].Text), parse)
			sum.add(e, true)
			first = i + 1
			break
		}
	}
	for _, c := range changes[first:] {
		start, end := Mapper{Text: text, Encoding: enc}.Span(*c.Range)
		e := textEdit{start: start, end: end, inserted: len(c.Text)}
		e.appended = isAppend(text, e, []byte(c.Text))
		text = text.Apply(start, end, []byte(c.Text))
		sum.add(e, false)
	}
	return text, sum
}

// ChangeSummary says what one didChange did, for the log and for the
// diagnostics' schedule.
type ChangeSummary struct {
	Whole, Ranged int // changes of each form
	// Replaced and Inserted are the bytes the edits removed and added (a
	// whole document counts only the part that differed).
	Replaced, Inserted int
	// Appended is set when every change only added whole lines at the end
	// of the document: a log growing on disk that the editor reloaded.
	Appended bool
}

func (s *ChangeSummary) add(e textEdit, whole bool) {
	if whole {
		s.Whole++
	} else {
		s.Ranged++
	}
	s.Replaced += e.end - e.start
	s.Inserted += e.inserted
	s.Appended = s.Appended && e.appended
}

// textEdit is what one change did: bytes [start, end) of the text
// became inserted bytes.
type textEdit struct {
	start, end, inserted int
	appended             bool // whole lines added at the end (isAppend)
}

// isAppend reports whether e adds whole lines at the end of text: it
// inserts at the end, after a line end (or into an empty text), and what
// it inserts ends with a line end.
func isAppend[T Text](text T, e textEdit, inserted []byte) bool {
	n := text.Len()
	if e.start != n || e.end != n || len(inserted) == 0 {
		return false
	}
	last := inserted[len(inserted)-1]
	if last != '\n' && last != '\r' {
		return false
	}
	if n == 0 {
		return true
	}
	prev := text.Slice(n-1, n)
	return prev[0] == '\n' || prev[0] == '\r' && inserted[0] != '\n'
}

// replacer is a Text that finds how bytes differ from it faster than a
// comparison through Slice (the parser's tree compares chunk by chunk).
// Replacement returns the one replacement that turns the text into b:
// bytes [start, end) of the text become b[start:newEnd].
type replacer interface {
	Replacement(b []byte) (start, end, newEnd int)
}

// replaceText returns text replaced by b. Clients send whole documents
// when they reload a file from disk (Neovim reopens it, other clients send
// a whole-document change), and a log that grew by a line differs from the
// open document only at its end: comparing costs far less than parsing
// 100 MB again, and the edit keeps every chunk, and everything derived
// from it, that did not change. A text that keeps less than half of itself
// is parsed anew.
func replaceText[T Editable[T]](text T, b []byte, parse func([]byte) T) (T, textEdit) {
	var start, end, newEnd int
	if r, ok := any(text).(replacer); ok {
		start, end, newEnd = r.Replacement(b)
	} else {
		start, end, newEnd = replacementBytes(text.Slice(0, text.Len()), b)
	}
	inserted := b[start:newEnd:newEnd]
	e := textEdit{start: start, end: end, inserted: len(inserted)}
	e.appended = isAppend(text, e, inserted)
	if kept := start + text.Len() - end; kept == 0 || kept < text.Len()/2 {
		// Most of the text changed: an edit would rescan as much as a parse,
		// and the analysis could reuse little.
		return parse(b), e
	}
	if start == end && start == newEnd {
		return text, e // the same text
	}
	// Only the changed part is kept: b itself may be the size of the document.
	return text.Apply(start, end, bytes.Clone(inserted)), e
}

// replacementBytes is Replacement for a text held in one slice.
func replacementBytes(a, b []byte) (start, end, newEnd int) {
	n := min(len(a), len(b))
	for start < n && a[start] == b[start] {
		start++
	}
	suffix := 0
	for suffix < n-start && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	return start, len(a) - suffix, len(b) - suffix
}

// Store holds the open documents. Writes happen on the read loop only (one
// writer, in protocol order); any goroutine may read. Closing a document
// removes every trace of it, so memory follows the set of open documents,
// but for the one closed last, which is kept for reopenWindow: clients
// that reload a file from disk close it and open it again at once.
type Store[T Editable[T]] struct {
	parse func([]byte) T

	mu     sync.RWMutex
	docs   map[protocol.DocumentURI]*Document[T]
	closed *Document[T] // closed within reopenWindow, or nil
	forget *time.Timer  // drops closed
}

// reopenWindow is how long a closed document is kept for a reopen. Neovim
// reloads a file that changed on disk (autoread, :checktime) with didClose
// and didOpen in a row.
const reopenWindow = 2 * time.Second

// NewStore makes an empty store; parse builds a document's text from bytes.
func NewStore[T Editable[T]](parse func([]byte) T) *Store[T] {
	return &Store[T]{parse: parse, docs: map[protocol.DocumentURI]*Document[T]{}}
}

// Open stores a new snapshot of uri, replacing any document already open
// under it; it reports the one it replaced. When uri is open already, or
// was closed a moment ago, the new text is an edit of the old one (see
// replaceText), so reopening a log that grew costs what it appended.
func (s *Store[T]) Open(uri protocol.DocumentURI, languageID string, version int32, text []byte) (doc, replaced *Document[T]) {
	s.mu.Lock()
	base := s.docs[uri]
	if base == nil && s.closed != nil && s.closed.URI == uri {
		base = s.closed
	}
	s.dropClosed()
	s.mu.Unlock()
	doc = &Document[T]{URI: uri, Version: version, LanguageID: languageID}
	if base != nil {
		doc.Text, _ = replaceText(base.Text, text, s.parse)
	} else {
		doc.Text = s.parse(text)
	}
	s.mu.Lock()
	replaced = s.docs[uri]
	s.docs[uri] = doc
	s.mu.Unlock()
	return doc, replaced
}

// Change applies changes to the open document uri and stores the result
// under version. It returns the new and the previous snapshot, or two nils
// when uri is not open, and what the changes did. The edit is computed
// outside the lock so that readers never wait for a reparse.
func (s *Store[T]) Change(uri protocol.DocumentURI, version int32, changes []ContentChange, enc PositionEncoding) (doc, prev *Document[T], sum ChangeSummary) {
	prev = s.Get(uri)
	if prev == nil {
		return nil, nil, sum
	}
	text, sum := applyChanges(prev.Text, changes, enc, s.parse)
	doc = &Document[T]{URI: uri, Version: version, LanguageID: prev.LanguageID, Text: text}
	s.mu.Lock()
	s.docs[uri] = doc
	s.mu.Unlock()
	return doc, prev, sum
}

// Close forgets uri and reports whether it was open. The document is kept
// for reopenWindow in case the client opens it again.
func (s *Store[T]) Close(uri protocol.DocumentURI) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	doc, ok := s.docs[uri]
	delete(s.docs, uri)
	if ok {
		s.dropClosed()
		s.closed = doc
		s.forget = time.AfterFunc(reopenWindow, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.closed == doc {
				s.dropClosed()
			}
		})
	}
	return ok
}

// dropClosed forgets the document kept for a reopen. s.mu must be held.
func (s *Store[T]) dropClosed() {
	if s.forget != nil {
		s.forget.Stop()
	}
	s.closed, s.forget = nil, nil
}

// Get returns the current snapshot of uri, or nil when it is not open.
func (s *Store[T]) Get(uri protocol.DocumentURI) *Document[T] {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.docs[uri]
}

// All returns the current snapshots of every open document, by URI.
func (s *Store[T]) All() []*Document[T] {
	s.mu.RLock()
	all := make([]*Document[T], 0, len(s.docs))
	for _, d := range s.docs {
		all = append(all, d)
	}
	s.mu.RUnlock()
	sort.Slice(all, func(i, j int) bool { return all[i].URI < all[j].URI })
	return all
}

// Len is the number of open documents.
func (s *Store[T]) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.docs)
}
