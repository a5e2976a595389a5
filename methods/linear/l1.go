package linear

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
)

// denseColumnFill is the fraction of non-zeros above which a dense feature
// matrix keeps dense columns for coordinate descent; below it the zeros
// are dropped (a sparse column costs an index load per element, a dense one
// a multiply by zero). Measured: at 25% fill (DNA indicator bits) sparse
// columns are 3× faster, at 50% dense ones 1.3× faster.
const denseColumnFill = 0.35

// colMajor is a feature matrix stored by columns, for coordinate descent:
// the transpose of a CSR matrix is the CSR form of its columns, and the
// transpose of a dense one is its column-major copy. A dense matrix with
// few non-zeros (fill ≤ denseColumnFill) is stored in the sparse form.
// Sparse columns use 32-bit row indices (half the memory traffic of int),
// and a column whose non-zeros are all 1 (indicator features, a constant
// column) is marked so that its values need not be read.
type colMajor struct {
	n, d  int
	dense []float64 // d×n row-major when the columns are dense
	ptr   []int     // sparse: column j is ind/val[ptr[j]:ptr[j+1]]
	ind   []int32
	val   []float64
	ones  []bool      // sparse: every stored value of column j is 1
	rows  *matrix.CSR // sparse: the same matrix by rows (X itself when it is CSR)
}

func newColMajor(X matrix.Matrix) *colMajor {
	n, d := X.Dims()
	if n > math.MaxInt32 {
		panic(fmt.Sprintf("linear: %d rows exceed the 32-bit row index of the column store", n))
	}
	c := &colMajor{n: n, d: d}
	x, ok := X.(*matrix.Dense)
	if ok && n*d > 0 {
		nnz := 0
		for _, v := range x.RawData() {
			if v != 0 {
				nnz++
			}
		}
		ok = float64(nnz) > denseColumnFill*float64(n*d)
	}
	if ok {
		c.dense = x.T().RawData()
		return c
	}
	c.rows = matrix.ToCSR(X)
	t := c.rows.T()
	c.ptr, c.ind, c.val = t.Ptr, t.Ind, t.Val
	c.ones = make([]bool, d)
	for j := range c.ones {
		c.ones[j] = true
		for _, v := range c.val[c.ptr[j]:c.ptr[j+1]] {
			if v != 1 {
				c.ones[j] = false
				break
			}
		}
	}
	return c
}

// col returns column j as (row indices, values); ind is nil for a dense
// column, whose k-th value is row k.
func (c *colMajor) col(j int) (ind []int32, val []float64) {
	if c.dense != nil || c.ptr == nil {
		return nil, c.dense[j*c.n : (j+1)*c.n]
	}
	lo, hi := c.ptr[j], c.ptr[j+1]
	return c.ind[lo:hi], c.val[lo:hi]
}

// isOnes reports whether every entry of column j is 1.
func (c *colMajor) isOnes(j int) bool {
	if c.n == 0 {
		return false
	}
	if c.dense == nil {
		return c.ones[j] && c.ptr[j+1]-c.ptr[j] == c.n
	}
	for _, v := range c.dense[j*c.n : (j+1)*c.n] {
		if v != 1 {
			return false
		}
	}
	return true
}

// l1Settings configures fitL1.
type l1Settings struct {
	C         float64
	Intercept bool
	MaxIter   int     // outer (Newton) iterations
	Tol       float64 // stop when the minimum-norm subgradient's ∞-norm ≤ Tol

	// noShrink disables both levels of shrinking (every coordinate is
	// visited in every coordinate-descent pass); for tests.
	noShrink bool
	// gram forces (gramAlways) or forbids (gramNever) the explicit model
	// Hessian on the active set; for tests. The default chooses by cost.
	gram gramMode
	// noDirect disables the subspace Newton steps of coordinate descent
	// on the explicit model Hessian; for tests.
	noDirect bool
}

// directGap is the least number of coordinate-descent passes between two
// subspace Newton steps (modelGram.subspaceStep) in one inner solve.
const directGap = 8

