package runner

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// seriesSpec is an active-learning experiment with two datasets whose
// methods set protocol params of their own and datasets to run on.
const seriesSpec = `name: t
seed: 5
datasets:
  - {name: fake-blobs, id: a, params: {n: 120}, split: {kind: holdout, test: 0.5}}
  - {name: fake-blobs, id: b, params: {n: 90}, split: {kind: holdout, test: 0.5}}
methods:
  - {name: fake-rows, label: rand}
  - {name: fake-rows, label: first, protocol: {strategy: fake-first}}
  - {name: fake-rows, label: short, protocol: {budget: 14, batch: 4}, datasets: [a]}
protocol: {name: active, initial: 6, batch: 8, budget: 30, strategy: random}
curve: {trials: 3, sampling: stratified}
metrics: [accuracy]
baseline: rand
expect:
  - {dataset: a, metric: accuracy, better: first, than: short, by: 0}
`

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

// A method's protocol params are part of its trials' keys only where
// they change a value: keys of specs without them are those of earlier
// runs, and datasets: leaves the keys of the trials that run alone.
func TestMethodProtocolKeys(t *testing.T) {
	keys := func(sp *spec.Spec) map[string]string {
		p, err := spec.NewPlan(sp)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, tr := range p.Trials {
			out[tr.Dataset.ID+" "+tr.Series()+" "+param.Format(tr.Index)] = tr.Key
		}
		return out
	}
	base := keys(activeSpec("random"))
	// Pinned: the key of the first trial as main computed it before
	// methods could set protocol params (8df35f5).
	if k := base["blobs rows 0"]; k != pinnedActiveKey {
		t.Errorf("activeSpec's first key %s; want %s as before", k, pinnedActiveKey)
	}

	same := activeSpec("random")
	same.Methods[0].Protocol = param.Values{"strategy": "random", "budget": 30}
	if got := keys(same); !reflect.DeepEqual(got, base) {
		t.Errorf("protocol params equal to the experiment's changed keys:\n%v\n%v", got, base)
	}
	other := activeSpec("random")
	other.Methods[0].Protocol = param.Values{"strategy": "fake-first"}
	got := keys(other)
	for k, v := range base {
		if changed := got[k] != v; changed != strings.HasPrefix(k, "blobs rows ") {
			t.Errorf("%s: key changed %v; want a change only for the series with its own strategy", k, changed)
		}
	}
	restricted := activeSpec("random")
	restricted.Methods[1].Datasets = []string{"blobs"}
	if got := keys(restricted); !reflect.DeepEqual(got, base) {
		t.Error("datasets: naming the only dataset changed keys")
	}
	restricted.Methods[1].Datasets = []string{"elsewhere"}
	if got := keys(restricted); len(got) != len(base)-3 {
		t.Errorf("%d trials with a method on no dataset of the spec; want %d", len(got), len(base)-3)
	}
}

const pinnedActiveKey = "02dc6712305007cf831b38ff"

