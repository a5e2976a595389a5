// Package optim minimizes smooth objectives for repro's method plugins.
//
// It runs L-BFGS with what repro's solvers need: gonum's More–Thuente line
// search, convergence on the gradient norm (optionally also on a settled
// objective) with a declared iteration cap, function and gradient
// evaluated together (one pass over the data), restarts after a failed
// line search, and cancellation through a context.
package optim

import (
	"context"
	"errors"
	"math"
	"sync"
	"weak"

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
	// FTol, if positive, also stops when the objective has decreased by
	// at most FTol·max(1, |f|) per iteration on average over the last
	// ftolWindow iterations: a fit whose objective has settled to about
	// −log10(FTol) digits stops there even if its gradient, dominated by
	// directions of little curvature, is still above GradTol. Such a stop
	// counts as converged. If 0, only GradTol and MaxIter stop.
	FTol float64
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
	return maxAbsDiv(g, scale)
}

// Result is the outcome of Minimize.
type Result struct {
	X          []float64
	F          float64
	GradNorm   float64 // ‖∇f(X)‖∞
	Iterations int     // counting the starting point, as gonum does
	Evals      int
	Converged  bool // false when MaxIter was reached first
}

// Minimize minimizes f from x0 (not modified) with L-BFGS. Reaching MaxIter
// is not an error (Converged is false); a non-finite objective or a failed
// line search returns the best point found with the error.
//
// The iterates are those of gonum's optimize.LBFGS with a More–Thuente line
// search (TestMatchesGonum), computed with fewer passes over the n-vectors:
// the two-loop recursion fuses each update with the next inner product and
// skips empty history slots, and no point or gradient is copied. On the
// large problems of the feature-network methods (236,000 weights) the
// passes over the history, not the objective, were half the time.
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
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l := getLBFGS(n, s.Memory)
	defer putLBFGS(l)
	x, g := res.X, l.g
	fx := f(x, g)
	res.Evals = 1
	// As in gonum, whose iterates these are, the starting point counts as
	// the first iteration (and a restart's as another): a cap of 200
	// allows 199 line searches.
	res.Iterations = 1
	if math.IsNaN(fx) || math.IsInf(fx, 0) {
		res.F = fx
		return res, errors.New("optim: objective is not finite")
	}
	converged := func(fx float64, g []float64) bool {
		return gradNorm(g, s.GradScale) <= s.GradTol*math.Max(1, math.Abs(fx))
	}
	// hist holds the objective at the last ftolWindow+1 iterates, oldest
	// first once full.
	var hist []float64
	settled := func(fx float64) bool {
		if s.FTol <= 0 {
			return false
		}
		if len(hist) == ftolWindow+1 {
			copy(hist, hist[1:])
			hist = hist[:ftolWindow]
		}
		hist = append(hist, fx)
		return len(hist) == ftolWindow+1 && hist[0]-fx <= ftolWindow*s.FTol*math.Max(1, math.Abs(fx))
	}
	settled(fx) // the starting point opens the window
	stalled := false
	maxEvals := evalsPerIter * s.MaxIter
	xt, gt := l.xt, l.gt
	var lsErr error
	restarts := 0
	fresh := true // the history is empty: steepest descent, step 1/‖g‖₂
	for !converged(fx, g) && !stalled {
		if res.Iterations >= s.MaxIter || res.Evals >= maxEvals {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var step, dg float64
		if fresh {
			dg = l.steepest(g)
			step = 1 / math.Sqrt(-dg)
		} else {
			dg = l.direction(g)
			step = 1
		}
		lsErr = nil
		if dg >= 0 {
			lsErr = errors.New("optim: not a descent direction")
		}
		var ft float64
		if lsErr == nil {
			ls := &optimize.MoreThuente{}
			ls.Init(fx, dg, step)
			for {
				if !l.trial(xt, x, step) {
					lsErr = errors.New("optim: line search made no progress")
					break
				}
				ft = f(xt, gt)
				res.Evals++
				if math.IsNaN(ft) || math.IsInf(ft, 0) {
					lsErr = errors.New("optim: objective is not finite")
					break
				}
				op, next, err := ls.Iterate(ft, dot(gt, l.dir))
				if err != nil {
					lsErr = err
					break
				}
				if op == optimize.MajorIteration {
					break
				}
				if res.Evals >= maxEvals {
					lsErr = errEvalCap
					break
				}
				step = next
			}
		}
		if lsErr != nil {
			if lsErr == errEvalCap || restarts == maxRestarts {
				break
			}
			// A line search that fails short of the tolerance is retried
			// from the point reached with a fresh memory (at most
			// maxRestarts times): an outdated curvature pair is the usual
			// cause.
			restarts++
			res.Iterations++
			l.reset()
			fresh = true
			hist = hist[:0]
			continue
		}
		l.push(xt, x, gt, g)
		x, xt = xt, x
		g, gt = gt, g
		fx = ft
		res.Iterations++
		fresh = false
		stalled = settled(fx)
	}
	copy(res.X, x) // x may be a scratch slice after the swaps
	res.F = fx
	res.GradNorm = gradNorm(g, s.GradScale)
	res.Converged = stalled || res.GradNorm <= s.GradTol*math.Max(1, math.Abs(fx))
	if lsErr != nil && lsErr != errEvalCap && !res.Converged {
		// A line search that cannot improve is how L-BFGS ends at
		// machine precision; accept it if the gradient is small.
		if res.GradNorm <= math.Sqrt(s.GradTol)*math.Max(1, math.Abs(fx)) {
			res.Converged = true
			return res, nil
		}
		return res, lsErr
	}
	return res, nil
}

