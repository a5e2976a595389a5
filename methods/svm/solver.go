package svm

import (
	"context"
	"math"
)

const tau = 1e-12

type solution struct {
	alpha     []float64
	b         float64
	iter      int
	converged bool
	obj       float64 // ½αᵀQα − Σα
}

// smo solves the C-SVC dual with the equality constraint yᵀα = 0 by SMO
// with second-order working-set selection (libsvm's Solver, WSS 2).
func smo(ctx context.Context, k *kcols, y []float64, C, tol float64, maxIter int) (*solution, error) {
	n := k.n
	alpha := make([]float64, n)
	G := make([]float64, n) // ∇ of ½αᵀQα − Σα: (Qα)_t − 1
	for t := range G {
		G[t] = -1
	}
	bufI, bufJ := make([]float64, n), make([]float64, n)
	isUpper := func(t int) bool { return alpha[t] >= C }
	isLower := func(t int) bool { return alpha[t] <= 0 }
	res := &solution{alpha: alpha}
	for res.iter = 0; res.iter < maxIter; res.iter++ {
		if res.iter%1000 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		// Select i: argmax over I_up of −y_t G_t.
		gmax, i := math.Inf(-1), -1
		for t := 0; t < n; t++ {
			if y[t] > 0 {
				if !isUpper(t) && -G[t] >= gmax {
					gmax, i = -G[t], t
				}
			} else if !isLower(t) && G[t] >= gmax {
				gmax, i = G[t], t
			}
		}
		if i < 0 {
			res.converged = true
			break
		}
		Ki := k.column(i, bufI)
		gmax2, j, objMin := math.Inf(-1), -1, math.Inf(1)
		for t := 0; t < n; t++ {
			var gd float64
			if y[t] > 0 {
				if isLower(t) {
					continue
				}
				gd = gmax + G[t]
				if G[t] >= gmax2 {
					gmax2 = G[t]
				}
			} else {
				if isUpper(t) {
					continue
				}
				gd = gmax - G[t]
				if -G[t] >= gmax2 {
					gmax2 = -G[t]
				}
			}
			if gd > 0 {
				quad := k.diag[i] + k.diag[t] - 2*Ki[t]
				if quad <= 0 {
					quad = tau
				}
				if o := -gd * gd / quad; o <= objMin {
					objMin, j = o, t
				}
			}
		}
		if gmax+gmax2 < tol || j < 0 {
			res.converged = true
			break
		}
		Kj := k.column(j, bufJ)
		oi, oj := alpha[i], alpha[j]
		Qij := y[i] * y[j] * Ki[j]
		if y[i] != y[j] {
			quad := k.diag[i] + k.diag[j] + 2*Qij
			if quad <= 0 {
				quad = tau
			}
			delta := (-G[i] - G[j]) / quad
			diff := alpha[i] - alpha[j]
			alpha[i] += delta
			alpha[j] += delta
			if diff > 0 {
				if alpha[j] < 0 {
					alpha[j], alpha[i] = 0, diff
				}
			} else if alpha[i] < 0 {
				alpha[i], alpha[j] = 0, -diff
			}
			if diff > 0 {
				if alpha[i] > C {
					alpha[i], alpha[j] = C, C-diff
				}
			} else if alpha[j] > C {
				alpha[j], alpha[i] = C, C+diff
			}
		} else {
			quad := k.diag[i] + k.diag[j] - 2*Qij
			if quad <= 0 {
				quad = tau
			}
			delta := (G[i] - G[j]) / quad
			sum := alpha[i] + alpha[j]
			alpha[i] -= delta
			alpha[j] += delta
			if sum > C {
				if alpha[i] > C {
					alpha[i], alpha[j] = C, sum-C
				}
			} else if alpha[j] < 0 {
				alpha[j], alpha[i] = 0, sum
			}
			if sum > C {
				if alpha[j] > C {
					alpha[j], alpha[i] = C, sum-C
				}
			} else if alpha[i] < 0 {
				alpha[i], alpha[j] = 0, sum
			}
		}
		di, dj := (alpha[i]-oi)*y[i], (alpha[j]-oj)*y[j]
		for t := 0; t < n; t++ {
			G[t] += y[t] * (Ki[t]*di + Kj[t]*dj)
		}
	}
	// Bias: b = −ρ with ρ the average of y_t G_t over free vectors (libsvm).
	ub, lb := math.Inf(1), math.Inf(-1)
	var sum float64
	free := 0
	for t := 0; t < n; t++ {
		yg := y[t] * G[t]
		switch {
		case isUpper(t):
			if y[t] < 0 {
				ub = math.Min(ub, yg)
			} else {
				lb = math.Max(lb, yg)
			}
		case isLower(t):
			if y[t] > 0 {
				ub = math.Min(ub, yg)
			} else {
				lb = math.Max(lb, yg)
			}
		default:
			free++
			sum += yg
		}
	}
	rho := (ub + lb) / 2
	if free > 0 {
		rho = sum / float64(free)
	}
	res.b = -rho
	res.obj = objective(alpha, G)
	return res, nil
}

// dcd solves the dual without bias (no equality constraint) by cyclic
// coordinate descent with exact clipped steps.
func dcd(ctx context.Context, k *kcols, y []float64, C, tol float64, maxIter int) (*solution, error) {
	n := k.n
	alpha := make([]float64, n)
	G := make([]float64, n)
	for t := range G {
		G[t] = -1
	}
	buf := make([]float64, n)
	res := &solution{alpha: alpha}
	steps := 0
	for res.iter = 0; steps < maxIter; res.iter++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		viol := 0.0
		for i := 0; i < n && steps < maxIter; i++ {
			steps++
			pg := G[i]
			if alpha[i] <= 0 {
				pg = math.Min(pg, 0)
			} else if alpha[i] >= C {
				pg = math.Max(pg, 0)
			}
			viol = math.Max(viol, math.Abs(pg))
			if pg == 0 || k.diag[i] <= 0 {
				continue
			}
			old := alpha[i]
			alpha[i] = math.Min(math.Max(old-G[i]/k.diag[i], 0), C)
			d := (alpha[i] - old) * y[i]
			if d == 0 {
				continue
			}
			Ki := k.column(i, buf)
			for t := 0; t < n; t++ {
				G[t] += y[t] * Ki[t] * d
			}
		}
		if viol <= tol {
			res.converged = true
			res.iter++
			break
		}
	}
	res.obj = objective(alpha, G)
	return res, nil
}

func objective(alpha, G []float64) float64 {
	var s float64
	for t, a := range alpha {
		s += a * (G[t] - 1)
	}
	return s / 2
}
