package reduce

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/param"
)

// binaryRows returns n×d random 0/1 rows (a word-presence table) with
// column frequencies spread over [0.05, 0.5], as dense and as CSR.
func binaryRows(n, d int, seed uint64) (*matrix.Dense, *matrix.CSR) {
	rng := rand.New(rand.NewPCG(seed, 12))
	X := matrix.NewDense(n, d, nil)
	for j := 0; j < d; j++ {
		f := 0.05 + 0.45*rng.Float64()
		for i := 0; i < n; i++ {
			if rng.Float64() < f {
				X.Set(i, j, 1)
			}
		}
	}
	return X, matrix.ToCSR(X)
}

func TestFitPCA(t *testing.T) {
	for _, tc := range []struct {
		name string
		n, d int
		o    Options
		want int // components kept
	}{
		{"covariance", 60, 12, Options{}, 12},
		{"gram", 15, 40, Options{}, 14}, // rank of 15 centred rows
		{"square", 20, 20, Options{}, 19},
		{"components", 60, 12, Options{Components: 5}, 5},
		{"standardize", 60, 12, Options{Standardize: true}, 12},
		{"standardize-gram", 15, 40, Options{Standardize: true}, 14},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dense, csr := binaryRows(tc.n, tc.d, 3)
			var fits []*PCA
			for _, X := range []matrix.Matrix{dense, csr} {
				p, err := FitPCA(context.Background(), X, tc.o)
				if err != nil {
					t.Fatal(err)
				}
				checkPCA(t, p, X, tc.want)
				fits = append(fits, p)
			}
			// Dense and sparse rows take different paths to one answer.
			if !mat.EqualApprox(fits[0].Components, fits[1].Components, 1e-8) {
				t.Errorf("dense and CSR rows give different components")
			}
			again, _ := FitPCA(context.Background(), csr, tc.o)
			if !mat.Equal(again.Components, fits[1].Components) {
				t.Errorf("two fits on the same rows differ")
			}
		})
	}
}

// checkPCA checks that p has want orthonormal components with decreasing
// variances, and that the fitted rows X project onto centred, uncorrelated
// columns with those variances.
func checkPCA(t *testing.T, p *PCA, X matrix.Matrix, want int) {
	t.Helper()
	d, m := p.Components.Dims()
	if m != want || len(p.Variances) != m {
		t.Fatalf("%d components, %d variances; want %d", m, len(p.Variances), want)
	}
	var I mat.Dense
	I.Mul(p.Components.T(), p.Components)
	if !mat.EqualApprox(&I, eye(m), 1e-9) {
		t.Errorf("components are not orthonormal: VᵀV =\n%v", mat.Formatted(&I))
	}
	for i := 1; i < m; i++ {
		if p.Variances[i] > p.Variances[i-1] {
			t.Errorf("variance %d = %g above variance %d = %g", i, p.Variances[i], i-1, p.Variances[i-1])
		}
	}
	for i := 0; i < m; i++ {
		best := 0
		for j := 1; j < d; j++ {
			if math.Abs(p.Components.At(j, i)) > math.Abs(p.Components.At(best, i)) {
				best = j
			}
		}
		if p.Components.At(best, i) < 0 {
			t.Errorf("component %d: largest entry is negative", i)
		}
	}
	Z := p.Project(X).Mat()
	var cov mat.SymDense
	stat.CovarianceMatrix(&cov, Z, nil)
	for a := 0; a < m; a++ {
		col := mat.Col(nil, a, Z)
		if mean := stat.Mean(col, nil); math.Abs(mean) > 1e-9 {
			t.Errorf("projected column %d has mean %g", a, mean)
		}
		for b := 0; b < m; b++ {
			want := 0.0
			if a == b {
				want = p.Variances[a]
			}
			if math.Abs(cov.At(a, b)-want) > 1e-9*p.Variances[0] {
				t.Errorf("covariance of projected columns %d, %d = %g; want %g", a, b, cov.At(a, b), want)
			}
		}
	}
}

func eye(n int) *mat.Dense {
	I := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		I.Set(i, i, 1)
	}
	return I
}

// TestPCAMatchesSVD compares with gonum's SVD of the centred rows: the
// variances are σᵢ²/(n−1) and the components the right singular vectors
// up to sign.
func TestPCAMatchesSVD(t *testing.T) {
	for _, shape := range [][2]int{{9, 4}, {4, 9}} {
		n, d := shape[0], shape[1]
		rng := rand.New(rand.NewPCG(5, 5))
		data := make([]float64, n*d)
		for i := range data {
			data[i] = rng.NormFloat64() + float64(i%d)
		}
		X := matrix.NewDense(n, d, data)
		p, err := FitPCA(context.Background(), X, Options{})
		if err != nil {
			t.Fatal(err)
		}
		Xc := p.centred(X)
		var svd mat.SVD
		if !svd.Factorize(Xc, mat.SVDThin) {
			t.Fatal("SVD failed")
		}
		s := svd.Values(nil)
		var V mat.Dense
		svd.VTo(&V)
		_, m := p.Components.Dims()
		if m != min(n-1, d) {
			t.Fatalf("%d×%d: %d components; want %d", n, d, m, min(n-1, d))
		}
		for i := 0; i < m; i++ {
			if want := s[i] * s[i] / float64(n-1); math.Abs(p.Variances[i]-want) > 1e-10*want {
				t.Errorf("%d×%d: variance %d = %g; SVD gives %g", n, d, i, p.Variances[i], want)
			}
			dot := 0.0
			for j := 0; j < d; j++ {
				dot += p.Components.At(j, i) * V.At(j, i)
			}
			if math.Abs(math.Abs(dot)-1) > 1e-9 {
				t.Errorf("%d×%d: component %d is not ± the right singular vector: |⟨v, v_svd⟩| = %g", n, d, i, math.Abs(dot))
			}
		}
	}
}

