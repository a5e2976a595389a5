package spec_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/spec"
)

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
