package spec_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/repro-ml/repro/internal/yamlpos"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/spec"
)

func TestParseGood(t *testing.T) {
	s := mustParse(t, goodSpec)
	if s.Name != "quickstart" || s.Seed != 3 || s.File != "t.yaml" {
		t.Errorf("name %q seed %d file %q", s.Name, s.Seed, s.File)
	}
	ds := s.Datasets[0]
	wantParams := param.Values{"n": 120, "d": 5, "classes": 3, "spread": 1.0, "given": false}
	if ds.ID != "blobs" || !reflect.DeepEqual(ds.Params, wantParams) {
		t.Errorf("dataset %q params %#v, want blobs %#v", ds.ID, ds.Params, wantParams)
	}
	if ds.Split.Kind != "holdout" || ds.Split.Params.Label() != "stratify=true test=0.25" || ds.Pos != (spec.Pos{Line: 5, Column: 5}) {
		t.Errorf("split %+v pos %+v", ds.Split, ds.Pos)
	}
	if len(ds.Transforms) != 1 || ds.Transforms[0].Params.Float("factor") != 2 || ds.Transforms[0].Pos != (spec.Pos{Line: 10, Column: 9}) {
		t.Errorf("transforms %+v", ds.Transforms)
	}
	cv := s.Methods[1]
	if !reflect.DeepEqual(cv.Select, spec.Select{Rule: "cv", Folds: 3, Metric: "accuracy"}) || cv.Pos != (spec.Pos{Line: 15, Column: 5}) {
		t.Errorf("cv method select %+v pos %+v; want the metric to default to the first of metrics", cv.Select, cv.Pos)
	}
	if s.Methods[0].Select.Rule != "fixed" || s.Methods[2].Label != "fake-knobs" {
		t.Errorf("defaults: rule %q label %q", s.Methods[0].Select.Rule, s.Methods[2].Label)
	}
	knobs := s.Methods[2].Grid[0]
	if knobs.String("tag") != "1.0" || !reflect.DeepEqual(knobs.Map("cols"), map[string]string{"a": "x", "b": "2"}) {
		t.Errorf("string params keep their literal text: tag %q cols %v", knobs.String("tag"), knobs.Map("cols"))
	}
	if !reflect.DeepEqual(s.Curve, spec.Curve{Sizes: []float64{12, 30, 0.5}, Trials: 2, Sampling: "balanced"}) {
		t.Errorf("curve %+v", s.Curve)
	}
	if !reflect.DeepEqual(s.Report, spec.ReportSpec{LogX: true, X: "shrink"}) {
		t.Errorf("report %+v", s.Report)
	}
	if len(s.Expect) != 2 || *s.Expect[0].RTol != 0.2 || s.Expect[1].By != 1 || !reflect.DeepEqual(s.Expect[1].Sizes, []float64{30}) || s.Expect[1].Pos != (spec.Pos{Line: 28, Column: 5}) {
		t.Errorf("expect %+v", s.Expect)
	}
	plan, err := spec.NewPlan(s)
	if err != nil {
		t.Fatal(err)
	}
	// centroid 2 points + cv 1 + knobs 2 points, 3 sizes, 2 trials.
	if got, want := len(plan.Trials), 5*3*2; got != want {
		t.Errorf("%d trials, want %d", got, want)
	}
}

func TestParseDefaults(t *testing.T) {
	s := mustParse(t, `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid, select: {rule: test}}]
curve: {sizes: [10]}
metrics: [auc, accuracy]
`)
	if s.Seed != spec.DefaultSeed || s.Curve.Trials != 1 || s.Curve.Sampling != "random" {
		t.Errorf("seed %d trials %d sampling %q", s.Seed, s.Curve.Trials, s.Curve.Sampling)
	}
	if ds := s.Datasets[0]; ds.ID != "fake-blobs" || ds.Split.Kind != "rest" || ds.Params.Int("n") != 300 {
		t.Errorf("dataset defaults: %+v", ds)
	}
	if m := s.Methods[0]; m.Label != "fake-centroid" || !reflect.DeepEqual(m.Select, spec.Select{Rule: "test", Metric: "auc"}) || len(m.Grid) != 1 {
		t.Errorf("method defaults: %+v", m)
	}
	if s.Report.X != "size" || s.Report.Digits != nil || s.Report.Artifacts != "" {
		t.Errorf("report defaults: %+v", s.Report)
	}
}

