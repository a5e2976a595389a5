package med

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// switchVar returns f”(q) = ŝ(1 − ŝ), the variance of the switch.
func switchVar(q, rho float64) float64 {
	s := switchMean(q, rho)
	return s * (1 - s)
}

// gradTask returns ∂J/∂λ_mt for every row t of task m at the current state.
func (p *problem) gradTask(m int, out []float64, cs []coef) ([]float64, []coef) {
	out = out[:0]
	for t := 0; t < p.T; t++ {
		cs = p.coefs(m, t, cs)
		g, _ := p.derivs(m, t, 0, cs)
		out = append(out, g)
	}
	return out, cs
}

// hessBlock returns the block H_mn = ∂²J/∂λ_m∂λ_n of the Hessian of J,
// restricted to the rows rm of task m and rn of task n (all rows if nil),
// at the current state:
//
//	H_mn = δ_mn [diag(−1/(c−λ_m)²) − σ² y_m y_mᵀ − Σ_d ŝ_d (y_m y_mᵀ)∘K_d]
//	       − [s_m = s_n] Σ_d ŝ_d(1−ŝ_d) a_md a_ndᵀ
//
// where a_md = ∂q_d/∂λ_m (a_mdt = y_mt (K_d v_m)_t; for features
// y_mt X_td u_md) and ŝ_d is the switch of task m's switch vector. Tasks
// with different switch vectors (independent) do not interact.
func (p *problem) hessBlock(m, n int, rm, rn []int) [][]float64 {
	all := func(r []int) []int {
		if r != nil {
			return r
		}
		r = make([]int, p.T)
		for i := range r {
			r[i] = i
		}
		return r
	}
	rm, rn = all(rm), all(rn)
	H := make([][]float64, len(rm))
	for i := range H {
		H[i] = make([]float64, len(rn))
	}
	if m != n && p.sw(m) != p.sw(n) {
		return H
	}
	q := p.q[p.sw(m)]
	s := make([]float64, p.D)
	v := make([]float64, p.D)
	for d := range s {
		s[d] = switchMean(q[d], p.rho)
		v[d] = switchVar(q[d], p.rho)
	}
	if p.features() {
		// H_ij = −Σ_d w_d z_mid z_njd with z_mt = y_mt X_t (sparse rows):
		// scatter w∘z_mi into a dense buffer, then one sparse dot per
		// column; the diagonal block is symmetric and filled once.
		w := make([]float64, p.D)
		for d := range w {
			w[d] = v[d] * p.u[m][d] * p.u[n][d]
			if m == n {
				w[d] += s[d]
			}
		}
		sym := m == n && sameRows(rm, rn)
		buf := make([]float64, p.D)
		for i, t := range rm {
			yt := p.y[m][t]
			for _, e := range p.rows[t] {
				buf[e.j] = w[e.j] * yt * e.v
			}
			jmax := len(rn)
			if sym {
				jmax = i + 1
			}
			for j := 0; j < jmax; j++ {
				r := rn[j]
				var h float64
				for _, e := range p.rows[r] {
					h += buf[e.j] * e.v
				}
				H[i][j] = -h * p.y[n][r]
				if sym {
					H[j][i] = H[i][j]
				}
			}
			for _, e := range p.rows[t] {
				buf[e.j] = 0
			}
		}
	} else {
		// Row t outer, kernel d inner: one column of inner products
		// serves every kernel (kernelCols); for each entry the kernels
		// still add in the order d = 0, 1, ….
		for i, t := range rm {
			yt := p.y[m][t]
			for d := 0; d < p.D; d++ {
				gm, gn := p.g[m][d], p.g[n][d]
				at := yt * gm[t]
				var col []float64
				if m == n {
					col = p.col(d, t)
				}
				for j, r := range rn {
					yr := p.y[n][r]
					h := v[d] * at * yr * gn[r]
					if m == n {
						h += s[d] * yt * yr * col[r]
					}
					H[i][j] -= h
				}
			}
		}
	}
	if m == n {
		for i, t := range rm {
			for j, r := range rn {
				H[i][j] -= p.sigma2 * p.y[m][t] * p.y[m][r]
				if t == r {
					gap := p.c - p.lam[m][t]
					H[i][j] -= 1 / (gap * gap)
				}
			}
		}
	}
	return H
}

