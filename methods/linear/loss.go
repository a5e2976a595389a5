package linear

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/repro-ml/repro/matrix"
)

// log1pexp returns log(1+exp(t)) without overflow.
func log1pexp(t float64) float64 {
	if t > 0 {
		return t + math.Log1p(math.Exp(-t))
	}
	return math.Log1p(math.Exp(t))
}

// logLossSigmoid returns log1pexp(t) and sigmoid(t), the same values,
// from one exponential: both take exp(−|t|).
func logLossSigmoid(t float64) (l, s float64) {
	if t > 0 {
		e := math.Exp(-t)
		return t + math.Log1p(e), 1 / (1 + e)
	}
	e := math.Exp(t)
	if t == 0 {
		return math.Log1p(e), 1 / (1 + e) // sigmoid's t ≥ 0 branch
	}
	return math.Log1p(e), e / (1 + e)
}

// sigmoid returns 1/(1+exp(−t)) without overflow.
func sigmoid(t float64) float64 {
	if t >= 0 {
		return 1 / (1 + math.Exp(-t))
	}
	e := math.Exp(t)
	return e / (1 + e)
}

// LogisticLoss returns the logistic loss Σᵢ log(1+exp(−yᵢ(wᵀxᵢ+b))) of the
// rows xᵢ of X with labels yᵢ ∈ {−1,+1}. If grad is not nil it must have
// length d+1 (d = columns of X); LogisticLoss then writes the gradient with
// respect to w into grad[:d] and the derivative with respect to b into
// grad[d]. It makes two passes over X (MulVec and MulTransVec), so it costs
// O(nnz) on sparse data.
//
// A regularized objective is C·LogisticLoss plus its penalty; logreg-l2
// minimizes ½‖w‖² + C·LogisticLoss.
func LogisticLoss(X matrix.Matrix, y, w []float64, b float64, grad []float64) float64 {
	n, _ := X.Dims()
	return logisticLoss(X, y, w, b, grad, make([]float64, n))
}

// logisticLoss is LogisticLoss with z, of length n, as its scratch: a
// solver that evaluates the loss at every iteration allocates it once
// (a fit of 20 Newsgroups' one-vs-rest tasks made 190 MB of garbage of
// them, and the collector's headroom grew with it).
func logisticLoss(X matrix.Matrix, y, w []float64, b float64, grad, z []float64) float64 {
	n, d := X.Dims()
	if len(y) != n || len(w) != d || (grad != nil && len(grad) != d+1) || len(z) != n {
		panic(fmt.Sprintf("linear: LogisticLoss: X is %d×%d, len(y)=%d, len(w)=%d, len(grad)=%d (want nil or d+1), len(z)=%d", n, d, len(y), len(w), len(grad), len(z)))
	}
	if c, ok := X.(*matrix.CSR); ok && grad != nil {
		return logisticLossCSR(c, y, w, b, grad)
	}
	if dn, ok := X.(*matrix.Dense); ok && grad != nil {
		return logisticLossDense(dn, y, w, b, grad)
	}
	X.MulVec(z, w)
	loss := 0.0
	for i, zi := range z {
		m := y[i] * (zi + b)
		loss += log1pexp(-m)
		// ∂/∂zᵢ log(1+exp(−yᵢzᵢ)) = −yᵢ σ(−yᵢzᵢ).
		z[i] = -y[i] * sigmoid(-m)
	}
	if grad != nil {
		X.MulTransVec(grad[:d], z)
		s := 0.0
		for _, r := range z {
			s += r
		}
		grad[d] = s
	}
	return loss
}

