package linear

import (
	"context"
	"math"

	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
)

// fitL1Ref is the first logreg-l1 solver (newGLMNET without inner
// shrinking, random order, bias re-minimization or cached sigmoids), kept
// as an independent reference for the optimum the fast solver reaches. It
// minimizes ‖w‖₁ + C Σᵢ log(1+exp(−yᵢ(wᵀxᵢ+b))) (b unpenalized) by
// newGLMNET (Yuan, Ho and Lin 2012, as liblinear -s 6). Each outer
// iteration builds the quadratic model ∇Lᵀδ + ½δᵀ(XᵀDX)δ + ‖w+δ‖₁ of the
// objective at w, minimizes it approximately by cyclic coordinate descent
// over the active coordinates (those that are non-zero or violate the
// optimality conditions by more than a shrinking margin), and takes an
// Armijo step along δ. It stops when the minimum-norm subgradient of the
// objective, over every coordinate, is at most Tol in ∞-norm: then
// |∂L/∂wⱼ| ≤ 1+Tol where wⱼ = 0, |∂L/∂wⱼ + sign(wⱼ)| ≤ Tol elsewhere and
// |∂L/∂b| ≤ Tol.
func fitL1Ref(ctx context.Context, X matrix.Matrix, cols *colMajor, y []float64, s l1Settings) ([]float64, float64, methods.Info, error) {
	const (
		sigma = 0.01  // Armijo sufficient decrease
		nu    = 1e-12 // keeps the diagonal Hessian positive
		maxLS = 30
	)
	n, d := X.Dims()
	nc := d // number of coordinates
	if s.Intercept {
		nc = d + 1
	}
	w := make([]float64, nc) // w[d] is b when there is an intercept
	xw := make([]float64, n) // wᵀxᵢ + b
	r := make([]float64, n)  // ∂L/∂(wᵀxᵢ)
	D := make([]float64, n)  // ∂²L/∂(wᵀxᵢ)²
	g := make([]float64, d+1)
	H := make([]float64, nc)
	delta := make([]float64, nc)
	xd := make([]float64, n)
	xnew := make([]float64, n)
	active := make([]int, 0, nc)

	lossAt := func(z []float64) float64 {
		l := 0.0
		for i, zi := range z {
			l += log1pexp(-y[i] * zi)
		}
		return s.C * l
	}
	l1 := func(v []float64) float64 {
		t := 0.0
		for _, x := range v[:d] {
			t += math.Abs(x)
		}
		return t
	}
	F := lossAt(xw)
	info := methods.Info{}
	gmaxOld := math.Inf(1)
	innerEps := 0.25
	for iter := 0; ; iter++ {
		if err := ctx.Err(); err != nil {
			return nil, 0, info, err
		}
		for i := range xw {
			sg := sigmoid(-y[i] * xw[i])
			r[i] = -s.C * y[i] * sg
			D[i] = s.C * sg * (1 - sg)
		}
		X.MulTransVec(g[:d], r)
		g[d] = 0
		for _, v := range r {
			g[d] += v
		}
		// Minimum-norm subgradient and the active set.
		vmax := 0.0
		active = active[:0]
		margin := 1 - gmaxOld/float64(n)
		for j := 0; j < d; j++ {
			var v float64
			switch {
			case w[j] > 0:
				v = math.Abs(g[j] + 1)
			case w[j] < 0:
				v = math.Abs(g[j] - 1)
			default:
				v = math.Max(0, math.Abs(g[j])-1)
			}
			vmax = math.Max(vmax, v)
			if w[j] != 0 || math.Abs(g[j]) > margin {
				active = append(active, j)
			}
		}
		if s.Intercept {
			vmax = math.Max(vmax, math.Abs(g[d]))
			active = append(active, d)
		}
		info.Iterations = iter
		info.Objective = F + l1(w)
		if vmax <= s.Tol {
			info.Converged = true
			break
		}
		if iter >= s.MaxIter {
			break
		}
		gmaxOld = vmax

		// Diagonal of XᵀDX over the active coordinates.
		for _, j := range active {
			h := nu
			if j == d {
				for _, v := range D {
					h += v
				}
			} else {
				ind, val := cols.col(j)
				if ind == nil {
					for i, x := range val {
						h += D[i] * x * x
					}
				} else {
					for k, x := range val {
						h += D[ind[k]] * x * x
					}
				}
			}
			H[j] = h
		}

		// Coordinate descent on the quadratic model.
		clear(delta)
		clear(xd)
		passes := 0
		for passes < 100 {
			passes++
			qmax := 0.0
			for _, j := range active {
				G := g[j]
				var ind []int32
				var val []float64
				if j == d {
					for i, v := range D {
						G += v * xd[i]
					}
				} else {
					ind, val = cols.col(j)
					if ind == nil {
						for i, x := range val {
							G += D[i] * x * xd[i]
						}
					} else {
						for k, x := range val {
							i := ind[k]
							G += D[i] * x * xd[i]
						}
					}
				}
				h := H[j]
				wj := w[j] + delta[j]
				var z, q float64
				if j == d {
					z, q = -G/h, math.Abs(G)
				} else {
					switch {
					case G+1 <= h*wj:
						z = -(G + 1) / h
					case G-1 >= h*wj:
						z = -(G - 1) / h
					default:
						z = -wj
					}
					switch {
					case wj > 0:
						q = math.Abs(G + 1)
					case wj < 0:
						q = math.Abs(G - 1)
					default:
						q = math.Max(0, math.Abs(G)-1)
					}
				}
				qmax = math.Max(qmax, q)
				if z == 0 {
					// Even a tiny z must be applied: z = −wj takes a
					// coordinate to exactly zero.
					continue
				}
				z = math.Max(-10, math.Min(10, z))
				delta[j] += z
				switch {
				case j == d:
					for i := range xd {
						xd[i] += z
					}
				case ind == nil:
					for i, x := range val {
						xd[i] += z * x
					}
				default:
					for k, x := range val {
						xd[ind[k]] += z * x
					}
				}
			}
			if qmax <= innerEps*vmax {
				break
			}
		}
		if passes == 1 {
			innerEps *= 0.25
		}

		// Armijo line search along delta.
		dec := 0.0
		for j := 0; j < nc; j++ {
			dec += g[j] * delta[j]
			if j < d {
				dec += math.Abs(w[j]+delta[j]) - math.Abs(w[j])
			}
		}
		old := F + l1(w)
		step := 1.0
		accepted := false
		wnew := make([]float64, nc)
		for ls := 0; ls < maxLS; ls++ {
			for j := range wnew {
				wnew[j] = w[j] + step*delta[j]
			}
			for i := range xnew {
				xnew[i] = xw[i] + step*xd[i]
			}
			Fn := lossAt(xnew)
			if Fn+l1(wnew)-old <= sigma*step*dec {
				copy(w, wnew)
				copy(xw, xnew)
				F = Fn
				accepted = true
				break
			}
			step /= 2
		}
		if !accepted {
			// No decrease is possible at machine precision; report the
			// current point as not converged.
			break
		}
	}
	b := 0.0
	if s.Intercept {
		b = w[d]
	}
	return w[:d:d], b, info, nil
}
