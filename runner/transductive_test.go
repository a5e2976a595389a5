package runner

import (
	"context"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/spec"
)

func init() {
	methods.Register("fake-transductive", &methods.Plugin{
		Doc:   "does its iterations in Predict, as lgc does (test fixture)",
		Kinds: methods.Classification,
		New:   func(param.Values) (methods.Method, error) { return transductive{}, nil },
	})
}

type transductive struct{}

// transductiveModel reports no iterations and no convergence until
// Predict has run its 7 iterations on the rows it is given.
type transductiveModel struct {
	k    int
	info methods.Info
}

func (transductive) Fit(_ context.Context, train *datasets.Dataset, _ *methods.Env) (methods.Model, error) {
	return &transductiveModel{k: len(train.Classes)}, nil
}

func (m *transductiveModel) Predict(X matrix.Matrix) *methods.Prediction {
	n, _ := X.Dims()
	m.info = methods.Info{Iterations: 7, Converged: true}
	return &methods.Prediction{Scores: make([]float64, n*m.k), K: m.k}
}

func (m *transductiveModel) Info() methods.Info { return m.info }

// A model that iterates while predicting has those iterations recorded,
// and is not flagged as stopped at its cap by the zero Info it reports
// before (lgc's iterations went missing from results.jsonl in the
// redesign, which read them between Fit and Predict).
func TestIterationsDuringPredict(t *testing.T) {
	sp := blobsSpec()
	sp.Methods = []spec.MethodSpec{method("fake-transductive", "tr", "fixed", nil)}
	sp.Baseline = ""
	sum := runSpec(t, sp, t.TempDir(), 2, nil)
	if len(sum.Results) == 0 {
		t.Fatal("no results")
	}
	for _, r := range sum.Results {
		if r.Error != "" || r.Iterations != 7 || r.NotConverged {
			t.Errorf("trial %s: error %q, iterations %d, not converged %v; want 7 iterations, converged", r.Key, r.Error, r.Iterations, r.NotConverged)
		}
	}
}

// The iterations recorded are the final fit's: the models a select rule
// fits and scores on its folds do not add theirs (fake-centroid reports
// one iteration per fit).
func TestIterationsOfTheFinalFitOnly(t *testing.T) {
	sp := blobsSpec()
	sp.Methods = []spec.MethodSpec{method("fake-centroid", "centroid-cv", "cv", []string{"shrink", "noise"}, []any{0.0, 0.3, 0.9}, []any{0.0})}
	sp.Baseline = ""
	sum := runSpec(t, sp, t.TempDir(), 2, nil)
	if len(sum.Results) == 0 {
		t.Fatal("no results")
	}
	for _, r := range sum.Results {
		if r.Error != "" || r.Iterations != 1 {
			t.Errorf("trial %s: error %q, iterations %d; want the final fit's 1", r.Key, r.Error, r.Iterations)
		}
	}
}