// ftolWindow is the number of iterations over which Settings.FTol averages
// the objective's decrease: one short step does not stop a fit.
const ftolWindow = 5

// maxRestarts bounds the fresh starts of Minimize after failed line searches.
const maxRestarts = 3

// errEvalCap stops Minimize at its evaluation cap (not an error to callers).
var errEvalCap = errors.New("optim: evaluation cap")

// evalsPerIter bounds the objective evaluations of Minimize per allowed
// iteration: a line search that cannot find a step would otherwise keep
// evaluating (seen after a restart at machine precision). More–Thuente
// needs one to three per iteration.
const evalsPerIter = 20

// lbfgs holds the L-BFGS history: the last m steps s = x⁺ − x and gradient
// changes y = g⁺ − g, newest at slot newest, and the search direction.
type lbfgs struct {
	s, y   [][]float64
	rho, a []float64
	gamma  float64 // sᵀy/yᵀy of the newest pair: the initial Hessian scale
	newest int     // slot of the newest pair
	count  int     // pairs held, ≤ m
	sg     float64 // sᵀg⁺ of the newest pair: the first inner product of direction
	dir    []float64
	// Minimize's gradient and trial point and gradient, kept with the
	// history for reuse.
	g, xt, gt []float64
}

func newLBFGS(n, m int) *lbfgs {
	l := &lbfgs{s: make([][]float64, m), y: make([][]float64, m), rho: make([]float64, m), a: make([]float64, m), dir: make([]float64, n),
		g: make([]float64, n), xt: make([]float64, n), gt: make([]float64, n)}
	for i := range l.s {
		l.s[i], l.y[i] = make([]float64, n), make([]float64, n)
	}
	return l
}

// lbfgsFree holds the vectors of the last finished minimization for the
// next one of the same size: the one-vs-rest tasks of a fit (20 on 20
// Newsgroups) minimize one after the other over the same d+1 variables,
// and each made 2·Memory+4 vectors of garbage, the growth that set the
// process's peak memory once the data was loaded. It is one slot behind a
// weak pointer rather than a sync.Pool: a pool keeps an item in the
// private slot of the P that put it, which a task scheduled on another P
// cannot take, so two histories were live at the end of a fit; the weak
// pointer lets the collector free an idle history as a pool would.
var lbfgsFree struct {
	sync.Mutex
	p weak.Pointer[lbfgs]
}

