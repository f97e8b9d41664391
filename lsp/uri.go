package lsp

import (
	"net/url"
	"path/filepath"
	"runtime"

	"go.lsp.dev/protocol"
)

// FilePath returns the local path of a file: URI, and false for any other
// scheme (untitled:, git:, vscode-notebook-cell: ...). Everywhere else URIs
// are opaque keys; only code that needs the disk converts, through this,
// and never with uri.URI.Filename, which panics on other schemes (pitfall 14).
func FilePath(uri protocol.DocumentURI) (string, bool) {
	u, err := url.Parse(string(uri))
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", false
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", false // a UNC share; not a path we can open here
	}
	p := u.Path
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:] // file:///C:/x is C:/x
	}
	return filepath.FromSlash(p), true
}
