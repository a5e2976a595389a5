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

// TestNewDotsDenseBits: on dense rows NewDots sums four rows at a time,
// and every inner product has the bits of the row-by-row sum Dense.RowDot
// gives (the order of the terms kept), for the cross and Gram matrices,
// row counts not a multiple of four included.
func TestNewDotsDenseBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	dense := func(r, c int) *matrix.Dense {
		m := matrix.NewDense(r, c, nil)
		for i := 0; i < r; i++ {
			for j, row := 0, m.RawRow(i); j < c; j++ {
				row[j] = rng.NormFloat64() * float64(1+rng.IntN(1000)) // magnitudes that make the order matter
			}
		}
		return m
	}
	for _, c := range [][3]int{{7, 9, 617}, {4, 4, 1}, {1, 3, 5}, {13, 6, 64}} {
		A, B := dense(c[0], c[2]), dense(c[1], c[2])
		for _, pair := range [][2]*matrix.Dense{{A, B}, {A, A}, {B, A}} {
			a, b := pair[0], pair[1]
			d := NewDots(a, b)
			for i := 0; i < d.R; i++ {
				for j := 0; j < d.C; j++ {
					if w := b.RowDot(j, a.RawRow(i)); d.Dot[i*d.C+j] != w {
						t.Fatalf("%v: dot %d,%d = %v, want %v (RowDot)", c, i, j, d.Dot[i*d.C+j], w)
					}
				}
			}
		}
	}
}

// BenchmarkNewDotsDense: ISOLET's shape, 1559 test rows against 1317
// support vectors of 617 columns.
func BenchmarkNewDotsDense(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	dense := func(r, c int) *matrix.Dense {
		m := matrix.NewDense(r, c, nil)
		for i := range m.RawData() {
			m.RawData()[i] = rng.Float64()
		}
		return m
	}
	A, B := dense(1559, 617), dense(1317, 617)
	for b.Loop() {
		NewDots(A, B)
	}
}
