package linear

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/optim"
)

func init() {
	methods.RegisterTyped("logreg-l2", methods.Typed[logRegL2]{
		Doc:    "L2-regularized logistic regression, ½‖w‖² + C·Σ log-loss, unpenalized intercept (L-BFGS, TRON as liblinear -s 0, or without an intercept dual coordinate descent as -s 7); one-vs-rest as liblinear, or multinomial",
		Kinds:  methods.Classification,
		New:    newLogRegL2,
		Memory: memLogRegL2,
	})
	methods.RegisterTyped("logreg-l1", methods.Typed[l1Params]{
		Doc:   "L1-regularized logistic regression, ‖w‖₁ + C·Σ log-loss, unpenalized intercept (newGLMNET as liblinear -s 6); one-vs-rest",
		Kinds: methods.Classification,
		New: func(p l1Params) (methods.Method, error) {
			return &logRegL1{s: l1Settings{C: p.C, Intercept: p.Intercept, MaxIter: p.MaxIter, Tol: p.Tol}}, nil
		},
		Memory: memLogRegL1,
	})
}

// logRegL2 is the logreg-l2 method: L2-regularized logistic regression.
type logRegL2 struct {
	C          float64 `param:"C" range:"(0, +inf)" default:"1" doc:"weight of the summed log-loss against ½‖w‖² (liblinear's C)"`
	Intercept  bool    `param:"intercept" default:"true" doc:"fit an unpenalized intercept b"`
	Multiclass string  `param:"multiclass" enum:"ovr|softmax" default:"ovr" doc:"ovr: one binary model per class, scores are decision values (liblinear); softmax: multinomial with penalty ½Σₖ‖wₖ‖²"`
	Solver     string  `param:"solver" enum:"auto|lbfgs|tron|newton|dual" default:"auto" doc:"one-vs-rest solver: lbfgs; tron (trust-region Newton with conjugate gradients on Hessian-vector products, liblinear -s 0's); newton (Newton's method with the exact (d+1)×(d+1) Hessian, Cholesky and a line search: for few columns); dual (coordinate descent on the dual, liblinear -s 7's, stopped by the same primal rule, going on by lbfgs where it stalls; needs intercept: false); auto: tron on badly scaled columns (root mean squares more than 1000× apart) when there are at most 256 columns, lbfgs otherwise, started from 10 epochs of dual on sparse data without an intercept or a warm start. On badly scaled columns lbfgs and tron are diagonally preconditioned. softmax always uses lbfgs"`
	MaxIter    int     `param:"max_iter" range:"[1, +inf)" default:"1000" doc:"iteration cap (Newton steps for newton and tron, L-BFGS iterations for lbfgs) per binary (or multinomial) problem"`
	Tol        float64 `param:"tol" range:"(0, +inf)" default:"1e-05" doc:"stop when ‖∇f‖∞ ≤ tol·max(1, |f|)"`

	Softmax bool // Multiclass is softmax
}

func newLogRegL2(p logRegL2) (methods.Method, error) {
	p.Softmax = p.Multiclass == "softmax"
	if p.Solver == "dual" && p.Intercept && !p.Softmax {
		return nil, errors.New("solver: dual needs intercept: false (its dual has no unpenalized intercept)")
	}
	return &p, nil
}

func checkClassification(train *datasets.Dataset) error {
	if !train.IsClassification() {
		return errors.New("needs a classification dataset")
	}
	if len(train.Classes) < 2 {
		return fmt.Errorf("needs at least 2 classes, dataset has %d", len(train.Classes))
	}
	if train.Rows() == 0 {
		return errors.New("empty training set")
	}
	return nil
}

