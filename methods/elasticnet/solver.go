package elasticnet

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/repro-ml/repro/matrix"
)

// Options configures a Problem. The zero value is glmnet's lasso without
// standardization and without intercept; Alpha 1, Standardize and
// Intercept are glmnet's defaults.
type Options struct {
	// Alpha mixes the penalties: λ(α‖β‖₁ + (1−α)/2‖β‖²), in [0, 1].
	Alpha float64
	// Standardize scales every column to unit population standard
	// deviation before fitting (glmnet's standardize): the penalty applies
	// to the coefficients of the scaled columns; Fit reports them on the
	// original scale.
	Standardize bool
	// Intercept fits unpenalized intercepts.
	Intercept bool
	// Tol is glmnet's thresh: coordinate descent stops when no coefficient
	// moved by more than Tol·dev₀ in the Hessian norm h_jΔβ_j² over a
	// pass, and the Newton loop when no coefficient did over a whole
	// quadratic approximation; dev₀ is the null model's mean negative
	// log-likelihood. If 0, 1e-7 is used.
	Tol float64
	// MaxPasses caps the coordinate-descent passes per λ. If 0, 100000 is
	// used.
	MaxPasses int
}

// Problem is an elastic-net logistic regression problem on one training
// set: minimize over intercepts c and coefficients β
//
//	−(1/n) Σᵢ log pᵢ(yᵢ) + λ Σₖ Σⱼ (α|β̃ₖⱼ| + (1−α)/2 β̃ₖⱼ²),
//
// glmnet's objective and λ scaling, where β̃ₖⱼ = sⱼβₖⱼ are the coefficients
// of the columns divided by their scales sⱼ (the population standard
// deviations with Standardize, else 1). With two classes p is the logistic
// model of glmnet's family "binomial" (one coefficient vector, for class
// 1); with more, the multinomial model of family "multinomial" with
// type.multinomial "ungrouped" (one vector per class, penalized
// separately). A Problem holds the scaled columns and the null model; it is
// safe for concurrent use by several Paths. With α = 0 it merges the
// columns that are identical once scaled (mergeIdentical), which leaves the
// solution unchanged; Fit and the checks speak of the data's columns.
type Problem struct {
	n, d, K int // K: coefficient vectors (1 binomial, else classes); d: internal columns
	dData   int // the data's columns (d unless identical columns were merged)
	opt     Options
	ptr     []int // internal column g is ind/val[ptr[g]:ptr[g+1]], values divided by the scale of its data columns (and × √m for m merged ones)
	ind     []int32
	val     []float64
	scale   []float64 // per data column
	grp     *groups   // the data columns of each internal column; nil when none were merged
	use     []bool    // per internal column: false for a column that cannot enter (constant)
	y       []int32   // class of each row (binomial: 0 or 1)
	dev0    float64   // null model's mean negative log-likelihood
	null    *state
	lmax    float64
	parts   []int // column ranges [parts[q], parts[q+1]) of gradient's goroutines
}

// NewProblem returns the problem of the rows of X with classes y (each in
// [0, classes)), classes ≥ 2. Every class must occur. It returns an error
// for empty or non-finite data.
func NewProblem(X matrix.Matrix, y []int, classes int, opt Options) (*Problem, error) {
	return newProblem(X, y, classes, opt, opt.Alpha == 0)
}

