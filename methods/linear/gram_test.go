package linear

import (
	"fmt"
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
