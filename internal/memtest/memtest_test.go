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
