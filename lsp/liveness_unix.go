//go:build unix

package lsp

import (
	"errors"
	"syscall"
)

// processAlive probes pid with signal 0, which checks without signalling.
// EPERM means the process exists but belongs to someone else.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
