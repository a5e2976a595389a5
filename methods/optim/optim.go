// Package optim minimizes smooth objectives for repro's method plugins.
//
// It wraps gonum's L-BFGS with the settings repro's solvers need: a
// More–Thuente line search (gonum's default bisection is slow), convergence
// on the gradient norm with a declared iteration cap, function and gradient
// evaluated together (one pass over the data, cached for gonum's separate
// Func/Grad calls), and cancellation through a context.
package optim

import (
	"context"
	"errors"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"
)

// Func evaluates an objective at x, writes its gradient into grad (same
// length as x) and returns the value.
type Func func(x, grad []float64) float64

// Settings controls Minimize. The zero value uses the documented defaults.
type Settings struct {
	// MaxIter caps the number of L-BFGS iterations; if 0, 200 is used.
	MaxIter int
	// GradTol stops when ‖∇f‖∞ ≤ GradTol·max(1, |f|); if 0, 1e-6 is used.
	GradTol float64
	// Memory is the number of L-BFGS correction pairs; if 0, 10 is used.
	Memory int
	// GradScale, if not nil, holds the factors s of a change of variables
	// x = s∘u that the caller minimizes in (a diagonal preconditioner):
	// the convergence test is then applied to the gradient in the
	// original variables, ∇ₓ = ∇ᵤ/s, so that it means the same as
	// without the preconditioner. GradNorm is reported in the original
	// variables too.
	GradScale []float64
}

// gradNorm returns ‖g/scale‖∞ (‖g‖∞ when scale is nil).
func gradNorm(g, scale []float64) float64 {
	if scale == nil {
		return maxAbs(g)
	}
	m := 0.0
	for j, v := range g {
		v = math.Abs(v / scale[j])
		if v > m {
			m = v
		} else if v != v {
			return v
		}
	}
	return m
}

// Result is the outcome of Minimize.
type Result struct {
	X          []float64
	F          float64
	GradNorm   float64 // ‖∇f(X)‖∞
	Iterations int
	Evals      int
	Converged  bool // false when MaxIter was reached first
}

// Minimize minimizes f from x0 (not modified) with L-BFGS. Reaching MaxIter
// is not an error (Converged is false); a non-finite objective or a failed
// line search returns the best point found with the error.
func Minimize(ctx context.Context, f Func, x0 []float64, s Settings) (*Result, error) {
	if s.MaxIter == 0 {
		s.MaxIter = 200
	}
	if s.GradTol == 0 {
		s.GradTol = 1e-6
	}
	if s.Memory == 0 {
		s.Memory = 10
	}
	n := len(x0)
	res := &Result{X: append([]float64(nil), x0...)}
	if n == 0 {
		res.F = f(res.X, nil)
		res.Converged = true
		return res, nil
	}
	cx := make([]float64, n)
	cg := make([]float64, n)
	var cf float64
	valid := false
	evals := 0
	eval := func(x []float64) {
		if valid && floats.Equal(x, cx) {
			return
		}
		copy(cx, x)
		cf = f(cx, cg)
		evals++
		valid = true
	}
	var cancelled error
	p := optimize.Problem{
		Func: func(x []float64) float64 { eval(x); return cf },
		Grad: func(grad, x []float64) { eval(x); copy(grad, cg) },
		Status: func() (optimize.Status, error) {
			if err := ctx.Err(); err != nil {
				cancelled = err
				return optimize.Failure, err
			}
			return optimize.NotTerminated, nil
		},
	}
	settings := &optimize.Settings{
		MajorIterations: s.MaxIter,
		// A line search that cannot find a step keeps evaluating (gonum
		// bounds none): seen after a restart at machine precision, an
		// endless loop. More–Thuente needs one to three per iteration.
		FuncEvaluations: evalsPerIter * s.MaxIter,
		// gonum's GradientThreshold is absolute; gradConverger applies
		// the relative test instead.
		Converger: &gradConverger{tol: s.GradTol, g: cg, f: &cf, scale: s.GradScale},
	}
	method := &optimize.LBFGS{Linesearcher: &optimize.MoreThuente{}, Store: s.Memory}
	var (
		r   *optimize.Result
		err error
	)
	// A line search that fails short of the tolerance is retried from the
	// point reached with a fresh L-BFGS memory (at most maxRestarts
	// times): an outdated curvature pair is the usual cause.
	const maxRestarts = 3
	for attempt := 0; ; attempt++ {
		r, err = optimize.Minimize(p, res.X, settings, method)
		if cancelled != nil {
			return nil, cancelled
		}
		if r != nil {
			copy(res.X, r.X)
			res.F = r.F
			res.Iterations += r.Stats.MajorIterations
			res.Converged = r.Status == optimize.GradientThreshold || r.Status == optimize.FunctionConvergence
		}
		if err == nil || res.Converged || r == nil || r.Status == optimize.IterationLimit || attempt == maxRestarts || res.Iterations >= s.MaxIter {
			break
		}
		eval(res.X)
		if gradNorm(cg, s.GradScale) <= s.GradTol*math.Max(1, math.Abs(cf)) {
			break
		}
		settings.MajorIterations = s.MaxIter - res.Iterations
		settings.FuncEvaluations = evalsPerIter * settings.MajorIterations
		method = &optimize.LBFGS{Linesearcher: &optimize.MoreThuente{}, Store: s.Memory}
	}
	res.Evals = evals
	g := make([]float64, n)
	res.F = f(res.X, g)
	res.GradNorm = gradNorm(g, s.GradScale)
	if math.IsNaN(res.F) || math.IsInf(res.F, 0) {
		return res, errors.New("optim: objective is not finite")
	}
	if err != nil && !res.Converged && r != nil && r.Status != optimize.IterationLimit {
		// A line search that cannot improve is how L-BFGS ends at
		// machine precision; accept it if the gradient is small.
		if res.GradNorm <= math.Sqrt(s.GradTol)*math.Max(1, math.Abs(res.F)) {
			res.Converged = true
			return res, nil
		}
		return res, err
	}
	if res.GradNorm <= s.GradTol*math.Max(1, math.Abs(res.F)) {
		res.Converged = true
	}
	return res, nil
}

// evalsPerIter bounds the objective evaluations of Minimize per allowed
// iteration.
const evalsPerIter = 20

// gradConverger stops when the relative gradient norm is below tol. When
// the location carries no gradient it falls back to the cached one.
type gradConverger struct {
	tol   float64
	g     []float64
	f     *float64
	scale []float64
}

func (c *gradConverger) Init(int) {}

func (c *gradConverger) Converged(loc *optimize.Location) optimize.Status {
	g := loc.Gradient
	if g == nil {
		g = c.g
	}
	if gradNorm(g, c.scale) <= c.tol*math.Max(1, math.Abs(loc.F)) {
		return optimize.GradientThreshold
	}
	return optimize.NotTerminated
}

// maxAbs returns ‖x‖∞ (NaN if x holds one). floats.Norm(x, Inf) is
// several times slower: it calls math.Max per element, and a converger
// computes it at every iteration on every weight.
func maxAbs(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		if v < 0 {
			v = -v
		}
		if v > m {
			m = v
		} else if v != v {
			return v
		}
	}
	return m
}

// Bytes estimates what Minimize allocates for n variables with settings s:
// the 2·Memory correction vectors of L-BFGS and about a dozen working
// vectors (the point and gradient copies of Minimize, gonum's location,
// line search and direction).
func Bytes(n int, s Settings) int64 {
	m := s.Memory
	if m == 0 {
		m = 10
	}
	return 8 * int64(2*m+12) * int64(max(n, 0))
}