// Every error about a method's protocol params, its datasets and the
// query strategy names the file, line, column and field.
func TestMethodSeriesErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"strategy misspelt", `name: t
datasets: [{name: fake-blobs, split: {kind: holdout, test: 0.5}}]
methods: [{name: fake-centroid}]
protocol: {name: active, strategy: uncertanty}
metrics: [accuracy]
`, `t.yaml:4:36: protocol.strategy: "uncertanty" is not a query strategy (did you mean "uncertainty"?); want one of `},
		{"method strategy misspelt", `name: t
datasets: [{name: fake-blobs, split: {kind: holdout, test: 0.5}}]
methods:
  - {name: fake-centroid, label: unc, protocol: {strategy: uncertanty}}
protocol: {name: active}
metrics: [accuracy]
`, `t.yaml:4:60: methods[0].protocol.strategy: "uncertanty" is not a query strategy (did you mean "uncertainty"?); want one of `},
		{"method protocol key misspelt", `name: t
datasets: [{name: fake-blobs, split: {kind: holdout, test: 0.5}}]
methods:
  - {name: fake-centroid, protocol: {stratgy: random}}
protocol: {name: active}
metrics: [accuracy]
`, `t.yaml:4:38: methods[0].protocol.stratgy: unknown parameter "stratgy" (did you mean "strategy"?); want one of initial, batch, budget, strategy, budgets`},
		{"method protocol key not per method", `name: t
datasets: [{name: fake-blobs, split: {kind: holdout, test: 0.5}}]
methods:
  - {name: fake-centroid, protocol: {full: [all]}}
protocol: {name: active}
metrics: [accuracy]
`, `t.yaml:4:38: methods[0].protocol.full: unknown parameter "full"; want one of initial, batch, budget, strategy, budgets`},
		{"method batch out of range", `name: t
datasets: [{name: fake-blobs, split: {kind: holdout, test: 0.5}}]
methods:
  - {name: fake-centroid, protocol: {batch: 0}}
protocol: {name: active}
metrics: [accuracy]
`, `t.yaml:4:45: methods[0].protocol.batch: 0 is out of range; want int in [1, +inf)`},
		{"method protocol under curve", `name: t
datasets: [{name: fake-blobs}]
methods:
  - {name: fake-centroid, protocol: {strategy: random}}
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:4:38: methods[0].protocol.strategy: protocol curve does not let a method set strategy; want no protocol params: it lets a method set none`},
		{"method budgets of an unknown dataset", `name: t
datasets: [{name: fake-blobs, id: cora, split: {kind: holdout, test: 0.5}}]
methods:
  - {name: fake-centroid, protocol: {budgets: {coral: 40}}}
protocol: {name: active}
metrics: [accuracy]
`, `t.yaml:4:48: methods[0].protocol.budgets.coral: unknown dataset "coral" (did you mean "cora"?); want a dataset id: cora`},
		{"method datasets misspelt", `name: t
datasets:
  - {name: fake-blobs, id: cora}
  - {name: fake-blobs, id: citeseer}
methods:
  - {name: fake-centroid, datasets: [cora, citeseeer]}
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:6:44: methods[0].datasets[1]: unknown dataset "citeseeer" (did you mean "citeseer"?); want a dataset id: cora, citeseer`},
		{"method datasets empty", `name: t
datasets: [{name: fake-blobs}]
methods:
  - {name: fake-centroid, datasets: []}
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:4:37: methods[0].datasets: empty list; want at least one dataset id`},
		{"expectation on a dataset the method skips", `name: t
datasets:
  - {name: fake-blobs, id: cora}
  - {name: fake-blobs, id: citeseer}
methods:
  - {name: fake-centroid, label: A}
  - {name: fake-centroid, label: B, datasets: [cora]}
curve: {sizes: [10]}
metrics: [accuracy]
expect:
  - {dataset: citeseer, metric: accuracy, better: A, than: B}
`, `t.yaml:11:60: expect[0].than: method "B" does not run on dataset "citeseer" (its datasets: cora); want a series that does, or citeseer in its datasets`},
		{"wtl count of a series on a dataset it skips", `name: t
datasets:
  - {name: fake-blobs, id: cora}
  - {name: fake-blobs, id: citeseer}
methods:
  - {name: fake-centroid, label: A}
  - {name: fake-centroid, label: B, datasets: [cora]}
curve: {sizes: [10]}
metrics: [accuracy]
expect:
  - {dataset: citeseer, metric: accuracy, wtl: {series: B, than: A, wins: 1, ties: 0, losses: 0}}
`, `t.yaml:11:57: expect[0].wtl.series: method "B" does not run on dataset "citeseer"`},
		{"choose among datasets the method half runs on", `name: t
datasets:
  - {name: fake-blobs, id: x}
  - {name: fake-blobs, id: y}
methods:
  - {name: fake-centroid, params: {shrink: [0, 0.5]}, select: {rule: cv, folds: 2}, datasets: [x]}
curve: {sizes: [10]}
metrics: [accuracy]
report: {choose: [{id: best, among: [x, y]}]}
`, `t.yaml:6:95: methods[0].datasets: runs on x but not on y, which report.choose "best" chooses among; want all of them or none`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := spec.Parse("t.yaml", []byte(tt.src), nil)
			var se *spec.SpecError
			if !errors.As(err, &se) {
				t.Fatalf("error %v (spec %+v); want a *SpecError", err, s)
			}
			if len(se.Errs) != 1 {
				t.Errorf("%d errors, want 1:\n%v", len(se.Errs), err)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error:\n%v\nwant prefix:\n%s", err, tt.want)
			}
		})
	}
}

// A method's protocol params and datasets survive spec.yaml: the stored
// spec plans the same trials with the same keys.
func TestMethodSeriesRoundTrip(t *testing.T) {
	s := mustParse(t, seriesSpec)
	b, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"protocol: {strategy: fake-first}", "protocol: {batch: 4, budget: 14}", "datasets: [a]"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("spec.yaml lacks %q:\n%s", want, b)
		}
	}
	for _, read := range []func() (*spec.Spec, error){
		func() (*spec.Spec, error) { return spec.Parse("spec.yaml", b, nil) },
		func() (*spec.Spec, error) { return parseFree(t, b, true) }, // ReadSpec's registry-free reading
	} {
		s2, err := read()
		if err != nil {
			t.Fatalf("%v\n%s", err, b)
		}
		if !reflect.DeepEqual(planKeys(t, s), planKeys(t, s2)) {
			t.Errorf("keys differ after a round trip:\n%s", b)
		}
	}
}
