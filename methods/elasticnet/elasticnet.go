// Package elasticnet provides the logreg-en plugin: elastic-net logistic
// regression as glmnet fits it (Friedman, Hastie and Tibshirani 2010),
//
//	min over c, β of  −(1/n) Σᵢ log pᵢ(yᵢ) + λ Σₖⱼ (α|β̃ₖⱼ| + (1−α)/2 β̃ₖⱼ²),
//
// with glmnet's λ scaling, unpenalized intercepts c and the penalty on the
// coefficients β̃ⱼ = sⱼβⱼ of the columns scaled to unit population standard
// deviation sⱼ (standardize, the default; coefficients are reported on the
// original scale). Two classes give glmnet's binomial model (one vector);
// more give its multinomial model with type.multinomial = "ungrouped" (one
// vector per class, each coefficient penalized on its own; glmnet's grouped
// variant is not implemented).
//
// The solver is glmnet's lognet: an outer Newton loop forms the weighted
// least-squares approximation of each class's loss in turn, and cyclic
// coordinate descent minimizes it with the penalty; the columns are
// centred by their means under the Newton weights, implicitly so that
// sparse columns stay sparse, which decouples the intercept from the
// coefficients. Along a warm-started λ path the sequential strong rule
// (Tibshirani et al. 2012) chooses the columns to work on, descent cycles
// over the non-zero ones until they settle before sweeping the strong set
// again, and the optimality conditions of every other column are checked
// at the end of each λ. After each Newton cycle the multinomial model is
// re-centred as glmnet does (mean-zero intercepts, each column's
// coefficients shifted to minimize the penalty). Unlike glmnet, a class's
// Newton step is halved until the penalized objective does not rise (glmnet
// instead counts fitted probabilities within 10⁻⁵ of 0 or 1 as exact,
// which leaves its fits short of optimal); a full step that does not
// raise it is glmnet's step. Only the strong columns have coefficients in
// the solver's states, so that a wide multinomial problem's states follow
// its strong set, not its K·d coefficients. The columns are stored
// sparse (a dense matrix drops its zeros), with 32-bit row indices.
//
// The λ path is glmnet's: nlambda values log-spaced from λ_max (the
// smallest λ giving β = 0, computed as for α = max(α, 10⁻³)) down to
// lambda_min_ratio·λ_max, or the user's list lambdas. A model predicts with
// lambda, or with the last λ of the path when lambda is 0. The fit at a λ
// is solved from the path point just above it, so a grid over lambda (for
// select: {rule: cv}) shares one path per training set through
// methods.Env.Memo: every grid point and the refit reuse the points already
// solved, and the answer does not depend on the order of the grid.
//
// Against the liblinear-scaled plugins: logreg-l1 minimizes
// ‖w‖₁ + C Σᵢ loss and logreg-l2 ½‖w‖² + C Σᵢ loss; dividing glmnet's
// objective by λ shows that logreg-en with standardize: false and α = 1
// (resp. α = 0) at λ solves logreg-l1 (resp. logreg-l2 with multiclass:
// softmax for more than two classes) at C = 1/(nλ), n the number of
// training rows.
package elasticnet

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
)

func init() {
	methods.RegisterTyped("logreg-en", methods.Typed[Params]{
		Doc:    "elastic-net logistic regression, (1/n)Σ log-loss + λ(α‖β‖₁ + (1−α)/2‖β‖²) as glmnet (binomial, or ungrouped multinomial), coordinate descent along a warm-started λ path with strong rules",
		Kinds:  methods.Classification,
		New:    newMethod,
		Memory: memory,
		Validate: func(p Params) error {
			var errs []error
			l := p.Lambdas
			for i, v := range l {
				if !(v > 0) {
					errs = append(errs, param.InvalidElem("lambdas", i, "%g is not positive", v))
				} else if i > 0 && v >= l[i-1] {
					errs = append(errs, param.InvalidElem("lambdas", i, "%g is not below the previous value %g; the path must decrease", v, l[i-1]))
				}
			}
			return errors.Join(errs...)
		},
	})
}

