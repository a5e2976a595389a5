package med

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// solveFlat maximizes J under the flat (non-informative) bias prior of
// Jebara (2004, §3): J without the −σ²/2 (Σ_t y_mt λ_mt)² term, subject to
// Σ_t y_mt λ_mt = 0 for every task m.
//
// Method: the bias b_m is the Lagrange multiplier of task m's equality
// constraint. For fixed b the Lagrangian L(λ, b) = J_0(λ) − Σ_m b_m Σ_t
// y_mt λ_mt is maximized by the box-constrained solver solve (warm
// started), and by strong duality the constrained maximizer is λ*(b*) where
// h_m(b) = Σ_t y_mt λ*_mt(b) = 0. Each h_m is continuous and nonincreasing
// in b_m (the barrier makes J_0 strictly concave), so b_m is found by
// bracketing and Illinois regula falsi, Gauss–Seidel over the tasks (they
// couple only through shared switches). The remaining residual of the
// equality (at the level of the inner tolerance) is removed by projecting
// the free multipliers (0 < λ < c) onto Σ_t y_mt λ_mt = 0, and b_m is then
// recovered from the KKT conditions of the free multipliers,
// ∂J_0/∂λ_mt = b_m y_mt, as their mean b_m = mean_t y_mt ∂J_0/∂λ_mt (as SMO
// does). It returns the total inner iterations; converged reports that the
// roots were found and the last inner solve converged.
func (p *problem) solveFlat(ctx context.Context, tol float64, maxIter int,
	solve func(context.Context, float64, int) (int, bool, error)) (iters int, converged bool, err error) {
	if err := p.checkFlat(); err != nil {
		return 0, false, err
	}
	p.sigma2 = 0
	if p.bias == nil {
		p.bias = make([]float64, p.M)
		p.warm = false
	}
	itol := math.Min(tol, 1e-9)
	innerConv := false
	inner := func() error {
		it, ok, err := solve(ctx, itol, maxIter)
		iters += it
		p.warm = true
		// solveNewton reports ok = false when no step raises J beyond
		// rounding; that is still the maximum to machine precision.
		innerConv = ok || it < maxIter
		return err
	}
	if err := inner(); err != nil {
		return iters, false, err
	}
	eqTol := 1e-11 * math.Max(1, p.c) * float64(p.T)
	// Gauss–Seidel passes over the tasks until every |h_m| ≤ eqTol or no
	// b_m moves by more than 1e-9 relative (h is then at the noise level
	// of the inner solves, and the projection below removes it).
	rooted := false
	for pass := 0; pass < 50 && !rooted; pass++ {
		rooted = true
		for m := 0; m < p.M; m++ {
			if math.Abs(p.B[m]) <= eqTol {
				continue
			}
			b0 := p.bias[m]
			if err := p.rootBias(m, eqTol, inner); err != nil {
				return iters, false, err
			}
			if math.Abs(p.bias[m]-b0) > 1e-9*(1+math.Abs(b0)) {
				rooted = false
			}
		}
	}
	proj := p.flatFinish()
	return iters, rooted && proj && innerConv, nil
}

// checkFlat reports an error if a task lacks one of the classes: the flat
// prior's Σ_t y_t λ_t = 0 then forces λ = 0.
func (p *problem) checkFlat() error {
	for m, y := range p.y {
		var pos, neg bool
		for _, v := range y {
			pos = pos || v > 0
			neg = neg || v < 0
		}
		if !pos || !neg {
			return fmt.Errorf("flat bias prior: task %d has one class only (Σ_t y_t λ_t = 0 forces λ = 0)", m)
		}
	}
	return nil
}

// flatFinish projects the free multipliers (0 < λ < c) of every task onto
// Σ_t y_mt λ_mt = 0 and sets b_m from their KKT conditions
// ∂J_0/∂λ_mt = b_m y_mt, as their mean. It reports whether the projection
// kept every moved multiplier inside (0, c).
func (p *problem) flatFinish() bool {
	proj := true
	for m := 0; m < p.M; m++ {
		var free []int
		for t, l := range p.lam[m] {
			if l > 0 && l < p.c {
				free = append(free, t)
			}
		}
		if len(free) == 0 {
			proj = proj && p.B[m] == 0
			continue
		}
		h := p.B[m] / float64(len(free))
		for _, t := range free {
			nl := p.lam[m][t] - p.y[m][t]*h
			if nl > 0 && nl < p.c {
				p.lam[m][t] = nl
			} else {
				proj = false
			}
		}
	}
	p.refresh()
	// b from the KKT conditions of the free multipliers.
	b := append([]float64(nil), p.bias...)
	clear(p.bias)
	g := p.Gradient()
	for m := 0; m < p.M; m++ {
		var s float64
		n := 0
		for t, l := range p.lam[m] {
			if l > 0 {
				s += p.y[m][t] * g[m][t]
				n++
			}
		}
		if n > 0 {
			b[m] = s / float64(n)
		}
	}
	copy(p.bias, b)
	return proj
}

