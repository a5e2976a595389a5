package elasticnet

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/internal/datatest"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	_ "github.com/repro-ml/repro/methods/linear"
	"github.com/repro-ml/repro/param"
)

// synth returns n rows of d features, a fraction zero of them zero, in K
// classes whose means differ in the first few features; the features have
// different scales and offsets so that standardization matters.
func synth(seed uint64, n, d, K int, zero float64) *datasets.Dataset {
	rng := rand.New(rand.NewPCG(seed, 11))
	means := make([][]float64, K)
	for k := range means {
		means[k] = make([]float64, d)
		for j := 0; j < min(d, 6); j++ {
			means[k][j] = rng.NormFloat64()
		}
	}
	X := matrix.NewDense(n, d, nil)
	y := make([]float64, n)
	classes := make([]string, K)
	for k := range classes {
		classes[k] = fmt.Sprint(k)
	}
	for i := 0; i < n; i++ {
		k := i % K
		if rng.Float64() < 0.15 {
			k = rng.IntN(K) // label noise: no separation
		}
		y[i] = float64(k)
		row := X.RawRow(i)
		for j := range row {
			if rng.Float64() < zero {
				continue
			}
			row[j] = (means[k][j] + rng.NormFloat64()) * float64(1+j%3)
		}
	}
	return &datasets.Dataset{Name: "synth", X: X, Y: y, Classes: classes}
}

func sparse(d *datasets.Dataset) *datasets.Dataset {
	out := *d
	out.X = matrix.ToCSR(d.X)
	return &out
}

func labels(d *datasets.Dataset) []int {
	y := make([]int, len(d.Y))
	for i, v := range d.Y {
		y[i] = int(v)
	}
	return y
}