// newProblem is NewProblem, merging identical columns if merge (only valid
// for α = 0).
func newProblem(X matrix.Matrix, y []int, classes int, opt Options, merge bool) (*Problem, error) {
	n, d := X.Dims()
	if len(y) != n {
		panic(fmt.Sprintf("elasticnet: NewProblem: %d labels for %d rows", len(y), n))
	}
	if classes < 2 {
		panic(fmt.Sprintf("elasticnet: NewProblem: %d classes", classes))
	}
	if n == 0 || d == 0 {
		return nil, fmt.Errorf("empty training set (%d rows, %d columns)", n, d)
	}
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("%d rows exceed the 32-bit row index", n)
	}
	if k := max(classes, 1); k > 2 && d > math.MaxInt32/k || d > math.MaxInt32 {
		return nil, fmt.Errorf("%d columns × %d classes exceed the 32-bit coefficient index", d, classes)
	}
	if !(opt.Alpha >= 0 && opt.Alpha <= 1) {
		return nil, fmt.Errorf("alpha %g outside [0, 1]", opt.Alpha)
	}
	if opt.Tol == 0 {
		opt.Tol = 1e-7
	}
	if opt.MaxPasses == 0 {
		opt.MaxPasses = 100000
	}
	p := &Problem{n: n, d: d, dData: d, K: classes, opt: opt, y: make([]int32, n)}
	if classes == 2 {
		p.K = 1
	}
	count := make([]int, classes)
	for i, c := range y {
		if c < 0 || c >= classes {
			panic(fmt.Sprintf("elasticnet: NewProblem: label %d outside [0, %d)", c, classes))
		}
		p.y[i] = int32(c)
		count[c]++
	}
	for c, k := range count {
		if k == 0 {
			return nil, fmt.Errorf("class %d has no rows", c)
		}
	}
	t := matrix.ToCSR(X).T()
	p.ptr, p.val = t.Ptr, slices.Clone(t.Val)
	p.ind = make([]int32, len(t.Ind))
	for k, i := range t.Ind {
		p.ind[k] = int32(i)
	}
	p.scale = make([]float64, d)
	p.use = make([]bool, d)
	fn := float64(n)
	for j := 0; j < d; j++ {
		vals := p.val[p.ptr[j]:p.ptr[j+1]]
		var s, ss float64
		for _, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("column %d has a non-finite value", j)
			}
			s += v
			ss += v * v
		}
		mean := 0.0
		if opt.Intercept {
			mean = s / fn
		}
		// Population variance about the mean (about 0 without intercept),
		// as glmnet; the centred sum of squares is computed exactly from
		// the non-zeros and the implicit zeros.
		var vr float64
		for _, v := range vals {
			vr += (v - mean) * (v - mean)
		}
		vr += float64(n-len(vals)) * mean * mean
		vr /= fn
		p.use[j] = len(vals) > 0 && vr > 1e-24*(ss/fn)
		p.scale[j] = 1
		if opt.Standardize && p.use[j] {
			p.scale[j] = math.Sqrt(vr)
			for k := range vals {
				vals[k] /= p.scale[j]
			}
		}
	}
	if merge {
		p.mergeIdentical()
	}
	p.parts = splitColumns(p.ptr, p.K*len(p.val), runtime.GOMAXPROCS(0))
	p.null = p.nullState(count)
	p.gradient(p.null, nil)
	for g, v := range p.null.grad {
		if p.use[g] {
			// A merged column's gradient is √m times its columns'.
			_, fc := p.first(g)
			p.lmax = math.Max(p.lmax, v*fc)
		}
	}
	p.lmax /= math.Max(opt.Alpha, 1e-3)
	return p, nil
}

// parallelWork is the number of multiply-adds (non-zeros × coefficient
// vectors) above which gradient splits the columns among goroutines.
const parallelWork = 1 << 22

// splitColumns returns the boundaries of at most procs column ranges with
// about equal numbers of non-zeros, one range when work is below
// parallelWork.
func splitColumns(ptr []int, work, procs int) []int {
	d := len(ptr) - 1
	if work < parallelWork || procs < 2 {
		return []int{0, d}
	}
	parts := []int{0}
	nnz := ptr[d]
	for q := 1; q < procs; q++ {
		j, _ := slices.BinarySearch(ptr, nnz*q/procs)
		if j > parts[len(parts)-1] && j < d {
			parts = append(parts, j)
		}
	}
	return append(parts, d)
}

// nullState returns the intercept-only model (all zero without intercept)
// and sets p.dev0.
func (p *Problem) nullState(count []int) *state {
	st := p.newState()
	fn := float64(p.n)
	if p.K == 1 {
		q := float64(count[1]) / fn
		if p.opt.Intercept {
			st.c[0] = math.Log(q / (1 - q))
			p.dev0 = -(q*math.Log(q) + (1-q)*math.Log(1-q))
		} else {
			p.dev0 = math.Ln2
		}
	} else {
		if p.opt.Intercept {
			mean := 0.0
			for k, c := range count {
				q := float64(c) / fn
				st.c[k] = math.Log(q)
				mean += st.c[k] / float64(p.K)
				p.dev0 -= q * math.Log(q)
			}
			for k := range st.c {
				st.c[k] -= mean
			}
		} else {
			p.dev0 = math.Log(float64(p.K))
		}
	}
	for k := 0; k < p.K; k++ {
		eta := st.eta[k*p.n : (k+1)*p.n]
		for i := range eta {
			eta[i] = st.c[k]
		}
	}
	st.lambda = math.Inf(1)
	return st
}

