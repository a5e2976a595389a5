//go:build unix

// Package cputime reports the CPU time the process has used, for
// benchmarks on a loaded machine, where wall time measures the load as
// much as the code.
package cputime

import (
	"syscall"
	"time"
)

// Used returns the CPU time the process has used, user and system, every
// thread (the garbage collector's too).
func Used() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
