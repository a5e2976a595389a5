package ddr_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/ddr"
	_ "github.com/repro-ml/repro/methods/linear" // the base learner, logreg-l2
	"github.com/repro-ml/repro/param"
)

// pcaLike returns n rows of d columns of decreasing variance, as PCA
// output: the first informative columns separate k classes, the others are
// noise.
func pcaLike(n, d, k, informative int, seed uint64) *datasets.Dataset {
	rng := rand.New(rand.NewPCG(seed, 77))
	X := matrix.NewDense(n, d, nil)
	y := make([]float64, n)
	classes := make([]string, k)
	for c := range classes {
		classes[c] = string(rune('a' + c))
	}
	for i := 0; i < n; i++ {
		c := i % k
		y[i] = float64(c)
		for j := 0; j < d; j++ {
			v := rng.NormFloat64() * 3 / float64(j+1)
			if j < informative {
				v += 1.5 * math.Cos(2*math.Pi*float64(c*(j+1))/float64(k))
			}
			X.Set(i, j, v)
		}
	}
	return &datasets.Dataset{Name: "pca-like", X: X, Y: y, Classes: classes}
}

func newMethod(t *testing.T, name string, k int) methods.Method {
	t.Helper()
	m, err := methods.New(name, param.Values{"k": k, "C": 1.0, "intercept": true})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func components(t *testing.T, m methods.Model) int {
	t.Helper()
	e, ok := m.(interface{ Extras() map[string]float64 })
	if !ok {
		t.Fatal("model records no extras")
	}
	return int(e.Extras()["components"])
}

// l2At fits logreg-l2 on the first s columns of train.
func l2At(t *testing.T, train *datasets.Dataset, s int) (methods.Model, matrix.Matrix) {
	t.Helper()
	base, err := methods.New("logreg-l2", param.Values{"C": 1.0, "intercept": true, "multiclass": "ovr", "solver": "lbfgs", "max_iter": 1000, "tol": 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	cols := make([]int, s)
	for j := range cols {
		cols[j] = j
	}
	sub := *train
	sub.X = train.X.ColsOf(cols)
	m, err := base.Fit(context.Background(), &sub, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m, sub.X
}

// greedy returns the size the search picks from start: the last of
// start, start+k, … (capped at d) before the criterion stops decreasing.
func greedy(start, k, d int, crit func(s int) float64) int {
	best, v := start, crit(start)
	for s := start; s < d; {
		s = min(s+k, d)
		c := crit(s)
		if !(c < v) {
			break
		}
		best, v = s, c
	}
	return best
}

// DDR picks the size the greedy search on the L1 objective of the L2
// weights picks, then starts from it at the next fit.
func TestDDRSearch(t *testing.T) {
	for _, k := range []int{2, 3} {
		data := pcaLike(300, 24, k, 3, uint64(k))
		env := &methods.Env{State: &methods.State{}}
		prev := 0
		for _, n := range []int{12, 40, 120, 300} {
			train := data.Subset(data.Indices()[:n])
			m, err := newMethod(t, "ddr", 4).Fit(context.Background(), train, env)
			if err != nil {
				t.Fatal(err)
			}
			start := max(prev, 4)
			want := greedy(start, 4, 24, func(s int) float64 {
				model, X := l2At(t, train, s)
				v, err := ddr.L1Objective(model, X, train.Labels(), k, 1)
				if err != nil {
					t.Fatal(err)
				}
				return v
			})
			got := components(t, m)
			t.Logf("%d classes, %d rows: %d components", k, n, got)
			if got != want {
				t.Errorf("%d classes, %d rows: %d components; want %d (greedy from %d)", k, n, got, want, start)
			}
			if got < prev {
				t.Errorf("%d classes, %d rows: %d components after %d; the search only grows", k, n, got, prev)
			}
			prev = got
			if p := m.Predict(train.X); p.K != k || p.Rows() != n {
				t.Errorf("prediction of %d rows, K=%d; want %d, %d", p.Rows(), p.K, n, k)
			}
		}
		if prev <= 4 {
			t.Errorf("%d classes: %d components on 300 rows; want more than the first step", k, prev)
		}
	}
}

// EE measures its expected error on Env.Unlabelled.
func TestEESearch(t *testing.T) {
	data := pcaLike(200, 20, 3, 3, 5)
	train := data.Subset(data.Indices()[:30])
	U := data.X.RowsOf(data.Indices()[30:])
	env := &methods.Env{State: &methods.State{}, Unlabelled: U}
	m, err := newMethod(t, "ee", 3).Fit(context.Background(), train, env)
	if err != nil {
		t.Fatal(err)
	}
	want := greedy(3, 3, 20, func(s int) float64 {
		model, _ := l2At(t, train, s)
		cols := make([]int, s)
		for j := range cols {
			cols[j] = j
		}
		return ddr.ExpectedError(model.Predict(U.ColsOf(cols)))
	})
	if got := components(t, m); got != want {
		t.Errorf("%d components; want %d", got, want)
	}
	if s, ok := methods.Load[int](env.State, "ee/a\x1fb\x1fc"); !ok || s != want {
		t.Errorf("stored size %d, %v; want %d", s, ok, want)
	}
}

// INCR takes i·k components at the i-th fit of a trial, capped by the
// columns; without a State every fit is the first.
func TestINCR(t *testing.T) {
	data := pcaLike(60, 10, 2, 2, 1)
	env := &methods.Env{State: &methods.State{}}
	for i, want := range []int{4, 8, 10, 10} {
		m, err := newMethod(t, "incr", 4).Fit(context.Background(), data, env)
		if err != nil {
			t.Fatal(err)
		}
		if got := components(t, m); got != want {
			t.Errorf("fit %d: %d components; want %d", i+1, got, want)
		}
	}
	m, err := newMethod(t, "incr", 4).Fit(context.Background(), data, &methods.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if got := components(t, m); got != 4 {
		t.Errorf("without a State: %d components; want 4", got)
	}
	// The binary tasks of tasks: one-vs-rest count their fits apart.
	other := *data
	other.Classes = []string{"not a", "a"}
	m, _ = newMethod(t, "incr", 4).Fit(context.Background(), &other, env)
	if got := components(t, m); got != 4 {
		t.Errorf("another task's first fit: %d components; want 4", got)
	}
}

// linearModel is a hand-made one-vs-rest linear model.
type linearModel struct {
	W [][]float64
	B []float64
	K int
	f func(float64) float64 // applied to the decision values (a nonlinear model)
}

func (m linearModel) Predict(X matrix.Matrix) *methods.Prediction {
	n, _ := X.Dims()
	p := &methods.Prediction{K: m.K, Scores: make([]float64, n*m.K), OneVsRest: true}
	for i := 0; i < n; i++ {
		for t := range m.W {
			f := X.RowDot(i, m.W[t]) + m.B[t]
			if m.f != nil {
				f = m.f(f)
			}
			if m.K == 2 {
				p.Scores[2*i], p.Scores[2*i+1] = -f, f
			} else {
				p.Scores[i*m.K+t] = f
			}
		}
	}
	return p
}

func TestL1Objective(t *testing.T) {
	X := matrix.NewDense(3, 2, []float64{1, 0, 0, 2, -1, 1})
	lg := func(m float64) float64 { return math.Log(1 + math.Exp(-m)) }
	for _, tc := range []struct {
		name  string
		model linearModel
		y     []int
		want  float64
	}{
		{"binary", linearModel{W: [][]float64{{1, -2}}, B: []float64{0.5}, K: 2}, []int{1, 0, 1},
			// f = 1.5, −3.5, −2.5; margins 1.5, 3.5, −2.5; ‖w‖₁ = 3
			2*(lg(1.5)+lg(3.5)+lg(-2.5)) + 3},
		{"one-vs-rest", linearModel{W: [][]float64{{1, 0}, {0, 1}, {-1, -1}}, B: []float64{0, 0, 1}, K: 3}, []int{0, 1, 2},
			// f₀ = 1, 0, −1; f₁ = 0, 2, 1; f₂ = 0, −1, 1
			2*(lg(1)+lg(0)+lg(1)) + 1 + 2*(lg(0)+lg(2)+lg(-1)) + 1 + 2*(lg(0)+lg(1)+lg(1)) + 2},
	} {
		got, err := ddr.L1Objective(tc.model, X, tc.y, tc.model.K, 2)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: %g; want %g", tc.name, got, tc.want)
		}
	}
	bent := linearModel{W: [][]float64{{1, -2}}, B: []float64{0.5}, K: 2, f: math.Tanh}
	if _, err := ddr.L1Objective(bent, X, []int{1, 0, 1}, 2, 1); err == nil {
		t.Error("nonlinear decision values: no error")
	}
}

func TestExpectedError(t *testing.T) {
	// Softmax scores log p: rows with max P 0.5 and 0.9.
	p := &methods.Prediction{K: 2, Scores: []float64{math.Log(.5), math.Log(.5), math.Log(.1), math.Log(.9)}}
	if got := ddr.ExpectedError(p); math.Abs(got-0.3) > 1e-12 {
		t.Errorf("expected error %g; want (0.5 + 0.1)/2 = 0.3", got)
	}
}

// On a dataset with fewer columns than k, the search stays at all columns.
func TestFewColumns(t *testing.T) {
	data := pcaLike(40, 3, 2, 2, 3)
	for _, name := range []string{"ddr", "ee", "incr"} {
		m, err := newMethod(t, name, 10).Fit(context.Background(), data, &methods.Env{})
		if err != nil {
			t.Fatal(err)
		}
		if got := components(t, m); got != 3 {
			t.Errorf("%s: %d components; want 3", name, got)
		}
	}
}

// The base learner's fits warm-start from the previous fit's at the same
// size (env.Warm): along a growing labelled set DDR, EE and INCR choose
// the sizes the cold fits choose, their decision values agree to the
// solver's tolerance, and they take fewer base-learner iterations.
func TestWarmSearch(t *testing.T) {
	data := pcaLike(400, 40, 3, 6, 9)
	for _, name := range []string{"ddr", "ee", "incr"} {
		t.Run(name, func(t *testing.T) {
			cold := &methods.Env{State: &methods.State{}}
			warm := &methods.Env{State: &methods.State{}, Warm: &methods.State{}}
			itCold, itWarm := 0, 0
			for n := 60; n <= 200; n += 10 {
				train := data.Subset(data.Indices()[:n])
				var models [2]methods.Model
				for i, env := range []*methods.Env{cold, warm} {
					env.Unlabelled = data.Subset(data.Indices()[n:]).X
					m, err := newMethod(t, name, 4).Fit(context.Background(), train, env)
					if err != nil {
						t.Fatal(err)
					}
					models[i] = m
				}
				if a, b := components(t, models[0]), components(t, models[1]); a != b {
					t.Fatalf("%d rows: %d components cold, %d warm", n, a, b)
				}
				pa, pb := models[0].Predict(data.X), models[1].Predict(data.X)
				diff := 0.0
				for i := range pa.Scores {
					diff = math.Max(diff, math.Abs(pa.Scores[i]-pb.Scores[i]))
				}
				if diff > 1e-3 {
					t.Errorf("%d rows: decision values differ by %g", n, diff)
				}
				itCold += models[0].(methods.Informer).Info().Iterations
				itWarm += models[1].(methods.Informer).Info().Iterations
			}
			t.Logf("base-learner iterations: cold %d, warm %d", itCold, itWarm)
			if name != "incr" && itWarm >= itCold {
				t.Errorf("base-learner iterations: warm %d, cold %d", itWarm, itCold)
			}
		})
	}
}

// search returns the size the search picks from start with lookahead:
// greedy's search, trying up to lookahead more sizes past one that does
// not decrease the criterion, keeping the best (the first of equals).
func search(start, k, d, lookahead int, crit func(s int) float64) int {
	best, v := start, crit(start)
	for s, misses := start, 0; s < d; {
		s = min(s+k, d)
		c := crit(s)
		if !(c < v) {
			if misses++; misses > lookahead {
				break
			}
			continue
		}
		best, v, misses = s, c, 0
	}
	return best
}

// The search's variants (issue 44): rule_C weighs the L1 objective's loss
// apart from the fit's C, start sets the first fit's size, restart starts
// every fit there, lookahead tries sizes past a miss. Each against the
// reference search on the L1 objective of logreg-l2 fits.
func TestDDRSearchVariants(t *testing.T) {
	data := pcaLike(300, 40, 3, 6, 11)
	// An informative column behind noise ones: the criterion has a local
	// minimum before it, which lookahead steps over.
	for i := 0; i < data.Rows(); i++ {
		data.X.(*matrix.Dense).Set(i, 18, data.X.At(i, 18)+2*math.Cos(2*math.Pi*data.Y[i]/3))
	}
	var defaults []int
	for _, tc := range []struct {
		name             string
		set              param.Values
		ruleC            float64
		start, lookahead int
		restart          bool
	}{
		{"defaults", param.Values{}, 1, 4, 0, false},
		{"rule_C", param.Values{"rule_C": 20.0}, 20, 4, 0, false},
		{"rule_C small", param.Values{"rule_C": 0.05}, 0.05, 4, 0, false},
		{"start", param.Values{"start": 12}, 1, 12, 0, false},
		{"restart", param.Values{"restart": true}, 1, 4, 0, true},
		{"lookahead", param.Values{"lookahead": 3}, 1, 4, 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := param.Values{"k": 4, "C": 1.0, "intercept": true}
			for k, x := range tc.set {
				v[k] = x
			}
			m, err := methods.New("ddr", v)
			if err != nil {
				t.Fatal(err)
			}
			env := &methods.Env{State: &methods.State{}}
			prev, sizes := 0, []int{}
			// The last fit has fewer rows than the one before: restart
			// searches from start again, the carried search cannot shrink.
			for _, n := range []int{15, 60, 150, 300, 40} {
				train := data.Subset(data.Indices()[:n])
				fit, err := m.Fit(context.Background(), train, env)
				if err != nil {
					t.Fatal(err)
				}
				start := tc.start
				if prev > 0 && !tc.restart {
					start = prev
				}
				want := search(start, 4, 40, tc.lookahead, func(s int) float64 {
					model, X := l2At(t, train, s)
					v, err := ddr.L1Objective(model, X, train.Labels(), 3, tc.ruleC)
					if err != nil {
						t.Fatal(err)
					}
					return v
				})
				got := components(t, fit)
				if got != want {
					t.Errorf("%d rows: %d components; want %d (search from %d)", n, got, want, start)
				}
				prev = got
				sizes = append(sizes, got)
			}
			t.Logf("components: %v", sizes)
			if tc.name == "defaults" {
				defaults = sizes
			} else if slices.Equal(sizes, defaults) {
				t.Errorf("components %v, as without %v: the case does not test it", sizes, tc.set)
			}
		})
	}
}

// The search's parameters are left out of trial keys at their defaults
// (param option omitdefault), and their defaults are the search without
// them: stored results keep resolving.
func TestSearchParamsOmitDefault(t *testing.T) {
	for _, name := range []string{"ddr", "ee", "incr"} {
		pl, err := methods.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"rule_C": 0.0, "start": 0, "restart": false, "lookahead": 0}
		for _, d := range pl.Params {
			w, ok := want[d.Name]
			if !ok {
				continue
			}
			delete(want, d.Name)
			if !d.OmitDefault || d.Default != w {
				t.Errorf("%s: %s omitdefault %t, default %v; want omitdefault with default %v", name, d.Name, d.OmitDefault, d.Default, w)
			}
		}
		if len(want) > 0 {
			t.Errorf("%s: parameters %v not declared", name, want)
		}
	}
}
