package runner

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/repro-ml/repro/datasets"
	_ "github.com/repro-ml/repro/datasets/reduce" // pca
	"github.com/repro-ml/repro/methods"
	_ "github.com/repro-ml/repro/methods/ddr"    // ddr
	_ "github.com/repro-ml/repro/methods/linear" // logreg-l2
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// bilgicSpec is Bilgic's loop in small: kfold trials, the active
// protocol, L2 logistic regression at C = 1, on the original features or,
// with pca, on the principal components of each trial's pool.
func bilgicSpec(strategy string, pca bool) *spec.Spec {
	sp := blobsSpec()
	ds := &sp.Datasets[0]
	ds.Params = param.Values{"n": 240, "d": 12, "classes": 3, "spread": 3.0, "given": false}
	ds.Split = spec.Split{Kind: "kfold", Params: param.Values{"folds": 4, "repeats": 1, "stratify": true}}
	sp.Protocol = spec.ProtocolSpec{Name: "active", Params: param.Values{"initial": 6, "batch": 8, "budget": 46, "strategy": strategy}}
	sp.Curve = spec.Curve{Trials: 4, Sampling: "stratified"}
	l2 := method("logreg-l2", "L2", "fixed",
		[]string{"C", "intercept", "multiclass", "solver", "max_iter", "tol"},
		[]any{1.0}, []any{true}, []any{"ovr"}, []any{"lbfgs"}, []any{2000}, []any{1e-8})
	sp.Methods = []spec.MethodSpec{l2}
	sp.Baseline = ""
	if pca {
		ds.Transforms = []spec.TransformSpec{{Name: "pca", Params: param.Values{"components": 0, "variance": 1.0, "standardize": false}, Fit: "pool"}}
		sp.Methods = append(sp.Methods, method("ddr", "DDR", "fixed", []string{"k", "C", "intercept"}, []any{3}, []any{1.0}, []any{true}))
	}
	return sp
}

// ORI-L2 = PCA-L2 (Bilgic §5.3, issue 12 §2): L2 logistic regression with
// an unpenalized intercept is invariant under the rotation and translation
// PCA applies to the pool, so on the same labelled rows the two agree up
// to the solver's tolerance — and, with uncertainty sampling, so do the
// rows they query. DDR on the components records how many it uses.
func TestActivePCARotationInvariance(t *testing.T) {
	for _, strategy := range []string{"random", "uncertainty"} {
		t.Run(strategy, func(t *testing.T) {
			ori := runSpec(t, bilgicSpec(strategy, false), t.TempDir(), 2, nil)
			pca := runSpec(t, bilgicSpec(strategy, true), t.TempDir(), 2, nil)
			want := map[int][]results.Observation{}
			for _, r := range ori.Results {
				if r.Failed() {
					t.Fatalf("ORI-L2 trial %d: %s", r.Trial, r.Error)
				}
				want[r.Trial] = r.Points()
			}
			if len(want) != 4 {
				t.Fatalf("%d ORI-L2 trials; want 4 folds", len(want))
			}
			for _, r := range pca.Results {
				if r.Failed() {
					t.Fatalf("%s trial %d: %s", r.Method, r.Trial, r.Error)
				}
				pts := r.Points()
				if len(pts) != 6 {
					t.Fatalf("%s trial %d: %d observations; want 6 (6, 14, …, 46 labels)", r.Method, r.Trial, len(pts))
				}
				if r.Method == "DDR" {
					prev := 0.0
					for _, o := range pts {
						c := o.Extras["components"]
						if c < 3 || c > 12 || c < prev {
							t.Errorf("DDR trial %d at %v labels: %v components after %v; want a non-decreasing count in [3, 12]", r.Trial, o.X, c, prev)
						}
						prev = c
					}
					continue
				}
				for i, o := range pts {
					w := want[r.Trial][i]
					if o.X != w.X || o.Metrics["accuracy"] != w.Metrics["accuracy"] || math.Abs(o.Metrics["auc"]-w.Metrics["auc"]) > 1e-6 {
						t.Errorf("trial %d at %v labels: PCA-L2 accuracy %v, AUC %v; ORI-L2 %v, %v", r.Trial, o.X,
							o.Metrics["accuracy"], o.Metrics["auc"], w.Metrics["accuracy"], w.Metrics["auc"])
					}
				}
			}
			// The control: two components are not a rotation, and the
			// curves differ — the transform is applied.
			two := bilgicSpec(strategy, true)
			two.Datasets[0].Transforms[0].Params["components"] = 2
			two.Methods = two.Methods[:1]
			two.Methods[0].Grid[0]["tol"] = 1e-5
			differ := false
			for _, r := range runSpec(t, two, t.TempDir(), 2, nil).Results {
				for i, o := range r.Points() {
					differ = differ || math.Abs(o.Metrics["auc"]-want[r.Trial][i].Metrics["auc"]) > 1e-3
				}
			}
			if !differ {
				t.Error("L2 on two principal components scores as on all features")
			}
		})
	}
}

