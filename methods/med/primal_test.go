package med

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/repro-ml/repro/matrix"
)

// correlated returns n rows of d standardized continuous inputs driven by
// k latent factors (x = loadings·z + noise), as in multispectral pixel
// tables, and a label from a noisy linear function of the factors. Its
// linear kernel has numerical rank ≈ k, the case on which coordinate
// ascent on the dual stalls (issue 13).
func correlated(n, d, k int, noise float64, seed uint64) (*matrix.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	load := make([][]float64, d)
	for j := range load {
		load[j] = make([]float64, k)
		for l := range load[j] {
			load[j][l] = rng.NormFloat64()
		}
	}
	v := make([]float64, k)
	for l := range v {
		v[l] = rng.NormFloat64()
	}
	X := matrix.NewDense(n, d, nil)
	y := make([]float64, n)
	z := make([]float64, k)
	for i := 0; i < n; i++ {
		var s float64
		for l := range z {
			z[l] = rng.NormFloat64()
			s += v[l] * z[l]
		}
		for j := 0; j < d; j++ {
			var x float64
			for l := range z {
				x += load[j][l] * z[l]
			}
			X.Set(i, j, x+noise*rng.NormFloat64())
		}
		y[i] = 1
		if s+0.7*rng.NormFloat64() < 0 {
			y[i] = -1
		}
	}
	for j := 0; j < d; j++ {
		var s, s2 float64
		for i := 0; i < n; i++ {
			s += X.At(i, j)
		}
		mean := s / float64(n)
		for i := 0; i < n; i++ {
			s2 += (X.At(i, j) - mean) * (X.At(i, j) - mean)
		}
		sd := math.Sqrt(s2 / float64(n))
		for i := 0; i < n; i++ {
			X.Set(i, j, (X.At(i, j)-mean)/sd)
		}
	}
	return X, y
}

// TestRhoOneConvergesOnStandardizedFeatures: at ρ = 1 solver auto (500
// coordinate-ascent sweeps, then the primal Newton solver) converges on 300
// rows × 36 standardized, correlated continuous inputs at every c, in
// 500 sweeps and at most a few hundred Newton iterations, where coordinate ascent on the dual stopped at its 20,000-sweep cap
// after 9–13 s (issue 13). J equals projected Newton on the dual (to 1e-7
// relative). (The flat prior: TestFlatPrimalMatchesNewton.)
func TestRhoOneConvergesOnStandardizedFeatures(t *testing.T) {
	for _, noise := range []float64{0.01, 0.1} {
		X, y := correlated(300, 36, 4, noise, 1)
		for _, c := range []float64{2, 11, 101} {
			for _, bias := range []string{"gaussian"} {
				e := &MED{C: c, Rho: 1, Sigma2: 1, Bias: bias, Select: "features", Tol: 1e-3, MaxIter: 20000}
				start := time.Now()
				m := fitTasks(t, e, X, [][]float64{y})
				took := time.Since(start)
				t.Logf("noise %g c %g %s: %d iterations, %v", noise, c, bias, m.info.Iterations, took)
				if !m.info.Converged || m.info.Iterations > 2000 {
					t.Errorf("noise %g c %g %s: converged %v after %d iterations (%v)", noise, c, bias, m.info.Converged, m.info.Iterations, took)
				}
				if c == 101 {
					continue
				}
				ref := &MED{C: c, Rho: 1, Sigma2: 1, Select: "features", Tol: 1e-6, MaxIter: 10000, Solver: "newton"}
				r := fitTasks(t, ref, X, [][]float64{y})
				if d := math.Abs(m.info.Objective - r.info.Objective); d > 1e-7*math.Abs(r.info.Objective) {
					t.Errorf("noise %g c %g: J %.10g (auto), %.10g (newton)", noise, c, m.info.Objective, r.info.Objective)
				}
			}
		}
	}
}
