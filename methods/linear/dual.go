package linear

import (
	"context"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
)

// dualWork holds the vectors of fitL2Dual, allocated for the first
// one-vs-rest task and reused by the others; the rows' squared norms are
// the same for every task and computed once.
type dualWork struct {
	d     int       // X's columns
	xx    []float64 // ‖xᵢ‖²
	alpha []float64 // αᵢ and C − αᵢ, interleaved (2n)
	order []int32   // the rows in the epoch's order
	perm  []int32   // streamOrder's streams
	start []float64 // auto's start for L-BFGS (d+1)
	grad  []float64 // the primal gradient at a check (d+1), when checked
	z     []float64 // logisticLoss's scratch (n), likewise
}

func (dw *dualWork) vectors(X matrix.Matrix) {
	n, d := X.Dims()
	if len(dw.xx) == n && dw.d == d {
		return
	}
	dw.d = d
	dw.xx = make([]float64, n)
	for i := range dw.xx {
		switch x := X.(type) {
		case *matrix.CSR:
			v := x.Val[x.Ptr[i]:x.Ptr[i+1]]
			dw.xx[i] = floats.Dot(v, v)
		case *matrix.Dense:
			r := x.RawRow(i)
			dw.xx[i] = floats.Dot(r, r)
		default:
			X.Row(i, func(_ int, v float64) { dw.xx[i] += v * v })
		}
	}
	dw.alpha, dw.order = make([]float64, 2*n), make([]int32, n)
	dw.perm = make([]int32, min(dualStreams, n))
	dw.grad, dw.z, dw.start = nil, nil, make([]float64, d+1)
}

// dualSeed seeds the permutations of fitL2Dual: every task starts from the
// same seed, so a fit does not depend on the order or number of fits
// before it.
const dualSeed = 0x6475616c // "dual"

// fitL2Dual minimizes ½‖w‖² + C Σᵢ log(1+exp(−yᵢwᵀxᵢ)), without an
// intercept, by coordinate descent on its dual (Yu, Huang and Lin 2011,
// Algorithm 5; liblinear -s 7):
//
//	min_α ½ αᵀQα + Σᵢ αᵢ log αᵢ + (C−αᵢ) log(C−αᵢ),  0 < αᵢ < C,
//
// Qᵢⱼ = yᵢyⱼxᵢᵀxⱼ, keeping w = Σᵢ yᵢαᵢxᵢ (dualCD).
//
// It stops where logreg-l2's other solvers stop, on the primal:
// ‖∇f(w)‖∞ ≤ tol·max(1, |f(w)|), evaluated by one pass of logisticLoss at
// the end of an epoch once the dual's largest violation has fallen below
// half its value at the last check, so the checks cost a few passes in
// all. Coordinate descent converges linearly, fast at first and then at
// a rate set by the problem's conditioning (slowly for large C, or rows
// of very different norms): when the violation took more than
// dualStallEpochs epochs to halve, or after maxIter epochs, it returns
// with info.Converged false, and logreg-l2 goes on by L-BFGS from w (as
// liblinear -s 7 goes on by its primal Newton method after 300 epochs).
// info.Iterations counts the epochs.
//
// It starts from w0 if not nil (w0 of length ≥ d; a w0[d], the
// intercept, is ignored) through αᵢ = C σ(−yᵢw0ᵀxᵢ), the dual point w0
// would have if it were optimal; otherwise from αᵢ = min(0.001C, 1e-8),
// as liblinear.
func fitL2Dual(ctx context.Context, X matrix.Matrix, y []float64, C float64, maxIter int, tol float64, w0 []float64, dw *dualWork) ([]float64, methods.Info, error) {
	info := methods.Info{}
	gate := math.Inf(1) // check the primal once the dual violation is below this
	last := 0           // the epoch of the last check
	_, d := X.Dims()
	w, epochs, err := dualCD(ctx, X, y, C, maxIter, w0, make([]float64, d), dw, func(epoch int, gmax float64, w []float64) bool {
		if gmax >= gate {
			return false
		}
		f, ok := dualPrimalCheck(X, y, w, C, tol, dw)
		info.Objective, info.Converged = f, ok
		stalled := epoch-last > dualStallEpochs
		gate, last = gmax/2, epoch
		return ok || stalled
	})
	info.Iterations = epochs
	if err != nil {
		return nil, info, err
	}
	if !info.Converged {
		info.Objective, _ = dualPrimalCheck(X, y, w, C, tol, dw)
	}
	return w, info, nil
}

// dualStallEpochs is the most epochs fitL2Dual waits for the dual's
// largest violation to halve before it hands over to L-BFGS.
const dualStallEpochs = 10

