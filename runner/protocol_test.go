package runner

import (
	"context"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/spec"
)

// Fixtures for the protocol tests: a method whose model records, as an
// extra, a fingerprint of the rows it was trained on; a method that
// predicts NaN; a query strategy that checks what it is shown; and a
// transform fitted per trial that records what it was fitted on.
func init() {
	methods.Register("fake-rows", &methods.Plugin{
		Doc:   "nearest centroid that records a fingerprint of its training rows (test fixture)",
		Kinds: methods.Classification,
		New:   func(param.Values) (methods.Method, error) { return rowsMethod{}, nil },
	})
	methods.Register("fake-nan", &methods.Plugin{
		Doc:   "predicts NaN scores (test fixture)",
		Kinds: methods.Classification | methods.Regression,
		New:   func(param.Values) (methods.Method, error) { return nanMethod{}, nil },
	})
	datasets.RegisterTransform("fake-center", &datasets.Transform{
		Doc:     "subtracts the column means of the rows it is fitted on (test fixture)",
		Version: 1,
		Fit:     fitCenter,
	})
}

type rowsMethod struct{}

type rowsModel struct {
	methods.Model
	print float64
}

func (rowsMethod) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	m, err := (&centroid{}).Fit(ctx, train, env)
	if err != nil {
		return nil, err
	}
	// The fingerprint: a sum over the training rows of their features,
	// weighted by position in a sorted order, identical for identical sets.
	print := 0.0
	for i := 0; i < train.Rows(); i++ {
		train.X.Row(i, func(j int, v float64) { print += v * float64(j+1) })
	}
	return &rowsModel{Model: m, print: print}, nil
}

func (m *rowsModel) Extras() map[string]float64 { return map[string]float64{"fingerprint": m.print} }

type nanMethod struct{}

type nanModel struct{ k int }

func (nanMethod) Fit(_ context.Context, train *datasets.Dataset, _ *methods.Env) (methods.Model, error) {
	return nanModel{k: len(train.Classes)}, nil
}

func (m nanModel) Predict(X matrix.Matrix) *methods.Prediction {
	n, _ := X.Dims()
	if m.k == 0 {
		v := make([]float64, n)
		v[n/2] = math.NaN()
		return &methods.Prediction{Values: v}
	}
	s := make([]float64, n*m.k)
	s[len(s)/2] = math.NaN()
	return &methods.Prediction{Scores: s, K: m.k}
}

// centerFits records every fit of fake-center: how many rows and whether
// labels were visible.
var centerFits struct {
	sync.Mutex
	rows    []int
	labeled int
	calls   atomic.Int64
}

func fitCenter(_ context.Context, _ datasets.Env, d *datasets.Dataset, _ param.Values) (datasets.Fitted, error) {
	centerFits.calls.Add(1)
	centerFits.Lock()
	centerFits.rows = append(centerFits.rows, d.Rows())
	if d.Y != nil || d.Classes != nil {
		centerFits.labeled++
	}
	centerFits.Unlock()
	mean := make([]float64, d.Cols())
	for i := 0; i < d.Rows(); i++ {
		d.X.AddRow(mean, i, 1/float64(d.Rows()))
	}
	return centered(mean), nil
}

type centered []float64

func (c centered) Transform(d *datasets.Dataset) (*datasets.Dataset, error) {
	r, k := d.X.Dims()
	X := matrix.NewDense(r, k, nil)
	for i := 0; i < r; i++ {
		d.X.Row(i, func(j int, v float64) { X.Set(i, j, v-c[j]) })
	}
	out := *d
	out.X = X
	return &out, nil
}

func resetCenterFits() {
	centerFits.Lock()
	centerFits.rows, centerFits.labeled = nil, 0
	centerFits.calls.Store(0)
	centerFits.Unlock()
}

func activeSpec(strategy string) *spec.Spec {
	sp := blobsSpec()
	sp.Protocol = spec.ProtocolSpec{Name: "active", Params: param.Values{"initial": 6, "batch": 8, "budget": 30, "strategy": strategy}}
	sp.Curve = spec.Curve{Trials: 3, Sampling: "stratified"}
	sp.Methods = []spec.MethodSpec{
		method("fake-rows", "rows", "fixed", nil),
		method("fake-centroid", "centroid", "fixed", []string{"shrink", "noise"}, []any{0.0}, []any{0.0}),
		method("fake-centroid", "centroid-cv", "cv", []string{"shrink", "noise"}, []any{0.0, 0.9}, []any{0.0}),
	}
	sp.Baseline = "centroid"
	return sp
}

