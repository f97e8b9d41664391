package openfiles

import (
	"bytes"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Supported reports whether Writers can see other processes' files here.
const Supported = true

// Writers lists the processes other than this one that hold the file fi
// describes (from os.Stat or os.Lstat) open for writing: a descriptor in
// /proc/PID/fd that leads to the same device and inode, opened write-only
// or read-write (/proc/PID/fdinfo's flags). Only the processes this one
// may inspect are seen: all of them as root, its user's otherwise (the
// file's writer is usually its owner). A process that ends while it is
// looked at is skipped.
func Writers(fi fs.FileInfo) ([]Process, error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, nil
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	self := os.Getpid()
	var found []Process
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == self {
			continue
		}
		if writes(pid, st) {
			found = append(found, Process{PID: pid, Command: command(pid)})
		}
	}
	return found, nil
}

// writes reports whether process pid has the file st open for writing.
func writes(pid int, st *syscall.Stat_t) bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
	fds, err := os.ReadDir(dir)
	if err != nil {
		return false // gone, or not ours to see
	}
	for _, fd := range fds {
		link, err := os.Readlink(dir + fd.Name())
		// Pipes, sockets and anonymous inodes have no path: only files
		// are stat'ed, which reads the inode the descriptor holds
		// (whatever path it was opened by, in whichever mount namespace).
		if err != nil || !strings.HasPrefix(link, "/") {
			continue
		}
		var fst syscall.Stat_t
		if syscall.Stat(dir+fd.Name(), &fst) != nil || fst.Dev != st.Dev || fst.Ino != st.Ino {
			continue
		}
		if flags, ok := fdFlags(pid, fd.Name()); ok && flags&syscall.O_ACCMODE != syscall.O_RDONLY {
			return true
		}
	}
	return false
}

// fdFlags reads the flags a descriptor was opened with (octal in fdinfo).
func fdFlags(pid int, fd string) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/fdinfo/" + fd)
	if err != nil {
		return 0, false
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("flags:")); ok {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 8, 64)
			return int(n), err == nil
		}
	}
	return 0, false
}

func command(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