// With full: [L2] the last observation records full_<metric>, the score of
// the learner trained on the whole pool; when the budget is the whole pool
// the last batch trains on exactly those rows, so the two agree.
func TestActiveFullPool(t *testing.T) {
	for _, budget := range []int{46, 180} {
		sp := bilgicSpec("random", false)
		sp.Protocol.Params["full"] = []string{"L2"}
		sp.Protocol.Params["budget"] = budget
		// At tol 1e-8, max_iter 2000, logreg-l2's L-BFGS did not return
		// within 5 minutes on the whole 180-row pool (not investigated; the
		// 174-row fit before it returns at once): this test is about the
		// protocol, so the solver runs at a looser tolerance.
		sp.Methods[0].Grid[0]["tol"] = 1e-4
		sp.Methods[0].Grid[0]["max_iter"] = 200
		sum := runSpec(t, sp, t.TempDir(), 2, nil)
		for _, r := range sum.Results {
			if r.Failed() {
				t.Fatalf("trial %d: %s", r.Trial, r.Error)
			}
			pts := r.Points()
			last := pts[len(pts)-1]
			full, ok := last.Extras[results.FullPrefix+"auc"]
			if !ok {
				t.Fatalf("budget %d trial %d: last observation has no %sauc; extras %v", budget, r.Trial, results.FullPrefix, last.Extras)
			}
			for _, o := range pts[:len(pts)-1] {
				if _, ok := o.Extras[results.FullPrefix+"auc"]; ok {
					t.Errorf("budget %d trial %d: %sauc recorded at %v labels, not only at the last", budget, r.Trial, results.FullPrefix, o.X)
				}
			}
			if budget == 180 {
				if last.X != 180 || math.Abs(full-last.Metrics["auc"]) > 1e-12 {
					t.Errorf("trial %d: %v labels (the pool), AUC %v; full-pool AUC %v: want equal", r.Trial, last.X, last.Metrics["auc"], full)
				}
			} else if !(full > 0.5 && full <= 1) {
				t.Errorf("trial %d: full-pool AUC %v", r.Trial, full)
			}
		}
	}
}

