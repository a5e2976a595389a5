package runner

import (
	"context"
	"fmt"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
)

// fake-seq is a sequential learner for the runner's tests: at each budget
// it fits the nearest centroid to the first rows of the pool, and fails
// if the budgets it is given are not strictly increasing (the contract of
// methods.Sequential).
func init() {
	methods.Register("fake-seq", &methods.Plugin{
		Doc:   "nearest centroid on the first rows of the pool, budget by budget (test fixture)",
		Kinds: methods.Classification,
		New:   func(param.Values) (methods.Method, error) { return &seqMethod{}, nil },
	})
}

type seqMethod struct{ centroid }

func (*seqMethod) FitSequence(ctx context.Context, pool *datasets.Dataset, budgets []int, env *methods.Env,
	yield func(labels int, m methods.Model, extra map[string]float64) error) error {
	for i, b := range budgets {
		if i > 0 && b <= budgets[i-1] {
			return fmt.Errorf("fake-seq: budgets %v not increasing", budgets)
		}
		rows := make([]int, b)
		for j := range rows {
			rows[j] = j
		}
		m, err := (&centroid{}).Fit(ctx, pool.Subset(rows), env)
		if err != nil {
			return err
		}
		if err := yield(b, m, map[string]float64{"queries": float64(b)}); err != nil {
			return err
		}
	}
	return nil
}

// A sequential method runs once per trial over the whole curve; sizes
// written as a count and as a fraction that come to the same number of
// rows are one budget, not two equal ones.
func TestRunSequential(t *testing.T) {
	spec := blobsSpec()
	spec.Methods = []MethodSpec{method("fake-seq", "seq", "fixed", nil)}
	spec.Curve = Curve{Sizes: []float64{90, 10, 0.5}, Trials: 2, Sampling: "random"} // pool 180: 0.5 = 90
	spec.Baseline = ""
	dir := t.TempDir()
	sum := runSpec(t, spec, dir, 2, nil)
	if len(sum.Plan.Trials) != 2 || len(sum.Results) != 2 {
		t.Fatalf("%d trials, %d results; want one trial per trial index", len(sum.Plan.Trials), len(sum.Results))
	}
	for _, r := range sum.Results {
		if r.Failed() {
			t.Fatalf("trial %d: %s", r.Trial, r.Error)
		}
		var sizes []int
		for _, c := range r.Curve {
			sizes = append(sizes, c.Size)
			if c.Metrics["queries"] != float64(c.Size) || c.Metrics["accuracy"] <= 0 {
				t.Errorf("curve point %+v", c)
			}
		}
		if fmt.Sprint(sizes) != "[10 90]" || r.Size != 90 {
			t.Errorf("curve sizes %v, size %d; want [10 90] and 90", sizes, r.Size)
		}
	}
	if again := runSpec(t, spec, dir, 2, nil); again.Ran != 0 {
		t.Errorf("rerun ran %d", again.Ran)
	}
}
