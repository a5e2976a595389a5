package med

import (
	"context"
	"fmt"
	"math"
)

// logSwitch returns f(q) = ln(1 − ρ + ρ·e^q) without overflow: for large q
// it is q + ln(ρ + (1−ρ)e^{−q}), for small q log1p(ρ·expm1(q)).
func logSwitch(q, rho float64) float64 {
	if rho == 1 {
		return q
	}
	if q < 30 {
		return math.Log1p(rho * math.Expm1(q))
	}
	return q + math.Log(rho+(1-rho)*math.Exp(-q))
}

// switchMean returns f'(q) = ρ / (ρ + (1−ρ)e^{−q}), the expected switch ŝ.
func switchMean(q, rho float64) float64 {
	if rho == 1 {
		return 1
	}
	if q < -700 {
		return 0
	}
	return rho / (rho + (1-rho)*math.Exp(-q))
}

// entry is a stored element of a training row.
type entry struct {
	j int
	v float64
}

// problem is the MED dual over M tasks sharing T training rows:
//
//	J(λ) = Σ_mt [λ_mt + ln(1 − λ_mt/c)] − Σ_m σ²/2 (Σ_t y_mt λ_mt)² − Σ_s Σ_d f(q_sd)
//
// where s ranges over the switch vectors (one shared by all tasks, or one
// per task) and q_sd = ½ Σ_{m∈s} v_mᵀ K_d v_m with v_m = y_m∘λ_m. For
// feature selection K_d = X_{·d} X_{·d}ᵀ, so q_sd = ½ Σ_m u_md² with
// u_md = Σ_t λ_mt y_mt X_td.
type problem struct {
	M, T, D int
	y       [][]float64 // M×T, ±1
	c       float64
	rho     float64
	sigma2  float64
	shared  bool
	// bias, when non-nil, holds a fixed bias b_m per task entering J as
	// the linear term −b_m Σ_t y_mt λ_mt (the Lagrangian of the flat
	// prior's equality constraint; sigma2 is then zero).
	bias []float64
	// freeBias makes the primal solver (solvePrimal) minimize over the
	// bias as well, unpenalized (the flat prior), and store the result in
	// bias.
	freeBias bool
	// warm makes the solvers start from the current λ instead of zero.
	warm bool

	rows [][]entry   // features: the stored elements of every row
	K    [][]float64 // kernels: D Gram matrices T×T, or nil with kc
	// kc, when non-nil, gives the kernels' columns through a cache
	// instead of K (the Gram matrices do not fit in cache_mb); read both
	// through col and kdiag.
	kc *kernelCols

	// state
	lam [][]float64   // M×T
	B   []float64     // Σ_t y_mt λ_mt
	u   [][]float64   // features: M×D
	g   [][][]float64 // kernels: M×D×T, g_md = K_d v_m
	q   [][]float64   // S×D: q_sd = Σ_{m∈s} qm_md
	qm  [][]float64   // M×D: task m's part ½ v_mᵀ K_d v_m
}

func (p *problem) features() bool { return p.rows != nil }

// sw returns the index of task m's switch vector.
func (p *problem) sw(m int) int {
	if p.shared {
		return 0
	}
	return m
}

func (p *problem) init() {
	p.lam = make([][]float64, p.M)
	p.B = make([]float64, p.M)
	S := p.M
	if p.shared {
		S = 1
	}
	p.q = make([][]float64, S)
	for s := range p.q {
		p.q[s] = make([]float64, p.D)
	}
	p.qm = make([][]float64, p.M)
	for m := range p.lam {
		p.lam[m] = make([]float64, p.T)
		p.qm[m] = make([]float64, p.D)
	}
	if p.features() {
		p.u = make([][]float64, p.M)
		for m := range p.u {
			p.u[m] = make([]float64, p.D)
		}
	} else {
		p.g = make([][][]float64, p.M)
		for m := range p.g {
			p.g[m] = make([][]float64, p.D)
			for d := range p.g[m] {
				p.g[m][d] = make([]float64, p.T)
			}
		}
	}
}

