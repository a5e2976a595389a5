package linear

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMirror checks that mirror copies the upper triangle onto the lower
// one across tile boundaries and leaves the upper triangle and diagonal as
// they were.
func TestMirror(t *testing.T) {
	for _, m := range []int{0, 1, 2, 31, 32, 33, 64, 70} {
		t.Run(fmt.Sprint(m), func(t *testing.T) {
			h := make([]float64, m*m)
			for a := 0; a < m; a++ {
				for b := a; b < m; b++ {
					h[a*m+b] = float64(1000*a + b + 1)
				}
				for b := 0; b < a; b++ {
					h[a*m+b] = -1 // to be overwritten
				}
			}
			mirror(h, m)
			for a := 0; a < m; a++ {
				for b := 0; b < m; b++ {
					lo, hi := min(a, b), max(a, b)
					if want := float64(1000*lo + hi + 1); h[a*m+b] != want {
						t.Fatalf("h[%d,%d] = %g, want %g", a, b, h[a*m+b], want)
					}
				}
			}
		})
	}
}

// TestScatterScaledProd compares scatterScaledProd with the plain loop, on
// column lengths around its four-at-a-time step.
func TestScatterScaledProd(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 40
	for length := range 11 {
		rows := rng.Perm(n)[:length]
		ind := make([]int32, length)
		val := make([]float64, length)
		for k, i := range rows {
			ind[k], val[k] = int32(i), rng.NormFloat64()
		}
		D := make([]float64, n)
		got := make([]float64, n)
		for i := range D {
			D[i], got[i] = rng.Float64(), rng.NormFloat64()
		}
		want := slices.Clone(got)
		z := rng.NormFloat64()
		for k, x := range val {
			want[ind[k]] += z * x * D[ind[k]]
		}
		scatterScaledProd(got, z, ind, val, D)
		if !slices.Equal(got, want) {
			t.Errorf("length %d: got %v, want %v", length, got, want)
		}
	}
}
