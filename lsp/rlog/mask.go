package rlog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/lsp"
)

// MethodMaskedView is a request of our own: the rlog view of a session
// file (an .rlog log as it is; a view's URI names its session file) with
// what differs between any two runs masked (analysis.MaskLine: ids,
// times, tokens, costs, the session's folder), for an editor to show two
// sessions in its diff editor (VS Code's Compare With…). Params:
// {textDocument: {uri}}; result: maskedView.
const MethodMaskedView = "rlog/maskedView"

// maskedView is MethodMaskedView's result.
type maskedView struct {
	// Name is the session file's base name, for the diff editor's title.
	Name string `json:"name"`
	Text string `json:"text"`
}

// maskedView answers MethodMaskedView.
func (vs *views) maskedView(ctx context.Context, _ *wsCtx, p *sessionParams) (any, error) {
	path, err := sessionFile(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	var src []byte
	if f, err := convert.DetectFile(path); err == nil && f == convert.Rlog || err != nil && strings.EqualFold(filepath.Ext(path), ".rlog") {
		if src, err = os.ReadFile(path); err != nil {
			return nil, lsp.RequestFailed("%v", describeError(err))
		}
	} else {
		fi, err := readableSession(path)
		if err != nil {
			return nil, lsp.RequestFailed("%v", err)
		}
		var text strings.Builder
		if _, err := convertSession(ctx, path, fi.Name, &text); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, lsp.RequestFailed("converting %s to rlog failed: %v", filepath.Base(path), err)
		}
		src = []byte(text.String())
	}
	t := grammar.Parse(src)
	cwd, _ := t.Header().Get("cwd")
	out := analysis.Mask(make([]byte, 0, len(src)), t, cwd)
	return maskedView{Name: filepath.Base(path), Text: string(out)}, nil
}

// describeError is a file error without Go's operation prefix.
func describeError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s: %v", pe.Path, pe.Err)
	}
	return err.Error()
}
