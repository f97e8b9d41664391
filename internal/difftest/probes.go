package difftest

import (
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"
)

// A Probe is one question the harness asks about a document: at each
// comparison it sends the same request about the edited document and about
// a fresh open of the same text, and the two answers must be equal (after
// the fresh document's URI is replaced by the edited one's). Every answer
// must also pass the generic checks (each position object names a place in
// the document, each range ends after it starts) and the probe's own Check.
//
// A feature joins the harness with one entry in Probes.
type Probe struct {
	// Name names the probe in reports and in scripts.
	Name string
	// Method is the request's LSP method.
	Method string
	// Params returns the request's params about the site's document (s.URI)
	// at site s, or nil to ask nothing there.
	Params func(s *Site) any
	// PerDocument asks once per comparison (at the first site), for
	// requests about the whole document.
	PerDocument bool
	// Check, if set, checks the edited document's answer on its own.
	Check func(s *Site, answer json.RawMessage) error
	// Edits, if set, returns the text edits of each action in the answer
	// that an editor can apply (a code action's workspace edit, a rename):
	// the comparison may apply one to the edited document, as when the user
	// picks it, and go on from the result.
	Edits func(s *Site, answer json.RawMessage) [][]protocol.TextEdit
}

// Site is a place the probes ask about, in the edited document.
type Site struct {
	URI   protocol.DocumentURI
	Text  *Text
	Index int // the site's number in its comparison, to vary a request's options
	// At is a byte offset and Pos its position; Start and End are a range
	// around it, and Range its protocol form.
	At         int
	Pos        protocol.Position
	Start, End int
	Range      protocol.Range
	// Diagnostics are the published diagnostics that overlap the range, as
	// an editor sends them with a code action request.
	Diagnostics []protocol.Diagnostic
}

// Probes are the questions the harness asks, for every feature that
// answers a request about a document. Diagnostics, which are published
// rather than asked for, are compared by the harness itself (with the
// fresh copy's and with check's findings).
var Probes = []Probe{
	{Name: "folding", Method: protocol.MethodTextDocumentFoldingRange, PerDocument: true, Params: documentParams, Check: checkFolding},
	{Name: "symbols", Method: protocol.MethodTextDocumentDocumentSymbol, PerDocument: true, Params: documentParams, Check: checkSymbols},
	{Name: "semanticTokens", Method: protocol.MethodSemanticTokensFull, PerDocument: true, Params: documentParams, Check: checkSemanticTokens},
	{Name: "semanticTokensRange", Method: protocol.MethodSemanticTokensRange, Params: rangeParams, Check: checkSemanticTokens},
	{Name: "hover", Method: protocol.MethodTextDocumentHover, Params: positionParams},
	{Name: "definition", Method: protocol.MethodTextDocumentDefinition, Params: positionParams, Check: checkLocations},
	{Name: "references", Method: protocol.MethodTextDocumentReferences, Params: func(s *Site) any {
		return map[string]any{"textDocument": textDocument(s), "position": s.Pos, "context": map[string]any{"includeDeclaration": s.Index%2 == 0}}
	}, Check: checkLocations},
	{Name: "highlight", Method: protocol.MethodTextDocumentDocumentHighlight, Params: positionParams},
	{Name: "codeAction", Method: protocol.MethodTextDocumentCodeAction, Params: func(s *Site) any {
		diags := s.Diagnostics
		if diags == nil {
			diags = []protocol.Diagnostic{}
		}
		return map[string]any{"textDocument": textDocument(s), "range": s.Range, "context": map[string]any{"diagnostics": diags}}
	}, Edits: codeActionEdits},
	{Name: "completion", Method: protocol.MethodTextDocumentCompletion, Params: func(s *Site) any {
		return map[string]any{"textDocument": textDocument(s), "position": s.Pos, "context": map[string]any{"triggerKind": 1}}
	}, Edits: completionEdits},
	{Name: "prepareRename", Method: protocol.MethodTextDocumentPrepareRename, Params: positionParams},
	{Name: "rename", Method: protocol.MethodTextDocumentRename, Params: func(s *Site) any {
		return map[string]any{"textDocument": textDocument(s), "position": s.Pos, "newName": fmt.Sprintf("renamed_%d", s.Index)}
	}, Edits: renameEdits},
	{Name: "documentLink", Method: protocol.MethodTextDocumentDocumentLink, PerDocument: true, Params: documentParams},
	{Name: "codeLens", Method: protocol.MethodTextDocumentCodeLens, PerDocument: true, Params: documentParams},
	{Name: "inlayHint", Method: "textDocument/inlayHint", Params: rangeParams, Check: checkInlayHints},
}

// ProbeNamed returns the probe called name.
func ProbeNamed(name string) (Probe, bool) {
	for _, p := range Probes {
		if p.Name == name {
			return p, true
		}
	}
	return Probe{}, false
}

func textDocument(s *Site) map[string]any { return map[string]any{"uri": s.URI} }

func documentParams(s *Site) any { return map[string]any{"textDocument": textDocument(s)} }

func positionParams(s *Site) any {
	return map[string]any{"textDocument": textDocument(s), "position": s.Pos}
}

func rangeParams(s *Site) any {
	return map[string]any{"textDocument": textDocument(s), "range": s.Range}
}

// checkFolding: every fold starts before it ends, inside the document.
func checkFolding(s *Site, answer json.RawMessage) error {
	var folds []protocol.FoldingRange
	if err := json.Unmarshal(answer, &folds); err != nil {
		return err
	}
	for _, f := range folds {
		if f.StartLine >= f.EndLine || int(f.EndLine) >= s.Text.LineCount() {
			return fmt.Errorf("fold %d–%d in a document of %d lines", f.StartLine, f.EndLine, s.Text.LineCount())
		}
	}
	return nil
}