func TestPCAVariance(t *testing.T) {
	X, _ := binaryRows(80, 10, 9)
	all, err := FitPCA(context.Background(), X, Options{})
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, v := range all.Variances {
		total += v
	}
	p, err := FitPCA(context.Background(), X, Options{Variance: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	m := len(p.Variances)
	sum := 0.0
	for _, v := range p.Variances {
		sum += v
	}
	if sum < 0.5*total || sum-p.Variances[m-1] >= 0.5*total {
		t.Errorf("variance 0.5 keeps %d components explaining %.3f of the total; want the fewest reaching 0.5", m, sum/total)
	}
}

func TestPCAErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		X    matrix.Matrix
	}{
		{"one row", matrix.NewDense(1, 3, []float64{1, 2, 3})},
		{"constant", matrix.NewDense(3, 2, []float64{1, 2, 1, 2, 1, 2})},
	} {
		if _, err := FitPCA(context.Background(), tc.X, Options{}); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	X, _ := binaryRows(10, 3, 1)
	if _, err := FitPCA(ctx, X, Options{}); err != context.Canceled {
		t.Errorf("cancelled: error %v; want context.Canceled", err)
	}
}

// TestPCATransform fits the registered transform on some rows, as the
// runner does with fit: pool, and applies it to others.
func TestPCATransform(t *testing.T) {
	tr, err := datasets.LookupTransform("pca")
	if err != nil {
		t.Fatal(err)
	}
	dense, csr := binaryRows(30, 8, 4)
	d := &datasets.Dataset{Name: "words", X: csr, Y: make([]float64, 30), Classes: []string{"a", "b"}}
	for i := range d.Y {
		d.Y[i] = float64(i % 2)
	}
	pool := d.Subset(d.Indices()[:20])
	pool.Y, pool.Classes = nil, nil
	f, err := tr.Fit(context.Background(), datasets.Env{}, pool, param.Values{"components": 3, "variance": 1.0, "standardize": false})
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.Transform(d)
	if err != nil {
		t.Fatal(err)
	}
	if out.Rows() != 30 || out.Cols() != 3 || out.Features[2] != "pc3" || &out.Y[0] != &d.Y[0] {
		t.Fatalf("got %d×%d with features %v; want 30×3, pc1…pc3, the same labels", out.Rows(), out.Cols(), out.Features)
	}
	p := f.(*PCA)
	for i := 20; i < 30; i++ { // a row outside the fit: (x − μ)ᵀV
		for k := 0; k < 3; k++ {
			want := 0.0
			for j := 0; j < 8; j++ {
				want += (dense.At(i, j) - p.Mean[j]) * p.Components.At(j, k)
			}
			if got := out.X.At(i, k); math.Abs(got-want) > 1e-12 {
				t.Errorf("row %d, pc%d = %g; want %g", i, k+1, got, want)
			}
		}
	}
	if _, err := f.Transform(&datasets.Dataset{X: matrix.NewDense(2, 5, nil), Y: []float64{0, 0}}); err == nil {
		t.Error("Transform of rows with other columns: no error")
	}
}

// fit: all applies the analysis fitted on every row (test rows included)
// to every row: the same projection as a fit on all the rows.
func TestPCAApplyAll(t *testing.T) {
	tr, err := datasets.LookupTransform("pca")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Apply == nil {
		t.Fatal("pca has no Apply: fit: all is refused")
	}
	_, csr := binaryRows(30, 8, 5)
	d := &datasets.Dataset{Name: "words", X: csr, Y: make([]float64, 30), Classes: []string{"a", "b"}}
	v := param.Values{"components": 0, "variance": 1.0, "standardize": true}
	out, err := tr.Apply(context.Background(), datasets.Env{}, d, v)
	if err != nil {
		t.Fatal(err)
	}
	f, err := tr.Fit(context.Background(), datasets.Env{}, d, v)
	if err != nil {
		t.Fatal(err)
	}
	want, err := f.Transform(d)
	if err != nil {
		t.Fatal(err)
	}
	if out.Rows() != 30 || out.Cols() != want.Cols() || out.Cols() != 8 {
		t.Fatalf("got %d×%d; want 30×%d", out.Rows(), out.Cols(), want.Cols())
	}
	for i := 0; i < 30; i++ {
		for k := 0; k < out.Cols(); k++ {
			if got, w := out.X.At(i, k), want.X.At(i, k); got != w {
				t.Fatalf("row %d, pc%d = %g; want %g (Fit then Transform)", i, k+1, got, w)
			}
		}
	}
	// The applied columns are uncorrelated over the rows: the fit saw
	// every row.
	for a := 0; a < 3; a++ {
		for b := a + 1; b < 3; b++ {
			ca, cb := make([]float64, 30), make([]float64, 30)
			for i := range ca {
				ca[i], cb[i] = out.X.At(i, a), out.X.At(i, b)
			}
			if c := stat.Covariance(ca, cb, nil); math.Abs(c) > 1e-9 {
				t.Errorf("cov(pc%d, pc%d) = %g over the rows fitted on; want 0", a+1, b+1, c)
			}
		}
	}
}

// projection: raw applies the directions to the rows as they are (x ↦
// Vᵀx, the older code of Weka's PrincipalComponents): with every direction kept it is a
// rotation of the rows (the same norms and dot products), and the fit is
// the centred one's.
func TestPCARawProjection(t *testing.T) {
	tr, err := datasets.LookupTransform("pca")
	if err != nil {
		t.Fatal(err)
	}
	dense, csr := binaryRows(40, 6, 6)
	d := &datasets.Dataset{Name: "words", X: csr, Y: make([]float64, 40), Classes: []string{"a", "b"}}
	for _, standardize := range []bool{false, true} {
		v := param.Values{"components": 0, "variance": 1.0, "standardize": standardize, "projection": "raw"}
		f, err := tr.Fit(context.Background(), datasets.Env{}, d, v)
		if err != nil {
			t.Fatal(err)
		}
		out, err := f.Transform(d)
		if err != nil {
			t.Fatal(err)
		}
		if out.Cols() != 6 {
			t.Fatalf("standardize %t: %d components; want 6", standardize, out.Cols())
		}
		v["projection"] = "centred"
		g, err := tr.Fit(context.Background(), datasets.Env{}, d, v)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(f.(*PCA).Components, g.(*PCA).Components) {
			t.Errorf("standardize %t: raw and centred projections have other directions", standardize)
		}
		dot := func(X matrix.Matrix, a, b int) float64 {
			_, c := X.Dims()
			s := 0.0
			for j := 0; j < c; j++ {
				s += X.At(a, j) * X.At(b, j)
			}
			return s
		}
		for _, ab := range [][2]int{{0, 0}, {0, 1}, {5, 7}, {39, 39}} {
			if got, want := dot(out.X, ab[0], ab[1]), dot(dense, ab[0], ab[1]); math.Abs(got-want) > 1e-9 {
				t.Errorf("standardize %t: rows %d·%d = %g after the projection; want %g (a rotation)", standardize, ab[0], ab[1], got, want)
			}
		}
	}
}

// An interrupted run does not wait for the eigendecomposition: FitPCA
// returns the context's error long before the factorization would end.
func TestFitPCACancelDuringFactorization(t *testing.T) {
	const n, d = 700, 600
	r := rand.New(rand.NewPCG(1, 2))
	X := matrix.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			X.Set(i, j, r.NormFloat64())
		}
	}
	start := time.Now()
	if _, err := FitPCA(context.Background(), X, Options{}); err != nil {
		t.Fatal(err)
	}
	whole := time.Since(start)

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(whole/20, cancel)
	start = time.Now()
	_, err := FitPCA(ctx, X, Options{})
	cancelled := time.Since(start)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want context.Canceled", err)
	}
	if cancelled > whole/2 {
		t.Errorf("cancelled at %v, returned after %v; a whole fit takes %v", whole/20, cancelled, whole)
	}
}

