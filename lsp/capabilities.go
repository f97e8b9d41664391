package lsp

import (
	"go.lsp.dev/protocol"
)

// ServerCapabilities extends protocol v0.12.0's capabilities (an LSP 3.16
// subset) by embedding: the encoder flattens the embedded fields, so new
// fields sit beside the old ones on the wire. Add 3.17 providers here.
type ServerCapabilities struct {
	protocol.ServerCapabilities
	// PositionEncoding is the encoding of every Position (LSP 3.17).
	PositionEncoding string `json:"positionEncoding,omitempty"`
	// InlayHintProvider says the server answers textDocument/inlayHint
	// (LSP 3.17): true, or an *InlayHintOptions.
	InlayHintProvider any `json:"inlayHintProvider,omitempty"`
}

type initializeResult struct {
	Capabilities ServerCapabilities  `json:"capabilities"`
	ServerInfo   protocol.ServerInfo `json:"serverInfo"`
}

// capabilities builds the initialize result's capabilities: the plumbing's
// own (text sync, encoding), then whatever the features add.
func (s *server[T]) capabilities(sess *Session) ServerCapabilities {
	caps := ServerCapabilities{
		ServerCapabilities: protocol.ServerCapabilities{
			TextDocumentSync: &protocol.TextDocumentSyncOptions{
				OpenClose: true,
				Change:    protocol.TextDocumentSyncKindIncremental,
			},
		},
		PositionEncoding: sess.Encoding.String(),
	}
	if f := s.opts.Features.Capabilities; f != nil {
		f(&caps, sess)
	}
	return caps
}
