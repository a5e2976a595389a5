package lasso

import (
	"fmt"
	"math"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Design is a squared-loss regression problem in covariance form, shared by
// lasso, group-lasso and hp: the columns of X are centred (when Intercept)
// and divided by their population standard deviation (when standardized),
// giving Xs, and y is centred (when Intercept), giving ys. Then for every β
//
//	‖ys − Xs β‖² = YtY − 2 XtYᵀβ + βᵀ Gram β,
//
// so solvers never touch the n rows again. The unpenalized intercept is
// recovered exactly from the means (Coefficients).
type Design struct {
	N, D      int
	Mean      []float64 // column means subtracted (zero without Intercept)
	Scale     []float64 // column scales divided by (1 without standardization or for a constant column)
	YMean     float64   // mean of y subtracted (zero without Intercept)
	Intercept bool
	Gram      []float64 // D×D row-major XsᵀXs
	XtY       []float64 // Xsᵀys
	YtY       float64   // ysᵀys
}

// NewDesign builds the covariance form of (X, y). With standardize, columns
// are scaled to unit population variance (glmnet's convention: the penalty
// applies to coefficients of the standardized columns, which Coefficients
// maps back to the original scale). A constant column keeps scale 1 and its
// centred copy is zero. It returns an error for empty data or non-finite
// values.
func NewDesign(X matrix.Matrix, y []float64, standardize, intercept bool) (*Design, error) {
	n, d := X.Dims()
	if len(y) != n {
		panic(fmt.Sprintf("lasso: NewDesign: %d targets for %d rows", len(y), n))
	}
	if n == 0 || d == 0 {
		return nil, fmt.Errorf("empty design (%d rows, %d columns)", n, d)
	}
	ds := &Design{N: n, D: d, Mean: make([]float64, d), Scale: make([]float64, d), Intercept: intercept}
	if intercept {
		ds.Mean = matrix.ColumnMeans(X)
		for _, v := range y {
			ds.YMean += v
		}
		ds.YMean /= float64(n)
	}
	// Dense centred, scaled copy, column count d (d is small for the linear
	// methods; kernel-hp builds a dense kernel design anyway).
	xs := make([]float64, n*d)
	for i := 0; i < n; i++ {
		row := xs[i*d : (i+1)*d]
		X.Row(i, func(j int, v float64) { row[j] = v })
		for j := range row {
			row[j] -= ds.Mean[j]
		}
	}
	for j := 0; j < d; j++ {
		ds.Scale[j] = 1
	}
	if standardize {
		ss := make([]float64, d)
		for i := 0; i < n; i++ {
			for j, v := range xs[i*d : (i+1)*d] {
				ss[j] += v * v
			}
		}
		for j := range ss {
			if s := math.Sqrt(ss[j] / float64(n)); s > 1e-12*(1+math.Abs(ds.Mean[j])) {
				ds.Scale[j] = s
			}
		}
		for i := 0; i < n; i++ {
			row := xs[i*d : (i+1)*d]
			for j := range row {
				row[j] /= ds.Scale[j]
			}
		}
	}
	ys := make([]float64, n)
	for i, v := range y {
		ys[i] = v - ds.YMean
		ds.YtY += ys[i] * ys[i]
	}
	for _, v := range xs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("design has non-finite values")
		}
	}
	if math.IsNaN(ds.YtY) || math.IsInf(ds.YtY, 0) {
		return nil, fmt.Errorf("targets have non-finite values")
	}
	g := blas64.General{Rows: n, Cols: d, Stride: d, Data: xs}
	ds.Gram = make([]float64, d*d)
	sym := blas64.Symmetric{Uplo: blas.Upper, N: d, Stride: d, Data: ds.Gram}
	blas64.Syrk(blas.Trans, 1, g, 0, sym)
	for i := 0; i < d; i++ {
		for j := 0; j < i; j++ {
			ds.Gram[i*d+j] = ds.Gram[j*d+i]
		}
	}
	ds.XtY = make([]float64, d)
	blas64.Gemv(blas.Trans, 1, g, blas64.Vector{N: n, Inc: 1, Data: ys}, 0, blas64.Vector{N: d, Inc: 1, Data: ds.XtY})
	return ds, nil
}

// RSS returns ‖ys − Xs β‖² for coefficients β on the standardized scale.
func (ds *Design) RSS(beta []float64) float64 {
	d := ds.D
	q := 0.0
	for i, bi := range beta {
		if bi == 0 {
			continue
		}
		row := ds.Gram[i*d : (i+1)*d]
		s := 0.0
		for j, bj := range beta {
			s += row[j] * bj
		}
		q += bi * s
	}
	lin := 0.0
	for j, b := range beta {
		lin += ds.XtY[j] * b
	}
	return math.Max(0, ds.YtY-2*lin+q)
}

// GramTimes sets dst = Gram·beta.
func (ds *Design) GramTimes(dst, beta []float64) {
	d := ds.D
	for i := range dst {
		dst[i] = 0
	}
	for j, b := range beta {
		if b == 0 {
			continue
		}
		for i := 0; i < d; i++ {
			dst[i] += ds.Gram[i*d+j] * b
		}
	}
}

// Coefficients maps coefficients of the standardized columns to the original
// scale and returns them with the intercept.
func (ds *Design) Coefficients(beta []float64) (orig []float64, intercept float64) {
	orig = make([]float64, len(beta))
	intercept = ds.YMean
	for j, b := range beta {
		orig[j] = b / ds.Scale[j]
		intercept -= ds.Mean[j] * orig[j]
	}
	return orig, intercept
}