// The minimal valid spec the malformed cases start from:
//
//	name: t
//	datasets: [{name: fake-blobs}]
//	methods: [{name: fake-centroid}]
//	curve: {sizes: [10]}
//	metrics: [accuracy]
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string // the one error, as a prefix of its line
	}{
		{"unknown top-level key", `name: t
sede: 1
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:2:1: sede: unknown field (did you mean "seed"?); want one of name, description, seed,`},
		{"trials not a number", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
curve:
  sizes: [10]
  trials: five
metrics: [accuracy]
`, `t.yaml:6:11: curve.trials: got "five"; want an integer`},
		{"trials zero", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
curve:
  sizes: [10]
  trials: 0
metrics: [accuracy]
`, `t.yaml:6:11: curve.trials: 0 is out of range; want int in [1, 100000]`},
		{"negative size", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
curve:
  sizes: [10, -5]
metrics: [accuracy]
`, `t.yaml:5:15: curve.sizes[1]: -5 is out of range; want a count ≥ 2 or a fraction in (0, 1]`},
		{"fractional count", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
curve:
  sizes: [2.5]
metrics: [accuracy]
`, `t.yaml:5:11: curve.sizes[0]: 2.5 is not a whole number of rows; want a count ≥ 2 or a fraction in (0, 1]`},
		{"huge count", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
curve:
  sizes: [1e30]
metrics: [accuracy]
`, `t.yaml:5:11: curve.sizes[0]: 1e30 is too large for a count of rows; want a count ≥ 2 or a fraction in (0, 1]`},
		{"empty sizes", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
curve:
  sizes: []
metrics: [accuracy]
`, `t.yaml:5:10: curve.sizes: empty list; want at least one training size`},
		{"missing name", `datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:1:1: name: missing; want the experiment's name`},
		{"missing curve", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
metrics: [accuracy]
`, `t.yaml:1:1: curve: missing; want a mapping with sizes`},
		{"unknown dataset plugin", `name: t
datasets: [{name: fake-blob}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:2:19: datasets[0].name: unknown dataset "fake-blob" (did you mean "fake-blobs"?); want one of `}, // the list: every dataset linked, the papers' too (example_test.go)
		{"unknown method plugin", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroids}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:3:18: methods[0].name: unknown method "fake-centroids" (did you mean "fake-centroid"?); want one of `},
		{"unknown method param", `name: t
datasets: [{name: fake-blobs}]
methods:
  - name: fake-centroid
    params: {shrnk: 0.1}
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:5:14: methods[0].params.shrnk: unknown parameter "shrnk" (did you mean "shrink"?); want one of shrink, noise`},
		{"param out of range", `name: t
datasets: [{name: fake-blobs}]
methods:
  - name: fake-centroid
    params: {shrink: 2}
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:5:22: methods[0].params.shrink: 2 is out of range; want float in [0, 1]`},
		{"grid value out of range", `name: t
datasets: [{name: fake-blobs}]
methods:
  - name: fake-centroid
    params: {shrink: [0, 1.5]}
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:5:26: methods[0].params.shrink[1]: 1.5 is out of range; want float in [0, 1]`},
		{"duplicate grid value", `name: t
datasets: [{name: fake-blobs}]
methods:
  - name: fake-centroid
    params: {shrink: [0.5, 0.5]}
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:5:28: methods[0].params.shrink[1]: duplicate grid value 0.5; want each value once`},
		{"dataset param wrong type", `name: t
datasets: [{name: fake-blobs, params: {n: abc}}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:2:43: datasets[0].params.n: got "abc"; want an integer`},
		{"dataset param grid", `name: t
datasets: [{name: fake-blobs, params: {n: [100, 200]}}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:2:43: datasets[0].params.n: a list of values is a grid, and dataset parameters cannot be grids`},
		{"missing required transform param", `name: t
datasets:
  - name: fake-blobs
    transforms:
      - {name: fake-scale}
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:5:9: datasets[0].transforms[0].params.factor: missing required parameter; want float in (0, +inf) (the multiplier)`},
		{"unknown transform", `name: t
datasets:
  - name: fake-blobs
    transforms:
      - {name: fake-scal}
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:5:16: datasets[0].transforms[0].name: unknown transform "fake-scal" (did you mean "fake-scale"?)`},
		{"unknown metric", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [acuracy]
`, `t.yaml:5:11: metrics[0]: unknown metric "acuracy" (did you mean "accuracy"?)`},
		{"duplicate metric", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy, accuracy]
`, `t.yaml:5:21: metrics[1]: duplicate metric "accuracy"; want each metric once`},
		{"bad select rule", `name: t
datasets: [{name: fake-blobs}]
methods:
  - name: fake-centroid
    select: {rule: cross}
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:5:20: methods[0].select.rule: unknown value "cross"; want one of cv, fixed, test`},
		{"cv with one fold", `name: t
datasets: [{name: fake-blobs}]
methods:
  - name: fake-centroid
    select: {rule: cv, folds: 1}
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:5:31: methods[0].select.folds: 1 is out of range; want int in [2, 1000]`},
		{"bad split kind", `name: t
datasets:
  - name: fake-blobs
    split: {kind: holdut}
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:4:19: datasets[0].split.kind: unknown value "holdut" (did you mean "holdout"?); want one of given, holdout, kfold, rest, train`},
		{"active budgets not a count", `name: t
datasets:
  - name: fake-blobs
    split: {kind: holdout, test: 50}
methods: [{name: fake-centroid}]
protocol: {name: active, budgets: {fake-blobs: ten}}
curve: {sampling: random}
metrics: [accuracy]
`, `t.yaml:6:35: protocol.budgets: a mapping fake-blobs: "ten" is not a whole number of labels ≥ 1`},
		{"active full names no method", `name: t
datasets:
  - name: fake-blobs
    split: {kind: holdout, test: 50}
methods: [{name: fake-centroid, label: C}]
protocol: {name: active, full: [C, c2]}
curve: {sampling: random}
metrics: [accuracy]
`, `t.yaml:6:36: protocol.full[1]: unknown method "c2" (did you mean "C"?); want all or a method label (C)`},
		{"active budgets names no dataset", `name: t
datasets:
  - name: fake-blobs
    split: {kind: holdout, test: 50}
methods: [{name: fake-centroid}]
protocol: {name: active, budgets: {fake-blob: 30}}
curve: {sampling: random}
metrics: [accuracy]
`, `t.yaml:6:36: protocol.budgets.fake-blob: unknown dataset "fake-blob" (did you mean "fake-blobs"?); want a dataset id: fake-blobs`},
		{"holdout without test", `name: t
datasets:
  - name: fake-blobs
    split: {kind: holdout}
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:4:12: datasets[0].split.test: missing for kind holdout; want `},
		{"test with kind rest", `name: t
datasets:
  - name: fake-blobs
    split: {kind: rest, test: 10}
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:4:31: datasets[0].split.test: only used by kind holdout, not rest; want no test`},
		{"bad sampling", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
curve: {sizes: [10], sampling: uniform}
metrics: [accuracy]
`, `t.yaml:4:32: curve.sampling: unknown value "uniform"; want one of random, stratified, balanced`},
		{"duplicate dataset ids", `name: t
datasets: [{name: fake-blobs}, {name: fake-blobs}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:2:39: datasets[1].id: duplicate dataset id "fake-blobs" (first at line 2); want a unique id for each entry`},
		{"duplicate method labels", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}, {name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:3:41: methods[1].label: duplicate method label "fake-centroid" (first at line 3); want a unique label for each entry`},
		{"unknown baseline", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
baseline: ridge
`, `t.yaml:6:11: baseline: unknown method "ridge"; want a method label (fake-centroid) or a grid variant`},
		{"report.x not a plain name", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
report: {x: "a b"}
`, `t.yaml:6:13: report.x: "a b" is not a plain name`},
		{"expect unknown dataset", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
expect:
  - {dataset: blob, method: fake-centroid, metric: accuracy, min: 50}
`, `t.yaml:7:15: expect[0].dataset: unknown dataset "blob"; want a dataset id: fake-blobs`},
		{"expect unknown method", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
expect:
  - {method: centroid, metric: accuracy, min: 50}
`, `t.yaml:7:14: expect[0].method: unknown method "centroid"`},
		{"expect metric not computed", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
expect:
  - {method: fake-centroid, metric: auc, min: 50}
`, `t.yaml:7:37: expect[0].metric: "auc" is not computed by this experiment; want one of metrics: accuracy`},
		{"expect neither check nor relation", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
expect:
  - {metric: accuracy, source: x}
`, `t.yaml:7:5: expect[0]: neither a value check, a relation nor a Win/Tie/Loss count`},
		{"expect both check and relation", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
expect:
  - {method: fake-centroid, better: fake-centroid, than: fake-centroid, metric: accuracy, min: 1}
`, `t.yaml:7:5: expect[0]: more than one of a value check (method, value, min, max), a relation (better, than) and a Win/Tie/Loss count (wtl); want one of them per entry`},
		{"expect value without tolerance", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
expect:
  - {method: fake-centroid, metric: accuracy, value: 90}
`, `t.yaml:7:54: expect[0].value: no tolerance; want tol (absolute), rtol (relative) or sds (standard deviations of ours) beside value`},
		{"expect by and within", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid, label: a}, {name: fake-centroid, label: b}]
curve: {sizes: [10]}
metrics: [accuracy]
expect:
  - {better: a, than: b, metric: accuracy, by: 1, within: 2}
`, `t.yaml:7:59: expect[0].within: both by (Better wins by a margin) and within (Better trails by at most a margin); want one of them`},
		{"expect within on a value check", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
expect:
  - {method: fake-centroid, metric: accuracy, min: 50, within: 1}
`, `t.yaml:7:64: expect[0].within: within belongs to a relation; want better and than with it, or no within`},
		{"report.choose among unknown", `name: t
datasets: [{name: fake-blobs, id: a}, {name: fake-blobs, id: b}]
methods: [{name: fake-centroid, params: {shrink: [0, 0.5]}, select: {rule: cv, folds: 2}}]
curve: {sizes: [10]}
metrics: [accuracy]
report:
  choose: [{id: best, among: [a, bb]}]
`, `t.yaml:7:34: report.choose[0].among[1]: unknown dataset "bb" (did you mean "b"?); want a dataset id: a, b`},
		{"report.choose id of datasets", `name: t
datasets: [{name: fake-blobs, id: a}, {name: fake-blobs, id: b}]
methods: [{name: fake-centroid, params: {shrink: [0, 0.5]}, select: {rule: cv, folds: 2}}]
curve: {sizes: [10]}
metrics: [accuracy]
report:
  choose: [{id: a, among: [a, b]}]
`, `t.yaml:7:17: report.choose[0].id: "a" is an id of datasets:; want a new id for the chosen dataset`},
		{"report.choose one dataset", `name: t
datasets: [{name: fake-blobs, id: a}, {name: fake-blobs, id: b}]
methods: [{name: fake-centroid, params: {shrink: [0, 0.5]}, select: {rule: cv, folds: 2}}]
curve: {sizes: [10]}
metrics: [accuracy]
report:
  choose: [{id: best, among: [a]}]
`, `t.yaml:7:30: report.choose[0].among: 1 dataset id(s); want two or more to choose among`},
		{"report.choose duplicate id", `name: t
datasets: [{name: fake-blobs, id: a}, {name: fake-blobs, id: b}]
methods: [{name: fake-centroid, params: {shrink: [0, 0.5]}, select: {rule: cv, folds: 2}}]
curve: {sizes: [10]}
metrics: [accuracy]
report:
  choose: [{id: best, among: [a, b]}, {id: best, among: [b, a]}]
`, `t.yaml:7:44: report.choose[1].id: duplicate id "best"; want each report.choose id once`},
		{"report.choose id unknown to expect", `name: t
datasets: [{name: fake-blobs, id: a}, {name: fake-blobs, id: b}]
methods: [{name: fake-centroid, params: {shrink: [0, 0.5]}, select: {rule: cv, folds: 2}}]
curve: {sizes: [10]}
metrics: [accuracy]
report:
  choose: [{id: best, among: [a, b]}]
expect:
  - {dataset: bset, method: fake-centroid, metric: accuracy, min: 50}
`, `t.yaml:9:15: expect[0].dataset: unknown dataset "bset" (did you mean "best"?); want a dataset id: a, b, best`},
		{"report.choose fixed rule", `name: t
datasets: [{name: fake-blobs, id: a}, {name: fake-blobs, id: b}]
methods: [{name: fake-centroid, params: {shrink: [0, 0.5]}}]
curve: {sizes: [10]}
metrics: [accuracy]
report:
  choose: [{id: best, among: [a, b]}]
`, `t.yaml:7:12: report.choose[0]: method "fake-centroid": select rule fixed chooses nothing, so its trials have no select score to choose a dataset by; want every method with a choosing rule (cv, test) over two or more grid points, or no report.choose`},
		{"report.choose one grid point", `name: t
datasets: [{name: fake-blobs, id: a}, {name: fake-blobs, id: b}]
methods: [{name: fake-centroid, select: {rule: test}}]
curve: {sizes: [10]}
metrics: [accuracy]
report:
  choose: [{id: best, among: [a, b]}]
`, `t.yaml:7:12: report.choose[0]: method "fake-centroid": select rule test has one grid point to choose from, so its trials have no select score to choose a dataset by; want every method with a choosing rule (cv, test) over two or more grid points, or no report.choose`},
		{"report.x unknown", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid, params: {shrink: [0, 0.5]}}]