// refresh recomputes B, u or g, and q from λ, removing rounding drift.
func (p *problem) refresh() {
	for s := range p.q {
		clear(p.q[s])
	}
	for m := 0; m < p.M; m++ {
		p.B[m] = 0
		for t, l := range p.lam[m] {
			p.B[m] += p.y[m][t] * l
		}
		if p.features() {
			u := p.u[m]
			clear(u)
			for t, l := range p.lam[m] {
				if l == 0 {
					continue
				}
				a := l * p.y[m][t]
				for _, e := range p.rows[t] {
					u[e.j] += a * e.v
				}
			}
			for d, v := range u {
				p.qm[m][d] = v * v / 2
				p.q[p.sw(m)][d] += v * v / 2
			}
			continue
		}
		p.kernelTimes(m, p.lam[m])
		for d := 0; d < p.D; d++ {
			g := p.g[m][d]
			var q float64
			for t, l := range p.lam[m] {
				q += l * p.y[m][t] * g[t]
			}
			p.qm[m][d] = q / 2
			p.q[p.sw(m)][d] += q / 2
		}
	}
}

// kernelTimes sets g_md = K_d (y_m ∘ lam) for every kernel d. Row t is the
// outer loop, so that one column of inner products serves every kernel
// (kernelCols); each g_md still sums over t in increasing order.
func (p *problem) kernelTimes(m int, lam []float64) {
	for d := 0; d < p.D; d++ {
		clear(p.g[m][d])
	}
	for t, l := range lam {
		if l == 0 {
			continue
		}
		a := l * p.y[m][t]
		for d := 0; d < p.D; d++ {
			g, col := p.g[m][d], p.col(d, t)
			for s := range g {
				g[s] += a * col[s]
			}
		}
	}
}

// Objective returns J(λ) at the current state.
func (p *problem) Objective() float64 {
	var J float64
	for m := 0; m < p.M; m++ {
		for _, l := range p.lam[m] {
			if l >= p.c {
				return math.Inf(-1)
			}
			J += l + math.Log1p(-l/p.c)
		}
		J -= p.sigma2 / 2 * p.B[m] * p.B[m]
		if p.bias != nil {
			J -= p.bias[m] * p.B[m]
		}
	}
	for s := range p.q {
		for _, q := range p.q[s] {
			J -= logSwitch(q, p.rho)
		}
	}
	return J
}

// Gradient returns ∂J/∂λ_mt at the current state (after refresh).
func (p *problem) Gradient() [][]float64 {
	out := make([][]float64, p.M)
	for m := range out {
		out[m] = make([]float64, p.T)
		for t := range out[m] {
			out[m][t], _ = p.derivs(m, t, 0, p.coefs(m, t, nil))
		}
	}
	return out
}

// coef says how coordinate (m,t) moves group d's quadratic form:
// q_d(δ) = q_d + δ a + ½ δ² b.
type coef struct {
	d    int
	a, b float64
}

// coefs returns the groups coordinate (m,t) touches, reusing buf.
func (p *problem) coefs(m, t int, buf []coef) []coef {
	buf = buf[:0]
	y := p.y[m][t]
	if p.features() {
		u := p.u[m]
		for _, e := range p.rows[t] {
			buf = append(buf, coef{e.j, y * e.v * u[e.j], e.v * e.v})
		}
		return buf
	}
	for d := 0; d < p.D; d++ {
		buf = append(buf, coef{d, y * p.g[m][d][t], p.kdiag(d, t)})
	}
	return buf
}

// derivs returns φ'(δ) and φ”(δ) along coordinate (m,t).
func (p *problem) derivs(m, t int, delta float64, cs []coef) (float64, float64) {
	y := p.y[m][t]
	gap := p.c - p.lam[m][t] - delta
	bb := p.B[m] + delta*y
	d1 := 1 - 1/gap - p.sigma2*y*bb
	if p.bias != nil {
		d1 -= y * p.bias[m]
	}
	d2 := -1/(gap*gap) - p.sigma2
	q := p.q[p.sw(m)]
	for _, c := range cs {
		Q := q[c.d] + delta*c.a + delta*delta*c.b/2
		s := switchMean(Q, p.rho)
		dq := c.a + delta*c.b
		d1 -= s * dq
		d2 -= s*(1-s)*dq*dq + s*c.b
	}
	return d1, d2
}

