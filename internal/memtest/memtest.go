// Package memtest checks memory estimates (methods.Plugin.Memory,
// datasets.Transform.Memory) against what the estimated code allocates.
package memtest

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
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

// Measure returns what f allocates in all (runtime.MemStats.TotalAlloc;
// deterministic, and never below f's peak), and the most the live heap
// grew over its size before f, as the collector, run at every 1% growth,
// marked it while f ran: a lower bound of f's peak that never counts
// garbage, for code that allocates afresh at every step and so allocates
// in all far more than it holds.
func Measure(f func()) (total, peak int64) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	read := func() int64 {
		metrics.Read(sample)
		return int64(sample[0].Value.Uint64())
	}
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	base := read()
	done := make(chan struct{})
	hi := make(chan int64)
	go func() {
		m := int64(0)
		for {
			select {
			case <-done:
				hi <- m
				return
			default:
			}
			m = max(m, read())
			runtime.Gosched()
		}
	}()
	f()
	runtime.GC() // the live heap at f's end, with what f keeps
	end := read()
	close(done)
	m := max(<-hi, end)
	runtime.ReadMemStats(&after)
	return int64(after.TotalAlloc - before.TotalAlloc), m - base
}

// LeastPeak measures f as Measure does, and again, up to runs
// measurements in all, while the least live peak so far is above limit
// (the estimate under test); it returns the first measurement's total and
// the least peak. Measure's error is one-sided: an object allocated while
// the collector marks is counted live in that cycle, so on a loaded
// machine, where marking takes longer, a solver that allocates afresh at
// every step shows garbage as live (hp's fit, 0.3–1.0 MB when idle,
// measured at 2.8 MB with six busy loops beside it). The least of several
// measurements is the nearest to f's peak.
func LeastPeak(f func(), limit int64, runs int) (total, peak int64) {
	total, peak = Measure(f)
	for i := 1; i < runs && peak > limit; i++ {
		_, p := Measure(f)
		peak = min(peak, p)
	}
	return total, peak
}

// CheckPeak fails t unless the estimate est of what, in bytes, is at
// least the live peak peak (Measure), so that what the estimate lets
// through does not exhaust memory, and at most Ratio times it.
func CheckPeak(t testing.TB, what string, est, peak int64) {
	t.Helper()
	t.Logf("%s: estimate %d bytes, live peak %d (%.1f×)", what, est, peak, float64(est)/float64(peak))
	if est < peak || est > Ratio*peak {
		t.Errorf("%s: estimate %d bytes for a live peak of %d: want between 1 and %d times", what, est, peak, Ratio)
	}
}
