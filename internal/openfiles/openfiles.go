// Package openfiles tells which other processes hold a file open for
// writing, where the system says so (Linux's /proc). Replacing such a file
// by renaming a new one over it would lose what they write next: their
// open descriptors keep pointing at the old file, which the rename has
// unlinked.
package openfiles

import (
	"fmt"
	"strings"
)

// Process is a process that holds a file open.
type Process struct {
	PID int
	// Command is the program's name as the system gives it (at most 15
	// bytes on Linux), or "" when it could not be read.
	Command string
}

func (p Process) String() string {
	if p.Command == "" {
		return fmt.Sprintf("pid %d", p.PID)
	}
	return fmt.Sprintf("pid %d (%s)", p.PID, p.Command)
}

// List is "pid 12 (claude)", "pid 12 (claude) and pid 40 (tee)", or the
// first three and how many more.
func List(ps []Process) string {
	const shown = 3
	var parts []string
	for i, p := range ps {
		if i == shown {
			parts = append(parts, fmt.Sprintf("%d more", len(ps)-shown))
			break
		}
		parts = append(parts, p.String())
	}
	if len(parts) <= 1 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