// logisticLossCSR is logisticLoss with the gradient on a CSR matrix, in
// one pass over its rows instead of two (MulVec, then MulTransVec): each
// row's score, then at once its residual times the row added to the
// gradient, so the data is read once an evaluation, not twice. The
// gradient's entries and the intercept's derivative are summed row after
// row, as MulTransVec does; a row's score is matrix.SparseDot's (four
// partial sums: a single chain of additions bound the pass by their
// latency), which rounds differently from MulVec's single sum.
func logisticLossCSR(X *matrix.CSR, y, w []float64, b float64, grad []float64) float64 {
	d := X.C
	g := grad[:d]
	clear(g)
	loss, sum := 0.0, 0.0
	for i := 0; i < X.R; i++ {
		lo, hi := X.Ptr[i], X.Ptr[i+1]
		ind, val := X.Ind[lo:hi], X.Val[lo:hi:hi]
		m := y[i] * (matrix.SparseDot(ind, val, w) + b)
		l, s := logLossSigmoid(-m)
		loss += l
		r := -y[i] * s
		sum += r
		if r == 0 {
			continue
		}
		matrix.SparseAxpy(g, r, ind, val)
	}
	grad[d] = sum
	return loss
}

// logisticLossDense is logisticLossCSR for a dense matrix: each row's
// score (an assembly dot product), then its residual times the row, still
// in cache, added to the gradient, so that X is read from memory once an
// evaluation instead of twice (two matrix-vector products). The rounding
// differs from the products' (their kernels sum in other orders).
func logisticLossDense(X *matrix.Dense, y, w []float64, b float64, grad []float64) float64 {
	r, d := X.Dims()
	g := grad[:d]
	clear(g)
	loss, sum := 0.0, 0.0
	for i := 0; i < r; i++ {
		row := X.RawRow(i)
		m := y[i] * (floats.Dot(row, w) + b)
		l, s := logLossSigmoid(-m)
		loss += l
		res := -y[i] * s
		sum += res
		if res != 0 {
			floats.AddScaled(g, res, row)
		}
	}
	grad[d] = sum
	return loss
}

// SoftmaxLoss returns the multinomial logistic loss
// Σᵢ [log Σₖ exp(W_kᵀxᵢ+b_k) − (W_{yᵢ}ᵀxᵢ+b_{yᵢ})] of the rows of X with
// class indices yᵢ ∈ [0, K). W holds K weight vectors of length d row-major
// (class k's weights are W[k*d:(k+1)*d]) and b the K intercepts. If grad is
// not nil it must have length K*d+K: SoftmaxLoss writes the gradient with
// respect to W into grad[:K*d] (same layout) and with respect to b into
// grad[K*d:]. It makes 2K passes over X.
func SoftmaxLoss(X matrix.Matrix, y []int, W, b, grad []float64) float64 {
	n, d := X.Dims()
	K := len(b)
	if len(y) != n || len(W) != K*d || (grad != nil && len(grad) != K*d+K) {
		panic(fmt.Sprintf("linear: SoftmaxLoss: X is %d×%d, K=%d, len(y)=%d, len(W)=%d, len(grad)=%d (want nil or K*d+K)", n, d, K, len(y), len(W), len(grad)))
	}
	// z[k] holds the scores of class k for every row, then the residuals
	// p_ik − 1[yᵢ=k].
	z := make([][]float64, K)
	for k := range z {
		z[k] = make([]float64, n)
		X.MulVec(z[k], W[k*d:(k+1)*d])
		for i := range z[k] {
			z[k][i] += b[k]
		}
	}
	loss := 0.0
	for i := 0; i < n; i++ {
		mx := math.Inf(-1)
		for k := 0; k < K; k++ {
			mx = math.Max(mx, z[k][i])
		}
		s := 0.0
		for k := 0; k < K; k++ {
			s += math.Exp(z[k][i] - mx)
		}
		lse := mx + math.Log(s)
		if y[i] < 0 || y[i] >= K {
			panic(fmt.Sprintf("linear: SoftmaxLoss: label %d of row %d out of range [0,%d)", y[i], i, K))
		}
		loss += lse - z[y[i]][i]
		for k := 0; k < K; k++ {
			p := math.Exp(z[k][i] - lse)
			if k == y[i] {
				p--
			}
			z[k][i] = p
		}
	}
	if grad != nil {
		for k := 0; k < K; k++ {
			X.MulTransVec(grad[k*d:(k+1)*d], z[k])
			s := 0.0
			for _, r := range z[k] {
				s += r
			}
			grad[K*d+k] = s
		}
	}
	return loss
}
