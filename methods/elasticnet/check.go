package elasticnet

import "math"

// stateOf returns the state of a fit given on the original scale. A merged
// column takes the coefficient of its first data column (the fits of this
// Problem give all its data columns the same).
func (p *Problem) stateOf(f *Fit) *state {
	if len(f.Beta) != p.K || len(f.Intercept) != p.K {
		panic("elasticnet: fit has the wrong number of coefficient vectors")
	}
	pt := &point{lambda: f.Lambda, c: f.Intercept}
	for k, beta := range f.Beta {
		if len(beta) != p.dData {
			panic("elasticnet: fit has the wrong number of coefficients")
		}
		// A merged column takes its first data column's coefficient.
		for g := 0; g < p.d; g++ {
			j, fc := p.first(g)
			if b := beta[j]; b != 0 {
				pt.nz = append(pt.nz, int32(k*p.d+g))
				pt.val = append(pt.val, b*p.scale[j]/fc)
			}
		}
	}
	return p.stateAt(pt)
}

// Objective returns the penalized objective of f at f.Lambda: the mean
// negative log-likelihood plus λ Σ (α|β̃| + (1−α)/2 β̃²) over the
// coefficients of the scaled columns.
func (p *Problem) Objective(f *Fit) float64 {
	return p.objective(p.stateOf(f))
}

// objective returns the penalized objective of st at st.lambda.
func (p *Problem) objective(st *state) float64 {
	n := p.n
	loss := 0.0
	if p.K == 1 {
		loss = p.binomialLoss(st)
	} else {
		lse := make([]float64, n)
		p.logSumExp(st, lse)
		for i, l := range lse {
			loss += l - st.eta[int(p.y[i])*n+i]
		}
	}
	pen := 0.0
	for _, b := range st.beta {
		pen += p.opt.Alpha*math.Abs(b) + (1-p.opt.Alpha)/2*b*b
	}
	return loss/float64(n) + st.lambda*pen
}

// KKT returns the largest violation of the optimality conditions at f, on
// the scale of the penalized columns: with g the gradient of the mean
// negative log-likelihood in a coefficient β̃ and l₁ = λα, l₂ = λ(1−α),
// |g + l₂β̃ + l₁ sign β̃| where β̃ ≠ 0, (|g| − l₁)₊ where β̃ = 0, and |g| for
// each intercept (with Intercept). The violations are those of the data's
// columns, merged or not.
func (p *Problem) KKT(f *Fit) float64 {
	st := p.stateOf(f)
	full := make([]float64, p.K*p.d)
	p.gradient(st, full)
	l1, l2 := f.Lambda*p.opt.Alpha, f.Lambda*(1-p.opt.Alpha)
	worst := 0.0
	for idx, g := range full {
		if !p.use[idx%p.d] {
			continue
		}
		b := st.coef(idx/p.d, idx%p.d)
		var v float64
		switch {
		case b > 0:
			v = math.Abs(g + l2*b + l1)
		case b < 0:
			v = math.Abs(g + l2*b - l1)
		default:
			v = math.Max(0, math.Abs(g)-l1)
		}
		// A merged column's violation is √m times that of each of its
		// data columns (which share its coefficient): report theirs.
		_, fc := p.first(idx % p.d)
		worst = math.Max(worst, v*fc)
	}
	if p.opt.Intercept {
		res := p.residuals(st)
		for k := 0; k < p.K; k++ {
			s := 0.0
			for i := 0; i < p.n; i++ {
				s += res[i*p.K+k]
			}
			worst = math.Max(worst, math.Abs(s)/float64(p.n))
		}
	}
	return worst
}

// binomialLoss returns the binomial model's negative log-likelihood at st,
// summed over the rows.
func (p *Problem) binomialLoss(st *state) float64 {
	loss := 0.0
	for i, e := range st.eta[:p.n] {
		if p.y[i] == 1 {
			loss += log1pexp(-e)
		} else {
			loss += log1pexp(e)
		}
	}
	return loss
}

// log1pexp returns log(1 + exp(z)) without overflow.
func log1pexp(z float64) float64 {
	if z > 0 {
		return z + math.Log1p(math.Exp(-z))
	}
	return math.Log1p(math.Exp(z))
}
