// Package pcapair provides the pca-pair plugin: the exploratory plot of
// Paskov et al. (2013), Fig. 3. It projects the training rows onto their
// top principal components, fits a logistic regression on every pair of
// them, keeps the pair with the lowest training error, and classifies with
// that pair's model. The pair's scatter plot (one series per class) is the
// model's artifact; the pair and its training error are its extras.
package pcapair

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/reduce"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/logistic"
	"github.com/repro-ml/repro/methods/optim"
)

func init() {
	methods.RegisterTyped("pca-pair", methods.Typed[params]{
		Doc: "logistic regression on the pair of the top principal components (of the training rows) with the lowest training error; " +
			"the pair's scatter plot by class is an artifact (Paskov et al. 2013, Fig. 3)",
		Kinds:  methods.Classification,
		Memory: memory,
		New: func(p params) (methods.Method, error) {
			return &method{m: p.Components, ridge: p.Ridge, maxIter: p.MaxIter}, nil
		},
	})
}

// params are the parameters of pca-pair.
type params struct {
	Components int     `param:"components" range:"[2, 50]" default:"10" doc:"principal components whose pairs are tried (the paper: 10)"`
	Ridge      float64 `param:"ridge" range:"(0, +inf)" default:"0.0001" doc:"ridge penalty of each pair's logistic regression (keeps a separable pair's fit finite)"`
	MaxIter    int     `param:"max_iter" range:"[1, +inf)" default:"200" doc:"L-BFGS iterations per pair at most"`
}

type method struct {
	m       int
	ridge   float64
	maxIter int
}

// Pair is the outcome of Best: the components (0-based) and the training
// error (a fraction) of their logistic regression.
type Pair struct {
	I, J  int
	Error float64
	Model *logistic.Model
}

// Best fits a logistic regression (classes y in [0, k)) on every pair of
// the columns of Z (n×m) and returns the pair of lowest training error,
// the first in (i, j) order among ties.
func Best(ctx context.Context, Z *matrix.Dense, y []int, k int, ridge float64, maxIter int) (Pair, error) {
	n, m := Z.Dims()
	best := Pair{Error: math.Inf(1)}
	for i := 0; i < m; i++ {
		for j := i + 1; j < m; j++ {
			if err := ctx.Err(); err != nil {
				return Pair{}, err
			}
			X := columns(Z, i, j)
			p := &logistic.Problem{X: X, Y: y, K: k, D: 2, Pen: logistic.Penalty{Ridge: ridge}}
			model, err := logistic.Train(ctx, p, optim.Settings{MaxIter: maxIter})
			if err != nil {
				return Pair{}, fmt.Errorf("components %d and %d: %w", i+1, j+1, err)
			}
			pred := model.Predict(X)
			wrong := 0
			for r := 0; r < n; r++ {
				if pred.Label(r) != y[r] {
					wrong++
				}
			}
			if e := float64(wrong) / float64(n); e < best.Error {
				best = Pair{I: i, J: j, Error: e, Model: model}
			}
		}
	}
	return best, nil
}

// columns returns columns i and j of Z as an n×2 CSR matrix.
func columns(Z *matrix.Dense, i, j int) *matrix.CSR {
	n, _ := Z.Dims()
	b := matrix.NewBuilder(2)
	for r := 0; r < n; r++ {
		row := Z.RawRow(r)
		b.Add(0, row[i])
		b.Add(1, row[j])
		b.EndRow()
	}
	return b.Build()
}

func (m *method) Fit(ctx context.Context, train *datasets.Dataset, _ *methods.Env) (methods.Model, error) {
	if !train.IsClassification() || len(train.Classes) < 2 {
		return nil, fmt.Errorf("pca-pair: dataset %q: needs a classification dataset with at least 2 classes", train.Name)
	}
	pca, err := reduce.FitPCA(ctx, train.X, reduce.Options{Components: m.m})
	if err != nil {
		return nil, fmt.Errorf("pca-pair: dataset %q: %w", train.Name, err)
	}
	Z := pca.Project(train.X)
	if _, c := Z.Dims(); c < 2 {
		return nil, fmt.Errorf("pca-pair: dataset %q: %d principal component of non-negligible variance; want at least 2", train.Name, c)
	}
	y := train.Labels()
	best, err := Best(ctx, Z, y, len(train.Classes), m.ridge, m.maxIter)
	if err != nil {
		return nil, fmt.Errorf("pca-pair: dataset %q: %w", train.Name, err)
	}
	plot := &methods.Plot{XLabel: "PC " + strconv.Itoa(best.I+1), YLabel: "PC " + strconv.Itoa(best.J+1)}
	for c, name := range train.Classes {
		s := methods.Series{Label: name, Points: true}
		for r, l := range y {
			if l == c {
				row := Z.RawRow(r)
				s.X = append(s.X, row[best.I])
				s.Y = append(s.Y, row[best.J])
			}
		}
		plot.Series = append(plot.Series, s)
	}
	return &model{pca: pca, pair: best, plot: plot}, nil
}

// model classifies by the logistic regression on the chosen pair.
type model struct {
	pca  *reduce.PCA
	pair Pair
	plot *methods.Plot
}

func (m *model) Predict(X matrix.Matrix) *methods.Prediction {
	return m.pair.Model.Predict(columns(m.pca.Project(X), m.pair.I, m.pair.J))
}

// Info reports the chosen pair's logistic regression fit.
func (m *model) Info() methods.Info { return m.pair.Model.Info() }

// Extras records the chosen components (1-based) and the pair's training
// error in percent.
func (m *model) Extras() map[string]float64 {
	return map[string]float64{"pc_x": float64(m.pair.I + 1), "pc_y": float64(m.pair.J + 1), "pair_train_error": 100 * m.pair.Error}
}

// Artifacts returns the scatter plot of the training rows on the chosen
// pair of components, one series per class.
func (m *model) Artifacts() []methods.Artifact {
	return []methods.Artifact{{Name: "pca-pair", Title: fmt.Sprintf("PCs %d and %d (best pair)", m.pair.I+1, m.pair.J+1), Plot: m.plot}}
}
