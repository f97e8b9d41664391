//go:build unix

package benchdata

import (
	"syscall"
	"time"
)

// ProcessCPU is the CPU time the process has used: a benchmark's measure
// that other processes on a busy machine do not change.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
