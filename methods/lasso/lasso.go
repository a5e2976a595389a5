// Package lasso provides the squared-loss sparse linear regression plugins
// lasso and group-lasso, solved on the covariance-form design of package
// lsq, which they share with the hierarchical penalization plugins of
// methods/hp.
//
//   - lasso: min_{β,b} (1/2n)‖y − b − Xβ‖² + λ‖β‖₁, glmnet's objective and
//     λ scaling exactly (family "gaussian", alpha 1). Cyclic coordinate
//     descent in covariance mode (Friedman, Hastie and Tibshirani 2010)
//     along a warm-started path of `path` log-spaced values from λ_max (the
//     smallest λ giving β = 0) down to the requested λ.
//   - group-lasso: min_{β,b} (1/2n)‖y − b − Xβ‖² + λ Σ_k √d_k ‖β_{J_k}‖₂
//     (Yuan and Lin 2006 weights √d_k), by block coordinate descent with
//     each block minimized exactly (eigendecomposition of the block's Gram
//     matrix and a scalar root for the block norm), also along a
//     warm-started path from λ_max = max_k ‖X_kᵀy‖/(n√d_k).
//
// Groups come from the training set's Groups (declared in the experiment, or
// the dummies of a categorical column); every column in no group is its own
// group of size 1, so group-lasso without groups is the lasso.
//
// With standardize (the default, as glmnet) every column is centred and
// divided by its population standard deviation before fitting, so the
// penalty sees standardized coefficients; the model and the "beta" column
// of the coefficient table are on the original scale, with the unpenalized
// intercept b recovered from the means. Without intercept nothing is
// centred. Fitted models implement methods.Artifacter (the "coefficients"
// table: β, standardized β and each group's hierarchical-penalty norm
// d_k^{1/4}(Σ|β_j|^{4/3})^{3/4}, the layout of Szafranski et al.'s Table 1)
// and methods.Informer.
package lasso

import (
	"context"
	"fmt"
	"math"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/lsq"
)

// Options controls the coordinate-descent solvers.
type Options struct {
	// Tol stops a solve when a full sweep moves no block by more than
	// Tol·YtY in the Gram norm (ΔβᵀG_kkΔβ), glmnet's `thresh` convention
	// relative to the null deviance. 0 means 1e-20.
	Tol float64
	// MaxSweeps caps the number of full sweeps per λ; 0 means 100000.
	MaxSweeps int
}

func (o Options) norm() Options {
	if o.Tol == 0 {
		o.Tol = 1e-20
	}
	if o.MaxSweeps == 0 {
		o.MaxSweeps = 100000
	}
	return o
}

// Solution is the result of a solve, on the standardized scale.
type Solution struct {
	Beta      []float64
	Sweeps    int  // total sweeps over all path points
	Converged bool // every path point converged within MaxSweeps
	Objective float64
}

// LambdaMax returns the smallest λ for which the lasso solution on ds is
// zero: max_j |XtY_j| / n.
func LambdaMax(ds *lsq.Design) float64 {
	m := 0.0
	for _, c := range ds.XtY {
		m = math.Max(m, math.Abs(c))
	}
	return m / float64(ds.N)
}

// Path returns steps values log-spaced from hi (excluded) down to lo
// (included); if lo ≥ hi or steps ≤ 1 it returns just lo.
func Path(hi, lo float64, steps int) []float64 {
	if lo >= hi || steps <= 1 || lo <= 0 {
		return []float64{lo}
	}
	out := make([]float64, steps)
	r := math.Log(lo / hi)
	for t := 1; t <= steps; t++ {
		out[t-1] = hi * math.Exp(r*float64(t)/float64(steps))
	}
	out[steps-1] = lo
	return out
}

// LassoObjective returns (1/2n)RSS(β) + λ‖β‖₁ on ds.
func LassoObjective(ds *lsq.Design, beta []float64, lambda float64) float64 {
	l1 := 0.0
	for _, b := range beta {
		l1 += math.Abs(b)
	}
	return ds.RSS(beta)/(2*float64(ds.N)) + lambda*l1
}

// SolveLasso minimizes (1/2n)‖ys − Xs β‖² + λ‖β‖₁ on ds by cyclic coordinate
// descent, warm-started from beta0 (nil: zero) at each λ of lambdas in turn
// (a path, ending at the λ wanted). It returns ctx.Err() when cancelled.
func SolveLasso(ctx context.Context, ds *lsq.Design, lambdas []float64, beta0 []float64, opt Options) (*Solution, error) {
	opt = opt.norm()
	d, n := ds.D, float64(ds.N)
	beta := make([]float64, d)
	if beta0 != nil {
		copy(beta, beta0)
	}
	r := make([]float64, d) // r = XtY − Gram·β
	ds.GramTimes(r, beta)
	for j := range r {
		r[j] = ds.XtY[j] - r[j]
	}
	sol := &Solution{Converged: true}
	stop := opt.Tol * math.Max(ds.YtY, 1e-300)
	for _, lambda := range lambdas {
		thr := n * lambda
		converged := false
		for sweep := 0; sweep < opt.MaxSweeps; sweep++ {
			if sweep%64 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			sol.Sweeps++
			maxMove := 0.0
			for j := 0; j < d; j++ {
				gjj := ds.Gram[j*d+j]
				if gjj <= 0 {
					continue
				}
				z := r[j] + gjj*beta[j]
				nb := 0.0
				if z > thr {
					nb = (z - thr) / gjj
				} else if z < -thr {
					nb = (z + thr) / gjj
				}
				delta := nb - beta[j]
				if delta == 0 {
					continue
				}
				beta[j] = nb
				col := ds.Gram[j*d : (j+1)*d] // symmetric: row j = column j
				for i := range r {
					r[i] -= col[i] * delta
				}
				maxMove = math.Max(maxMove, gjj*delta*delta)
			}
			if maxMove <= stop {
				converged = true
				break
			}
		}
		if !converged {
			sol.Converged = false
		}
	}
	sol.Beta = beta
	sol.Objective = LassoObjective(ds, beta, lambdas[len(lambdas)-1])
	return sol, nil
}

