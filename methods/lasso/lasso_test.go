package lasso

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/lsq"
	"github.com/repro-ml/repro/param"
	"gonum.org/v1/gonum/mat"
)

// randomProblem returns an n×d design with correlated columns of varied
// scale and offset, and a sparse linear target plus noise.
func randomProblem(seed uint64, n, d int) (*matrix.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	X := matrix.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		common := rng.NormFloat64()
		for j := 0; j < d; j++ {
			X.Set(i, j, float64(j+1)*(rng.NormFloat64()+0.5*common)+float64(j))
		}
	}
	w := make([]float64, d)
	for j := 0; j < d; j += 3 {
		w[j] = rng.NormFloat64() * 2
	}
	for i := range y {
		y[i] = 3 + X.RowDot(i, w) + rng.NormFloat64()
	}
	return X, y
}

func dataset(X *matrix.Dense, y []float64, groups ...datasets.Group) *datasets.Dataset {
	return &datasets.Dataset{Name: "synthetic", X: X, Y: y, Groups: groups}
}

func TestLassoOrthogonalSoftThreshold(t *testing.T) {
	// Columns orthogonal with XᵀX = nI, no centring or scaling: the lasso
	// solution is β_j = S(x_jᵀy/n, λ).
	n, d := 64, 6
	rng := rand.New(rand.NewPCG(1, 2))
	a := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	X := matrix.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			X.Set(i, j, q.At(i, j)*math.Sqrt(float64(n)))
		}
	}
	y := make([]float64, n)
	for i := range y {
		y[i] = 2*X.At(i, 0) - 0.5*X.At(i, 1) + 0.05*X.At(i, 2) + rng.NormFloat64()
	}
	ds, err := lsq.NewDesign(X, y, false, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, lambda := range []float64{0, 0.01, 0.1, 0.4, 1, 5} {
		sol, err := SolveLasso(context.Background(), ds, Path(LambdaMax(ds), lambda, 10), nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < d; j++ {
			c := ds.XtY[j] / float64(n)
			want := math.Copysign(math.Max(math.Abs(c)-lambda, 0), c)
			if math.Abs(sol.Beta[j]-want) > 1e-10 {
				t.Errorf("λ=%g β_%d = %.12g, want soft threshold %.12g", lambda, j, sol.Beta[j], want)
			}
		}
	}
}

func TestLassoKKT(t *testing.T) {
	cases := []struct {
		n, d        int
		frac        float64 // λ as a fraction of λ_max
		standardize bool
	}{
		{50, 8, 0.5, true},
		{50, 8, 0.01, true},
		{200, 10, 0.05, false},
		{30, 60, 0.1, true}, // d > n
		{30, 60, 0.01, true},
	}
	for i, c := range cases {
		X, y := randomProblem(uint64(i+10), c.n, c.d)
		ds, err := lsq.NewDesign(X, y, c.standardize, true)
		if err != nil {
			t.Fatal(err)
		}
		lambda := c.frac * LambdaMax(ds)
		sol, err := SolveLasso(context.Background(), ds, Path(LambdaMax(ds), lambda, 20), nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !sol.Converged {
			t.Errorf("case %d: not converged", i)
		}
		// Violation relative to λ (the gradient's scale at the solution).
		if v := LassoKKT(ds, sol.Beta, lambda); v > 1e-6*lambda {
			t.Errorf("case %d: KKT violation %.3g (λ=%.3g)", i, v, lambda)
		}
		// Cold start reaches the same objective.
		cold, _ := SolveLasso(context.Background(), ds, []float64{lambda}, nil, Options{})
		if math.Abs(cold.Objective-sol.Objective) > 1e-9*sol.Objective {
			t.Errorf("case %d: path objective %.12g, cold start %.12g", i, sol.Objective, cold.Objective)
		}
	}
}

func TestGroupLassoKKT(t *testing.T) {
	cases := []struct {
		name   string
		n, d   int
		groups [][]int
		frac   float64
	}{
		{"pairs", 60, 8, [][]int{{0, 1}, {2, 3}, {4, 5}, {6, 7}}, 0.3},
		{"uneven", 60, 10, [][]int{{0, 1, 2}, {3}, {4, 5, 6, 7}, {8, 9}}, 0.1},
		{"uneven-small-lambda", 60, 10, [][]int{{0, 1, 2}, {3}, {4, 5, 6, 7}, {8, 9}}, 0.005},
		{"one-group", 40, 5, [][]int{{0, 1, 2, 3, 4}}, 0.2},
		{"wide", 25, 40, blocksOf(40, 5), 0.05},
	}
	for i, c := range cases {
		X, y := randomProblem(uint64(i+20), c.n, c.d)
		ds, err := lsq.NewDesign(X, y, true, true)
		if err != nil {
			t.Fatal(err)
		}
		lmax := GroupLambdaMax(ds, c.groups)
		lambda := c.frac * lmax
		sol, err := SolveGroupLasso(context.Background(), ds, c.groups, Path(lmax, lambda, 20), nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if v := GroupKKT(ds, c.groups, sol.Beta, lambda); v > 1e-6*lambda {
			t.Errorf("%s: KKT violation %.3g (λ=%.3g)", c.name, v, lambda)
		}
		// At λ_max the solution is exactly zero.
		zero, _ := SolveGroupLasso(context.Background(), ds, c.groups, []float64{lmax * (1 + 1e-12)}, nil, Options{})
		for j, b := range zero.Beta {
			if b != 0 {
				t.Errorf("%s: β_%d = %g at λ_max", c.name, j, b)
			}
		}
	}
}

func blocksOf(d, size int) [][]int {
	var out [][]int
	for j := 0; j < d; j += size {
		var g []int
		for k := j; k < min(d, j+size); k++ {
			g = append(g, k)
		}
		out = append(out, g)
	}
	return out
}

func TestGroupLassoSingletonsIsLasso(t *testing.T) {
	X, y := randomProblem(3, 80, 7)
	ds, _ := lsq.NewDesign(X, y, true, true)
	lambda := 0.05 * LambdaMax(ds)
	single := blocksOf(7, 1)
	g, _ := SolveGroupLasso(context.Background(), ds, single, Path(LambdaMax(ds), lambda, 20), nil, Options{})
	l, _ := SolveLasso(context.Background(), ds, Path(LambdaMax(ds), lambda, 20), nil, Options{})
	for j := range g.Beta {
		if math.Abs(g.Beta[j]-l.Beta[j]) > 1e-8 {
			t.Errorf("β_%d: group-lasso %.10g, lasso %.10g", j, g.Beta[j], l.Beta[j])
		}
	}
}

func TestLassoZeroPenaltyIsOLS(t *testing.T) {
	X, y := randomProblem(4, 100, 5)
	// OLS with intercept by normal equations on [1 X].
	a := mat.NewDense(100, 6, nil)
	for i := 0; i < 100; i++ {
		a.Set(i, 0, 1)
		for j := 0; j < 5; j++ {
			a.Set(i, j+1, X.At(i, j))
		}
	}
	var w mat.VecDense
	if err := w.SolveVec(a, mat.NewVecDense(100, y)); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"lasso", "group-lasso"} {
		p := param.Defaults(mustLookup(t, name).Params)
		p["lambda"] = 0.0
		p["path"] = 1
		meth, err := methods.New(name, p)
		if err != nil {
			t.Fatal(err)
		}
		model, err := meth.Fit(context.Background(), dataset(X, y, datasets.Group{Name: "g", Columns: []int{1, 2}}), &methods.Env{})
		if err != nil {
			t.Fatal(err)
		}
		beta, b, ok := lsq.Coef(model)
		if !ok {
			t.Fatal("Coef: not a linear model")
		}
		if math.Abs(b-w.AtVec(0)) > 1e-6 {
			t.Errorf("%s: intercept %.10g, OLS %.10g", name, b, w.AtVec(0))
		}
		for j := range beta {
			if math.Abs(beta[j]-w.AtVec(j+1)) > 1e-7 {
				t.Errorf("%s: β_%d = %.10g, OLS %.10g", name, j, beta[j], w.AtVec(j+1))
			}
		}
	}
}

func mustLookup(t *testing.T, name string) *methods.Plugin {
	t.Helper()
	p, err := methods.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPluginFitPredictDeterministic(t *testing.T) {
	X, y := randomProblem(5, 120, 6)
	train := dataset(X, y, datasets.Group{Name: "ab", Columns: []int{0, 1}}, datasets.Group{Name: "cde", Columns: []int{2, 3, 4}})
	train.Features = []string{"a", "b", "c", "d", "e", "f"}
	for _, name := range []string{"lasso", "group-lasso"} {
		p := param.Defaults(mustLookup(t, name).Params)
		p["lambda"] = 0.05
		meth, _ := methods.New(name, p)
		var preds [][]float64
		for rep := 0; rep < 2; rep++ {
			model, err := meth.Fit(context.Background(), train, &methods.Env{Seed: uint64(rep), Memo: &methods.Memo{}})
			if err != nil {
				t.Fatal(err)
			}
			pred := model.Predict(X)
			preds = append(preds, pred.Values)
			// Predictions on the original scale equal the standardized fit.
			ds, _ := lsq.NewDesign(X, y, true, true)
			info := model.(methods.Informer).Info()
			if !info.Converged {
				t.Errorf("%s: not converged", name)
			}
			arts := model.(methods.Artifacter).Artifacts()
			tab := arts[0].Table
			if arts[0].Name != "coefficients" || len(tab.Rows) != 7 || tab.Rows[0] != "ab/a" || tab.Rows[5] != "f" {
				t.Errorf("%s: coefficient table rows %v", name, tab.Rows)
			}
			std := make([]float64, 6)
			for j := range std {
				std[j] = tab.Values[j][1]
			}
			fit := make([]float64, 120)
			for i := range fit {
				s := ds.YMean
				for j := 0; j < 6; j++ {
					s += (X.At(i, j) - ds.Mean[j]) / ds.Scale[j] * std[j]
				}
				fit[i] = s
				if math.Abs(fit[i]-pred.Values[i]) > 1e-9*(1+math.Abs(fit[i])) {
					t.Fatalf("%s: row %d: prediction %.12g, standardized fit %.12g", name, i, pred.Values[i], fit[i])
				}
			}
		}
		for i := range preds[0] {
			if preds[0][i] != preds[1][i] {
				t.Fatalf("%s: fits differ at row %d", name, i)
			}
		}
	}
}

func TestClassificationRejected(t *testing.T) {
	X, y := randomProblem(6, 10, 2)
	for i := range y {
		y[i] = float64(i % 2)
	}
	d := dataset(X, y)
	d.Classes = []string{"a", "b"}
	meth, _ := methods.New("lasso", param.Defaults(mustLookup(t, "lasso").Params))
	if _, err := meth.Fit(context.Background(), d, &methods.Env{}); err == nil {
		t.Error("lasso fitted a classification dataset")
	}
}

// ExampleSolveLasso fits the lasso on an orthogonal design, where the
// solution is the soft-thresholded least-squares coefficient.
func ExampleSolveLasso() {
	// Two orthogonal columns with XᵀX = 4I.
	X := matrix.NewDense(4, 2, []float64{1, 1, 1, -1, -1, 1, -1, -1})
	y := []float64{3, 1, -1, -3} // y = 2·x₁ + 1·x₂
	ds, _ := lsq.NewDesign(X, y, false, false)
	sol, _ := SolveLasso(context.Background(), ds, []float64{0.5}, nil, Options{})
	fmt.Printf("%.3f %.3f\n", sol.Beta[0], sol.Beta[1])
	// Output: 1.500 0.500
}
