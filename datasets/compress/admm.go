package compress

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// solver runs ADMM on the relaxed problem (2) of a problem:
//
//	minimize  λ Σ_j D_j w_j + Σ_s c(s) max_{j∈J(s)} D_j w_j  s.t. Xw ≥ 1, w ≥ 0
//
// split as f(w) (the objective and w ≥ 0) + g(z) (the indicator of
// Xz ≥ 1) with w = z, in the unscaled form of the paper's eq. (3): the
// w-step is the proximal map of f, separable by string (eq. 5); the z-step
// projects w + y/ρ onto {Xz ≥ 1} through its dual, one banded problem per
// document; then y += ρ(w − z).
//
// The w-step of a string with one pointer is a formula of that pointer's
// own variables: the z-step's sweep over a document does it, just before
// using the new w. The w-step of the strings with several pointers runs
// in the string order (see transfer), whose slot-order passes are done
// by the z-step's sweep too. Neither changes the arithmetic: the iterates
// are those of the plain w-step–z-step loop, bit for bit.
type solver struct {
	p      *problem
	lambda float64
	v      []slot    // per slot: w, z, y and D_jj side by side
	beta   []float64 // per word: the z-step's dual, ρ-free (α/ρ), warm start
	chol   []float64 // per word, k each: cached factor of H_FF for F = {β > 0}
	tau    []float64 // per string with several pointers: its last w-step level
	valid  []bool    // per document: chol holds the factor for its F
	// The w-step of the strings with several pointers works in the
	// string order (see transfer): gzy holds each pointer's z and y
	// side by side (the w-step overwrites z with the new w), gd its D_jj;
	// buf is the transfer's buffer: per position, the pointer's new w
	// from the w-step, overwritten by its z and y in the z-step.
	gzy, gd, buf []float64
	docTr        []int32 // per document: the index of its first pointer in p.tr.slots
	rho          float64
	workers      int

	maxDoc   int
	docChunk int
	wTasks   []wTask
	maxGroup int

	factors atomic.Int64 // Cholesky factorizations done by the z-step

	wScratch [][]float64 // per worker, allocated on first use
	zWork    []*work     // per worker, allocated on first use
}

// wTask is a unit of the w-step: the strings with several pointers in
// [lo, hi).
type wTask struct {
	lo, hi int
}

func newSolver(p *problem, lambda float64, workers int) *solver {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	m, k := len(p.str), p.k
	s := &solver{
		p: p, lambda: lambda, rho: 1, workers: workers,
		v:     make([]slot, m),
		beta:  make([]float64, len(p.words)),
		chol:  make([]float64, p.k*len(p.words)),
		valid: make([]bool, p.docs()),
		tau:   make([]float64, p.nMulti),
		gzy:   make([]float64, 2*p.tr.len()),
		gd:    make([]float64, p.tr.len()),
		buf:   make([]float64, 2*p.tr.len()),

		wScratch: make([][]float64, workers),
		zWork:    make([]*work, workers),
	}
	for j := range s.v {
		s.v[j].d = 1
	}
	for g := range s.gd {
		s.gd[g] = 1
	}
	s.docTr = make([]int32, p.docs()+1)
	e := 0
	for i := 0; i < p.docs(); i++ {
		s.maxDoc = max(s.maxDoc, p.start[i+1]-p.start[i])
		for e < len(p.tr.slots) && int(p.tr.slots[e]) < k*p.start[i] {
			e++
		}
		s.docTr[i] = int32(e)
	}
	s.docTr[p.docs()] = int32(len(p.tr.slots))
	// The chunks of the z-step do not depend on the number of workers:
	// its sums are reduced chunk by chunk, and ρ's adaptation depends on
	// them continuously, so a partition by workers would change the
	// iterates in their last bits.
	s.docChunk = max(1, min(64, p.docs()/16))
	const chunk = 1 << 15
	for lo := 0; lo < p.nMulti; {
		hi := lo
		for hi < p.nMulti && p.grpPtr[hi]-p.grpPtr[lo] < chunk {
			s.maxGroup = max(s.maxGroup, int(p.grpPtr[hi+1]-p.grpPtr[hi]))
			hi++
		}
		s.wTasks = append(s.wTasks, wTask{lo: lo, hi: hi})
		lo = hi
	}
	return s
}