// Classes returns the number of classes.
func (p *Problem) Classes() int {
	if p.K == 1 {
		return 2
	}
	return p.K
}

// Scales returns the column scales sⱼ: the population standard deviations
// with Standardize, else 1.
func (p *Problem) Scales() []float64 { return slices.Clone(p.scale) }

// LambdaMax returns the smallest λ at which every coefficient is zero
// (for α < 10⁻³, that of α = 10⁻³, as glmnet).
func (p *Problem) LambdaMax() float64 { return p.lmax }

// Sequence returns glmnet's λ sequence: nlambda values log-spaced from
// LambdaMax down to minRatio·LambdaMax. If minRatio is 0, glmnet's default
// is used: 0.01 when there are fewer rows than columns, else 10⁻⁴.
func (p *Problem) Sequence(nlambda int, minRatio float64) []float64 {
	if minRatio == 0 {
		minRatio = 1e-4
		if p.n < p.dData {
			minRatio = 0.01
		}
	}
	out := make([]float64, nlambda)
	for t := range out {
		out[t] = p.lmax * math.Pow(minRatio, float64(t)/float64(max(nlambda-1, 1)))
	}
	return out
}

// state is a point on the path: coefficients on the scaled columns,
// intercepts, linear predictors and what the strong rule needs. Only the
// columns of the strong set have coefficients, so that a state's size
// follows the strong set, not the K×d coefficients of a wide multinomial
// problem (20 classes of 12 million 5-grams): the strong columns are kept
// in increasing order, each at a position p, with their coefficients
// class-major (beta[k·S + p], S strong columns) and their non-zeros copied
// side by side (sub), so that the loops over the strong set read memory in
// order.
type state struct {
	lambda float64   // the λ solved for (+Inf: the null model)
	c      []float64 // K intercepts (of the unscaled, uncentred columns)
	eta    []float64 // K×n linear predictors, class-major
	grad   []float64 // d: maxₖ |∂/∂β̃ₖⱼ loss| of the columns not in the strong set
	pos    []int32   // d: the column's position in cols, −1 outside the strong set (kept along the path)
	cols   []int32   // the strong columns, increasing
	beta   []float64 // K×S, class-major, scaled columns
	sub    *columns  // the strong columns' non-zeros (shared by clones: never changed, replaced)
	ever   []int32   // positions whose coefficients have been non-zero, in order of entry (the others are all zero)
	inEver []bool    // per position: membership of ever
	passes int
	conv   bool
}

// columns holds some columns of a Problem side by side: column t is
// ind/val[ptr[t]:ptr[t+1]].
type columns struct {
	ptr []int
	ind []int32
	val []float64
}

func (p *Problem) newState() *state {
	st := &state{c: make([]float64, p.K), eta: make([]float64, p.K*p.n), grad: make([]float64, p.d), pos: make([]int32, p.d),
		sub: &columns{ptr: []int{0}}}
	for j := range st.pos {
		st.pos[j] = -1
	}
	return st
}

func (st *state) clone() *state {
	return &state{lambda: st.lambda, c: slices.Clone(st.c), eta: slices.Clone(st.eta), grad: slices.Clone(st.grad),
		pos: slices.Clone(st.pos), cols: slices.Clone(st.cols), beta: slices.Clone(st.beta), sub: st.sub,
		ever: slices.Clone(st.ever), inEver: slices.Clone(st.inEver), passes: st.passes, conv: st.conv}
}

// strong reports whether column j is in the strong set.
func (st *state) strong(j int) bool { return st.pos[j] >= 0 }

