package active

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/repro-ml/repro/matrix"
)

// TestRowView checks every operation of a view of rows against the same
// operation on a copy of the rows (RowsOf), for a dense and a sparse
// matrix: ColsOf and the element accessors exactly, the products to
// rounding (the view's dense products sum with gonum's dot kernel). The
// same for views of a run of columns of the view (ColsOf, which does not
// copy a dense matrix's rows), and of a run of those.
func TestRowView(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dense := matrix.NewDense(9, 5, nil)
	for i := range dense.RawData() {
		if rng.Float64() < 0.6 {
			dense.RawData()[i] = rng.NormFloat64()
		}
	}
	rows := []int{7, 0, 3, 3, 8}
	for _, tc := range []struct {
		name string
		m    matrix.Matrix
	}{{"dense", dense}, {"csr", matrix.ToCSR(dense)}} {
		t.Run(tc.name, func(t *testing.T) {
			v, c := viewRows(tc.m, rows), tc.m.RowsOf(rows)
			checkView(t, rng, v, c)
			v, c = v.ColsOf([]int{1, 2, 3, 4}), c.ColsOf([]int{1, 2, 3, 4})
			if _, dense := tc.m.(*matrix.Dense); dense {
				if _, ok := v.(*rowView); !ok {
					t.Fatalf("ColsOf of a run of dense columns is a %T, want a view", v)
				}
			}
			checkView(t, rng, v, c)
			checkView(t, rng, v.ColsOf([]int{1, 2}), c.ColsOf([]int{1, 2}))
		})
	}
}

// checkView compares v with c, a copy of the same rows and columns.
func checkView(t *testing.T, rng *rand.Rand, v, c matrix.Matrix) {
	t.Helper()
	{
		{
			vr, vc := v.Dims()
			cr, cc := c.Dims()
			if vr != cr || vc != cc {
				t.Fatalf("Dims %d×%d, copy %d×%d", vr, vc, cr, cc)
			}
			if v.NNZ() != c.NNZ() {
				t.Errorf("NNZ %d, copy %d", v.NNZ(), c.NNZ())
			}
			x, y := make([]float64, cc), make([]float64, cr)
			for j := range x {
				x[j] = rng.NormFloat64()
			}
			for i := range y {
				y[i] = rng.NormFloat64()
			}
			near := func(op string, got, want []float64) {
				t.Helper()
				for i := range got {
					if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
						t.Errorf("%s[%d] = %v, copy %v", op, i, got[i], want[i])
					}
				}
			}
			g, w := make([]float64, cr), make([]float64, cr)
			v.MulVec(g, x)
			c.MulVec(w, x)
			near("MulVec", g, w)
			// MulVecs: MulVec's values bit for bit, for every vector.
			xs, gs := [][]float64{x, slices.Clone(y[:cc]), make([]float64, cc)}, make([][]float64, 3)
			for k := range gs {
				gs[k] = make([]float64, cr)
			}
			mv, ok := v.(matrix.MultiVec)
			if ok {
				mv.MulVecs(gs, xs)
			}
			for k, xk := range xs {
				if !ok {
					break
				}
				v.MulVec(g, xk)
				for i := range g {
					if math.Float64bits(gs[k][i]) != math.Float64bits(g[i]) {
						t.Errorf("MulVecs[%d][%d] = %v, MulVec %v", k, i, gs[k][i], g[i])
					}
				}
			}
			gt, wt := make([]float64, cc), make([]float64, cc)
			for j := range gt {
				gt[j] = 9
			}
			v.MulTransVec(gt, y) // overwrites, as the copy's
			c.MulTransVec(wt, y)
			near("MulTransVec", gt, wt)
			for i := 0; i < cr; i++ {
				if a, b := v.RowDot(i, x), c.RowDot(i, x); a != b {
					t.Errorf("RowDot(%d) = %v, copy %v", i, a, b)
				}
				ga, wa := make([]float64, cc), make([]float64, cc)
				v.AddRow(ga, i, 2)
				c.AddRow(wa, i, 2)
				near("AddRow", ga, wa)
				for j := 0; j < cc; j++ {
					if v.At(i, j) != c.At(i, j) {
						t.Errorf("At(%d, %d) = %v, copy %v", i, j, v.At(i, j), c.At(i, j))
					}
				}
			}
			for _, cols := range [][]int{{cc - 1, 1, 1}, {0, 1}, {1}} { // scattered, and leading or inner runs
				if a, b := matrix.ToDense(v.ColsOf(cols)), matrix.ToDense(c.ColsOf(cols)); !slices.Equal(a.RawData(), b.RawData()) {
					t.Errorf("ColsOf(%v) = %v, copy %v", cols, a.RawData(), b.RawData())
				}
			}
			sub := []int{4, 2}
			if a, b := matrix.ToDense(v.RowsOf(sub)), matrix.ToDense(c.RowsOf(sub)); !slices.Equal(a.RawData(), b.RawData()) {
				t.Errorf("RowsOf = %v, copy %v", a.RawData(), b.RawData())
			}
		}
	}
}