curve: {sizes: [10]}
metrics: [accuracy]
report: {x: shrnk}
`, `t.yaml:6:13: report.x: unknown x "shrnk" (did you mean "shrink"?); want size or a param a method's series vary (size, shrink)`},
		{"expect size not in curve", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
curve: {sizes: [10, 20]}
metrics: [accuracy]
expect:
  - {method: fake-centroid, metric: accuracy, min: 50, sizes: [20, 15]}
`, `t.yaml:7:68: expect[0].sizes[1]: 15 is not a training size of curve.sizes; want one of 10, 20`},
		{"active initial over budget", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
protocol: {name: active, budget: 5}
metrics: [accuracy]
`, `t.yaml:4:34: protocol.budget: 10 initial labelled rows, but a budget of 5; want initial ≤ budget`},
		{"transform fit, applied only", `name: t
datasets: [{name: fake-blobs, transforms: [{name: fake-scale, params: {factor: 2}, fit: pool}]}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:2:89: datasets[0].transforms[0].fit: transform fake-scale runs once on the whole dataset and cannot be fitted in each trial; want no fit`},
		{"transform no fit, fitted only", `name: t
datasets: [{name: fake-blobs, transforms: [{name: fake-center}]}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:2:44: datasets[0].transforms[0].fit: missing: transform fake-center is fitted in each trial; want fit: pool or fit: train`},
		{"samples_of unknown", `name: t
datasets: [{name: fake-blobs, id: a}, {name: fake-blobs, id: b, samples_of: c}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:2:77: datasets[1].samples_of: unknown dataset "c"`},
		{"samples_of itself", `name: t
datasets: [{name: fake-blobs, id: a}, {name: fake-blobs, id: b, samples_of: b}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:2:77: datasets[1].samples_of: names this entry itself; want the id of another entry, or no samples_of`},
		{"samples_of a chain", `name: t
datasets:
  - {name: fake-blobs, id: a}
  - {name: fake-blobs, id: b, samples_of: a}
  - {name: fake-blobs, id: c, samples_of: b}
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:5:43: datasets[2].samples_of: dataset "b" itself takes the samples of "a"; want "a"`},
		{"samples_of another split", `name: t
datasets:
  - {name: fake-blobs, id: a, split: {kind: holdout, test: 0.3}}
  - {name: fake-blobs, id: b, samples_of: a, split: {kind: holdout, test: 0.2}}
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:4:43: datasets[1].samples_of: dataset "a" is split holdout test 0.3, this entry holdout test 0.2; want the same split to share its samples`},
		{"expect than_dataset unknown", `name: t
datasets: [{name: fake-blobs, id: a}, {name: fake-blobs, id: b}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
expect:
  - {dataset: a, better: fake-centroid, than: fake-centroid, than_dataset: c, metric: accuracy}
`, `t.yaml:7:76: expect[0].than_dataset: unknown dataset "c"`},
		{"expect than_dataset is the own dataset", `name: t
datasets: [{name: fake-blobs, id: a}, {name: fake-blobs, id: b}]
methods: [{name: fake-centroid, label: x}, {name: fake-centroid, label: y}]
curve: {sizes: [10]}
metrics: [accuracy]
expect:
  - {dataset: a, better: x, than: y, than_dataset: a, metric: accuracy}
`, `t.yaml:7:52: expect[0].than_dataset: "a" is the expectation's own dataset`},
		{"expect than_dataset on a value check", `name: t
datasets: [{name: fake-blobs, id: a}, {name: fake-blobs, id: b}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
expect:
  - {dataset: a, method: fake-centroid, metric: accuracy, min: 50, than_dataset: b}
`, `t.yaml:7:82: expect[0].than_dataset: than_dataset belongs to a relation`},
		{"select over with rule fixed", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid, params: {shrink: [0, 0.5]}, select: {rule: fixed, over: [shrink]}}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:3:89: methods[0].select.over: only used by rules cv and test, not fixed; want no over`},
		{"select over a param that does not vary", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid, params: {shrink: [0, 0.5]}, select: {rule: cv, over: [noise]}}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:3:87: methods[0].select.over[0]: "noise" is not a varying param of method fake-centroid; want one of shrink`},
		{"root is a list", "- a\n- b\n", `t.yaml:1:1: got a list; want a mapping with keys name,`},
		{"invalid YAML", "name: t\ndatasets: [{name: fake-blobs}\nmethods: x\n", `t.yaml:2:11: invalid YAML: this [ is not closed`},
		{"empty file", "\n# nothing\n", `t.yaml: empty spec; want a mapping`},
		{"two documents", "name: t\ndatasets: [{name: fake-blobs}]\nmethods: [{name: fake-centroid}]\ncurve: {sizes: [10]}\nmetrics: [accuracy]\n---\nname: u\n",
			`t.yaml:6:1: a second YAML document; want one experiment per file`},
		{"duplicate key", `name: t
name: u
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:2:1: name: duplicate key; first given at line 1`},
		{"metric of another problem kind", `name: t
datasets: [{name: fake-line}]
methods: [{name: fake-mean}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:3:18: methods[0].name: method fake-mean handles regression but metric accuracy applies to classification`},
		{"bad tasks", `name: t
datasets:
  - name: fake-blobs
    tasks: ovr
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:4:12: datasets[0].tasks: unknown value "ovr"; want one of one-vs-rest`},
		{"label with parentheses", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid, label: "a (b)"}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:3:40: methods[0].label: "a (b)" is not a usable label`},
		{"missing required method param", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-knobs}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:3:11: methods[0].params.tag: missing required parameter; want string (a required string)`},
		{"bad enum value", `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-knobs, params: {tag: x, mode: c}}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:3:53: methods[0].params.mode: unknown value "c" (did you mean "a"?); want one of a, b`},
		{"negative seed", `name: t
seed: -1
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:2:7: seed: -1 is out of range; want int in [0, +inf)`},
		{"name with a slash", `name: ../t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:1:7: name: "../t" is not a plain name`},
		{"methods not a list", `name: t
datasets: [{name: fake-blobs}]
methods: {name: fake-centroid}
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:3:10: methods: got a mapping; want a list of methods`},
		{"cv with test-rule folds", `name: t
datasets: [{name: fake-blobs}]
methods:
  - name: fake-centroid
    select: {rule: test, folds: 3}
curve: {sizes: [10]}
metrics: [accuracy]
`, `t.yaml:5:33: methods[0].select.folds: only used by rule cv, not test; want no folds`},
	}
	if len(tests) < 20 {
		t.Fatalf("only %d malformed specs", len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { oneParseError(t, tt.src, tt.want) })
	}
}

