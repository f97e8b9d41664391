package lsp

import (
	"path/filepath"
	"runtime"
	"testing"

	"go.lsp.dev/protocol"
)

func TestFilePath(t *testing.T) {
	for _, tc := range []struct {
		uri  protocol.DocumentURI
		path string
		ok   bool
	}{
		{"file:///home/u/a%20b.rlog", "/home/u/a b.rlog", true},
		{"file://localhost/tmp/x.rlog", "/tmp/x.rlog", true},
		{"file://server/share/x.rlog", "", false},
		{"untitled:Untitled-1", "", false},
		{"git:/home/u/a.rlog?%7B%7D", "", false},
		{"vscode-notebook-cell:/n.ipynb#W0", "", false},
		{"file:", "", false},
		{"%zz", "", false},
		{"", "", false},
	} {
		path, ok := FilePath(tc.uri)
		if runtime.GOOS != "windows" && (path != filepath.FromSlash(tc.path) || ok != tc.ok) {
			t.Errorf("FilePath(%q) = %q, %v; want %q, %v", tc.uri, path, ok, tc.path, tc.ok)
		}
	}
}
