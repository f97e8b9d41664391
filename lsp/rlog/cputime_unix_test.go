//go:build unix

package rlog

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used: a benchmark's measure
// that other processes on a busy machine do not change.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
