package svm

import (
	"context"
	"math"

	"github.com/repro-ml/repro/methods/kernel"
)

const tau = 1e-12

type solution struct {
	alpha     []float64
	b         float64
	iter      int
	converged bool
	obj       float64 // ½αᵀQα − Σα
}

// kmatrix gives the solvers the kernel matrix by columns, by position:
// either a precomputed Gram matrix (no swaps) or a kernel.Cache.
type kmatrix interface {
	// column returns k(x_p, x_q) for q < length.
	column(p, length int) []float64
	diag(p int) float64
	// swap exchanges positions p and q (shrinking); only a cache can.
	swap(p, q int)
	canSwap() bool
}

// gram is a precomputed n×n kernel matrix.
type gram struct {
	n int
	k []float64
}

func (g *gram) column(p, length int) []float64 { return g.k[p*g.n : p*g.n+length] }
func (g *gram) diag(p int) float64             { return g.k[p*g.n+p] }
func (g *gram) swap(p, q int)                  { panic("svm: swap on a precomputed Gram matrix") }
func (g *gram) canSwap() bool                  { return false }

// cached computes kernel columns on demand through a bounded cache.
type cached struct{ c *kernel.Cache }

func (c cached) column(p, length int) []float64 { return c.c.Column(p, length) }
func (c cached) diag(p int) float64             { return c.c.Columns().Diag(p) }
func (c cached) swap(p, q int)                  { c.c.Swap(p, q) }
func (c cached) canSwap() bool                  { return true }

// smoSolver is libsvm's Solver (svm.cpp) for the C-SVC dual
//
//	min ½αᵀQα − Σα  s.t. 0 ≤ α ≤ C, yᵀα = 0,  Q_pq = y_p y_q k(x_p, x_q),
//
// with second-order working-set selection (WSS 2, Fan, Chen & Lin 2005)
// and, when the kernel matrix can swap positions, shrinking: every
// min(n, 1000) steps the variables at a bound whose gradient says they
// stay there leave the active set, a prefix of the positions, so that
// steps touch and columns are computed over the active set only; the
// full gradient is rebuilt (from Ḡ, the gradient part of the variables
// at C) once the active set is nearly optimal and before stopping.
type smoSolver struct {
	k        kmatrix
	n        int
	active   int
	y        []float64
	alpha    []float64
	G, Gbar  []float64
	orig     []int // orig[p]: the training row at position p
	C, tol   float64
	unshrink bool
}

func (s *smoSolver) upper(p int) bool { return s.alpha[p] >= s.C }
func (s *smoSolver) lower(p int) bool { return s.alpha[p] <= 0 }
func (s *smoSolver) free(p int) bool  { return !s.upper(p) && !s.lower(p) }

// q returns the column of Q at position p over the first length
// positions, into buf.
func (s *smoSolver) q(p, length int) []float64 { return s.k.column(p, length) }

func (s *smoSolver) swap(p, q int) {
	s.k.swap(p, q)
	s.y[p], s.y[q] = s.y[q], s.y[p]
	s.alpha[p], s.alpha[q] = s.alpha[q], s.alpha[p]
	s.G[p], s.G[q] = s.G[q], s.G[p]
	s.Gbar[p], s.Gbar[q] = s.Gbar[q], s.Gbar[p]
	s.orig[p], s.orig[q] = s.orig[q], s.orig[p]
}

// smo solves the C-SVC dual with the equality constraint, stopping when
// the maximal KKT violation m(α) − M(α) < tol (libsvm's -e), or after
// maxIter steps.
func smo(ctx context.Context, k kmatrix, n int, y []float64, C, tol float64, maxIter int, shrink bool) (*solution, error) {
	s := &smoSolver{k: k, n: n, active: n, y: append([]float64(nil), y...), alpha: make([]float64, n),
		G: make([]float64, n), Gbar: make([]float64, n), orig: make([]int, n), C: C, tol: tol}
	shrink = shrink && k.canSwap()
	for t := range s.G {
		s.G[t] = -1
		s.orig[t] = t
	}
	res := &solution{}
	counter := min(n, 1000) + 1
	for res.iter < maxIter {
		if res.iter%1000 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if counter--; counter == 0 {
			counter = min(n, 1000)
			if shrink {
				s.shrink()
			}
		}
		i, j, done := s.selectPair()
		if done {
			// Optimal on the active set: check the whole problem.
			s.reconstruct()
			s.active = n
			if i, j, done = s.selectPair(); done {
				res.converged = true
				break
			}
			counter = 1 // shrink again at the next step
		}
		res.iter++
		s.step(i, j)
	}
	if s.active < n {
		s.reconstruct()
		s.active = n
	}
	res.b = -s.rho()
	res.obj = objective(s.alpha, s.G)
	res.alpha = make([]float64, n)
	for p, a := range s.alpha {
		res.alpha[s.orig[p]] = a
	}
	return res, nil
}

