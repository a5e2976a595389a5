package svm

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/kernel"
	"github.com/repro-ml/repro/methods/plugintest"
	"github.com/repro-ml/repro/param"
)

// blobs returns two noisy Gaussian classes in d dimensions.
func blobs(n, d int, seed uint64) (*matrix.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	X := matrix.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		y[i] = 1
		if i%2 == 0 {
			y[i] = -1
		}
		for j := 0; j < d; j++ {
			X.Set(i, j, rng.NormFloat64()+0.8*y[i]*float64(j%2))
		}
	}
	return X, y
}

// kktViolation recomputes the gradient from scratch and returns
// max_{I_up} −yG − min_{I_low} −yG, the box and equality residuals.
func kktViolation(K []float64, y, alpha []float64, C float64) (viol, box, eq float64) {
	n := len(y)
	up, low := math.Inf(-1), math.Inf(1)
	for t := 0; t < n; t++ {
		g := -1.0
		for s := 0; s < n; s++ {
			g += y[t] * y[s] * K[t*n+s] * alpha[s]
		}
		v := -y[t] * g
		inUp := (y[t] > 0 && alpha[t] < C) || (y[t] < 0 && alpha[t] > 0)
		inLow := (y[t] > 0 && alpha[t] > 0) || (y[t] < 0 && alpha[t] < C)
		if inUp {
			up = math.Max(up, v)
		}
		if inLow {
			low = math.Min(low, v)
		}
		box = math.Max(box, math.Max(-alpha[t], alpha[t]-C))
		eq += y[t] * alpha[t]
	}
	return up - low, box, math.Abs(eq)
}

func TestSMOKKT(t *testing.T) {
	X, y := blobs(80, 5, 1)
	tests := []struct {
		kern string
		C    float64
		norm bool
	}{
		{"linear", 0.01, false}, {"linear", 1, false}, {"linear", 100, false},
		{"poly:3", 1, true}, {"rbf:2", 10, false}, {"rbf:0.5", 1, false},
	}
	for _, tc := range tests {
		for _, cache := range []float64{0, 0.005} { // the Gram matrix; a cache of 8 columns with shrinking
			k, _ := kernel.Parse(tc.kern)
			s := &SVM{C: tc.C, Kernel: k, Normalize: tc.norm, Bias: true, Tol: 1e-6, MaxIter: 1e7, Solver: "kernel", CacheMB: cache}
			m, err := s.FitBinary(context.Background(), X, y, nil)
			if err != nil {
				t.Fatal(err)
			}
			K := kernel.Gram(k, X, tc.norm)
			viol, box, eq := kktViolation(K, y, m.Alpha, tc.C)
			if viol > 1e-6 || box > 0 || eq > 1e-9 {
				t.Errorf("%s C=%g: KKT violation %g, box %g, equality %g", tc.kern, tc.C, viol, box, eq)
			}
			// Free support vectors lie on the margin: y f(x) = 1.
			f := m.Decision(X)
			for i, a := range m.Alpha {
				if a > 1e-8 && a < tc.C-1e-8 && math.Abs(y[i]*f[i]-1) > 1e-5 {
					t.Errorf("%s C=%g: free vector %d has margin %g", tc.kern, tc.C, i, y[i]*f[i])
				}
			}
			if !m.Info().Converged {
				t.Errorf("%s: not converged", tc.kern)
			}
		}
	}
}

// TestCapFlagged: a fit stopped at max_iter says it did not converge (the
// runner records not_converged), for both solvers.
func TestCapFlagged(t *testing.T) {
	X, y := blobs(200, 5, 6)
	for _, solver := range []string{"kernel", "linear"} {
		s := &SVM{C: 100, Bias: true, Tol: 1e-6, MaxIter: 50, Solver: solver}
		m, err := s.FitBinary(context.Background(), X, y, nil)
		if err != nil {
			t.Fatal(err)
		}
		if m.Info().Converged {
			t.Errorf("%s: 50 steps on 200 rows reported as converged", solver)
		}
		s.MaxIter = 1e7
		if m, _ = s.FitBinary(context.Background(), X, y, nil); !m.Info().Converged {
			t.Errorf("%s: not converged in 1e7 steps", solver)
		}
	}
}

