package elasticnet

import (
	"context"
	"math"
	"slices"
	"sync"
)

// Fit is the solution at one λ, on the original scale of the columns.
type Fit struct {
	Lambda float64
	// Beta holds one coefficient vector for the binomial model (that of
	// class 1), or one per class for the multinomial one.
	Beta      [][]float64
	Intercept []float64
	// Passes counts the coordinate-descent passes at this λ; Converged
	// reports that the solve stopped on Tol, not on MaxPasses.
	Passes    int
	Converged bool
}

// fit returns st on the original scale.
func (p *Problem) fit(st *state) *Fit {
	f := &Fit{Lambda: st.lambda, Beta: make([][]float64, p.K), Intercept: make([]float64, p.K), Passes: st.passes, Converged: st.conv}
	for k := range f.Beta {
		f.Beta[k] = make([]float64, p.dData)
		for q, g := range st.cols {
			b := st.beta[k*len(st.cols)+q]
			p.each(int(g), func(j int, fc float64) { f.Beta[k][j] = b * fc / p.scale[j] })
		}
		f.Intercept[k] = st.c[k]
	}
	return f
}

// coefs is a solution kept compact for prediction: the columns with a
// non-zero coefficient, increasing, their K coefficients side by side on
// the original scale, and the intercepts.
type coefs struct {
	cols []int32
	beta []float64 // K per column
	c    []float64
}

// coefs returns st's solution on the original scale, compact.
func (p *Problem) coefs(st *state) *coefs {
	K, S := p.K, len(st.cols)
	cf := &coefs{c: slices.Clone(st.c)}
	for q, g := range st.cols {
		nz := false
		for k := 0; k < K; k++ {
			nz = nz || st.beta[k*S+q] != 0
		}
		if nz {
			p.each(int(g), func(j int, fc float64) {
				cf.cols = append(cf.cols, int32(j))
				for k := 0; k < K; k++ {
					cf.beta = append(cf.beta, st.beta[k*S+q]*fc/p.scale[j])
				}
			})
		}
	}
	if p.grp != nil {
		// Merged columns' data columns interleave: sort by column.
		idx := make([]int, len(cf.cols))
		for t := range idx {
			idx[t] = t
		}
		slices.SortFunc(idx, func(a, b int) int { return int(cf.cols[a]) - int(cf.cols[b]) })
		cols, beta := make([]int32, len(idx)), make([]float64, 0, len(cf.beta))
		for t, i := range idx {
			cols[t] = cf.cols[i]
			beta = append(beta, cf.beta[i*K:(i+1)*K]...)
		}
		cf.cols, cf.beta = cols, beta
	}
	return cf
}

// Path returns the solutions at each λ of lambdas (decreasing), each
// warm-started from the one before, the first from the null model, as
// glmnet does with a user λ sequence. It returns ctx.Err() when cancelled.
func (p *Problem) Path(ctx context.Context, lambdas []float64) ([]*Fit, error) {
	st := p.null.clone()
	w := p.newWork()
	out := make([]*Fit, 0, len(lambdas))
	for _, l := range lambdas {
		if err := p.solve(ctx, st, l, w); err != nil {
			return nil, err
		}
		out = append(out, p.fit(st))
	}
	return out, nil
}

// point is a solved point of a path, kept sparse: its non-zero
// coefficients (indices into the K×d coefficients) and the intercepts.
type point struct {
	lambda float64
	c      []float64
	nz     []int32
	val    []float64
	conv   bool
}

// size returns the point's coefficient count.
func (pt *point) size() int { return len(pt.nz) }