// getLBFGS returns an empty history for n variables and memory m: the
// free one if it has that size, reset to the state of a new one (every
// value read before it is written is reset; the vectors are written
// first), or a new one.
func getLBFGS(n, m int) *lbfgs {
	lbfgsFree.Lock()
	l := lbfgsFree.p.Value()
	if l != nil && len(l.s) == m && len(l.dir) == n {
		lbfgsFree.p = weak.Pointer[lbfgs]{}
		lbfgsFree.Unlock()
		l.newest, l.count, l.gamma, l.sg = 0, 0, 0, 0
		clear(l.rho)
		clear(l.a)
		return l
	}
	lbfgsFree.Unlock()
	return newLBFGS(n, m)
}

// putLBFGS offers a finished minimization's history to the next one.
func putLBFGS(l *lbfgs) {
	lbfgsFree.Lock()
	lbfgsFree.p = weak.Make(l)
	lbfgsFree.Unlock()
}

func (l *lbfgs) reset() { l.count = 0 }

// steepest sets dir = −g and returns gᵀdir.
func (l *lbfgs) steepest(g []float64) float64 { return negDot(l.dir[:len(g)], g) }

// trial sets xt = x + step·dir and reports whether xt differs from x.
func (l *lbfgs) trial(xt, x []float64, step float64) bool {
	return addMoved(xt[:len(x)], x, step, l.dir)
}

// push stores the pair s = x⁺ − x, y = g⁺ − g as the newest. The same pass
// computes sᵀg⁺, the first inner product of the next direction.
func (l *lbfgs) push(xp, x, gp, g []float64) {
	m := len(l.s)
	l.newest = (l.newest + 1) % m
	if l.count < m {
		l.count++
	}
	sy, yy, sg := diffDots(l.s[l.newest][:len(x)], l.y[l.newest], xp, x, gp, g)
	l.rho[l.newest] = 1 / sy
	l.gamma = sy / yy
	l.sg = sg
}

// slot returns the history slot of the i-th newest pair (i = 0: newest).
func (l *lbfgs) slot(i int) int {
	m := len(l.s)
	return ((l.newest-i)%m + m) % m
}

// direction sets dir = −H g by the two-loop recursion (Nocedal and Wright,
// Algorithm 7.4) and returns gᵀdir. g must be the gradient at the end point
// of the newest pair, the g⁺ of the last push, which computed sᵀg. Each
// pass over the vectors applies one update and computes the inner product
// the next one needs.
func (l *lbfgs) direction(g []float64) float64 {
	n := len(g)
	q := l.dir[:n]
	k := l.count
	// First loop, newest to oldest: a_i = ρ_i s_iᵀq, q −= a_i y_i; its
	// last pass computes y_oldestᵀq for the second loop.
	c := l.slot(0)
	l.a[c] = l.rho[c] * l.sg
	src := g
	var yq float64
	for i := 0; i < k; i++ {
		c := l.slot(i)
		if i+1 < k {
			next := l.slot(i + 1)
			l.a[next] = l.rho[next] * subScaledDot(q, src, l.a[c], l.y[c], l.s[next])
		} else {
			yq = subScaledDot(q, src, l.a[c], l.y[c], l.y[c])
		}
		src = q
	}
	// Second loop, oldest to newest, from r = γq: β_i = ρ_i y_iᵀr,
	// r += (a_i − β_i) s_i; the last pass computes gᵀr.
	scale := l.gamma
	beta := l.rho[l.slot(k-1)] * scale * yq
	for i := k - 1; i > 0; i-- {
		c, next := l.slot(i), l.slot(i-1)
		beta = l.rho[next] * scaleAddDot(q, scale, l.a[c]-beta, l.s[c], l.y[next])
		scale = 1
	}
	c = l.slot(0)
	return scaleAddDot(q, -scale, beta-l.a[c], l.s[c], g) // dir = −r
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
