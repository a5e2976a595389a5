package linear

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/embedded"
	"github.com/repro-ml/repro/matrix"
)

// l1Objective evaluates ‖w‖₁ + C·LogisticLoss at (w, b) from scratch.
func l1Objective(X matrix.Matrix, y, w []float64, b, C float64) float64 {
	f := C * LogisticLoss(X, y, w, b, nil)
	for _, v := range w {
		f += math.Abs(v)
	}
	return f
}

// withOnesColumn appends a constant column of ones (liblinear's -B 1),
// keeping the storage (dense or CSR) of X.
func withOnesColumn(X matrix.Matrix) matrix.Matrix {
	n, d := X.Dims()
	if _, ok := X.(*matrix.Dense); ok {
		out := matrix.NewDense(n, d+1, nil)
		for i := 0; i < n; i++ {
			row := out.RawRow(i)
			X.Row(i, func(j int, v float64) { row[j] = v })
			row[d] = 1
		}
		return out
	}
	b := matrix.NewBuilder(d + 1)
	for i := 0; i < n; i++ {
		X.Row(i, func(j int, v float64) { b.Add(j, v) })
		b.Add(d, 1)
		b.EndRow()
	}
	return b.Build()
}

// dnaBinary returns the first n rows of the embedded DNA data restricted
// to ei and ie: 180 indicator columns, about a quarter of them non-zero.
func dnaBinary(t testing.TB, n int) *datasets.Dataset {
	d, err := embedded.DNASplice([]string{"ei", "ie"}, embedded.EncodingBits)
	if err != nil {
		t.Fatal(err)
	}
	return d.Subset(d.Indices()[:n])
}

