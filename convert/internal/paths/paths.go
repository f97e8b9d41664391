// Package paths finds a session's other files on disk (a sub-agent's
// transcript, the session a sub-agent belongs to): a literal name put into
// a glob pattern, and whether a path is a regular file. The readers and
// their links (Subagents, ParentOf) share it.
package paths

import (
	"os"
	"path/filepath"
	"strings"
)

// GlobEscape quotes the characters filepath.Match gives a meaning, so
// that s stands for itself in a pattern: *, ? and [ each in a class of
// its own ([*], [?], [[]), which filepath.Match reads alike on every
// system, and \ escaped where it is no separator (on Windows it is one,
// and filepath.Match has no escapes there). A volume name is left as it
// is: filepath.Glob never reads it as a pattern (and \\?\ holds a ?).
func GlobEscape(s string) string {
	vol := filepath.VolumeName(s)
	return vol + globEscaper.Replace(s[len(vol):])
}

var globEscaper = func() *strings.Replacer {
	quotes := []string{"*", "[*]", "?", "[?]", "[", "[[]"}
	if filepath.Separator != '\\' {
		quotes = append(quotes, `\`, `\\`)
	}
	return strings.NewReplacer(quotes...)
}()

// IsFile reports whether p is a regular file (a link to one counts).
func IsFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
