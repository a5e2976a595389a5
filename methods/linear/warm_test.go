package linear

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/embedded"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
)

// fitEnv fits name with parameters p on train in env.
func fitEnv(t *testing.T, name string, p map[string]any, train *datasets.Dataset, env *methods.Env) *classifier {
	t.Helper()
	m, err := newMethod(t, name, p).Fit(context.Background(), train, env)
	if err != nil {
		t.Fatalf("%s %v: %v", name, p, err)
	}
	return m.(*classifier)
}

// optimality returns the largest optimality violation of m's tasks on
// train: ‖∇f‖∞/max(1, f) for logreg-l2 (its stopping test), the
// minimum-norm subgradient's ∞-norm for logreg-l1.
func optimality(name string, m *classifier, train *datasets.Dataset, C float64, intercept bool) float64 {
	v := 0.0
	for t := range m.W {
		c := t
		if m.K == 2 {
			c = 1
		}
		y := signs(nil, train.Y, c)
		if name == "logreg-l1" {
			v = math.Max(v, l1Violation(train.X, y, m.W[t], m.B[t], C, intercept))
			continue
		}
		g, f := l2Grad(train.X, y, m.W[t], m.B[t], C, intercept)
		v = math.Max(v, maxAbs(g)/math.Max(1, f))
	}
	return v
}

// TestWarmStart: a fit that finds the previous fit's model in env.Warm
// (an active-learning refit on 10% more rows, or the next C of a grid)
// reaches the optimum of a cold fit, to the solver's tolerance, in fewer
// iterations; it stores its own model for the next fit; a stored model
// of another shape (columns, classes) is not used: the fit is the cold
// one exactly.
func TestWarmStart(t *testing.T) {
	dna, err := embedded.DNASplice([]string{"ei", "ie", "n"}, embedded.EncodingBits)
	if err != nil {
		t.Fatal(err)
	}
	all := dna.Subset(dna.Indices()[:400])
	before := dna.Subset(dna.Indices()[:360])
	for _, tc := range []struct {
		name string
		p    map[string]any
		tol  float64 // optimality the test asks of both fits
	}{
		{"logreg-l2", map[string]any{"solver": "lbfgs"}, 1e-5},
		{"logreg-l2", map[string]any{"solver": "tron"}, 1e-5},
		{"logreg-l2", map[string]any{"solver": "newton"}, 1e-5},
		{"logreg-l2", map[string]any{"solver": "dual", "intercept": false}, 1e-5},
		{"logreg-l2", map[string]any{"multiclass": "softmax"}, -1},
		{"logreg-l1", map[string]any{}, 1e-4},
	} {
		for _, C := range []float64{1, 10} {
			t.Run(fmt.Sprintf("%s/%v/C=%g", tc.name, tc.p, C), func(t *testing.T) {
				p := map[string]any{"C": C}
				for k, v := range tc.p {
					p[k] = v
				}
				intercept := tc.p["intercept"] != false
				cold := fitEnv(t, tc.name, p, all, &methods.Env{})
				env := &methods.Env{Warm: &methods.State{}}
				prev := fitEnv(t, tc.name, p, before, env)
				warm := fitEnv(t, tc.name, p, all, env)
				if !cold.info.Converged || !warm.info.Converged {
					t.Fatalf("converged: cold %v, warm %v", cold.info.Converged, warm.info.Converged)
				}
				if warm.info.Iterations >= cold.info.Iterations {
					t.Errorf("warm start: %d iterations, cold %d", warm.info.Iterations, cold.info.Iterations)
				}
				if rel := math.Abs(warm.info.Objective-cold.info.Objective) / cold.info.Objective; rel > 1e-6 {
					t.Errorf("objective %.10g warm, %.10g cold (relative difference %.2g)", warm.info.Objective, cold.info.Objective, rel)
				}
				if tc.tol > 0 {
					if v := optimality(tc.name, warm, all, C, intercept); v > tc.tol {
						t.Errorf("warm fit: optimality violation %g > %g", v, tc.tol)
					}
				}
				if got, _ := methods.Load[*classifier](env.Warm, warmKey(tc.name, intercept, tc.p["multiclass"] == "softmax")); got != warm {
					t.Errorf("env.Warm holds %p, want the last fit's model %p", got, warm)
				}
				t.Logf("iterations: cold %d, warm %d (previous fit %d)", cold.info.Iterations, warm.info.Iterations, prev.info.Iterations)

				// Another shape: 179 of the 180 columns, or two classes.
				fewer := *all
				cols := make([]int, 179)
				for j := range cols {
					cols[j] = j
				}
				fewer.X = all.X.ColsOf(cols)
				binary := *all
				binary.Y = make([]float64, len(all.Y))
				for i, v := range all.Y {
					binary.Y[i] = math.Min(v, 1)
				}
				binary.Classes = all.Classes[:2]
				for name, other := range map[string]*datasets.Dataset{"columns": &fewer, "classes": &binary} {
					env := &methods.Env{Warm: &methods.State{}}
					fitEnv(t, tc.name, p, all, env)
					got := fitEnv(t, tc.name, p, other, env)
					want := fitEnv(t, tc.name, p, other, &methods.Env{})
					if got.info != want.info || !equalModels(got, want) {
						t.Errorf("%s differ from the stored model's: the fit is not the cold one (%+v, cold %+v)", name, got.info, want.info)
					}
				}
			})
		}
	}
}

