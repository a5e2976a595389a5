package med

import (
	"context"
	"errors"
	"math"
)

// smoothHinge returns ℓ(m), ℓ'(m) and ℓ”(m) of the loss conjugate to
// MED's margin barrier: ℓ(m) = max_{0≤λ<c} λ(1 − m) + ln(1 − λ/c), which
// is z − 1 − ln z with z = c(1 − m) for z > 1 and zero otherwise; the
// maximizing λ is −ℓ'(m) = c − c/z.
func smoothHinge(m, c float64) (l, d1, d2 float64) {
	z := c * (1 - m)
	if z <= 1 {
		return 0, 0, 0
	}
	return z - 1 - math.Log(z), -c + c/z, c * c / (z * z)
}

// solvePrimal maximizes J at ρ = 1 (every switch one: J is concave and
// the tasks separate) through its primal, one task at a time:
//
//	min_{w,b} ½‖w‖² + b²/(2σ²) + Σ_t ℓ(y_t(w·x_t + b)),
//
// with ℓ the smoothed hinge (smoothHinge), x_t the training row (select
// features only), and b fixed at p.bias[m] when the flat prior's outer
// loop holds it (σ² = 0). The minimization is Newton's method with the
// Newton system solved by conjugate gradients (the Hessian
// I + Σ_t ℓ”_t x_t x_tᵀ is never formed: each product is one pass over the
// rows, as in liblinear's TRON) and an exact line search. Unlike the dual,
// whose curvature along the null space of X is only the barrier's
// 1/(c − λ)², the primal is well conditioned whatever the scaling of the
// data: tens to hundreds of iterations where coordinate ascent on the dual
// stalls (issue 13: standardized continuous inputs). Its weakness is the
// kink of ℓ at z = 1, sharp for large c: on separable data (splice,
// c = 101) it needs thousands of iterations, so solveRhoOne tries
// coordinate ascent first. It starts from the current multipliers when
// p.warm. The multipliers are λ_t = −ℓ'(y_t f(x_t)); the stopping test is
// the dual's: every projected slope ∂J/∂λ_t at those λ is at most tol. It
// returns the largest number of Newton iterations of a task and whether
// every task met the test.
func (p *problem) solvePrimal(ctx context.Context, tol float64, maxIter int) (iters int, converged bool, err error) {
	if !p.features() {
		return 0, false, errors.New("the primal solver is for select features only")
	}
	warm := p.warm
	if !warm {
		p.init()
	}
	rows, r := p.rows, p.D
	converged = true
	for m := 0; m < p.M; m++ {
		it, ok, err := p.primalTask(ctx, m, rows, r, warm, tol, maxIter)
		iters = max(iters, it)
		converged = converged && ok
		if err != nil {
			return iters, false, err
		}
	}
	p.refresh()
	return iters, converged, nil
}