// addStrong puts the columns js (increasing, none strong yet) into st's
// strong set with zero coefficients: the strong columns, their
// coefficients and the ever-active positions are merged into the new
// order, and the strong columns' non-zeros copied afresh.
func (p *Problem) addStrong(st *state, js []int) {
	if len(js) == 0 {
		return
	}
	K, S0 := p.K, len(st.cols)
	S := S0 + len(js)
	cols := make([]int32, 0, S)
	moved := make([]int32, S0) // new position of each old one
	a, b := st.cols, js
	for len(a) > 0 || len(b) > 0 {
		if len(b) == 0 || (len(a) > 0 && int(a[0]) < b[0]) {
			moved[S0-len(a)] = int32(len(cols))
			cols, a = append(cols, a[0]), a[1:]
		} else {
			cols, b = append(cols, int32(b[0])), b[1:]
		}
	}
	beta := make([]float64, K*S)
	for k := 0; k < K; k++ {
		old, nw := st.beta[k*S0:(k+1)*S0], beta[k*S:(k+1)*S]
		for q, v := range old {
			nw[moved[q]] = v
		}
	}
	inEver := make([]bool, S)
	for t, q := range st.ever {
		st.ever[t] = moved[q]
		inEver[moved[q]] = true
	}
	for q, j := range cols {
		st.pos[j] = int32(q)
	}
	st.cols, st.beta, st.inEver = cols, beta, inEver
	st.sub = p.columnsOf(cols)
}

// columnsOf copies the non-zeros of the columns cols.
func (p *Problem) columnsOf(cols []int32) *columns {
	nnz := 0
	for _, j := range cols {
		nnz += p.ptr[j+1] - p.ptr[j]
	}
	c := &columns{ptr: make([]int, len(cols)+1), ind: make([]int32, 0, nnz), val: make([]float64, 0, nnz)}
	for q, j := range cols {
		c.ind = append(c.ind, p.ind[p.ptr[j]:p.ptr[j+1]]...)
		c.val = append(c.val, p.val[p.ptr[j]:p.ptr[j+1]]...)
		c.ptr[q+1] = len(c.ind)
	}
	return c
}

// enter adds position q to the ever-active positions if it is not one yet.
func (st *state) enter(q int32) {
	if !st.inEver[q] {
		st.inEver[q] = true
		st.ever = append(st.ever, q)
	}
}

// coef returns the coefficient of class k on column j.
func (st *state) coef(k, j int) float64 {
	if q := st.pos[j]; q >= 0 {
		return st.beta[k*len(st.cols)+int(q)]
	}
	return 0
}

// probs sets pk to the model's probabilities of class k (binomial: of
// class 1) at st.
func (p *Problem) probs(st *state, k int, pk, lse []float64) {
	n := p.n
	if p.K == 1 {
		for i, e := range st.eta[:n] {
			pk[i] = sigmoid(e)
		}
		return
	}
	eta := st.eta[k*n : (k+1)*n]
	for i, e := range eta {
		pk[i] = math.Exp(e - lse[i])
	}
}

// logSumExp sets lse[i] = log Σₖ exp(ηᵢₖ) (multinomial only).
func (p *Problem) logSumExp(st *state, lse []float64) {
	for i := range lse {
		lse[i] = p.rowLogSumExp(st, i)
	}
}

// rowLogSumExp returns log Σₖ exp(ηᵢₖ) of row i.
func (p *Problem) rowLogSumExp(st *state, i int) float64 {
	n := p.n
	m := math.Inf(-1)
	for k := 0; k < p.K; k++ {
		if e := st.eta[k*n+i]; e > m {
			m = e
		}
	}
	s := 0.0
	for k := 0; k < p.K; k++ {
		s += math.Exp(st.eta[k*n+i] - m)
	}
	return m + math.Log(s)
}

// residuals returns the n×K row-major matrix yᵢₖ − pᵢₖ at st.
func (p *Problem) residuals(st *state) []float64 {
	n, K := p.n, p.K
	res := make([]float64, n*K)
	pk := make([]float64, n)
	var lse []float64
	if K > 1 {
		lse = make([]float64, n)
		p.logSumExp(st, lse)
	}
	for k := 0; k < K; k++ {
		p.probs(st, k, pk, lse)
		for i, v := range pk {
			y := 0.0
			if (K == 1 && p.y[i] == 1) || (K > 1 && int(p.y[i]) == k) {
				y = 1
			}
			res[i*K+k] = y - v
		}
	}
	return res
}

