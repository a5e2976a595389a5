package linear

import (
	"context"
	"fmt"
	"maps"
	"math"
	"strings"
	"testing"

	_ "github.com/repro-ml/repro/datasets/embedded"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/internal/datatest"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
)

// l2Grad returns the gradient of ½‖w‖² + C·LogisticLoss at (w, b), with a
// zero intercept component when there is no intercept, and the objective.
func l2Grad(X matrix.Matrix, y, w []float64, b, C float64, intercept bool) ([]float64, float64) {
	d := len(w)
	g := make([]float64, d+1)
	f := C * LogisticLoss(X, y, w, b, g)
	for j := range w {
		g[j] = C*g[j] + w[j]
		f += 0.5 * w[j] * w[j]
	}
	g[d] *= C
	if !intercept {
		g[d] = 0
	}
	return g, f
}

func TestLogRegL2Optimality(t *testing.T) {
	data := synthClass(11, 120, 8, 2, 0.7, 0.4)
	y := pm(data.Y)
	const tol = 1e-8
	for _, tc := range []struct {
		C         float64
		intercept bool
		solver    string
	}{{0.01, true, "lbfgs"}, {1, true, "lbfgs"}, {100, true, "lbfgs"}, {1, false, "lbfgs"},
		{0.01, true, "tron"}, {1, true, "tron"}, {100, true, "tron"}, {1, false, "tron"},
		{0.01, true, "newton"}, {1, true, "newton"}, {100, true, "newton"}, {1, false, "newton"},
		{0.01, false, "dual"}, {1, false, "dual"}, {100, false, "dual"}, {1, false, "auto"}, {100, false, "auto"}} {
		var models []*classifier
		for _, set := range []*datasets.Dataset{data, sparseCopy(data)} {
			m := fit(t, "logreg-l2", map[string]any{"C": tc.C, "intercept": tc.intercept, "tol": tol, "solver": tc.solver}, set).(*classifier)
			if !m.info.Converged {
				t.Errorf("%s C=%v intercept=%v: not converged (%+v)", tc.solver, tc.C, tc.intercept, m.info)
			}
			if !tc.intercept && m.B[0] != 0 {
				t.Errorf("C=%v: intercept %v, want 0", tc.C, m.B[0])
			}
			g, f := l2Grad(set.X, y, m.W[0], m.B[0], tc.C, tc.intercept)
			if gn := maxAbs(g); gn > tol*math.Max(1, f) {
				t.Errorf("%s C=%v intercept=%v: ‖∇f‖∞ = %g > tol·max(1,f) = %g", tc.solver, tc.C, tc.intercept, gn, tol*math.Max(1, f))
			}
			if math.Abs(f-m.info.Objective) > 1e-9*f {
				t.Errorf("C=%v: reported objective %v, recomputed %v", tc.C, m.info.Objective, f)
			}
			models = append(models, m)
		}
		if diff := maxAbsDiff(models[0].W[0], models[1].W[0]); diff > 1e-5 || math.Abs(models[0].B[0]-models[1].B[0]) > 1e-5 {
			t.Errorf("C=%v intercept=%v: dense and CSR models differ by %g (b %v vs %v)", tc.C, tc.intercept, diff, models[0].B[0], models[1].B[0])
		}
	}
}