// primalTask minimizes task m's primal (see solvePrimal) over w ∈ R^r and,
// with the Gaussian prior, b; it sets λ_m from the result.
func (p *problem) primalTask(ctx context.Context, m int, rows [][]entry, r int, warm bool, tol float64, maxIter int) (int, bool, error) {
	y, c, T := p.y[m], p.c, p.T
	// The bias: with the Gaussian prior free with penalty b²/(2σ²); with
	// the flat prior free and unpenalized (freeBias); held at p.bias[m]
	// otherwise. pen is the penalty's curvature; scale maps the primal's
	// b-gradient into the dual's decision (σ², zero when b is unpenalized:
	// the flat prior's Σ_t y_t λ_t = 0 is then tested on its own).
	freeB := p.bias == nil || p.freeBias
	var pen, scale float64
	if p.bias == nil {
		pen, scale = 1/p.sigma2, p.sigma2
	}
	// w and b: from the current multipliers when warm (w = Σ_t λ_t y_t x_t,
	// b = σ² Σ_t y_t λ_t), else zero.
	w := make([]float64, r+1) // w[r] is b
	if p.bias == nil {
		for t, l := range p.lam[m] {
			if l == 0 || !warm {
				continue
			}
			for _, e := range rows[t] {
				w[e.j] += l * y[t] * e.v
			}
			w[r] += p.sigma2 * l * y[t]
		}
	} else {
		w[r] = p.bias[m]
		if warm {
			for t, l := range p.lam[m] {
				for _, e := range rows[t] {
					w[e.j] += l * y[t] * e.v
				}
			}
		}
	}
	// dot returns v·(x_t, 1): the w part and b = v[r].
	dot := func(v []float64, t int) float64 {
		s := v[r]
		for _, e := range rows[t] {
			s += v[e.j] * e.v
		}
		return s
	}
	// objective returns the primal at v, and the margins y_t f(x_t).
	marg := make([]float64, T)
	objective := func(v []float64, mg []float64) float64 {
		var P float64
		for j := 0; j < r; j++ {
			P += v[j] * v[j] / 2
		}
		P += pen * v[r] * v[r] / 2
		for t := 0; t < T; t++ {
			mg[t] = y[t] * dot(v, t)
			l, _, _ := smoothHinge(mg[t], c)
			P += l
		}
		return P
	}
	P := objective(w, marg)
	d1 := make([]float64, T)
	d2 := make([]float64, T)
	g := make([]float64, r+1)
	d := make([]float64, r+1)
	res := make([]float64, r+1)
	dir := make([]float64, r+1)
	hd := make([]float64, r+1)
	trial := make([]float64, r+1)
	tmarg := make([]float64, T)
	delta := make([]float64, T)
	// hess sets out = H v.
	hess := func(v, out []float64) {
		copy(out[:r], v[:r])
		out[r] = pen * v[r]
		for t := 0; t < T; t++ {
			if d2[t] == 0 {
				continue
			}
			s := d2[t] * dot(v, t) // v[r] = 0 when b is fixed
			for _, e := range rows[t] {
				out[e.j] += s * e.v
			}
			if freeB {
				out[r] += s
			}
		}
	}
	converged := false
	it := 0
	for it = 1; it <= maxIter; it++ {
		if err := ctx.Err(); err != nil {
			return it, false, err
		}
		// Gradient.
		copy(g[:r], w[:r])
		g[r] = pen * w[r]
		for t := 0; t < T; t++ {
			_, d1[t], d2[t] = smoothHinge(marg[t], c)
			if d1[t] == 0 {
				continue
			}
			a := d1[t] * y[t]
			for _, e := range rows[t] {
				g[e.j] += a * e.v
			}
			if freeB {
				g[r] += a
			}
		}
		// The dual's stopping test at λ_t = −ℓ'_t: the dual decision is
		// f(x) − (g_w·x + σ² g_b), so ∂J/∂λ_t = (m_t if λ_t > 0, else
		// 1 − 1/c) − m_t + y_t (g_w·x_t + σ² g_b), the positive part
		// where λ_t = 0.
		gb := g[r]
		g[r] *= scale // zero when b is fixed or unpenalized
		var viol float64
		if p.bias != nil && freeB {
			viol = math.Abs(gb) // |Σ_t y_t λ_t|
		}
		for t := 0; t < T; t++ {
			s := y[t] * dot(g, t)
			if d1[t] == 0 {
				s = math.Max(s+1-1/c-marg[t], 0)
			}
			viol = math.Max(viol, math.Abs(s))
		}
		g[r] = gb
		if viol <= tol {
			converged = true
			break
		}
		// Newton direction: H d = −g by conjugate gradients, to a
		// relative residual min(½, √‖g‖).
		var gg float64
		for _, v := range g {
			gg += v * v
		}
		eta := math.Min(0.5, math.Sqrt(math.Sqrt(gg)))
		clear(d)
		for j := range res {
			res[j] = -g[j]
		}
		copy(dir, res)
		rr := gg
		for k := 0; k < 2*(r+1) && rr > eta*eta*gg; k++ {
			hess(dir, hd)
			var dhd float64
			for j := range dir {
				dhd += dir[j] * hd[j]
			}
			if dhd <= 0 {
				break
			}
			a := rr / dhd
			var rr1 float64
			for j := range d {
				d[j] += a * dir[j]
				res[j] -= a * hd[j]
				rr1 += res[j] * res[j]
			}
			for j := range dir {
				dir[j] = res[j] + rr1/rr*dir[j]
			}
			rr = rr1
		}
		var slope float64
		for j := range d {
			slope += g[j] * d[j]
		}
		if slope >= 0 {
			break // no descent direction: at the minimum to rounding
		}
		// Exact line search: φ(α) = P(w + αd) is convex in α, and with
		// Δ_t = y_t (d·x_t, d_b) its derivatives cost one pass over T:
		// φ'(α) = A + αB + Σ_t ℓ'(m_t + αΔ_t) Δ_t. The minimizer is
		// bracketed by doubling and found by Newton's method safeguarded
		// by bisection. (Backtracking from the Newton step fails here: the
		// step is computed with the curvature of the rows inside the loss
		// only, and overshoots when rows cross the kink at z = 1.)
		var A, B float64
		for j := 0; j < r; j++ {
			A += w[j] * d[j]
			B += d[j] * d[j]
		}
		A += pen * w[r] * d[r]
		B += pen * d[r] * d[r]
		for t := 0; t < T; t++ {
			delta[t] = y[t] * dot(d, t)
		}
		dphi := func(a float64) (float64, float64) {
			g1, g2 := A+a*B, B
			for t := 0; t < T; t++ {
				if delta[t] == 0 {
					continue
				}
				_, l1, l2 := smoothHinge(marg[t]+a*delta[t], c)
				g1 += l1 * delta[t]
				g2 += l2 * delta[t] * delta[t]
			}
			return g1, g2
		}
		lo, hi := 0.0, 1.0
		for k := 0; k < 60; k++ {
			if g1, _ := dphi(hi); g1 > 0 {
				break
			}
			lo, hi = hi, 2*hi
		}
		alpha := hi
		g1, g2 := dphi(alpha)
		for k := 0; k < 100 && math.Abs(g1) > 1e-12*math.Abs(slope) && hi-lo > 1e-15*hi; k++ {
			if g1 > 0 {
				hi = alpha
			} else {
				lo = alpha
			}
			next := alpha - g1/g2
			if !(next > lo && next < hi) {
				next = (lo + hi) / 2
			}
			alpha = next
			g1, g2 = dphi(alpha)
		}
		for j := range trial {
			trial[j] = w[j] + alpha*d[j]
		}
		Pt := objective(trial, tmarg)
		if !(Pt < P) {
			break // no decrease beyond rounding: at the minimum
		}
		copy(w, trial)
		copy(marg, tmarg)
		P = Pt
	}
	for t := 0; t < T; t++ {
		_, d1t, _ := smoothHinge(marg[t], c)
		p.lam[m][t] = -d1t
	}
	if p.bias != nil && freeB {
		p.bias[m] = w[r]
	}
	return min(it, maxIter), converged, nil
}

