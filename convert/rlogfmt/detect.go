package rlogfmt

import (
	"bytes"

	"github.com/rlog-ls/rlog-ls/convert/model"
)

// Detect judges whether an input is rlog from its first bytes: a
// `format: rlog/` line names the format; text that opens a YAML header
// (`---`) is strong evidence, as no other format rlog-ls reads is text.
func Detect(h *model.Head) model.Evidence {
	t := h.Text
	switch {
	case t == nil:
		return model.NoEvidence
	case bytes.Contains(t, []byte("\nformat: rlog/")):
		return model.Certain
	case bytes.HasPrefix(bytes.TrimLeft(t[:min(len(t), 64)], "\ufeff \t\r\n"), []byte("---")):
		return model.Strong
	}
	return model.NoEvidence
}