// TestLogRegL2Scalar checks a one-feature problem against the root of its
// derivative found by bisection.
func TestLogRegL2Scalar(t *testing.T) {
	x := []float64{-2, -1, 0.5, 1, 2, 3}
	yy := []float64{0, 1, 0, 1, 1, 0}
	ds := &datasets.Dataset{X: matrix.NewDense(6, 1, x), Y: yy, Classes: []string{"n", "p"}}
	const C = 2.0
	y := pm(yy)
	deriv := func(w float64) float64 {
		g := w
		for i := range x {
			g -= C * y[i] * x[i] * sigmoid(-y[i]*w*x[i])
		}
		return g
	}
	lo, hi := -10.0, 10.0
	for range 200 {
		mid := (lo + hi) / 2
		if deriv(mid) > 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	for _, solver := range []string{"lbfgs", "tron", "dual"} {
		m := fit(t, "logreg-l2", map[string]any{"C": C, "intercept": false, "tol": 1e-10, "solver": solver}, ds).(*classifier)
		if math.Abs(m.W[0][0]-lo) > 1e-7 {
			t.Errorf("%s: w = %.10f, bisection gives %.10f", solver, m.W[0][0], lo)
		}
	}
}

func TestLogRegL2Softmax(t *testing.T) {
	data := synthClass(12, 150, 6, 3, 0.8, 0.3)
	const tol, C = 1e-8, 0.5
	var models []*classifier
	for _, set := range []*datasets.Dataset{data, sparseCopy(data)} {
		m := fit(t, "logreg-l2", map[string]any{"C": C, "multiclass": "softmax", "tol": tol}, set).(*classifier)
		K, d := 3, 6
		theta := make([]float64, 0, K*d+K)
		for k := 0; k < K; k++ {
			theta = append(theta, m.W[k]...)
		}
		g := make([]float64, K*d+K)
		f := C * SoftmaxLoss(set.X, set.Labels(), theta, m.B, g)
		for j := range g {
			g[j] *= C
			if j < K*d {
				g[j] += theta[j]
				f += 0.5 * theta[j] * theta[j]
			}
		}
		if gn := maxAbs(g); gn > tol*math.Max(1, f) {
			t.Errorf("softmax: ‖∇f‖∞ = %g > %g", gn, tol*math.Max(1, f))
		}
		p := m.Predict(set.X)
		if p.OneVsRest || p.K != 3 {
			t.Errorf("softmax prediction K=%d OneVsRest=%v", p.K, p.OneVsRest)
		}
		models = append(models, m)
	}
	for k := 0; k < 3; k++ {
		if diff := maxAbsDiff(models[0].W[k], models[1].W[k]); diff > 1e-5 {
			t.Errorf("class %d: dense and CSR softmax weights differ by %g", k, diff)
		}
	}
}

// l1Violation returns the largest violation of the optimality conditions of
// ‖w‖₁ + C·LogisticLoss at (w, b).
func l1Violation(X matrix.Matrix, y, w []float64, b, C float64, intercept bool) float64 {
	d := len(w)
	g := make([]float64, d+1)
	LogisticLoss(X, y, w, b, g)
	v := 0.0
	for j := 0; j < d; j++ {
		gj := C * g[j]
		switch {
		case w[j] == 0:
			v = math.Max(v, math.Abs(gj)-1)
		default:
			v = math.Max(v, math.Abs(gj+math.Copysign(1, w[j])))
		}
	}
	if intercept {
		v = math.Max(v, math.Abs(C*g[d]))
	}
	return v
}

func TestLogRegL1KKT(t *testing.T) {
	data := synthClass(13, 150, 30, 2, 0.3, 0.5)
	y := pm(data.Y)
	for _, tc := range []struct {
		C         float64
		intercept bool
	}{{0.05, true}, {0.3, true}, {3, true}, {0.3, false}} {
		var models []*classifier
		for _, set := range []*datasets.Dataset{data, sparseCopy(data)} {
			m := fit(t, "logreg-l1", map[string]any{"C": tc.C, "intercept": tc.intercept, "tol": 1e-7}, set).(*classifier)
			if !m.info.Converged {
				t.Errorf("C=%v: not converged: %+v", tc.C, m.info)
			}
			if v := l1Violation(set.X, y, m.W[0], m.B[0], tc.C, tc.intercept); v > 1e-4 {
				t.Errorf("C=%v intercept=%v: KKT violated by %g", tc.C, tc.intercept, v)
			}
			models = append(models, m)
		}
		nz := 0
		for _, v := range models[0].W[0] {
			if v != 0 {
				nz++
			}
		}
		t.Logf("C=%v intercept=%v: %d of 30 weights non-zero, %d iterations", tc.C, tc.intercept, nz, models[0].info.Iterations)
		if diff := maxAbsDiff(models[0].W[0], models[1].W[0]); diff > 1e-5 {
			t.Errorf("C=%v: dense and CSR models differ by %g", tc.C, diff)
		}
	}
}

// TestLogRegL1Threshold checks the known critical C: with only the
// intercept fitted (b = logit of the positive rate), every weight stays
// zero iff C·‖Xᵀr‖∞ ≤ 1, r the residuals at that point.
func TestLogRegL1Threshold(t *testing.T) {
	data := synthClass(14, 100, 10, 2, 0.5, 0.3)
	y := pm(data.Y)
	pos := 0.0
	for _, v := range y {
		if v > 0 {
			pos++
		}
	}
	b0 := math.Log(pos / (float64(len(y)) - pos))
	g := make([]float64, 11)
	LogisticLoss(data.X, y, make([]float64, 10), b0, g)
	cmax := 1 / maxAbs(g[:10])
	for _, tc := range []struct {
		C        float64
		wantZero bool
	}{{0.99 * cmax, true}, {1.05 * cmax, false}} {
		m := fit(t, "logreg-l1", map[string]any{"C": tc.C, "tol": 1e-8}, data).(*classifier)
		zero := maxAbs(m.W[0]) == 0
		if zero != tc.wantZero {
			t.Errorf("C = %.4g (critical %.4g): all-zero weights = %v, want %v", tc.C, cmax, zero, tc.wantZero)
		}
		if tc.wantZero && math.Abs(m.B[0]-b0) > 1e-6 {
			t.Errorf("intercept-only fit: b = %v, want %v", m.B[0], b0)
		}
	}
}

func TestMulticlassAccuracy(t *testing.T) {
	train := synthClass(15, 300, 10, 4, 0.8, 0)
	test := synthClass(15, 900, 10, 4, 0.8, 0) // same means (same seed), more rows
	test = test.Subset(test.Indices()[300:])
	bayes := bayesAccuracy(test, 15, 10, 4, 0.8)
	t.Logf("Bayes rule test accuracy %.1f%%", bayes)
	for _, tc := range []struct {
		name   string
		params map[string]any
	}{
		{"logreg-l2", map[string]any{"C": 1.0}},
		{"logreg-l2", map[string]any{"C": 1.0, "multiclass": "softmax"}},
		{"logreg-l1", map[string]any{"C": 1.0}},
	} {
		m := fit(t, tc.name, tc.params, train)
		p := m.Predict(test.X)
		if p.K != 4 || p.Rows() != test.Rows() {
			t.Fatalf("%s %v: prediction K=%d rows=%d", tc.name, tc.params, p.K, p.Rows())
		}
		// 300 training rows for 44 parameters: within 5 points of the
		// Bayes rule.
		acc := accuracy(p, test.Y)
		t.Logf("%s %v: test accuracy %.1f%%", tc.name, tc.params, acc)
		if acc < bayes-5 {
			t.Errorf("%s %v: test accuracy %.1f%%, want ≥ %.1f%% (Bayes rule − 5)", tc.name, tc.params, acc, bayes-5)
		}
		if info := m.(methods.Informer).Info(); !info.Converged || info.Iterations == 0 {
			t.Errorf("%s %v: info %+v", tc.name, tc.params, info)
		}
	}
}

// TestIris fits the three models to Fisher's iris, embedded in the binary.
func TestIris(t *testing.T) {
	ds := datatest.Load(t, "iris", "", nil)
	for _, tc := range []struct {
		name   string
		params map[string]any
		min    float64 // training accuracy, %
	}{
		{"logreg-l2", map[string]any{"C": 100.0}, 95},
		{"logreg-l2", map[string]any{"C": 100.0, "multiclass": "softmax"}, 97},
		{"logreg-l1", map[string]any{"C": 100.0}, 95},
	} {
		p := fit(t, tc.name, tc.params, ds).Predict(ds.X)
		acc := accuracy(p, ds.Y)
		t.Logf("%s %v: training accuracy %.1f%%", tc.name, tc.params, acc)
		if acc < tc.min {
			t.Errorf("%s %v: training accuracy %.1f%%, want ≥ %v%%", tc.name, tc.params, acc, tc.min)
		}
	}
}

func TestAbsentClass(t *testing.T) {
	data := synthClass(16, 90, 5, 3, 1, 0)
	// Keep classes 0 and 2 only; class 1 is absent from training.
	var rows []int
	for i, v := range data.Y {
		if v != 1 {
			rows = append(rows, i)
		}
	}
	train := data.Subset(rows)
	for _, tc := range []struct {
		name   string
		params map[string]any
	}{
		{"logreg-l2", nil},
		{"logreg-l2", map[string]any{"intercept": false}}, // L-BFGS from dual coordinate descent
		{"logreg-l2", map[string]any{"intercept": false, "solver": "dual"}},
		{"logreg-l2", map[string]any{"multiclass": "softmax"}},
		{"logreg-l1", nil},
	} {
		p := fit(t, tc.name, tc.params, train).Predict(data.X)
		for i := 0; i < p.Rows(); i++ {
			for c := 0; c < 3; c++ {
				if s := p.Score(i, c); math.IsNaN(s) || math.IsInf(s, 0) {
					t.Fatalf("%s %v: score(%d,%d) = %v", tc.name, tc.params, i, c, s)
				}
			}
			if p.Label(i) == 1 {
				t.Fatalf("%s %v: row %d predicted as the absent class", tc.name, tc.params, i)
			}
		}
	}
	// Two classes, only one present: a constant model.
	bin := synthClass(17, 20, 3, 2, 1, 0)
	var pos []int
	for i, v := range bin.Y {
		if v == 1 {
			pos = append(pos, i)
		}
	}
	p := fit(t, "logreg-l1", nil, bin.Subset(pos)).Predict(bin.X)
	for i := 0; i < p.Rows(); i++ {
		if p.Label(i) != 1 {
			t.Fatalf("one-class training: row %d predicted %d, want 1", i, p.Label(i))
		}
	}
}

func TestDeterminism(t *testing.T) {
	data := sparseCopy(synthClass(18, 200, 20, 3, 0.5, 0.6))
	for _, tc := range []struct {
		name   string
		params map[string]any
	}{
		{"logreg-l2", nil},
		{"logreg-l2", map[string]any{"intercept": false}}, // L-BFGS from dual coordinate descent
		{"logreg-l2", map[string]any{"intercept": false, "solver": "dual"}},
		{"logreg-l2", map[string]any{"multiclass": "softmax"}},
		{"logreg-l1", nil},
	} {
		a := fit(t, tc.name, tc.params, data).Predict(data.X)
		b := fit(t, tc.name, tc.params, data).Predict(data.X)
		for i := range a.Scores {
			if a.Scores[i] != b.Scores[i] {
				t.Fatalf("%s %v: score %d differs between runs: %v vs %v", tc.name, tc.params, i, a.Scores[i], b.Scores[i])
			}
		}
	}
}

func TestErrors(t *testing.T) {
	reg := &datasets.Dataset{X: matrix.NewDense(3, 1, []float64{1, 2, 3}), Y: []float64{1, 2, 3}}
	cls := &datasets.Dataset{X: matrix.NewDense(3, 1, []float64{1, 2, 3}), Y: []float64{0, 1, 0}, Classes: []string{"a", "b"}}
	for _, tc := range []struct {
		name string
		data *datasets.Dataset
	}{{"logreg-l2", reg}, {"logreg-l1", reg}, {"ridge", cls}} {
		if _, err := newMethod(t, tc.name, nil).Fit(context.Background(), tc.data, &methods.Env{}); err == nil {
			t.Errorf("%s: no error on the wrong kind of dataset", tc.name)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		p    map[string]any
	}{{"logreg-l1", nil}, {"logreg-l2", map[string]any{"intercept": false, "solver": "dual"}}} {
		if _, err := newMethod(t, tc.name, tc.p).Fit(ctx, cls, &methods.Env{}); err == nil {
			t.Errorf("%s %v: no error with a cancelled context", tc.name, tc.p)
		}
	}
	pl, err := methods.Lookup("logreg-l2")
	if err != nil {
		t.Fatal(err)
	}
	v := param.Defaults(pl.Params)
	v["solver"] = "dual"
	if _, err := methods.New("logreg-l2", v); err == nil || !strings.Contains(err.Error(), "intercept: false") {
		t.Errorf("solver: dual with an intercept: error %v, want one naming intercept: false", err)
	}
}

// TestLogRegL1Multiclass checks convergence and the optimality conditions
// of every one-vs-rest task on a weakly separated problem where
// coordinates cross zero (a regression test: a coordinate stuck at a tiny
// non-zero value once stalled the solver).
func TestLogRegL1Multiclass(t *testing.T) {
	data := synthClass(42, 2000, 180, 3, 0.15, 0.5)
	for _, C := range []float64{0.1} {
		m := fit(t, "logreg-l1", map[string]any{"C": C, "tol": 1e-6, "max_iter": 200}, data).(*classifier)
		if !m.info.Converged || m.info.Iterations > 200 {
			t.Errorf("C=%v: %+v", C, m.info)
		}
		for c := 0; c < 3; c++ {
			if v := l1Violation(data.X, signs(nil, data.Y, c), m.W[c], m.B[c], C, true); v > 1e-4 {
				t.Errorf("C=%v class %d: KKT violated by %g", C, c, v)
			}
		}
	}
}

// TestCapFlagged checks that a fit stopped by its iteration cap says so
// (Info.Converged false, which the runner records as not_converged) for
// every logistic solver, and that the same fit uncapped converges, on a
// badly scaled table (one column a thousand times the others).
func TestCapFlagged(t *testing.T) {
	d := synthClass(41, 300, 8, 3, 0.5, 0)
	X := matrix.ToDense(d.X)
	for i := 0; i < 300; i++ {
		X.Set(i, 0, 1000*X.At(i, 0))
	}
	d.X = X
	for _, tc := range []struct {
		name string
		p    map[string]any
	}{
		{"logreg-l2", map[string]any{"C": 10.0}},
		{"logreg-l2", map[string]any{"C": 10.0, "solver": "tron"}},
		{"logreg-l2", map[string]any{"C": 10.0, "solver": "lbfgs"}},
		{"logreg-l2", map[string]any{"C": 10.0, "solver": "dual", "intercept": false}},
		{"logreg-l2", map[string]any{"C": 10.0, "multiclass": "softmax"}},
		{"logreg-l1", map[string]any{"C": 10.0}},
	} {
		t.Run(fmt.Sprintf("%s/%v", tc.name, tc.p), func(t *testing.T) {
			p := maps.Clone(tc.p)
			p["max_iter"] = 1
			if info := fit(t, tc.name, p, d).(methods.Informer).Info(); info.Converged {
				t.Errorf("max_iter 1: converged = true (%+v)", info)
			}
			if info := fit(t, tc.name, tc.p, d).(methods.Informer).Info(); !info.Converged {
				t.Errorf("default max_iter: not converged (%+v)", info)
			}
		})
	}
}