// dualCD runs at most maxEpochs epochs of dual coordinate descent from w0
// (see fitL2Dual), calling stop after each with the epoch's largest
// violation of the dual's optimality conditions and the current w, and
// returns w (in the given w, of length d or more) and the epochs run.
// Each epoch visits the rows in a random
// order (a generator seeded with dualSeed and n for every task, so a fit
// depends neither on the fits before it nor on how many run at once): a
// uniform random permutation while X's rows take at most dualStreamBytes,
// above it one that reads memory in runs (streamOrder); and it
// minimizes over one αᵢ at a time by a safeguarded Newton method on the
// one-variable problem (one dot product and one update of w per row, so
// an epoch reads each row twice), to a tolerance that tightens as the
// epochs need fewer Newton steps. αᵢ and C − αᵢ are both kept, as
// liblinear does, so that neither loses its digits near the bounds.
func dualCD(ctx context.Context, X matrix.Matrix, y []float64, C float64, maxEpochs int, w0, w []float64, dw *dualWork, stop func(epoch int, gmax float64, w []float64) bool) ([]float64, int, error) {
	n, d := X.Dims()
	w = w[:d]
	clear(w)
	dw.vectors(X)
	xx, alpha, order := dw.xx, dw.alpha, dw.order
	csr, _ := X.(*matrix.CSR)
	dense, _ := X.(*matrix.Dense)
	dot := func(i int, w []float64) float64 {
		switch {
		case csr != nil:
			lo, hi := csr.Ptr[i], csr.Ptr[i+1]
			return matrix.SparseDot(csr.Ind[lo:hi], csr.Val[lo:hi], w)
		case dense != nil:
			return floats.Dot(dense.RawRow(i), w)
		}
		return X.RowDot(i, w)
	}
	axpy := func(i int, a float64, w []float64) {
		switch {
		case csr != nil:
			lo, hi := csr.Ptr[i], csr.Ptr[i+1]
			matrix.SparseAxpy(w, a, csr.Ind[lo:hi], csr.Val[lo:hi])
		case dense != nil:
			floats.AddScaled(w, a, dense.RawRow(i))
		default:
			X.AddRow(w, i, a)
		}
	}

	lo := math.Min(0.001*C, 1e-8)
	for i := range n {
		a, ca := lo, C-lo
		if w0 != nil {
			// C σ(−m) and C σ(m), each from its own exponential.
			m := y[i] * dot(i, w0[:d])
			a, ca = C*sigmoid(-m), C*sigmoid(m)
			if a < lo {
				a, ca = lo, C-lo
			} else if ca < lo {
				a, ca = C-lo, lo
			}
		}
		alpha[2*i], alpha[2*i+1] = a, ca
		order[i] = int32(i)
	}
	for i := range n {
		axpy(i, y[i]*alpha[2*i], w)
	}

	const (
		maxInner = 100  // Newton steps on one coordinate
		eta      = 0.1  // the step back towards 0 when Newton leaves (0, C)
		innerMin = 1e-8 // the one-variable problems' tightest tolerance
	)
	inner := 1e-2
	rng := rand.New(rand.NewPCG(dualSeed, uint64(n)))
	streamed := false // the rows outgrow dualStreamBytes: read them in runs
	switch {
	case csr != nil:
		streamed = methods.CSRBytes(n, len(csr.Val)) > dualStreamBytes
	case dense != nil:
		streamed = methods.Floats(n, d) > dualStreamBytes
	}
	epoch := 0
	for epoch < maxEpochs {
		if err := ctx.Err(); err != nil {
			return nil, epoch, err
		}
		if streamed {
			streamOrder(rng, order, dw.perm)
		} else {
			rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		steps, gmax := 0, 0.0
		for _, i32 := range order {
			i := int(i32)
			yi := y[i]
			a, b := xx[i], yi*dot(i, w)
			// The one-variable problem in z = αᵢ (sign 1) or in
			// z = C − αᵢ (sign −1), whichever has its optimum in the
			// lower half of (0, C): g(z) = z log z + (C−z) log(C−z) +
			// ½a(z−z₀)² + sign·b(z−z₀).
			i1, i2, sign := 2*i, 2*i+1, 1.0
			if 0.5*a*(alpha[i2]-alpha[i1])+b < 0 {
				i1, i2, sign = i2, i1, -1
			}
			z0 := alpha[i1]
			z := z0
			if C-z < 0.5*C {
				z *= 0.1
			}
			gp := a*(z-z0) + sign*b + math.Log(z/(C-z))
			gmax = math.Max(gmax, math.Abs(gp))
			k := 0
			for ; k <= maxInner && math.Abs(gp) >= inner; k++ {
				gpp := a + C/(C-z)/z
				if t := z - gp/gpp; t <= 0 {
					z *= eta
				} else {
					z = t
				}
				gp = a*(z-z0) + sign*b + math.Log(z/(C-z))
			}
			steps += k
			if k > 0 {
				alpha[i1], alpha[i2] = z, C-z
				axpy(i, sign*(z-z0)*yi, w)
			}
		}
		epoch++
		if stop(epoch, gmax, w) {
			break
		}
		if steps <= n/10 {
			inner = math.Max(innerMin, 0.1*inner)
		}
	}
	return w, epoch, nil
}

// dualStreams is the number of contiguous runs of rows that streamOrder
// reads side by side; dualStreamBytes the size of X (methods.CSRBytes,
// methods.Floats) above which dualCD reads its rows so:
// below it they stay in the caches between epochs, where a uniform random
// order costs no more.
const dualStreams = 256

var dualStreamBytes int64 = 8 << 20 // a variable for the tests

// streamOrder fills order (n rows) with an epoch's random order that
// reads memory in runs: the rows are cut into dualStreams contiguous
// ranges (streams) of about n/dualStreams rows, each read in row order
// from a random starting row, wrapping round to its first; each round
// takes the next row of every stream, the streams in a fresh random order
// (perm holds them). A random permutation of all n rows (liblinear -s 7's
// order, and this one's before) reads each row from a random place: once
// the rows outgrow the last-level cache and the TLB's reach, every row
// costs a miss and a page walk that no prefetcher can foresee, and the
// dual start's CPU grew 13× for 8× the rows (bench/README.md, "Where the
// slope comes from"). Runs keep consecutive rows on the same pages and
// lines while consecutive updates still come from rows far apart in the
// file (the rows of a file sorted by class are dealt out across every
// class, which blocks of consecutive rows were not: see the same
// section). With n ≤ dualStreams every stream is one row and the order is
// a uniform random permutation (of another draw than dualCD's below
// dualStreamBytes).
func streamOrder(rng *rand.Rand, order []int32, perm []int32) {
	n := len(order)
	b := min(dualStreams, n)
	per := (n + b - 1) / b // the most rows a stream holds
	perm = perm[:b]
	for s := range perm {
		perm[s] = int32(s)
	}
	// Stream s holds rows [lo(s), lo(s+1)), lo(s) = s·n/b: sizes differ
	// by at most one.
	lo := func(s int) int { return s * n / b }
	off := make([]int, b)
	for s := range off {
		off[s] = rng.IntN(lo(s+1) - lo(s))
	}
	k := 0
	for t := range per {
		rng.Shuffle(b, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		for _, s32 := range perm {
			s := int(s32)
			first, m := lo(s), lo(s+1)-lo(s)
			if t >= m {
				continue
			}
			order[k] = int32(first + (off[s]+t)%m)
			k++
		}
	}
}

// dualPrimalCheck returns the primal objective ½‖w‖² + C·LogisticLoss at
// w (no intercept) and whether its gradient meets logreg-l2's stopping
// rule, ‖∇f‖∞ ≤ tol·max(1, |f|).
func dualPrimalCheck(X matrix.Matrix, y, w []float64, C, tol float64, dw *dualWork) (float64, bool) {
	if len(dw.grad) != len(w)+1 {
		dw.grad, dw.z = make([]float64, len(w)+1), make([]float64, len(y))
	}
	g := dw.grad
	f := C * logisticLoss(X, y, w, 0, g, dw.z)
	gmax := 0.0
	for j, wj := range w {
		f += 0.5 * wj * wj
		gmax = math.Max(gmax, math.Abs(C*g[j]+wj))
	}
	return f, gmax <= tol*math.Max(1, math.Abs(f))
}

// dualStartEpochs is the number of epochs of dual coordinate descent from
// which logreg-l2's solver: auto starts L-BFGS on sparse, well-scaled
// data without an intercept. The first epochs take the objective most of
// the way (on the second 20 Newsgroups export, 12,304 columns, within
// 0.3–3% of the optimum after 8), where dual coordinate descent's
// later epochs make slow progress towards logreg-l2's tight stopping rule
// (130–210 epochs to ‖∇f‖∞ ≤ 1e-5·f against L-BFGS's 80–110 iterations,
// an epoch costing about two L-BFGS iterations); L-BFGS from there needs
// about half its iterations. Measured on that export's first six
// one-vs-rest tasks: 543 L-BFGS iterations from zero, 242 after 10
// epochs, and 30% less CPU; on the file ×4, 375 and 166 (three tasks). 6
// and 15 epochs did no better, 20 worse (whole process, 1× and 8×). On
// dense ISOLET (6,238 × 617, 26 tasks, no intercept) the start saves
// iterations (2,904 → 2,450) but not time (7.4–7.9 user-s either way,
// alternated), so auto keeps it to CSR data.
const dualStartEpochs = 10
