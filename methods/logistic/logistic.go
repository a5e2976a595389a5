// Package logistic provides penalized logistic regression for the plugins
// that share it (fnr, laplacian, normalized-laplacian, pcr, lle-lr): a binary
// or multinomial (softmax) model whose weight vectors carry sparse quadratic
// penalties Σ_t Coef_t‖B_t w‖² and a ridge term, with virtual features that
// appear only in the penalty, trained from zero by L-BFGS (methods/optim).
// It registers nothing.
package logistic

import (
	"context"
	"fmt"
	"gonum.org/v1/gonum/floats"
	"math"

	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/optim"
)

// Term is one sparse quadratic penalty Coef·‖B w‖², applied to the weight
// vector of every class. B has D columns, one per feature (real or virtual).
//
// Q, if not nil, is BᵀB (see Gram), D×D: the term is then evaluated as
// Coef·wᵀQw in one pass over Q instead of two over B, and B is not used.
// That is cheaper when Q is no denser than B, as for a graph's edge
// incidence matrix, whose BᵀB is the graph Laplacian.
type Term struct {
	B    *matrix.CSR
	Coef float64
	Q    *matrix.CSR
}

// Gram returns BᵀB as a D×D CSR matrix (D = B's columns), rows sorted, exact
// zeros dropped.
func Gram(B *matrix.CSR) *matrix.CSR {
	T := B.T()
	b := matrix.NewBuilder(B.C)
	for j := 0; j < T.R; j++ {
		for k := T.Ptr[j]; k < T.Ptr[j+1]; k++ {
			i, v := T.Ind[k], T.Val[k]
			for l := B.Ptr[i]; l < B.Ptr[i+1]; l++ {
				b.Add(int(B.Ind[l]), v*B.Val[l])
			}
		}
		b.EndRow()
	}
	return b.Build()
}

// Penalty is Σ_t Coef_t ‖B_t w_c‖² + Ridge ‖w_c‖² summed over the weight
// vectors w_c of the classes. Intercepts are never penalized.
type Penalty struct {
	Terms []Term
	Ridge float64
}

// Problem is a penalized logistic regression on n rows of X with K classes.
// Two classes give one binary model (one weight vector, as ridge logistic
// regression); K > 2 classes a multinomial (softmax) model with one weight
// vector per class, each penalized by Pen. The weight vectors have D ≥ d
// entries: entries d … D−1 are virtual features, zero in every row of X,
// which appear only in the penalty. The first Eval (or Train) checks the
// shapes and every column index once; the fields must not change after it.
type Problem struct {
	X   *matrix.CSR // n×d
	Y   []int       // class of each row, in [0, K)
	K   int         // number of classes, ≥ 2
	D   int         // weights per class, ≥ d
	Pen Penalty

	// Precondition, if set, makes Train run L-BFGS in u = x/s, s the
	// inverse square root of the objective's Hessian diagonal at zero
	// (penalty diagonal plus Σ_i x_ij²·¼ for the loss): a diagonal
	// preconditioner for penalties whose diagonal spans orders of
	// magnitude, as a Laplacian's node degrees do. The optimum is the
	// same; the stopping test is on the gradient in x.
	Precondition bool

	checked bool      // check has passed
	z, dz   []float64 // scratch: n×C scores and their derivatives
	r       []float64 // scratch: one residual row (C values)
}

// cols is the number of weight vectors: 1 for a binary problem, else K.
func (p *Problem) cols() int {
	if p.K == 2 {
		return 1
	}
	return p.K
}

// NumParams returns the length of the parameter vector: the D×C weights
// stored row-major (x[j*C+c], C = 1 for two classes, else K), then the C
// intercepts.
func (p *Problem) NumParams() int { return (p.D + 1) * p.cols() }