// TestL1ShrinkingSameOptimum checks that the shrinking path (outer and
// inner shrinking, bias re-minimization, cached σ) reaches the same
// optimum as the same solver with every coordinate visited in every pass,
// with coordinate descent always (or never) on the explicit model Hessian
// of the active set, and as the plain reference solver fitL1Ref: objectives within 1e-8
// relative, optimality conditions within 1e-4, and the reported objective
// equal to one evaluated from scratch. The problems cover every column
// store: dense columns, sparse valued ones, sparse indicator ones, an
// unpenalized intercept and a penalized column of ones.
func TestL1ShrinkingSameOptimum(t *testing.T) {
	nDNA := 600
	if testing.Short() {
		nDNA = 300
	}
	dna := dnaBinary(t, nDNA)
	dense := synthClass(21, 200, 40, 2, 0.3, 0.1)  // 90% filled: dense columns
	sparse := synthClass(22, 200, 60, 2, 0.4, 0.8) // 20% filled, valued
	for _, tc := range []struct {
		name      string
		X         matrix.Matrix
		Y         []float64
		C         float64
		intercept bool
		store     string // "dense" or "sparse"
		bias      bool   // a column of ones is the bias coordinate
	}{
		{"dense", dense.X, dense.Y, 0.05, true, "dense", false},
		{"dense", dense.X, dense.Y, 1, true, "dense", false},
		{"dense-no-b", dense.X, dense.Y, 1, false, "dense", false},
		{"dense+ones", withOnesColumn(dense.X), dense.Y, 1, false, "dense", true},
		{"sparse", sparse.X, sparse.Y, 0.3, true, "sparse", false},
		{"sparse-csr", matrix.ToCSR(sparse.X), sparse.Y, 3, true, "sparse", false},
		{"sparse+ones", withOnesColumn(sparse.X), sparse.Y, 3, false, "sparse", true},
		{"dna", dna.X, dna.Y, 1, true, "sparse", false},
		{"dna", dna.X, dna.Y, 10, true, "sparse", false},
		{"dna+ones", withOnesColumn(dna.X), dna.Y, 10, false, "sparse", true},
	} {
		t.Run(fmt.Sprintf("%s/C=%g", tc.name, tc.C), func(t *testing.T) {
			cols := newColMajor(tc.X)
			if got := map[bool]string{true: "dense", false: "sparse"}[cols.dense != nil]; got != tc.store {
				t.Fatalf("column store %s, want %s", got, tc.store)
			}
			_, d := tc.X.Dims()
			if bias := !tc.intercept && cols.isOnes(d-1); bias != tc.bias {
				t.Fatalf("last column taken as bias = %v, want %v", bias, tc.bias)
			}
			y := pm(tc.Y)
			s := l1Settings{C: tc.C, Intercept: tc.intercept, MaxIter: 1000, Tol: 1e-6}
			var objs []float64
			// variant fits with s changed by set.
			variant := func(set func(*l1Settings)) func() ([]float64, float64, error) {
				return func() ([]float64, float64, error) {
					v := s
					set(&v)
					w, b, info, err := fitL1(context.Background(), tc.X, cols, y, v, nil)
					if err == nil && !info.Converged {
						err = fmt.Errorf("not converged: %+v", info)
					}
					return w, b, err
				}
			}
			for _, run := range []struct {
				name string
				fit  func() ([]float64, float64, error)
			}{
				{"shrinking", func() ([]float64, float64, error) {
					w, b, info, err := fitL1(context.Background(), tc.X, cols, y, s, nil)
					if err == nil && !info.Converged {
						err = fmt.Errorf("not converged: %+v", info)
					}
					if err == nil {
						if f := l1Objective(tc.X, y, w, b, tc.C); math.Abs(info.Objective-f) > 1e-10*f {
							err = fmt.Errorf("reported objective %.12g, evaluated %.12g", info.Objective, f)
						}
					}
					return w, b, err
				}},
				{"no shrinking", variant(func(v *l1Settings) { v.noShrink = true })},
				{"model Hessian always", variant(func(v *l1Settings) { v.gram = gramAlways })},
				{"model Hessian never", variant(func(v *l1Settings) { v.gram = gramNever })},
				{"model Hessian, no subspace steps", variant(func(v *l1Settings) { v.gram, v.noDirect = gramAlways, true })},
				{"reference", func() ([]float64, float64, error) {
					w, b, info, err := fitL1Ref(context.Background(), tc.X, cols, y, s)
					if err == nil && !info.Converged {
						err = fmt.Errorf("not converged: %+v", info)
					}
					return w, b, err
				}},
			} {
				w, b, err := run.fit()
				if err != nil {
					t.Fatalf("%s: %v", run.name, err)
				}
				if v := l1Violation(tc.X, y, w, b, tc.C, tc.intercept); v > 1e-4 {
					t.Errorf("%s: optimality conditions violated by %g", run.name, v)
				}
				objs = append(objs, l1Objective(tc.X, y, w, b, tc.C))
			}
			for k, name := range []string{"no shrinking", "model Hessian always", "model Hessian never", "model Hessian, no subspace steps", "reference"} {
				if rel := math.Abs(objs[0]-objs[k+1]) / objs[k+1]; rel > 1e-8 {
					t.Errorf("objective %.12g with shrinking, %.12g %s: relative difference %.2g", objs[0], objs[k+1], name, rel)
				}
			}
		})
	}
}

// TestColMajor checks the column store against the matrix it copies.
func TestColMajor(t *testing.T) {
	data := synthClass(23, 30, 8, 2, 0.5, 0.7)
	ones := matrix.NewDense(3, 2, []float64{1, 0, 1, 2, 1, 1})
	for _, X := range []matrix.Matrix{data.X, matrix.ToCSR(data.X), synthClass(24, 30, 8, 2, 0.5, 0).X, ones, withOnesColumn(data.X)} {
		c := newColMajor(X)
		n, d := X.Dims()
		for j := 0; j < d; j++ {
			col := make([]float64, n)
			ind, val := c.col(j)
			allOnes := true
			for k, v := range val {
				i := k
				if ind != nil {
					i = int(ind[k])
				}
				col[i] = v
			}
			for i := 0; i < n; i++ {
				if col[i] != X.At(i, j) {
					t.Fatalf("%T column %d row %d: %v, want %v", X, j, i, col[i], X.At(i, j))
				}
				allOnes = allOnes && col[i] == 1
			}
			if c.isOnes(j) != allOnes {
				t.Errorf("%T column %d: isOnes = %v, want %v", X, j, c.isOnes(j), allOnes)
			}
			if ind != nil {
				marked := true
				for _, v := range val {
					marked = marked && v == 1
				}
				if c.ones[j] != marked {
					t.Errorf("%T column %d: ones flag %v, want %v", X, j, c.ones[j], marked)
				}
			}
		}
	}
}