// minDivD is the least curvature Dᵢ from which fitL1 recovers (Xδ)ᵢ as
// (D∘Xδ)ᵢ/Dᵢ; below it (margins beyond about ±500) the products lose
// precision and the row is summed again.
const minDivD = 1e-200

// sign returns −1, 0 or 1 as v is negative, zero or positive.
func sign(v float64) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// gramMode selects coordinate descent over the columns or over the
// explicit model Hessian (modelGram).
type gramMode int

const (
	gramAuto gramMode = iota
	gramNever
	gramAlways
)

// useModelGram decides whether an inner solve runs on the explicit model
// Hessian of the active feature coordinates. Over the columns, a pass
// costs two random accesses per active non-zero (nnzA); over the Hessian,
// an axpy of length m per coordinate (m² streaming multiply-adds, about a
// tenth of a random access each) after building it in Σᵢ kᵢ² scattered
// multiply-adds. The number of passes is predicted by fitL1 from the
// previous inner solves (predPasses); the first outer iteration always
// uses the columns. It marks the active set in g when it returns true.
func useModelGram(mode gramMode, g *modelGram, c *colMajor, active []int, bj, nnzA, predPasses int) bool {
	m := 0
	for _, j := range active {
		if j != bj && j < c.d {
			m++
		}
	}
	if m == 0 || m > gramDim(c.n, c.d) {
		return false
	}
	saving := predPasses * (2*nnzA - m*m/10)
	if mode != gramAlways && saving <= 0 {
		return false
	}
	g.mark(active, bj)
	if mode == gramAlways {
		return true
	}
	return g.cost(c) < saving
}

// l1Trace, when set (by tests), is called after every inner solve.

// l1Seed seeds the random order of the coordinate-descent passes: fitL1 is
// deterministic, and the optimum does not depend on the order.
const l1Seed = 0x6e65774c