// Params are the parameters of logreg-en.
type Params struct {
	Alpha          float64   `param:"alpha" range:"[0, 1]" default:"1" doc:"elastic-net mixing α of λ(α‖β‖₁ + (1−α)/2‖β‖²): 1 lasso, 0 ridge (glmnet's alpha)"`
	Lambda         float64   `param:"lambda" range:"[0, +inf)" default:"0" doc:"λ to predict with, in glmnet's scaling; 0: the last λ of the path"`
	Nlambda        int       `param:"nlambda" range:"[2, +inf)" default:"100" doc:"number of log-spaced λ values of the path from λ_max down to lambda_min_ratio·λ_max (glmnet's nlambda)"`
	LambdaMinRatio float64   `param:"lambda_min_ratio" range:"[0, 1)" default:"0" doc:"end of the path as a fraction of λ_max; 0: glmnet's default, 0.01 if rows < columns else 1e-4"`
	Lambdas        []float64 `param:"lambdas" default:"[]" doc:"a decreasing λ path to use instead of the log-spaced one (glmnet's lambda)"`
	Standardize    bool      `param:"standardize" default:"true" doc:"penalize the coefficients of the columns scaled to unit population standard deviation (reported on the original scale), as glmnet"`
	Intercept      bool      `param:"intercept" default:"true" doc:"fit unpenalized intercepts"`
	Tol            float64   `param:"tol" range:"(0, +inf)" default:"1e-07" doc:"glmnet's thresh: stop when no coefficient moves by more than tol·(null deviance/2n) in the Hessian norm"`
	MaxPasses      int       `param:"max_passes" range:"[1, +inf)" default:"100000" doc:"cap on coordinate-descent passes per λ"`
}

// method is logreg-en at one grid point.
type method struct {
	opt     Options
	lambda  float64
	nlambda int
	ratio   float64
	lambdas []float64
}

func newMethod(p Params) (methods.Method, error) {
	return &method{
		opt:    Options{Alpha: p.Alpha, Standardize: p.Standardize, Intercept: p.Intercept, Tol: p.Tol, MaxPasses: p.MaxPasses},
		lambda: p.Lambda, nlambda: p.Nlambda, ratio: p.LambdaMinRatio, lambdas: p.Lambdas,
	}, nil
}

// pathOf returns the λ path of train for m's settings, shared through the
// memo by every fit on train with the same settings but any lambda.
func (m *method) pathOf(train *datasets.Dataset, present []int, env *methods.Env) (*path, error) {
	// The path depends on the targets (which may differ between fits
	// sharing the memo: one-vs-rest tasks), named by content, and on every
	// setting but lambda.
	key := methods.Key{Op: "elasticnet.path", Args: fmt.Sprintf("y=%s/%+v/nlambda=%d/ratio=%g/lambdas=%v",
		methods.ContentID(train.Y), m.opt, m.nlambda, m.ratio, m.lambdas)}
	return methods.Remember(env, key, func() (*path, error) {
		local := make([]int, len(train.Classes))
		for c, k := range present {
			local[k] = c
		}
		y := make([]int, len(train.Y))
		for i, v := range train.Y {
			y[i] = local[int(v)]
		}
		p, err := NewProblem(train.X, y, len(present), m.opt)
		if err != nil {
			return nil, err
		}
		seq := glmnetSeq(p, m.nlambda, m.ratio)
		if len(m.lambdas) > 0 {
			seq = listSeq(m.lambdas)
		}
		return newPath(p, seq), nil
	})
}