func equalModels(a, b *classifier) bool {
	if len(a.W) != len(b.W) {
		return false
	}
	for k := range a.W {
		if a.B[k] != b.B[k] || maxAbsDiff(a.W[k], b.W[k]) != 0 {
			return false
		}
	}
	return true
}

// TestBadlyScaled: on columns scaled from 1e-3 to 1e4 Newton's method
// converges in as many steps as on the unscaled columns (it is invariant
// under rescaling), to the optimum L-BFGS finds, and so does TRON with its
// diagonal preconditioner, which solver: auto chooses there.
func TestBadlyScaled(t *testing.T) {
	data := synthClass(43, 400, 20, 2, 0.4, 0)
	X := matrix.ToDense(data.X)
	scaled := matrix.NewDense(400, 20, nil)
	for i := 0; i < 400; i++ {
		for j := 0; j < 20; j++ {
			scaled.Set(i, j, X.At(i, j)*math.Pow(10, float64(j%8)-3))
		}
	}
	bad := *data
	bad.X = scaled
	const C = 100
	plain := fit(t, "logreg-l2", map[string]any{"C": C, "solver": "newton", "tol": 1e-8}, data).(methods.Informer).Info()
	newton := fit(t, "logreg-l2", map[string]any{"C": C, "solver": "newton", "tol": 1e-8}, &bad).(methods.Informer).Info()
	lbfgs := fit(t, "logreg-l2", map[string]any{"C": C, "solver": "lbfgs", "tol": 1e-8}, &bad).(methods.Informer).Info()
	if !newton.Converged || !lbfgs.Converged {
		t.Fatalf("converged: newton %+v, lbfgs %+v", newton, lbfgs)
	}
	if newton.Iterations > plain.Iterations+2 {
		t.Errorf("newton: %d steps on scaled columns, %d on the original ones", newton.Iterations, plain.Iterations)
	}
	if rel := math.Abs(newton.Objective-lbfgs.Objective) / lbfgs.Objective; rel > 1e-8 {
		t.Errorf("objective %.12g (newton) vs %.12g (lbfgs)", newton.Objective, lbfgs.Objective)
	}
	// TRON, diagonally preconditioned on these columns, converges too
	// (without the preconditioner it stopped short of tol 1e-8 after 310
	// steps).
	tron := fit(t, "logreg-l2", map[string]any{"C": C, "solver": "tron", "tol": 1e-8}, &bad).(methods.Informer).Info()
	if !tron.Converged || math.Abs(tron.Objective-lbfgs.Objective) > 1e-8*lbfgs.Objective {
		t.Errorf("tron: %+v, lbfgs objective %.12g", tron, lbfgs.Objective)
	}
	if auto := fit(t, "logreg-l2", map[string]any{"C": C, "tol": 1e-8}, &bad).(methods.Informer).Info(); auto != tron {
		t.Errorf("solver auto on badly scaled columns: %+v, tron %+v", auto, tron)
	}
	t.Logf("newton %d steps (unscaled %d), lbfgs %d, tron %d", newton.Iterations, plain.Iterations, lbfgs.Iterations, tron.Iterations)

	// Warm-started from a fit on 90% of the rows, each solver reaches the
	// same optimum in fewer steps on these columns too.
	before := bad.Subset(bad.Indices()[:360])
	for _, solver := range []string{"auto", "lbfgs", "newton"} {
		p := map[string]any{"C": C, "solver": solver, "tol": 1e-8}
		cold := fitEnv(t, "logreg-l2", p, &bad, &methods.Env{})
		env := &methods.Env{Warm: &methods.State{}}
		fitEnv(t, "logreg-l2", p, before, env)
		warm := fitEnv(t, "logreg-l2", p, &bad, env)
		if !warm.info.Converged || warm.info.Iterations >= cold.info.Iterations ||
			math.Abs(warm.info.Objective-cold.info.Objective) > 1e-8*cold.info.Objective {
			t.Errorf("%s warm-started: %+v, cold %+v", solver, warm.info, cold.info)
		}
	}
}