// path is a warm-started λ path on one Problem that grows on demand and
// answers a fit at any λ deterministically: the path visits a fixed
// sequence of λ values (glmnet's log-spaced sequence continued
// geometrically below its end, or a user's list), each solved from the one
// before, and the fit at λ is solved from the solution at the smallest
// sequence value ≥ λ (its from-point), so it does not depend on which λ
// were asked for before. It is safe for concurrent use.
//
// Memory: the path keeps one state, its front (the last sequence point
// solved), and the sparse from-points of the λ asked for, as long as their
// coefficients together number at most its budget (K coefficient vectors
// over strongBound columns: for a narrow problem all K·d); beyond that the
// least recently used are dropped. A from-point above the front that is
// not kept is recomputed by replaying the sequence from the null model on
// a scratch state: solving
// is deterministic, so the replay reproduces it bit for bit. A selection
// asks for its λ grid in order (decreasing, as the specs list it) and the
// refit one λ again, so replays are rare.
type path struct {
	p   *Problem
	seq func(t int) (float64, bool) // the t-th λ of the sequence

	mu     sync.Mutex
	front  *state // the state at sequence point solved-1 (the null model before any)
	solved int    // sequence points solved into front
	w      *work
	kept   map[int]*point // from-points by sequence index
	used   map[int]int    // last use of each kept point (a counter)
	clock  int
	size   int // coefficients held by kept
}

func newPath(p *Problem, seq func(t int) (float64, bool)) *path {
	return &path{p: p, seq: seq, front: p.null.clone(), w: p.newWork(), kept: map[int]*point{}, used: map[int]int{}}
}

// glmnetSeq returns glmnet's sequence of n values from LambdaMax down to
// ratio·LambdaMax (ratio 0: glmnet's default), continued geometrically.
func glmnetSeq(p *Problem, n int, ratio float64) func(int) (float64, bool) {
	s := p.Sequence(max(n, 2), ratio)
	r := s[1] / s[0]
	return func(t int) (float64, bool) {
		if t < len(s) {
			return s[t], true
		}
		return s[len(s)-1] * math.Pow(r, float64(t-len(s)+1)), true
	}
}

// listSeq returns the user's decreasing λ list as a sequence.
func listSeq(l []float64) func(int) (float64, bool) {
	return func(t int) (float64, bool) {
		if t < len(l) {
			return l[t], true
		}
		return 0, false
	}
}

// fromIndex returns the index of the smallest sequence value ≥ lambda, or
// −1 when the first is below it.
func (pa *path) fromIndex(lambda float64) int {
	T := -1
	for t := 0; ; t++ {
		next, ok := pa.seq(t)
		if !ok || next < lambda*(1-1e-12) || next <= 0 {
			return T
		}
		T = t
	}
}

// advance solves the sequence points from st's (solved of them done) up
// to index T into st and returns the passes spent.
func (pa *path) advance(ctx context.Context, st *state, solved, T int, w *work) (int, error) {
	passes := 0
	for t := solved; t <= T; t++ {
		l, _ := pa.seq(t)
		if err := pa.p.solve(ctx, st, l, w); err != nil {
			return passes, err
		}
		passes += st.passes
	}
	return passes, nil
}

// from returns the sparse point at sequence index T, solving the path up
// to it as needed, and the passes spent; it keeps the point.
func (pa *path) from(ctx context.Context, T int) (*point, int, error) {
	pa.mu.Lock()
	defer pa.mu.Unlock()
	pa.clock++
	if pt, ok := pa.kept[T]; ok {
		pa.used[T] = pa.clock
		return pt, 0, nil
	}
	var pt *point
	passes := 0
	if T >= pa.solved-1 {
		n, err := pa.advance(ctx, pa.front, pa.solved, T, pa.w)
		if err != nil {
			// The front is part-way between two points: start over.
			pa.front, pa.solved = pa.p.null.clone(), 0
			return nil, 0, err
		}
		pa.solved = max(pa.solved, T+1)
		passes = n
		pt = pa.p.sparsePoint(pa.front)
	} else {
		st := pa.p.null.clone()
		n, err := pa.advance(ctx, st, 0, T, pa.p.newWork())
		if err != nil {
			return nil, 0, err
		}
		passes = n
		pt = pa.p.sparsePoint(st)
	}
	pa.keep(T, pt)
	return pt, passes, nil
}

// budget returns the coefficients the kept points may hold together:
// K·strongBound(n, d, K), the memory estimate's.
func (pa *path) budget() int {
	return pa.p.K * strongBound(pa.p.n, pa.p.d, pa.p.K)
}