// The active protocol: one trial per replicate and method, one observation
// per batch at x = labels (initial, then batch by batch up to the budget,
// the last batch cut to fit), and with random queries every method sees
// the same labelled rows.
func TestActiveProtocol(t *testing.T) {
	for _, strategy := range []string{"random", "fake-first"} {
		t.Run(strategy, func(t *testing.T) {
			sp := activeSpec(strategy)
			dir := t.TempDir()
			sum := runSpec(t, sp, dir, 2, nil)
			if len(sum.Plan.Trials) != 3*3 {
				t.Fatalf("%d trials; want 3 methods × 3 replicates", len(sum.Plan.Trials))
			}
			prints := map[int][]float64{}
			for _, r := range sum.Results {
				if r.Failed() {
					t.Fatalf("%s trial %d: %s", r.Method, r.Trial, r.Error)
				}
				var xs []float64
				for _, o := range r.Points() {
					xs = append(xs, o.X)
					if a := o.Metrics["accuracy"]; !(a > 0 && a <= 100) {
						t.Errorf("%s trial %d at %v labels: accuracy %v", r.Method, r.Trial, o.X, a)
					}
				}
				if !slices.Equal(xs, []float64{6, 14, 22, 30}) {
					t.Errorf("%s trial %d: observations at %v; want [6 14 22 30]", r.Method, r.Trial, xs)
				}
				if r.Size != 30 || r.TestRows != 60 {
					t.Errorf("%s trial %d: size %d, test rows %d; want 30 and 60", r.Method, r.Trial, r.Size, r.TestRows)
				}
				if r.Method == "rows" {
					for _, o := range r.Points() {
						prints[r.Trial] = append(prints[r.Trial], o.Extras["fingerprint"])
					}
				}
			}
			if len(prints) != 3 || reflect.DeepEqual(prints[0], prints[1]) {
				t.Errorf("fingerprints %v: want one series per replicate, differing between replicates", prints)
			}
			// Random queries come from the trial's seed: a second method
			// recording fingerprints would see the same rows — rerun the
			// plan with the methods in the other order and compare.
			spec2 := activeSpec(strategy)
			slices.Reverse(spec2.Methods)
			sum2 := runSpec(t, spec2, t.TempDir(), 1, nil)
			for _, r := range sum2.Results {
				if r.Method != "rows" {
					continue
				}
				var got []float64
				for _, o := range r.Points() {
					got = append(got, o.Extras["fingerprint"])
				}
				if !reflect.DeepEqual(got, prints[r.Trial]) {
					t.Errorf("trial %d: labelled sets differ with the method order: %v vs %v", r.Trial, got, prints[r.Trial])
				}
			}
			if again := runSpec(t, sp, dir, 2, nil); again.Ran != 0 {
				t.Errorf("rerun ran %d trials", again.Ran)
			}
		})
	}
}

func TestActiveProtocolErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*spec.Spec)
		want string
	}{
		{"rest split", func(s *spec.Spec) { s.Datasets[0].Split = spec.Split{Kind: "rest"} }, "needs a fixed test part"},
		{"initial above budget", func(s *spec.Spec) { s.Protocol.Params["initial"] = 40 }, "initial 40 exceeds the budget 30"},
		{"oracle select", func(s *spec.Spec) {
			s.Methods = []spec.MethodSpec{method("fake-centroid", "oracle", "test", []string{"shrink", "noise"}, []any{0.0, 0.9}, []any{0.0})}
			s.Baseline = ""
		}, "cannot select on the test part"},
		{"unknown strategy", func(s *spec.Spec) { s.Protocol.Params["strategy"] = "randon" }, `parameter "strategy": "randon" is not a query strategy (did you mean "random"?)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp := activeSpec("random")
			tc.edit(sp)
			sum := runSpec(t, sp, t.TempDir(), 2, nil)
			for _, r := range sum.Results {
				if !strings.Contains(r.Error, tc.want) {
					t.Errorf("%s: error %q; want it to contain %q", r.Method, r.Error, tc.want)
				}
			}
		})
	}
}

// kfold: each (fold, repeat) is a trial whose test part is one fold; the
// folds of a repeat partition the rows and differ between repeats.
func TestKFoldSplit(t *testing.T) {
	sp := blobsSpec()
	sp.Datasets[0].Split = spec.Split{Kind: "kfold", Params: param.Values{"folds": 4, "repeats": 2, "stratify": true}}
	sp.Curve = spec.Curve{Sizes: []float64{20}, Trials: 1, Sampling: "random"}
	sp.Methods = sp.Methods[:1]
	sp.Methods[0].Grid = sp.Methods[0].Grid[:1]
	sp.Methods[0].Varying = nil
	plan, err := spec.NewPlan(sp)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Trials) != 8 {
		t.Fatalf("%d trials; want 4 folds × 2 repeats", len(plan.Trials))
	}
	d := loadBlobs(t, sp)
	kf, _ := LookupSplitter("kfold")
	seed := spec.Derive(sp.Seed, "split", "blobs")
	for rep := 0; rep < 2; rep++ {
		seen := make([]int, d.Rows())
		for f := 0; f < 4; f++ {
			part, err := kf.Split(d, sp.Datasets[0].Split.Params, SplitAt{Trial: rep*4 + f, Dataset: seed})
			if err != nil {
				t.Fatal(err)
			}
			if len(part.Test) != 60 || len(part.Pool) != 180 {
				t.Errorf("repeat %d fold %d: %d test, %d pool rows; want 60 and 180", rep, f, len(part.Test), len(part.Pool))
			}
			for _, i := range part.Test {
				seen[i]++
			}
		}
		for i, n := range seen {
			if n != 1 {
				t.Fatalf("repeat %d: row %d in %d test folds; want exactly 1", rep, i, n)
			}
		}
	}
	a, _ := kf.Split(d, sp.Datasets[0].Split.Params, SplitAt{Trial: 0, Dataset: seed})
	b, _ := kf.Split(d, sp.Datasets[0].Split.Params, SplitAt{Trial: 4, Dataset: seed})
	if slices.Equal(a.Test, b.Test) {
		t.Error("the first fold of both repeats is the same")
	}
	sum := runSpec(t, sp, t.TempDir(), 2, nil)
	for _, r := range sum.Results {
		if r.Failed() || r.TestRows != 60 || r.Size != 20 {
			t.Errorf("trial %d: size %d, test rows %d, error %q", r.Trial, r.Size, r.TestRows, r.Error)
		}
	}
}

func loadBlobs(t *testing.T, sp *spec.Spec) *datasets.Dataset {
	t.Helper()
	d, err := LoadDataset(context.Background(), datasets.Env{}, &sp.Datasets[0])
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A fit: pool transform is fitted on the pool without labels — never on
// the test part — once per distinct pool, whatever the number of methods
// and sizes sharing it; fit: train on each distinct training set.
func TestFittedTransforms(t *testing.T) {
	for _, tc := range []struct {
		fit       string
		wantRows  []int // distinct row counts fitted on
		wantCalls int64
	}{
		// 2 repeats × 3 folds = 6 pools of 160 rows, shared by 2 methods
		// and 2 sizes.
		{"pool", []int{160}, 6},
		// 6 pools × 2 sizes = 12 training sets; the two methods share them.
		{"train", []int{20, 40}, 12},
	} {
		t.Run(tc.fit, func(t *testing.T) {
			resetCenterFits()
			sp := blobsSpec()
			sp.Datasets[0].Transforms = []spec.TransformSpec{{Name: "fake-center", Params: param.Values{}, Fit: tc.fit}}
			sp.Datasets[0].Split = spec.Split{Kind: "kfold", Params: param.Values{"folds": 3, "repeats": 2, "stratify": true}}
			sp.Curve = spec.Curve{Sizes: []float64{20, 40}, Trials: 1, Sampling: "balanced"}
			sp.Methods = []spec.MethodSpec{
				method("fake-centroid", "centroid", "fixed", []string{"shrink", "noise"}, []any{0.0}, []any{0.0}),
				method("fake-rows", "rows", "fixed", nil),
			}
			sum := runSpec(t, sp, t.TempDir(), 1, nil)
			for _, r := range sum.Results {
				if r.Failed() {
					t.Fatalf("%s trial %d: %s", r.Method, r.Trial, r.Error)
				}
			}
			centerFits.Lock()
			defer centerFits.Unlock()
			if centerFits.labeled != 0 {
				t.Errorf("%d fits saw labels; an unsupervised transform must not", centerFits.labeled)
			}
			rows := slices.Compact(slices.Sorted(slices.Values(centerFits.rows)))
			if !slices.Equal(rows, tc.wantRows) {
				t.Errorf("fitted on row counts %v; want %v", rows, tc.wantRows)
			}
			if n := centerFits.calls.Load(); n != tc.wantCalls {
				t.Errorf("%d fits; want %d (one per distinct set of rows)", n, tc.wantCalls)
			}
		})
	}
}

// Centering fitted on the pool changes the data a method sees, and the
// pool's transform is the same for every method of the trial: a centroid
// classifier is translation invariant, so its accuracy is unchanged.
func TestFittedTransformInvariance(t *testing.T) {
	sp := blobsSpec()
	sp.Methods = sp.Methods[:1]
	sp.Curve.Trials = 2
	plain := runSpec(t, sp, t.TempDir(), 2, nil)
	sp.Datasets[0].Transforms = []spec.TransformSpec{{Name: "fake-center", Params: param.Values{}, Fit: "pool"}}
	centered := runSpec(t, sp, t.TempDir(), 2, nil)
	for i := range plain.Results {
		a, b := plain.Results[i], centered.Results[i]
		if a.Failed() || b.Failed() {
			t.Fatalf("failed: %q %q", a.Error, b.Error)
		}
		if math.Abs(a.Metrics["accuracy"]-b.Metrics["accuracy"]) > 1e-9 {
			t.Errorf("trial %d size %d: accuracy %v plain, %v centered", a.Trial, a.Size, a.Metrics["accuracy"], b.Metrics["accuracy"])
		}
	}
	if plain.Results[0].Key == centered.Results[0].Key {
		t.Error("adding a transform kept the trial key")
	}
}

// A NaN in a prediction fails the trial with the row it is in; it is never
// stored as a metric.
func TestNaNPredictionFails(t *testing.T) {
	for _, ds := range []string{"blobs", "line"} {
		sp := blobsSpec()
		if ds == "line" {
			sp.Datasets = []spec.DatasetSpec{{Name: "fake-line", ID: "line", Params: param.Values{"n": 60}, Split: spec.Split{Kind: "rest"}}}
			sp.Metrics = []string{"mse"}
			sp.Curve.Sampling = "random"
			sp.Curve.Sizes = []float64{12, 20, 0.5} // 0.5 of 60 rows is 30
		}
		sp.Methods = []spec.MethodSpec{method("fake-nan", "nan", "fixed", nil)}
		sp.Baseline = ""
		sum := runSpec(t, sp, t.TempDir(), 2, nil)
		for _, r := range sum.Results {
			if !strings.Contains(r.Error, "NaN") || r.Metrics != nil {
				t.Errorf("%s: error %q, metrics %v; want a NaN error and no metrics", ds, r.Error, r.Metrics)
			}
		}
	}
}

// Every registered splitter, selector and protocol has a doc line, and
// the built-in ones are there.
func TestRegistries(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  []string
	}{
		{spec.Splitters.Names(), []string{"given", "holdout", "kfold", "rest", "train"}},
		{spec.Selectors.Names(), []string{"cv", "fixed", "test"}},
		{spec.Protocols.Names(), []string{"active", "curve"}},
	} {
		for _, w := range tc.want {
			if !slices.Contains(tc.names, w) {
				t.Errorf("%s not registered among %v", w, tc.names)
			}
		}
	}
	for _, n := range spec.Protocols.Names() {
		p, _ := LookupProtocol(n)
		if p.Doc == "" || p.Run == nil {
			t.Errorf("protocol %s: no doc or Run", n)
		}
	}

}

// kfold with refold false: every repeat has the same folds, and the r
// trials of a fold are consecutive (trial t is fold t div r), so they
// share one pool.
func TestKFoldSameFolds(t *testing.T) {
	sp := blobsSpec()
	params := param.Values{"folds": 4, "repeats": 3, "stratify": true, "refold": false}
	d := loadBlobs(t, sp)
	kf, _ := LookupSplitter("kfold")
	seed := spec.Derive(sp.Seed, "split", "blobs")
	seen := make([]int, d.Rows())
	var first [][]int
	for tr := 0; tr < 12; tr++ {
		part, err := kf.Split(d, params, SplitAt{Trial: tr, Dataset: seed})
		if err != nil {
			t.Fatal(err)
		}
		if tr%3 == 0 {
			first = append(first, part.Test)
			for _, i := range part.Test {
				seen[i]++
			}
		} else if !slices.Equal(part.Test, first[tr/3]) {
			t.Errorf("trial %d: test fold differs from trial %d's; want fold %d repeated", tr, tr/3*3, tr/3)
		}
	}
	for i, n := range seen {
		if n != 1 {
			t.Fatalf("row %d in %d of the 4 folds; want exactly 1", i, n)
		}
	}
	// The folds are those of repeat 0 with refold true, in the same order.
	params["refold"] = true
	for f := 0; f < 4; f++ {
		part, _ := kf.Split(d, params, SplitAt{Trial: f, Dataset: seed})
		if !slices.Equal(part.Test, first[f]) {
			t.Errorf("fold %d differs from repeat 0's fold %d with refold true", f, f)
		}
	}
}
