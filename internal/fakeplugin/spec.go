package fakeplugin

import (
	"testing"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/spec"
)

// Method returns the spec of method name under label with selection rule
// (fixed, cv or test): its grid is the cartesian product of values[i] for
// each names[i], and the params with more than one value vary. Rule cv
// selects by accuracy over 3 folds, rule test by test accuracy.
func Method(name, label, rule string, names []string, values ...[]any) spec.MethodSpec {
	axes := map[string][]any{}
	var varying []string
	for i, n := range names {
		axes[n] = values[i]
		if len(values[i]) > 1 {
			varying = append(varying, n)
		}
	}
	m := spec.MethodSpec{Name: name, Label: label, Grid: spec.Product(names, axes), Varying: varying, Select: spec.Select{Rule: rule}}
	if rule == "cv" {
		m.Select.Folds, m.Select.Metric = 3, "accuracy"
	}
	if rule == "test" {
		m.Select.Metric = "accuracy"
	}
	return m
}

// BlobsSpec returns a learning-curve experiment on fake-blobs (240 rows,
// 3 classes, a stratified 25 % holdout) with three fake-centroid methods:
// a fixed grid of two points, one selected by 3-fold cross-validation and
// one selected on the test rows; 3 trials at sizes 12, 30 and half.
func BlobsSpec() *spec.Spec {
	return &spec.Spec{
		Name: "t", Seed: 11,
		Datasets: []spec.DatasetSpec{{Name: "fake-blobs", ID: "blobs",
			Params: param.Values{"n": 240, "d": 4, "classes": 3, "spread": 2.0, "given": false},
			Split:  spec.Split{Kind: "holdout", Params: param.Values{"test": 0.25, "stratify": true}}}},
		Methods: []spec.MethodSpec{
			Method("fake-centroid", "centroid", "fixed", []string{"shrink", "noise"}, []any{0.0, 0.5}, []any{0.1}),
			Method("fake-centroid", "centroid-cv", "cv", []string{"shrink", "noise"}, []any{0.0, 0.3, 0.9}, []any{0.0}),
			Method("fake-centroid", "centroid-oracle", "test", []string{"shrink", "noise"}, []any{0.0, 0.9}, []any{0.0}),
		},
		Curve:    spec.Curve{Sizes: []float64{12, 30, 0.5}, Trials: 3, Sampling: "balanced"},
		Metrics:  []string{"accuracy", "auc"},
		Baseline: "centroid",
	}
}

// ActiveSpec returns BlobsSpec run by the active protocol with the query
// strategy named (6 initial labels, batches of 8, budget 30, 3 stratified
// trials) with three methods: fake-rows, a fixed fake-centroid and one
// selected by cross-validation.
func ActiveSpec(strategy string) *spec.Spec {
	sp := BlobsSpec()
	sp.Protocol = spec.ProtocolSpec{Name: "active", Params: param.Values{"initial": 6, "batch": 8, "budget": 30, "strategy": strategy}}
	sp.Curve = spec.Curve{Trials: 3, Sampling: "stratified"}
	sp.Methods = []spec.MethodSpec{
		Method("fake-rows", "rows", "fixed", nil),
		Method("fake-centroid", "centroid", "fixed", []string{"shrink", "noise"}, []any{0.0}, []any{0.0}),
		Method("fake-centroid", "centroid-cv", "cv", []string{"shrink", "noise"}, []any{0.0, 0.9}, []any{0.0}),
	}
	sp.Baseline = "centroid"
	return sp
}

// GoodSpec exercises most of the format of a spec; it is valid.
const GoodSpec = `name: quickstart
description: a test
seed: 3
datasets:
  - name: fake-blobs
    id: blobs
    params: {n: 120, classes: 3}
    split: {kind: holdout, test: 0.25, stratify: true}
    transforms:
      - {name: fake-scale, params: {factor: 2}}
methods:
  - name: fake-centroid
    label: centroid
    params: {shrink: [0, 0.5], noise: 0.1}
  - name: fake-centroid
    label: cv
    params:
      shrink: [0, 0.3, 0.9]
    select: {rule: cv, folds: 3}
  - name: fake-knobs
    params: {tag: "1.0", widths: [[1, 2], [3]], cols: {a: x, b: 2}}
curve: {sizes: [12, 30, 0.5], trials: 2, sampling: balanced}
metrics: [accuracy, auc]
baseline: centroid
report: {logx: true, x: shrink}
expect:
  - {dataset: blobs, method: cv, metric: accuracy, value: 90, rtol: 0.2, source: "none"}
  - {metric: accuracy, better: cv, than: "centroid (shrink=0.5)", by: 1, sizes: [30]}
`

// SeriesSpec is an active-learning experiment (its strategy fake-first
// is registered by package fakeactive) with two datasets whose
// methods set protocol params of their own and datasets to run on.
const SeriesSpec = `name: t
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

// MustParse parses the spec src, named t.yaml, with the overrides sets,
// and fails the test on an error.
func MustParse(t testing.TB, src string, sets ...string) *spec.Spec {
	t.Helper()
	s, err := spec.Parse("t.yaml", []byte(src), sets)
	if err != nil {
		t.Fatalf("unexpected error:\n%v", err)
	}
	return s
}

// PlanKeys returns the keys of the trials s plans, in order; it fails the
// test if s plans nothing.
func PlanKeys(t testing.TB, s *spec.Spec) []string {
	t.Helper()
	p, err := spec.NewPlan(s)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, len(p.Trials))
	for i, tr := range p.Trials {
		keys[i] = tr.Key
	}
	return keys
}