// TestL2SolversAgree checks that TRON, Newton and L-BFGS reach the same optimum of
// logreg-l2 (objectives within 1e-8 relative) on indicator data where the
// problem is ill-conditioned at large C, one-vs-rest over three classes.
func TestL2SolversAgree(t *testing.T) {
	n := 600
	if testing.Short() {
		n = 300
	}
	d, err := embedded.DNASplice([]string{"ei", "ie", "n"}, embedded.EncodingBits)
	if err != nil {
		t.Fatal(err)
	}
	data := d.Subset(d.Indices()[:n])
	for _, C := range []float64{0.1, 10} {
		for _, intercept := range []bool{true, false} {
			var objs []float64
			for _, solver := range []string{"lbfgs", "tron", "newton"} {
				m := fit(t, "logreg-l2", map[string]any{"C": C, "intercept": intercept, "tol": 1e-8, "solver": solver}, data).(*classifier)
				if !m.info.Converged {
					t.Errorf("%s C=%g: not converged: %+v", solver, C, m.info)
				}
				f := 0.0
				for c := range 3 {
					g, fc := l2Grad(data.X, signs(nil, data.Y, c), m.W[c], m.B[c], C, intercept)
					f += fc
					if gn := maxAbs(g); gn > 1e-8*math.Max(1, fc) {
						t.Errorf("%s C=%g class %d: ‖∇f‖∞ = %g", solver, C, c, gn)
					}
				}
				objs = append(objs, f)
			}
			for i, solver := range []string{"tron", "newton"} {
				if rel := math.Abs(objs[0]-objs[i+1]) / objs[0]; rel > 1e-8 {
					t.Errorf("C=%g intercept=%v: objective %.12g (lbfgs) vs %.12g (%s), relative difference %.2g", C, intercept, objs[0], objs[i+1], solver, rel)
				}
			}
		}
	}
}

// TestModelGram checks the explicit model Hessian against Σᵢ Dᵢxᵢₐxᵢᵦ
// computed from the matrix, for dense and sparse column stores, and that
// step keeps Hδ equal to the Hessian times the accumulated δ.
func TestModelGram(t *testing.T) {
	dense := synthClass(31, 50, 12, 2, 0.3, 0.1)
	sparse := synthClass(32, 50, 12, 2, 0.3, 0.8)
	for name, X := range map[string]matrix.Matrix{"dense": dense.X, "sparse": sparse.X, "csr": matrix.ToCSR(sparse.X)} {
		t.Run(name, func(t *testing.T) {
			n, d := X.Dims()
			cols := newColMajor(X)
			D := make([]float64, n)
			for i := range D {
				D[i] = 0.1 + float64(i%7)/10
			}
			D[3] = 0                           // a row with zero curvature is skipped
			act := []int{0, 2, 3, 5, 8, 11, d} // d: the intercept, not in the Gram
			g := newModelGram(d)
			g.mark(act, 5) // 5: a penalized bias column, not in the Gram either
			g.build(cols, D)
			if g.m != 5 {
				t.Fatalf("m = %d, want 5", g.m)
			}
			dense := matrix.ToDense(X)
			for a, ja := range g.idx {
				for b, jb := range g.idx {
					want := 0.0
					for i := 0; i < n; i++ {
						want += D[i] * dense.At(i, ja) * dense.At(i, jb)
					}
					if got := g.h[a*g.m+b]; math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
						t.Errorf("H[%d][%d] = %g, want %g", ja, jb, got, want)
					}
				}
			}
			delta := map[int]float64{2: 0.5, 11: -1.25}
			for j, z := range delta {
				g.step(j, z)
			}
			g.step(2, 0.25)
			delta[2] += 0.25
			for a := range g.idx {
				want := 0.0
				for b, jb := range g.idx {
					want += g.h[a*g.m+b] * delta[jb]
				}
				if math.Abs(g.hd[a]-want) > 1e-12 {
					t.Errorf("Hδ[%d] = %g, want %g", a, g.hd[a], want)
				}
			}
			g.mark([]int{1, 4}, -1)
			if g.m != 2 || g.pos[2] != -1 || g.pos[4] != 1 {
				t.Errorf("re-marking left m = %d, pos[2] = %d, pos[4] = %d", g.m, g.pos[2], g.pos[4])
			}
		})
	}
}