func problem(t testing.TB, d *datasets.Dataset, opt Options) *Problem {
	t.Helper()
	p, err := NewProblem(d.X, labels(d), len(d.Classes), opt)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestKKT checks the optimality conditions along glmnet's path at several
// α, on dense and sparse data, binomial and multinomial, with and without
// standardization and intercept.
func TestKKT(t *testing.T) {
	for _, tc := range []struct {
		K         int
		zero      float64
		std, intc bool
	}{
		{2, 0, true, true},
		{2, 0.7, true, true},
		{2, 0.7, false, false},
		{4, 0, true, true},
		{4, 0.7, true, true},
		{3, 0.5, false, true},
	} {
		base := synth(1, 150, 30, tc.K, tc.zero)
		for _, alpha := range []float64{1, 0.5, 0.05, 0} {
			for _, ds := range []*datasets.Dataset{base, sparse(base)} {
				name := fmt.Sprintf("K=%d/zero=%g/std=%t/int=%t/alpha=%g/%T", tc.K, tc.zero, tc.std, tc.intc, alpha, ds.X)
				p := problem(t, ds, Options{Alpha: alpha, Standardize: tc.std, Intercept: tc.intc, Tol: 1e-14})
				fits, err := p.Path(context.Background(), p.Sequence(30, 0.005))
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range fits {
					if v := p.KKT(f); v > 1e-6 || !f.Converged {
						t.Errorf("%s: λ=%.4g: KKT violation %.2g, converged %t", name, f.Lambda, v, f.Converged)
					}
				}
				// At λ_max every coefficient is zero (for α ≥ 1e-3), up to
				// rounding in the column that defines λ_max.
				if alpha > 0 {
					for _, b := range fits[0].Beta {
						if slices.ContainsFunc(b, func(v float64) bool { return math.Abs(v) > 1e-12 }) {
							t.Errorf("%s: non-zero coefficients at λ_max", name)
						}
					}
				}
			}
		}
	}
}

// TestDenseSparseSame checks that a dense matrix and its CSR copy give the
// same path.
func TestDenseSparseSame(t *testing.T) {
	base := synth(2, 120, 25, 3, 0.6)
	opt := Options{Alpha: 0.7, Standardize: true, Intercept: true, Tol: 1e-12}
	p1, p2 := problem(t, base, opt), problem(t, sparse(base), opt)
	f1, err1 := p1.Path(context.Background(), p1.Sequence(20, 0.01))
	f2, err2 := p2.Path(context.Background(), p2.Sequence(20, 0.01))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	for i := range f1 {
		for k := range f1[i].Beta {
			if !slices.Equal(f1[i].Beta[k], f2[i].Beta[k]) {
				t.Fatalf("λ=%g class %d: dense and sparse coefficients differ", f1[i].Lambda, k)
			}
		}
	}
}

// coefficients recovers the decision functions of a linear model from its
// scores on probe rows: the zero row gives the intercepts, unit rows the
// coefficients. For two classes it returns the decision value of class 1.
func coefficients(t *testing.T, m methods.Model, d, K int) (W [][]float64, b []float64) {
	t.Helper()
	X := matrix.NewDense(d+1, d, nil)
	for j := 0; j < d; j++ {
		X.Set(j+1, j, 1)
	}
	s := m.Predict(X).Scores
	rows := K
	if K == 2 {
		rows = 1
	}
	W, b = make([][]float64, rows), make([]float64, rows)
	for k := range W {
		c := k
		if K == 2 {
			c = 1
		}
		b[k] = s[c]
		W[k] = make([]float64, d)
		for j := range W[k] {
			W[k][j] = s[(j+1)*K+c] - b[k]
		}
	}
	return W, b
}

// centre subtracts the mean of b (intercepts of a multinomial model are
// identified up to a common shift).
func centre(b []float64) []float64 {
	if len(b) < 2 {
		return b
	}
	m := 0.0
	for _, v := range b {
		m += v / float64(len(b))
	}
	out := make([]float64, len(b))
	for i, v := range b {
		out[i] = v - m
	}
	return out
}

func maxDiff(W1, W2 [][]float64, b1, b2 []float64) float64 {
	diff := 0.0
	for k := range W1 {
		for j := range W1[k] {
			diff = math.Max(diff, math.Abs(W1[k][j]-W2[k][j]))
		}
	}
	c1, c2 := centre(b1), centre(b2)
	for k := range c1 {
		diff = math.Max(diff, math.Abs(c1[k]-c2[k]))
	}
	return diff
}

func fitPlugin(t *testing.T, name string, over map[string]any, train *datasets.Dataset, env *methods.Env) methods.Model {
	t.Helper()
	pl, err := methods.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	v := datatest.Values(t, name, pl.Params, over)
	if pl.Validate != nil {
		if err := pl.Validate(v); err != nil {
			t.Fatal(err)
		}
	}
	m, err := methods.New(name, v)
	if err != nil {
		t.Fatal(err)
	}
	model, err := m.Fit(context.Background(), train, env)
	if err != nil {
		t.Fatalf("%s %v: %v", name, over, err)
	}
	return model
}

// TestMatchesLiblinearScaled checks the mapping C = 1/(nλ) to the
// liblinear-scaled plugins: at α = 1 logreg-en is logreg-l1 (binary), at
// α = 0 it is logreg-l2 (binary, and multinomial against softmax), and
// at α = 1e-4 close to it.
func TestMatchesLiblinearScaled(t *testing.T) {
	for _, tc := range []struct {
		other  string
		K      int
		alpha  float64
		lambda float64
		over   map[string]any
		tol    float64
	}{
		{"logreg-l1", 2, 1, 0.05, map[string]any{"tol": 1e-10}, 1e-6},
		{"logreg-l1", 2, 1, 0.01, map[string]any{"tol": 1e-10}, 1e-6},
		{"logreg-l2", 2, 0, 0.05, map[string]any{"tol": 1e-12, "max_iter": 10000}, 1e-6},
		{"logreg-l2", 3, 0, 0.02, map[string]any{"tol": 1e-12, "max_iter": 10000, "multiclass": "softmax"}, 1e-6},
		{"logreg-l2", 3, 1e-4, 0.02, map[string]any{"tol": 1e-12, "max_iter": 10000, "multiclass": "softmax"}, 1e-3},
	} {
		for _, zero := range []float64{0, 0.6} {
			train := synth(3, 200, 15, tc.K, zero)
			if zero > 0 {
				train = sparse(train)
			}
			n := float64(train.Rows())
			over := map[string]any{"C": 1 / (n * tc.lambda)}
			for k, v := range tc.over {
				over[k] = v
			}
			other := fitPlugin(t, tc.other, over, train, &methods.Env{})
			en := fitPlugin(t, "logreg-en", map[string]any{"alpha": tc.alpha, "lambda": tc.lambda, "standardize": false, "tol": 1e-14}, train, &methods.Env{})
			W1, b1 := coefficients(t, other, train.Cols(), tc.K)
			W2, b2 := coefficients(t, en, train.Cols(), tc.K)
			if d := maxDiff(W1, W2, b1, b2); d > tc.tol {
				t.Errorf("%s K=%d α=%g λ=%g zero=%g: coefficients differ by %.2g (limit %g)", tc.other, tc.K, tc.alpha, tc.lambda, zero, d, tc.tol)
			}
		}
	}
}

// TestGridOrder checks that fits sharing a memo give the same models
// whatever order the grid's λ are fitted in, and the same as without a
// memo; and that a λ of the path itself is reused.
func TestGridOrder(t *testing.T) {
	train := sparse(synth(4, 150, 40, 3, 0.5))
	grid := []float64{0.1, 0.03, 0.01, 0.003}
	fitAll := func(order []int, memo *methods.Memo) map[float64][]float64 {
		out := map[float64][]float64{}
		for _, g := range order {
			m := fitPlugin(t, "logreg-en", map[string]any{"alpha": 0.5, "lambda": grid[g]}, train, &methods.Env{Memo: memo})
			out[grid[g]] = m.Predict(train.X).Scores
		}
		return out
	}
	a := fitAll([]int{0, 1, 2, 3}, &methods.Memo{})
	b := fitAll([]int{3, 1, 0, 2}, &methods.Memo{})
	c := fitAll([]int{2, 0, 3, 1}, nil)
	for _, l := range grid {
		if !slices.Equal(a[l], b[l]) || !slices.Equal(a[l], c[l]) {
			t.Errorf("λ=%g: scores depend on the order of the grid or on the memo", l)
		}
	}
}

// TestDefaultLambda checks that lambda 0 predicts with the end of the path
// and that a user path is followed.
func TestDefaultLambda(t *testing.T) {
	train := synth(5, 100, 10, 2, 0)
	p := problem(t, train, Options{Alpha: 1, Standardize: true, Intercept: true})
	seq := p.Sequence(100, 0)
	a := fitPlugin(t, "logreg-en", nil, train, nil)
	b := fitPlugin(t, "logreg-en", map[string]any{"lambda": seq[99]}, train, nil)
	if !slices.Equal(a.Predict(train.X).Scores, b.Predict(train.X).Scores) {
		t.Error("lambda 0 is not the last λ of the path")
	}
	c := fitPlugin(t, "logreg-en", map[string]any{"lambdas": []any{0.1, 0.05, 0.02}}, train, nil)
	d := fitPlugin(t, "logreg-en", map[string]any{"lambdas": []any{0.1, 0.05, 0.02}, "lambda": 0.02}, train, nil)
	if !slices.Equal(c.Predict(train.X).Scores, d.Predict(train.X).Scores) {
		t.Error("lambda 0 with lambdas is not the last λ of the list")
	}
}

// TestAbsentClasses checks predictions when the training sample lacks
// some classes.
func TestAbsentClasses(t *testing.T) {
	train := synth(6, 90, 8, 3, 0)
	train.Classes = []string{"a", "b", "c", "d", "e"} // 3 and 4 absent
	m := fitPlugin(t, "logreg-en", map[string]any{"lambda": 0.01}, train, nil)
	pr := m.Predict(train.X)
	for i := 0; i < train.Rows(); i++ {
		if l := pr.Label(i); l > 2 {
			t.Fatalf("row %d predicted absent class %d", i, l)
		}
	}
	two := synth(6, 90, 8, 2, 0)
	two.Classes = []string{"a", "b", "c"}
	pr = fitPlugin(t, "logreg-en", map[string]any{"lambda": 0.01}, two, nil).Predict(two.X)
	acc := 0
	for i := 0; i < two.Rows(); i++ {
		if pr.Label(i) == int(two.Y[i]) {
			acc++
		}
	}
	if acc < two.Rows()/2 {
		t.Errorf("binomial within 3 classes: %d of %d right", acc, two.Rows())
	}
	one := synth(6, 10, 3, 2, 0)
	for i := range one.Y {
		one.Y[i] = 1
	}
	pr = fitPlugin(t, "logreg-en", nil, one, nil).Predict(one.X)
	if pr.Label(0) != 1 {
		t.Error("one-class training set does not predict its class")
	}
}

// TestCancel checks that a cancelled context stops the fit.
func TestCancel(t *testing.T) {
	train := sparse(synth(7, 300, 200, 4, 0.8))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, err := methods.New("logreg-en", param.Defaults(param.Of[Params]().Params))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Fit(ctx, train, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Fit with a cancelled context: %v, want context.Canceled", err)
	}
}

// TestValidate checks the checks of a user λ path.
func TestValidate(t *testing.T) {
	pl, _ := methods.Lookup("logreg-en")
	for _, tc := range []struct {
		lambdas []float64
		bad     int
	}{
		{nil, 0},
		{[]float64{1, 0.5, 0.1}, 0},
		{[]float64{1, 1, 0.1}, 1},
		{[]float64{0.1, 0.5, -1}, 2},
	} {
		v := param.Defaults(param.Of[Params]().Params)
		v["lambdas"] = tc.lambdas
		err := pl.Validate(v)
		var n int
		if err != nil {
			n = len(err.(interface{ Unwrap() []error }).Unwrap())
			var ie *param.InvalidError
			if !errors.As(err, &ie) {
				t.Errorf("%v: %v is not a *param.InvalidError", tc.lambdas, err)
			}
		}
		if n != tc.bad {
			t.Errorf("%v: %d errors (%v), want %d", tc.lambdas, n, err, tc.bad)
		}
	}
}

func TestPenaltyCentre(t *testing.T) {
	for _, a := range [][]float64{{1, 2, 3, 10}, {0, 0, 0, 5}, {-1, 4}, {2, 2, 2}, {0.3, -0.2, 0.9, 0, 0}} {
		for _, alpha := range []float64{0, 0.2, 0.5, 0.9, 1} {
			s := penaltyCentre(a, alpha, nil)
			f := func(s float64) float64 {
				v := 0.0
				for _, x := range a {
					v += alpha*math.Abs(x-s) + (1-alpha)/2*(x-s)*(x-s)
				}
				return v
			}
			for _, e := range []float64{-1e-3, 1e-3} {
				if f(s+e) < f(s)-1e-12 {
					t.Errorf("%v α=%g: s=%g is not the minimum (f(s%+g) smaller)", a, alpha, s, e)
				}
			}
		}
	}
}

// TestPathKeepsLittle checks the path's memory bound, on which the
// estimate (memory) relies: with dense solutions (α small) every asked
// point holds about K·d coefficients, so the path drops the least recently
// used ones to stay within K·d, and a dropped point asked again is
// replayed bit for bit: the fits equal those of a fresh path.
func TestPathKeepsLittle(t *testing.T) {
	train := synth(6, 120, 30, 3, 0)
	p := problem(t, train, Options{Alpha: 0.05, Standardize: true, Intercept: true})
	grid := []float64{0.3, 0.1, 0.03, 0.01, 0.003}
	pa := newPath(p, glmnetSeq(p, 30, 0))
	asks := []int{0, 1, 2, 3, 4, 1, 4, 0, 2, 3}
	for _, g := range asks {
		got, err := pa.At(context.Background(), grid[g])
		if err != nil {
			t.Fatal(err)
		}
		if pa.size > pa.budget() && len(pa.kept) > 1 {
			t.Fatalf("after λ=%g the path keeps %d coefficients in %d points, over its budget %d", grid[g], pa.size, len(pa.kept), pa.budget())
		}
		fresh, err := newPath(p, glmnetSeq(p, 30, 0)).At(context.Background(), grid[g])
		if err != nil {
			t.Fatal(err)
		}
		for k := range got.Beta {
			if !slices.Equal(got.Beta[k], fresh.Beta[k]) || got.Intercept[k] != fresh.Intercept[k] {
				t.Fatalf("λ=%g: the fit differs from a fresh path's", grid[g])
			}
		}
	}
	if len(pa.kept) >= len(grid) {
		t.Errorf("the path kept %d points of dense solutions; want fewer than the %d asked", len(pa.kept), len(grid))
	}
}

// TestUpdateSum checks the multinomial's running Σₖ exp(ηᵢₖ − lseᵢ) after
// one class's linear predictors move: small moves update it in place,
// a move that takes most of a row's mass away recomputes the row, and
// either way lseᵢ + log ssumᵢ is the row's log-sum-exp.
func TestUpdateSum(t *testing.T) {
	for _, tc := range []struct {
		name      string
		shift     float64 // added to class 1's η in every row
		recompute bool    // every row recomputed (ssum reset to 1)
	}{
		{"small", 0.3, false},
		{"rise", 40, false},
		{"fall by 40 %", -0.5, false},
		{"fall by 60 %", -0.92, true},
		{"fall", -60, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n, K, k = 5, 4, 1
			p := &Problem{n: n, K: K}
			st := &state{eta: make([]float64, K*n)}
			for c := 0; c < K; c++ {
				for i := 0; i < n; i++ {
					st.eta[c*n+i] = float64(i) * 0.5
					if c == k {
						st.eta[c*n+i] += 8 // class k holds most of each row's mass
					}
				}
			}
			w := p.newWork()
			p.logSumExp(st, w.lse)
			for i := range w.ssum {
				w.ssum[i] = 1
				w.ek[i] = math.Exp(st.eta[k*n+i] - w.lse[i])
			}
			for i := 0; i < n; i++ {
				st.eta[k*n+i] += tc.shift
			}
			p.updateSum(st, k, w)
			want := make([]float64, n)
			p.logSumExp(st, want)
			for i := range want {
				if got := w.lse[i] + math.Log(w.ssum[i]); math.Abs(got-want[i]) > 1e-15*math.Max(1, math.Abs(want[i])) {
					t.Errorf("row %d: lse + log ssum = %.17g, want %.17g", i, got, want[i])
				}
				if reset := w.ssum[i] == 1; reset != tc.recompute {
					t.Errorf("row %d: ssum %g, recomputed %v, want %v", i, w.ssum[i], reset, tc.recompute)
				}
			}
		})
	}
}

