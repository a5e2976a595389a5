package runner

import (
	"context"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/spec"
)

func init() {
	methods.Register("fake-unlabelled", &methods.Plugin{
		Doc:   "nearest centroid that records the rows of Env.Unlabelled (test fixture)",
		Kinds: methods.Classification,
		New:   func(param.Values) (methods.Method, error) { return unlabelledMethod{}, nil },
	})
}

type unlabelledMethod struct{}

type unlabelledModel struct {
	methods.Model
	rows, cols float64
}

func (unlabelledMethod) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	m, err := (&centroid{}).Fit(ctx, train, env)
	if err != nil {
		return nil, err
	}
	out := &unlabelledModel{Model: m, rows: -1}
	if env.Unlabelled != nil {
		r, c := env.Unlabelled.Dims()
		out.rows, out.cols = float64(r), float64(c)
	}
	return out, nil
}

func (m *unlabelledModel) Extras() map[string]float64 {
	return map[string]float64{"unlabelled": m.rows, "cols": m.cols}
}

// The active protocol hands its fits the unlabelled pool: the pool rows
// not yet labelled, with the training set's columns.
func TestActiveUnlabelled(t *testing.T) {
	sp := activeSpec("random")
	sp.Methods = []spec.MethodSpec{method("fake-unlabelled", "u", "fixed", nil)}
	sp.Baseline = ""
	sum := runSpec(t, sp, t.TempDir(), 2, nil)
	for _, r := range sum.Results {
		if r.Failed() {
			t.Fatal(r.Error)
		}
		for _, o := range r.Points() {
			// 240 rows, a holdout test part of 60: a pool of 180.
			if want := 180 - o.X; o.Extras["unlabelled"] != want || o.Extras["cols"] != 4 {
				t.Errorf("trial %d at %v labels: Env.Unlabelled %v×%v; want %v×4", r.Trial, o.X, o.Extras["unlabelled"], o.Extras["cols"], want)
			}
		}
	}
}
