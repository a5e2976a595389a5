package med

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
)

// BenchmarkIsoletKernelSelection times one shared multi-task kernel
// selection fit of the Isolet shape (26 tasks × 200 rows × 8 base kernels,
// 617 inputs), on synthetic data: 26 Gaussian clusters. Gram matrices are
// computed inside each iteration (a fresh memo), as for the first grid
// point of a trial.
func BenchmarkIsoletKernelSelection(b *testing.B) {
	const n, d, K = 200, 617, 26
	rng := rand.New(rand.NewPCG(1, 2))
	centers := make([][]float64, K)
	for k := range centers {
		centers[k] = make([]float64, d)
		for j := range centers[k] {
			centers[k][j] = rng.NormFloat64() * 0.1
		}
	}
	X := matrix.NewDense(n, d, nil)
	Y := make([][]float64, K)
	for k := range Y {
		Y[k] = make([]float64, n)
	}
	for i := 0; i < n; i++ {
		c := i % K
		for j := 0; j < d; j++ {
			X.Set(i, j, centers[c][j]+0.1*rng.NormFloat64())
		}
		for k := range Y {
			Y[k][i] = -1
		}
		Y[c][i] = 1
	}
	// cache_mb 200 holds the Gram matrices; 0.4 holds the 200 columns of
	// inner products (kernel.Family) but not the Gram matrices; 0.1 a
	// quarter of them.
	for _, mb := range []float64{200, 0.4, 0.1} {
		b.Run(fmt.Sprintf("cache_mb=%g", mb), func(b *testing.B) {
			e := &MED{C: 10, Rho: 1e-2, Sigma2: 1, Select: "kernels", Shared: true, Normalize: true, Tol: 1e-3, MaxIter: 20000,
				Kernels: mustKernels("poly:1", "poly:2", "poly:3", "poly:4", "rbf:10", "rbf:1", "rbf:0.1", "rbf:0.01"), CacheMB: mb}
			for i := 0; i < b.N; i++ {
				m, err := e.FitTasks(context.Background(), X, Y, nil, &methods.Env{Memo: &methods.Memo{}})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(m.(*Model).info.Iterations), "sweeps")
			}
		})
	}
}

// BenchmarkFlatRhoOne times one fit of feature selection at ρ = 1 with the
// flat bias prior on the Landsat-like case of issue 13 (300 rows × 36
// standardized continuous inputs driven by 4 latent factors, noise 0.1;
// see correlated), at c = 2, 11 and 101, solver auto, tol 1e-3.
func BenchmarkFlatRhoOne(b *testing.B) {
	X, y := correlated(300, 36, 4, 0.1, 1)
	for _, c := range []float64{2, 11, 101} {
		b.Run(fmt.Sprintf("c=%g", c), func(b *testing.B) {
			e := &MED{C: c, Rho: 1, Bias: "flat", Select: "features", Tol: 1e-3, MaxIter: 20000}
			for i := 0; i < b.N; i++ {
				m, err := e.FitTasks(context.Background(), X, [][]float64{y}, nil, &methods.Env{Memo: &methods.Memo{}})
				if err != nil {
					b.Fatal(err)
				}
				info := m.(*Model).info
				if !info.Converged {
					b.Fatalf("c = %g: not converged after %d iterations", c, info.Iterations)
				}
				b.ReportMetric(float64(info.Iterations), "iterations")
			}
		})
	}
}
