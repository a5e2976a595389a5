package hp

import (
	"context"
	"math"
	"sort"

	"github.com/repro-ml/repro/methods/lsq"
	"gonum.org/v1/gonum/mat"
)

// Options controls Solve.
type Options struct {
	// Tol is the optimality tolerance relative to ‖∇L(0)‖∞ = 2‖Xsᵀys‖∞:
	// the active-set subproblem stops when its gradient is below
	// Tol·‖∇L(0)‖∞ and an inactive variable violates its condition when it
	// does by more than 10·Tol·‖∇L(0)‖∞. 0 means 1e-10.
	Tol float64
	// MaxIter caps the total number of Newton steps; 0 means 20000.
	MaxIter int
	// Batch makes step D add, besides the paper's single best variable,
	// every violating variable of the groups that are already active (those
	// must all enter by optimality condition 2): the same fixed point with
	// far fewer Newton solves when groups are large (kernel-hp).
	Batch bool
}

func (o Options) norm() Options {
	if o.Tol == 0 {
		o.Tol = 1e-10
	}
	if o.MaxIter == 0 {
		o.MaxIter = 20000
	}
	return o
}

// Solution is the result of Solve, on the design's (standardized) scale.
type Solution struct {
	Beta      []float64
	Newton    int  // Newton steps (step A) taken
	Entered   int  // variables added in step D
	Dropped   int  // variables removed in step B
	Converged bool // the optimality conditions hold to tolerance
	Objective float64
}

// Objective returns the hp criterion (3) on ds:
// ‖ys − Xs β‖² + ν Σ_k d_k^{1/4} (Σ_{j∈J_k} |β_j|^{4/3})^{3/4}.
func Objective(ds *lsq.Design, groups [][]int, beta []float64, nu float64) float64 {
	return ds.RSS(beta) + nu*Penalty(groups, beta)
}

// Penalty returns Σ_k d_k^{1/4} (Σ_{j∈J_k} |β_j|^{4/3})^{3/4}.
func Penalty(groups [][]int, beta []float64) float64 {
	p := 0.0
	sub := []float64{}
	for _, g := range groups {
		sub = sub[:0]
		for _, j := range g {
			sub = append(sub, beta[j])
		}
		p += lsq.HPNorm(sub)
	}
	return p
}

// Violations are the largest violations of the three first-order optimality
// conditions of problem (3) (Szafranski et al. 2007, §2.3) at a point, in
// the units of the loss gradient ∇L = 2(Gram β − XtY):
//
//  1. a group that is all zero: max(0, ‖∂L/∂β_k‖₄ − ν d_k^{1/4}). The paper
//     states this coordinate-wise, |∂L/∂β_j| ≤ ν d_k^{1/4} (PaperZeroGroup),
//     which is necessary but not sufficient: the subdifferential of the
//     ℓ_{4/3} norm at zero is the unit ball of its dual norm, ℓ4;
//  2. β_j = 0 in a group with a non-zero member: |∂L/∂β_j|;
//  3. β_j ≠ 0: |∂L/∂β_j + ν d_k^{1/4} sign(β_j)(1 + Σ_{ℓ≠j}|β_ℓ|^{4/3}/|β_j|^{4/3})^{−1/4}|.
type Violations struct {
	ZeroGroup, ZeroInActive, NonZero float64
	PaperZeroGroup                   float64 // the paper's coordinate-wise form of condition 1
}

// Max returns the largest of the three violations.
func (v Violations) Max() float64 { return max(v.ZeroGroup, v.ZeroInActive, v.NonZero) }