// Fit trains the binomial model (two classes present in train) or the
// multinomial one (more) at the method's λ.
func (m *method) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	if !train.IsClassification() || len(train.Classes) < 2 {
		return nil, fmt.Errorf("logreg-en: dataset %q: needs a classification dataset with at least 2 classes", train.Name)
	}
	if train.Rows() == 0 {
		return nil, fmt.Errorf("logreg-en: dataset %q: empty training set", train.Name)
	}
	K := len(train.Classes)
	seen := make([]bool, K)
	for _, v := range train.Y {
		seen[int(v)] = true
	}
	var present []int
	for k, s := range seen {
		if s {
			present = append(present, k)
		}
	}
	full := train.Cols()
	train, cols := methods.CompactColumns(train)
	model := &model{d: train.Cols(), K: K, present: present}
	if len(present) == 1 {
		model.info.Converged = true
		return methods.OnColumns(model, full, cols), nil
	}
	pa, err := m.pathOf(train, present, env)
	if err != nil {
		return nil, fmt.Errorf("logreg-en: dataset %q: %w", train.Name, err)
	}
	lambda := m.lambda
	if lambda == 0 {
		if len(m.lambdas) > 0 {
			lambda = m.lambdas[len(m.lambdas)-1]
		} else {
			lambda, _ = glmnetSeq(pa.p, m.nlambda, m.ratio)(max(m.nlambda, 2) - 1)
		}
	}
	st, passes, conv, err := pa.solveAt(ctx, lambda)
	if err != nil {
		return nil, err
	}
	model.coef = pa.p.coefs(st)
	model.info = methods.Info{Iterations: passes, Converged: conv, Objective: pa.p.objective(st)}
	return methods.OnColumns(model, full, cols), nil
}

// model is a fitted logreg-en classifier.
type model struct {
	d, K    int
	present []int  // classes in the training set, in order
	coef    *coefs // nil when one class is present
	info    methods.Info
}

// Info reports the coordinate-descent passes (of the path up to λ and of
// λ itself, for the fit that computed them), convergence and the
// penalized objective.
func (m *model) Info() methods.Info { return m.info }

// Predict returns n×K scores: with two classes the decision values (−f, f)
// of the binomial model (OneVsRest); otherwise linear logits, classes
// absent from the training set scoring below every present one.
func (m *model) Predict(X matrix.Matrix) *methods.Prediction {
	n, d := X.Dims()
	if d != m.d {
		panic(fmt.Sprintf("elasticnet: Predict: %d columns, model has %d", d, m.d))
	}
	K := m.K
	out := &methods.Prediction{K: K, Scores: make([]float64, n*K), OneVsRest: K == 2}
	logit := make([][]float64, len(m.present)) // per present class
	// One coefficient vector at a time, dense over the columns.
	var beta []float64
	vec := func(z []float64, k int) {
		if beta == nil {
			beta = make([]float64, d)
		}
		nk := len(m.coef.c)
		for t, j := range m.coef.cols {
			beta[j] = m.coef.beta[t*nk+k]
		}
		X.MulVec(z, beta)
		for i := range z {
			z[i] += m.coef.c[k]
		}
		for _, j := range m.coef.cols {
			beta[j] = 0
		}
	}
	switch {
	case m.coef == nil:
		for i := 0; i < n; i++ {
			out.Scores[i*K+m.present[0]] = 1
			if K == 2 {
				out.Scores[i*K+1-m.present[0]] = -1
			}
		}
		return out
	case len(m.coef.c) == 1:
		f := make([]float64, n)
		vec(f, 0)
		neg := make([]float64, n)
		for i := range f {
			neg[i] = -f[i]
		}
		logit[0], logit[1] = neg, f
	default:
		for c := range m.present {
			z := make([]float64, n)
			vec(z, c)
			logit[c] = z
		}
	}
	for i := 0; i < n; i++ {
		row := out.Scores[i*K : (i+1)*K]
		lo := math.Inf(1)
		for c, k := range m.present {
			row[k] = logit[c][i]
			lo = math.Min(lo, row[k])
		}
		for k := range row {
			if !slices.Contains(m.present, k) {
				row[k] = lo - 1
			}
		}
	}
	return out
}

var (
	_ methods.Method   = (*method)(nil)
	_ methods.Informer = (*model)(nil)
)
