package linear

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// gramMaxDim caps the number of coordinates of the explicit model Hessian
// (gramMaxDim² floats, 32 MB).
const gramMaxDim = 2048

// gramDim returns the largest explicit model Hessian built for n rows and
// d features: at most gramMaxDim coordinates, and at most n+1 (an L1
// solution has at most about n non-zeros, and with few rows the column
// passes are cheap anyway), so that a short wide problem does not pay for
// a large one.
func gramDim(n, d int) int { return min(d, n+1, gramMaxDim) }

// modelGram is the explicit Hessian XₐᵀDXₐ of newGLMNET's quadratic model
// over an active set A of feature coordinates (the bias excluded), with
// Hδ kept up to date, for coordinate descent on a small active set: a
// coordinate step then costs one dense axpy of length |A| instead of a
// gather and a scatter over its column, and the Hessian is built once per
// outer iteration in Σᵢ kᵢ² multiply-adds, kᵢ the active non-zeros of row
// i. Late in a fit, when a few hundred coordinates remain and each inner
// solve takes hundreds of passes, that is 5–20 times cheaper.
type modelGram struct {
	m   int
	pos []int32   // coordinate → position in the Gram, or −1
	idx []int     // position → coordinate
	h   []float64 // m×m, row-major, symmetric
	hd  []float64 // H·δ over the positions
	// The marked columns by rows (sparse X): row i's active non-zeros
	// are at positions aPos[aPtr[i]:aPtr[i+1]] with values aVal[…];
	// cnt[i] counts them (counted: for the current marks).
	cnt     []int32
	counted bool
	aPtr    []int
	next    []int // fill pointers
	aPos    []int32
	aVal    []float64
	tmp     []float64 // dense columns: D∘x of one column
	// scratch for subspaceStep
	sPos []int32
	sys  []float64
	rhs  []float64
}

func newModelGram(d int) *modelGram {
	g := &modelGram{pos: make([]int32, d)}
	for j := range g.pos {
		g.pos[j] = -1
	}
	return g
}

// reset clears the positions of the previous active set.
func (g *modelGram) reset() {
	g.counted = false
	for _, j := range g.idx {
		g.pos[j] = -1
	}
	g.idx = g.idx[:0]
	g.m = 0
}

// cost returns Σᵢ kᵢ(kᵢ+1)/2, kᵢ the non-zeros of row i in the marked
// columns: the multiply-adds of building their Gram matrix. It counts
// them from the marked columns alone (count), which late in a fit on text
// hold a fifth of X's non-zeros, where a scan of the rows reads them all.
func (g *modelGram) cost(c *colMajor) int {
	if c.dense != nil {
		return c.n * g.m * g.m / 2
	}
	g.count(c)
	total := 0
	for _, k := range g.cnt {
		total += int(k) * int(k+1) / 2
	}
	return total
}

// count sets cnt to the non-zeros of each row in the marked columns.
func (g *modelGram) count(c *colMajor) {
	if cap(g.cnt) < c.n {
		g.cnt = make([]int32, c.n)
	}
	g.cnt = g.cnt[:c.n]
	clear(g.cnt)
	for _, j := range g.idx {
		ind, _ := c.col(j)
		for _, i := range ind {
			g.cnt[i]++
		}
	}
	g.counted = true
}

// mark sets the active set to the coordinates in act other than skip
// (and other than the intercept, coordinate len(pos)); act must be
// increasing.
func (g *modelGram) mark(act []int, skip int) {
	g.reset()
	for k, j := range act {
		if k > 0 && j <= act[k-1] {
			panic("linear: modelGram.mark: coordinates not increasing")
		}
		if j == skip || j >= len(g.pos) {
			continue
		}
		g.pos[j] = int32(len(g.idx))
		g.idx = append(g.idx, j)
	}
	g.m = len(g.idx)
}