// Optimality evaluates the three optimality conditions at beta.
func Optimality(ds *lsq.Design, groups [][]int, beta []float64, nu float64) Violations {
	g := lossGrad(ds, beta)
	var v Violations
	for _, grp := range groups {
		w := nu * math.Pow(float64(len(grp)), 0.25)
		s := 0.0
		for _, j := range grp {
			s += math.Pow(math.Abs(beta[j]), 4.0/3)
		}
		if s == 0 {
			n4 := 0.0
			for _, j := range grp {
				n4 += g[j] * g[j] * g[j] * g[j]
			}
			v.ZeroGroup = math.Max(v.ZeroGroup, math.Pow(n4, 0.25)-w)
		}
		for _, j := range grp {
			switch {
			case s == 0:
				v.PaperZeroGroup = math.Max(v.PaperZeroGroup, math.Abs(g[j])-w)
			case beta[j] == 0:
				v.ZeroInActive = math.Max(v.ZeroInActive, math.Abs(g[j]))
			default:
				ratio := (s - math.Pow(math.Abs(beta[j]), 4.0/3)) / math.Pow(math.Abs(beta[j]), 4.0/3)
				pen := w * math.Copysign(1, beta[j]) * math.Pow(1+ratio, -0.25)
				v.NonZero = math.Max(v.NonZero, math.Abs(g[j]+pen))
			}
		}
	}
	return v
}

// lossGrad returns ∇L = 2(Gram β − XtY).
func lossGrad(ds *lsq.Design, beta []float64) []float64 {
	g := make([]float64, ds.D)
	ds.GramTimes(g, beta)
	for j := range g {
		g[j] = 2 * (g[j] - ds.XtY[j])
	}
	return g
}

type solver struct {
	ds      *lsq.Design
	groups  [][]int
	groupOf []int
	w       []float64 // ν d_k^{1/4}
	nu      float64
	beta    []float64
	active  []bool
	opt     Options
	tol     float64 // absolute gradient tolerance
	sol     Solution
}

