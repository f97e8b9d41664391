//go:build unix

package lsp

import (
	"errors"
	"syscall"
)

// processAlive probes pid with signal 0, which checks without signalling.
// EPERM means the process exists but belongs to someone else. A zombie
// answers signal 0 too, but its program has ended: it counts as gone.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	state, _, ok := procStat(pid)
	return !ok || state != 'Z' && state != 'X'
}

// processStartTime identifies the process that has pid now (its start
// time, where the system tells it), or "" when unknown.
func processStartTime(pid int) string {
	_, start, ok := procStat(pid)
	if !ok {
		return ""
	}
	return start
}