// slot holds the ADMM variables of one candidate pointer side by side,
// as the z-step's sweep of a document reads and writes them all.
type slot struct {
	w, z, y float64
	d       float64 // the reweighting D_jj (1 while D = I)
}

// weight returns D_jj of slot j.
func (s *solver) weight(j int) float64 { return s.v[j].d }

// w returns a copy of the w of every slot.
func (s *solver) wvec() []float64 {
	out := make([]float64, len(s.v))
	for j := range s.v {
		out[j] = s.v[j].w
	}
	return out
}

// run calls fn(task, worker) for task = 0 … n−1 on s.workers goroutines
// and stops early when ctx is done or fn fails; it returns the first
// error by task order.
func (s *solver) run(ctx context.Context, n int, fn func(task, worker int) error) error {
	var next atomic.Int64
	var stop atomic.Bool
	errs := make([]error, n)
	var wg sync.WaitGroup
	for w := range min(s.workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				t := int(next.Add(1)) - 1
				if t >= n {
					return
				}
				if err := ctx.Err(); err != nil {
					errs[t] = err
					stop.Store(true)
					return
				}
				if err := fn(t, w); err != nil {
					errs[t] = err
					stop.Store(true)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// wstep sets w to the proximal map of f at z − y/ρ for the strings with
// several pointers: it moves their z and y from the buffer the last
// z-step filled to the string order, solves, and moves w back to the
// buffer, for the next z-step, which also does the w-step of the
// strings with one pointer (see zdoc).
func (s *solver) wstep(ctx context.Context) error {
	tr := s.p.tr
	if err := s.run(ctx, tr.blocks(), func(b, _ int) error {
		tr.unbin(b, s.buf, s.gzy)
		return nil
	}); err != nil {
		return err
	}
	scratch := s.wScratch
	if err := s.run(ctx, len(s.wTasks), func(t, worker int) error {
		task := s.wTasks[t]
		if scratch[worker] == nil {
			scratch[worker] = make([]float64, 2*s.maxGroup)
		}
		for str := task.lo; str < task.hi; str++ {
			s.wGroup(str, scratch[worker])
		}
		return nil
	}); err != nil {
		return err
	}
	return s.run(ctx, tr.blocks(), func(b, _ int) error {
		tr.bin(b, s.gzy, s.buf)
		return nil
	})
}

// wSingle returns the w-step of a pointer whose string, of length c, has
// no other: minimize λD w + ρ/2 (w − z + y/ρ)² + c D w over w ≥ 0.
func (s *solver) wSingle(v *slot, c, irho float64) float64 {
	return max(0, v.z-(s.lambda*v.d+v.y+c*v.d)*irho)
}

// wGroup updates the pointers of string str (eq. 5): with
// v_j = z_j − (λD_j + y_j)/ρ and a_j = D_j max(v_j, 0), the minimizer of
// ρ/2 Σ_j (w_j − v_j)² + c max_j D_j w_j over w ≥ 0 is
// w_j = min(a_j, τ)/D_j, where τ ≥ 0 solves
// φ(τ) = Σ_j (a_j − τ)₊/D_j² = c/ρ (τ = 0, w = 0, if φ(0) ≤ c/ρ).
// φ is convex, decreasing and piecewise linear: Newton's method from
// τ = 0 increases monotonically to the root and stops as soon as the set
// {a_j > τ} repeats, after at most |J(s)| steps (a few in practice).
//
// The string's pointers are positions lo … hi−1 of the string order: it
// reads their z and y from s.gzy and D from s.gd, and writes w over z.
func (s *solver) wGroup(str int, scratch []float64) {
	p := s.p
	lo, hi := int(p.grpPtr[str]), int(p.grpPtr[str+1])
	n := hi - lo
	gzy, gd := s.gzy[2*lo:2*hi], s.gd[lo:hi]
	a, id2 := scratch[:n], scratch[n:2*n]
	irho := 1 / s.rho // the hot loops multiply
	target := float64(p.strLen[str]) * irho
	phi := 0.0
	for i, d := range gd {
		v := gzy[2*i] - (s.lambda*d+gzy[2*i+1])*irho
		id2[i] = 1 / (d * d)
		a[i] = 0
		if v > 0 {
			a[i] = d * v
			phi += a[i] * id2[i]
		}
	}
	if phi <= target {
		for i := range n {
			gzy[2*i] = 0
		}
		return
	}
	// Start from the last iteration's τ; if it is past the root, one
	// Newton step back lands left of it (φ is convex), or start at 0.
	tau := s.tau[str]
	if tau > 0 {
		s1, s2 := 0.0, 0.0
		for i := range a {
			if a[i] > tau {
				s1 += a[i] * id2[i]
				s2 += id2[i]
			}
		}
		if phi := s1 - tau*s2; phi < target {
			if s2 > 0 {
				tau = max(0, tau-(target-phi)/s2)
			} else {
				tau = 0
			}
		}
	}
	prev := -1
	for range n + 2 {
		s1, s2, cnt := 0.0, 0.0, 0
		for i := range a {
			if a[i] > tau {
				s1 += a[i] * id2[i]
				s2 += id2[i]
				cnt++
			}
		}
		next := (s1 - target) / s2
		if cnt == prev || next <= tau {
			tau = max(tau, next)
			break
		}
		tau, prev = next, cnt
	}
	s.tau[str] = tau
	for i, d := range gd {
		gzy[2*i] = min(a[i], tau) / d
	}
}

// residuals are the sums a z-step accumulates over its documents.
type residuals struct {
	primal, dual, w, z, y float64 // Σ(w−z)², Σ(z−z_old)², Σw², Σz², Σy²
}

// zstep sets z to the projection of w + y/ρ onto {Xz ≥ 1} and updates y,
// document by document in parallel. The sums are reduced in a fixed order,
// so the iteration is deterministic whatever the number of workers.
func (s *solver) zstep(ctx context.Context) (residuals, error) {
	p := s.p
	chunks := (p.docs() + s.docChunk - 1) / s.docChunk
	parts := make([]residuals, chunks)
	ws := s.zWork
	err := s.run(ctx, chunks, func(c, worker int) error {
		if ws[worker] == nil {
			ws[worker] = newWork(s.maxDoc, p.k)
		}
		for i := c * s.docChunk; i < min(p.docs(), (c+1)*s.docChunk); i++ {
			if err := s.zdoc(i, ws[worker], &parts[c]); err != nil {
				return fmt.Errorf("document %d: %w", i, err)
			}
		}
		return nil
	})
	var r residuals
	for _, q := range parts {
		r.primal += q.primal
		r.dual += q.dual
		r.w += q.w
		r.z += q.z
		r.y += q.y
	}
	return r, err
}

// zdoc is the z-step and y-update of document i: with u = w + y/ρ and
// r = 1 − Xu, solve min ½βᵀHβ − βᵀr over β ≥ 0 (the paper's eq. (6) with
// α = ρβ), then z = u + Xᵀβ. It first sets w: by the w-step of a pointer
// whose string has no other, from its transfer buffer position for the
// others (whose z and y it then leaves there for the next w-step).
func (s *solver) zdoc(i int, ws *work, acc *residuals) error {
	p := s.p
	k := p.k
	lo, hi := p.start[i], p.start[i+1]
	n := hi - lo
	if n == 0 {
		return nil
	}
	rho := s.rho
	irho := 1 / rho // the hot loops multiply
	nm := int32(p.nMulti)
	buf := s.buf
	pos := p.tr.pos[s.docTr[i]:s.docTr[i+1]]
	u, at := ws.u[:k*n], ws.at[:k*n]
	e := 0
	for a := 0; a < n; a++ {
		base := k * (lo + a)
		for t := 1; t <= min(k, n-a); t++ {
			j := base + t - 1
			v := &s.v[j]
			if p.str[j] < nm {
				b := 2 * pos[e]
				e++
				at[k*a+t-1] = b
				v.w = buf[b]
			} else {
				at[k*a+t-1] = -1
				v.w = s.wSingle(v, float64(t), irho)
			}
			u[k*a+t-1] = v.w + v.y*irho
		}
	}
	r := ws.r[:n]
	for a := range r {
		r[a] = 1
	}
	// (Xu)_b = Σ over slots (a, t) with a ≤ b < a+t: word a+t−1 gets the
	// suffix sum Σ_{t' ≥ t} u_{a,t'}.
	for a := 0; a < n; a++ {
		sum := 0.0
		for t := min(k, n-a); t >= 1; t-- {
			sum += u[k*a+t-1]
			r[a+t-1] -= sum
		}
	}
	f, ok, err := nnqp(s.beta[lo:hi], r, s.chol[k*lo:k*hi], s.valid[i], n, k, ws)
	s.valid[i] = ok
	s.factors.Add(int64(f))
	if err != nil {
		return err
	}
	beta := s.beta[lo:hi]
	// The sums in locals (the same additions in the same order).
	r2, s2, w2, z2, y2 := acc.primal, acc.dual, acc.w, acc.z, acc.y
	for a := 0; a < n; a++ {
		vs := s.v[k*(lo+a):]
		cum := 0.0
		for t := 1; t <= min(k, n-a); t++ {
			cum += beta[a+t-1]
			v := &vs[t-1]
			w := v.w
			z := u[k*a+t-1] + cum // w + y/ρ + cum
			dz := z - v.z
			v.z = z
			y := v.y + rho*(w-z)
			v.y = y
			if e := at[k*a+t-1]; e >= 0 {
				buf[e], buf[e+1] = z, y
			}
			r2 += (w - z) * (w - z)
			s2 += dz * dz
			w2 += w * w
			z2 += z * z
			y2 += y * y
		}
	}
	acc.primal, acc.dual, acc.w, acc.z, acc.y = r2, s2, w2, z2, y2
	return nil
}

// admm solves (2) for the current weights to relative tolerance tol (the
// stopping rule of Boyd et al. §3.3.1 with ε_abs = ε_rel = tol), adapting
// ρ by residual balancing (§3.4.1) at powers of two, from the current w, z, y. It returns
// the number of iterations.
func (s *solver) admm(ctx context.Context, tol float64, maxIter int) (int, error) {
	sqrtM := math.Sqrt(float64(s.p.live))
	for it := 1; it <= maxIter; it++ {
		if err := s.wstep(ctx); err != nil {
			return it, err
		}
		old := s.rho
		r, err := s.zstep(ctx)
		if err != nil {
			return it, err
		}
		primal := math.Sqrt(r.primal)
		dual := old * math.Sqrt(r.dual)
		epsPri := sqrtM*tol + tol*math.Sqrt(max(r.w, r.z))
		epsDual := sqrtM*tol + tol*math.Sqrt(r.y)
		if primal <= epsPri && dual <= epsDual {
			return it, nil
		}
		// Residual balancing, only at iterations 2, 4, 8, …: a ρ changed at
		// every iteration can cycle (it did on small corpora), while a
		// finite number of changes in the first iterations keeps ADMM's
		// convergence and still finds the scale.
		if it&(it-1) == 0 && (primal > 10*dual || dual > 10*primal) {
			s.rho *= min(10, max(0.1, math.Sqrt(primal/dual)))
		}
	}
	return maxIter, nil
}

// objective returns the objective of (2) at w, with the weights when
// weighted, else with D = I (the storage cost of problem (1)).
func (s *solver) objective(weighted bool) float64 {
	p := s.p
	weight := func(j int) float64 {
		if !weighted {
			return 1
		}
		return s.v[j].d
	}
	obj := 0.0
	nm := int32(p.nMulti)
	m := make([]float64, p.nMulti) // max_j D_j w_j per string
	for j, str := range p.str {
		if str < 0 {
			continue
		}
		v := weight(j) * s.v[j].w
		obj += s.lambda * v
		if str >= nm {
			obj += float64(p.strLen[str]) * v
		} else {
			m[str] = max(m[str], v)
		}
	}
	for str, v := range m {
		obj += float64(p.strLen[str]) * v
	}
	return obj
}

// reweight sets D_jj = max{1, (w_j + ε)⁻¹}.
func (s *solver) reweight(eps float64) {
	for j := range s.v {
		v := &s.v[j]
		v.d = max(1, 1/(max(v.w, 0)+eps))
	}
	s.p.tr.gather(s.gd, func(j int) float64 { return s.v[j].d })
}