// check panics on inconsistent shapes (programmer errors).
func (p *Problem) check() {
	n, d := p.X.Dims()
	if len(p.Y) != n {
		panic(fmt.Sprintf("logistic: %d labels for %d rows", len(p.Y), n))
	}
	if p.K < 2 {
		panic(fmt.Sprintf("logistic: %d classes, want ≥ 2", p.K))
	}
	if p.D < d {
		panic(fmt.Sprintf("logistic: D = %d weights for %d columns", p.D, d))
	}
	checkIndices("X", p.X, d)
	for _, t := range p.Pen.Terms {
		if t.Q != nil {
			if t.Q.R != p.D || t.Q.C != p.D {
				panic(fmt.Sprintf("logistic: penalty Gram matrix is %d×%d, want D×D = %d×%d", t.Q.R, t.Q.C, p.D, p.D))
			}
			checkIndices("penalty Gram matrix", t.Q, p.D)
			continue
		}
		if t.B.C != p.D {
			panic(fmt.Sprintf("logistic: penalty matrix has %d columns, want D = %d", t.B.C, p.D))
		}
		checkIndices("penalty matrix", t.B, p.D)
	}
	p.checked = true
}

// Eval returns the objective at x and, if grad is not nil, writes its
// gradient: Σ_i loss_i + Σ_c [Σ_t Coef_t ‖B_t w_c‖² + Ridge ‖w_c‖²].
func (p *Problem) Eval(x, grad []float64) float64 {
	C := p.cols()
	n, _ := p.X.Dims()
	D := p.D
	if len(x) != p.NumParams() {
		panic(fmt.Sprintf("logistic: Eval: %d parameters, want %d", len(x), p.NumParams()))
	}
	if !p.checked {
		p.check()
	}
	if grad != nil {
		clear(grad)
	}
	if len(p.z) != n*C {
		p.z = make([]float64, n*C)
		p.dz = make([]float64, n*C)
	}
	W, b := x[:D*C], x[D*C:]
	X := p.X
	f := 0.0
	// Scores z = X W + b.
	if C == 1 {
		for i := 0; i < n; i++ {
			s := b[0]
			for k := X.Ptr[i]; k < X.Ptr[i+1]; k++ {
				s += X.Val[k] * W[X.Ind[k]]
			}
			// loss log(1 + exp(−y s)), y = ±1
			m := s
			if p.Y[i] == 0 {
				m = -s
			}
			var l, sig float64 // sig = σ(−m)
			if m > 0 {
				e := math.Exp(-m)
				l = math.Log1p(e)
				sig = e / (1 + e)
			} else {
				e := math.Exp(m)
				l = -m + math.Log1p(e)
				sig = 1 / (1 + e)
			}
			f += l
			if p.Y[i] == 0 {
				p.dz[i] = sig
			} else {
				p.dz[i] = -sig
			}
		}
	} else {
		for i := 0; i < n; i++ {
			z := p.z[i*C : (i+1)*C]
			copy(z, b)
			lo, hi := X.Ptr[i], X.Ptr[i+1]
			gatherRow(z, X.Ind[lo:hi], X.Val[lo:hi], W, C)
			mx := z[0]
			for _, v := range z[1:] {
				mx = max(mx, v)
			}
			sum := 0.0
			dz := p.dz[i*C : (i+1)*C]
			for c, v := range z {
				e := math.Exp(v - mx)
				dz[c] = e
				sum += e
			}
			f += mx + math.Log(sum) - z[p.Y[i]]
			inv := 1 / sum
			for c := range dz {
				dz[c] *= inv
			}
			dz[p.Y[i]]--
		}
	}
	if grad != nil {
		gW, gb := grad[:D*C], grad[D*C:]
		for i := 0; i < n; i++ {
			dz := p.dz[i*C : (i+1)*C]
			for c, v := range dz {
				gb[c] += v
			}
			if C == 1 {
				d0 := dz[0]
				for k := X.Ptr[i]; k < X.Ptr[i+1]; k++ {
					gW[X.Ind[k]] += X.Val[k] * d0
				}
				continue
			}
			lo, hi := X.Ptr[i], X.Ptr[i+1]
			scatterRow(gW, X.Ind[lo:hi], X.Val[lo:hi], dz, 1, C)
		}
	}
	f += p.penalty(W, grad)
	return f
}