// build computes the Hessian Σᵢ Dᵢ xᵢₐ xᵢᵦ of the marked coordinates and
// sets Hδ = 0.
func (g *modelGram) build(c *colMajor, D []float64) {
	m := g.m
	if cap(g.h) < m*m {
		g.h = make([]float64, m*m)
	}
	g.h = g.h[:m*m]
	clear(g.h)
	if cap(g.hd) < m {
		g.hd = make([]float64, m)
	}
	g.hd = g.hd[:m]
	clear(g.hd)
	if c.dense != nil {
		if len(g.tmp) < c.n {
			g.tmp = make([]float64, c.n)
		}
		tmp := g.tmp[:c.n]
		for a, ja := range g.idx {
			ca := c.dense[ja*c.n : (ja+1)*c.n]
			for i, x := range ca {
				tmp[i] = D[i] * x
			}
			for b := a; b < m; b++ {
				jb := g.idx[b]
				v := floats.Dot(tmp, c.dense[jb*c.n:(jb+1)*c.n])
				g.h[a*m+b], g.h[b*m+a] = v, v
			}
		}
		return
	}
	// The marked columns by rows: each row's entries in increasing
	// position (the columns are taken in position order), with X's values,
	// so that every entry of the Hessian sums the same products in the
	// same order (rows increasing) as a scan of X's rows would.
	if !g.counted {
		g.count(c)
	}
	n := c.n
	if cap(g.aPtr) < n+1 {
		g.aPtr = make([]int, n+1)
	}
	ptr := g.aPtr[:n+1]
	ptr[0] = 0
	for i, k := range g.cnt {
		ptr[i+1] = ptr[i] + int(k)
	}
	nnz := ptr[n]
	if cap(g.aPos) < nnz {
		g.aPos = make([]int32, nnz)
		g.aVal = make([]float64, nnz)
	}
	aPos, aVal := g.aPos[:nnz], g.aVal[:nnz]
	if cap(g.next) < n {
		g.next = make([]int, n)
	}
	next := g.next[:n]
	copy(next, ptr[:n])
	for a, j := range g.idx {
		ind, val := c.col(j)
		for k, i := range ind {
			at := next[i]
			aPos[at], aVal[at] = int32(a), val[k]
			next[i]++
		}
	}
	for i := 0; i < n; i++ {
		di := D[i]
		if di == 0 {
			continue
		}
		rp, rv := aPos[ptr[i]:ptr[i+1]], aVal[ptr[i]:ptr[i+1]]
		// Positions increase along the row, so this fills the upper
		// triangle.
		for a, pa := range rp {
			va := di * rv[a]
			row := g.h[int(pa)*m : int(pa+1)*m]
			rb := rv[a:]
			for b, pb := range rp[a:] {
				row[pb] += va * rb[b]
			}
		}
	}
	mirror(g.h, m)
}

// mirror copies the upper triangle of the m×m row-major h into its lower
// triangle, in square tiles so that the column-wise reads stay in cache.
func mirror(h []float64, m int) {
	const tile = 32
	for a0 := 0; a0 < m; a0 += tile {
		a1 := min(a0+tile, m)
		for b0 := a0; b0 < m; b0 += tile {
			b1 := min(b0+tile, m)
			for b := b0; b < b1; b++ {
				dst := h[b*m : b*m+m]
				for a := a0; a < min(a1, b); a++ {
					dst[a] = h[a*m+b]
				}
			}
		}
	}
}

// step records δⱼ += z for coordinate j (which must be in the active set).
func (g *modelGram) step(j int, z float64) {
	a := int(g.pos[j])
	floats.AddScaled(g.hd, z, g.h[a*g.m:(a+1)*g.m])
}

