package fakeplugin

import (
	"context"
	"math"
	"sync"
	"sync/atomic"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
)

// Fixtures for the protocol tests: a method whose model records, as an
// extra, a fingerprint of the rows it was trained on; a method that
// predicts NaN; a query strategy that checks what it is shown; and a
// transform fitted per trial that records what it was fitted on.
func init() {
	methods.Register("fake-rows", &methods.Plugin{
		Doc:   "nearest centroid that records a fingerprint of its training rows (test fixture)",
		Kinds: methods.Classification,
		New:   func(param.Values) (methods.Method, error) { return rowsMethod{}, nil },
	})
	methods.Register("fake-nan", &methods.Plugin{
		Doc:   "predicts NaN scores (test fixture)",
		Kinds: methods.Classification | methods.Regression,
		New:   func(param.Values) (methods.Method, error) { return nanMethod{}, nil },
	})
	datasets.RegisterTransform("fake-center", &datasets.Transform{
		Doc:     "subtracts the column means of the rows it is fitted on (test fixture)",
		Version: 1,
		Fit:     fitCenter,
	})
}

type rowsMethod struct{}

type rowsModel struct {
	methods.Model
	print float64
}

func (rowsMethod) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	m, err := (&Centroid{}).Fit(ctx, train, env)
	if err != nil {
		return nil, err
	}
	// The fingerprint: a sum over the training rows of their features,
	// weighted by position in a sorted order, identical for identical sets.
	print := 0.0
	for i := 0; i < train.Rows(); i++ {
		train.X.Row(i, func(j int, v float64) { print += v * float64(j+1) })
	}
	return &rowsModel{Model: m, print: print}, nil
}

func (m *rowsModel) Extras() map[string]float64 { return map[string]float64{"fingerprint": m.print} }

type nanMethod struct{}

type nanModel struct{ k int }

func (nanMethod) Fit(_ context.Context, train *datasets.Dataset, _ *methods.Env) (methods.Model, error) {
	return nanModel{k: len(train.Classes)}, nil
}

func (m nanModel) Predict(X matrix.Matrix) *methods.Prediction {
	n, _ := X.Dims()
	if m.k == 0 {
		v := make([]float64, n)
		v[n/2] = math.NaN()
		return &methods.Prediction{Values: v}
	}
	s := make([]float64, n*m.k)
	s[len(s)/2] = math.NaN()
	return &methods.Prediction{Scores: s, K: m.k}
}

// centerFits records every fit of fake-center: how many rows and whether
// labels were visible.
var centerFits struct {
	sync.Mutex
	rows    []int
	labeled int
	calls   atomic.Int64
}

func fitCenter(_ context.Context, _ datasets.Env, d *datasets.Dataset, _ param.Values) (datasets.Fitted, error) {
	centerFits.calls.Add(1)
	centerFits.Lock()
	centerFits.rows = append(centerFits.rows, d.Rows())
	if d.Y != nil || d.Classes != nil {
		centerFits.labeled++
	}
	centerFits.Unlock()
	mean := make([]float64, d.Cols())
	for i := 0; i < d.Rows(); i++ {
		d.X.AddRow(mean, i, 1/float64(d.Rows()))
	}
	return centered(mean), nil
}

type centered []float64

func (c centered) Transform(d *datasets.Dataset) (*datasets.Dataset, error) {
	r, k := d.X.Dims()
	X := matrix.NewDense(r, k, nil)
	for i := 0; i < r; i++ {
		d.X.Row(i, func(j int, v float64) { X.Set(i, j, v-c[j]) })
	}
	out := *d
	out.X = X
	return &out, nil
}

// CenterFits returns what fake-center's fits saw since the last
// ResetCenterFits: the rows of each fit, in the order they ran, how many
// fits saw labels, and how many fits ran.
func CenterFits() (rows []int, labeled int, calls int64) {
	centerFits.Lock()
	defer centerFits.Unlock()
	return append([]int(nil), centerFits.rows...), centerFits.labeled, centerFits.calls.Load()
}

// ResetCenterFits forgets the fits of fake-center recorded so far.
func ResetCenterFits() {
	centerFits.Lock()
	centerFits.rows, centerFits.labeled = nil, 0
	centerFits.calls.Store(0)
	centerFits.Unlock()
}