// oneParseError checks that src parses to exactly one error, starting with
// want.
func oneParseError(t *testing.T, src, want string) {
	t.Helper()
	s, err := spec.Parse("t.yaml", []byte(src), nil)
	if err == nil {
		t.Fatalf("no error; spec %+v", s)
	}
	var se *spec.SpecError
	if !errors.As(err, &se) {
		t.Fatalf("error %T %v, want *SpecError", err, err)
	}
	if len(se.Errs) != 1 {
		t.Errorf("%d errors, want 1:\n%v", len(se.Errs), err)
	}
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error:\n%v\nwant prefix:\n%s", err, want)
	}
}

func TestParseReportsAllErrors(t *testing.T) {
	src := `name: t
datasets:
  - name: fake-blobs
    split: {kind: holdout}
methods:
  - name: fake-centroid
    params: {shrink: -1, nois: 1}
  - name: nope
curve: {sizes: [0], trials: 0}
metrics: [accuracy, bogus]
baseline: ridge
`
	_, err := spec.Parse("t.yaml", []byte(src), nil)
	var se *spec.SpecError
	if !errors.As(err, &se) {
		t.Fatalf("error %v, want *SpecError", err)
	}
	want := []string{
		"t.yaml:4:12: datasets[0].split.test: missing for kind holdout",
		"t.yaml:7:22: methods[0].params.shrink: -1 is out of range; want float in [0, 1]",
		`t.yaml:7:26: methods[0].params.nois: unknown parameter "nois" (did you mean "noise"?)`,
		`t.yaml:8:11: methods[1].name: unknown method "nope"`,
		"t.yaml:9:17: curve.sizes[0]: 0 is out of range",
		"t.yaml:9:29: curve.trials: 0 is out of range",
		`t.yaml:10:21: metrics[1]: unknown metric "bogus"`,
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d errors, want %d:\n%v", len(lines), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("error %d:\n%s\nwant prefix:\n%s", i, lines[i], w)
		}
	}
	// The baseline refers to a method list with a broken entry: it is not
	// reported as unknown (the broken entry may be what it names).
	if strings.Contains(err.Error(), "baseline") {
		t.Errorf("baseline reported although a method failed to decode:\n%v", err)
	}
}

