// Package peer holds what the bench programs that run a peer tool beside
// repro share.
package peer

import (
	"math"
	"syscall"
)

// CPUSeconds returns the user and system CPU seconds this process has
// used so far, or NaN if the system does not say.
func CPUSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