// cdSweeps is the budget of coordinate-ascent sweeps solveRhoOne spends
// before it turns to the primal: enough for data on which coordinate
// ascent converges (≈ 300 sweeps on splice, where the primal is slower at
// large c: 5,000 Newton iterations at c = 101), and a few milliseconds on
// 300 rows where it stalls.
const cdSweeps = 500

// solveRhoOne is solver auto for select features at ρ = 1 with the
// Gaussian prior: coordinate ascent on the dual for up to cdSweeps sweeps;
// if that has not converged, solvePrimal from its multipliers; and if the
// primal stops short of the dual's stopping test (a line search that can
// no longer lower it, at the level of rounding), projected Newton on the
// dual from there. Every stage gets the iterations left of maxIter; the
// count returned is their sum (sweeps plus Newton iterations).
func (p *problem) solveRhoOne(ctx context.Context, tol float64, maxIter int) (int, bool, error) {
	iters, ok, err := p.solveCD(ctx, tol, min(cdSweeps, maxIter))
	if err != nil || ok || iters >= maxIter {
		return iters, ok, err
	}
	warm := p.warm
	defer func() { p.warm = warm }()
	p.warm = true
	more, ok, err := p.solvePrimal(ctx, tol, maxIter-iters)
	iters += more
	if err != nil || ok || iters >= maxIter {
		return iters, ok, err
	}
	more, ok, err = p.solveNewton(ctx, tol, maxIter-iters)
	return iters + more, ok, err
}