// Fit trains one binary model (two classes), K one-vs-rest models or one
// multinomial model. It starts from the model of the previous fit in
// env.Warm if that has the same kind, columns and classes (warmModel), and
// stores its own there.
func (m *logRegL2) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	if err := checkClassification(train); err != nil {
		return nil, fmt.Errorf("logreg-l2: %w", err)
	}
	var (
		model *classifier
		err   error
	)
	full := train.Cols()
	train, cols := methods.CompactColumns(train)
	key := warmKey("logreg-l2", m.Intercept, m.Softmax) + colsKey(cols)
	K := len(train.Classes)
	_, d := train.X.Dims()
	if m.Softmax {
		model, err = m.fitSoftmax(ctx, train, env, key)
	} else {
		kind := ovrScores
		if K == 2 {
			kind = binaryScores
		}
		var norms []float64 // X's squared column norms, the same for every one-vs-rest task
		work := &l2Work{}   // L-BFGS's vectors, reused by every task
		dual := &dualWork{} // dual coordinate descent's, likewise
		model, err = fitOVR(train.X, train.Y, K, func(X matrix.Matrix, y, start []float64) ([]float64, float64, methods.Info, error) {
			if norms == nil && m.Solver != "newton" {
				norms = matrix.ColumnNorms2(X)
			}
			return m.fitBinary(ctx, X, y, start, norms, work, dual)
		}, warmModel(env, key, kind, d, K, nil))
	}
	if err != nil {
		return nil, fmt.Errorf("logreg-l2: %w", err)
	}
	storeWarm(env, key, model)
	return methods.OnColumns(model, full, cols), nil
}

func (m *logRegL2) settings() optim.Settings {
	return optim.Settings{MaxIter: m.MaxIter, GradTol: m.Tol}
}

// fitBinary minimizes ½‖w‖² + C·LogisticLoss over θ = (w, b) from start
// (zero if nil) by L-BFGS, by TRON (fitL2TRON) with solver: tron, by
// Newton's method (fitL2Newton) with solver: newton, or by dual
// coordinate descent (fitL2Dual, no intercept) with solver: dual, going
// on by L-BFGS from its w if it stalls. On badly scaled columns
// (badlyScaled) L-BFGS and TRON are diagonally preconditioned, and
// solver: auto takes TRON when there are few columns (autoTRONMaxCols);
// otherwise L-BFGS, which on sparse, well-scaled data without an
// intercept and without a warm start starts from dualStartEpochs epochs
// of dual coordinate descent (counted in info.Iterations). norms are X's
// squared column norms (matrix.ColumnNorms2), computed once for all
// one-vs-rest tasks; work and dual hold the solvers' vectors from one
// task to the next.
func (m *logRegL2) fitBinary(ctx context.Context, X matrix.Matrix, y, start, norms []float64, work *l2Work, dual *dualWork) ([]float64, float64, methods.Info, error) {
	n, d := X.Dims()
	if m.Solver == "newton" {
		return fitL2Newton(ctx, X, y, m.C, m.Intercept, m.MaxIter, m.Tol, start)
	}
	scaled := badlyScaled(norms)
	if m.Solver == "tron" || m.Solver == "auto" && scaled && d <= autoTRONMaxCols {
		return fitL2TRON(ctx, X, y, m.C, m.Intercept, m.MaxIter, m.Tol, start, scaled)
	}
	epochs := 0
	if m.Solver == "dual" {
		w, info, err := fitL2Dual(ctx, X, y, m.C, m.MaxIter, m.Tol, start, dual)
		if err != nil || info.Converged || info.Iterations >= m.MaxIter {
			return w, 0, info, err
		}
		start, epochs = append(w, 0), info.Iterations
	}
	if _, sparse := X.(*matrix.CSR); m.Solver == "auto" && sparse && !m.Intercept && !scaled && start == nil && m.MaxIter > 1 {
		// L-BFGS from dualStartEpochs epochs of dual coordinate
		// descent (see dualStartEpochs).
		dual.vectors(X)
		_, k, err := dualCD(ctx, X, y, m.C, min(dualStartEpochs, m.MaxIter-1), nil, dual.start, dual, func(int, float64, []float64) bool { return false })
		if err != nil {
			return nil, 0, methods.Info{}, err
		}
		dual.start[d] = 0
		start, epochs = dual.start, k
	}
	// On badly scaled columns (root mean squares more than
	// badScaleRatio apart), L-BFGS runs in u = θ/s, s the inverse square
	// root of the Hessian's diagonal at θ = 0 (1 + C/4·Σᵢxᵢⱼ², and C·n/4
	// for b): a diagonal preconditioner that makes it indifferent to the
	// columns' scales (on unscaled counts in the thousands next to
	// frequencies below 1 it stopped at its cap). The stopping test is on
	// the gradient in θ. On well-scaled data s = 1: the iterates are
	// those of plain L-BFGS.
	s, theta, u0, z := work.vectors(n, d)
	for j := range s {
		s[j] = 1
	}
	if scaled {
		for j, v := range norms {
			s[j] = 1 / math.Sqrt(1+m.C/4*v)
		}
		s[d] = 1 / math.Sqrt(math.Max(1, m.C*float64(n)/4))
	}
	scratch := []float64(nil) // a gradient when none is asked for
	f := func(u, grad []float64) float64 {
		for j, uj := range u {
			theta[j] = s[j] * uj
		}
		w := theta[:d]
		if grad == nil {
			if scratch == nil {
				scratch = make([]float64, d+1)
			}
			grad = scratch
		}
		v := m.C * logisticLoss(X, y, w, theta[d], grad, z)
		for j, wj := range w {
			grad[j] = s[j] * (m.C*grad[j] + wj)
			v += 0.5 * wj * wj
		}
		grad[d] *= m.C * s[d]
		if !m.Intercept {
			grad[d] = 0
		}
		return v
	}
	set := m.settings()
	set.MaxIter -= epochs
	set.GradScale = s
	if start != nil {
		for j, v := range start {
			u0[j] = v / s[j]
		}
		if !m.Intercept {
			u0[d] = 0
		}
	}
	res, err := optim.Minimize(ctx, f, u0, set)
	if err != nil {
		return nil, 0, methods.Info{}, err
	}
	for j, uj := range res.X {
		res.X[j] = s[j] * uj
	}
	return res.X[:d:d], res.X[d], methods.Info{Iterations: epochs + res.Iterations, Converged: res.Converged, Objective: res.F}, nil
}

