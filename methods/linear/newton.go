package linear

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
)

// fitL2Newton minimizes ½‖w‖² + C Σᵢ log(1+exp(−yᵢ(wᵀxᵢ+b))) (b
// unpenalized, fixed at 0 without an intercept) by Newton's method with
// the exact Hessian I + XᵀDX (no penalty on b), factorized by Cholesky,
// and a backtracking Armijo line search, starting from θ0 = (w, b) if not
// nil. Newton's iterates do not depend on the columns' scales (it is
// invariant under a linear change of the variables), so unscaled columns
// (counts in the thousands next to frequencies below 1) converge in the
// same few steps as standardized ones, where first-order methods and
// unpreconditioned conjugate gradients crawl. Each step costs about n·p²/2
// multiply-adds for the Hessian (p = d+1) and p² floats of memory, so it
// is meant for few columns; solver: auto does not take it (preconditioned
// TRON was faster on the spam table, and needs no p×p matrix). It stops,
// like the other logreg-l2 solvers, when ‖∇f‖∞ ≤ tol·max(1, |f|).
func fitL2Newton(ctx context.Context, X matrix.Matrix, y []float64, C float64, intercept bool, maxIter int, tol float64, theta0 []float64) ([]float64, float64, methods.Info, error) {
	const (
		armijo = 1e-4
		maxLS  = 60
	)
	n, d := X.Dims()
	p := d // coordinates: w, and b with an intercept (column d of A)
	if intercept {
		p = d + 1
	}
	// A = [X 1], dense, row-major.
	A := make([]float64, n*p)
	if x, ok := X.(*matrix.Dense); ok {
		for i := 0; i < n; i++ {
			copy(A[i*p:i*p+d], x.RawRow(i))
		}
	} else {
		for i := 0; i < n; i++ {
			row := A[i*p : i*p+d]
			X.Row(i, func(j int, v float64) { row[j] = v })
		}
	}
	if intercept {
		for i := 0; i < n; i++ {
			A[i*p+d] = 1
		}
	}
	ag := blas64.General{Rows: n, Cols: p, Stride: p, Data: A}
	theta := make([]float64, p)
	if theta0 != nil {
		copy(theta, theta0[:d])
		if intercept {
			theta[d] = theta0[d]
		}
	}
	z := make([]float64, n)  // Aθ
	az := make([]float64, n) // A·step
	r := make([]float64, n)  // ∂L/∂zᵢ
	sd := make([]float64, n) // √Dᵢ
	B := make([]float64, n*p)
	H := make([]float64, p*p)
	g := make([]float64, p)
	step := make([]float64, p)
	vec := func(v []float64) blas64.Vector { return blas64.Vector{N: len(v), Inc: 1, Data: v} }

	// value returns f at θ + t·step from z and az.
	value := func(t float64) float64 {
		f := 0.0
		for i, zi := range z {
			f += log1pexp(-y[i] * (zi + t*az[i]))
		}
		f *= C
		for j := 0; j < d; j++ {
			wj := theta[j] + t*step[j]
			f += 0.5 * wj * wj
		}
		return f
	}
	info := methods.Info{}
	for iter := 0; ; iter++ {
		if err := ctx.Err(); err != nil {
			return nil, 0, info, err
		}
		blas64.Gemv(blas.NoTrans, 1, ag, vec(theta), 0, vec(z))
		f := 0.0
		for i, zi := range z {
			m := y[i] * zi
			f += log1pexp(-m)
			s := sigmoid(-m)
			r[i] = -C * y[i] * s
			sd[i] = math.Sqrt(C * s * (1 - s))
		}
		f *= C
		blas64.Gemv(blas.Trans, 1, ag, vec(r), 0, vec(g))
		for j := 0; j < d; j++ {
			f += 0.5 * theta[j] * theta[j]
			g[j] += theta[j]
		}
		info.Objective = f
		if floats.Norm(g, math.Inf(1)) <= tol*math.Max(1, math.Abs(f)) {
			info.Converged = true
			break
		}
		if iter >= maxIter {
			break
		}
		// H = AᵀDA + diag(1 on w), upper triangle, row by row.
		clear(H)
		for i := 0; i < n; i++ {
			bi := B[i*p : (i+1)*p]
			floats.ScaleTo(bi, sd[i], A[i*p:(i+1)*p])
		}
		blas64.Syrk(blas.Trans, 1, blas64.General{Rows: n, Cols: p, Stride: p, Data: B}, 0,
			blas64.Symmetric{N: p, Stride: p, Data: H, Uplo: blas.Upper})
		for j := 0; j < d; j++ {
			H[j*p+j]++
		}
		if intercept {
			// ΣᵢDᵢ > 0 in exact arithmetic; keep it so in floating point.
			H[d*p+d] += 1e-12 * (1 + H[d*p+d])
		}
		for j := range step {
			step[j] = -g[j]
		}
		chol := blas64.Triangular{N: p, Stride: p, Data: H, Uplo: blas.Upper, Diag: blas.NonUnit}
		if _, ok := lapack64.Potrf(blas64.Symmetric{N: p, Stride: p, Data: H, Uplo: blas.Upper}); !ok {
			// Cannot happen for this positive definite H; fall back on the
			// gradient direction.
			copy(step, g)
			floats.Scale(-1, step)
		} else {
			lapack64.Potrs(chol, blas64.General{Rows: p, Cols: 1, Stride: 1, Data: step})
		}
		blas64.Gemv(blas.NoTrans, 1, ag, vec(step), 0, vec(az))
		gs := floats.Dot(g, step)
		t, accepted := 1.0, false
		for ls := 0; ls < maxLS; ls++ {
			if value(t) <= f+armijo*t*gs {
				accepted = true
				break
			}
			t /= 2
		}
		if !accepted || gs >= 0 {
			break // no decrease at machine precision
		}
		floats.AddScaled(theta, t, step)
		info.Iterations = iter + 1
	}
	b := 0.0
	if intercept {
		b = theta[d]
	}
	return theta[:d:d], b, info, nil
}
