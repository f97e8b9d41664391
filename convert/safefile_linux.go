package convert

import (
	"io/fs"
	"syscall"
	"time"
)

// changeTime is the time a file's inode last changed: its content, owner,
// permissions or links.
func changeTime(fi fs.FileInfo) (time.Time, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, false
	}
	sec, nsec := st.Ctim.Unix()
	return time.Unix(sec, nsec), true
}