// gradient sets st.grad[j] = maxₖ |(1/n) Σᵢ uᵢⱼ(yᵢₖ − pᵢₖ)| for the columns
// not in the strong set; with full non-nil it also stores the gradient of
// the loss, −(1/n)Σᵢ uᵢⱼ(yᵢₖ − pᵢₖ), of every column in full (K×d). The
// columns are split among goroutines when there are many non-zeros (the
// check at the end of each λ of a wide problem is most of its time); each
// column's arithmetic is the same either way.
func (p *Problem) gradient(st *state, full []float64) {
	res := p.residuals(st)
	var rmax []float64
	if p.K > 1 && full == nil {
		// A column with one non-zero u in row i has maxₖ |u·rᵢₖ| =
		// |u|·maxₖ |rᵢₖ| exactly (rounding is monotone): most columns of
		// k-gram features are such.
		rmax = make([]float64, p.n)
		for i := range rmax {
			for _, r := range res[i*p.K : (i+1)*p.K] {
				if a := math.Abs(r); a > rmax[i] {
					rmax[i] = a
				}
			}
		}
	}
	parts := p.parts
	if len(parts) <= 2 {
		p.gradientCols(st, full, res, rmax, 0, p.d)
		return
	}
	var wg sync.WaitGroup
	for q := 0; q+1 < len(parts); q++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.gradientCols(st, full, res, rmax, parts[q], parts[q+1])
		}()
	}
	wg.Wait()
}

// gradientCols is gradient on the columns [j0, j1).
func (p *Problem) gradientCols(st *state, full, res, rmax []float64, j0, j1 int) {
	K, fn := p.K, float64(p.n)
	g := make([]float64, K)
	for j := j0; j < j1; j++ {
		if !p.use[j] || (st.strong(j) && full == nil) {
			st.grad[j] = 0
			continue
		}
		lo, hi := p.ptr[j], p.ptr[j+1]
		if rmax != nil && hi-lo == 1 {
			st.grad[j] = math.Abs(p.val[lo]) * rmax[p.ind[lo]] / fn
			continue
		}
		clear(g)
		if K == 1 {
			g[0] = matrix.SparseDot(p.ind[lo:hi], p.val[lo:hi], res)
		} else {
			for t := lo; t < hi; t++ {
				u, r := p.val[t], res[int(p.ind[t])*K:int(p.ind[t])*K+K]
				for k := range g {
					g[k] += u * r[k]
				}
			}
		}
		m := 0.0
		for k, v := range g {
			// Not math.Max: the values are finite, and math.Max is a call
			// (a tenth of a wide multinomial path's time).
			if a := math.Abs(v); a > m {
				m = a
			}
			if full != nil {
				full[k*p.d+j] = -v / fn
			}
		}
		st.grad[j] = m / fn
	}
}

// work holds the per-solve buffers.
type work struct {
	pk, v, rho, lse []float64 // n
	ek, ssum        []float64 // n (multinomial): exp(ηᵢₖ − lseᵢ) of the class in hand, Σₖ of them
	m, h, bold, dq  []float64 // per strong position
	eta0            []float64 // n: a class's linear predictors before its step
	lse0, ssum0     []float64 // n (multinomial): lse and ssum before a class's step
	all             []int32   // 0, 1, 2, …: every strong position
	js              []int     // columns entering the strong set
}

// solve moves st to the solution at lambda, warm-started from st (the
// solution at st.lambda > lambda, or the null model), as glmnet's lognet:
// the sequential strong rule picks the columns to work on, an outer Newton
// loop forms the quadratic approximation of each class's loss in turn, and
// coordinate descent minimizes it over the strong set, then over the
// columns that have been non-zero anywhere on the path so far (glmnet's
// ever-active set) until they settle, then over the strong set again; when
// the Newton loop has converged, columns outside the strong set that
// violate the optimality conditions join it and the loop resumes.
func (p *Problem) solve(ctx context.Context, st *state, lambda float64, w *work) error {
	alpha := p.opt.Alpha
	l1, l2 := lambda*alpha, lambda*(1-alpha)
	prev := math.Min(st.lambda, p.lmax)
	tlam := alpha * (2*lambda - prev)
	w.js = w.js[:0]
	for j, g := range st.grad {
		if p.use[j] && !st.strong(j) && g > tlam {
			w.js = append(w.js, j)
		}
	}
	p.addStrong(st, w.js)
	st.passes, st.conv = 0, false
	shr := p.opt.Tol * p.dev0
	for {
		w.grow(len(st.cols))
		for st.passes <= p.opt.MaxPasses {
			if err := ctx.Err(); err != nil {
				return err
			}
			moved := false
			if p.K > 1 {
				p.logSumExp(st, w.lse)
				for i := range w.ssum {
					w.ssum[i] = 1
				}
			}
			for k := 0; k < p.K; k++ {
				mv, err := p.newtonStep(ctx, st, k, l1, l2, shr, w)
				if err != nil {
					return err
				}
				moved = moved || mv
			}
			if p.K > 1 {
				p.shift(st)
			}
			if !moved {
				break
			}
		}
		if st.passes > p.opt.MaxPasses {
			p.gradient(st, nil)
			break
		}
		p.gradient(st, nil)
		w.js = w.js[:0]
		for j, g := range st.grad {
			if p.use[j] && !st.strong(j) && g > l1 {
				w.js = append(w.js, j)
			}
		}
		p.addStrong(st, w.js)
		if len(w.js) == 0 {
			st.conv = true
			break
		}
	}
	st.lambda = lambda
	return nil
}