// The full-pool fit depends on the pool only: with refold: false the
// repeats of a fold record the same full_<metric>, which the run fits once
// and caches, and a run with one repeat — its own cache, fresh fits —
// records the same values for the same folds.
func TestActiveFullPoolPerFold(t *testing.T) {
	run := func(repeats int) map[int][]float64 {
		sp := bilgicSpec("random", false)
		sp.Datasets[0].Split.Params["refold"] = false
		sp.Datasets[0].Split.Params["repeats"] = repeats
		sp.Curve.Trials = 4 * repeats
		sp.Protocol.Params["full"] = []string{"L2"}
		sp.Methods[0].Grid[0]["tol"] = 1e-4
		byFold := map[int][]float64{}
		for _, r := range runSpec(t, sp, t.TempDir(), 2, nil).Results {
			if r.Failed() {
				t.Fatalf("repeats %d trial %d: %s", repeats, r.Trial, r.Error)
			}
			pts := r.Points()
			last := pts[len(pts)-1]
			f := r.Trial / repeats
			byFold[f] = append(byFold[f], last.Extras[results.FullPrefix+"auc"], last.Extras[results.FullPrefix+"accuracy"])
		}
		return byFold
	}
	one, three := run(1), run(3)
	if len(one) != 4 || len(three) != 4 {
		t.Fatalf("folds: %d and %d, want 4", len(one), len(three))
	}
	for f, want := range one {
		got := three[f]
		if len(got) != 6 {
			t.Fatalf("fold %d: %d values for 3 repeats", f, len(got))
		}
		for i, v := range got {
			if v != want[i%2] || !(v > 0) {
				t.Errorf("fold %d: repeat %d full-pool value %v; one repeat's run %v", f, i/2, v, want[i%2])
			}
		}
	}
}

// The active protocol's caches (the pool's PCA and its projection, the
// full-pool scores) and the warm starts of its refits (logreg-l2 with
// each solver, logreg-l1, DDR's fits at each size) do not make results
// depend on the order trials run in: -j 1, -j 2 and -j 4 agree exactly.
func TestActiveDeterministicAcrossWorkers(t *testing.T) {
	sp := func() *spec.Spec {
		s := bilgicSpec("uncertainty", true)
		s.Datasets[0].Split.Params["refold"] = false
		s.Datasets[0].Split.Params["repeats"] = 2
		s.Curve.Trials = 8
		s.Protocol.Params["full"] = []string{"all"}
		s.Methods[0].Grid[0]["tol"] = 1e-4
		s.Methods = append(s.Methods,
			method("logreg-l1", "L1", "fixed", []string{"C", "intercept", "max_iter", "tol"}, []any{1.0}, []any{true}, []any{1000}, []any{1e-4}))
		for _, solver := range []string{"newton", "tron"} {
			s.Methods = append(s.Methods, method("logreg-l2", "L2-"+solver, "fixed",
				[]string{"C", "intercept", "multiclass", "solver", "max_iter", "tol"},
				[]any{1.0}, []any{true}, []any{"ovr"}, []any{solver}, []any{1000}, []any{1e-5}))
		}
		return s
	}
	a := runSpec(t, sp(), t.TempDir(), 1, nil)
	if a.Failed != 0 || len(a.Results) != 40 {
		for _, r := range a.Results {
			if r.Failed() {
				t.Errorf("%s trial %d: %s", r.Method, r.Trial, r.Error)
			}
		}
		t.Fatalf("%d results, %d failed; want 40 (5 methods × 8 trials), none failed", len(a.Results), a.Failed)
	}
	for _, j := range []int{2, 4} {
		b := runSpec(t, sp(), t.TempDir(), j, nil)
		sa, sb := strip(a.Results), strip(b.Results)
		for i := range sa {
			if !reflect.DeepEqual(sa[i], sb[i]) {
				t.Errorf("-j 1 and -j %d gave different results: %+v\n%+v", j, sa[i], sb[i])
			}
		}
	}
}