// l2Work holds the vectors of fitBinary's L-BFGS path, allocated for the
// first one-vs-rest task and reused by the others (they were a fifth of
// the garbage of a 20 Newsgroups fit).
type l2Work struct {
	s, theta, u0, z []float64
}

// vectors returns the preconditioner, the unscaled point, the starting
// point (zeroed) and the loss's scratch for n rows and d columns.
func (w *l2Work) vectors(n, d int) (s, theta, u0, z []float64) {
	if len(w.s) != d+1 || len(w.z) != n {
		w.s, w.theta, w.u0, w.z = make([]float64, d+1), make([]float64, d+1), make([]float64, d+1), make([]float64, n)
	}
	clear(w.u0)
	return w.s, w.theta, w.u0, w.z
}

// autoTRONMaxCols is the most columns on which solver: auto takes
// preconditioned TRON for badly scaled columns. Measured: on the unscaled
// spam table (2,000 rows × 57, C = 100) preconditioned TRON converges in
// 14 Newton steps and 6.5 ms, Newton's method in 13 steps and 11 ms (its
// n·(d+1)²/2 Hessian), preconditioned L-BFGS in 481 iterations and 68 ms;
// on principal components, whose tail variances make them badly scaled
// (Bilgic's PCA-L2 on Cora: up to 400 labelled rows, and the 1,354-row
// pool, × 1,354 components), L-BFGS took 0.94 s of CPU in a reduced run
// where TRON took 2.54 s (1.63 s with TRON on the pool fits only): each
// TRON step runs conjugate gradients of up to d+1 Hessian-vector
// products, cheap with few columns.
const autoTRONMaxCols = 256

// badScaleRatio is the ratio of the largest to the smallest column root
// mean square above which logreg-l2's L-BFGS is preconditioned: above
// indicator and text features (measured: 2 on DNA splice, 112 on the 20
// Newsgroups training rows), below raw counts next to frequencies (8,752
// on the spam table).
const badScaleRatio = 1000

