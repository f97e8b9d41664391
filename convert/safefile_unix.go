//go:build unix

package convert

import (
	"io/fs"
	"syscall"
	"time"
)

// changeTime is the time a file's inode last changed (its content, owner,
// permissions or links), where the system keeps one.
func changeTime(fi fs.FileInfo) (time.Time, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, false
	}
	sec, nsec := st.Ctim.Unix()
	return time.Unix(sec, nsec), true
}

// ownerOf is a file's owner and group.
func ownerOf(fi fs.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}