// newtonStep forms the quadratic approximation of the loss in the
// coefficients of class k at st and minimizes it with the penalty over the
// strong columns by coordinate descent, then updates st. It reports
// whether the intercept or a coefficient moved by more than shr in the
// Hessian norm.
//
// The columns are centred by their means under the Newton weights vᵢ, so
// that the intercept decouples from them: it takes one exact step, and the
// coordinate steps never move it. The centring stays implicit (the columns
// are sparse): with the residual r = ρ + θv, the gradient of a centred
// column is Σᵢ uᵢⱼρᵢ − mⱼΣᵢρᵢ, over the column's non-zeros only.
func (p *Problem) newtonStep(ctx context.Context, st *state, k int, l1, l2, shr float64, w *work) (bool, error) {
	n, fn := p.n, float64(p.n)
	if p.K == 1 {
		p.probs(st, k, w.pk, nil)
	} else {
		// The class's share of Σₖ exp(ηᵢₖ − lseᵢ) = ssumᵢ, kept up to date
		// below as each class moves.
		for i, e := range st.eta[k*n : (k+1)*n] {
			w.ek[i] = math.Exp(e - w.lse[i])
			w.pk[i] = w.ek[i] / w.ssum[i]
		}
	}
	V, R := 0.0, 0.0
	for i, pi := range w.pk {
		y := 0.0
		if (p.K == 1 && p.y[i] == 1) || (p.K > 1 && int(p.y[i]) == k) {
			y = 1
		}
		vi := pi * (1 - pi)
		w.v[i] = vi
		w.rho[i] = y - pi
		V += vi
		R += y - pi
	}
	if V <= 1e-300 {
		return false, nil
	}
	dc := 0.0
	if p.opt.Intercept {
		dc = R / V
		for i, vi := range w.v {
			w.rho[i] -= vi * dc
		}
	}
	P := 0.0
	for _, r := range w.rho {
		P += r
	}
	S := len(st.cols)
	beta := st.beta[k*S : (k+1)*S]
	sub := st.sub
	for q := range S {
		lo, hi := sub.ptr[q], sub.ptr[q+1]
		var sv, svv float64
		for t := lo; t < hi; t++ {
			vu := w.v[sub.ind[t]] * sub.val[t]
			sv += vu
			svv += vu * sub.val[t]
		}
		mj := 0.0
		if p.opt.Intercept {
			mj = sv / V
		}
		w.m[q] = mj
		w.h[q] = (svv - mj*mj*V) / fn
		w.bold[q] = beta[q]
	}
	// pass runs one coordinate-descent pass over the strong positions qs
	// and returns the largest move h_jΔ².
	pass := func(qs []int32) float64 {
		st.passes++
		dlx := 0.0
		for _, q := range qs {
			h := w.h[q]
			if h+l2 <= 0 {
				continue
			}
			lo, hi := sub.ptr[q], sub.ptr[q+1]
			ind, val := sub.ind[lo:hi], sub.val[lo:hi]
			g := matrix.SparseDot(ind, val, w.rho)
			b := beta[q]
			u := (g-w.m[q]*P)/fn + h*b
			nb := 0.0
			if a := math.Abs(u) - l1; a > 0 {
				nb = math.Copysign(a, u) / (h + l2)
			}
			delta := nb - b
			if delta == 0 {
				continue
			}
			beta[q] = nb
			st.enter(q)
			sparseUpdate(ind, val, w.rho, w.v, delta)
			P -= delta * w.m[q] * V
			if mv := h * delta * delta; mv > dlx {
				dlx = mv
			}
		}
		return dlx
	}
	for st.passes <= p.opt.MaxPasses {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		if pass(w.all[:S]) < shr {
			break
		}
		for st.passes <= p.opt.MaxPasses && pass(st.ever) >= shr {
		}
	}
	// Apply the step to the intercept and the linear predictors, and keep
	// it if the objective did not rise; else halve it. The quadratic model
	// can overshoot where the loss is far from quadratic — rows the model
	// fits almost exactly give columns near-zero curvature, and a step
	// that zeroes such a column's coefficient looks cheap to the model but
	// is not — and coordinate descent then cycles between the two until
	// the pass cap (a fold of Table 1's 20 Newsgroups 5-grams, α = 1). A
	// kept full step is the plain Newton step, bit for bit.
	eta := st.eta[k*n : (k+1)*n]
	for q := range S {
		w.dq[q] = beta[q] - w.bold[q]
	}
	f0 := p.classObjective(st, k, w.bold[:S], l1, l2, w)
	copy(w.eta0, eta)
	c0 := st.c[k]
	if p.K > 1 {
		copy(w.lse0, w.lse)
		copy(w.ssum0, w.ssum)
	}
	step := 1.0
	for halvings := 0; ; halvings++ {
		moved := V/fn*(step*dc)*(step*dc) > shr
		dcu := step * dc
		for q := range S {
			delta := w.dq[q]
			if delta == 0 {
				continue
			}
			if step != 1 {
				delta *= step
				beta[q] = w.bold[q] + delta
			}
			if w.h[q]*delta*delta > shr {
				moved = true
			}
			dcu -= delta * w.m[q]
			for t := sub.ptr[q]; t < sub.ptr[q+1]; t++ {
				eta[sub.ind[t]] += delta * sub.val[t]
			}
		}
		st.c[k] = c0 + dcu
		for i := range eta {
			eta[i] += dcu
		}
		if p.K > 1 {
			p.updateSum(st, k, w)
		}
		f1 := p.classObjective(st, k, beta, l1, l2, w)
		if f1 <= f0+1e-12*math.Abs(f0) {
			return moved, nil
		}
		// Undo, and try half the step (none after 30 halvings).
		copy(eta, w.eta0)
		st.c[k] = c0
		if p.K > 1 {
			copy(w.lse, w.lse0)
			copy(w.ssum, w.ssum0)
		}
		step /= 2
		if halvings == 30 {
			copy(beta, w.bold[:S])
			return false, nil
		}
	}
}