// badlyScaled reports whether the non-zero column sums of squares norms
// are more than badScaleRatio² apart.
func badlyScaled(norms []float64) bool {
	lo, hi := math.Inf(1), 0.0
	for _, v := range norms {
		if v > 0 {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	return hi > badScaleRatio*badScaleRatio*lo
}

// fitSoftmax minimizes ½Σₖ‖wₖ‖² + C·SoftmaxLoss over the classes present
// in train.
func (m *logRegL2) fitSoftmax(ctx context.Context, train *datasets.Dataset, env *methods.Env, key string) (*classifier, error) {
	K := len(train.Classes)
	_, d := train.X.Dims()
	model := &classifier{d: d, K: K, kind: softmaxScores, W: make([][]float64, K), B: make([]float64, K), present: make([]bool, K)}
	var idx []int // present class → class index
	local := make([]int, K)
	for _, y := range train.Y {
		model.present[int(y)] = true
	}
	for k, p := range model.present {
		if p {
			local[k] = len(idx)
			idx = append(idx, k)
		}
	}
	if len(idx) == 1 {
		model.W[idx[0]] = make([]float64, d)
		model.info.Converged = true
		return model, nil
	}
	y := make([]int, len(train.Y))
	for i, v := range train.Y {
		y[i] = local[int(v)]
	}
	Kp := len(idx)
	f := func(theta, grad []float64) float64 {
		if grad == nil {
			grad = make([]float64, len(theta))
		}
		W := theta[:Kp*d]
		v := m.C * SoftmaxLoss(train.X, y, W, theta[Kp*d:], grad)
		for j, wj := range W {
			grad[j] = m.C*grad[j] + wj
			v += 0.5 * wj * wj
		}
		for k := Kp * d; k < len(grad); k++ {
			grad[k] *= m.C
			if !m.Intercept {
				grad[k] = 0
			}
		}
		return v
	}
	x0 := make([]float64, Kp*(d+1))
	if warm := warmModel(env, key, softmaxScores, d, K, model.present); warm != nil {
		for c, k := range idx {
			copy(x0[c*d:(c+1)*d], warm.W[k])
			if m.Intercept {
				x0[Kp*d+c] = warm.B[k]
			}
		}
	}
	res, err := optim.Minimize(ctx, f, x0, m.settings())
	if err != nil {
		return nil, err
	}
	for c, k := range idx {
		model.W[k] = res.X[c*d : (c+1)*d : (c+1)*d]
		model.B[k] = res.X[Kp*d+c]
	}
	model.info = methods.Info{Iterations: res.Iterations, Converged: res.Converged, Objective: res.F}
	return model, nil
}

// logRegL1 is the logreg-l1 method: L1-regularized logistic regression.
type logRegL1 struct {
	s l1Settings
}

// l1Params are the parameters of logreg-l1.
type l1Params struct {
	C         float64 `param:"C" range:"(0, +inf)" default:"1" doc:"weight of the summed log-loss against ‖w‖₁ (liblinear's C)"`
	Intercept bool    `param:"intercept" default:"true" doc:"fit an unpenalized intercept b"`
	MaxIter   int     `param:"max_iter" range:"[1, +inf)" default:"1000" doc:"newGLMNET (outer Newton) iteration cap per binary problem"`
	Tol       float64 `param:"tol" range:"(0, +inf)" default:"0.0001" doc:"stop when the minimum-norm subgradient's ∞-norm ≤ tol (the optimality conditions hold to tol)"`
}

// Fit trains one binary model (two classes) or K one-vs-rest models,
// starting from the previous fit's model in env.Warm as logreg-l2 does.
func (m *logRegL1) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	if err := checkClassification(train); err != nil {
		return nil, fmt.Errorf("logreg-l1: %w", err)
	}
	full := train.Cols()
	train, keep := methods.CompactColumns(train)
	key := warmKey("logreg-l1", m.s.Intercept, false) + colsKey(keep)
	K := len(train.Classes)
	_, d := train.X.Dims()
	kind := ovrScores
	if K == 2 {
		kind = binaryScores
	}
	cols := newColMajor(train.X)
	model, err := fitOVR(train.X, train.Y, K, func(X matrix.Matrix, y, start []float64) ([]float64, float64, methods.Info, error) {
		return fitL1(ctx, X, cols, y, m.s, start)
	}, warmModel(env, key, kind, d, K, nil))
	if err != nil {
		return nil, fmt.Errorf("logreg-l1: %w", err)
	}
	storeWarm(env, key, model)
	return methods.OnColumns(model, full, keep), nil
}