// An L1 model's Predict on dense rows multiplies only the columns its
// weights use (product): the scores equal the full product's, for
// a binary and a one-vs-rest model.
func TestPredictSparseWeights(t *testing.T) {
	for _, K := range []int{2, 4} {
		d := synthClass(5, 300, 80, K, 0.4, 0)
		model, err := newMethod(t, "logreg-l1", map[string]any{"C": 0.05}).Fit(t.Context(), d, nil)
		if err != nil {
			t.Fatal(err)
		}
		c := model.(*classifier)
		sparse := 0
		for _, w := range c.W {
			if w != nil && (&product{X: d.X}).sparse(w) {
				sparse++
			}
		}
		if sparse == 0 {
			t.Fatalf("K = %d: no class with sparse weights; the test needs a smaller C", K)
		}
		got := model.Predict(d.X).Scores
		for i := 0; i < d.Rows(); i++ {
			for k, w := range c.W {
				want := d.X.RowDot(i, w) + c.B[k]
				if K == 2 {
					k = 1 // binary: scores (−f, f)
				}
				if g := got[i*K+k]; math.Abs(g-want) > 1e-12*(1+math.Abs(want)) {
					t.Fatalf("K = %d: row %d class %d: %v over the non-zero columns, %v in full", K, i, k, g, want)
				}
			}
		}
	}
}

// textLike returns n rows over d columns shaped like bag-of-words text:
// about k non-zeros a row, column j drawn with probability ∝ 1/(j+10)
// (Zipf-like), values log(1+count), and a label from a sparse linear rule
// with noise.
func textLike(seed uint64, n, d, k int) (*matrix.CSR, []float64) {
	rng := rand.New(rand.NewPCG(seed, 11))
	cum := make([]float64, d)
	s := 0.0
	for j := range cum {
		s += 1 / float64(j+10)
		cum[j] = s
	}
	truth := make([]float64, d)
	for j := range truth {
		if rng.IntN(20) == 0 {
			truth[j] = rng.NormFloat64() * 2
		}
	}
	b := matrix.NewBuilder(d)
	y := make([]float64, n)
	counts := map[int]int{}
	for i := 0; i < n; i++ {
		clear(counts)
		for t := 0; t < k; t++ {
			j, _ := slices.BinarySearch(cum, rng.Float64()*s)
			counts[min(j, d-1)]++
		}
		js := slices.Sorted(maps.Keys(counts))
		z := rng.NormFloat64()
		for _, j := range js {
			v := math.Log1p(float64(counts[j]))
			b.Add(j, v)
			z += truth[j] * v
		}
		b.EndRow()
		if z > 0 {
			y[i] = 1
		} else {
			y[i] = -1
		}
	}
	return b.Build(), y
}