// selectPair is libsvm's WSS 2 over the active set; done reports that the
// maximal violation is below tol (or no pair improves).
func (s *smoSolver) selectPair() (i, j int, done bool) {
	y, G, m := s.y, s.G, s.active
	gmax, gmax2, objMin := math.Inf(-1), math.Inf(-1), math.Inf(1)
	i, j = -1, -1
	for t := 0; t < m; t++ {
		if y[t] > 0 {
			if !s.upper(t) && -G[t] >= gmax {
				gmax, i = -G[t], t
			}
		} else if !s.lower(t) && G[t] >= gmax {
			gmax, i = G[t], t
		}
	}
	if i < 0 {
		return -1, -1, true
	}
	Ki := s.q(i, m)
	di := s.k.diag(i)
	for t := 0; t < m; t++ {
		var gd float64
		if y[t] > 0 {
			if s.lower(t) {
				continue
			}
			gd = gmax + G[t]
			gmax2 = math.Max(gmax2, G[t])
		} else {
			if s.upper(t) {
				continue
			}
			gd = gmax - G[t]
			gmax2 = math.Max(gmax2, -G[t])
		}
		if gd > 0 {
			quad := di + s.k.diag(t) - 2*Ki[t]
			if quad <= 0 {
				quad = tau
			}
			if o := -gd * gd / quad; o <= objMin {
				objMin, j = o, t
			}
		}
	}
	if gmax+gmax2 < s.tol || j < 0 {
		return i, j, true
	}
	return i, j, false
}

// step optimizes the pair (i, j) analytically and updates G and Ḡ.
func (s *smoSolver) step(i, j int) {
	y, alpha, G, C, m := s.y, s.alpha, s.G, s.C, s.active
	Ki, Kj := s.q(i, m), s.q(j, m)
	oi, oj := alpha[i], alpha[j]
	Qij := y[i] * y[j] * Ki[j]
	if y[i] != y[j] {
		quad := s.k.diag(i) + s.k.diag(j) + 2*Qij
		if quad <= 0 {
			quad = tau
		}
		delta := (-G[i] - G[j]) / quad
		diff := alpha[i] - alpha[j]
		alpha[i] += delta
		alpha[j] += delta
		if diff > 0 {
			if alpha[j] < 0 {
				alpha[j], alpha[i] = 0, diff
			}
		} else if alpha[i] < 0 {
			alpha[i], alpha[j] = 0, -diff
		}
		if diff > 0 {
			if alpha[i] > C {
				alpha[i], alpha[j] = C, C-diff
			}
		} else if alpha[j] > C {
			alpha[j], alpha[i] = C, C+diff
		}
	} else {
		quad := s.k.diag(i) + s.k.diag(j) - 2*Qij
		if quad <= 0 {
			quad = tau
		}
		delta := (G[i] - G[j]) / quad
		sum := alpha[i] + alpha[j]
		alpha[i] -= delta
		alpha[j] += delta
		if sum > C {
			if alpha[i] > C {
				alpha[i], alpha[j] = C, sum-C
			}
		} else if alpha[j] < 0 {
			alpha[j], alpha[i] = 0, sum
		}
		if sum > C {
			if alpha[j] > C {
				alpha[j], alpha[i] = C, sum-C
			}
		} else if alpha[i] < 0 {
			alpha[i], alpha[j] = 0, sum
		}
	}
	di, dj := (alpha[i]-oi)*y[i], (alpha[j]-oj)*y[j]
	for t := 0; t < m; t++ {
		G[t] += y[t] * (Ki[t]*di + Kj[t]*dj)
	}
	// Ḡ_t = C Σ_{α_u = C} Q_tu over every position: update it when i or j
	// reaches or leaves the upper bound.
	for _, v := range [2]struct {
		p      int
		before bool
	}{{i, oi >= C}, {j, oj >= C}} {
		if now := s.upper(v.p); now != v.before {
			c := C * s.y[v.p]
			if v.before {
				c = -c
			}
			Kp := s.q(v.p, s.n)
			for t := 0; t < s.n; t++ {
				s.Gbar[t] += s.y[t] * Kp[t] * c
			}
		}
	}
}

// beShrunk reports whether the bounded variable at p stays at its bound.
func (s *smoSolver) beShrunk(p int, gmax1, gmax2 float64) bool {
	switch {
	case s.upper(p):
		if s.y[p] > 0 {
			return -s.G[p] > gmax1
		}
		return -s.G[p] > gmax2
	case s.lower(p):
		if s.y[p] > 0 {
			return s.G[p] > gmax2
		}
		return s.G[p] > gmax1
	}
	return false
}

