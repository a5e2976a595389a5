package spec_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/spec"
)

const spec0 = "name: t\ndatasets: [{name: fake-blobs}]\nmetrics: [accuracy]\n"

// parseErrs parses src and returns its error lines (nil if valid).
func parseErrs(t *testing.T, src string) []string {
	t.Helper()
	_, err := spec.Parse("t.yaml", []byte(src), nil)
	if err == nil {
		return nil
	}
	var se *spec.SpecError
	if !errors.As(err, &se) {
		t.Fatalf("error %T %v, want *SpecError", err, err)
	}
	return strings.Split(err.Error(), "\n")
}

func TestValidateHooks(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // each error, as a prefix of its line
	}{
		{"rho 0 in a grid", spec0 + `curve: {sizes: [10]}
methods:
  - name: fake-med
    params: {c: [1, 10], rho: [0.5, 0]}
`, []string{`t.yaml:7:37: methods[0].params.rho[1]: 0 is out of range; want float in (0, 1]`}},
		{"bad kernel in a grid of lists", spec0 + `curve: {sizes: [10]}
methods:
  - name: fake-med
    params: {c: [1, 10], kernels: [[linear], ["rbf:oops"]]}
`, []string{`t.yaml:7:47: methods[0].params.kernels[1][0]: "rbf:oops" has no width; want rbf:WIDTH`}},
		{"joined errors each at its value", spec0 + `curve: {sizes: [10]}
methods:
  - name: fake-med
    params: {c: [1, 1000], rho: [0.1, 1], kernels: [poly, linear]}
`, []string{
			`t.yaml:7:21: methods[0].params.c[1]: 1000 with rho 0.1 does not converge; want c ≤ 100 or rho ≥ 0.5`,
			`t.yaml:7:53: methods[0].params.kernels[0]: unknown kernel "poly"; want linear or rbf:WIDTH`,
		}},
		{"a single value", spec0 + `curve: {sizes: [10]}
methods:
  - name: fake-med
    params: {c: 1000, rho: 0.25}
`, []string{`t.yaml:7:17: methods[0].params.c: 1000 with rho 0.25 does not converge`}},
		{"not an InvalidError: at the params mapping", spec0 + `curve: {sizes: [10]}
methods:
  - name: fake-med
    params: {tag: boom}
`, []string{`t.yaml:7:13: methods[0].params: boom is not a tag; want anything else`}},
		{"dataset hook", `name: t
datasets: [{name: fake-checked, params: {n: 5, test: 5}}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, []string{`t.yaml:2:54: datasets[0].params.test: 5 rows of 5; want fewer test rows than rows`}},
		{"valid grid", spec0 + `curve: {sizes: [10]}
methods:
  - name: fake-med
    params: {c: [1, 1000], rho: [0.5, 1], kernels: [[linear], ["rbf:0.5", linear]]}
`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseErrs(t, tt.src)
			if len(got) != len(tt.want) {
				t.Fatalf("%d errors, want %d:\n%s", len(got), len(tt.want), strings.Join(got, "\n"))
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("error %d:\n%s\nwant prefix:\n%s", i, got[i], w)
				}
			}
		})
	}
}

func TestParseSections(t *testing.T) {
	tests := []struct {
		name, src string
		check     func(*spec.Spec) bool
		want      string // the one error, as a prefix; "" if valid
	}{
		{"protocol as a name", spec0 + "methods: [{name: fake-centroid}]\nprotocol: active\ncurve: {trials: 2}\n",
			func(s *spec.Spec) bool {
				return s.Protocol.Name == "active" && s.Protocol.Params.Int("budget") == 200 && s.Curve.Trials == 2 && s.Curve.Sizes == nil
			}, ""},
		{"protocol as a mapping", spec0 + "methods: [{name: fake-centroid}]\nprotocol: {name: active, budget: 50, batch: 5}\n",
			func(s *spec.Spec) bool {
				return s.Protocol.Params.Int("budget") == 50 && s.Protocol.Params.Int("batch") == 5 && s.Curve.Trials == 1 && s.Curve.Sampling == "random"
			}, ""},
		{"protocol defaults to curve", spec0 + "methods: [{name: fake-centroid}]\ncurve: {sizes: [10]}\n",
			func(s *spec.Spec) bool { return s.Protocol.ProtocolName() == "curve" }, ""},
		{"unknown protocol", spec0 + "methods: [{name: fake-centroid}]\ncurve: {sizes: [10]}\nprotocol: activ\n",
			nil, `t.yaml:6:11: protocol.name: unknown protocol "activ" (did you mean "active"?); want one of active, curve`},
		{"protocol param of another protocol", spec0 + "methods: [{name: fake-centroid}]\nprotocol: {name: active, budgt: 5}\n",
			nil, `t.yaml:5:26: protocol.budgt: unknown field (did you mean "budget"?)`},
		{"sizes with a protocol that is not per size", spec0 + "methods: [{name: fake-centroid}]\nprotocol: active\ncurve: {sizes: [10]}\n",
			nil, `t.yaml:6:9: curve.sizes: protocol active does not run per training size; want no sizes`},
		{"curve without sizes", spec0 + "methods: [{name: fake-centroid}]\ncurve: {trials: 2}\n",
			nil, `t.yaml:5:8: curve.sizes: missing; want a list of training sizes`},
		{"kfold params and trials", `name: t
datasets: [{name: fake-blobs, split: {kind: kfold, folds: 5}}]
methods: [{name: fake-centroid}]
curve: {sizes: [10], trials: 5}
metrics: [accuracy]
`, func(s *spec.Spec) bool {
			return reflect.DeepEqual(s.Datasets[0].Split.Params, param.Values{"folds": 5, "repeats": 1, "stratify": true, "refold": true})
		}, ""},
		{"kfold with other trials", `name: t
datasets: [{name: fake-blobs, split: {kind: kfold, repeats: 2}}]
methods: [{name: fake-centroid}]
curve: {sizes: [10], trials: 3}
metrics: [accuracy]
`, nil, `t.yaml:4:30: curve.trials: 3, but split kfold of datasets[0] makes 20 trials; want no trials, or 20`},
		{"kfold with too many trials", `name: t
datasets: [{name: fake-blobs, split: {kind: kfold, folds: 1000, repeats: 1000}}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, nil, `t.yaml:2:38: datasets[0].split: split kfold makes 1000000 trials; want at most 100000`},
		{"stratify with kind rest", `name: t
datasets: [{name: fake-blobs, split: {kind: rest, stratify: false}}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, nil, `t.yaml:2:61: datasets[0].split.stratify: only used by kind holdout, kfold, not rest; want no stratify`},
		{"split as a kind", `name: t
datasets: [{name: fake-blobs, split: train}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, func(s *spec.Spec) bool { return s.Datasets[0].Split.Kind == "train" }, ""},
		{"transform fit", `name: t
datasets: [{name: fake-blobs, transforms: [{name: fake-center, fit: pool}]}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, func(s *spec.Spec) bool { return s.Datasets[0].Transforms[0].Fit == "pool" }, ""},
		{"bad transform fit", `name: t
datasets: [{name: fake-blobs, transforms: [{name: fake-scale, params: {factor: 2}, fit: test}]}]
methods: [{name: fake-centroid}]
curve: {sizes: [10]}
metrics: [accuracy]
`, nil, `t.yaml:2:89: datasets[0].transforms[0].fit: unknown value "test"; want one of pool, train`},
		{"report y", spec0 + "methods: [{name: fake-centroid}]\ncurve: {sizes: [10]}\nreport: {x: size, y: [accuracy, components]}\n",
			func(s *spec.Spec) bool {
				return s.Report.X == "size" && reflect.DeepEqual(s.Report.Y, []string{"accuracy", "components"})
			}, ""},
		{"report y twice", spec0 + "methods: [{name: fake-centroid}]\ncurve: {sizes: [10]}\nreport: {y: [k, k]}\n",
			nil, `t.yaml:6:17: report.y[1]: duplicate name "k"; want each name once`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := spec.Parse("t.yaml", []byte(tt.src), nil)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unexpected error:\n%v", err)
				}
				if !tt.check(s) {
					t.Errorf("spec %+v", s)
				}
				roundTrip(t, s)
				return
			}
			if err == nil || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error:\n%v\nwant one error with prefix:\n%s", err, tt.want)
			}
		})
	}
}

// roundTrip checks that s marshals and reloads, by Parse and by the
// registry-free reading, to the same plan.
func roundTrip(t *testing.T, s *spec.Spec) {
	t.Helper()
	b, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, free := range []bool{false, true} {
		s2, err := parseFree(t, b, free)
		if err != nil {
			t.Fatalf("reloading (free %v):\n%v\n%s", free, err, b)
		}
		if k1, k2 := planKeys(t, s), planKeys(t, s2); !reflect.DeepEqual(k1, k2) {
			t.Errorf("plan keys differ after a round trip (free %v):\n%s", free, b)
		}
	}
}

func ExampleSpec_Marshal() {
	s, err := spec.Parse("t.yaml", []byte(`name: t
datasets: [{name: fake-blobs, params: {spread: 2}}]
methods: [{name: fake-knobs, params: {tag: x, rate: [1, 2.5], widths: [[1, 2]]}}]
curve: {sizes: [10]}
metrics: [accuracy]
`), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := s.Marshal()
	fmt.Print(string(b))
	// Output:
	// # The resolved experiment: defaults filled in, every parameter written out.
	// name: t
	// seed: 1
	// metrics: [accuracy]
	// datasets:
	//   - name: fake-blobs
	//     id: fake-blobs
	//     params: {n: 300, d: 5, classes: 3, spread: 2.0, given: false}
	//     split: rest
	// methods:
	//   - name: fake-knobs
	//     label: fake-knobs
	//     params:
	//       tag: x
	//       widths: [[1, 2]]
	//       mode: a
	//       cols: {}
	//       rate: [1.0, 2.5]
	//     select: {rule: fixed}
	// protocol: curve
	// curve: {sizes: [10], trials: 1, sampling: random}
	// report: {x: size}
}

// parseFree reads the resolved spec b as spec.Parse does, or with free as
// spec.ReadSpec does: without consulting the method and dataset
// registries.
func parseFree(t *testing.T, b []byte, free bool) (*spec.Spec, error) {
	t.Helper()
	if !free {
		return spec.Parse(spec.SpecFile, b, nil)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, spec.SpecFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return spec.ReadSpec(dir)
}