// lineMax returns the maximizer δ of the concave φ over λ_mt + δ ∈ [0, c),
// found by Newton's method safeguarded by bisection on φ', and the
// projected slope at δ = 0.
func (p *problem) lineMax(m, t int, cs []coef) (delta, pg float64) {
	l := p.lam[m][t]
	lo, hi := -l, p.c-l // φ' > 0 at lo (else δ = lo), φ' → −∞ at hi
	g0, h0 := p.derivs(m, t, 0, cs)
	pg = g0
	if l <= 0 {
		pg = math.Max(g0, 0)
	}
	if l > 0 {
		if glo, _ := p.derivs(m, t, lo, cs); glo <= 0 {
			return lo, pg
		}
	} else if g0 <= 0 {
		return 0, pg
	}
	if g0 > 0 {
		lo = 0
	} else {
		hi = 0
	}
	x, g, h := 0.0, g0, h0
	for it := 0; it < 100; it++ {
		nx := x - g/h
		if !(nx > lo && nx < hi) {
			nx = lo + (hi-lo)/2
		}
		if math.Abs(nx-x) <= 1e-15*(1+math.Abs(x)) {
			x = nx
			break
		}
		x = nx
		g, h = p.derivs(m, t, x, cs)
		if g > 0 {
			lo = x
		} else {
			hi = x
		}
		if math.Abs(g) <= 1e-12 || hi-lo <= 1e-15*(1+math.Abs(x)) {
			break
		}
	}
	return x, pg
}

// apply moves λ_mt by δ and updates the state.
func (p *problem) apply(m, t int, delta float64, cs []coef) {
	y := p.y[m][t]
	p.lam[m][t] += delta
	if p.lam[m][t] < 0 {
		p.lam[m][t] = 0
	}
	p.B[m] += delta * y
	q, qm := p.q[p.sw(m)], p.qm[m]
	for _, c := range cs {
		dq := delta*c.a + delta*delta*c.b/2
		q[c.d] += dq
		qm[c.d] += dq
		if q[c.d] < 0 {
			q[c.d] = 0
		}
	}
	a := delta * y
	if p.features() {
		for _, e := range p.rows[t] {
			p.u[m][e.j] += a * e.v
		}
		return
	}
	for d := 0; d < p.D; d++ {
		g := p.g[m][d]
		col := p.col(d, t)
		for s := range g {
			g[s] += a * col[s]
		}
	}
}

// solveCD maximizes J by cyclic coordinate ascent with an exact 1-D Newton
// step per coordinate. It stops after the first sweep in which every
// coordinate's projected slope (measured before its update) is ≤ tol, and
// returns the number of sweeps.
func (p *problem) solveCD(ctx context.Context, tol float64, maxIter int) (iters int, converged bool, err error) {
	if !p.warm {
		p.init()
	}
	p.refresh()
	var cs []coef
	for iters = 1; iters <= maxIter; iters++ {
		if err := ctx.Err(); err != nil {
			return iters, false, err
		}
		viol := 0.0
		for m := 0; m < p.M; m++ {
			for t := 0; t < p.T; t++ {
				cs = p.coefs(m, t, cs)
				delta, pg := p.lineMax(m, t, cs)
				if math.IsNaN(delta) || math.IsNaN(pg) {
					return iters, false, fmt.Errorf("med: non-finite step at task %d row %d", m, t)
				}
				viol = math.Max(viol, math.Abs(pg))
				if delta != 0 {
					p.apply(m, t, delta, cs)
				}
			}
		}
		p.refresh()
		if viol <= tol {
			return iters, true, nil
		}
	}
	return maxIter, false, nil
}
