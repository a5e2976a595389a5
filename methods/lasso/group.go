package lasso

import (
	"context"
	"fmt"
	"math"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/lsq"
	"gonum.org/v1/gonum/mat"
)

// block is one group's Gram block in eigen form: Gram_kk = Q diag(e) Qᵀ.
type block struct {
	cols []int
	e    []float64
	q    []float64 // len×len row-major, columns are eigenvectors
	w    float64   // penalty weight √d_k
}

func newBlocks(ds *lsq.Design, groups [][]int) ([]block, error) {
	out := make([]block, len(groups))
	for k, cols := range groups {
		m := len(cols)
		g := mat.NewSymDense(m, nil)
		for a, i := range cols {
			for b, j := range cols {
				g.SetSym(a, b, ds.Gram[i*ds.D+j])
			}
		}
		var es mat.EigenSym
		if !es.Factorize(g, true) {
			return nil, fmt.Errorf("group %d: eigendecomposition of the Gram block failed", k)
		}
		var q mat.Dense
		es.VectorsTo(&q)
		e := es.Values(nil)
		for i := range e {
			e[i] = math.Max(e[i], 0)
		}
		out[k] = block{cols: cols, e: e, q: append([]float64(nil), q.RawMatrix().Data...), w: math.Sqrt(float64(m))}
		if q.RawMatrix().Stride != m {
			qq := make([]float64, m*m)
			for a := 0; a < m; a++ {
				for b := 0; b < m; b++ {
					qq[a*m+b] = q.At(a, b)
				}
			}
			out[k].q = qq
		}
	}
	return out, nil
}

