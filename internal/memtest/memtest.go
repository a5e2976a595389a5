// Package memtest checks memory estimates (methods.Plugin.Memory,
// datasets.Transform.Memory) against what the estimated code allocates.
package memtest

import (
	"runtime"
	"testing"
)

// Ratio is how many times what it allocates an estimate may be.
const Ratio = 20

// Allocated returns the bytes f allocates (runtime.MemStats.TotalAlloc):
// deterministic, and never below f's peak.
func Allocated(f func()) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return int64(after.TotalAlloc - before.TotalAlloc)
}

// Check fails t unless the estimate est of what, in bytes, is at least
// the got bytes allocated, so that what the estimate lets through does not
// exhaust memory, and at most Ratio times got, so that what would fit is
// not refused.
func Check(t testing.TB, what string, est, got int64) {
	t.Helper()
	t.Logf("%s: estimate %d bytes, allocated %d (%.1f×)", what, est, got, float64(est)/float64(got))
	if est < got || est > Ratio*got {
		t.Errorf("%s: estimate %d bytes for %d allocated: want between 1 and %d times", what, est, got, Ratio)
	}
}
