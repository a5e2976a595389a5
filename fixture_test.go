package main

import (
	"context"
	"fmt"
	"math"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
)

// cli-fail is a test fixture for failed trials: the data checks of run
// and validate refuse what is known to fail before a trial runs, so a
// trial that fails at run time needs a method that does.
func init() {
	methods.Register("cli-fail", &methods.Plugin{
		Doc:   "fails at one training size, else predicts the first class (test fixture)",
		Kinds: methods.Classification,
		Params: []param.Decl{
			{Name: "C", Type: param.Float, Default: 1.0, Min: param.Bound(0), MinExclusive: true, Doc: "unused: a grid axis"},
			{Name: "at", Type: param.Int, Default: 45, Doc: "training size at which Fit fails"},
		},
		New: func(p param.Values) (methods.Method, error) { return cliFail{at: p.Int("at")}, nil },
	})
}

type cliFail struct{ at int }

func (f cliFail) Fit(_ context.Context, train *datasets.Dataset, _ *methods.Env) (methods.Model, error) {
	if train.Rows() == f.at {
		return nil, fmt.Errorf("cli-fail: failing at training size %d as asked", f.at)
	}
	return firstClass(len(train.Classes)), nil
}

type firstClass int

func (k firstClass) Predict(X matrix.Matrix) *methods.Prediction {
	n, _ := X.Dims()
	s := make([]float64, n*int(k))
	for i := range s {
		s[i] = -1
	}
	for i := 0; i < n; i++ {
		s[i*int(k)] = 1
	}
	return &methods.Prediction{Scores: s, K: int(k), OneVsRest: true}
}

// cli-inf is a test fixture for a regressor whose predictions overflow
// (issue 43: an external learner that printed inf gave mse +Inf, a run
// that passed and a diff that saw no regression).
func init() {
	methods.Register("cli-inf", &methods.Plugin{
		Doc:   "predicts +Inf for every row (test fixture)",
		Kinds: methods.Regression,
		New:   func(param.Values) (methods.Method, error) { return infRegressor{}, nil },
	})
}

type infRegressor struct{}

func (infRegressor) Fit(context.Context, *datasets.Dataset, *methods.Env) (methods.Model, error) {
	return infRegressor{}, nil
}

func (infRegressor) Predict(X matrix.Matrix) *methods.Prediction {
	n, _ := X.Dims()
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Inf(1)
	}
	return &methods.Prediction{Values: v}
}
