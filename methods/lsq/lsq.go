// Package lsq provides the squared-loss linear regression problem in
// covariance form (Design) shared by the lasso, group-lasso, hp and
// kernel-hp plugins, with what they report alike: the column groups of a
// training set, the coefficient table with each group's hierarchical-penalty
// norm, and the fitted linear model. It registers nothing.
package lsq

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
// lasso, group-lasso, hp and kernel-hp: the columns of X are centred (when Intercept)
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
		panic(fmt.Sprintf("lsq: NewDesign: %d targets for %d rows", len(y), n))
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

// CachedDesign returns the design of train, shared through env's memo by
// every fit on the same training set with the same options and targets.
func CachedDesign(train *datasets.Dataset, env *methods.Env, standardize, intercept bool) (*Design, error) {
	key := methods.Key{Op: "lsq.design",
		Args: fmt.Sprintf("standardize=%t/intercept=%t/y=%s", standardize, intercept, methods.ContentID(train.Y))}
	return methods.Remember(env, key, func() (*Design, error) { return NewDesign(train.X, train.Y, standardize, intercept) })
}

// DesignBytes estimates what NewDesign allocates for n rows and d columns:
// the dense centred copy of X, the d×d Gram matrix and a few vectors.
func DesignBytes(n, d int) int64 {
	return methods.Bytes(methods.Floats(n, d), methods.Floats(d, d), methods.Floats(6, d), methods.Floats(2, n))
}

// TableBytes estimates the coefficient table (CoefficientTable) of d
// variables: a name and a row of values each.
func TableBytes(d int) int64 { return methods.Floats(16, d) }