// penalty adds the quadratic penalty of W to grad (if not nil) and
// returns its value. Each term costs two passes over B: r = B W and Bᵀ r.
func (p *Problem) penalty(W, grad []float64) float64 {
	C := p.cols()
	f := 0.0
	var gW []float64
	if grad != nil {
		gW = grad[:p.D*C]
	}
	if len(p.r) < C {
		p.r = make([]float64, C)
	}
	ri := p.r[:C:C] // the residual row (B W)_i, one per weight vector
	for _, t := range p.Pen.Terms {
		if t.Coef == 0 {
			continue
		}
		if t.Q != nil {
			f += p.quadratic(t, W, gW)
			continue
		}
		B := t.B
		two := 2 * t.Coef
		for i := 0; i < B.R; i++ {
			lo, hi := B.Ptr[i], B.Ptr[i+1]
			ind, val := B.Ind[lo:hi], B.Val[lo:hi:hi]
			if C == 1 {
				s := 0.0
				for k, j := range ind {
					s += val[k] * W[j]
				}
				f += t.Coef * s * s
				if gW != nil {
					s *= two
					for k, j := range ind {
						gW[j] += val[k] * s
					}
				}
				continue
			}
			clear(ri)
			gatherRow(ri, ind, val, W, C)
			f += t.Coef * floats.Dot(ri, ri)
			if gW != nil {
				scatterRow(gW, ind, val, ri, two, C)
			}
		}
	}
	if beta := p.Pen.Ridge; beta != 0 {
		s := 0.0
		for j, w := range W {
			s += w * w
			if gW != nil {
				gW[j] += 2 * beta * w
			}
		}
		f += beta * s
	}
	return f
}

// diagScale returns the factors s_j = 1/√h_j of Precondition, h the
// Hessian diagonal at zero (1 where it is zero).
func (p *Problem) diagScale() []float64 {
	C := p.cols()
	D := p.D
	h := make([]float64, D+1)
	for j := range h[:D] {
		h[j] = 2 * p.Pen.Ridge
	}
	for _, t := range p.Pen.Terms {
		if t.Q != nil {
			for j := 0; j < t.Q.R; j++ {
				h[j] += 2 * t.Coef * t.Q.At(j, j)
			}
			continue
		}
		for k, j := range t.B.Ind {
			h[j] += 2 * t.Coef * t.B.Val[k] * t.B.Val[k]
		}
	}
	n, _ := p.X.Dims()
	for k, j := range p.X.Ind {
		h[j] += p.X.Val[k] * p.X.Val[k] / 4
	}
	h[D] = float64(n) / 4
	scale := make([]float64, (D+1)*C)
	for j, v := range h {
		sj := 1.0
		if v > 0 {
			sj = 1 / math.Sqrt(v)
		}
		for c := 0; c < C; c++ {
			scale[j*C+c] = sj
		}
	}
	return scale
}

// quadratic adds the gradient of t.Coef·Σ_c w_cᵀ Q w_c to gW (if not nil)
// and returns its value: one pass over Q, g_j = (Q W)_j, value Σ_j w_j·g_j,
// gradient 2·Coef·g_j (Q is symmetric).
func (p *Problem) quadratic(t Term, W, gW []float64) float64 {
	C := p.cols()
	Q := t.Q
	two := 2 * t.Coef
	f := 0.0
	gj := p.r[:C:C]
	for j := 0; j < Q.R; j++ {
		lo, hi := Q.Ptr[j], Q.Ptr[j+1]
		ind, val := Q.Ind[lo:hi], Q.Val[lo:hi:hi]
		if C == 1 {
			s := 0.0
			for k, i := range ind {
				s += val[k] * W[i]
			}
			f += W[j] * s
			if gW != nil {
				gW[j] += two * s
			}
			continue
		}
		clear(gj)
		gatherRow(gj, ind, val, W, C)
		f += floats.Dot(W[j*C:j*C+C], gj)
		if gW != nil {
			floats.AddScaled(gW[j*C:j*C+C], two, gj)
		}
	}
	return t.Coef * f
}