// LassoKKT returns the largest violation of the lasso optimality conditions
// at β, in units of the (1/2n)-scaled gradient: for β_j ≠ 0,
// |g_j + λ sign β_j|; for β_j = 0, max(0, |g_j| − λ), where
// g = −(XtY − Gram β)/n is the gradient of the loss.
func LassoKKT(ds *lsq.Design, beta []float64, lambda float64) float64 {
	g := make([]float64, ds.D)
	ds.GramTimes(g, beta)
	worst := 0.0
	for j := range g {
		gj := (g[j] - ds.XtY[j]) / float64(ds.N)
		var v float64
		switch {
		case beta[j] > 0:
			v = math.Abs(gj + lambda)
		case beta[j] < 0:
			v = math.Abs(gj - lambda)
		default:
			v = math.Max(0, math.Abs(gj)-lambda)
		}
		worst = math.Max(worst, v)
	}
	return worst
}

type lassoMethod struct {
	lambda                 float64
	standardize, intercept bool
	path                   int
	opt                    Options
}

// commonParams are the parameters lasso and group-lasso share.
type commonParams struct {
	Standardize bool    `param:"standardize" default:"true" doc:"centre and scale columns to unit population variance before fitting (coefficients reported on the original scale)"`
	Intercept   bool    `param:"intercept" default:"true" doc:"fit an unpenalized intercept (centre X and y)"`
	Path        int     `param:"path" range:"[1, +inf)" default:"20" doc:"number of warm-started log-spaced penalty values from the zero-solution value down to the requested one (1: cold start)"`
	Tol         float64 `param:"tol" range:"(0, +inf)" default:"1e-20" doc:"stop when no block moves by more than tol·‖y−ȳ‖² in the Gram norm over a sweep (glmnet's thresh)"`
	MaxSweeps   int     `param:"max_sweeps" range:"[1, +inf)" default:"100000" doc:"maximum full sweeps per path point"`
}

// method returns the solver settings of c at penalty lambda.
func (c commonParams) method(lambda float64) lassoMethod {
	return lassoMethod{lambda: lambda, standardize: c.Standardize, intercept: c.Intercept,
		path: c.Path, opt: Options{Tol: c.Tol, MaxSweeps: c.MaxSweeps}}
}

// lassoParams are the parameters of lasso.
type lassoParams struct {
	Lambda float64 `param:"lambda" range:"[0, +inf)" default:"0.01" doc:"λ of (1/2n)RSS + λ‖β‖₁, as glmnet's lambda"`
	commonParams
}

// groupParams are the parameters of group-lasso.
type groupParams struct {
	Lambda float64 `param:"lambda" range:"[0, +inf)" default:"0.01" doc:"λ of (1/2n)RSS + λ Σ_k √d_k‖β_k‖₂"`
	commonParams
}

func init() {
	methods.RegisterTyped("lasso", methods.Typed[lassoParams]{
		Doc:    "lasso: (1/2n)‖y−b−Xβ‖² + λ‖β‖₁ (glmnet scaling), coordinate descent along a warm-started λ path",
		Kinds:  methods.Regression,
		Memory: memLasso,
		New: func(p lassoParams) (methods.Method, error) {
			m := p.method(p.Lambda)
			return &m, nil
		},
	})
	methods.RegisterTyped("group-lasso", methods.Typed[groupParams]{
		Doc:    "group lasso: (1/2n)‖y−b−Xβ‖² + λ Σ_k √d_k‖β_k‖₂, exact block coordinate descent along a warm-started λ path",
		Kinds:  methods.Regression,
		Memory: memGroupLasso,
		New: func(p groupParams) (methods.Method, error) {
			m := groupMethod(p.method(p.Lambda))
			return &m, nil
		},
	})
}

func (m *lassoMethod) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	if err := checkRegression(train); err != nil {
		return nil, fmt.Errorf("lasso: %w", err)
	}
	ds, err := lsq.CachedDesign(train, env, m.standardize, m.intercept)
	if err != nil {
		return nil, fmt.Errorf("lasso: dataset %q: %w", train.Name, err)
	}
	sol, err := SolveLasso(ctx, ds, Path(LambdaMax(ds), m.lambda, m.path), nil, m.opt)
	if err != nil {
		return nil, err
	}
	groups, err := lsq.Groups(train)
	if err != nil {
		return nil, fmt.Errorf("lasso: dataset %q: %w", train.Name, err)
	}
	beta, b := ds.Coefficients(sol.Beta)
	info := methods.Info{Iterations: sol.Sweeps, Converged: sol.Converged, Objective: sol.Objective}
	return lsq.NewModel(beta, b, info, *lsq.CoefficientTable(train, groups, sol.Beta, beta, b)), nil
}

// checkRegression returns an error if train cannot be fitted by squared-loss
// regression.
func checkRegression(train *datasets.Dataset) error {
	if train.IsClassification() {
		return fmt.Errorf("dataset %q is a classification dataset; this method does squared-loss regression", train.Name)
	}
	if train.Rows() < 2 {
		return fmt.Errorf("dataset %q: %d training rows, need at least 2", train.Name, train.Rows())
	}
	return nil
}