// TestL1DefaultTolObjective checks that fitL1 at the default tolerance
// (1e-4) stops at the optimum's objective up to what its stopping test
// guarantees: with s the minimum-norm subgradient at w (‖s‖∞ ≤ tol) and w*
// the optimum, convexity gives f(w) − f(w*) ≤ sᵀ(w − w*) ≤ tol·‖w − w*‖₁.
// The optimum is the reference solver's at tol 1e-7 (its own gap is then
// below 1e-7·‖w − w*‖₁, taken up by a slack of 1e-9·f). The problems are those
// whose inner solves the relative stopping rule (1-norm of the model's
// violations against the outer one's) makes loose early on: text-like
// sparse columns, more columns than rows, with and without an intercept,
// and the DNA indicator bits.
func TestL1DefaultTolObjective(t *testing.T) {
	text, ty := textLike(5, 400, 3000, 60)
	dna := dnaBinary(t, 400)
	for _, tc := range []struct {
		name      string
		X         matrix.Matrix
		y         []float64
		C         float64
		intercept bool
	}{
		{"text", text, ty, 1, false},
		{"text", text, ty, 10, true},
		{"text+ones", withOnesColumn(text), ty, 3, false},
		{"dna", dna.X, pm(dna.Y), 1, true},
	} {
		t.Run(fmt.Sprintf("%s/C=%g/b=%v", tc.name, tc.C, tc.intercept), func(t *testing.T) {
			cols := newColMajor(tc.X)
			s := l1Settings{C: tc.C, Intercept: tc.intercept, MaxIter: 1000, Tol: 1e-4}
			w, b, info, err := fitL1(context.Background(), tc.X, cols, tc.y, s, nil)
			if err != nil || !info.Converged {
				t.Fatalf("fitL1: %v, %+v", err, info)
			}
			ref := s
			ref.Tol = 1e-7
			wr, br, rinfo, err := fitL1Ref(context.Background(), tc.X, cols, tc.y, ref)
			if err != nil || !rinfo.Converged {
				t.Fatalf("fitL1Ref: %v, %+v", err, rinfo)
			}
			f := l1Objective(tc.X, tc.y, w, b, tc.C)
			fr := l1Objective(tc.X, tc.y, wr, br, tc.C)
			dist := math.Abs(b - br)
			nnz := 0
			for j := range w {
				dist += math.Abs(w[j] - wr[j])
				if w[j] != 0 {
					nnz++
				}
			}
			if nnz == 0 {
				t.Fatal("every weight is zero: the problem does not exercise the solver")
			}
			bound := s.Tol*dist + 1e-9*fr
			if f-fr > bound || fr-f > 1e-9*fr {
				t.Errorf("objective %.10g, optimum %.10g: difference %.3g outside [%.3g, %.3g] (tol·‖w−w*‖₁)", f, fr, f-fr, -1e-9*fr, bound)
			}
			t.Logf("objective %.10g, optimum %.10g, %d non-zeros, %d outer iterations", f, fr, nnz, info.Iterations)

			// From the optimum times 100 most margins start beyond ±500,
			// where the curvature Dᵢ underflows and Xδ is summed from the
			// rows instead of recovered from D∘Xδ.
			start := make([]float64, len(wr)+1)
			for j, v := range wr {
				start[j] = 100 * v
			}
			start[len(wr)] = 100 * br
			w, b, info, err = fitL1(context.Background(), tc.X, cols, tc.y, s, start)
			if err != nil || !info.Converged {
				t.Fatalf("fitL1 from 100 × the optimum: %v, %+v", err, info)
			}
			f = l1Objective(tc.X, tc.y, w, b, tc.C)
			if math.Abs(info.Objective-f) > 1e-10*f {
				t.Errorf("from 100 × the optimum: reported objective %.12g, evaluated %.12g", info.Objective, f)
			}
			if f-fr > s.Tol*dist*10+1e-9*fr || fr-f > 1e-9*fr {
				t.Errorf("from 100 × the optimum: objective %.10g, optimum %.10g", f, fr)
			}
		})
	}
}

