//go:build !unix

package compress_test

import "math"

// cpuSeconds is NaN where the process's CPU time is not read.
func cpuSeconds() float64 { return math.NaN() }