func sameRows(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// setTask sets λ_m and recomputes the state that depends on it (B_m, u_m or
// g_m, and task m's contribution to q).
func (p *problem) setTask(m int, lam []float64) {
	copy(p.lam[m], lam)
	p.B[m] = 0
	for t, l := range lam {
		p.B[m] += p.y[m][t] * l
	}
	qs := p.q[p.sw(m)]
	qm := p.qm[m]
	for d := range qm {
		qs[d] -= qm[d]
	}
	if p.features() {
		u := p.u[m]
		clear(u)
		for t, l := range lam {
			if l == 0 {
				continue
			}
			a := l * p.y[m][t]
			for _, e := range p.rows[t] {
				u[e.j] += a * e.v
			}
		}
		for d, x := range u {
			qm[d] = x * x / 2
		}
	} else {
		p.kernelTimes(m, lam)
		for d := 0; d < p.D; d++ {
			g := p.g[m][d]
			var q float64
			for t, l := range lam {
				q += l * p.y[m][t] * g[t]
			}
			qm[d] = q / 2
		}
	}
	for d := range qm {
		qs[d] += qm[d]
		if qs[d] < 0 {
			qs[d] = 0
		}
	}
}

// projSlope returns the largest projected slope |∂J/∂λ| of task m: the
// slope itself where λ > 0, and its positive part where λ = 0.
func (p *problem) projSlope(m int, g []float64) float64 {
	var viol float64
	for t, v := range g {
		if p.lam[m][t] <= 0 {
			v = math.Max(v, 0)
		}
		viol = math.Max(viol, math.Abs(v))
	}
	return viol
}

// newtonStep makes one projected Newton step (Bertsekas 1982) on task m's
// multipliers with the other tasks held fixed, given the gradient g of
// task m. Rows at (or within ε of) zero whose slope points below zero form
// the active set and take a diagonally scaled gradient step; the free rows
// take the Newton step of the free block of the Hessian. The step follows
// the projected arc max(0, λ + αd), kept inside λ < c, with Armijo
// backtracking on J. It reports whether J increased.
func (p *problem) newtonStep(m int, g []float64) (bool, error) {
	lam := p.lam[m]
	// ε-active set: ε = min(‖λ − P(λ + g)‖, 1e-3·c).
	var w float64
	for t, l := range lam {
		x := l - math.Max(0, l+g[t])
		w += x * x
	}
	eps := math.Min(math.Sqrt(w), 1e-3*p.c)
	var free, active []int
	for t, l := range lam {
		if l <= eps && g[t] < 0 {
			active = append(active, t)
		} else {
			free = append(free, t)
		}
	}
	d := make([]float64, p.T)
	if len(free) > 0 {
		H := p.hessBlock(m, m, free, free)
		A := mat.NewSymDense(len(free), nil)
		for i := range free {
			for j := i; j < len(free); j++ {
				A.SetSym(i, j, -(H[i][j]+H[j][i])/2)
			}
		}
		gf := mat.NewVecDense(len(free), nil)
		for i, t := range free {
			gf.SetVec(i, g[t])
		}
		var ch mat.Cholesky
		var x mat.VecDense
		if ch.Factorize(A) && ch.SolveVecTo(&x, gf) == nil {
			for i, t := range free {
				d[t] = x.AtVec(i)
			}
		} else {
			for i, t := range free {
				d[t] = g[t] / A.At(i, i)
			}
		}
	}
	if len(active) > 0 {
		H := p.hessBlock(m, m, active, active)
		for i, t := range active {
			d[t] = g[t] / math.Max(-H[i][i], 1e-12)
		}
	}
	// Largest step keeping every λ strictly inside the barrier.
	alpha := 1.0
	for t, dt := range d {
		if dt > 0 {
			alpha = math.Min(alpha, 0.99*(p.c-lam[t])/dt)
		}
	}
	old := append([]float64(nil), lam...)
	J0 := p.Objective()
	trial := make([]float64, p.T)
	for ls := 0; ls < 60; ls++ {
		var pred float64
		for t := range trial {
			trial[t] = math.Max(0, old[t]+alpha*d[t])
			pred += g[t] * (trial[t] - old[t])
		}
		p.setTask(m, trial)
		J := p.Objective()
		if math.IsNaN(J) {
			p.setTask(m, old)
			return false, fmt.Errorf("med: objective is NaN at task %d", m)
		}
		if J >= J0+1e-4*pred && J > J0 {
			return true, nil
		}
		// Near the maximum the change in J is below its rounding error and
		// the Armijo test is noise: accept a step that does not lower J
		// beyond rounding (the slope test decides convergence).
		if rnd := 1e-13 * (1 + math.Abs(J0)); pred <= rnd && J >= J0-rnd {
			changed := false
			for t := range trial {
				changed = changed || trial[t] != old[t]
			}
			return changed, nil
		}
		alpha /= 2
	}
	p.setTask(m, old)
	return false, nil
}

// solveNewton maximizes J by projected Newton steps, one task block at a
// time (Gauss–Seidel over tasks; independent tasks separate exactly). An
// iteration is one pass over the tasks not yet converged. It stops when
// every projected slope |∂J/∂λ| (the slope where λ > 0, its positive part
// where λ = 0) is ≤ tol, and returns the number of passes.
func (p *problem) solveNewton(ctx context.Context, tol float64, maxIter int) (iters int, converged bool, err error) {
	if !p.warm {
		p.init()
	}
	p.refresh()
	var cs []coef
	g := make([]float64, 0, p.T)
	for iters = 1; iters <= maxIter; iters++ {
		if err := ctx.Err(); err != nil {
			return iters, false, err
		}
		worst, moved := 0.0, false
		for m := 0; m < p.M; m++ {
			g, cs = p.gradTask(m, g, cs)
			v := p.projSlope(m, g)
			worst = math.Max(worst, v)
			if v <= tol {
				continue
			}
			up, err := p.newtonStep(m, g)
			if err != nil {
				return iters, false, err
			}
			moved = moved || up
		}
		if worst <= tol {
			p.refresh()
			return iters, true, nil
		}
		if !moved {
			// No task can raise J any more: J is at its maximum to
			// rounding; report the slope test as the convergence verdict.
			p.refresh()
			return iters, false, nil
		}
	}
	p.refresh()
	return maxIter, false, nil
}
