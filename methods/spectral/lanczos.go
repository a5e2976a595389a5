// Package spectral implements the two dimensionality-reduction baselines of
// Sandler et al. (2008), each a logistic regression on a projection of the
// features, and the sparse eigensolver they need:
//
//   - pcr: logistic regression on the top m right singular vectors of the
//     training matrix X (principal components regression without centring,
//     which would densify sparse text);
//   - lle-lr: logistic regression on the m eigenvectors of (I−P)ᵀ(I−P) with
//     the smallest eigenvalues, P the row-normalized feature graph;
//   - Lanczos: the top eigenpairs of a symmetric operator given by its
//     mat-vec, with full reorthogonalization.
package spectral

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// Op is a symmetric linear operator on R^n: it sets dst = A x.
type Op func(dst, x []float64)

// EigenResult holds eigenpairs in decreasing order of eigenvalue.
type EigenResult struct {
	Values  []float64
	Vectors [][]float64 // Vectors[i] is the unit eigenvector of Values[i]
	Steps   int         // Lanczos steps taken
	// Residuals[i] is ‖A v_i − λ_i v_i‖.
	Residuals []float64
}

// Lanczos returns the m largest eigenpairs of the symmetric n×n operator A,
// using the Lanczos process with full reorthogonalization (so it is exact
// after n steps, and robust when eigenvalues cluster). It extends the Krylov
// basis until every wanted Ritz pair has a residual ≤ tol·‖T‖ or maxSteps
// (≤ n; 0: n) steps are taken. The starting vector comes from seed. When
// the Krylov space becomes invariant before enough steps it restarts with a
// random vector orthogonal to the basis, so rank-deficient operators work.
func Lanczos(ctx context.Context, A Op, n, m int, tol float64, maxSteps int, seed uint64) (*EigenResult, error) {
	if m <= 0 || n <= 0 {
		return &EigenResult{}, nil
	}
	m = min(m, n)
	if maxSteps <= 0 || maxSteps > n {
		maxSteps = n
	}
	maxSteps = max(maxSteps, m)
	r := rand.New(rand.NewPCG(seed, 0x1a2c05))
	var Q [][]float64
	var alpha, beta []float64 // T's diagonal and off-diagonal (beta[k] couples k, k+1)
	w := make([]float64, n)
	randomStart := func() ([]float64, bool) {
		for try := 0; try < 5; try++ {
			v := make([]float64, n)
			for i := range v {
				v[i] = r.NormFloat64()
			}
			orthogonalize(v, Q)
			orthogonalize(v, Q)
			if nv := norm(v); nv > 1e-8 {
				scale(v, 1/nv)
				return v, true
			}
		}
		return nil, false
	}
	q, ok := randomStart()
	if !ok {
		return nil, errors.New("spectral: Lanczos: cannot start")
	}
	next := min(maxSteps, max(2*m+20, m+40))
	for {
		for len(Q) < next {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			Q = append(Q, q)
			A(w, q)
			a := dot(w, q)
			alpha = append(alpha, a)
			// w ← w − a q − b q_prev, then full reorthogonalization twice.
			orthogonalize(w, Q)
			orthogonalize(w, Q)
			b := norm(w)
			if len(Q) == n {
				break
			}
			if b <= 1e-10*math.Max(1, math.Abs(a)) {
				// Invariant subspace: continue with a fresh direction,
				// decoupled from T (b = 0).
				var ok bool
				if q, ok = randomStart(); !ok {
					break
				}
				beta = append(beta, 0)
				continue
			}
			beta = append(beta, b)
			q = make([]float64, n)
			for i := range q {
				q[i] = w[i] / b
			}
		}
		k := len(Q)
		T := mat.NewSymDense(k, nil)
		for i := 0; i < k; i++ {
			T.SetSym(i, i, alpha[i])
			if i+1 < k {
				T.SetSym(i, i+1, beta[i])
			}
		}
		var es mat.EigenSym
		if !es.Factorize(T, true) {
			return nil, errors.New("spectral: Lanczos: tridiagonal eigendecomposition failed")
		}
		vals := es.Values(nil)
		var S mat.Dense
		es.VectorsTo(&S)
		order := make([]int, k)
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return vals[order[a]] > vals[order[b]] })
		tnorm := 0.0
		for _, v := range vals {
			tnorm = math.Max(tnorm, math.Abs(v))
		}
		bk := 0.0
		if k < n && len(beta) >= k {
			bk = beta[k-1]
		}
		converged := true
		for _, i := range order[:m] {
			if math.Abs(bk*S.At(k-1, i)) > tol*math.Max(tnorm, 1e-300) {
				converged = false
				break
			}
		}
		if converged || k >= maxSteps || len(Q) < next {
			res := &EigenResult{Steps: k}
			for _, i := range order[:min(m, k)] {
				v := make([]float64, n)
				for j, qj := range Q {
					s := S.At(j, i)
					for t := range v {
						v[t] += s * qj[t]
					}
				}
				scale(v, 1/norm(v))
				res.Values = append(res.Values, vals[i])
				res.Vectors = append(res.Vectors, v)
				A(w, v)
				for t := range w {
					w[t] -= vals[i] * v[t]
				}
				res.Residuals = append(res.Residuals, norm(w))
			}
			return res, nil
		}
		next = min(maxSteps, k+max(m/2, 20))
	}
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

func norm(a []float64) float64 { return math.Sqrt(dot(a, a)) }

func scale(a []float64, s float64) {
	for i := range a {
		a[i] *= s
	}
}

// orthogonalize removes from v its components along the orthonormal Q.
func orthogonalize(v []float64, Q [][]float64) {
	for _, q := range Q {
		s := dot(v, q)
		for i := range v {
			v[i] -= s * q[i]
		}
	}
}

// SmallestOfPSD returns the m smallest eigenpairs (increasing) of a
// symmetric positive semi-definite operator A by running Lanczos on
// (shift·I − A), shift ≥ λ_max(A) estimated by a short Lanczos run.
func SmallestOfPSD(ctx context.Context, A Op, n, m int, tol float64, maxSteps int, seed uint64) (*EigenResult, error) {
	top, err := Lanczos(ctx, A, n, 1, 1e-6, min(n, 60), seed+1)
	if err != nil {
		return nil, err
	}
	if len(top.Values) == 0 {
		return &EigenResult{}, nil
	}
	shift := top.Values[0] + top.Residuals[0] + 1e-12
	tmp := make([]float64, n)
	B := func(dst, x []float64) {
		A(tmp, x)
		for i := range dst {
			dst[i] = shift*x[i] - tmp[i]
		}
	}
	res, err := Lanczos(ctx, B, n, m, tol, maxSteps, seed)
	if err != nil {
		return nil, err
	}
	for i := range res.Values {
		res.Values[i] = shift - res.Values[i]
	}
	return res, nil
}
