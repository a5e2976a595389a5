package linear

import (
	"context"
	"math"

	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
)

// l2Problem is ½‖w‖² + C Σᵢ log(1+exp(−yᵢ(wᵀxᵢ+b))) over θ = (w, b), b
// unpenalized and fixed at 0 without an intercept. After eval at θ it holds
// what the Hessian-vector product at θ needs.
type l2Problem struct {
	X         matrix.Matrix
	y         []float64
	C         float64
	intercept bool
	d         int
	z, D      []float64 // Xw + b; C σ(m)(1−σ(m)) at the last eval
	r, xv     []float64 // scratch of length n
}

// eval returns f(θ) and writes ∇f(θ) into g (length d+1).
func (p *l2Problem) eval(theta, g []float64) float64 {
	d := p.d
	w, b := theta[:d], theta[d]
	p.X.MulVec(p.z, w)
	f := 0.0
	for i, zi := range p.z {
		zi += b
		p.z[i] = zi
		m := p.y[i] * zi
		f += log1pexp(-m)
		s := sigmoid(-m) // σ(−m) = 1 − σ(m)
		p.r[i] = -p.C * p.y[i] * s
		p.D[i] = p.C * s * (1 - s)
	}
	f *= p.C
	p.X.MulTransVec(g[:d], p.r)
	gb := 0.0
	for _, ri := range p.r {
		gb += ri
	}
	for j, wj := range w {
		g[j] += wj
		f += 0.5 * wj * wj
	}
	g[d] = 0
	if p.intercept {
		g[d] = gb
	}
	return f
}

// loss returns f(θ) without the gradient.
func (p *l2Problem) loss(theta []float64) float64 {
	d := p.d
	w, b := theta[:d], theta[d]
	p.X.MulVec(p.xv, w)
	f := 0.0
	for i, zi := range p.xv {
		f += log1pexp(-p.y[i] * (zi + b))
	}
	f *= p.C
	for _, wj := range w {
		f += 0.5 * wj * wj
	}
	return f
}

// hessVec writes ∇²f·v at the last eval into hv: v_w + Xᵀ(D∘(Xv_w + v_b))
// and, with an intercept, Σᵢ Dᵢ(Xv_w + v_b)ᵢ.
func (p *l2Problem) hessVec(v, hv []float64) {
	d := p.d
	p.X.MulVec(p.xv, v[:d])
	vb := 0.0
	if p.intercept {
		vb = v[d]
	}
	sb := 0.0
	for i, x := range p.xv {
		u := p.D[i] * (x + vb)
		p.xv[i] = u
		sb += u
	}
	p.X.MulTransVec(hv[:d], p.xv)
	for j := 0; j < d; j++ {
		hv[j] += v[j]
	}
	hv[d] = 0
	if p.intercept {
		hv[d] = sb
	}
}

