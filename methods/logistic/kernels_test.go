package logistic

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/repro-ml/repro/matrix"
)

// TestRowKernels checks gatherRow and scatterRow, with and without the
// assembly, against the plain double loop: every C from 1 to 41 (the
// 16-, 4- and 1-column blocks and their tails), rows of 0 to 9 non-zeros,
// repeated indices included.
func TestRowKernels(t *testing.T) {
	asm := useAVX2
	defer func() { useAVX2 = asm }()
	r := rand.New(rand.NewPCG(7, 13))
	for _, avx := range []bool{false, true} {
		if avx && !asm {
			t.Log("no AVX2/FMA on this CPU: assembly kernels not tested")
			continue
		}
		useAVX2 = avx
		for C := 1; C <= 41; C++ {
			for nnz := 0; nnz <= 9; nnz++ {
				const rows = 6
				W := make([]float64, rows*C)
				for i := range W {
					W[i] = r.NormFloat64()
				}
				ind := make([]int32, nnz)
				val := make([]float64, nnz)
				for k := range ind {
					ind[k], val[k] = int32(r.IntN(rows)), r.NormFloat64()
				}
				x := make([]float64, C)
				for i := range x {
					x[i] = r.NormFloat64()
				}
				a := r.NormFloat64()

				got, want := append([]float64(nil), x...), append([]float64(nil), x...)
				gatherRow(got, ind, val, W, C)
				for k, j := range ind {
					for c := 0; c < C; c++ {
						want[c] += val[k] * W[int(j)*C+c]
					}
				}
				closeAll(t, "gather", avx, C, nnz, got, want)

				gotG, wantG := append([]float64(nil), W...), append([]float64(nil), W...)
				scatterRow(gotG, ind, val, x, a, C)
				for k, j := range ind {
					for c := 0; c < C; c++ {
						wantG[int(j)*C+c] += a * val[k] * x[c]
					}
				}
				closeAll(t, "scatter", avx, C, nnz, gotG, wantG)
			}
		}
	}
}

func closeAll(t *testing.T, op string, avx bool, C, nnz int, got, want []float64) {
	t.Helper()
	for i := range got {
		if d := math.Abs(got[i] - want[i]); d > 1e-13*(1+math.Abs(want[i])) {
			t.Fatalf("%s (assembly %v) C=%d nnz=%d: [%d] = %v, want %v", op, avx, C, nnz, i, got[i], want[i])
		}
	}
}

// TestEvalPanicsOnBadIndex: a column index outside the weights, in X or
// in a penalty matrix, panics before the assembly kernels read past W.
func TestEvalPanicsOnBadIndex(t *testing.T) {
	good := func() *matrix.CSR {
		return &matrix.CSR{R: 1, C: 3, Ptr: []int{0, 2}, Ind: []int32{0, 2}, Val: []float64{1, 1}}
	}
	bad := func(j int) *matrix.CSR { A := good(); A.Ind[1] = int32(j); return A }
	for _, tc := range []struct {
		name string
		X, B *matrix.CSR
	}{
		{"X past the end", bad(3), good()},
		{"X negative", bad(-1), good()},
		{"penalty past the end", good(), bad(3)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Problem{X: tc.X, Y: []int{0}, K: 20, D: 3, Pen: Penalty{Terms: []Term{{B: tc.B, Coef: 1}}}}
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			p.Eval(make([]float64, p.NumParams()), nil)
		})
	}
}
