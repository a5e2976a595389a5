package svm

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/repro-ml/repro/matrix"
)

// ipmMaxCols is the widest problem (columns, with the constant feature)
// the linear solver starts with the interior-point method: its iterations
// cost n·p² and a p×p factorization.
const ipmMaxCols = 256

// useIPM reports whether the linear solver starts a problem of n rows and
// d columns with the interior-point method: at most ipmMaxCols columns
// and 2·10⁸ multiply-adds per iteration (a fraction of a second).
func useIPM(n, d int) bool {
	p := d + 1
	return p <= ipmMaxCols && float64(n)*float64(p*p) <= 2e8
}

// ipmStart returns an approximate solution of the linear dual
//
//	min ½‖Vᵀα‖² − Σα  s.t. 0 ≤ α ≤ C,  V_i = y_i (x_i, bias),
//
// by a primal-dual interior-point method (Mehrotra's predictor-corrector)
// whose Newton systems (D + VVᵀ)Δα = r are solved through the p×p matrix
// I + VᵀD⁻¹V (Sherman–Morrison–Woodbury), O(n·p²) per iteration, as
// Ferris & Munson (2002) do for linear SVMs with few features. Unlike
// coordinate descent its iterations do not depend on the conditioning of
// VVᵀ (badly scaled columns); the caller polishes its α by coordinate
// descent, whose stopping rule certifies the solution. It stops when the
// complementarity gap is below 1e-9 of the objective's scale, after
// maxIter iterations, or when the factorization fails, returning the
// last iterate (feasible: 0 < α < C).
func ipmStart(ctx context.Context, X matrix.Matrix, y []float64, C, bias float64, maxIter int) ([]float64, error) {
	n, d := X.Dims()
	p := d + 1
	alpha := make([]float64, n)
	z, s := make([]float64, n), make([]float64, n)
	for i := range alpha {
		alpha[i] = C / 2
	}
	w := make([]float64, p) // Vᵀα
	qa := make([]float64, n)
	grad := func() { // qa = VVᵀα
		clear(w)
		for i, a := range alpha {
			addV(X, y, bias, i, a, w)
		}
		for i := range qa {
			qa[i] = dotV(X, y, bias, i, w)
		}
	}
	grad()
	for i := range z {
		g := qa[i] - 1
		z[i] = math.Max(g, 0) + 1
		s[i] = math.Max(-g, 0) + 1
	}
	r := make([]float64, n)
	dinv := make([]float64, n)
	rhs := make([]float64, n)
	da, dz, ds := make([]float64, n), make([]float64, n), make([]float64, n)
	pz, ps := make([]float64, n), make([]float64, n)
	u := make([]float64, p)
	M := mat.NewSymDense(p, nil)
	scale := make([]float64, p)
	var chol mat.Cholesky
	uv := mat.NewVecDense(p, nil)
	solve := func(b, out []float64) bool {
		// out = (D + VVᵀ)⁻¹ b = D⁻¹b − D⁻¹V M⁻¹ VᵀD⁻¹b.
		clear(u)
		for i := range b {
			addV(X, y, bias, i, dinv[i]*b[i], u)
		}
		for j := range u {
			uv.SetVec(j, u[j]/scale[j])
		}
		if err := chol.SolveVecTo(uv, uv); err != nil {
			return false
		}
		for j := range u {
			u[j] = uv.AtVec(j) / scale[j]
		}
		for i := range b {
			out[i] = dinv[i] * (b[i] - dotV(X, y, bias, i, u))
		}
		return true
	}
	row := make([]float64, p)
	mm := make([]float64, p*p)
	for it := 0; it < maxIter; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		gap := 0.0
		var obj float64
		for i, a := range alpha {
			r[i] = qa[i] - 1 - z[i] + s[i]
			gap += a*z[i] + (C-a)*s[i]
			obj += a * (qa[i]/2 - 1)
		}
		if gap <= 1e-9*(1+math.Abs(obj)) {
			break
		}
		mu := gap / float64(2*n)
		// M = I + VᵀD⁻¹V, scaled to unit diagonal.
		for i := range dinv {
			dinv[i] = 1 / (z[i]/alpha[i] + s[i]/(C-alpha[i]))
		}
		clear(mm)
		for i := 0; i < n; i++ {
			clear(row)
			addV(X, y, bias, i, 1, row)
			di := dinv[i]
			for j, vj := range row {
				if vj == 0 {
					continue
				}
				c := di * vj
				base := mm[j*p:]
				for k := j; k < p; k++ {
					base[k] += c * row[k]
				}
			}
		}
		for j := 0; j < p; j++ {
			mm[j*p+j]++
			scale[j] = math.Sqrt(mm[j*p+j])
		}
		for j := 0; j < p; j++ {
			for k := j; k < p; k++ {
				M.SetSym(j, k, mm[j*p+k]/(scale[j]*scale[k]))
			}
		}
		if !chol.Factorize(M) {
			break
		}
		// Predictor (σ = 0), then corrector.
		for i := range pz {
			pz[i], ps[i] = -alpha[i]*z[i], -(C-alpha[i])*s[i]
		}
		step := func() (float64, bool) {
			for i := range rhs {
				rhs[i] = -r[i] + pz[i]/alpha[i] - ps[i]/(C-alpha[i])
			}
			if !solve(rhs, da) {
				return 0, false
			}
			a := 1.0
			for i := range da {
				dz[i] = (pz[i] - z[i]*da[i]) / alpha[i]
				ds[i] = (ps[i] + s[i]*da[i]) / (C - alpha[i])
				if da[i] < 0 {
					a = math.Min(a, -alpha[i]/da[i])
				} else if da[i] > 0 {
					a = math.Min(a, (C-alpha[i])/da[i])
				}
				if dz[i] < 0 {
					a = math.Min(a, -z[i]/dz[i])
				}
				if ds[i] < 0 {
					a = math.Min(a, -s[i]/ds[i])
				}
			}
			return a, true
		}
		aff, ok := step()
		if !ok {
			break
		}
		gapAff := 0.0
		for i := range alpha {
			gapAff += (alpha[i]+aff*da[i])*(z[i]+aff*dz[i]) + (C-alpha[i]-aff*da[i])*(s[i]+aff*ds[i])
		}
		sigma := math.Pow(gapAff/gap, 3)
		for i := range pz {
			pz[i] = sigma*mu - alpha[i]*z[i] - da[i]*dz[i]
			ps[i] = sigma*mu - (C-alpha[i])*s[i] + da[i]*ds[i]
		}
		a, ok := step()
		if !ok {
			break
		}
		a = math.Min(1, 0.99*a)
		for i := range alpha {
			alpha[i] += a * da[i]
			z[i] += a * dz[i]
			s[i] += a * ds[i]
		}
		grad()
	}
	return alpha, nil
}

// addV adds c·V_i = c·y_i (x_i, bias) to dst (p = d+1 entries).
func addV(X matrix.Matrix, y []float64, bias float64, i int, c float64, dst []float64) {
	if c == 0 {
		return
	}
	cy := c * y[i]
	X.AddRow(dst[:len(dst)-1], i, cy)
	dst[len(dst)-1] += cy * bias
}

// dotV returns V_i · v.
func dotV(X matrix.Matrix, y []float64, bias float64, i int, v []float64) float64 {
	return y[i] * (X.RowDot(i, v[:len(v)-1]) + bias*v[len(v)-1])
}
