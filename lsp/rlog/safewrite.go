package rlog

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/lsp"
)

// errOutsideWorkspace refuses a file the server would write outside the
// client's workspace folders.
var errOutsideWorkspace = errors.New("it is outside the workspace folders")

// workspaceRootOf returns the workspace folder (symlinks resolved) that
// holds dir (resolved too), "" with no error when the client opened no
// folder (a single file: writing beside it is what the user asked), and
// errOutsideWorkspace when there are folders and dir is in none.
func workspaceRootOf(sess *lsp.Session, dir string) (root, realDir string, err error) {
	realDir, err = filepath.EvalSymlinks(dir)
	if err != nil {
		return "", "", err
	}
	if realDir, err = filepath.Abs(realDir); err != nil {
		return "", "", err
	}
	roots := workspaceRoots(sess)
	if len(roots) == 0 {
		return "", realDir, nil
	}
	for _, r := range roots {
		rr, err := filepath.EvalSymlinks(r)
		if err != nil {
			continue
		}
		if rr, err = filepath.Abs(rr); err == nil && within(rr, realDir) {
			return rr, realDir, nil
		}
	}
	return "", "", fmt.Errorf("not writing into %s: %w", dir, errOutsideWorkspace)
}

// writeInWorkspace writes dir/name for a command: never over an existing
// file, never through a symlink, atomically (convert.WriteFileAtomic), and,
// when the client has workspace folders, only inside one of them: the
// write is then confined to that folder, so even a folder swapped for a
// symlink while it happens cannot lead it out.
func writeInWorkspace(sess *lsp.Session, dir, name string, data []byte) (string, error) {
	root, realDir, err := workspaceRootOf(sess, dir)
	if err != nil {
		return "", err
	}
	if root == "" {
		return convert.WriteFileAtomic(realDir, name, data, false)
	}
	rel, err := filepath.Rel(root, filepath.Join(realDir, name))
	if err != nil {
		return "", err
	}
	return convert.WriteFileAtomic(root, rel, data, false)
}

// within reports whether path p is dir or inside it (both clean and
// absolute).
func within(dir, p string) bool {
	if p == dir {
		return true
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
