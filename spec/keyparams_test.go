package spec_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/spec"
)

// TestKeyParams checks that a parameter declared OmitDefault is left out
// of the key's params at its default and kept when set otherwise, and
// that other parameters are kept at their defaults.
func TestKeyParams(t *testing.T) {
	decls := []param.Decl{
		{Name: "C", Type: param.Float, Default: 1.0},
		{Name: "test_file", Type: param.String, Default: "", OmitDefault: true},
	}
	for _, tc := range []struct {
		name string
		v    param.Values
		want map[string]string
	}{
		{"at defaults", param.Values{"C": 1.0, "test_file": ""}, map[string]string{"C": "1"}},
		{"set", param.Values{"C": 1.0, "test_file": "t.csv"}, map[string]string{"C": "1", "test_file": "t.csv"}},
		{"absent", param.Values{"C": 2.0}, map[string]string{"C": "2"}},
	} {
		if got := spec.KeyParams(tc.v, decls); !maps.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// pinnedCSVKey is the key of csvSpec's first trial as main computed it
// before the csv plugin had a test_file parameter (309fb63).
const pinnedCSVKey = "6babb6e27208d3331687e88c"

const csvSpec = `name: keys
datasets:
  - {name: csv, id: house, params: {file: house.csv, label: price, task: regression}, split: {kind: holdout, test: 0.5}}
methods:
  - {name: lasso, params: {lambda: [0.1, 1]}, select: {rule: cv, folds: 3}}
curve: {sizes: [100], trials: 2}
metrics: [mse]
`

// TestKeysOfAddedParams checks that a dataset parameter added since results
// were stored (the csv plugin's test_file, OmitDefault) leaves the keys of
// specs that do not set it as they were, and changes them when set.
func TestKeysOfAddedParams(t *testing.T) {
	first := func(src string) string { return firstKey(t, src) }
	if k := first(csvSpec); k != pinnedCSVKey {
		t.Errorf("first key %s; want %s as before test_file", k, pinnedCSVKey)
	}
	set := strings.Replace(csvSpec, "task: regression}", "task: regression, test_file: t.csv}", 1)
	if k := first(set); k == pinnedCSVKey {
		t.Errorf("setting test_file left the key %s unchanged", k)
	}
}

// pinnedDDRKey is the key of ddrSpec's first trial as main computed it
// before ddr had the parameters rule_C, start, restart and lookahead
// (issue 44; stored by a run of 724f540's binary).
const pinnedDDRKey = "35d43b94af7b8482ce2cf611"

const ddrSpec = `name: keys
seed: 2012
datasets:
  - name: cora
    id: cora
    transforms:
      - {name: pca, fit: pool, params: {components: 0, standardize: false}}
    split: {kind: kfold, folds: 10, repeats: 10, stratify: true, refold: false}
methods:
  - {name: ddr, label: DDR, params: {k: 10, C: 1}, datasets: [cora]}
protocol: {name: active, initial: 10, batch: 10, budget: 400, strategy: random}
curve: {sampling: random}
metrics: [auc]
`

// TestKeysOfDDRSearchParams checks that ddr's search parameters added in
// issue 44 leave the keys of specs that do not set them as they were, and
// that each changes the key when set.
func TestKeysOfDDRSearchParams(t *testing.T) {
	first := func(src string) string { return firstKey(t, src) }
	if k := first(ddrSpec); k != pinnedDDRKey {
		t.Errorf("first key %s; want %s as before the search parameters", k, pinnedDDRKey)
	}
	for _, set := range []string{"rule_C: 10", "start: 30", "restart: true", "lookahead: 2"} {
		src := strings.Replace(ddrSpec, "C: 1}", "C: 1, "+set+"}", 1)
		if k := first(src); k == pinnedDDRKey {
			t.Errorf("setting %s left the key %s unchanged", set, k)
		}
	}
}

// firstKey returns the key of the first trial of the spec src.
func firstKey(t *testing.T, src string) string {
	t.Helper()
	sp, err := spec.Parse("keys.yaml", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := spec.NewPlan(sp)
	if err != nil {
		t.Fatal(err)
	}
	return p.Trials[0].Key
}