// TestSubspaceStep checks modelGram.subspaceStep against the quadratic
// model evaluated from the matrix: after the step, on the coordinates that
// were non-zero (and kept their signs), the model's gradient plus the
// sign is zero, and so is the unpenalized bias's gradient; with a
// penalized bias column its gradient plus its sign; the model value falls;
// and Hδ is kept.
func TestSubspaceStep(t *testing.T) {
	data := synthClass(33, 60, 10, 2, 0.3, 0.6)
	for _, tc := range []struct {
		name string
		bPen bool
	}{{"intercept", false}, {"penalized bias", true}, {"no bias", false}} {
		t.Run(tc.name, func(t *testing.T) {
			X := data.X
			if tc.bPen {
				X = withOnesColumn(X)
			}
			n, d := X.Dims()
			cols := newColMajor(X)
			dense := matrix.ToDense(X)
			rng := rand.New(rand.NewPCG(3, 4))
			const nu = 1e-12
			D := make([]float64, n)
			sumD := 0.0
			for i := range D {
				D[i] = 0.05 + 0.2*rng.Float64()
				sumD += D[i]
			}
			bj := d // the unpenalized intercept, outside X
			switch {
			case tc.bPen:
				bj = d - 1
			case tc.name == "no bias":
				bj = -1
			}
			nc := d + 1
			g := make([]float64, nc)
			w := make([]float64, nc)
			wpd := make([]float64, nc)
			for j := range w {
				g[j] = rng.NormFloat64()
				if j%3 != 1 {
					w[j] = 3 + rng.Float64()
					if j%2 == 0 {
						w[j] = -w[j]
					}
				}
				wpd[j] = w[j]
				if w[j] != 0 {
					wpd[j] += 0.1 * rng.NormFloat64()
				}
			}
			if bj < 0 {
				wpd[d], w[d] = 0, 0
			}
			// xd(δ) = Xδ (features) + δ_b for the intercept.
			xd := func(wpd []float64) []float64 {
				v := make([]float64, n)
				for i := range v {
					for j := 0; j < d; j++ {
						v[i] += dense.At(i, j) * (wpd[j] - w[j])
					}
					if bj == d {
						v[i] += wpd[d] - w[d]
					}
				}
				return v
			}
			// grad returns the model's gradient at wpd, coordinate j.
			grad := func(wpd []float64, j int) float64 {
				v := xd(wpd)
				G := g[j] + nu*(wpd[j]-w[j])
				for i := range v {
					x := 1.0
					if j < d {
						x = dense.At(i, j)
					}
					G += x * D[i] * v[i]
				}
				return G
			}
			model := func(wpd []float64) float64 {
				v := xd(wpd)
				f := 0.0
				for j := 0; j < nc; j++ {
					if j == d && bj != d {
						continue
					}
					f += g[j]*(wpd[j]-w[j]) + 0.5*nu*(wpd[j]-w[j])*(wpd[j]-w[j])
					if j != d {
						f += math.Abs(wpd[j])
					}
				}
				for i := range v {
					f += 0.5 * D[i] * v[i] * v[i]
				}
				return f
			}
			var act []int
			for j := 0; j < nc; j++ {
				if j < d || bj == d {
					act = append(act, j)
				}
			}
			gm := newModelGram(d)
			gm.mark(act, bj)
			gm.build(cols, D)
			sd := make([]float64, d)
			for j := range sd {
				for i := 0; i < n; i++ {
					sd[j] += D[i] * dense.At(i, j)
				}
			}
			T := 0.0
			for _, j := range gm.idx {
				gm.step(j, wpd[j]-w[j])
				T += (wpd[j] - w[j]) * sd[j]
			}
			db, gb := 0.0, 0.0
			if bj >= 0 {
				db = wpd[bj] - w[bj]
				gb = g[bj] + T + db*(sumD+nu)
			}
			before := model(wpd)
			old := slices.Clone(wpd)
			dbias, _, ok := gm.subspaceStep(wpd, func(j int) float64 {
				return g[j] + (wpd[j]-w[j])*nu + db*sd[j] + gm.hd[gm.pos[j]]
			}, bj, tc.bPen, gb, sumD+nu, sd, nu)
			if !ok {
				t.Fatal("not positive definite")
			}
			if bj >= 0 {
				wpd[bj] = w[bj] + db + dbias
			}
			if after := model(wpd); after > before {
				t.Errorf("model %g → %g: rose", before, after)
			}
			for j := 0; j < nc; j++ {
				if j == d && bj != d {
					continue
				}
				free := j == d // the unpenalized intercept
				if old[j] == 0 && !free {
					continue
				}
				if !free && sign(wpd[j]) != sign(old[j]) {
					t.Fatalf("coordinate %d: %g → %g: the step was cut; pick another seed", j, old[j], wpd[j])
				}
				G := grad(wpd, j)
				if j != d {
					G += math.Copysign(1, wpd[j])
				}
				if math.Abs(G) > 1e-8 {
					t.Errorf("coordinate %d: model gradient (+ sign) %g after the step", j, G)
				}
			}
			for a, ja := range gm.idx {
				want := 0.0
				for b, jb := range gm.idx {
					want += gm.h[a*gm.m+b] * (wpd[jb] - w[jb])
				}
				if math.Abs(gm.hd[a]-want) > 1e-9 {
					t.Errorf("Hδ[%d] = %g, want %g", ja, gm.hd[a], want)
				}
			}
		})
	}
}

// scaled returns a copy of X with every value multiplied by c.
func scaled(X *matrix.CSR, c float64) *matrix.CSR {
	out := *X
	out.Val = slices.Clone(X.Val)
	floats.Scale(c, out.Val)
	return &out
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