// CachedDesign returns the design of train, shared through env.Remember by
// every fit on the same training set with the same options.
func CachedDesign(train *datasets.Dataset, env *methods.Env, standardize, intercept bool) (*Design, error) {
	key := fmt.Sprintf("lasso.design/standardize=%t/intercept=%t", standardize, intercept)
	v, err := env.Remember(key, func() (any, error) { return NewDesign(train.X, train.Y, standardize, intercept) })
	if err != nil {
		return nil, err
	}
	return v.(*Design), nil
}

// Groups returns the groups of train's columns: train.Groups in declaration
// order, then every column in no group as its own group of size 1, named
// after the column. A column declared in two groups is an error.
func Groups(train *datasets.Dataset) ([]datasets.Group, error) {
	d := train.Cols()
	seen := make([]bool, d)
	var out []datasets.Group
	for _, g := range train.Groups {
		if len(g.Columns) == 0 {
			continue
		}
		for _, j := range g.Columns {
			if j < 0 || j >= d {
				return nil, fmt.Errorf("group %q: column %d out of range [0,%d)", g.Name, j, d)
			}
			if seen[j] {
				return nil, fmt.Errorf("group %q: column %s is already in another group", g.Name, FeatureName(train, j))
			}
			seen[j] = true
		}
		out = append(out, datasets.Group{Name: g.Name, Columns: append([]int(nil), g.Columns...)})
	}
	for j := 0; j < d; j++ {
		if !seen[j] {
			out = append(out, datasets.Group{Name: FeatureName(train, j), Columns: []int{j}})
		}
	}
	return out, nil
}

// FeatureName returns the name of column j of d, or "x<j>" if unnamed.
func FeatureName(d *datasets.Dataset, j int) string {
	if j < len(d.Features) && d.Features[j] != "" {
		return d.Features[j]
	}
	return fmt.Sprintf("x%d", j)
}

// HPNorm returns d_k^{1/4} (Σ_j |β_j|^{4/3})^{3/4} for the coefficients of one
// group of size len(beta): the group term of the hierarchical penalty
// (Szafranski et al. 2007), shown in the last column of their Table 1.
func HPNorm(beta []float64) float64 {
	s := 0.0
	for _, b := range beta {
		if b != 0 {
			s += math.Pow(math.Abs(b), 4.0/3)
		}
	}
	if s == 0 {
		return 0
	}
	return math.Pow(float64(len(beta)), 0.25) * math.Pow(s, 0.75)
}

// CoefficientTable returns the "coefficients" artifact of a grouped linear
// model: one row per variable named "group/variable" (or just the variable
// for singleton groups named after it), with columns beta (original scale),
// beta_std (standardized scale, the scale the penalty sees) and hp_norm, the
// group's d_k^{1/4}(Σ|β_j|^{4/3})^{3/4} over beta_std, repeated on each row
// of the group; a last row "(intercept)" holds the intercept.
func CoefficientTable(train *datasets.Dataset, groups []datasets.Group, betaStd, beta []float64, intercept float64) *methods.Artifact {
	t := &methods.Table{Columns: []string{"beta", "beta_std", "hp_norm"}}
	for _, g := range groups {
		sub := make([]float64, len(g.Columns))
		for i, j := range g.Columns {
			sub[i] = betaStd[j]
		}
		norm := HPNorm(sub)
		for _, j := range g.Columns {
			name := FeatureName(train, j)
			if !(len(g.Columns) == 1 && g.Name == name) {
				name = g.Name + "/" + name
			}
			t.Rows = append(t.Rows, name)
			t.Values = append(t.Values, []float64{beta[j], betaStd[j], norm})
		}
	}
	t.Rows = append(t.Rows, "(intercept)")
	t.Values = append(t.Values, []float64{intercept, math.NaN(), math.NaN()})
	return &methods.Artifact{Name: "coefficients", Title: "Coefficients and group norms d_k^{1/4}(Σ|β_j|^{4/3})^{3/4}", Table: t}
}

// linearModel is a fitted linear regression model.
type linearModel struct {
	beta      []float64 // original scale
	intercept float64
	info      methods.Info
	artifacts []methods.Artifact
}

func (m *linearModel) Predict(X matrix.Matrix) *methods.Prediction {
	n, d := X.Dims()
	if d != len(m.beta) {
		panic(fmt.Sprintf("lasso: Predict: %d columns, model has %d", d, len(m.beta)))
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = m.intercept + X.RowDot(i, m.beta)
	}
	return &methods.Prediction{Values: out}
}

func (m *linearModel) Info() methods.Info { return m.info }

func (m *linearModel) Artifacts() []methods.Artifact { return m.artifacts }

// NewLinearModel returns a regression Model predicting intercept + xᵀbeta,
// reporting info and the given artifacts (for hp, which shares the model).
func NewLinearModel(beta []float64, intercept float64, info methods.Info, artifacts ...methods.Artifact) methods.Model {
	return &linearModel{beta: beta, intercept: intercept, info: info, artifacts: artifacts}
}

// Coef returns the original-scale coefficients and intercept of a model
// built by this package or by NewLinearModel; ok is false otherwise.
func Coef(m methods.Model) (beta []float64, intercept float64, ok bool) {
	lm, ok := m.(*linearModel)
	if !ok {
		return nil, 0, false
	}
	return lm.beta, lm.intercept, true
}

func checkRegression(train *datasets.Dataset) error {
	if train.IsClassification() {
		return fmt.Errorf("dataset %q is a classification dataset; this method does squared-loss regression", train.Name)
	}
	if train.Rows() < 2 {
		return fmt.Errorf("dataset %q: %d training rows, need at least 2", train.Name, train.Rows())
	}
	return nil
}
