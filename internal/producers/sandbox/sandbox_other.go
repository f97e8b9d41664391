//go:build !linux

package sandbox

import (
	"fmt"
	"syscall"
)

// Available says whether Run can make a sandbox here: only on Linux.
func Available() error {
	return fmt.Errorf("%w: private network namespaces are Linux only", ErrUnavailable)
}

func childAttr() *syscall.SysProcAttr { return nil }

func enter() error { return Available() }
