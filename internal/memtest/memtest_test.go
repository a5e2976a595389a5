package memtest

import "testing"

var sink []float64

func TestAllocated(t *testing.T) {
	got := Allocated(func() { sink = make([]float64, 1<<20) })
	if got < 8<<20 || got > 9<<20 {
		t.Errorf("Allocated of an 8 MiB slice: %d bytes", got)
	}
	Check(t, "8 MiB", 9<<20, got)
}

func TestLeastPeak(t *testing.T) {
	for _, c := range []struct {
		limit int64
		runs  int
		want  int // measurements
	}{
		{limit: 1 << 40, runs: 4, want: 1}, // under the limit at once
		{limit: 0, runs: 4, want: 4},       // never under it
		{limit: 0, runs: 1, want: 1},
	} {
		calls := 0
		sink = nil
		total, peak := LeastPeak(func() {
			calls++
			sink = make([]float64, 1<<20)
		}, c.limit, c.runs)
		if calls != c.want {
			t.Errorf("limit %d, runs %d: %d measurements, want %d", c.limit, c.runs, calls, c.want)
		}
		if total < 8<<20 || total > 9<<20 {
			t.Errorf("limit %d, runs %d: total %d bytes for an 8 MiB slice", c.limit, c.runs, total)
		}
		if peak < 7<<20 {
			t.Errorf("limit %d, runs %d: live peak %d bytes for the 8 MiB slice it holds", c.limit, c.runs, peak)
		}
	}
}