func TestParseAliasesAndMerges(t *testing.T) {
	s := mustParse(t, `name: t
datasets: [{name: fake-blobs}]
methods:
  - {name: fake-centroid, label: a, params: &p {shrink: [0, 0.5]}}
  - name: fake-centroid
    label: b
    params:
      <<: *p
      noise: 0.2
curve: {sizes: [10]}
metrics: [accuracy]
`)
	a, b := s.Methods[0], s.Methods[1]
	if len(a.Grid) != 2 || len(b.Grid) != 2 || a.Grid[1].Float("shrink") != 0.5 || b.Grid[1].Float("shrink") != 0.5 ||
		a.Grid[0].Float("noise") != 0 || b.Grid[0].Float("noise") != 0.2 {
		t.Errorf("grids a %v b %v", a.Grid, b.Grid)
	}
}

func TestGridExpansion(t *testing.T) {
	s := mustParse(t, `name: t
datasets: [{name: fake-blobs}]
methods:
  - name: fake-knobs
    params: {rate: [1, 2.5], mode: [a, b], widths: [[1, 2], [3]], tag: x}
  - name: fake-centroid
    params: {noise: [0.1], shrink: 0.5}
curve: {sizes: [10]}
metrics: [accuracy]
`)
	k := s.Methods[0]
	// Declaration order tag, widths, mode, cols, rate; the last fastest.
	if want := []string{"widths", "mode", "rate"}; !reflect.DeepEqual(k.Varying, want) {
		t.Errorf("varying %v, want %v", k.Varying, want)
	}
	if len(k.Grid) != 8 {
		t.Fatalf("%d grid points, want 8", len(k.Grid))
	}
	tests := []struct {
		i      int
		widths []int
		mode   string
		rate   float64
	}{
		{0, []int{1, 2}, "a", 1}, {1, []int{1, 2}, "a", 2.5}, {2, []int{1, 2}, "b", 1},
		{3, []int{1, 2}, "b", 2.5}, {4, []int{3}, "a", 1}, {7, []int{3}, "b", 2.5},
	}
	for _, tt := range tests {
		g := k.Grid[tt.i]
		if !reflect.DeepEqual(g.Ints("widths"), tt.widths) || g.String("mode") != tt.mode || g.Float("rate") != tt.rate ||
			g.String("tag") != "x" || len(g.Map("cols")) != 0 {
			t.Errorf("grid[%d] = %v, want widths %v mode %s rate %v", tt.i, g, tt.widths, tt.mode, tt.rate)
		}
	}
	// A one-element list is a single value, not a varying param; a float
	// param's int default is a float64.
	c := s.Methods[1]
	if len(c.Grid) != 1 || len(c.Varying) != 0 || c.Grid[0].Float("noise") != 0.1 {
		t.Errorf("centroid grid %v varying %v", c.Grid, c.Varying)
	}
	if _, ok := s.Methods[0].Grid[0]["rate"].(float64); !ok {
		t.Errorf("rate is %T, want float64", s.Methods[0].Grid[0]["rate"])
	}
	names := s.Methods[0].SeriesNames()
	if len(names) != 9 || names[1] != "fake-knobs (mode=a rate=1 widths=[1 2])" {
		t.Errorf("series names %q", names)
	}
}