// fitL2TRON minimizes ½‖w‖² + C Σᵢ log(1+exp(−yᵢ(wᵀxᵢ+b))) by the trust
// region Newton method of Lin, Weng and Keerthi (2008), liblinear's -s 0
// solver (TRON): each iteration solves the Newton system approximately by
// conjugate gradients inside the trust region, using only Hessian-vector
// products through the Matrix interface (two passes over X each), and
// adapts the region's radius to the ratio of actual to predicted
// reduction. It stops, like logreg-l2's L-BFGS, when
// ‖∇f‖∞ ≤ tol·max(1, |f|). It starts from θ0 = (w, b) if not nil, else
// from 0.
//
// With precond, the conjugate gradients are preconditioned by a diagonal
// M and the trust region is measured in the M-norm, as in liblinear 2.3
// (Hsia, Chiang and Lin 2018): M = (1−α)I + α·diag(∇²f), α = 0.01,
// recomputed at every accepted step (one more pass over X, with its
// entries squared). It pays on badly scaled columns, where the Hessian's
// diagonal spans orders of magnitude.
func fitL2TRON(ctx context.Context, X matrix.Matrix, y []float64, C float64, intercept bool, maxIter int, tol float64, theta0 []float64, precond bool) ([]float64, float64, methods.Info, error) {
	const (
		eta0, eta1, eta2       = 1e-4, 0.25, 0.75
		sigma1, sigma2, sigma3 = 0.25, 0.5, 4.0
		cgRel                  = 0.1 // CG stops at ‖residual‖_M⁻¹ ≤ cgRel·‖∇f‖_M⁻¹
		maxRejected            = 50  // consecutive rejected steps before giving up
		alphaPCG               = 0.01
	)
	n, d := X.Dims()
	p := &l2Problem{X: X, y: y, C: C, intercept: intercept, d: d,
		z: make([]float64, n), D: make([]float64, n), r: make([]float64, n), xv: make([]float64, n)}
	theta := make([]float64, d+1)
	if theta0 != nil {
		copy(theta, theta0)
		if !intercept {
			theta[d] = 0
		}
	}
	next := make([]float64, d+1)
	g := make([]float64, d+1)
	s := make([]float64, d+1)
	r := make([]float64, d+1)
	zv := make([]float64, d+1) // M⁻¹r
	dir := make([]float64, d+1)
	hd := make([]float64, d+1)
	M := make([]float64, d+1)
	for j := range M {
		M[j] = 1
	}
	var X2 matrix.Matrix // X with its entries squared, for diag(∇²f)
	if precond {
		X2 = squared(X)
	}
	// diagonal sets M from the last eval.
	diagonal := func() {
		if X2 == nil {
			return
		}
		X2.MulTransVec(M[:d], p.D)
		sumD := 0.0
		for _, v := range p.D {
			sumD += v
		}
		for j := 0; j < d; j++ {
			M[j] = (1 - alphaPCG) + alphaPCG*(1+M[j])
		}
		M[d] = 1
		if intercept {
			M[d] = (1 - alphaPCG) + alphaPCG*sumD
		}
	}
	// mdot returns uᵀMv; mnorm ‖v‖_M.
	mdot := func(u, v []float64) float64 {
		t := 0.0
		for j, uj := range u {
			t += uj * M[j] * v[j]
		}
		return t
	}
	mnorm := func(v []float64) float64 { return math.Sqrt(mdot(v, v)) }
	converged := func(f float64) bool {
		gmax := 0.0
		for _, v := range g {
			gmax = math.Max(gmax, math.Abs(v))
		}
		return gmax <= tol*math.Max(1, math.Abs(f))
	}

	f := p.eval(theta, g)
	diagonal()
	delta := math.Sqrt(dot(g, g))
	if precond {
		gm := 0.0
		for j, v := range g {
			gm += v * v / M[j]
		}
		delta = math.Sqrt(gm)
	}
	info := methods.Info{Objective: f}
	rejected := 0
	for iter := 0; ; {
		if converged(f) {
			info.Converged = true
			break
		}
		if iter >= maxIter {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, 0, info, err
		}
		// Truncated (preconditioned) CG for H s = −g within ‖s‖_M ≤ delta.
		clear(s)
		for j := range r {
			r[j] = -g[j]
			zv[j] = r[j] / M[j]
			dir[j] = zv[j]
		}
		rz := dot(r, zv)
		cgTol := cgRel * math.Sqrt(rz)
		for cg := 0; cg <= d+1 && math.Sqrt(rz) > cgTol; cg++ {
			p.hessVec(dir, hd)
			dhd := dot(dir, hd)
			if dhd <= 0 {
				break // cannot happen for this strictly convex f; guard anyway
			}
			alpha := rz / dhd
			for j := range s {
				s[j] += alpha * dir[j]
			}
			if sn := mnorm(s); sn > delta {
				// Back up and go to the boundary along dir.
				for j := range s {
					s[j] -= alpha * dir[j]
				}
				std, sts, dtd := mdot(s, dir), mdot(s, s), mdot(dir, dir)
				dsq := delta * delta
				rad := math.Sqrt(std*std + dtd*(dsq-sts))
				if std >= 0 {
					alpha = (dsq - sts) / (std + rad)
				} else {
					alpha = (rad - std) / dtd
				}
				for j := range s {
					s[j] += alpha * dir[j]
					r[j] -= alpha * hd[j]
				}
				break
			}
			for j := range r {
				r[j] -= alpha * hd[j]
				zv[j] = r[j] / M[j]
			}
			rzNew := dot(r, zv)
			beta := rzNew / rz
			for j := range dir {
				dir[j] = zv[j] + beta*dir[j]
			}
			rz = rzNew
		}
		for j := range next {
			next[j] = theta[j] + s[j]
		}
		gs := dot(g, s)
		prered := -0.5 * (gs - dot(s, r)) // −(gᵀs + ½sᵀHs), as r = −g − Hs
		fnew := p.loss(next)
		actred := f - fnew
		snorm := mnorm(s)
		if iter == 0 {
			delta = math.Min(delta, snorm)
		}
		var alpha float64
		if fnew-f-gs <= 0 {
			alpha = sigma3
		} else {
			alpha = math.Max(sigma1, -0.5*(gs/(fnew-f-gs)))
		}
		switch {
		case actred < eta0*prered:
			delta = math.Min(math.Max(alpha, sigma1)*snorm, sigma2*delta)
		case actred < eta1*prered:
			delta = math.Max(sigma1*delta, math.Min(alpha*snorm, sigma2*delta))
		case actred < eta2*prered:
			delta = math.Max(sigma1*delta, math.Min(alpha*snorm, sigma3*delta))
		default:
			delta = math.Max(delta, math.Min(alpha*snorm, sigma3*delta))
		}
		if actred > eta0*prered {
			iter++
			rejected = 0
			copy(theta, next)
			f = p.eval(theta, g)
			diagonal()
			info.Iterations = iter
			info.Objective = f
			continue
		}
		rejected++
		if rejected >= maxRejected || snorm == 0 || (actred <= 0 && prered <= 0) {
			// No further progress at machine precision (liblinear also
			// stops on relative changes below 1e-12, which would cap the
			// attainable gradient norm above tol).
			break
		}
	}
	return theta[:d:d], theta[d], info, nil
}

// squared returns X with every entry squared (dense stays dense, anything
// else becomes CSR).
func squared(X matrix.Matrix) matrix.Matrix {
	if x, ok := X.(*matrix.Dense); ok {
		r, c := x.Dims()
		v := make([]float64, r*c)
		for i, e := range x.RawData() {
			v[i] = e * e
		}
		return matrix.NewDense(r, c, v)
	}
	x := matrix.ToCSR(X)
	v := make([]float64, len(x.Val))
	for i, e := range x.Val {
		v[i] = e * e
	}
	return matrix.NewCSR(x.R, x.C, x.Ptr, x.Ind, v)
}