// shrink is libsvm's do_shrinking.
func (s *smoSolver) shrink() {
	gmax1, gmax2 := math.Inf(-1), math.Inf(-1)
	for t := 0; t < s.active; t++ {
		g := s.G[t]
		if s.y[t] > 0 {
			if !s.upper(t) {
				gmax1 = math.Max(gmax1, -g)
			}
			if !s.lower(t) {
				gmax2 = math.Max(gmax2, g)
			}
		} else {
			if !s.upper(t) {
				gmax2 = math.Max(gmax2, -g)
			}
			if !s.lower(t) {
				gmax1 = math.Max(gmax1, g)
			}
		}
	}
	if !s.unshrink && gmax1+gmax2 <= s.tol*10 {
		s.unshrink = true
		s.reconstruct()
		s.active = s.n
	}
	for t := 0; t < s.active; t++ {
		if !s.beShrunk(t, gmax1, gmax2) {
			continue
		}
		s.active--
		for s.active > t {
			if !s.beShrunk(s.active, gmax1, gmax2) {
				s.swap(t, s.active)
				break
			}
			s.active--
		}
	}
}

// reconstruct recomputes the gradient of the inactive positions from Ḡ
// and the free variables (libsvm's reconstruct_gradient).
func (s *smoSolver) reconstruct() {
	m, n := s.active, s.n
	if m == n {
		return
	}
	for t := m; t < n; t++ {
		s.G[t] = s.Gbar[t] - 1
	}
	nfree := 0
	for t := 0; t < m; t++ {
		if s.free(t) {
			nfree++
		}
	}
	if nfree*n > 2*m*(n-m) {
		for i := m; i < n; i++ {
			Ki := s.q(i, m)
			var g float64
			for t := 0; t < m; t++ {
				if s.free(t) {
					g += s.alpha[t] * s.y[t] * Ki[t]
				}
			}
			s.G[i] += s.y[i] * g
		}
		return
	}
	for t := 0; t < m; t++ {
		if !s.free(t) {
			continue
		}
		Kt := s.q(t, n)
		c := s.alpha[t] * s.y[t]
		for i := m; i < n; i++ {
			s.G[i] += s.y[i] * Kt[i] * c
		}
	}
}

// rho is libsvm's calculate_rho: the average of y_t G_t over the free
// variables, or the middle of its feasible interval when none is free.
func (s *smoSolver) rho() float64 {
	ub, lb := math.Inf(1), math.Inf(-1)
	var sum float64
	nfree := 0
	for t := 0; t < s.n; t++ {
		yg := s.y[t] * s.G[t]
		switch {
		case s.upper(t):
			if s.y[t] < 0 {
				ub = math.Min(ub, yg)
			} else {
				lb = math.Max(lb, yg)
			}
		case s.lower(t):
			if s.y[t] > 0 {
				ub = math.Min(ub, yg)
			} else {
				lb = math.Max(lb, yg)
			}
		default:
			nfree++
			sum += yg
		}
	}
	if nfree > 0 {
		return sum / float64(nfree)
	}
	return (ub + lb) / 2
}

// dcd solves the kernel dual without bias (no equality constraint) by
// cyclic coordinate descent with exact clipped steps.
func dcd(ctx context.Context, k kmatrix, n int, y []float64, C, tol float64, maxIter int) (*solution, error) {
	alpha := make([]float64, n)
	G := make([]float64, n)
	for t := range G {
		G[t] = -1
	}
	res := &solution{alpha: alpha}
	steps := 0
	for res.iter = 0; steps < maxIter; res.iter++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		viol := 0.0
		for i := 0; i < n && steps < maxIter; i++ {
			steps++
			pg := G[i]
			if alpha[i] <= 0 {
				pg = math.Min(pg, 0)
			} else if alpha[i] >= C {
				pg = math.Max(pg, 0)
			}
			viol = math.Max(viol, math.Abs(pg))
			if pg == 0 {
				continue
			}
			Kii := k.diag(i)
			if Kii <= 0 {
				// k(x_i, x_i) = 0: column i of the (positive
				// semi-definite) kernel matrix is zero, the objective
				// linear in α_i, and G does not move.
				alpha[i] = 0
				if G[i] < 0 {
					alpha[i] = C
				}
				continue
			}
			old := alpha[i]
			alpha[i] = math.Min(math.Max(old-G[i]/Kii, 0), C)
			d := (alpha[i] - old) * y[i]
			if d == 0 {
				continue
			}
			Ki := k.column(i, n)
			for t := 0; t < n; t++ {
				G[t] += y[t] * Ki[t] * d
			}
		}
		if viol <= tol {
			res.converged = true
			res.iter++
			break
		}
	}
	res.obj = objective(alpha, G)
	return res, nil
}

func objective(alpha, G []float64) float64 {
	var s float64
	for t, a := range alpha {
		s += a * (G[t] - 1)
	}
	return s / 2
}
