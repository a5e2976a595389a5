package svm

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/repro-ml/repro/matrix"
)

// linearDCD solves the linear-kernel dual without an equality constraint,
//
//	min ½‖Σ α_i y_i z_i‖² − Σα  s.t. 0 ≤ α ≤ C,
//
// over z_i = x_i, or z_i = (x_i, bias) when bias > 0 (liblinear's -B: the
// bias is the weight of a constant feature and is regularized with the
// others), by dual coordinate descent on the primal weights w = Σ α_i y_i
// z_i (Hsieh et al. 2008; liblinear's solve_l2r_l1l2_svc with L1 loss,
// -s 3): each step costs one pass over a row's stored entries. The order
// of the coordinates is shuffled every epoch by rng, and the variables at
// a bound whose projected gradient keeps them there are shrunk from the
// epoch as liblinear does. It stops when the spread of the projected
// gradients over an epoch (over every variable, after unshrinking) is
// ≤ tol, or after maxSteps coordinate steps. It starts from alpha0 (clipped
// to the box) when not nil, else from zero. It returns the solution, w and
// the weight of the constant feature.
func linearDCD(ctx context.Context, X matrix.Matrix, y []float64, C, bias, tol float64, maxSteps int, rng *rand.Rand, alpha0 []float64) (*solution, []float64, float64, error) {
	n, d := X.Dims()
	alpha := make([]float64, n)
	w := make([]float64, d)
	wb := 0.0
	for i, a := range alpha0 {
		alpha[i] = math.Min(math.Max(a, 0), C)
		X.AddRow(w, i, alpha[i]*y[i])
		wb += alpha[i] * y[i] * bias
	}
	qd := make([]float64, n)
	index := make([]int, n)
	for i := range qd {
		X.Row(i, func(_ int, v float64) { qd[i] += v * v })
		qd[i] += bias * bias
		index[i] = i
	}
	res := &solution{alpha: alpha}
	pgMaxOld, pgMinOld := math.Inf(1), math.Inf(-1)
	active, steps := n, 0
	for steps < maxSteps {
		if err := ctx.Err(); err != nil {
			return nil, nil, 0, err
		}
		res.iter++
		pgMax, pgMin := math.Inf(-1), math.Inf(1)
		for s := 0; s < active; s++ {
			k := s + rng.IntN(active-s)
			index[s], index[k] = index[k], index[s]
		}
		s := 0
		for ; s < active && steps < maxSteps; s++ {
			steps++
			i := index[s]
			yi := y[i]
			g := yi*(X.RowDot(i, w)+wb*bias) - 1
			pg := 0.0
			switch {
			case alpha[i] <= 0:
				if g > pgMaxOld {
					active--
					index[s], index[active] = index[active], index[s]
					s--
					continue
				}
				pg = math.Min(g, 0)
			case alpha[i] >= C:
				if g < pgMinOld {
					active--
					index[s], index[active] = index[active], index[s]
					s--
					continue
				}
				pg = math.Max(g, 0)
			default:
				pg = g
			}
			pgMax, pgMin = math.Max(pgMax, pg), math.Min(pgMin, pg)
			switch {
			case math.Abs(pg) <= 1e-12:
			case qd[i] > 0:
				old := alpha[i]
				alpha[i] = math.Min(math.Max(old-g/qd[i], 0), C)
				if dd := (alpha[i] - old) * yi; dd != 0 {
					X.AddRow(w, i, dd)
					wb += dd * bias
				}
			case g < 0: // a zero row: the objective is linear in α_i, and w does not move
				alpha[i] = C
			default:
				alpha[i] = 0
			}
		}
		if s < active {
			break // the step cap, within an epoch
		}
		if pgMax-pgMin <= tol {
			if active == n {
				res.converged = true
				break
			}
			active = n
			pgMaxOld, pgMinOld = math.Inf(1), math.Inf(-1)
			continue
		}
		pgMaxOld, pgMinOld = pgMax, pgMin
		if pgMaxOld <= 0 {
			pgMaxOld = math.Inf(1)
		}
		if pgMinOld >= 0 {
			pgMinOld = math.Inf(-1)
		}
	}
	// Dual objective ½‖w‖² − Σα (with the constant feature's weight).
	var ww, sa float64
	for _, v := range w {
		ww += v * v
	}
	for _, a := range alpha {
		sa += a
	}
	res.obj = (ww+wb*wb)/2 - sa
	return res, w, wb, nil
}
