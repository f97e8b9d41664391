package lsp

import (
	"sort"
	"sync"

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
// work starts from the last one ("last full change wins").
func applyChanges[T Editable[T]](text T, changes []ContentChange, enc PositionEncoding, parse func([]byte) T) T {
	first := 0
	for i := len(changes) - 1; i >= 0; i-- {
		if changes[i].Range == nil {
			text = parse([]byte(changes[i].Text))
			first = i + 1
			break
		}
	}
	for _, c := range changes[first:] {
		start, end := Mapper{Text: text, Encoding: enc}.Span(*c.Range)
		text = text.Apply(start, end, []byte(c.Text))
	}
	return text
}

// Store holds the open documents. Writes happen on the read loop only (one
// writer, in protocol order); any goroutine may read. Closing a document
// removes every trace of it, so memory follows the set of open documents.
type Store[T Editable[T]] struct {
	parse func([]byte) T

	mu   sync.RWMutex
	docs map[protocol.DocumentURI]*Document[T]
}

// NewStore makes an empty store; parse builds a document's text from bytes.
func NewStore[T Editable[T]](parse func([]byte) T) *Store[T] {
	return &Store[T]{parse: parse, docs: map[protocol.DocumentURI]*Document[T]{}}
}

// Open stores a new snapshot of uri, replacing any document already open
// under it; it reports the one it replaced.
func (s *Store[T]) Open(uri protocol.DocumentURI, languageID string, version int32, text []byte) (doc, replaced *Document[T]) {
	doc = &Document[T]{URI: uri, Version: version, LanguageID: languageID, Text: s.parse(text)}
	s.mu.Lock()
	replaced = s.docs[uri]
	s.docs[uri] = doc
	s.mu.Unlock()
	return doc, replaced
}

// Change applies changes to the open document uri and stores the result
// under version. It returns the new and the previous snapshot, or two nils
// when uri is not open. The edit is computed outside the lock so that
// readers never wait for a reparse.
func (s *Store[T]) Change(uri protocol.DocumentURI, version int32, changes []ContentChange, enc PositionEncoding) (doc, prev *Document[T]) {
	prev = s.Get(uri)
	if prev == nil {
		return nil, nil
	}
	doc = &Document[T]{
		URI:        uri,
		Version:    version,
		LanguageID: prev.LanguageID,
		Text:       applyChanges(prev.Text, changes, enc, s.parse),
	}
	s.mu.Lock()
	s.docs[uri] = doc
	s.mu.Unlock()
	return doc, prev
}

// Close forgets uri and reports whether it was open.
func (s *Store[T]) Close(uri protocol.DocumentURI) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.docs[uri]
	delete(s.docs, uri)
	return ok
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