// subspaceStep takes, in coordinate descent on the explicit model Hessian,
// the exact minimizer of newGLMNET's quadratic model over the coordinates
// that are non-zero (wpd ≠ 0) with their signs held fixed, the others
// fixed: on that orthant face the model is a quadratic whose minimizer
// solves (H_SS + νI)Δ = −(G_S + sign(wpd_S)), G the model gradient. The
// bias coordinate bj (≥ 0, not in the Hessian's positions) joins the
// system with curvature hb and coupling sd when it is unpenalized or
// non-zero. If the step would change a sign, it is cut at the first
// coordinate that reaches zero (set exactly to zero): the model is convex,
// so it still decreases. Late in a fit on text, where coordinate descent
// on a few hundred correlated words takes hundreds of passes, one
// Cholesky factorization of |S|³/3 multiply-adds replaces them.
//
// grad(j) returns the model gradient of feature coordinate j (g + Hδ + ν
// δⱼ + δ_b·sdⱼ), gb that of the bias. It updates wpd, g.hd and returns the
// bias offset's change and T's (Σⱼ Δⱼ·sdⱼ), or ok = false, changing
// nothing, when the system is not positive definite.
func (g *modelGram) subspaceStep(wpd []float64, grad func(j int) float64, bj int, bPen bool, gb, hb float64, sd []float64, nu float64) (dbias, dT float64, ok bool) {
	m := g.m
	g.sPos = g.sPos[:0]
	for a, j := range g.idx {
		if wpd[j] != 0 {
			g.sPos = append(g.sPos, int32(a))
		}
	}
	withBias := bj >= 0 && (!bPen || wpd[bj] != 0)
	k := len(g.sPos)
	p := k
	if withBias {
		p++
	}
	if k == 0 {
		return 0, 0, false
	}
	if cap(g.sys) < p*p {
		g.sys = make([]float64, p*p)
	}
	A := g.sys[:p*p]
	if cap(g.rhs) < p {
		g.rhs = make([]float64, p)
	}
	rhs := g.rhs[:p]
	for r, pa := range g.sPos {
		row := g.h[int(pa)*m : int(pa+1)*m]
		out := A[r*p : r*p+p]
		for c, pb := range g.sPos[r:] {
			out[r+c] = row[pb]
		}
		out[r] += nu
		j := g.idx[pa]
		if withBias {
			out[k] = sd[j]
		}
		rhs[r] = -(grad(j) + math.Copysign(1, wpd[j]))
	}
	if withBias {
		A[k*p+k] = hb
		rhs[k] = -gb
		if bPen {
			rhs[k] -= math.Copysign(1, wpd[bj])
		}
	}
	if _, ok := lapack64.Potrf(blas64.Symmetric{N: p, Stride: p, Data: A, Uplo: blas.Upper}); !ok {
		return 0, 0, false
	}
	// A = UᵀU: solve Uᵀy = rhs, then UΔ = y. Two triangular solves with a
	// vector (Potrs with one right-hand side goes through Dtrsm, which
	// calls an axpy of length 1 for each of the p² entries).
	U := blas64.Triangular{N: p, Stride: p, Data: A, Uplo: blas.Upper, Diag: blas.NonUnit}
	x := blas64.Vector{N: p, Inc: 1, Data: rhs}
	blas64.Trsv(blas.Trans, U, x)
	blas64.Trsv(blas.NoTrans, U, x)
	// The largest step along Δ that keeps every sign.
	t, cut := 1.0, -1
	for r, pa := range g.sPos {
		j := g.idx[pa]
		if nw := wpd[j] + rhs[r]; nw == 0 || (nw > 0) != (wpd[j] > 0) {
			if tr := -wpd[j] / rhs[r]; tr < t {
				t, cut = tr, r
			}
		}
	}
	cutBias := false
	if withBias && bPen {
		if nw := wpd[bj] + rhs[k]; nw == 0 || (nw > 0) != (wpd[bj] > 0) {
			if tr := -wpd[bj] / rhs[k]; tr < t {
				t, cut, cutBias = tr, -1, true
			}
		}
	}
	for r, pa := range g.sPos {
		j := g.idx[pa]
		z := t * rhs[r]
		if r == cut {
			z = -wpd[j]
			wpd[j] = 0
		} else {
			wpd[j] += z
		}
		dT += z * sd[j]
		floats.AddScaled(g.hd, z, g.h[int(pa)*m:int(pa+1)*m])
	}
	if withBias {
		dbias = t * rhs[k]
		if cutBias {
			dbias = -wpd[bj]
		}
	}
	return dbias, dT, true
}
