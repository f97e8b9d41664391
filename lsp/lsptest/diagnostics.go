package lsptest

import (
	"encoding/json"

	"go.lsp.dev/protocol"
)

// Published is one textDocument/publishDiagnostics as the client got it.
type Published struct {
	URI         protocol.DocumentURI  `json:"uri"`
	Version     *int32                `json:"version"`
	Diagnostics []protocol.Diagnostic `json:"diagnostics"`
	// Raw is the params exactly as sent (to tell [] from null).
	Raw json.RawMessage `json:"-"`
}

func decodePublished(f Frame) *Published {
	if f.Method != protocol.MethodTextDocumentPublishDiagnostics || f.ID != nil {
		return nil
	}
	var p Published
	if json.Unmarshal(f.Params, &p) != nil {
		return nil
	}
	p.Raw = f.Params
	return &p
}

func published(f Frame) (Published, bool) {
	if f.published == nil {
		return Published{}, false
	}
	return *f.published, true
}

// Diagnostics returns every publish for uri so far, in order.
func (c *Client) Diagnostics(uri protocol.DocumentURI) []Published {
	var out []Published
	for _, f := range c.Frames() {
		if p, ok := published(f); ok && p.URI == uri {
			out = append(out, p)
		}
	}
	return out
}

// WaitDiagnostics waits for the first publish for uri that matches (any, if
// match is nil).
func (c *Client) WaitDiagnostics(uri protocol.DocumentURI, match func(Published) bool) Published {
	c.t.Helper()
	f := c.frames.wait(c.t, "diagnostics for "+string(uri), func(f Frame) bool {
		p, ok := published(f)
		return ok && p.URI == uri && (match == nil || match(p))
	})
	p, _ := published(f)
	return p
}

// AtVersion matches a publish for document version v.
func AtVersion(v int32) func(Published) bool {
	return func(p Published) bool { return p.Version != nil && *p.Version == v }
}

// Cleared matches a publish that clears (an empty list and no version, as
// on close).
func Cleared(p Published) bool { return p.Version == nil && len(p.Diagnostics) == 0 }
