package fakeplugin

// The fake plugins, registered like database/sql's fakedb: a synthetic
// classification dataset, a synthetic regression dataset, a
// nearest-centroid classifier, a mean regressor, and a method that fails
// on demand.

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
)

func init() {
	datasets.Register("fake-blobs", &datasets.Loader{
		Doc: "Gaussian blobs, one per class (test fixture)",
		Params: []param.Decl{
			{Name: "n", Type: param.Int, Default: 300, Min: param.Bound(2), Doc: "rows"},
			{Name: "d", Type: param.Int, Default: 5, Min: param.Bound(1), Doc: "columns"},
			{Name: "classes", Type: param.Int, Default: 3, Min: param.Bound(2), Max: param.Bound(26), Doc: "classes"},
			{Name: "spread", Type: param.Float, Default: 1.0, Min: param.Bound(0), MinExclusive: true, Doc: "noise standard deviation"},
			{Name: "given", Type: param.Bool, Default: false, Doc: "mark the last third of the rows as a given test split"},
		},
		Load: func(_ context.Context, _ datasets.Env, p param.Values) (*datasets.Dataset, error) {
			n, d, k := p.Int("n"), p.Int("d"), p.Int("classes")
			r := rand.New(rand.NewPCG(7, uint64(n*31+d*7+k)))
			centers := make([]float64, k*d)
			for i := range centers {
				centers[i] = 2 * r.NormFloat64()
			}
			X := matrix.NewDense(n, d, nil)
			y := make([]float64, n)
			classes := make([]string, k)
			for c := range classes {
				classes[c] = string(rune('a' + c))
			}
			var split []datasets.Part
			if p.Bool("given") {
				split = make([]datasets.Part, n)
			}
			for i := 0; i < n; i++ {
				c := i % k
				y[i] = float64(c)
				for j := 0; j < d; j++ {
					X.Set(i, j, centers[c*d+j]+p.Float("spread")*r.NormFloat64())
				}
				if split != nil && i >= 2*n/3 {
					split[i] = datasets.SplitTest
				}
			}
			return &datasets.Dataset{Name: "fake-blobs", X: X, Y: y, Classes: classes, Split: split}, nil
		},
	})
	datasets.Register("fake-line", &datasets.Loader{
		Doc: "y = 3x + 1 + noise (test fixture)",
		Params: []param.Decl{
			{Name: "n", Type: param.Int, Default: 100, Min: param.Bound(2), Doc: "rows"},
		},
		Load: func(_ context.Context, _ datasets.Env, p param.Values) (*datasets.Dataset, error) {
			n := p.Int("n")
			r := rand.New(rand.NewPCG(3, uint64(n)))
			X := matrix.NewDense(n, 1, nil)
			y := make([]float64, n)
			for i := 0; i < n; i++ {
				x := float64(i) / float64(n)
				X.Set(i, 0, x)
				y[i] = 3*x + 1 + 0.1*r.NormFloat64()
			}
			return &datasets.Dataset{Name: "fake-line", X: X, Y: y, Features: []string{"x"}}, nil
		},
	})
	methods.Register("fake-centroid", &methods.Plugin{
		Doc:   "nearest shrunken centroid (test fixture)",
		Kinds: methods.Classification,
		Params: []param.Decl{
			{Name: "shrink", Type: param.Float, Default: 0.0, Min: param.Bound(0), Max: param.Bound(1), Doc: "shrinkage of centroids toward the grand mean"},
			{Name: "noise", Type: param.Float, Default: 0.0, Min: param.Bound(0), Doc: "random jitter added to scores, from the method seed"},
		},
		New: func(p param.Values) (methods.Method, error) {
			return &Centroid{Shrink: p.Float("shrink"), Noise: p.Float("noise")}, nil
		},
	})
	methods.Register("fake-mean", &methods.Plugin{
		Doc:   "predicts the training mean (test fixture)",
		Kinds: methods.Regression,
		New:   func(param.Values) (methods.Method, error) { return meanMethod{}, nil },
	})
	methods.Register("fake-fail", &methods.Plugin{
		Doc:   "fails when its size parameter matches the training size (test fixture)",
		Kinds: methods.Classification | methods.Regression,
		Params: []param.Decl{
			{Name: "at", Type: param.Int, Default: -1, Doc: "training size at which Fit fails"},
		},
		New: func(p param.Values) (methods.Method, error) { return failMethod{at: p.Int("at")}, nil },
	})
}

// Centroid is the method of fake-centroid: a nearest shrunken centroid
// classifier whose scores are minus the distances to the centroids, with
// Noise times a standard normal added from the method seed. The fake
// methods of other tests fit it as their model.
type Centroid struct{ Shrink, Noise float64 }

type centroidModel struct {
	k, d  int
	mu    []float64
	noise float64
	seed  uint64
}