// checkSymbols: each symbol's name is in its range, and its children are
// (editors reject an outline where they are not).
func checkSymbols(s *Site, answer json.RawMessage) error {
	var syms []protocol.DocumentSymbol
	if err := json.Unmarshal(answer, &syms); err != nil {
		return err
	}
	var walk func(parent *protocol.DocumentSymbol, syms []protocol.DocumentSymbol) error
	walk = func(parent *protocol.DocumentSymbol, syms []protocol.DocumentSymbol) error {
		for i := range syms {
			sym := &syms[i]
			if sym.Range.Start == (protocol.Position{}) && sym.Range.End == (protocol.Position{}) && sym.SelectionRange == sym.Range {
				continue // flat SymbolInformation: no ranges of this shape
			}
			if !contains(s.Text, sym.Range, sym.SelectionRange) {
				return fmt.Errorf("symbol %q: selection %v outside its range %v", sym.Name, sym.SelectionRange, sym.Range)
			}
			if parent != nil && !contains(s.Text, parent.Range, sym.Range) {
				return fmt.Errorf("symbol %q: range %v outside its parent %q's %v", sym.Name, sym.Range, parent.Name, parent.Range)
			}
			if err := walk(sym, sym.Children); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(nil, syms)
}

// contains reports whether outer holds inner (both valid ranges of t).
func contains(t *Text, outer, inner protocol.Range) bool {
	os, oe, err1 := t.Span(outer)
	is, ie, err2 := t.Span(inner)
	return err1 == nil && err2 == nil && os <= is && ie <= oe
}

// checkSemanticTokens: each token lies in its line and after the one
// before it.
func checkSemanticTokens(s *Site, answer json.RawMessage) error {
	var toks struct {
		Data []uint32 `json:"data"`
	}
	if err := json.Unmarshal(answer, &toks); err != nil {
		return err
	}
	if len(toks.Data)%5 != 0 {
		return fmt.Errorf("%d numbers: not tokens of 5", len(toks.Data))
	}
	line, char, end := uint32(0), uint32(0), uint32(0)
	for i := 0; i < len(toks.Data); i += 5 {
		dl, dc, length := toks.Data[i], toks.Data[i+1], toks.Data[i+2]
		if dl > 0 {
			line, char, end = line+dl, dc, 0
		} else {
			char += dc
		}
		if i > 0 && dl == 0 && char < end {
			return fmt.Errorf("token %d at %d:%d overlaps the one before", i/5, line, char)
		}
		if length == 0 {
			return fmt.Errorf("token %d at %d:%d is empty", i/5, line, char)
		}
		r := protocol.Range{Start: protocol.Position{Line: line, Character: char}, End: protocol.Position{Line: line, Character: char + length}}
		if _, _, err := s.Text.Span(r); err != nil {
			return fmt.Errorf("token %d: %v", i/5, err)
		}
		end = char + length
	}
	return nil
}

// checkLocations: every location is in the document asked about.
func checkLocations(s *Site, answer json.RawMessage) error {
	var locs []protocol.Location
	if err := json.Unmarshal(answer, &locs); err != nil {
		return err
	}
	for _, l := range locs {
		if l.URI != s.URI {
			return fmt.Errorf("a location in %s", l.URI)
		}
	}
	return nil
}

// codeActionEdits are the edits of each action with a workspace edit of
// this document.
func codeActionEdits(s *Site, answer json.RawMessage) [][]protocol.TextEdit {
	var actions []struct {
		Edit *struct {
			Changes map[protocol.DocumentURI][]protocol.TextEdit `json:"changes"`
		} `json:"edit"`
	}
	if json.Unmarshal(answer, &actions) != nil {
		return nil
	}
	var out [][]protocol.TextEdit
	for _, a := range actions {
		if a.Edit != nil && len(a.Edit.Changes[s.URI]) > 0 {
			out = append(out, a.Edit.Changes[s.URI])
		}
	}
	return out
}

// completionEdits are each completion item's edit (accepting it).
func completionEdits(s *Site, answer json.RawMessage) [][]protocol.TextEdit {
	var list struct {
		Items []struct {
			TextEdit *protocol.TextEdit `json:"textEdit"`
		} `json:"items"`
	}
	if json.Unmarshal(answer, &list) != nil {
		return nil
	}
	var out [][]protocol.TextEdit
	for _, it := range list.Items {
		if it.TextEdit != nil {
			out = append(out, []protocol.TextEdit{*it.TextEdit})
		}
	}
	return out
}

// renameEdits are a rename's edits of this document.
func renameEdits(s *Site, answer json.RawMessage) [][]protocol.TextEdit {
	var edit struct {
		Changes map[protocol.DocumentURI][]protocol.TextEdit `json:"changes"`
	}
	if json.Unmarshal(answer, &edit) != nil || len(edit.Changes[s.URI]) == 0 {
		return nil
	}
	return [][]protocol.TextEdit{edit.Changes[s.URI]}
}

// checkInlayHints: each hint is at a place in the asked range.
func checkInlayHints(s *Site, answer json.RawMessage) error {
	var hints []struct {
		Position protocol.Position `json:"position"`
	}
	if err := json.Unmarshal(answer, &hints); err != nil {
		return err
	}
	for _, h := range hints {
		if h.Position.Line < s.Range.Start.Line || h.Position.Line > s.Range.End.Line {
			return fmt.Errorf("inlay hint at %v, outside the range asked about %v", h.Position, s.Range)
		}
	}
	return nil
}