// TestActivePCACacheDamaged: the fold PCAs cached on disk are read back
// by the next run; a damaged cache file is reported (Options.Warn and
// Summary.Warnings name it), not used: the trials' results are those of a
// fresh fit, and the file is rewritten, so the run after reports nothing.
func TestActivePCACacheDamaged(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	run := func() (*Summary, []error) {
		t.Helper()
		var warned []error
		sum, err := Run(context.Background(), bilgicSpec("random", true), Options{Dir: dir, Workers: 2, Fresh: true, Warn: func(err error) { warned = append(warned, err) }})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range sum.Results {
			if r.Failed() {
				t.Fatalf("%s trial %d: %s", r.Method, r.Trial, r.Error)
			}
		}
		return sum, warned
	}
	first, warned := run()
	if len(warned) != 0 || len(first.Warnings) != 0 {
		t.Fatalf("warnings of a first run: %v", warned)
	}
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".cache", "pca", "*.pca"))
	if len(files) != 4 {
		t.Fatalf("%d cached PCAs, want one per fold (4): %v", len(files), files)
	}
	for _, f := range files {
		if err := os.WriteFile(f, []byte("damaged"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	second, warned := run()
	if len(warned) != len(files) || len(second.Warnings) != len(files) {
		t.Errorf("%d warnings (%d in the summary) for %d damaged files: %v", len(warned), len(second.Warnings), len(files), warned)
	}
	for _, f := range files {
		named := false
		for _, w := range warned {
			named = named || strings.Contains(w.Error(), f)
		}
		if !named {
			t.Errorf("no warning names %s: %v", f, warned)
		}
	}
	if !reflect.DeepEqual(strip(first.Results), strip(second.Results)) {
		t.Error("results after the damaged files differ from the first run's")
	}
	if _, warned := run(); len(warned) != 0 {
		t.Errorf("the damaged files were not rewritten: %v", warned)
	}
}

// gateMethod is a nearest-centroid classifier whose first fit on rows
// rows blocks until a second fit on that many rows starts (or 20 s pass,
// when it fails): a full-pool fit that cannot finish before another
// pool's full fit begins.
type gateMethod struct {
	rows int
	g    *gate
}

// theGate is fake-gate's gate, made anew by the test that uses it.
var theGate *gate

func init() {
	methods.Register("fake-gate", &methods.Plugin{
		Doc:   "centroid whose first fit on 180 rows waits for a second (test fixture)",
		Kinds: methods.Classification,
		New:   func(param.Values) (methods.Method, error) { return gateMethod{rows: 180, g: theGate}, nil },
	})
}

type gate struct {
	mu     sync.Mutex
	calls  int
	opened chan struct{}
}

func (m gateMethod) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	if train.Rows() == m.rows {
		m.g.mu.Lock()
		m.g.calls++
		first := m.g.calls == 1
		if m.g.calls == 2 {
			close(m.g.opened)
		}
		m.g.mu.Unlock()
		if first {
			select {
			case <-m.g.opened:
			case <-time.After(20 * time.Second):
				return nil, errors.New("no other full-pool fit began while this one ran")
			}
		}
	}
	return (&centroid{}).Fit(ctx, train, env)
}

// The trials of a fold that end while another trial fits the fold's
// full pool do not hold their workers: at -j 2, while the first fold's
// full-pool fit runs on one worker, the other goes on to the next fold's
// trials and starts its full-pool fit.
func TestActiveFullPoolDoesNotHoldWorkers(t *testing.T) {
	theGate = &gate{opened: make(chan struct{})}
	sp := bilgicSpec("random", false)
	sp.Datasets[0].Split.Params["refold"] = false
	sp.Datasets[0].Split.Params["repeats"] = 3
	sp.Curve.Trials = 12
	sp.Methods = []spec.MethodSpec{method("fake-gate", "G", "fixed", nil)}
	sp.Protocol.Params["full"] = []string{"G"}
	sum := runSpec(t, sp, t.TempDir(), 2, nil)
	if len(sum.Results) != 12 {
		t.Fatalf("%d results, want 12", len(sum.Results))
	}
	for _, r := range sum.Results {
		if r.Failed() {
			t.Fatalf("trial %d: %s", r.Trial, r.Error)
		}
		pts := r.Points()
		if v := pts[len(pts)-1].Extras[results.FullPrefix+"auc"]; !(v > 0.5) {
			t.Errorf("trial %d: full-pool AUC %v", r.Trial, v)
		}
	}
}