// TestGradientSplit checks that gradient gives the same bits whether the
// columns are split among goroutines or not, and whether a column with one
// non-zero takes the shortcut |u|·maxₖ|rᵢₖ| or the sum over classes, on a
// news-shaped matrix with many one-document columns, binomial and
// multinomial, at the null model and along a path.
func TestGradientSplit(t *testing.T) {
	for _, K := range []int{2, 5} {
		X, y := newsLike(300, 4000, K)
		p, err := NewProblem(X, y, K, Options{Alpha: 0.5, Standardize: true, Intercept: true})
		if err != nil {
			t.Fatal(err)
		}
		single := 0
		for j := 0; j < p.d; j++ {
			if p.ptr[j+1]-p.ptr[j] == 1 {
				single++
			}
		}
		if single < p.d/10 {
			t.Fatalf("K=%d: %d of %d columns have one non-zero; the test needs many", K, single, p.d)
		}
		st := p.null.clone()
		w := p.newWork()
		for _, l := range p.Sequence(6, 0.05) {
			if err := p.solve(context.Background(), st, l, w); err != nil {
				t.Fatal(err)
			}
			for _, procs := range []int{1, 2, 3, 7} {
				q := *p
				q.parts = splitColumns(p.ptr, parallelWork, procs)
				if len(q.parts) != min(procs, p.d)+1 {
					t.Fatalf("splitColumns(…, %d) = %v", procs, q.parts)
				}
				got := st.clone()
				q.gradient(got, nil)
				// The reference: serial, no shortcut.
				want := st.clone()
				q.gradientCols(want, nil, q.residuals(want), nil, 0, q.d)
				for j := range want.grad {
					if math.Float64bits(got.grad[j]) != math.Float64bits(want.grad[j]) {
						t.Fatalf("K=%d λ=%g procs=%d: grad[%d] = %v, want %v", K, l, procs, j, got.grad[j], want.grad[j])
					}
				}
			}
		}
	}
}

// TestNewtonOvershoot starts a binomial lasso far on the wrong side: at
// β = −10 the row of class 1 has probability 4.5e-5 and a Newton weight as
// small, so the full Newton step jumps to β ≈ 2.2·10⁴, where the penalty
// alone is twenty times the starting objective. One Newton step must
// halve the step until the objective falls.
func TestNewtonOvershoot(t *testing.T) {
	X := matrix.NewDense(2, 1, []float64{1, -1})
	p, err := NewProblem(X, []int{1, 0}, 2, Options{Alpha: 1, Tol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	const lambda = 0.01
	start := &Fit{Lambda: lambda, Beta: [][]float64{{-10}}, Intercept: []float64{0}}
	st := p.stateOf(start)
	w := p.newWork()
	w.grow(len(st.cols))
	if _, err := p.newtonStep(context.Background(), st, 0, lambda, 0, 1e-12*p.dev0, w); err != nil {
		t.Fatal(err)
	}
	before, after := p.Objective(start), p.Objective(p.fit(st))
	if !(after < before) {
		t.Errorf("objective %g after one Newton step from β = −10 (now %g), %g before", after, p.fit(st).Beta[0][0], before)
	}
}