// Solve minimizes ‖ys − Xs β‖² + ν Σ_k d_k^{1/4}(Σ_{j∈J_k}|β_j|^{4/3})^{3/4}
// on ds, where groups partitions the columns, with the active-set algorithm
// of Szafranski et al. (2007, §3):
//
//	A) on the active set A (the non-zero variables) with their signs held,
//	   the criterion is twice differentiable; take a damped Newton step h
//	   (Hessian of the loss plus that of the penalty, Jacobi-scaled Cholesky,
//	   Armijo backtracking);
//	B) if a sign would flip, step only to the first zero crossing and drop
//	   that variable from A (the variable re-enters in D with the opposite
//	   sign if it must); repeat A until the gradient on A vanishes;
//	C) test the optimality of the inactive variables (conditions 1 and 2 of
//	   Violations); stop if they hold;
//	D) add the violating variable maximizing d_k^{−1/4}|∂L/∂β_ℓ| with sign
//	   −sign(∂L/∂β_ℓ), at the minimizer of the criterion along that
//	   coordinate (a scalar convex root), and go to A.
//
// It starts from A = ∅. It returns ctx.Err() when cancelled; reaching
// MaxIter is reported by Converged = false.
func Solve(ctx context.Context, ds *lsq.Design, groups [][]int, nu float64, opt Options) (*Solution, error) {
	opt = opt.norm()
	s := &solver{ds: ds, groups: groups, groupOf: make([]int, ds.D), w: make([]float64, len(groups)), nu: nu,
		beta: make([]float64, ds.D), active: make([]bool, ds.D), opt: opt}
	for j := range s.groupOf {
		s.groupOf[j] = -1
	}
	for k, g := range groups {
		s.w[k] = nu * math.Pow(float64(len(g)), 0.25)
		for _, j := range g {
			s.groupOf[j] = k
		}
	}
	for j, k := range s.groupOf {
		if k < 0 {
			panic("hp: Solve: column " + itoa(j) + " is in no group")
		}
	}
	scale := 0.0
	for _, c := range ds.XtY {
		scale = math.Max(scale, 2*math.Abs(c))
	}
	s.tol = opt.Tol * math.Max(scale, 1e-300)
	if err := s.run(ctx); err != nil {
		return nil, err
	}
	s.sol.Beta = s.beta
	s.sol.Objective = Objective(ds, groups, s.beta, nu)
	return &s.sol, nil
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

func (s *solver) run(ctx context.Context) error {
	d := s.ds.D
	groupSum := make([]float64, len(s.groups)) // Σ|β|^{4/3} over the group
	for outer := 0; ; outer++ {
		if err := s.inner(ctx); err != nil {
			return err
		}
		if s.sol.Newton >= s.opt.MaxIter {
			return nil
		}
		// C: optimality of the inactive variables.
		g := lossGrad(s.ds, s.beta)
		for k := range groupSum {
			groupSum[k] = 0
		}
		for j := 0; j < d; j++ {
			if s.beta[j] != 0 {
				groupSum[s.groupOf[j]] += math.Pow(math.Abs(s.beta[j]), 4.0/3)
			}
		}
		tolC := 10 * s.tol
		// Candidates: a variable of an active group (condition 2: its loss
		// gradient must vanish), or a whole zero group whose loss gradient
		// leaves the ℓ4 ball of radius ν d_k^{1/4} (condition 1 in its exact
		// form). Scored by d_k^{−1/4}|∂L/∂β| (d_k^{−1/4}‖∂L/∂β_k‖₄ for a zero group).
		bestVar, bestGroup, bestScore := -1, -1, 0.0
		var batch []int
		for k, grp := range s.groups {
			q := math.Pow(float64(len(grp)), 0.25)
			if groupSum[k] == 0 {
				if n4 := norm4(g, grp, s.ds, d); n4 > s.w[k]+tolC && n4/q > bestScore {
					bestVar, bestGroup, bestScore = -1, k, n4/q
				}
				continue
			}
			for _, j := range grp {
				if s.active[j] || s.ds.Gram[j*d+j] <= 0 {
					continue
				}
				if a := math.Abs(g[j]); a > tolC {
					if s.opt.Batch {
						batch = append(batch, j)
					}
					if a/q > bestScore {
						bestVar, bestGroup, bestScore = j, -1, a/q
					}
				}
			}
		}
		if bestVar < 0 && bestGroup < 0 {
			s.sol.Converged = true
			return nil
		}
		entered := 0
		if bestGroup >= 0 {
			entered += s.enterGroup(bestGroup, g, groupSum)
		}
		// D: enter the best violator (and, in batch mode, every violator of
		// an active group) at its coordinate-wise minimizer.
		var enter []int
		if bestVar >= 0 {
			enter = append(enter, bestVar)
		}
		for _, j := range batch {
			if j != bestVar {
				enter = append(enter, j)
			}
		}
		for _, j := range enter {
			k := s.groupOf[j]
			t := s.enterValue(math.Abs(g[j]), s.ds.Gram[j*d+j], groupSum[k], s.w[k])
			if t <= 0 {
				continue
			}
			delta := -math.Copysign(t, g[j])
			s.beta[j] = delta
			s.active[j] = true
			groupSum[k] += math.Pow(t, 4.0/3)
			col := s.ds.Gram[j*d : (j+1)*d]
			for i := range g {
				g[i] += 2 * col[i] * delta
			}
			entered++
		}
		s.sol.Entered += entered
		if entered == 0 {
			return nil // tolerance too tight for the arithmetic: not converged
		}
	}
}

// norm4 returns the ℓ4 norm of g over the non-constant columns of grp.
func norm4(g []float64, grp []int, ds *lsq.Design, d int) float64 {
	s := 0.0
	for _, j := range grp {
		if ds.Gram[j*d+j] > 0 {
			s += g[j] * g[j] * g[j] * g[j]
		}
	}
	return math.Pow(s, 0.25)
}

// enterGroup makes the zero group k active along its steepest-descent
// direction v_j ∝ −sign(g_j)|g_j|³ with ‖v‖_{4/3} = 1 (the direction that
// attains −‖g_k‖₄ in ∇Lᵀv), at the exact minimizer along v:
// t = (‖g_k‖₄ − ν d_k^{1/4}) / (2 vᵀG_kk v). It updates g and groupSum and
// returns the number of variables entered.
func (s *solver) enterGroup(k int, g, groupSum []float64) int {
	d := s.ds.D
	grp := s.groups[k]
	n4 := norm4(g, grp, s.ds, d)
	v := make([]float64, len(grp))
	for a, j := range grp {
		if s.ds.Gram[j*d+j] > 0 {
			v[a] = -math.Copysign(g[j]*g[j]*g[j], g[j]) / (n4 * n4 * n4)
		}
	}
	vGv := 0.0
	for a, i := range grp {
		for b, j := range grp {
			vGv += v[a] * s.ds.Gram[i*d+j] * v[b]
		}
	}
	if vGv <= 0 {
		return 0
	}
	t := (n4 - s.w[k]) / (2 * vGv)
	entered := 0
	for a, j := range grp {
		delta := t * v[a]
		if delta == 0 {
			continue
		}
		s.beta[j] = delta
		s.active[j] = true
		groupSum[k] += math.Pow(math.Abs(delta), 4.0/3)
		col := s.ds.Gram[j*d : (j+1)*d]
		for i := range g {
			g[i] += 2 * col[i] * delta
		}
		entered++
	}
	return entered
}

// enterValue returns the t ≥ 0 minimizing −a t + G t² + w (S + t^{4/3})^{3/4},
// the criterion along an entering coordinate whose loss gradient has
// magnitude a, Gram diagonal G, in a group of current Σ|β|^{4/3} = S.
func (s *solver) enterValue(a, gjj, S, w float64) float64 {
	dphi := func(t float64) float64 {
		v := -a + 2*gjj*t
		if t > 0 {
			v += w * math.Cbrt(t) * math.Pow(S+math.Pow(t, 4.0/3), -0.25)
		}
		return v
	}
	lo, hi := 0.0, a/(2*gjj)
	for it := 0; it < 200 && hi > lo; it++ {
		mid := 0.5 * (lo + hi)
		if mid == lo || mid == hi {
			break
		}
		if dphi(mid) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return 0.5 * (lo + hi)
}

// activeList returns the active variables in increasing order.
func (s *solver) activeList() []int {
	var a []int
	for j, on := range s.active {
		if on {
			a = append(a, j)
		}
	}
	return a
}

// groupTerms returns, for each group with an active member, its penalty
// term ν d_k^{1/4}(Σ|γ_j|^{4/3})^{3/4} at the active coordinates gamma.
func (s *solver) groupTerms(A []int, gamma []float64) map[int]float64 {
	sums := map[int]float64{}
	for a, j := range A {
		sums[s.groupOf[j]] += math.Pow(math.Abs(gamma[a]), 4.0/3)
	}
	for k, v := range sums {
		sums[k] = s.w[k] * math.Pow(v, 0.75)
	}
	return sums
}

// inner runs steps A and B until the gradient on the active set vanishes.
func (s *solver) inner(ctx context.Context) error {
	d := s.ds.D
	stalls := 0
	for s.sol.Newton < s.opt.MaxIter {
		if s.sol.Newton%16 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		A := s.activeList()
		m := len(A)
		if m == 0 {
			return nil
		}
		gamma := make([]float64, m)
		for a, j := range A {
			gamma[a] = s.beta[j]
		}
		// Gradient and Hessian of the criterion on A.
		grad := make([]float64, m)
		gv := make([]float64, m) // (Gram γ)_a
		H := mat.NewSymDense(m, nil)
		for a, i := range A {
			v := 0.0
			for b, j := range A {
				gij := s.ds.Gram[i*d+j]
				v += gij * gamma[b]
				if b >= a {
					H.SetSym(a, b, 2*gij)
				}
			}
			grad[a] = 2 * (v - s.ds.XtY[i])
			gv[a] = v
		}
		byGroup := map[int][]int{} // positions in A of each group's members
		for a, j := range A {
			byGroup[s.groupOf[j]] = append(byGroup[s.groupOf[j]], a)
		}
		keys := make([]int, 0, len(byGroup))
		for k := range byGroup {
			keys = append(keys, k)
		}
		sort.Ints(keys)
		for _, k := range keys {
			pos := byGroup[k]
			S := 0.0
			for _, a := range pos {
				S += math.Pow(math.Abs(gamma[a]), 4.0/3)
			}
			s14 := math.Pow(S, -0.25)
			s54 := s14 / S
			u := make([]float64, len(pos))
			for i, a := range pos {
				u[i] = math.Copysign(math.Cbrt(math.Abs(gamma[a])), gamma[a])
				grad[a] += s.w[k] * s14 * u[i]
			}
			for i, a := range pos {
				for l, b := range pos {
					if b < a {
						continue
					}
					h := -s54 * u[i] * u[l] / 3
					if a == b {
						h += s14 * math.Pow(math.Abs(gamma[a]), -2.0/3) / 3
					}
					H.SetSym(a, b, H.At(a, b)+s.w[k]*h)
				}
			}
		}
		gmax := 0.0
		for _, v := range grad {
			gmax = math.Max(gmax, math.Abs(v))
		}
		if gmax <= s.tol {
			return nil
		}
		h := newtonDirection(H, grad)
		slope := 0.0
		for a := range h {
			slope += grad[a] * h[a]
		}
		if slope >= 0 { // not a descent direction: fall back to scaled gradient
			for a := range h {
				h[a] = -grad[a] / math.Max(H.At(a, a), 1e-300)
			}
			slope = 0
			for a := range h {
				slope += grad[a] * h[a]
			}
		}
		// Group drop: if zero is the exact minimizer of the criterion over a
		// whole active group given the others (‖∇_k L(β with β_k = 0)‖₄ ≤
		// ν d_k^{1/4}), set the group to zero. This is a block-coordinate
		// descent step; without it a group that must vanish shrinks towards
		// zero geometrically under sign-constrained Newton steps.
		if s.dropGroups(A, gamma) {
			s.sol.Newton++
			continue
		}
		// B: the largest step keeping every sign, and the variable reaching zero.
		mu, hit := math.Inf(1), -1
		for a := range h {
			if h[a]*gamma[a] < 0 {
				if t := -gamma[a] / h[a]; t < mu {
					mu, hit = t, a
				}
			}
		}
		// Loss part of the decrease, exact without cancellation:
		// L(γ+th) − L(γ) = t·∇Lᵀh + t²·hᵀGh.
		lossSlope, hGh := 0.0, 0.0
		for a, i := range A {
			v := 0.0
			for b, j := range A {
				v += s.ds.Gram[i*d+j] * h[b]
			}
			hGh += h[a] * v
			lossSlope += h[a] * 2 * (gv[a] - s.ds.XtY[i])
		}
		pen0 := s.groupTerms(A, gamma)
		// B, projected form: if the full Newton step flips signs, first try
		// it with every flipping variable set to zero and dropped (as
		// orthant-wise methods do), accepted on sufficient decrease; else
		// fall back to the paper's step to the first zero crossing.
		if mu < 1 {
			trial := make([]float64, m)
			var drops []int
			dlin, dq := 0.0, 0.0
			delta := make([]float64, m)
			for a := range trial {
				trial[a] = gamma[a] + h[a]
				if trial[a]*gamma[a] <= 0 {
					trial[a] = 0
					drops = append(drops, a)
				}
				delta[a] = trial[a] - gamma[a]
				dlin += grad[a] * delta[a]
			}
			lossLin := 0.0
			for a, i := range A {
				v := 0.0
				for b, j := range A {
					v += s.ds.Gram[i*d+j] * delta[b]
				}
				dq += delta[a] * v
				lossLin += delta[a] * 2 * (gv[a] - s.ds.XtY[i])
			}
			df := lossLin + dq
			for k, v := range s.groupTerms(A, trial) {
				df += v - pen0[k]
			}
			if dlin < 0 && df <= 1e-4*dlin {
				s.sol.Newton++
				for a, j := range A {
					s.beta[j] = trial[a]
				}
				for _, a := range drops {
					s.beta[A[a]] = 0
					s.active[A[a]] = false
				}
				s.sol.Dropped += len(drops)
				continue
			}
		}
		t := math.Min(1, mu)
		trial := make([]float64, m)
		crossed := false
		var df float64
		for {
			crossed = t == mu
			for a := range trial {
				trial[a] = gamma[a] + t*h[a]
			}
			if crossed {
				trial[hit] = 0
			}
			df = t*lossSlope + t*t*hGh
			for k, v := range s.groupTerms(A, trial) {
				df += v - pen0[k]
			}
			if df <= 1e-4*t*slope {
				break
			}
			t *= 0.5
			if t < 1e-14 {
				// No decrease possible at this precision: the subproblem is
				// solved as far as the arithmetic allows.
				s.sol.Newton++
				return nil
			}
		}
		// Stalled: three steps in a row whose decrease is below the
		// resolution of the criterion.
		if !crossed && -df <= 1e-15*math.Max(s.ds.YtY, 1e-300) {
			stalls++
		} else {
			stalls = 0
		}
		same := !crossed
		for a := range trial {
			if trial[a] != gamma[a] {
				same = false
			}
		}
		if same || stalls >= 3 {
			s.sol.Newton++
			return nil // stalled at the precision of the arithmetic
		}
		s.sol.Newton++
		for a, j := range A {
			s.beta[j] = trial[a]
		}
		if crossed {
			s.beta[A[hit]] = 0
			s.active[A[hit]] = false
			s.sol.Dropped++
		}
	}
	return nil
}

// dropGroups zeroes every active group for which zero is the block
// minimizer given the other coefficients, and reports whether it did.
func (s *solver) dropGroups(A []int, gamma []float64) bool {
	d := s.ds.D
	inGroup := map[int][]int{} // group → positions in A
	for a, j := range A {
		inGroup[s.groupOf[j]] = append(inGroup[s.groupOf[j]], a)
	}
	dropped := false
	for k, pos := range inGroup {
		// ∇_k L at β with β_k = 0: 2(G_k,· β − G_kk β_k − c_k).
		n4 := 0.0
		for _, j := range s.groups[k] {
			v := -s.ds.XtY[j]
			row := s.ds.Gram[j*d:]
			for a, i := range A {
				if s.groupOf[i] != k {
					v += row[i] * gamma[a]
				}
			}
			v *= 2
			n4 += v * v * v * v
		}
		if math.Pow(n4, 0.25) <= s.w[k] {
			for _, a := range pos {
				s.beta[A[a]] = 0
				s.active[A[a]] = false
				gamma[a] = 0
			}
			s.sol.Dropped += len(pos)
			dropped = true
		}
	}
	return dropped
}

// newtonDirection solves H h = −g by Cholesky of the Jacobi-scaled H (the
// penalty's curvature grows like |β_j|^{−2/3} for small coefficients, so
// the scaling matters), adding a growing ridge if H is numerically singular.
func newtonDirection(H *mat.SymDense, g []float64) []float64 {
	m := len(g)
	dsc := make([]float64, m)
	for a := 0; a < m; a++ {
		dsc[a] = 1 / math.Sqrt(math.Max(H.At(a, a), 1e-300))
	}
	hs := mat.NewSymDense(m, nil)
	for a := 0; a < m; a++ {
		for b := a; b < m; b++ {
			hs.SetSym(a, b, H.At(a, b)*dsc[a]*dsc[b])
		}
	}
	rhs := mat.NewVecDense(m, nil)
	for a := 0; a < m; a++ {
		rhs.SetVec(a, -g[a]*dsc[a])
	}
	var ch mat.Cholesky
	var y mat.VecDense
	for ridge := 0.0; ridge < 1; ridge = math.Max(ridge*100, 1e-12) {
		if ridge > 0 {
			for a := 0; a < m; a++ {
				hs.SetSym(a, a, hs.At(a, a)+ridge)
			}
		}
		if ch.Factorize(hs) && ch.SolveVecTo(&y, rhs) == nil {
			h := make([]float64, m)
			for a := 0; a < m; a++ {
				h[a] = y.AtVec(a) * dsc[a]
			}
			return h
		}
	}
	h := make([]float64, m)
	for a := 0; a < m; a++ {
		h[a] = -g[a] * dsc[a] * dsc[a]
	}
	return h
}
