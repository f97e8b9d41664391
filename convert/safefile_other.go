//go:build !unix

package convert

import (
	"io/fs"
	"time"
)

// changeTime is the time a file's inode last changed; this system does
// not say.
func changeTime(fs.FileInfo) (time.Time, bool) { return time.Time{}, false }

// ownerOf is a file's owner and group; this system has none to keep.
func ownerOf(fs.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }
