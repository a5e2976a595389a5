package spectral

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
	"gonum.org/v1/gonum/mat"
)

func randGraph(r *rand.Rand, D, k int, isolated int) *matrix.CSR {
	b := matrix.NewBuilder(D)
	for i := 0; i < D; i++ {
		if i >= isolated {
			for t := 0; t < k; t++ {
				if j := r.IntN(D); j != i {
					b.Add(j, 0.1+r.Float64())
				}
			}
		}
		b.EndRow()
	}
	return b.Build()
}

func denseOp(A *mat.SymDense) Op {
	n := A.SymmetricDim()
	return func(dst, x []float64) {
		var v mat.VecDense
		v.MulVec(A, mat.NewVecDense(n, append([]float64(nil), x...)))
		copy(dst, v.RawVector().Data)
	}
}

// eigSorted returns the eigenvalues of A in decreasing order.
func eigSorted(t *testing.T, A *mat.SymDense) []float64 {
	var es mat.EigenSym
	if !es.Factorize(A, false) {
		t.Fatal("EigenSym failed")
	}
	v := es.Values(nil)
	sort.Sort(sort.Reverse(sort.Float64Slice(v)))
	return v
}

// checkPairs verifies unit norm, mutual orthogonality and A v = λ v.
func checkPairs(t *testing.T, name string, A *mat.SymDense, res *EigenResult, want []float64) {
	t.Helper()
	n := A.SymmetricDim()
	op := denseOp(A)
	Av := make([]float64, n)
	scaleA := math.Max(1, math.Abs(want[0]))
	for i, lam := range res.Values {
		if math.Abs(lam-want[i]) > 1e-8*scaleA {
			t.Errorf("%s: eigenvalue %d = %.12g, EigenSym %.12g", name, i, lam, want[i])
		}
		v := res.Vectors[i]
		op(Av, v)
		r := 0.0
		for j := range v {
			r += (Av[j] - lam*v[j]) * (Av[j] - lam*v[j])
		}
		if math.Sqrt(r) > 1e-6*scaleA {
			t.Errorf("%s: ‖Av−λv‖ = %g for pair %d", name, math.Sqrt(r), i)
		}
		for k := 0; k < i; k++ {
			if d := dot(v, res.Vectors[k]); math.Abs(d) > 1e-8 {
				t.Errorf("%s: vectors %d and %d not orthogonal: %g", name, i, k, d)
			}
		}
	}
}

func TestLanczosLargestMatchesEigenSym(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, c := range []struct{ n, m, rank int }{{50, 5, 50}, {120, 30, 120}, {80, 20, 10}} {
		// A = G Gᵀ with G n×rank: PSD, rank-deficient in the last case.
		G := mat.NewDense(c.n, c.rank, nil)
		for i := 0; i < c.n; i++ {
			for j := 0; j < c.rank; j++ {
				G.Set(i, j, r.NormFloat64())
			}
		}
		A := mat.NewSymDense(c.n, nil)
		A.SymOuterK(1, G)
		want := eigSorted(t, A)
		res, err := Lanczos(context.Background(), denseOp(A), c.n, c.m, 1e-10, 0, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Values) != c.m {
			t.Fatalf("n=%d: %d pairs, want %d", c.n, len(res.Values), c.m)
		}
		checkPairs(t, fmt.Sprintf("n=%d m=%d rank=%d", c.n, c.m, c.rank), A, res, want)
	}
}

// TestSmallestLLEMatchesEigenSym compares the m smallest eigenvalues of
// (I−P)ᵀ(I−P) with gonum's dense solver, on a graph with isolated nodes.
func TestSmallestLLEMatchesEigenSym(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	D, m := 90, 12
	g := randGraph(r, D, 3, 5)
	P := rowNormalize(g)
	IP := mat.NewDense(D, D, nil)
	for i := 0; i < D; i++ {
		IP.Set(i, i, 1)
		P.Row(i, func(j int, v float64) { IP.Set(i, j, IP.At(i, j)-v) })
	}
	A := mat.NewSymDense(D, nil)
	A.SymOuterK(1, IP.T())
	all := eigSorted(t, A)
	want := make([]float64, m)
	for i := range want {
		want[i] = all[D-1-i]
	}
	res, err := SmallestLLE(context.Background(), g, m)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Values) != m {
		t.Fatalf("%d pairs, want %d", len(res.Values), m)
	}
	for i := range want {
		if math.Abs(res.Values[i]-want[i]) > 1e-7*all[0] {
			t.Errorf("smallest eigenvalue %d = %.10g, EigenSym %.10g", i, res.Values[i], want[i])
		}
	}
	checkPairs(t, "lle", A, res, want)
}

