// Package hp provides the hierarchical penalization plugins of Szafranski,
// Grandvalet and Morizet-Mahoudeaux (NIPS 2007):
//
//   - hp: squared-loss linear regression with the penalty of their problem (3),
//     min_{β,b} ‖y − b − Xβ‖² + ν Σ_k d_k^{1/4} (Σ_{j∈J_k} |β_j|^{4/3})^{3/4};
//   - kernel-hp: their multiple kernel regression (5), the same criterion with
//     the design [K_{h_1} … K_{h_K}] of Gaussian kernels
//     κ_h(x, x') = exp(−(x − x')²/(2h²)) between the training inputs (param
//     width: or /h², which reproduces the paper's Fig. 3, or /h), one group
//     of n coefficients per bandwidth.
//
// Scaling of ν: the loss is the residual sum of squares itself (no ½, no
// 1/n), as in the paper's equation (5), so ν in an experiment is the paper's
// ν. With groups of size 1 the criterion is RSS + ν‖β‖₁, i.e. the lasso of
// methods/lasso (glmnet's (1/2n)RSS + λ‖β‖₁) at λ = ν/(2n).
//
// Groups come from the training set's Groups (declared in the experiment by
// column name, or the dummies of a categorical column); every column in no
// group is its own group of size 1. With standardize (default true for hp)
// columns are centred and scaled to unit population variance before the
// fit, so the penalty sees standardized coefficients (as glmnet, and as the
// paper's Table 1 appears to report); the model predicts on the original
// scale. The intercept is unpenalized (centring). kernel-hp does not
// standardize the kernel columns (the paper's criterion (5) on raw
// kernels) but does fit an unpenalized intercept by default.
//
// The solver (Solve) is the paper's active-set algorithm (§3, steps A–D)
// with Newton steps; see Solve for the two places where it departs from the
// letter of the paper: the exact (ℓ4) form of optimality condition 1, and
// dropping a variable at its zero crossing.
package hp

import (
	"context"
	"fmt"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/lsq"
)

// solverParams are the parameters hp and kernel-hp share.
type solverParams struct {
	Tol       float64 `param:"tol" range:"(0, +inf)" default:"1e-10" doc:"optimality tolerance relative to ‖∇L(0)‖∞"`
	MaxIter   int     `param:"max_iter" range:"[1, +inf)" default:"20000" doc:"maximum number of Newton steps of the active-set algorithm"`
	Intercept bool    `param:"intercept" default:"true" doc:"fit an unpenalized intercept (centre the design and y)"`
}

// options returns the solver's options with batch.
func (p solverParams) options(batch bool) Options {
	return Options{Tol: p.Tol, MaxIter: p.MaxIter, Batch: batch}
}

// hpParams are the parameters of hp.
type hpParams struct {
	Nu          float64 `param:"nu" range:"[0, +inf)" default:"1" doc:"ν of RSS + ν·penalty (RSS unscaled: the paper's ν; singleton groups give glmnet λ = ν/2n)"`
	Standardize bool    `param:"standardize" default:"true" doc:"centre and scale columns to unit population variance before fitting (coefficients reported on the original scale)"`
	Batch       bool    `param:"batch" default:"false" doc:"step D also adds every violating variable of the already-active groups at once (same solution, fewer Newton solves)"`
	solverParams
}

func init() {
	methods.RegisterTyped("hp", methods.Typed[hpParams]{
		Doc:    "hierarchical penalization (Szafranski 2007): ‖y−b−Xβ‖² + ν Σ_k d_k^{1/4}(Σ_{j∈J_k}|β_j|^{4/3})^{3/4}, active-set Newton",
		Kinds:  methods.Regression,
		Memory: memHP,
		New: func(p hpParams) (methods.Method, error) {
			return &hpMethod{nu: p.Nu, standardize: p.Standardize, intercept: p.Intercept, opt: p.options(p.Batch)}, nil
		},
	})
}

type hpMethod struct {
	nu                     float64
	standardize, intercept bool
	opt                    Options
}

func (m *hpMethod) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	if train.IsClassification() {
		return nil, fmt.Errorf("hp: dataset %q is a classification dataset; hp does squared-loss regression", train.Name)
	}
	if train.Rows() < 2 {
		return nil, fmt.Errorf("hp: dataset %q: %d training rows, need at least 2", train.Name, train.Rows())
	}
	ds, err := lsq.CachedDesign(train, env, m.standardize, m.intercept)
	if err != nil {
		return nil, fmt.Errorf("hp: dataset %q: %w", train.Name, err)
	}
	groups, err := lsq.Groups(train)
	if err != nil {
		return nil, fmt.Errorf("hp: dataset %q: %w", train.Name, err)
	}
	sol, err := Solve(ctx, ds, lsq.ColumnGroups(groups), m.nu, m.opt)
	if err != nil {
		return nil, fmt.Errorf("hp: dataset %q: %w", train.Name, err)
	}
	beta, b := ds.Coefficients(sol.Beta)
	info := methods.Info{Iterations: sol.Newton, Converged: sol.Converged, Objective: sol.Objective}
	return lsq.NewModel(beta, b, info, *lsq.CoefficientTable(train, groups, sol.Beta, beta, b)), nil
}