// Fit fits the centroids of train's classes.
func (c *Centroid) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	k, d := len(train.Classes), train.Cols()
	mu := make([]float64, k*d)
	cnt := make([]float64, k)
	grand := make([]float64, d)
	for i := 0; i < train.Rows(); i++ {
		y := train.Label(i)
		cnt[y]++
		train.X.AddRow(mu[y*d:(y+1)*d], i, 1)
		train.X.AddRow(grand, i, 1)
	}
	for j := range grand {
		grand[j] /= float64(train.Rows())
	}
	for y := 0; y < k; y++ {
		for j := 0; j < d; j++ {
			m := grand[j]
			if cnt[y] > 0 {
				m = mu[y*d+j] / cnt[y]
			}
			mu[y*d+j] = (1-c.Shrink)*m + c.Shrink*grand[j]
		}
	}
	return &centroidModel{k: k, d: d, mu: mu, noise: c.Noise, seed: env.Seed}, nil
}

func (m *centroidModel) Predict(X matrix.Matrix) *methods.Prediction {
	n, _ := X.Dims()
	r := rand.New(rand.NewPCG(m.seed, 1))
	s := make([]float64, n*m.k)
	row := make([]float64, m.d)
	for i := 0; i < n; i++ {
		clear(row)
		X.AddRow(row, i, 1)
		for c := 0; c < m.k; c++ {
			dist := 0.0
			for j, v := range row {
				e := v - m.mu[c*m.d+j]
				dist += e * e
			}
			s[i*m.k+c] = -math.Sqrt(dist) + m.noise*r.NormFloat64()
		}
	}
	return &methods.Prediction{Scores: s, K: m.k}
}

func (m *centroidModel) Info() methods.Info { return methods.Info{Iterations: 1, Converged: true} }

func (m *centroidModel) Artifacts() []methods.Artifact {
	t := &methods.Table{Columns: []string{"first"}}
	for c := 0; c < m.k; c++ {
		t.Rows = append(t.Rows, string(rune('a'+c)))
		t.Values = append(t.Values, []float64{m.mu[c*m.d]})
	}
	return []methods.Artifact{{Name: "centroids", Title: "First coordinate of each centroid", Table: t}}
}

type meanMethod struct{}

type meanModel float64

func (meanMethod) Fit(_ context.Context, train *datasets.Dataset, _ *methods.Env) (methods.Model, error) {
	s := 0.0
	for _, y := range train.Y {
		s += y
	}
	return meanModel(s / float64(len(train.Y))), nil
}

func (m meanModel) Predict(X matrix.Matrix) *methods.Prediction {
	n, _ := X.Dims()
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(m)
	}
	return &methods.Prediction{Values: v}
}

type failMethod struct{ at int }

func (f failMethod) Fit(_ context.Context, train *datasets.Dataset, _ *methods.Env) (methods.Model, error) {
	if train.Rows() == f.at {
		return nil, errors.New("fake-fail: failing as asked")
	}
	if train.IsClassification() {
		return &centroidModel{k: len(train.Classes), d: train.Cols(), mu: make([]float64, len(train.Classes)*train.Cols())}, nil
	}
	return meanModel(0), nil
}

func init() {
	methods.Register("fake-panic", &methods.Plugin{
		Doc:   "panics in Fit (test fixture)",
		Kinds: methods.Classification | methods.Regression,
		New:   func(param.Values) (methods.Method, error) { return panicMethod{}, nil },
	})
}

type panicMethod struct{}

func (panicMethod) Fit(context.Context, *datasets.Dataset, *methods.Env) (methods.Model, error) {
	var m map[string]int
	m["boom"]++ // a nil-map write: a real runtime panic
	return nil, nil
}

// More fixtures for the spec tests: a transform with a required param, a
// method with list, enum, map and required string params, and a method
// whose New panics.
func init() {
	datasets.RegisterTransform("fake-scale", &datasets.Transform{
		Doc: "multiplies every feature by factor (test fixture)",
		Params: []param.Decl{
			{Name: "factor", Type: param.Float, Min: param.Bound(0), MinExclusive: true, Doc: "the multiplier"},
		},
		Version: 1,
		Apply: func(_ context.Context, _ datasets.Env, d *datasets.Dataset, p param.Values) (*datasets.Dataset, error) {
			r, c := d.X.Dims()
			X := matrix.NewDense(r, c, nil)
			f := p.Float("factor")
			for i := 0; i < r; i++ {
				d.X.Row(i, func(j int, v float64) { X.Set(i, j, f*v) })
			}
			out := *d
			out.X = X
			return &out, nil
		},
	})
	methods.Register("fake-knobs", &methods.Plugin{
		Doc:   "nearest centroid with many kinds of params (test fixture)",
		Kinds: methods.Classification,
		Params: []param.Decl{
			{Name: "tag", Type: param.String, Doc: "a required string"},
			{Name: "widths", Type: param.IntList, Default: []int{1}, Doc: "a list param"},
			{Name: "mode", Type: param.Enum, Default: "a", Choices: []string{"a", "b"}, Doc: "an enum"},
			{Name: "cols", Type: param.Map, Default: map[string]string{}, Doc: "a map"},
			{Name: "rate", Type: param.Float, Default: 1, Min: param.Bound(0), Doc: "a float with an int default"},
		},
		New: func(p param.Values) (methods.Method, error) {
			_ = p.String("tag")
			_ = p.Ints("widths")
			_ = p.Float("rate")
			return &Centroid{}, nil
		},
	})
	methods.Register("fake-newpanic", &methods.Plugin{
		Doc:   "panics in New (test fixture)",
		Kinds: methods.Classification,
		New:   func(param.Values) (methods.Method, error) { panic("fake-newpanic: New panics") },
	})
}