const setBase = `name: t
datasets:
  - {name: fake-blobs, id: blobs}
methods:
  - {name: fake-centroid, label: ridge, params: {shrink: 0.1}}
  - {name: fake-centroid, label: hp}
curve: {sizes: [10, 20], trials: 3}
metrics: [accuracy]
`

func TestSetOverrides(t *testing.T) {
	tests := []struct {
		set   []string
		check func(*spec.Spec) bool
	}{
		{[]string{"curve.trials=1"}, func(s *spec.Spec) bool { return s.Curve.Trials == 1 }},
		{[]string{"curve.sizes=[5]"}, func(s *spec.Spec) bool { return reflect.DeepEqual(s.Curve.Sizes, []float64{5}) }},
		{[]string{"methods.0.params.shrink=[0,0.5]"}, func(s *spec.Spec) bool { return len(s.Methods[0].Grid) == 2 }},
		{[]string{"methods.hp.params.noise=0.3"}, func(s *spec.Spec) bool { return s.Methods[1].Grid[0].Float("noise") == 0.3 }},
		{[]string{"datasets.blobs.params.n=60"}, func(s *spec.Spec) bool { return s.Datasets[0].Params.Int("n") == 60 }},
		{[]string{"datasets.0.split={kind: holdout, test: 10}"}, func(s *spec.Spec) bool { return s.Datasets[0].Split.Params.Float("test") == 10 }},
		{[]string{"report.logx=true"}, func(s *spec.Spec) bool { return s.Report.LogX }},
		{[]string{"methods.ridge.select.rule=cv"}, func(s *spec.Spec) bool { return s.Methods[0].Select.Folds == spec.DefaultFolds }},
		{[]string{"methods.2={name: fake-centroid, label: extra}"}, func(s *spec.Spec) bool { return len(s.Methods) == 3 && s.Methods[2].Label == "extra" }},
		{[]string{"seed=9", "seed=10"}, func(s *spec.Spec) bool { return s.Seed == 10 }},
		{[]string{"description="}, func(s *spec.Spec) bool { return s.Description == "" }},
	}
	for _, tt := range tests {
		s := mustParse(t, setBase, tt.set...)
		if !tt.check(s) {
			t.Errorf("--set %v: not applied: %+v", tt.set, s)
		}
	}
}

