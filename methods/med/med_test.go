package med

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/kernel"
	"github.com/repro-ml/repro/methods/plugintest"
	"github.com/repro-ml/repro/methods/svm"
)

// synth returns n rows in d dims where only the first `rel` inputs carry
// the label of each of M tasks (task m depends on input m mod rel).
func synth(n, d, rel, M int, seed uint64) (*matrix.Dense, [][]float64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	X := matrix.NewDense(n, d, nil)
	for i := range X.RawData() {
		X.RawData()[i] = rng.NormFloat64()
	}
	Y := make([][]float64, M)
	for m := range Y {
		Y[m] = make([]float64, n)
		w := make([]float64, rel)
		for j := range w {
			w[j] = rng.NormFloat64()
		}
		for i := 0; i < n; i++ {
			var s float64
			for j := 0; j < rel; j++ {
				s += w[j] * X.At(i, j)
			}
			Y[m][i] = 1
			if s+0.3*rng.NormFloat64() < 0 {
				Y[m][i] = -1
			}
		}
	}
	return X, Y
}

func newProblem(t *testing.T, sel string, shared bool, rho float64, M int) *problem {
	X, Y := synth(12, 5, 3, M, 1)
	p := &problem{M: M, T: 12, y: Y, c: 3, rho: rho, sigma2: 0.7, shared: shared}
	if sel == "features" {
		p.D = 5
		p.rows = make([][]entry, 12)
		for i := range p.rows {
			X.Row(i, func(j int, v float64) { p.rows[i] = append(p.rows[i], entry{j, v}) })
		}
	} else {
		for _, s := range []string{"linear", "poly:2", "rbf:1"} {
			k, _ := kernel.Parse(s)
			p.K = append(p.K, kernel.Gram(k, X, true))
		}
		p.D = 3
	}
	p.init()
	rng := rand.New(rand.NewPCG(9, 9))
	for m := range p.lam {
		for i := range p.lam[m] {
			p.lam[m][i] = 0.2 + 2.5*rng.Float64()
		}
	}
	p.refresh()
	return p
}