// solve sets x to argmin_x ½xᵀGx − sᵀx + t‖x‖₂ for the block's G, t > 0 and
// ‖s‖ > t: x = Q (diag(e)+μ)⁻¹ Qᵀ s with μ = t/‖x‖, found as the root of
// Σ z_i² μ²/(e_i+μ)² = t² (increasing in μ).
func (b *block) solve(x, s []float64, t float64, z []float64) {
	m := len(b.cols)
	for i := 0; i < m; i++ { // z = Qᵀ s
		v := 0.0
		for a := 0; a < m; a++ {
			v += b.q[a*m+i] * s[a]
		}
		z[i] = v
	}
	g := func(mu float64) float64 {
		v := 0.0
		for i, zi := range z {
			r := zi * mu / (b.e[i] + mu)
			v += r * r
		}
		return v - t*t
	}
	lo, hi := 0.0, t
	for g(hi) < 0 {
		lo = hi
		hi *= 2
		if hi > 1e300 {
			break
		}
	}
	for it := 0; it < 200 && hi-lo > 1e-15*hi; it++ {
		mid := 0.5 * (lo + hi)
		if g(mid) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	mu := 0.5 * (lo + hi)
	for a := 0; a < m; a++ {
		v := 0.0
		for i := 0; i < m; i++ {
			v += b.q[a*m+i] * z[i] / (b.e[i] + mu)
		}
		x[a] = v
	}
}

// GroupLambdaMax returns the smallest λ for which the group lasso solution
// is zero: max_k ‖XtY_k‖ / (n √d_k).
func GroupLambdaMax(ds *lsq.Design, groups [][]int) float64 {
	m := 0.0
	for _, cols := range groups {
		s := 0.0
		for _, j := range cols {
			s += ds.XtY[j] * ds.XtY[j]
		}
		m = math.Max(m, math.Sqrt(s)/math.Sqrt(float64(len(cols))))
	}
	return m / float64(ds.N)
}

// GroupObjective returns (1/2n)RSS(β) + λ Σ_k √d_k ‖β_k‖₂ on ds.
func GroupObjective(ds *lsq.Design, groups [][]int, beta []float64, lambda float64) float64 {
	pen := 0.0
	for _, cols := range groups {
		s := 0.0
		for _, j := range cols {
			s += beta[j] * beta[j]
		}
		pen += math.Sqrt(float64(len(cols))) * math.Sqrt(s)
	}
	return ds.RSS(beta)/(2*float64(ds.N)) + lambda*pen
}

// GroupKKT returns the largest violation of the group lasso optimality
// conditions at β, in the (1/2n) scaling: for a non-zero group,
// ‖g_k + λ√d_k β_k/‖β_k‖‖; for a zero group, max(0, ‖g_k‖ − λ√d_k), where g
// is the loss gradient −(XtY − Gram β)/n.
func GroupKKT(ds *lsq.Design, groups [][]int, beta []float64, lambda float64) float64 {
	g := make([]float64, ds.D)
	ds.GramTimes(g, beta)
	worst := 0.0
	for _, cols := range groups {
		w := math.Sqrt(float64(len(cols)))
		nb, ng := 0.0, 0.0
		for _, j := range cols {
			g[j] = (g[j] - ds.XtY[j]) / float64(ds.N)
			nb += beta[j] * beta[j]
			ng += g[j] * g[j]
		}
		nb = math.Sqrt(nb)
		if nb == 0 {
			worst = math.Max(worst, math.Sqrt(ng)-lambda*w)
			continue
		}
		s := 0.0
		for _, j := range cols {
			v := g[j] + lambda*w*beta[j]/nb
			s += v * v
		}
		worst = math.Max(worst, math.Sqrt(s))
	}
	return worst
}

// SolveGroupLasso minimizes (1/2n)‖ys − Xs β‖² + λ Σ_k √d_k ‖β_k‖₂ on ds
// over the partition groups of its columns by block coordinate descent,
// warm-started from beta0 (nil: zero) at each λ of lambdas in turn.
func SolveGroupLasso(ctx context.Context, ds *lsq.Design, groups [][]int, lambdas []float64, beta0 []float64, opt Options) (*Solution, error) {
	opt = opt.norm()
	blocks, err := newBlocks(ds, groups)
	if err != nil {
		return nil, err
	}
	d, n := ds.D, float64(ds.N)
	beta := make([]float64, d)
	if beta0 != nil {
		copy(beta, beta0)
	}
	r := make([]float64, d)
	ds.GramTimes(r, beta)
	for j := range r {
		r[j] = ds.XtY[j] - r[j]
	}
	maxm := 0
	for _, b := range blocks {
		maxm = max(maxm, len(b.cols))
	}
	s, x, z, delta := make([]float64, maxm), make([]float64, maxm), make([]float64, maxm), make([]float64, maxm)
	sol := &Solution{Converged: true}
	stop := opt.Tol * math.Max(ds.YtY, 1e-300)
	for _, lambda := range lambdas {
		converged := false
		for sweep := 0; sweep < opt.MaxSweeps; sweep++ {
			if sweep%64 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			sol.Sweeps++
			maxMove := 0.0
			for k := range blocks {
				b := &blocks[k]
				m := len(b.cols)
				// s = r_k + G_kk β_k
				ns := 0.0
				for a, i := range b.cols {
					v := r[i]
					for _, j := range b.cols {
						v += ds.Gram[i*d+j] * beta[j]
					}
					s[a] = v
					ns += v * v
				}
				t := n * lambda * b.w
				if math.Sqrt(ns) <= t {
					for a := 0; a < m; a++ {
						x[a] = 0
					}
				} else if t == 0 && m == 1 {
					x[0] = s[0] / math.Max(b.e[0], 1e-300)
				} else {
					b.solve(x[:m], s[:m], math.Max(t, 1e-300), z[:m])
				}
				moved := false
				for a, j := range b.cols {
					delta[a] = x[a] - beta[j]
					if delta[a] != 0 {
						moved = true
					}
				}
				if !moved {
					continue
				}
				quad := 0.0
				for a, i := range b.cols {
					for c, j := range b.cols {
						quad += delta[a] * ds.Gram[i*d+j] * delta[c]
					}
				}
				for a, j := range b.cols {
					beta[j] = x[a]
					if delta[a] == 0 {
						continue
					}
					col := ds.Gram[j*d : (j+1)*d]
					for i := range r {
						r[i] -= col[i] * delta[a]
					}
				}
				maxMove = math.Max(maxMove, quad)
			}
			if maxMove <= stop {
				converged = true
				break
			}
		}
		if !converged {
			sol.Converged = false
		}
	}
	sol.Beta = beta
	sol.Objective = GroupObjective(ds, groups, beta, lambdas[len(lambdas)-1])
	return sol, nil
}

type groupMethod struct {
	lambda                 float64
	standardize, intercept bool
	path                   int
	opt                    Options
}

func (m *groupMethod) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	if err := checkRegression(train); err != nil {
		return nil, fmt.Errorf("group-lasso: %w", err)
	}
	ds, err := lsq.CachedDesign(train, env, m.standardize, m.intercept)
	if err != nil {
		return nil, fmt.Errorf("group-lasso: dataset %q: %w", train.Name, err)
	}
	groups, err := lsq.Groups(train)
	if err != nil {
		return nil, fmt.Errorf("group-lasso: dataset %q: %w", train.Name, err)
	}
	cols := lsq.ColumnGroups(groups)
	sol, err := SolveGroupLasso(ctx, ds, cols, Path(GroupLambdaMax(ds, cols), m.lambda, m.path), nil, m.opt)
	if err != nil {
		return nil, fmt.Errorf("group-lasso: dataset %q: %w", train.Name, err)
	}
	beta, b := ds.Coefficients(sol.Beta)
	info := methods.Info{Iterations: sol.Sweeps, Converged: sol.Converged, Objective: sol.Objective}
	return lsq.NewModel(beta, b, info, *lsq.CoefficientTable(train, groups, sol.Beta, beta, b)), nil
}
