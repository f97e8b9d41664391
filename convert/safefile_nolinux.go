//go:build !linux

package convert

import (
	"io/fs"
	"time"
)

// changeTime is the time a file's inode last changed; it is read on Linux
// only (the other systems name its field differently), and elsewhere the
// size and modification time tell a change.
func changeTime(fs.FileInfo) (time.Time, bool) { return time.Time{}, false }