// TestMemoryLargeRBF: the estimate of an RBF fit on 20,000 dense rows of
// 617 columns (ISOLET's width), predicting 1,559, stays under 1 GB at the
// default cache: the kernel matrix (3.2 GB) is never held.
func TestMemoryLargeRBF(t *testing.T) {
	pl, err := methods.Lookup("svm")
	if err != nil {
		t.Fatal(err)
	}
	p := param.Defaults(pl.Params)
	p["kernel"] = "rbf"
	s := methods.Shape{Rows: 20000, Cols: 617, NNZ: 20000 * 617, Dense: true, Classes: 2, Test: 1559}
	if est := pl.MemoryOf(s, p); est > 1<<30 {
		t.Errorf("estimate %d MB for 20,000 rows, want under 1 GB", est>>20)
	} else {
		t.Logf("estimate %d MB", est>>20)
	}
}

// TestCacheCollected: a fit through the column cache (a Gram matrix
// larger than cache_mb) returns with the cache collected, not as garbage
// left on the heap under the prediction that follows.
func TestCacheCollected(t *testing.T) {
	X, y := blobs(1200, 8, 7)
	k, _ := kernel.Parse("rbf:2")
	s := &SVM{C: 1, Kernel: k, Bias: true, Tol: 1e-3, MaxIter: 1e7, CacheMB: 4}
	if gramFits(1200, s.cacheBytes()) {
		t.Fatal("the Gram matrix fits in the cache: the test needs the column cache")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, err := s.FitBinary(context.Background(), X, y, nil)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("heap %d KB more after the fit (cache 4 MB), %d support vectors", grown>>10, len(m.Coef))
	if grown > 1<<20 {
		t.Errorf("heap %d KB larger after the fit than before: the cache (4 MB) is still on it", grown>>10)
	}
}

// TestDefaultCacheMB: the default of cache_mb, written in Params' tag,
// is DefaultCacheMB.
func TestDefaultCacheMB(t *testing.T) {
	d, ok := param.Find(param.Of[Params]().Params, "cache_mb")
	if !ok || d.Default != DefaultCacheMB {
		t.Errorf("cache_mb default %v, want DefaultCacheMB %v", d.Default, DefaultCacheMB)
	}
}

func TestDCDKKT(t *testing.T) {
	X, y := blobs(60, 4, 2)
	k, _ := kernel.Parse("rbf:1")
	s := &SVM{C: 2, Kernel: k, Bias: false, Tol: 1e-8, MaxIter: 1e8}
	m, err := s.FitBinary(context.Background(), X, y, nil)
	if err != nil {
		t.Fatal(err)
	}
	K := kernel.Gram(k, X, false)
	for i := range y {
		g := -1.0
		for j := range y {
			g += y[i] * y[j] * K[i*60+j] * m.Alpha[j]
		}
		pg := g
		if m.Alpha[i] <= 0 {
			pg = math.Min(g, 0)
		} else if m.Alpha[i] >= 2 {
			pg = math.Max(g, 0)
		}
		if math.Abs(pg) > 1e-7 {
			t.Fatalf("projected gradient %g at %d", pg, i)
		}
	}
	if m.B != 0 {
		t.Errorf("bias %g without bias", m.B)
	}
}

func TestClosedForm(t *testing.T) {
	// Two points ±(1,0): the maximum-margin separator is w = (1,0), b = 0,
	// α = (½, ½) for C ≥ ½; for C < ½ both are bounded at C.
	X := matrix.NewDense(2, 2, []float64{1, 0, -1, 0})
	y := []float64{1, -1}
	for _, C := range []float64{0.1, 10} {
		s := &SVM{C: C, Kernel: kernel.Kernel{}, Bias: true, Tol: 1e-10, MaxIter: 1000}
		m, err := s.FitBinary(context.Background(), X, y, nil)
		if err != nil {
			t.Fatal(err)
		}
		a := math.Min(C, 0.5)
		if math.Abs(m.Alpha[0]-a) > 1e-12 || math.Abs(m.Alpha[1]-a) > 1e-12 || math.Abs(m.W[0]-2*a) > 1e-12 || math.Abs(m.B) > 1e-12 {
			t.Errorf("C=%g: alpha %v w %v b %g, want alpha %g", C, m.Alpha, m.W, m.B, a)
		}
	}
}

func TestLinearPrimalMatchesKernel(t *testing.T) {
	X, y := blobs(40, 3, 3)
	lin := &SVM{C: 1, Bias: true, Tol: 1e-6, MaxIter: 1e6}
	m, _ := lin.FitBinary(context.Background(), X, y, nil)
	W := m.W
	m.W = nil
	f1 := m.Decision(X)
	m.W = W
	f2 := m.Decision(X)
	for i := range f1 {
		if math.Abs(f1[i]-f2[i]) > 1e-9 {
			t.Fatalf("row %d: kernel decision %g, primal %g", i, f1[i], f2[i])
		}
	}
}

func TestFitDatasetDeterministic(t *testing.T) {
	X, y := blobs(50, 4, 4)
	lab := make([]float64, len(y))
	for i, v := range y {
		if v > 0 {
			lab[i] = 1
		}
	}
	ds := &datasets.Dataset{Name: "blobs", X: X, Y: lab, Classes: []string{"a", "b"}}
	meth, err := methods.New("svm", map[string]any{"C": 1.0, "kernel": "rbf", "degree": 2, "sigma": 2.0, "normalize": false, "bias": true, "tol": 1e-3, "max_iter": 100000,
		"solver": "auto", "cache_mb": 200.0, "shrinking": true})
	if err != nil {
		t.Fatal(err)
	}
	var prev []float64
	for r := 0; r < 2; r++ {
		m, err := meth.Fit(context.Background(), ds, &methods.Env{Memo: &methods.Memo{}})
		if err != nil {
			t.Fatal(err)
		}
		p := m.Predict(X)
		correct := 0
		for i := range lab {
			if p.Label(i) == int(lab[i]) {
				correct++
			}
		}
		if correct < 40 {
			t.Errorf("training accuracy %d/50", correct)
		}
		if prev != nil {
			for i := range prev {
				if prev[i] != p.Scores[i] {
					t.Fatal("two fits differ")
				}
			}
		}
		prev = p.Scores
	}
	bad := &datasets.Dataset{Name: "1c", X: X, Y: make([]float64, 50), Classes: []string{"a"}}
	if _, err := meth.Fit(context.Background(), bad, nil); err == nil || !strings.Contains(err.Error(), `"1c"`) {
		t.Errorf("a 1-class dataset: error %v; want one naming the dataset", err)
	}
}

func ExampleSVM_FitBinary() {
	X := matrix.NewDense(4, 1, []float64{-2, -1, 1, 2})
	s := &SVM{C: 10, Bias: true, Tol: 1e-8, MaxIter: 1000}
	m, _ := s.FitBinary(context.Background(), X, []float64{-1, -1, 1, 1}, nil)
	f := m.Decision(matrix.NewDense(1, 1, []float64{0.5}))
	fmt.Printf("w=%.3f f(0.5)=%.3f\n", m.W[0], f[0])
	// Output: w=1.000 f(0.5)=0.500
}

// TestValidate checks that bad values are rejected before anything runs.
// svm's kernel is an enum with its degree and width as numbers, so its
// declarations say everything and it needs no Validate hook.
func TestValidate(t *testing.T) {
	plugintest.Run(t, "svm", []plugintest.Case{
		{Name: "defaults"},
		{Name: "rbf", Set: map[string]any{"kernel": "rbf", "sigma": 0.5}},
		{Name: "poly", Set: map[string]any{"kernel": "poly", "degree": 3}},
		{Name: "kernel spec is not a kernel name", Set: map[string]any{"kernel": "rbf:0.5"}, Want: []string{"kernel"}, Msg: `unknown value "rbf:0.5" (did you mean "rbf"?), want one of linear, poly, rbf`},
		{Name: "degree 0", Set: map[string]any{"kernel": "poly", "degree": 0}, Want: []string{"degree"}},
		{Name: "degree 1.5", Set: map[string]any{"degree": 1.5}, Want: []string{"degree"}, Msg: "want an integer"},
		{Name: "sigma 0", Set: map[string]any{"sigma": 0}, Want: []string{"sigma"}},
		{Name: "C 0 and tol 0", Set: map[string]any{"C": 0, "tol": 0}, Want: []string{"C", "tol"}},
	})
}

// TestLinearBadlyScaled: on columns scaled from 1e-3 to 1e4 (as unscaled
// tables are), where coordinate descent alone crawls, the linear solver
// (interior-point start, coordinate-descent polish) converges within a
// few epochs and its projected gradients are within tol of zero.
func TestLinearBadlyScaled(t *testing.T) {
	X, y := blobs(400, 5, 8)
	for i := 0; i < 400; i++ {
		X.Set(i, 0, 1e4*X.At(i, 0))
		X.Set(i, 1, 1e-3*X.At(i, 1))
		X.Set(i, 3, math.Abs(X.At(i, 3))*500)
	}
	const C, tol = 10, 1e-3
	for _, bias := range []bool{true, false} {
		s := &SVM{C: C, Kernel: kernel.Kernel{}, Bias: bias, Tol: tol, MaxIter: 100 * 400}
		m, err := s.FitBinary(context.Background(), X, y, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !m.Info().Converged {
			t.Fatalf("bias %v: not converged in 100 epochs (%d)", bias, m.Info().Iterations)
		}
		if worst := projGrad(m, X, y, C); worst > 2*tol {
			t.Errorf("bias %v: projected gradient up to %g", bias, worst)
		}
		if !bias && m.B != 0 {
			t.Errorf("bias %g without bias", m.B)
		}
	}
}

// TestDecisionBlocks: scoring in blocks of rows gives the values of one
// block.
func TestDecisionBlocks(t *testing.T) {
	X, y := blobs(60, 4, 9)
	s := &SVM{C: 1, Kernel: kernel.Kernel{Kind: kernel.RBF, Sigma: 2}, Bias: true, Tol: 1e-3, MaxIter: 1e6}
	m, err := s.FitBinary(context.Background(), X, y, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := m.Decision(X)
	for _, per := range []int{1, 7, 60, 100} {
		got := make([]float64, 60)
		m.decisionBlocks(X, got, per)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("blocks of %d: row %d scored %v, want %v", per, i, got[i], want[i])
			}
		}
	}
}

// TestLinearDegenerate: zero rows, one class, and identical rows with
// opposite labels converge to finite solutions, with both solvers.
func TestLinearDegenerate(t *testing.T) {
	same := matrix.NewDense(6, 2, []float64{1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2})
	for _, tc := range []struct {
		name string
		X    *matrix.Dense
		y    []float64
	}{
		{"zero rows", matrix.NewDense(6, 3, nil), []float64{1, -1, 1, -1, 1, 1}},
		{"one class", same, []float64{1, 1, 1, 1, 1, 1}},
		{"identical rows, opposite labels", same, []float64{1, -1, 1, -1, 1, -1}},
	} {
		for _, v := range []struct {
			bias   bool
			solver string
		}{{true, "linear"}, {false, "linear"}, {true, "kernel"}, {false, "kernel"}} {
			bias := v.bias
			s := &SVM{C: 2, Bias: bias, Tol: 1e-6, MaxIter: 1e6, Solver: v.solver}
			m, err := s.FitBinary(context.Background(), tc.X, tc.y, nil)
			if err != nil {
				t.Fatalf("%s bias %v: %v", tc.name, bias, err)
			}
			if !m.Info().Converged || math.IsNaN(m.B) || math.IsNaN(m.Info().Objective) {
				t.Errorf("%s bias %v: converged %v, b %v, objective %v", tc.name, bias, m.Info().Converged, m.B, m.Info().Objective)
			}
			if worst := projGrad(m, tc.X, tc.y, 2); worst > 1e-5 {
				t.Errorf("%s bias %v: projected gradient %g", tc.name, bias, worst)
			}
		}
	}
}
