package matrix

import (
	"math"
	"testing"
)

// sparseCases are sparse vectors over 9 entries for TestSparseDot and
// TestSparseAxpy; the last repeats an index, which SparseAxpy does not
// take.
var sparseCases = []struct {
	name string
	ind  []int32
	val  []float64
}{
	{"empty", nil, nil},
	{"one", []int32{4}, []float64{2}},
	{"four", []int32{0, 1, 2, 3}, []float64{1, 1, 1, 1}},
	{"seven", []int32{8, 0, 5, 2, 7, 1, 6}, []float64{4, -1, 2, 0.5, -0.125, 3, 1}},
	{"repeated index", []int32{3, 3, 3, 3, 3}, []float64{1, 2, 3, 4, 5}},
}

func TestSparseDot(t *testing.T) {
	x := []float64{1, -2, 3, 0.5, 4, -1, 2, 8, 0.25}
	for _, tc := range sparseCases {
		want := 0.0
		for k, i := range tc.ind {
			want += tc.val[k] * x[i]
		}
		if got := SparseDot(tc.ind, tc.val, x); math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: SparseDot = %v, want %v", tc.name, got, want)
		}
	}
}

func TestSparseAxpy(t *testing.T) {
	for _, tc := range sparseCases[:len(sparseCases)-1] {
		got := []float64{1, -2, 3, 0.5, 4, -1, 2, 8, 0.25}
		want := append([]float64(nil), got...)
		a := 0.3
		for k, i := range tc.ind {
			want[i] += a * tc.val[k]
		}
		SparseAxpy(got, a, tc.ind, tc.val)
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: SparseAxpy gives %v, want %v (the plain loop's sums exactly)", tc.name, got, want)
				break
			}
		}
	}
}