// classObjective returns the objective at st with class k's coefficients
// beta (binomial: the one vector) in place of st's: the mean negative
// log-likelihood (multinomial: through w.lse and w.ssum, up to date with
// st.eta) plus the penalty of beta; the other classes' penalties, which a
// step of class k does not change, are left out.
func (p *Problem) classObjective(st *state, k int, beta []float64, l1, l2 float64, w *work) float64 {
	n := p.n
	loss := 0.0
	if p.K == 1 {
		loss = p.binomialLoss(st)
	} else {
		for i := 0; i < n; i++ {
			loss += w.lse[i] + math.Log(w.ssum[i]) - st.eta[int(p.y[i])*n+i]
		}
	}
	pen := 0.0
	for _, b := range beta {
		pen += l1*math.Abs(b) + l2/2*b*b
	}
	return loss/float64(n) + pen
}

// updateSum brings w.ssum up to date after class k's linear predictors
// moved, as glmnet updates its Σₖ exp(ηᵢₖ): n exponentials instead of the
// K·n of a fresh log-sum-exp. A row whose sum fell below half its
// reference (the class in hand lost much of the row's mass, so the
// subtraction would lose digits) gets its log-sum-exp recomputed: the
// running sums stay within a few units in the last place.
func (p *Problem) updateSum(st *state, k int, w *work) {
	n := p.n
	eta := st.eta[k*n : (k+1)*n]
	for i, e := range eta {
		s := w.ssum[i] - w.ek[i] + math.Exp(e-w.lse[i])
		if s >= 0.5 && s <= 1e300 {
			w.ssum[i] = s
			continue
		}
		w.lse[i], w.ssum[i] = p.rowLogSumExp(st, i), 1
	}
}