// Model is a fitted linear classifier over d columns (the virtual weights
// are kept in W for inspection but never used in prediction).
type Model struct {
	K, C, D, Cols int
	// W holds the weights row-major (W[j*C+c]) for j < D, then the C
	// intercepts.
	W    []float64
	info methods.Info
}

// Weight returns the weight of feature j (real or virtual) in weight vector
// c (c = 0 for a binary model, whose scores are for class 1).
func (m *Model) Weight(j, c int) float64 { return m.W[j*m.C+c] }

// Intercept returns the intercept of weight vector c.
func (m *Model) Intercept(c int) float64 { return m.W[m.D*m.C+c] }

// Info reports how the fit went.
func (m *Model) Info() methods.Info { return m.info }

// Predict returns K scores per row: the linear scores of the K classes
// (for a binary model 0 for class 0 and the decision value for class 1).
func (m *Model) Predict(X matrix.Matrix) *methods.Prediction {
	n, d := X.Dims()
	if d != m.Cols {
		panic(fmt.Sprintf("logistic: Predict: %d columns, model was trained on %d", d, m.Cols))
	}
	out := &methods.Prediction{K: m.K, Scores: make([]float64, n*m.K)}
	b := m.W[m.D*m.C:]
	for i := 0; i < n; i++ {
		s := out.Scores[i*m.K : (i+1)*m.K]
		if m.C == 1 {
			f := b[0]
			X.Row(i, func(j int, v float64) { f += v * m.W[j] })
			s[1] = f
			continue
		}
		copy(s, b)
		X.Row(i, func(j int, v float64) {
			w := m.W[j*m.C : j*m.C+m.C]
			for c, wc := range w {
				s[c] += v * wc
			}
		})
	}
	return out
}

// Bytes estimates what Train allocates for n rows, D weights per class
// and K classes with settings s: L-BFGS over the (D+1)·C parameters (C = 1
// for two classes, else K), the n×C scores and their derivatives, and the
// model.
func Bytes(n, D, K int, s optim.Settings) int64 {
	C := K
	if K <= 2 {
		C = 1
	}
	return methods.Bytes(optim.Bytes((D+1)*C, s), methods.Floats(D+1, C), methods.Floats(2, n, C), methods.Floats(n))
}

// Train minimizes p's objective from zero with L-BFGS and returns the model.
// Reaching the iteration cap is not an error (Info().Converged is false).
func Train(ctx context.Context, p *Problem, s optim.Settings) (*Model, error) {
	return TrainFrom(ctx, p, nil, s)
}

// TrainFrom is Train starting L-BFGS from x0 (weights then intercepts, as
// Model.W holds them; not modified) instead of zero, a warm start from a
// nearby problem's solution. An x0 of the wrong length (or nil) starts
// from zero.
func TrainFrom(ctx context.Context, p *Problem, x0 []float64, s optim.Settings) (*Model, error) {
	p.check()
	_, d := p.X.Dims()
	if len(x0) != p.NumParams() {
		x0 = make([]float64, p.NumParams())
	}
	f := p.Eval
	var scale []float64
	if p.Precondition {
		scale = p.diagScale()
		u := make([]float64, len(x0))
		for j, v := range x0 {
			u[j] = v / scale[j]
		}
		x0 = u
		x := make([]float64, len(x0))
		f = func(u, grad []float64) float64 {
			for j, v := range u {
				x[j] = scale[j] * v
			}
			v := p.Eval(x, grad)
			if grad != nil {
				for j := range grad {
					grad[j] *= scale[j]
				}
			}
			return v
		}
		s.GradScale = scale
	}
	res, err := optim.Minimize(ctx, f, x0, s)
	if err != nil {
		return nil, fmt.Errorf("logistic: L-BFGS: %w", err)
	}
	for j := range scale {
		res.X[j] *= scale[j]
	}
	return &Model{K: p.K, C: p.cols(), D: p.D, Cols: d, W: res.X,
		info: methods.Info{Iterations: res.Iterations, Converged: res.Converged, Objective: res.F}}, nil
}
