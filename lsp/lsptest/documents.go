package lsptest

import (
	"go.lsp.dev/protocol"
)

// Change is one content change of a didChange: a nil Range replaces the
// whole document (protocol's own type cannot say that; see the lsp package).
type Change struct {
	Range *protocol.Range `json:"range,omitempty"`
	Text  string          `json:"text"`
}

// Span is the range from line1:char1 to line2:char2, for a Change.
func Span(line1, char1, line2, char2 uint32) *protocol.Range {
	return &protocol.Range{
		Start: protocol.Position{Line: line1, Character: char1},
		End:   protocol.Position{Line: line2, Character: char2},
	}
}

// Open sends didOpen for an "rlog" document.
func (c *Client) Open(uri protocol.DocumentURI, version int32, text string) {
	c.t.Helper()
	c.Notify(protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: uri, LanguageID: "rlog", Version: version, Text: text},
	})
}

// Change sends didChange with the changes in order.
func (c *Client) Change(uri protocol.DocumentURI, version int32, changes ...Change) {
	c.t.Helper()
	c.Notify(protocol.MethodTextDocumentDidChange, map[string]any{
		"textDocument":   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}, Version: version},
		"contentChanges": changes,
	})
}

// Close sends didClose.
func (c *Client) Close(uri protocol.DocumentURI) {
	c.t.Helper()
	c.Notify(protocol.MethodTextDocumentDidClose, protocol.DidCloseTextDocumentParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri},
	})
}