// shift removes from the multinomial model the common parts the loss
// cannot see, as glmnet does after each Newton cycle: the mean of the
// intercepts, and from each column's K coefficients the value s
// minimizing the penalty Σₖ α|βₖⱼ − s| + (1−α)/2(βₖⱼ − s)².
func (p *Problem) shift(st *state) {
	n, K := p.n, p.K
	mean := 0.0
	for _, c := range st.c {
		mean += c / float64(K)
	}
	for k := range st.c {
		st.c[k] -= mean
	}
	di := make([]float64, n)
	for i := range di {
		di[i] = -mean
	}
	S, sub := len(st.cols), st.sub
	a, buf := make([]float64, K), make([]float64, K)
	for q := range S {
		if !st.inEver[q] {
			continue // never moved: all K coefficients are zero
		}
		nz := false
		for k := range a {
			a[k] = st.beta[k*S+q]
			nz = nz || a[k] != 0
		}
		if !nz {
			continue
		}
		s := penaltyCentre(a, p.opt.Alpha, buf)
		if s == 0 {
			continue
		}
		for k := range a {
			st.beta[k*S+q] -= s
		}
		for t := sub.ptr[q]; t < sub.ptr[q+1]; t++ {
			di[sub.ind[t]] -= s * sub.val[t]
		}
	}
	for k := 0; k < K; k++ {
		eta := st.eta[k*n : (k+1)*n]
		for i := range eta {
			eta[i] += di[i]
		}
	}
}

// penaltyCentre returns the s minimizing Σₖ α|aₖ − s| + (1−α)/2(aₖ − s)²:
// the mean at α = 0, the median at α = 1 (the midpoint of the two middle
// values for an even count, as glmnet). buf (K values, or nil) is scratch
// for the sorted copy of a.
func penaltyCentre(a []float64, alpha float64, buf []float64) float64 {
	K := len(a)
	sum := 0.0
	for _, v := range a {
		sum += v
	}
	if alpha == 0 || K == 2 {
		return sum / float64(K)
	}
	b := append(buf[:0], a...)
	slices.Sort(b)
	if alpha == 1 {
		if K%2 == 1 {
			return b[K/2]
		}
		return (b[K/2-1] + b[K/2]) / 2
	}
	// On (b[i−1], b[i]) the derivative is α(2i − K) + (1−α)(Ks − Σa).
	for i := 0; i <= K; i++ {
		s := (sum - alpha*float64(2*i-K)/(1-alpha)) / float64(K)
		if (i == 0 || s > b[i-1]) && (i == K || s < b[i]) {
			return s
		}
	}
	// Otherwise the minimum is at a kink.
	best, bestF := b[0], math.Inf(1)
	for _, s := range b {
		f := 0.0
		for _, v := range a {
			f += alpha*math.Abs(v-s) + (1-alpha)/2*(v-s)*(v-s)
		}
		if f < bestF {
			best, bestF = s, f
		}
	}
	return best
}

// grow makes w's per-position vectors hold S strong columns.
func (w *work) grow(S int) {
	if len(w.m) >= S {
		return
	}
	S += S / 4
	w.m, w.h, w.bold, w.dq = make([]float64, S), make([]float64, S), make([]float64, S), make([]float64, S)
	w.all = make([]int32, S)
	for q := range w.all {
		w.all[q] = int32(q)
	}
}

func (p *Problem) newWork() *work {
	return &work{pk: make([]float64, p.n), v: make([]float64, p.n), rho: make([]float64, p.n), lse: make([]float64, p.n),
		ek: make([]float64, p.n), ssum: make([]float64, p.n), eta0: make([]float64, p.n),
		lse0: make([]float64, p.n), ssum0: make([]float64, p.n)}
}

func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// sparseUpdate sets r[ind[t]] −= delta·v[ind[t]]·val[t] for each t,
// len(val) = len(ind).
func sparseUpdate(ind []int32, val, r, v []float64, delta float64) {
	val = val[:len(ind)]
	for t, i := range ind {
		r[i] -= delta * v[i] * val[t]
	}
}
