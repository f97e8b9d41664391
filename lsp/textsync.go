package lsp

import (
	"context"
	"errors"

	"github.com/segmentio/encoding/json"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// The text sync notifications run on the read loop, so each sees the
// document as every earlier notification left it.

// didOpenParams is DidOpenTextDocumentParams with the text decoded by our
// own unquoting (see jsonString).
type didOpenParams struct {
	TextDocument struct {
		URI        protocol.DocumentURI `json:"uri"`
		LanguageID string               `json:"languageId"`
		Version    int32                `json:"version"`
		Text       jsonString           `json:"text"`
	} `json:"textDocument"`
}

func (s *server[T]) didOpen(_ context.Context, raw json.RawMessage) error {
	p, ok := decodeDidOpen(raw)
	if !ok {
		p = didOpenParams{}
		if err := decodeParams(raw, &p); err != nil {
			return err
		}
	}
	item := p.TextDocument
	if item.URI == "" {
		return errors.New("didOpen without a uri")
	}
	doc, replaced := s.docs.Open(item.URI, item.LanguageID, item.Version, []byte(item.Text))
	if replaced != nil {
		s.log.Debug("didOpen of an open document: replaced", zap.String("uri", string(doc.URI)),
			zap.Int32("oldVersion", replaced.Version), zap.Int32("version", doc.Version))
	}
	s.diagnostics.scheduleNow(doc.URI)
	return nil
}

// didChangeParams is decoded with our ContentChange, whose Range is a
// pointer (pitfall 1).
type didChangeParams struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []ContentChange                          `json:"contentChanges"`
}

func (s *server[T]) didChange(_ context.Context, raw json.RawMessage) error {
	var p didChangeParams
	if err := decodeParams(raw, &p); err != nil {
		return err
	}
	uri := p.TextDocument.URI
	doc, prev, sum := s.docs.Change(uri, p.TextDocument.Version, p.ContentChanges, s.session().Encoding)
	if doc == nil {
		s.log.Warn("didChange for a document that is not open: ignored", zap.String("uri", string(uri)))
		return nil
	}
	if doc.Version <= prev.Version {
		// The specification says versions increase; a client that breaks
		// that still means its text, so apply it and say so.
		s.log.Warn("didChange version did not increase", zap.String("uri", string(uri)),
			zap.Int32("previous", prev.Version), zap.Int32("version", doc.Version))
	}
	s.log.Debug("didChange", zap.String("uri", string(uri)), zap.Int32("version", doc.Version),
		zap.Int("wholeDocument", sum.Whole), zap.Int("ranged", sum.Ranged),
		zap.Int("replacedBytes", sum.Replaced), zap.Int("insertedBytes", sum.Inserted), zap.Bool("appended", sum.Appended))
	if sum.Appended {
		// A log growing on disk, reloaded by the editor: nobody is typing,
		// so there is nothing to wait for, and the update costs what the
		// new lines cost.
		s.diagnostics.scheduleNow(uri)
		return nil
	}
	s.diagnostics.schedule(uri)
	return nil
}

func (s *server[T]) didClose(_ context.Context, raw json.RawMessage) error {
	var p protocol.DidCloseTextDocumentParams
	if err := decodeParams(raw, &p); err != nil {
		return err
	}
	uri := p.TextDocument.URI
	if !s.docs.Close(uri) {
		s.log.Debug("didClose for a document that is not open", zap.String("uri", string(uri)))
		return nil
	}
	s.diagnostics.forget(uri)
	return nil
}