func TestSetOverrideErrors(t *testing.T) {
	tests := []struct {
		set  string
		want string
	}{
		{"curve.trails=1", `t.yaml: --set curve.trails=1: curve.trails: unknown field (did you mean "trials"?)`},
		{"methods.rdge.params.shrink=1", `t.yaml: --set methods.rdge.params.shrink=1: methods: no entry "rdge" (did you mean "ridge"?); want an index in [0, 1] or one of ridge, hp`},
		{"methods.0.params.shrink=-1", `t.yaml: --set methods.0.params.shrink=-1: methods[0].params.shrink: -1 is out of range; want float in [0, 1]`},
		{"methods.0.params.shrink=[0, 2]", `t.yaml: --set methods.0.params.shrink=[0, 2]: methods[0].params.shrink[1]: 2 is out of range`},
		{"nokey", `t.yaml: --set nokey: not key.path=value; want e.g. curve.trials=1`},
		{"methods.9.label=x", `t.yaml: --set methods.9.label=x: methods: no entry 9; want an index in [0, 2]`},
		{"methods.3.label=x", `t.yaml: --set methods.3.label=x: methods: no entry 3`},
		{"methods.2.label=x", `t.yaml: --set methods.2.label=x: methods has 2 entries, so 2 is a new one; want the whole new entry`},
		{"name.x=1", `t.yaml: --set name.x=1: name is "t", not a mapping or a list`},
		{"curve.trials=[1", `t.yaml: --set curve.trials=[1: value "[1" is not valid YAML`},
		{"curve..trials=1", `t.yaml: --set curve..trials=1: empty key in "curve..trials"`},
		{"methods.0.params.nosie=1", `t.yaml: --set methods.0.params.nosie=1: methods[0].params.nosie: unknown parameter "nosie" (did you mean "noise"?)`},
	}
	for _, tt := range tests {
		_, err := spec.Parse("t.yaml", []byte(setBase), []string{tt.set})
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("--set %s:\n%v\nwant prefix:\n%s", tt.set, err, tt.want)
		}
	}
}

func TestSetThroughAlias(t *testing.T) {
	src := `name: t
datasets: [{name: fake-blobs}]
methods:
  - {name: fake-centroid, label: a, params: &p {shrink: 0.1}}
  - {name: fake-centroid, label: b, params: *p}
curve: {sizes: [10]}
metrics: [accuracy]
`
	s := mustParse(t, src, "methods.b.params.shrink=0.9")
	if a, b := s.Methods[0].Grid[0].Float("shrink"), s.Methods[1].Grid[0].Float("shrink"); a != 0.1 || b != 0.9 {
		t.Errorf("shrink a=%v b=%v, want 0.1 and 0.9: an override below an alias changes only that use", a, b)
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	over := `name: over
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid, params: {shrink: [0, 0.5], noise: [0, 0.1]}, select: {rule: cv, folds: 2, over: [shrink]}}]
curve: {sizes: [10]}
metrics: [accuracy]
expect: [{better: "fake-centroid (noise=0)", than: "fake-centroid (noise=0.1)", metric: accuracy, within: 1}]
`
	for _, src := range []string{goodSpec, setBase, over} {
		s := mustParse(t, src)
		b, err := s.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		s2, err := spec.Parse("spec.yaml", b, nil)
		if err != nil {
			t.Fatalf("reloading the marshalled spec: %v\n%s", err, b)
		}
		if k1, k2 := planKeys(t, s), planKeys(t, s2); !reflect.DeepEqual(k1, k2) {
			t.Errorf("plan keys differ after a round trip:\n%s", b)
		}
		b2, err := s2.Marshal()
		if err != nil || string(b) != string(b2) {
			t.Errorf("Marshal is not a fixed point: %v\n%s\n---\n%s", err, b, b2)
		}
		if len(s.Expect) != len(s2.Expect) {
			t.Fatalf("expectations: %d vs %d", len(s.Expect), len(s2.Expect))
		}
		for i := range s.Expect {
			a, b := s.Expect[i], s2.Expect[i]
			a.Pos, b.Pos = spec.Pos{}, spec.Pos{}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("expect[%d] %+v became %+v", i, a, b)
			}
		}
		if !reflect.DeepEqual(s.Report, s2.Report) || s.Baseline != s2.Baseline || s.Description != s2.Description {
			t.Errorf("report/baseline/description changed: %+v %q %q", s2.Report, s2.Baseline, s2.Description)
		}
	}
	// A spec built in code (as the run tests do) round-trips too.
	s := blobsSpec()
	b, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	s2, err := spec.Parse("spec.yaml", b, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if !reflect.DeepEqual(planKeys(t, s), planKeys(t, s2)) {
		t.Errorf("blobsSpec keys differ after a round trip:\n%s", b)
	}
}

func TestMarshalRejectsNonProductGrid(t *testing.T) {
	s := blobsSpec()
	s.Methods[0].Grid = []param.Values{{"shrink": 0.0, "noise": 0.1}, {"shrink": 0.5, "noise": 0.2}}
	if _, err := s.Marshal(); err == nil || !strings.Contains(err.Error(), "not the cartesian product") {
		t.Errorf("error %v, want a non-product grid refused", err)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := spec.Load(filepath.Join(t.TempDir(), "nope.yaml"), nil)
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("error %v, want a wrapped not-exist error", err)
	}
}

func FuzzLoad(f *testing.F) {
	f.Add([]byte(goodSpec), "curve.trials=1")
	f.Add([]byte(setBase), "methods.hp.params.shrink=[0,1]")
	f.Add([]byte("name: t\ncommon: &a [*a]\n"), "")
	f.Add([]byte("a: &a {b: *a}\nname: *a\n"), "name.b.c=1")
	f.Add([]byte("- &x [*x, *x]\n"), "0=1")
	f.Fuzz(func(t *testing.T, data []byte, set string) {
		var sets []string
		if set != "" {
			sets = []string{set}
		}
		s, err := spec.Parse("f.yaml", data, sets)
		if err != nil {
			if strings.Contains(err.Error(), "internal error") {
				t.Fatalf("Parse panicked: %v", err)
			}
			return
		}
		// A valid spec marshals and reloads to the same plan.
		b, err := s.Marshal()
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		s2, err := spec.Parse("spec.yaml", b, nil)
		if err != nil {
			t.Fatalf("reload: %v\n%s", err, b)
		}
		p1, err1 := spec.NewPlan(s)
		p2, err2 := spec.NewPlan(s2)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("NewPlan: %v vs %v", err1, err2)
		}
		if err1 == nil {
			if len(p1.Trials) != len(p2.Trials) {
				t.Fatalf("%d vs %d trials", len(p1.Trials), len(p2.Trials))
			}
			for i := range p1.Trials {
				if p1.Trials[i].Key != p2.Trials[i].Key {
					t.Fatalf("trial %d key differs after a round trip\n%s", i, b)
				}
			}
		}
	})
}

