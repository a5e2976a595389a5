package dna

import (
	"math"
	"strings"
	"testing"
)

// FuzzOneHot checks that any sequence either encodes to unit-mass,
// non-negative blocks of four or fails naming a position and letter.
func FuzzOneHot(f *testing.F) {
	for _, s := range []string{"ACGT", "acgtn", "NDRS", "AX", "", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seq string) {
		dst := make([]float64, 4*len(seq))
		if err := OneHot(dst, seq); err != nil {
			if !strings.Contains(err.Error(), "position ") {
				t.Fatalf("error %v does not name the position", err)
			}
			return
		}
		for p := 0; p < len(seq); p++ {
			s := 0.0
			for _, v := range dst[4*p : 4*p+4] {
				if v < 0 {
					t.Fatalf("%q: negative weight at %d", seq, p)
				}
				s += v
			}
			if math.Abs(s-1) > 1e-12 {
				t.Fatalf("%q: position %d has mass %v", seq, p+1, s)
			}
		}
	})
}