// solveFlatPrimal is solver auto for select features at ρ = 1 with the
// flat prior: the primal smoothed-hinge SVM with a free, unpenalized
// intercept (solvePrimal with freeBias), min ½‖w‖² + Σ_t ℓ(y_t(w·x_t + b)),
// whose optimality in b is Σ_t y_t λ_t = 0: Newton's method handles the
// intercept as one more coordinate, where the dual needs the outer root
// search over b of solveFlat (hundreds to thousands of projected Newton
// passes at 300 rows, issue 13). It stops by the dual's test on the
// constraint manifold (every projected slope of J_0 − b Σ_t y_t λ_t and
// |Σ_t y_t λ_t| at most tol); then flatFinish removes the residual of the
// equality. If the primal stops short of the test (at the level of
// rounding), solveFlat with projected Newton continues from its
// multipliers and bias with the iterations left.
func (p *problem) solveFlatPrimal(ctx context.Context, tol float64, maxIter int) (int, bool, error) {
	if err := p.checkFlat(); err != nil {
		return 0, false, err
	}
	p.sigma2 = 0
	p.bias = make([]float64, p.M)
	p.warm = false
	p.freeBias = true
	// To slope 1e-6 at most: close to solveFlat's optimum (its inner
	// solves go to 1e-9) whatever tol, where the primal still converges
	// (at 1e-9 its line search stalls at rounding on the Landsat-like
	// case, J ≈ 4,600, and hands over to the dual).
	iters, ok, err := p.solvePrimal(ctx, math.Min(tol, flatPrimalTol), min(flatPrimalIters, maxIter))
	p.freeBias = false
	if err != nil {
		return iters, false, err
	}
	if ok {
		return iters, p.flatFinish(), nil
	}
	if iters >= maxIter {
		p.flatFinish()
		return iters, false, nil
	}
	p.warm = true
	more, ok, err := p.solveFlat(ctx, tol, maxIter-iters, p.solveNewton)
	return iters + more, ok, err
}

// rootBias moves b_m to a root of h_m(b_m) = Σ_t y_mt λ*_mt (nonincreasing
// in b_m), re-solving λ with inner after every move.
func (p *problem) rootBias(m int, eqTol float64, inner func() error) error {
	eval := func(b float64) (float64, error) {
		p.bias[m] = b
		if err := inner(); err != nil {
			return 0, err
		}
		return p.B[m], nil
	}
	b0, h0 := p.bias[m], p.B[m]
	// Bracket: h(lo) > 0 > h(hi).
	step := math.Max(1, math.Abs(b0))
	dir := 1.0
	if h0 < 0 {
		dir = -1
	}
	b1, h1 := b0, h0
	for k := 0; ; k++ {
		if k == 200 {
			return errors.New("flat bias prior: no bracket for the bias")
		}
		b0, h0 = b1, h1
		b1 = b0 + dir*step
		step *= 2
		var err error
		if h1, err = eval(b1); err != nil {
			return err
		}
		if math.Abs(h1) <= eqTol {
			return nil
		}
		if (h1 > 0) != (h0 > 0) {
			break
		}
	}
	lo, hlo, hi, hhi := b0, h0, b1, h1
	if lo > hi {
		lo, hlo, hi, hhi = hi, hhi, lo, hlo
	}
	side := 0
	for k := 0; k < 200; k++ {
		x := hi - hhi*(hi-lo)/(hhi-hlo)
		if !(x > lo && x < hi) {
			x = lo + (hi-lo)/2
		}
		h, err := eval(x)
		if err != nil {
			return err
		}
		if math.Abs(h) <= eqTol {
			return nil
		}
		if h > 0 {
			lo, hlo = x, h
			if side == 1 {
				hhi /= 2 // Illinois: halve the stale end
			}
			side = 1
		} else {
			hi, hhi = x, h
			if side == -1 {
				hlo /= 2
			}
			side = -1
		}
		if hi-lo <= 1e-14*(1+math.Abs(x)) {
			return nil
		}
	}
	return nil
}

// flatPrimalIters is the budget of primal Newton iterations
// solveFlatPrimal spends before it turns to the dual: enough for the
// Landsat-like case of issue 13 (13–182 iterations at tol 1e-6), where
// the dual needs hundreds of passes, and a few tens of milliseconds on
// separable data at large c, where the primal crawls (splice at c = 101:
// 5,273 iterations, 0.9 s) and projected Newton on the dual needs ≈ 140
// passes.
const flatPrimalIters = 200

// flatPrimalTol is the largest slope solveFlatPrimal stops the primal at.
const flatPrimalTol = 1e-6