// fitL1 minimizes ‖w‖₁ + C Σᵢ log(1+exp(−yᵢ(wᵀxᵢ+b))) (b unpenalized) by
// newGLMNET (Yuan, Ho and Lin 2012, as liblinear -s 6).
//
// Each outer (Newton) iteration computes the gradient ∇L and the diagonal
// of the Hessian XᵀDX of the loss at w over every coordinate and builds the
// quadratic model ∇Lᵀδ + ½δᵀ(XᵀDX + νI)δ + ‖w+δ‖₁. Coordinates with wⱼ = 0
// and |∂L/∂wⱼ| < 1 − M_out/n, M_out the largest optimality violation of the
// previous outer iteration, are left out of the iteration (outer
// shrinking). The model is minimized by coordinate descent in random order
// over the remaining coordinates, keeping Xδ up to date; within it a
// coordinate with (w+δ)ⱼ = 0 whose model gradient is inside
// (−1 + M_in/n, 1 − M_in/n), M_in the largest model violation of the
// previous pass, is dropped (inner shrinking) until the inner stopping test
// holds, when every coordinate of the outer active set is visited again.
// The inner stopping test is adaptive: the 1-norm of the model's
// violations over the inner active set must fall to a fraction ε_in of the
// 1-norm of the current outer violations, ε_in starting at 1 and divided
// by 4 whenever a single pass satisfied it. (liblinear compares with the
// first outer iteration's 1-norm instead, which leaves the late inner
// solves too loose for a tight tolerance; the ∞-norms, used before, ask
// for 3–7 passes where one does early on: on 20 Newsgroups this rule
// halves the time to liblinear -e 0.01's objective and takes 10–20% off
// the default tol's, at 5–10% more outer iterations.) The bias coordinate (b, or when
// there is no intercept a column of ones, liblinear's penalized -B 1 bias)
// is correlated with every feature and slows coordinate descent down; it
// is re-minimized after every other coordinate's step, at O(1) cost, which
// halves or better the number of passes on indicator features. When the
// active set is small (≤ gramMaxDim feature coordinates) and the previous
// inner solve took enough passes to pay for it (useModelGram), the inner
// solve runs on the explicit model Hessian XₐᵀDXₐ (modelGram): a step is
// then a dense axpy of length |A| instead of a gather and a scatter over
// the column; late in a fit on text, when a few hundred words remain and
// each inner solve takes hundreds of passes, this cut the coordinate
// descent time 3.5× (20 Newsgroups). On the explicit Hessian, after a pass
// in which no coordinate changed sign (and at least directGap passes after
// the last), coordinate descent jumps to the model's minimizer over the
// non-zero coordinates with their signs fixed (modelGram.subspaceStep, one
// Cholesky factorization): on 20 Newsgroups the late inner solves then
// take 4–40 passes instead of 150–470, and the outer iterations converge
// faster (228 against 267). A σ-Armijo
// (σ = 0.01) line search along δ then
// uses the cached σ(−yᵢzᵢ) to evaluate each row's change of loss as
// log1p(σ(−yᵢzᵢ)·expm1(−yᵢ·t·(Xδ)ᵢ)) with no cancellation, and the margins
// zᵢ = wᵀxᵢ + b are updated from Xδ, never recomputed from X.
//
// It stops when the minimum-norm subgradient of the objective, over every
// coordinate (shrunk or not), is at most Tol in ∞-norm: then
// |∂L/∂wⱼ| ≤ 1+Tol where wⱼ = 0, |∂L/∂wⱼ + sign(wⱼ)| ≤ Tol elsewhere and
// |∂L/∂b| ≤ Tol.
//
// It starts from start = (w, b) (length d+1; b ignored without an
// intercept) if not nil, else from 0.
func fitL1(ctx context.Context, X matrix.Matrix, cols *colMajor, y []float64, s l1Settings, start []float64) ([]float64, float64, methods.Info, error) {
	const (
		sigma = 0.01  // Armijo sufficient decrease
		nu    = 1e-12 // keeps the diagonal Hessian positive
		maxLS = 30
		// maxInner caps the coordinate-descent passes per outer
		// iteration (liblinear's cap).
		maxInner = 1000
	)
	n, d := X.Dims()
	if cols.n != n || cols.d != d || len(y) != n {
		panic("linear: fitL1: shapes of X, its columns and y differ")
	}
	nc := d // number of coordinates; coordinate d is b
	if s.Intercept {
		nc = d + 1
	}
	C := s.C
	fn := float64(n)
	w := make([]float64, nc)
	wpd := make([]float64, nc)   // w + δ
	m := make([]float64, n)      // margins yᵢ(wᵀxᵢ + b)
	q := make([]float64, n)      // σ(−mᵢ), cached
	r := make([]float64, n)      // ∂L/∂zᵢ = −C yᵢ qᵢ
	D := make([]float64, n)      // ∂²L/∂zᵢ² = C qᵢ(1−qᵢ)
	dxd := make([]float64, n)    // Dᵢ(Xδ_w)ᵢ during coordinate descent (δ_bj kept apart)
	xd := make([]float64, n)     // Xδ for the line search
	dv := make([]float64, d)     // δ_w, dense columns only
	E := make([]float64, n)      // expm1(−yᵢ t (Xδ)ᵢ) of the last line-search trial
	g := make([]float64, nc)     // ∂L/∂w, ∂L/∂b
	H := make([]float64, nc)     // diagonal of XᵀDX + νI over the active coordinates
	sd := make([]float64, d)     // Σᵢ Dᵢxᵢⱼ over the active coordinates (for the bias)
	active := make([]int, 0, nc) // outer active set; its first qpActive entries are the inner one
	rng := rand.New(rand.NewPCG(l1Seed, uint64(n)))

	// The bias coordinate bj is b (unpenalized), or else a column of ones
	// (liblinear's -B 1 bias, penalized) if there is one. It is correlated
	// with every feature, so coordinate descent keeps it at its minimum
	// given the others after every step, at O(1) cost (see below).
	bj, bPen := -1, false
	if s.Intercept {
		bj = d
	} else {
		for j := 0; j < d && bj < 0; j++ {
			if cols.isOnes(j) {
				bj, bPen = j, true
			}
		}
	}

	for i := range q {
		q[i] = 0.5
	}
	loss := C * fn * math.Ln2 // L at w = 0
	l1 := 0.0                 // ‖w‖₁
	if start != nil {
		copy(w, start[:d])
		b0 := 0.0
		if s.Intercept {
			b0 = start[d]
			w[d] = b0
		}
		X.MulVec(m, w[:d])
		loss = 0
		for i, zi := range m {
			m[i] = y[i] * (zi + b0)
			q[i] = sigmoid(-m[i])
			loss += log1pexp(-m[i])
		}
		loss *= C
		for _, v := range w[:d] {
			l1 += math.Abs(v)
		}
	}
	info := methods.Info{}
	gmaxOld := math.Inf(1)
	innerEps := 1.0
	gram := newModelGram(d)
	// predPasses predicts the coordinate-descent passes of the next inner
	// solve: the last one's, or half the previous prediction if more (one
	// inner solve that happens to converge in a few passes must not send
	// the next, which may take the full 1000, back to the columns).
	predPasses := 0
	for iter := 0; ; iter++ {
		if err := ctx.Err(); err != nil {
			return nil, 0, info, err
		}
		sumD := 0.0
		for i, qi := range q {
			r[i] = -C * y[i] * qi
			D[i] = C * qi * (1 - qi)
			sumD += D[i]
		}
		// Gradient and minimum-norm subgradient over every coordinate; the
		// Hessian diagonal (and Σᵢ Dᵢxᵢⱼ) over the active ones.
		vmax, vsum := 0.0, 0.0 // ∞- and 1-norm of the violations
		nnzA := 0              // non-zeros of the active feature columns
		active = active[:0]
		margin := 1 - gmaxOld/fn
		if s.noShrink {
			margin = math.Inf(-1)
		}
		if cols.dense != nil {
			X.MulTransVec(g[:d], r) // BLAS beats a column loop
		}
		for j := 0; j < d; j++ {
			ind, val := cols.col(j)
			var gj float64
			switch {
			case ind == nil:
				gj = g[j]
			case cols.ones[j]:
				for _, i := range ind {
					gj += r[i]
				}
			default:
				gj = matrix.SparseDot(ind, val, r)
			}
			g[j] = gj
			vj := violation(w[j], gj)
			vmax = math.Max(vmax, vj)
			vsum += vj
			if w[j] == 0 && math.Abs(gj) < margin && j != bj {
				continue
			}
			active = append(active, j)
			if ind == nil {
				nnzA += n
			} else {
				nnzA += len(ind)
			}
			var h, sj float64
			switch {
			case ind == nil:
				for i, x := range val {
					dx := D[i] * x
					h += dx * x
					sj += dx
				}
			case cols.ones[j]:
				for _, i := range ind {
					h += D[i]
				}
				sj = h
			default:
				for k, x := range val {
					dx := D[ind[k]] * x
					h += dx * x
					sj += dx
				}
			}
			H[j], sd[j] = h+nu, sj
		}
		if s.Intercept {
			gb := 0.0
			for _, ri := range r {
				gb += ri
			}
			g[d], H[d] = gb, sumD+nu
			vmax = math.Max(vmax, math.Abs(gb))
			vsum += math.Abs(gb)
			active = append(active, d)
		}
		info.Iterations = iter
		info.Objective = loss + l1
		if vmax <= s.Tol {
			info.Converged = true
			break
		}
		if iter >= s.MaxIter {
			break
		}
		gmaxOld = vmax

		// Coordinate descent on the quadratic model, over wpd = w + δ.
		// It keeps dxd = D∘(Xδ_w), Xδ_w the part of Xδ of the coordinates
		// other than the bias, so that the model gradient of wⱼ is
		// gⱼ + Σᵢ xᵢⱼdxdᵢ + δ_bj·sdⱼ (one gather per non-zero instead of
		// two) and that of the bias is g_bj + T + δ_bj·(ΣD + ν), with
		// T = Σᵢ dxdᵢ kept up to date: a bias step costs O(1), and is taken
		// after every other coordinate's.
		copy(wpd, w)
		clear(dxd)
		db, T := 0.0, 0.0
		useGram := s.gram != gramNever && useModelGram(s.gram, gram, cols, active, bj, nnzA, predPasses)
		if useGram {
			gram.build(cols, D)
		}
		qpActive := len(active)
		qpGmaxOld := math.Inf(1)
		passes := 0
		lastDirect := 0 // the pass after which subspaceStep last ran
		for passes < maxInner {
			if err := ctx.Err(); err != nil {
				return nil, 0, info, err
			}
			passes++
			for k := 0; k < qpActive-1; k++ {
				p := k + rng.IntN(qpActive-k)
				active[k], active[p] = active[p], active[k]
			}
			qpGmax, qpGsum := 0.0, 0.0
			changed := false // a coordinate's sign (−, 0, +) changed
			qpMargin := 1 - qpGmaxOld/fn
			if s.noShrink {
				qpMargin = math.Inf(-1)
			}
			for k := 0; k < qpActive; k++ {
				j := active[k]
				if j == bj {
					G := g[bj] + T + db*(sumD+nu)
					v := violationPen(bPen, wpd[bj], G)
					qpGmax = math.Max(qpGmax, v)
					qpGsum += v
					db = biasStep(bPen, w[bj], db, G, H[bj])
					wpd[bj] = w[bj] + db
					continue
				}
				G := g[j] + (wpd[j]-w[j])*nu + db*sd[j]
				ind, val := cols.col(j)
				ones := ind != nil && cols.ones[j]
				switch {
				case useGram:
					G += gram.hd[gram.pos[j]]
				case ind == nil:
					G += floats.Dot(val, dxd[:len(val)])
				case ones:
					for _, i := range ind {
						G += dxd[i]
					}
				default:
					G += matrix.SparseDot(ind, val, dxd)
				}
				wj := wpd[j]
				if wj == 0 && math.Abs(G) < qpMargin {
					// Inner shrinking: set aside until the inner stopping
					// test holds.
					qpActive--
					active[k], active[qpActive] = active[qpActive], active[k]
					k--
					continue
				}
				v := violation(wj, G)
				qpGmax = math.Max(qpGmax, v)
				qpGsum += v
				h := H[j]
				var z float64
				switch {
				case G+1 <= h*wj:
					z = -(G + 1) / h
				case G-1 >= h*wj:
					z = -(G - 1) / h
				default:
					z = -wj
				}
				// Even a tiny z must be applied when it takes the
				// coordinate to exactly zero (z = −wj); otherwise a
				// coordinate can stall at a tiny non-zero value. A step
				// is negligible by its size in the coordinate's own
				// scale, z·√h, not by |z|: on an unscaled column (counts
				// in the thousands, h ~ 1e9) the steps that remain near
				// the optimum are far below 1e-12 and skipping them
				// stalled the fit at its iteration cap.
				if z == 0 || (math.Abs(z)*math.Sqrt(h) < 1e-12 && z != -wj) {
					continue
				}
				z = math.Max(-10, math.Min(10, z))
				if z == -wj {
					wpd[j] = 0
				} else {
					wpd[j] = wj + z
				}
				if sign(wpd[j]) != sign(wj) {
					changed = true
				}
				T += z * sd[j]
				if bj >= 0 {
					// Keep the bias at its minimum given the others.
					db = biasStep(bPen, w[bj], db, g[bj]+T+db*(sumD+nu), H[bj])
					wpd[bj] = w[bj] + db
				}
				switch {
				case useGram:
					gram.step(j, z)
				case ind == nil:
					addScaledProd(dxd, z, val, D)
				case ones:
					for _, i := range ind {
						dxd[i] += z * D[i]
					}
				default:
					scatterScaledProd(dxd, z, ind, val, D)
				}
			}
			if qpGsum <= innerEps*vsum {
				if qpActive == len(active) {
					break
				}
				// Reactivate the inner-shrunk coordinates.
				qpActive = len(active)
				qpGmaxOld = math.Inf(1)
				continue
			}
			qpGmaxOld = qpGmax
			if bj >= 0 {
				// Refresh T against drift.
				T = 0
				if useGram {
					for _, j := range gram.idx {
						T += (wpd[j] - w[j]) * sd[j]
					}
				} else {
					for _, v := range dxd {
						T += v
					}
				}
			}
			if useGram && !s.noDirect && !changed && passes-lastDirect >= directGap {
				// The signs held for a whole pass: jump to the model's
				// minimizer on their orthant face.
				lastDirect = passes
				grad := func(j int) float64 {
					return g[j] + (wpd[j]-w[j])*nu + db*sd[j] + gram.hd[gram.pos[j]]
				}
				gb := 0.0
				if bj >= 0 {
					gb = g[bj] + T + db*(sumD+nu)
				}
				if dbias, dT, ok := gram.subspaceStep(wpd, grad, bj, bPen, gb, sumD+nu, sd, nu); ok {
					T += dT
					if bj >= 0 {
						db += dbias
						wpd[bj] = w[bj] + db
					}
				}
			}
		}
		if passes == 1 {
			innerEps *= 0.25
		}
		predPasses = max(passes, predPasses/2)
		// Xδ: over the columns, coordinate descent kept dxd = D∘(Xδ_w), so
		// (Xδ)ᵢ = dxdᵢ/Dᵢ plus the bias column's part, except where Dᵢ is
		// too small for the quotient to be accurate (then from row i);
		// otherwise from δ itself.
		switch {
		case !useGram && cols.dense == nil:
			dbx := 0.0 // δ of a penalized bias column (in Xδ, not in dxd)
			if bPen {
				dbx = wpd[bj] - w[bj]
			}
			r := cols.rows
			for i, v := range dxd {
				if D[i] >= minDivD {
					xd[i] = v/D[i] + dbx
					continue
				}
				lo, hi := r.Ptr[i], r.Ptr[i+1]
				xi := 0.0
				for k, j := range r.Ind[lo:hi] {
					xi += (wpd[j] - w[j]) * r.Val[lo+k]
				}
				xd[i] = xi
			}
		case cols.dense != nil:
			for j := range dv {
				dv[j] = wpd[j] - w[j]
			}
			X.MulVec(xd, dv)
		default:
			clear(xd)
			for _, j := range active {
				z := wpd[j] - w[j]
				if j == d || z == 0 {
					continue
				}
				ind, val := cols.col(j)
				if cols.ones[j] {
					for _, i := range ind {
						xd[i] += z
					}
				} else {
					matrix.SparseAxpy(xd, z, ind, val)
				}
			}
		}
		if s.Intercept {
			for i := range xd {
				xd[i] += wpd[d] - w[d]
			}
		}

		// Armijo line search along δ = wpd − w: the objective must fall by
		// at least σ·t·(∇Lᵀδ + ‖w+δ‖₁ − ‖w‖₁) at step t.
		dec := 0.0
		dl1 := 0.0 // ‖w + tδ‖₁ − ‖w‖₁, summed per coordinate
		for _, j := range active {
			dec += g[j] * (wpd[j] - w[j])
			if j < d {
				dl1 += math.Abs(wpd[j]) - math.Abs(w[j])
			}
		}
		dec += dl1
		step := 1.0
		accepted := false
		for ls := 0; ls < maxLS; ls++ {
			dloss := 0.0
			for i, xdi := range xd {
				u := -y[i] * step * xdi
				e := math.Expm1(u)
				E[i] = e
				if a := q[i] * e; a > -1 {
					dloss += math.Log1p(a)
				} else {
					// q rounds to 1 and e to −1: use the losses.
					dloss += log1pexp(-(m[i] - u)) - log1pexp(-m[i])
				}
			}
			dloss *= C
			if step != 1 {
				dl1 = 0
				for _, j := range active {
					if j < d {
						dl1 += math.Abs(w[j]+step*(wpd[j]-w[j])) - math.Abs(w[j])
					}
				}
			}
			if dloss+dl1 <= sigma*step*dec {
				for _, j := range active {
					if step == 1 {
						w[j] = wpd[j]
					} else {
						w[j] += step * (wpd[j] - w[j])
					}
				}
				for i, xdi := range xd {
					m[i] += y[i] * step * xdi
					// σ(−m − yt(Xδ)) from the cached σ(−m) and
					// expm1(−yt(Xδ)), recomputed where that loses
					// accuracy.
					if e := E[i]; math.Abs(e) < 0.5 {
						q[i] = q[i] * (1 + e) / (1 + q[i]*e)
					} else {
						q[i] = sigmoid(-m[i])
					}
				}
				loss += dloss
				l1 = 0
				for _, v := range w[:d] {
					l1 += math.Abs(v)
				}
				accepted = true
				break
			}
			step /= 2
		}
		if !accepted {
			// No decrease is possible at machine precision; report the
			// current point as not converged.
			break
		}
	}
	// The loss was accumulated from its changes; report it exactly.
	info.Objective = l1
	for _, mi := range m {
		info.Objective += C * log1pexp(-mi)
	}
	b := 0.0
	if s.Intercept {
		b = w[d]
	}
	return w[:d:d], b, info, nil
}

