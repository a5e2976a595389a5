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
	for m, y := range p.y {
		var pos, neg bool
		for _, v := range y {
			pos = pos || v > 0
			neg = neg || v < 0
		}
		if !pos || !neg {
			return 0, false, fmt.Errorf("flat bias prior: task %d has one class only (Σ_t y_t λ_t = 0 forces λ = 0)", m)
		}
	}
	p.sigma2 = 0
	p.bias = make([]float64, p.M)
	p.warm = false
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
	// Project the free multipliers onto the equality constraint.
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
	return iters, rooted && proj && innerConv, nil
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
