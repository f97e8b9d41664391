//go:build !unix

package rlog

import "time"

// processCPU is not measured here.
func processCPU() time.Duration { return 0 }