// biasStep returns the new offset δ of the bias coordinate (current value
// w+δ, model gradient G, curvature h) after minimizing the model over it:
// a Newton step, or for a penalized bias the soft-thresholded one.
func biasStep(penalized bool, w, delta, G, h float64) float64 {
	if !penalized {
		return delta - G/h
	}
	wj := w + delta
	switch {
	case G+1 <= h*wj:
		return delta - (G+1)/h
	case G-1 >= h*wj:
		return delta - (G-1)/h
	}
	return -w // exactly zero
}

// violationPen is violation for a penalized coordinate and |G| otherwise.
func violationPen(penalized bool, w, G float64) float64 {
	if penalized {
		return violation(w, G)
	}
	return math.Abs(G)
}

// violation returns the minimum-norm subgradient of |w| + L at a
// coordinate with value w and loss derivative g, in absolute value.
func violation(w, g float64) float64 {
	switch {
	case w > 0:
		return math.Abs(g + 1)
	case w < 0:
		return math.Abs(g - 1)
	}
	return math.Max(0, math.Abs(g)-1)
}

// addScaledProd adds z·x[i]·d[i] to dst[i] for every i < len(x), the
// update of Xᵀ D X Δw by a step z on one dense column x.
func addScaledProd(dst []float64, z float64, x, d []float64) {
	dst, d = dst[:len(x)], d[:len(x)]
	i := 0
	for ; i+4 <= len(x); i += 4 {
		dst[i] += z * x[i] * d[i]
		dst[i+1] += z * x[i+1] * d[i+1]
		dst[i+2] += z * x[i+2] * d[i+2]
		dst[i+3] += z * x[i+3] * d[i+3]
	}
	for ; i < len(x); i++ {
		dst[i] += z * x[i] * d[i]
	}
}

// scatterScaledProd adds z·val[k]·D[ind[k]] to dst[ind[k]] for every k
// (ind without repeats: a column's rows), four at a time so that the
// loads of one do not wait on the stores of the one before.
func scatterScaledProd(dst []float64, z float64, ind []int32, val, D []float64) {
	val = val[:len(ind)]
	k := 0
	for ; k+4 <= len(ind); k += 4 {
		i0, i1, i2, i3 := ind[k], ind[k+1], ind[k+2], ind[k+3]
		v0 := z * val[k] * D[i0]
		v1 := z * val[k+1] * D[i1]
		v2 := z * val[k+2] * D[i2]
		v3 := z * val[k+3] * D[i3]
		dst[i0] += v0
		dst[i1] += v1
		dst[i2] += v2
		dst[i3] += v3
	}
	for ; k < len(ind); k++ {
		i := ind[k]
		dst[i] += z * val[k] * D[i]
	}
}