func TestSelfReferringAliases(t *testing.T) {
	// Anchors that refer to themselves must neither hang nor panic.
	tests := []struct{ src, set string }{
		{"name: t\nmetrics: &x [*x, *x]\n", ""},
		{"name: t\ncurve: &x {sizes: [*x, *x]}\n", ""},
		{"name: t\nreport: &x [*x, *x, *x]\n", "report.0.1.2=1"},
		{"name: t\nmethods: [{name: fake-centroid, params: &x {shrink: [*x, *x]}}]\n", "methods.0.params.shrink.0.shrink.1=1"},
		{"name: t\ndatasets: &x [{name: fake-blobs, <<: *x}]\n", ""},
	}
	for _, tt := range tests {
		var sets []string
		if tt.set != "" {
			sets = []string{tt.set}
		}
		_, err := spec.Parse("t.yaml", []byte(tt.src), sets)
		if err == nil || strings.Contains(err.Error(), "internal error") {
			t.Errorf("%q: error %v, want a spec error", tt.src, err)
		}
	}
}

// TestPlainNumbersAreNotAliases: a spec of more than a million plain
// numbers (10 MB) has no alias to expand; it is not refused as one
// (issue 10, item 10), and no field after it is reported missing.
func TestPlainNumbersAreNotAliases(t *testing.T) {
	if testing.Short() {
		t.Skip("parses a 10 MB spec (several seconds)")
	}
	var b strings.Builder
	b.WriteString("name: t\ndatasets: [{name: fake-blobs}]\nmethods: [{name: fake-centroid}]\ncurve:\n  sizes: [")
	n := yamlpos.AliasBudget + 1000
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(i + 2))
	}
	b.WriteString("]\n  trials: 1\nmetrics: [accuracy]\n")
	sp, err := spec.Parse("t.yaml", []byte(b.String()), nil)
	if err != nil {
		t.Fatalf("%.500v", err)
	}
	if len(sp.Curve.Sizes) != n {
		t.Errorf("%d sizes, want %d", len(sp.Curve.Sizes), n)
	}
}

// TestAliasesStillBounded: aliases that do expand past the budget are
// refused at the alias that passes it, in a test fast enough for -short.
func TestAliasesStillBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: t\na0: &a0 [1, 2, 3, 4, 5, 6, 7, 8]\n")
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [", i, i)
		for j := 0; j < 8; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	b.WriteString("datasets: [{name: fake-blobs}]\nmethods: [{name: fake-centroid}]\ncurve: {sizes: [10]}\nmetrics: [accuracy]\n")
	_, err := spec.Parse("t.yaml", []byte(b.String()), nil)
	if err == nil || !strings.Contains(err.Error(), "aliases expand the spec by more than") || strings.Count(err.Error(), "\n") != 0 {
		t.Errorf("error %v; want one error about the aliases", err)
	}
}
