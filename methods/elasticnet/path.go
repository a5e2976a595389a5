package elasticnet

import (
	"context"
	"math"
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
		f.Beta[k] = make([]float64, p.d)
		for j, b := range st.beta[k*p.d : (k+1)*p.d] {
			f.Beta[k][j] = b / p.scale[j]
		}
		f.Intercept[k] = st.c[k]
	}
	return f
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

// point is a solved point of a path, kept sparse.
type point struct {
	lambda float64
	c      []float64
	nz     []int // indices into the K×d coefficients
	val    []float64
	conv   bool
}

// path is a warm-started λ path on one Problem that grows on demand and
// answers a fit at any λ deterministically: the path visits a fixed
// sequence of λ values (glmnet's log-spaced sequence continued
// geometrically below its end, or a user's list), each solved from the one
// before, and the fit at λ is solved from the stored solution at the
// smallest sequence value ≥ λ, so it does not depend on which λ were
// asked for before. It is safe for concurrent use.
type path struct {
	p   *Problem
	seq func(t int) (float64, bool) // the t-th λ of the sequence

	mu     sync.Mutex
	points []point
	front  *state // the state at the last point (the null model before any)
	w      *work
}

func newPath(p *Problem, seq func(t int) (float64, bool)) *path {
	return &path{p: p, seq: seq, front: p.null.clone(), w: p.newWork()}
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

// At returns the fit at lambda, with the passes spent on the path up to it
// added to the fit's own.
func (pa *path) At(ctx context.Context, lambda float64) (*Fit, error) {
	pa.mu.Lock()
	passes := 0
	for {
		t := len(pa.points)
		next, ok := pa.seq(t)
		if !ok || next < lambda*(1-1e-12) || next <= 0 {
			break
		}
		if err := pa.p.solve(ctx, pa.front, next, pa.w); err != nil {
			pa.mu.Unlock()
			return nil, err
		}
		passes += pa.front.passes
		pa.points = append(pa.points, pa.sparse(pa.front))
	}
	var from *point
	for t := len(pa.points) - 1; t >= 0; t-- {
		if pa.points[t].lambda >= lambda*(1-1e-12) {
			from = &pa.points[t]
			break
		}
	}
	pa.mu.Unlock()
	st := pa.restore(from)
	if from != nil && math.Abs(from.lambda-lambda) <= 1e-12*lambda {
		f := pa.p.fit(st)
		f.Passes, f.Converged = passes, from.conv
		return f, nil
	}
	if err := pa.p.solve(ctx, st, lambda, pa.p.newWork()); err != nil {
		return nil, err
	}
	f := pa.p.fit(st)
	f.Passes += passes
	return f, nil
}

func (pa *path) sparse(st *state) point {
	pt := point{lambda: st.lambda, c: append([]float64(nil), st.c...), conv: st.conv}
	for i, b := range st.beta {
		if b != 0 {
			pt.nz = append(pt.nz, i)
			pt.val = append(pt.val, b)
		}
	}
	return pt
}

// restore rebuilds a state from a stored point (nil: the null model); its
// strong set is the point's non-zero columns.
func (pa *path) restore(pt *point) *state {
	p := pa.p
	if pt == nil {
		return p.null.clone()
	}
	st := p.newState()
	st.lambda = pt.lambda
	copy(st.c, pt.c)
	for k := 0; k < p.K; k++ {
		eta := st.eta[k*p.n : (k+1)*p.n]
		for i := range eta {
			eta[i] = st.c[k]
		}
	}
	for t, idx := range pt.nz {
		k, j := idx/p.d, idx%p.d
		b := pt.val[t]
		st.beta[idx] = b
		st.strong[j] = true
		eta := st.eta[k*p.n : (k+1)*p.n]
		for q := p.ptr[j]; q < p.ptr[j+1]; q++ {
			eta[p.ind[q]] += b * p.val[q]
		}
	}
	p.gradient(st, nil)
	return st
}
