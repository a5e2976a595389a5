package med

import (
	"fmt"
	"math"
	"testing"

	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/kernel"
	"github.com/repro-ml/repro/methods/svm"
	"github.com/repro-ml/repro/param"
)

// TestKernelCacheMatchesGram: with a cache too small for the Gram matrices
// (cache_mb 1e-4: two columns of inner products) kernel MED computes no Gram
// matrix and reaches the same multipliers, biases, switches and
// predictions (to 1e-9) as with the default cache, which holds them
// whole: kernel selection (shared and independent switches, projected
// Newton and coordinate ascent), ρ = 1 (the summed kernel), select none,
// and the flat bias prior.
func TestKernelCacheMatchesGram(t *testing.T) {
	tests := []struct {
		sel, solver, bias string
		rho               float64
		shared            bool
		M                 int
	}{
		{"kernels", "newton", "gaussian", 1e-2, true, 2},
		{"kernels", "auto", "gaussian", 1e-3, false, 2},
		{"kernels", "cd", "gaussian", 1e-2, true, 2},
		{"kernels", "auto", "gaussian", 1, false, 1},
		{"none", "auto", "gaussian", 1, false, 2},
		{"kernels", "auto", "flat", 1e-2, true, 2},
		{"none", "cd", "flat", 1, false, 1},
	}
	for _, tc := range tests {
		name := fmt.Sprintf("%s/%s/%s/rho=%g/shared=%v", tc.sel, tc.solver, tc.bias, tc.rho, tc.shared)
		t.Run(name, func(t *testing.T) {
			X, Y := synth(40, 6, 2, tc.M, 17)
			base := MED{C: 5, Rho: tc.rho, Sigma2: 1, Bias: tc.bias, Select: tc.sel, Shared: tc.shared,
				Kernels: mustKernels("linear", "poly:2", "rbf:1"), Normalize: true, Tol: 1e-8, MaxIter: 100000, Solver: tc.solver}
			small := base
			small.CacheMB = 1e-4
			big := fitTasks(t, &base, X, Y)
			before := kernel.GramsComputed()
			got := fitTasks(t, &small, X, Y)
			if n := kernel.GramsComputed() - before; n != 0 {
				t.Errorf("tiny cache: %d Gram matrices computed", n)
			}
			if !big.info.Converged || !got.info.Converged {
				t.Fatalf("converged: big cache %+v, tiny %+v", big.info, got.info)
			}
			close := func(what string, a, b float64) {
				t.Helper()
				if math.Abs(a-b) > 1e-9*(1+math.Abs(a)) {
					t.Errorf("%s: %.15g (Gram matrices), %.15g (tiny cache)", what, a, b)
				}
			}
			close("J", big.info.Objective, got.info.Objective)
			for m := range big.Lambda {
				close(fmt.Sprintf("b[%d]", m), big.B[m], got.B[m])
				for i := range big.Lambda[m] {
					close(fmt.Sprintf("λ[%d][%d]", m, i), big.Lambda[m][i], got.Lambda[m][i])
				}
			}
			for s := range big.S {
				for d := range big.S[s] {
					close(fmt.Sprintf("ŝ[%d][%d]", s, d), big.S[s][d], got.S[s][d])
				}
			}
			pb, pg := big.Predict(X).Scores, got.Predict(X).Scores
			for i := range pb {
				close(fmt.Sprintf("score %d", i), pb[i], pg[i])
			}
		})
	}
}

// TestCacheMBDefault: med's cache_mb defaults to svm's (the same cache).
func TestCacheMBDefault(t *testing.T) {
	for _, d := range param.Of[Params]().Params {
		if d.Name == "cache_mb" && d.Default != svm.DefaultCacheMB {
			t.Errorf("med cache_mb default %v, svm's %v", d.Default, svm.DefaultCacheMB)
		}
	}
}

// TestMemoryKernelCache: the memory estimate of kernel selection follows
// cache_mb: on 20,000 rows (8 base kernels, whose Gram matrices take
// 25.6 GB) coordinate ascent with the default cache is estimated under
// 1 GB, and projected Newton adds its T×T systems (9.6 GB), which no
// cache removes; on 200 rows the Gram matrices fit and are counted whole.
func TestMemoryKernelCache(t *testing.T) {
	p, err := param.Decode[Params](param.Values{})
	if err != nil {
		t.Fatal(err)
	}
	p.Select, p.Rho, p.Tasks = "kernels", 0.01, "shared"
	p.Kernels = []string{"poly:1", "poly:2", "poly:3", "poly:4", "rbf:10", "rbf:1", "rbf:0.1", "rbf:0.01"}
	big := methods.Shape{Rows: 20000, Cols: 617, NNZ: 20000 * 617, Dense: true, Classes: 26, Test: 600}
	p.Solver = "cd"
	if est := memory(big, p); est > 1<<30 {
		t.Errorf("cd, 20,000 rows: estimate %d MB, want under 1 GB", est>>20)
	}
	p.Solver = "newton"
	if est := memory(big, p); est < methods.Floats(3, 20000, 20000) || est > methods.Floats(3, 20000, 20000)+1<<30 {
		t.Errorf("newton, 20,000 rows: estimate %d MB, want the T×T systems (%d MB) and under 1 GB more", est>>20, methods.Floats(3, 20000, 20000)>>20)
	}
	small := methods.Shape{Rows: 200, Cols: 617, NNZ: 200 * 617, Dense: true, Classes: 26, Test: 600}
	if est := memory(small, p); est < methods.Floats(8+1, 200, 200) {
		t.Errorf("200 rows: estimate %d bytes, below the 8 Gram matrices and the inner products", est)
	}
}