// A panic inside the factorization reaches the caller, where the runner
// recovers it as a failed trial.
func TestCancellablePanics(t *testing.T) {
	defer func() {
		if r := recover(); r != "boom" {
			t.Errorf("recovered %v; want boom", r)
		}
	}()
	cancellable(context.Background(), func() ([]float64, *mat.Dense) { panic("boom") })
	t.Error("no panic")
}

// TestProjectSparseRows checks the projection of sparse rows, which
// shares the rows among GOMAXPROCS goroutines: the same values bit for bit
// with one and with four, and the dense rows' projection to rounding.
func TestProjectSparseRows(t *testing.T) {
	X, S := binaryRows(700, 30, 5)
	p, err := FitPCA(context.Background(), X, Options{Components: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	one := p.Project(S)
	runtime.GOMAXPROCS(4)
	four, dense := p.Project(S), p.Project(X)
	for i := 0; i < 700; i++ {
		for k, v := range four.RawRow(i) {
			if w := one.At(i, k); math.Float64bits(v) != math.Float64bits(w) {
				t.Fatalf("row %d, component %d: %v on four goroutines, %v on one", i, k, v, w)
			}
			if d := dense.At(i, k); math.Abs(v-d) > 1e-12 {
				t.Fatalf("row %d, component %d: sparse %v, dense %v", i, k, v, d)
			}
		}
	}
}
