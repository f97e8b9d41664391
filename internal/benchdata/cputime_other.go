//go:build !unix

package benchdata

import "time"

// ProcessCPU is not measured here.
func ProcessCPU() time.Duration { return 0 }
