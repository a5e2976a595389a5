package kernel

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/repro-ml/repro/matrix"
)

// TestNewDotsWide: on sparse rows over far more columns than they store
// (a huge LIBSVM index), NewDots merges the rows instead of allocating a
// vector over the columns, and gives the dense vector's sums bit for bit.
func TestNewDotsWide(t *testing.T) {
	const cols = 1 << 22
	rng := rand.New(rand.NewPCG(3, 4))
	rows := func(n int) *matrix.CSR {
		b := matrix.NewBuilder(cols)
		for range n {
			js := map[int]bool{cols - 1: rng.IntN(3) == 0}
			for range 8 {
				js[rng.IntN(40)] = true
			}
			for j := 0; j < cols; j++ {
				if js[j] {
					b.Add(j, rng.NormFloat64())
				}
				if j == 40 {
					j = cols - 2
				}
			}
			b.EndRow()
		}
		return b.Build()
	}
	A, B := rows(30), rows(20)
	if denseEnough(A) {
		t.Fatal("the test rows are dense enough for the dense path")
	}
	work := make([]float64, cols)
	want := func(a, b *matrix.CSR, i, j int) float64 {
		a.Row(i, func(k int, v float64) { work[k] = v })
		defer a.Row(i, func(k int, _ float64) { work[k] = 0 })
		return b.RowDot(j, work)
	}
	for _, c := range []struct {
		name string
		a, b *matrix.CSR
	}{{"cross", A, B}, {"gram", A, A}} {
		d := NewDots(c.a, c.b)
		for i := 0; i < d.R; i++ {
			for j := 0; j < d.C; j++ {
				if w := want(c.a, c.b, i, j); d.Dot[i*d.C+j] != w {
					t.Fatalf("%s: dot %d,%d = %v, want %v", c.name, i, j, d.Dot[i*d.C+j], w)
				}
			}
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	NewDots(A, B)
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("NewDots allocated %d bytes on %d columns; want far fewer than a vector over the columns", got, cols)
	}
}
