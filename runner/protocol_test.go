package runner

import (
	"bytes"
	"context"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/internal/fakeplugin"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

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
			fakeplugin.ResetCenterFits()
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
			fitRows, labeled, calls := fakeplugin.CenterFits()
			if labeled != 0 {
				t.Errorf("%d fits saw labels; an unsupervised transform must not", labeled)
			}
			rows := slices.Compact(slices.Sorted(slices.Values(fitRows)))
			if !slices.Equal(rows, tc.wantRows) {
				t.Errorf("fitted on row counts %v; want %v", rows, tc.wantRows)
			}
			if n := calls; n != tc.wantCalls {
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

// Two series of one plugin under two query strategies, in one run:
// every trial of both starts from the same labelled rows and uses the
// same test rows, the series' observations follow their own batch and
// budget, a method with datasets runs only there, and a series whose
// protocol params equal the experiment's has the keys and results it
// would have without them.
func TestMethodProtocolSeries(t *testing.T) {
	sp := mustParse(t, seriesSpec)
	if !reflect.DeepEqual(sp.Methods[1].Protocol, param.Values{"strategy": "fake-first"}) || sp.Methods[0].Protocol != nil {
		t.Fatalf("protocol overrides %v, %v; want {strategy: fake-first} and nil", sp.Methods[1].Protocol, sp.Methods[0].Protocol)
	}
	sum := runSpec(t, sp, t.TempDir(), 2, nil)
	if len(sum.Plan.Trials) != 3*(2*2+1) {
		t.Fatalf("%d trials; want rand and first on a and b, short on a only (3 trials each)", len(sum.Plan.Trials))
	}
	type id struct {
		dataset, method string
		trial           int
	}
	prints := map[id][]float64{}
	xs := map[id][]float64{}
	for _, r := range sum.Results {
		if r.Failed() {
			t.Fatalf("%s %s trial %d: %s", r.Dataset, r.Method, r.Trial, r.Error)
		}
		k := id{r.Dataset, r.Method, r.Trial}
		for _, o := range r.Points() {
			xs[k] = append(xs[k], o.X)
			prints[k] = append(prints[k], o.Extras["fingerprint"])
		}
	}
	for k, x := range xs {
		want := []float64{6, 14, 22, 30}
		if k.method == "short" {
			want = []float64{6, 10, 14}
		}
		if !slices.Equal(x, want) {
			t.Errorf("%v: observations at %v; want %v", k, x, want)
		}
		if k.method == "short" && k.dataset != "a" {
			t.Errorf("%v: short runs only on a", k)
		}
	}
	differ := 0
	for _, ds := range []string{"a", "b"} {
		for tr := range 3 {
			rand, first := prints[id{ds, "rand", tr}], prints[id{ds, "first", tr}]
			if len(rand) != 4 || len(first) != 4 || rand[0] != first[0] {
				t.Errorf("%s trial %d: initial labelled sets differ between strategies: %v vs %v", ds, tr, rand, first)
				continue
			}
			if !slices.Equal(rand[1:], first[1:]) {
				differ++
			}
			if short := prints[id{ds, "short", tr}]; ds == "a" && (len(short) != 3 || short[0] != rand[0]) {
				t.Errorf("%s trial %d: short starts from %v, rand from %v", ds, tr, short, rand)
			}
		}
	}
	if differ == 0 {
		t.Error("random and fake-first queries bought the same rows in every trial")
	}

	// rand with {strategy: random} set for itself: the same keys and
	// the same results.
	same := mustParse(t, strings.Replace(seriesSpec, "{name: fake-rows, label: rand}", "{name: fake-rows, label: rand, protocol: {strategy: random}}", 1))
	sum2 := runSpec(t, same, t.TempDir(), 1, nil)
	got := map[string]results.Result{}
	for _, r := range sum2.Results {
		got[r.Key] = r
	}
	for _, r := range strip(sum.Results) {
		if r.Method != "rand" {
			continue
		}
		r2, ok := got[r.Key]
		if !ok {
			t.Errorf("%s trial %d: key %s missing with {strategy: random} set on the method", r.Dataset, r.Trial, r.Key)
			continue
		}
		if r2 = strip([]results.Result{r2})[0]; !reflect.DeepEqual(r.Observations, r2.Observations) {
			t.Errorf("%s trial %d: observations differ with {strategy: random} set on the method", r.Dataset, r.Trial)
		}
	}

	var b bytes.Buffer
	sum.Plan.Describe(&b)
	for _, want := range []string{
		"method first: fake-rows, 1 grid point, select fixed, protocol {strategy=fake-first}\n",
		"method short: fake-rows, 1 grid point, select fixed, protocol {batch=4 budget=14}, on a\n",
		"2 datasets × 3 methods (3 grid points) × 1 size × 3 trials, each method on its datasets = 15 trials, 57 fits\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("Describe:\n%s\nwant a line %q", b.String(), want)
		}
	}
	// 3 trials × (4 fits for rand and first on two datasets, 3 for short on a).
	if n, want := sum.Plan.Fits(), 3*(4*4+3); n != want {
		t.Errorf("Fits() = %d, want %d", n, want)
	}
}