func TestGradientHessianFiniteDifferences(t *testing.T) {
	for _, sel := range []string{"features", "kernels"} {
		for _, shared := range []bool{false, true} {
			for _, rho := range []float64{1, 0.1, 1e-4} {
				for _, M := range []int{1, 3} {
					name := fmt.Sprintf("%s/shared=%v/rho=%g/M=%d", sel, shared, rho, M)
					p := newProblem(t, sel, shared, rho, M)
					grad := p.Gradient()
					const h = 1e-6
					for m := 0; m < M; m++ {
						for i := 0; i < p.T; i++ {
							jp, jm := perturbed(p, m, i, h, p.Objective)
							fd := (jp - jm) / (2 * h)
							if math.Abs(fd-grad[m][i]) > 1e-5*(1+math.Abs(fd)) {
								t.Fatalf("%s: dJ/dλ[%d][%d] = %g, finite difference %g", name, m, i, grad[m][i], fd)
							}
							// φ'' along the coordinate, at δ = 0 and δ ≠ 0.
							cs := p.coefs(m, i, nil)
							for _, delta := range []float64{0, 0.1, -0.15} {
								_, d2 := p.derivs(m, i, delta, cs)
								g1, _ := p.derivs(m, i, delta+h, cs)
								g0, _ := p.derivs(m, i, delta-h, cs)
								fd2 := (g1 - g0) / (2 * h)
								if math.Abs(fd2-d2) > 1e-4*(1+math.Abs(fd2)) {
									t.Fatalf("%s: φ''(%g) at [%d][%d] = %g, finite difference %g", name, delta, m, i, d2, fd2)
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestOptimality checks the KKT conditions of the solution and that
// feasible perturbations do not raise J.
func TestOptimality(t *testing.T) {
	for _, sel := range []string{"features", "kernels"} {
		for _, rho := range []float64{1, 1e-2} {
			p := newProblem(t, sel, true, rho, 2)
			if _, conv, err := p.solveNewton(context.Background(), 1e-9, 100000); err != nil || !conv {
				t.Fatalf("%s rho=%g: converged %v, %v", sel, rho, conv, err)
			}
			g := p.Gradient()
			for m := range g {
				for i, v := range g[m] {
					l := p.lam[m][i]
					if l < 0 || l >= p.c {
						t.Fatalf("λ = %g outside [0, c)", l)
					}
					if (l > 0 && math.Abs(v) > 1e-8) || (l == 0 && v > 1e-8) {
						t.Errorf("%s rho=%g: KKT violated at [%d][%d]: λ=%g ∂J=%g", sel, rho, m, i, l, v)
					}
				}
			}
			// Any feasible perturbation lowers J (concavity and optimality).
			J := p.Objective()
			rng := rand.New(rand.NewPCG(4, 4))
			for r := 0; r < 20; r++ {
				saved := make([][]float64, p.M)
				for m := range p.lam {
					saved[m] = append([]float64(nil), p.lam[m]...)
					for i := range p.lam[m] {
						p.lam[m][i] = math.Max(0, p.lam[m][i]+0.01*rng.NormFloat64())
					}
				}
				p.refresh()
				if p.Objective() > J+1e-10 {
					t.Errorf("%s rho=%g: perturbation raised J from %g to %g", sel, rho, J, p.Objective())
				}
				p.lam = saved
				p.refresh()
			}
		}
	}
}

func TestLogSwitchStable(t *testing.T) {
	tests := []struct{ q, rho, want float64 }{
		{0, 0.5, 0},
		{1, 1, 1},
		{2, 0.3, math.Log(0.7 + 0.3*math.Exp(2))},
		{1e4, 1e-6, 1e4 + math.Log(1e-6)},
		{800, 0.5, 800 + math.Log(0.5)},
		{1e-12, 1e-4, 1e-16},
	}
	for _, tc := range tests {
		got := logSwitch(tc.q, tc.rho)
		if math.IsInf(got, 0) || math.IsNaN(got) || math.Abs(got-tc.want) > 1e-12*(1+math.Abs(tc.want)) {
			t.Errorf("logSwitch(%g, %g) = %g, want %g", tc.q, tc.rho, got, tc.want)
		}
		if s := switchMean(tc.q, tc.rho); s < 0 || s > 1 || math.IsNaN(s) {
			t.Errorf("switchMean(%g, %g) = %g outside [0,1]", tc.q, tc.rho, s)
		}
	}
}

func fitTasks(t *testing.T, e *MED, X matrix.Matrix, Y [][]float64) *Model {
	t.Helper()
	m, err := e.FitTasks(context.Background(), X, Y, nil, &methods.Env{Memo: &methods.Memo{}})
	if err != nil {
		t.Fatal(err)
	}
	return m.(*Model)
}

func TestSharedOneTaskEqualsIndependent(t *testing.T) {
	X, Y := synth(40, 6, 2, 1, 5)
	for _, sel := range []string{"features", "kernels"} {
		base := MED{C: 5, Rho: 1e-2, Sigma2: 1, Select: sel, Kernels: mustKernels("linear", "poly:2", "rbf:1"), Normalize: true, Tol: 1e-6, MaxIter: 10000}
		a, b := base, base
		b.Shared = true
		ma, mb := fitTasks(t, &a, X, Y), fitTasks(t, &b, X, Y)
		for i := range ma.Lambda[0] {
			if ma.Lambda[0][i] != mb.Lambda[0][i] {
				t.Fatalf("%s: λ differ at %d: %g vs %g", sel, i, ma.Lambda[0][i], mb.Lambda[0][i])
			}
		}
	}
}

func mustKernels(s ...string) []kernel.Kernel {
	k, err := kernel.ParseAll("kernels", s)
	if err != nil {
		panic(err)
	}
	return k
}

func TestSwitchesInUnitInterval(t *testing.T) {
	X, Y := synth(60, 8, 2, 3, 6)
	for _, shared := range []bool{false, true} {
		e := &MED{C: 10, Rho: 1e-3, Sigma2: 1, Select: "kernels", Shared: shared, Kernels: mustKernels("poly:1", "poly:2", "rbf:1", "rbf:0.01"), Normalize: true, Tol: 1e-4, MaxIter: 5000}
		m := fitTasks(t, e, X, Y)
		want := 1
		if !shared {
			want = 3
		}
		if len(m.S) != want {
			t.Fatalf("shared=%v: %d switch vectors, want %d", shared, len(m.S), want)
		}
		for _, s := range m.S {
			for _, v := range s {
				if v < 0 || v > 1 || math.IsNaN(v) {
					t.Errorf("switch %g outside [0,1]", v)
				}
			}
		}
		arts := m.Artifacts()
		if len(arts) != 1 || arts[0].Name != "switches" || len(arts[0].Table.Values) != 4 || len(arts[0].Table.Columns) != want {
			t.Errorf("switch artifact %+v", arts)
		}
		p := m.Predict(X)
		if p.K != 3 || !p.OneVsRest || len(p.Scores) != 180 {
			t.Errorf("prediction K=%d OneVsRest=%v len=%d", p.K, p.OneVsRest, len(p.Scores))
		}
	}
}

// TestFeatureSelectionSparsifies: with a small ρ the weights of irrelevant
// inputs shrink relative to the ρ = 1 SVM.
func TestFeatureSelectionSparsifies(t *testing.T) {
	X, Y := synth(150, 20, 2, 1, 8)
	fit := func(rho float64) (ratio float64, m *Model) {
		e := &MED{C: 10, Rho: rho, Sigma2: 1, Select: "features", Tol: 1e-4, MaxIter: 100000}
		m = fitTasks(t, e, X, Y)
		if !m.info.Converged {
			t.Fatalf("rho=%g: not converged in %d sweeps", rho, m.info.Iterations)
		}
		var rel, irr float64
		for d, w := range m.W[0] {
			if d < 2 {
				rel += math.Abs(w)
			} else {
				irr += math.Abs(w)
			}
		}
		return irr / rel, m
	}
	r1, _ := fit(1)
	r4, m := fit(1e-4)
	if !(r4 < r1) {
		t.Errorf("irrelevant/relevant weight ratio %g at ρ=1e-4, %g at ρ=1: want smaller", r4, r1)
	}
	s := m.S[0]
	for d := 2; d < len(s); d++ {
		if s[d] >= math.Min(s[0], s[1]) {
			t.Errorf("switch of irrelevant input %d = %g ≥ relevant switches %g, %g", d, s[d], s[0], s[1])
		}
	}
}

// TestRhoOneMatchesSVM: at ρ = 1 with a large c, feature-selection MED is
// the SVM with the bias as a regularized input of scale σ: compare with
// svm (no bias) on X augmented by a constant column σ.
func TestRhoOneMatchesSVM(t *testing.T) {
	X, Y := synth(200, 10, 10, 1, 10)
	Xt, Yt := synth(400, 10, 10, 1, 10) // same weights (same seed), fresh rows
	_ = Yt
	const sigma2 = 4.0
	e := &MED{C: 200, Rho: 1, Sigma2: sigma2, Select: "features", Tol: 1e-6, MaxIter: 100000}
	m := fitTasks(t, e, X, Y)
	aug := func(A *matrix.Dense) *matrix.Dense {
		r, c := A.Dims()
		out := matrix.NewDense(r, c+1, nil)
		for i := 0; i < r; i++ {
			copy(out.RawRow(i), A.RawRow(i))
			out.Set(i, c, math.Sqrt(sigma2))
		}
		return out
	}
	s := &svm.SVM{C: 200, Kernel: kernel.Kernel{}, Bias: false, Tol: 1e-6, MaxIter: 1e8}
	sm, err := s.FitBinary(context.Background(), aug(X), Y[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	// Weights: cosine similarity.
	var dot, na, nb float64
	for d := 0; d < 10; d++ {
		dot += m.W[0][d] * sm.W[d]
		na += m.W[0][d] * m.W[0][d]
		nb += sm.W[d] * sm.W[d]
	}
	if cos := dot / math.Sqrt(na*nb); cos < 0.99 {
		t.Errorf("cosine(w_med, w_svm) = %g", cos)
	}
	fm := m.Decision(Xt)
	fs := sm.Decision(aug(Xt))
	agree := 0
	for i := range fs {
		if (fm[i][0] > 0) == (fs[i] > 0) {
			agree++
		}
	}
	if agree < 390 {
		t.Errorf("decisions agree on %d/400 test rows", agree)
	}
}

func TestFitDeterministicAndArtifacts(t *testing.T) {
	X, Y := synth(50, 6, 2, 1, 11)
	lab := make([]float64, 50)
	for i, v := range Y[0] {
		if v > 0 {
			lab[i] = 1
		}
	}
	ds := &datasets.Dataset{Name: "s", X: X, Y: lab, Classes: []string{"neg", "pos"}}
	meth, err := methods.New("med", map[string]any{"c": 10.0, "rho": 1e-3, "sigma2": 1.0, "select": "features", "tasks": "independent",
		"kernels": []string{"linear"}, "normalize": true, "tol": 1e-4, "max_iter": 100000, "solver": "newton", "bias": "gaussian", "cache_mb": 200.0})
	if err != nil {
		t.Fatal(err)
	}
	var prev []float64
	for r := 0; r < 2; r++ {
		mod, err := meth.Fit(context.Background(), ds, &methods.Env{})
		if err != nil {
			t.Fatal(err)
		}
		p := mod.Predict(X)
		if p.K != 2 || p.OneVsRest {
			t.Fatalf("binary prediction K=%d", p.K)
		}
		if prev != nil {
			for i := range prev {
				if prev[i] != p.Scores[i] {
					t.Fatal("fits differ")
				}
			}
		}
		prev = p.Scores
		arts := mod.(methods.Artifacter).Artifacts()
		if len(arts) != 2 || arts[0].Table == nil || len(arts[0].Table.Rows) != 6 || arts[1].Plot == nil || len(arts[1].Plot.Series[0].Y) != 6 {
			t.Fatalf("artifacts %+v", arts)
		}
		if in := mod.(methods.Informer).Info(); !in.Converged || in.Iterations < 1 {
			t.Errorf("info %+v", in)
		}
	}
}

func ExampleMED_FitTasks() {
	X := matrix.NewDense(4, 2, []float64{-2, 5, -1, -5, 1, 5, 2, -5})
	e := &MED{C: 10, Rho: 1, Sigma2: 1, Select: "features", Tol: 1e-8, MaxIter: 1000}
	m, _ := e.FitTasks(context.Background(), X, [][]float64{{-1, -1, 1, 1}}, nil, nil)
	p := m.Predict(X)
	fmt.Println(p.K, p.OneVsRest, p.Scores[0] < 0, p.Scores[3] > 0)
	// Output: 1 true true true
}

// perturbed returns f evaluated with λ[m][i] moved by +h and by −h (the
// problem's cached state refreshed each time), and restores λ[m][i]: the two
// sides of a central finite difference.
func perturbed[T any](p *problem, m, i int, h float64, f func() T) (plus, minus T) {
	old := p.lam[m][i]
	p.lam[m][i] = old + h
	p.refresh()
	plus = f()
	p.lam[m][i] = old - h
	p.refresh()
	minus = f()
	p.lam[m][i] = old
	p.refresh()
	return plus, minus
}

// TestValidate checks that every bad value of a grid point is reported at
// its own parameter (and list element) before anything runs: the issue's
// rho: [0.5, 0] and kernels: [[linear], ["rbf:oops"]] among them.
func TestValidate(t *testing.T) {
	kernels := func(specs ...any) map[string]any { return map[string]any{"kernels": specs} }
	plugintest.Run(t, "med", []plugintest.Case{
		{Name: "defaults"},
		{Name: "rho 1", Set: map[string]any{"rho": 1}},
		{Name: "rho 0.5", Set: map[string]any{"rho": 0.5}},
		{Name: "rho 0", Set: map[string]any{"rho": 0}, Want: []string{"rho"}, Msg: "0 is out of range; want float in (0, 1]"},
		{Name: "rho above 1", Set: map[string]any{"rho": 1.5}, Want: []string{"rho"}, Msg: "out of range"},
		{Name: "good kernels", Set: kernels("linear", "rbf:0.5", "poly:3", "RBF:2")},
		{Name: "rbf:oops", Set: kernels("rbf:oops"), Want: []string{"kernels[0]"},
			Msg: `kernel "rbf:oops": width "oops" is not a finite number > 0; want rbf:σ`},
		{Name: "second of two", Set: kernels("linear", "rbf:oops"), Want: []string{"kernels[1]"}, Msg: "rbf:oops"},
		{Name: "three bad", Set: kernels("rbf:abc", "poly:-2", "banana"), Want: []string{"kernels[0]", "kernels[1]", "kernels[2]"}},
		{Name: "poly order", Set: kernels("poly:1.5"), Want: []string{"kernels[0]"}, Msg: "not an integer ≥ 1; want poly:p"},
		{Name: "rbf zero", Set: kernels("rbf:0"), Want: []string{"kernels[0]"}, Msg: "want rbf:σ with a width σ > 0"},
		{Name: "rbf infinite", Set: kernels("rbf:inf"), Want: []string{"kernels[0]"}, Msg: "want rbf:σ"},
		{Name: "linear argument", Set: kernels("linear:2"), Want: []string{"kernels[0]"}, Msg: "linear takes no argument"},
		{Name: "unknown", Set: kernels("banana"), Want: []string{"kernels[0]"}, Msg: "unknown kernel; want linear, poly:p or rbf:σ"},
		{Name: "empty list", Set: kernels(), Want: []string{"kernels"}, Msg: "empty list; want at least one kernel"},
		{Name: "kernels checked whatever select is", Set: map[string]any{"select": "features", "kernels": []any{"rbf:x"}}, Want: []string{"kernels[0]"}},
		{Name: "declarations first", Set: map[string]any{"rho": 0, "select": "all", "kernels": []any{"rbf:x"}}, Want: []string{"rho", "select"}},
	})
}

// TestFitMultiClass checks that Fit on three classes trains their
// one-vs-rest tasks as FitTasks does (what tasks: one-vs-rest on the
// dataset gives), and predicts the class of most rows right.
func TestFitMultiClass(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	n := 90
	X := matrix.NewDense(n, 2, nil)
	y := make([]float64, n)
	centers := [][2]float64{{0, 0}, {4, 0}, {0, 4}}
	for i := 0; i < n; i++ {
		c := i % 3
		y[i] = float64(c)
		X.Set(i, 0, centers[c][0]+rng.NormFloat64())
		X.Set(i, 1, centers[c][1]+rng.NormFloat64())
	}
	ds := &datasets.Dataset{Name: "three", X: X, Y: y, Classes: []string{"a", "b", "c"}}
	e := &MED{C: 10, Rho: 1, Sigma2: 1, Select: "features", Tol: 1e-6, MaxIter: 100000}
	m, err := e.Fit(context.Background(), ds, &methods.Env{Memo: &methods.Memo{}})
	if err != nil {
		t.Fatal(err)
	}
	Y := make([][]float64, 3)
	for c := range Y {
		Y[c] = make([]float64, n)
		for i := range Y[c] {
			Y[c][i] = -1
			if int(y[i]) == c {
				Y[c][i] = 1
			}
		}
	}
	want := fitTasks(t, e, X, Y).Predict(X)
	p := m.Predict(X)
	if p.K != 3 || !p.OneVsRest {
		t.Fatalf("K=%d OneVsRest=%v; want 3 one-vs-rest scores", p.K, p.OneVsRest)
	}
	correct := 0
	for i := 0; i < n; i++ {
		for c := 0; c < 3; c++ {
			if p.Score(i, c) != want.Score(i, c) {
				t.Fatalf("row %d class %d: score %v, FitTasks %v", i, c, p.Score(i, c), want.Score(i, c))
			}
		}
		if p.Label(i) == int(y[i]) {
			correct++
		}
	}
	if correct < 80 {
		t.Errorf("training accuracy %d/%d on three separated blobs", correct, n)
	}
	if _, err := e.Fit(context.Background(), &datasets.Dataset{Name: "one", X: X, Y: make([]float64, n), Classes: []string{"a"}}, nil); err == nil {
		t.Error("no error on one class")
	}
}
