package conformance_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/runner"
	"github.com/repro-ml/repro/spec"
)

// The spec runs of the selector, protocol and strategy suites: small
// experiments on the embedded iris data (150 rows, 3 classes), run in a
// temporary directory with the runner's public API, as `repro run` does.

// parseSpec parses the YAML spec text, failing t on an error.
func parseSpec(t *testing.T, text string) *spec.Spec {
	t.Helper()
	sp, err := spec.Parse(t.Name()+".yaml", []byte(text), nil)
	if err != nil {
		t.Fatalf("the suite's spec does not parse: %v\n%s", err, text)
	}
	return sp
}

// runSpec runs spec in dir with workers trials at once and fails t on an
// error or a failed trial.
func runSpec(t *testing.T, sp *spec.Spec, dir string, workers int) *runner.Summary {
	t.Helper()
	sum := runResults(t, sp, dir, workers)
	for _, r := range sum.Results {
		if r.Failed() {
			t.Fatalf("-j %d: trial %s/%s size %d trial %d failed: %s", workers, r.Dataset, r.Method, r.Size, r.Trial, r.Error)
		}
	}
	return sum
}

// runResults runs spec in dir with workers trials at once and fails t on
// an error or a trial without a result; failed trials are results.
func runResults(t *testing.T, sp *spec.Spec, dir string, workers int) *runner.Summary {
	t.Helper()
	sum, err := runner.Run(context.Background(), sp, runner.Options{Dir: dir, Workers: workers})
	if err != nil {
		t.Fatalf("-j %d: %v", workers, err)
	}
	if len(sum.Results) != len(sum.Plan.Trials) {
		t.Fatalf("-j %d: %d results for %d trials", workers, len(sum.Results), len(sum.Plan.Trials))
	}
	return sum
}

// yamlParams writes p as the keys of a YAML flow mapping, ", k: v" each,
// in a fixed order.
func yamlParams(keys []string, p map[string]any) string {
	var b strings.Builder
	for _, k := range keys {
		if v, ok := p[k]; ok {
			fmt.Fprintf(&b, ", %s: %v", k, v)
		}
	}
	return b.String()
}

// checkFinite fails t for a metric of r's observations that is NaN or
// infinite, and for a non-finite select score.
func checkFinite(t *testing.T, r *results.Result) {
	t.Helper()
	for _, o := range r.Points() {
		for name, v := range o.Metrics {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s trial %d at x = %v: metric %s = %v, want a finite value", r.Method, r.Trial, o.X, name, v)
			}
		}
	}
	if r.SelectScore != nil && (math.IsNaN(*r.SelectScore) || math.IsInf(*r.SelectScore, 0)) {
		t.Errorf("%s trial %d: select score %v, want a finite value", r.Method, r.Trial, *r.SelectScore)
	}
}
