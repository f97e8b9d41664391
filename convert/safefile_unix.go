//go:build unix

package convert

import (
	"io/fs"
	"syscall"
)

// ownerOf is a file's owner and group.
func ownerOf(fi fs.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}