func randCSR(r *rand.Rand, n, d int, density float64) *matrix.CSR {
	b := matrix.NewBuilder(d)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			if r.Float64() < density {
				b.Add(j, r.Float64()+0.5)
			}
		}
		b.EndRow()
	}
	return b.Build()
}

// TestTopRightSingularMatchesSVD compares with gonum's dense SVD, for wide
// (n < d, Lanczos on XXᵀ) and tall (Lanczos on XᵀX) matrices.
func TestTopRightSingularMatchesSVD(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for _, c := range []struct{ n, d, m int }{{30, 80, 8}, {90, 25, 10}, {12, 60, 40}} {
		X := randCSR(r, c.n, c.d, 0.2)
		var svd mat.SVD
		if !svd.Factorize(matrix.ToDense(X).Mat(), mat.SVDThin) {
			t.Fatal("SVD failed")
		}
		sv := svd.Values(nil)
		var V mat.Dense
		svd.VTo(&V)
		vecs, vals, err := TopRightSingular(context.Background(), X, c.m, 1)
		if err != nil {
			t.Fatal(err)
		}
		wantK := min(c.m, c.n, c.d)
		if len(vecs) != wantK {
			t.Fatalf("%dx%d: %d vectors, want %d", c.n, c.d, len(vecs), wantK)
		}
		for i, v := range vecs {
			if math.Abs(math.Sqrt(vals[i])-sv[i]) > 1e-8*sv[0] {
				t.Errorf("%dx%d: σ_%d = %.10g, SVD %.10g", c.n, c.d, i, math.Sqrt(vals[i]), sv[i])
			}
			// Same vector up to sign (singular values are distinct here).
			d := 0.0
			for j := range v {
				d += v[j] * V.At(j, i)
			}
			if math.Abs(math.Abs(d)-1) > 1e-6 {
				t.Errorf("%dx%d: |<v_%d, SVD v_%d>| = %.9f, want 1", c.n, c.d, i, i, math.Abs(d))
			}
		}
	}
}

// TestPCRSeparatesAlongTopComponent: the class is the sign of the dominant
// direction; PCR with m = 1 must find it.
func TestPCRSeparatesAlongTopComponent(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	n, d := 200, 30
	X := matrix.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		s := 5 * r.NormFloat64()
		for j := 0; j < d; j++ {
			v := 0.3 * r.NormFloat64()
			if j < 3 {
				v += s
			}
			X.Set(i, j, v)
		}
		if s > 0 {
			y[i] = 1
		}
	}
	train := &datasets.Dataset{Name: "pc", X: X, Y: y, Classes: []string{"a", "b"}}
	pl, _ := methods.Lookup("pcr")
	p := param.Defaults(pl.Params)
	p["m"], p["C"] = 1, 100.0
	meth, _ := pl.New(p)
	model, err := meth.Fit(context.Background(), train, &methods.Env{})
	if err != nil {
		t.Fatal(err)
	}
	pred := model.Predict(X)
	wrong := 0
	for i := range y {
		if pred.Label(i) != int(y[i]) {
			wrong++
		}
	}
	if wrong > 4 {
		t.Errorf("%d of %d training rows wrong with the top component", wrong, n)
	}
}

func TestLLEFitAndErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	n, d := 40, 25
	X := randCSR(r, n, d, 0.3)
	y := make([]float64, n)
	for i := range y {
		y[i] = float64(i % 3)
	}
	train := &datasets.Dataset{Name: "t", X: X, Y: y, Classes: []string{"a", "b", "c"}}
	m := &LLE{Settings: Settings{M: 5, C: 1, MaxIter: 50, Tol: 1e-6}, Graph: "feature"}
	if _, err := m.Fit(context.Background(), train, nil); err == nil {
		t.Fatal("no error without a graph")
	}
	train.Graphs = map[string]*matrix.CSR{"feature": randGraph(r, d+2, 3, 0)}
	model, err := m.Fit(context.Background(), train, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := model.Predict(X)
	if p.K != 3 || p.Rows() != n {
		t.Fatalf("prediction K=%d rows=%d", p.K, p.Rows())
	}
	if ev := model.(*Model).Eigenvalues; len(ev) != 5 || ev[0] > ev[4] {
		t.Errorf("eigenvalues %v: want 5, increasing", ev)
	}
}

// ExampleLanczos finds the two largest eigenvalues of diag(1, 2, 3, 4).
func ExampleLanczos() {
	diag := []float64{1, 2, 3, 4}
	A := func(dst, x []float64) {
		for i := range x {
			dst[i] = diag[i] * x[i]
		}
	}
	res, _ := Lanczos(context.Background(), A, 4, 2, 1e-10, 0, 1)
	fmt.Printf("%.6f %.6f\n", res.Values[0], res.Values[1])
	// Output: 4.000000 3.000000
}