// keep stores pt as the point at index T, dropping the least recently used
// others while the kept coefficients exceed the budget.
func (pa *path) keep(T int, pt *point) {
	pa.kept[T], pa.used[T] = pt, pa.clock
	pa.size += pt.size()
	for pa.size > pa.budget() && len(pa.kept) > 1 {
		old, oldUse := -1, 0
		for t, u := range pa.used {
			if t != T && (old < 0 || u < oldUse || (u == oldUse && t < old)) {
				old, oldUse = t, u
			}
		}
		pa.size -= pa.kept[old].size()
		delete(pa.kept, old)
		delete(pa.used, old)
	}
}

// At returns the fit at lambda, with the passes spent on the path up to it
// added to the fit's own.
func (pa *path) At(ctx context.Context, lambda float64) (*Fit, error) {
	st, passes, conv, err := pa.solveAt(ctx, lambda)
	if err != nil {
		return nil, err
	}
	f := pa.p.fit(st)
	f.Passes, f.Converged = passes, conv
	return f, nil
}

// solveAt returns the state solved at lambda, the passes spent on it and
// on the path up to it, and whether its solve converged.
func (pa *path) solveAt(ctx context.Context, lambda float64) (st *state, passes int, conv bool, err error) {
	T := pa.fromIndex(lambda)
	var from *point
	if T >= 0 {
		if from, passes, err = pa.from(ctx, T); err != nil {
			return nil, 0, false, err
		}
	}
	st = pa.restore(from)
	if from != nil && math.Abs(from.lambda-lambda) <= 1e-12*lambda {
		return st, passes, from.conv, nil
	}
	if err := pa.p.solve(ctx, st, lambda, pa.p.newWork()); err != nil {
		return nil, 0, false, err
	}
	return st, passes + st.passes, st.conv, nil
}

// sparsePoint returns st's solution as a point, its non-zeros in
// increasing index k·d + j.
func (p *Problem) sparsePoint(st *state) *point {
	nz := 0
	for _, b := range st.beta {
		if b != 0 {
			nz++
		}
	}
	pt := &point{lambda: st.lambda, c: slices.Clone(st.c), conv: st.conv, nz: make([]int32, 0, nz), val: make([]float64, 0, nz)}
	S := len(st.cols)
	for k := 0; k < p.K; k++ {
		for q, j := range st.cols {
			if b := st.beta[k*S+q]; b != 0 {
				pt.nz = append(pt.nz, int32(k*p.d+int(j)))
				pt.val = append(pt.val, b)
			}
		}
	}
	return pt
}

// restore rebuilds a state from a stored point (nil: the null model); its
// strong set and its ever-active columns are the point's non-zero columns.
func (pa *path) restore(pt *point) *state {
	if pt == nil {
		return pa.p.null.clone()
	}
	st := pa.p.stateAt(pt)
	pa.p.gradient(st, nil)
	return st
}

// stateAt returns the state of a point, its strong set and its ever-active
// columns the point's non-zero columns, without the strong rule's
// gradient.
func (p *Problem) stateAt(pt *point) *state {
	st := p.newState()
	st.lambda = pt.lambda
	copy(st.c, pt.c)
	for k := 0; k < p.K; k++ {
		eta := st.eta[k*p.n : (k+1)*p.n]
		for i := range eta {
			eta[i] = st.c[k]
		}
	}
	var js []int
	for _, i32 := range pt.nz {
		if j := int(i32) % p.d; st.pos[j] < 0 {
			st.pos[j] = 0 // a mark until addStrong
			js = append(js, j)
		}
	}
	slices.Sort(js)
	for _, j := range js {
		st.pos[j] = -1
	}
	p.addStrong(st, js)
	S := len(st.cols)
	for t, i32 := range pt.nz {
		idx := int(i32)
		k, j := idx/p.d, idx%p.d
		b := pt.val[t]
		q := st.pos[j]
		st.beta[k*S+int(q)] = b
		st.enter(q)
		eta := st.eta[k*p.n : (k+1)*p.n]
		for q := p.ptr[j]; q < p.ptr[j+1]; q++ {
			eta[p.ind[q]] += b * p.val[q]
		}
	}
	return st
}
