package reduce

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/repro-ml/repro/internal/memtest"
	"github.com/repro-ml/repro/matrix"
)

// TestPCAMemory checks pcaMemory against what FitPCA allocates
// (runtime.MemStats.TotalAlloc, at least its peak): never below, at most
// 20 times, on dense and sparse rows with fewer and more columns than rows.
func TestPCAMemory(t *testing.T) {
	for _, c := range []struct {
		n, d       int
		dense      bool
		components int // 0: all
	}{
		{100, 40, true, 0},
		{40, 300, true, 0},
		{40, 5000, false, 0},
		{40, 5000, false, 3},
		{300, 60, false, 0},
		{300, 60, false, 5},
	} {
		t.Run(fmt.Sprintf("%dx%d/dense=%t/components=%d", c.n, c.d, c.dense, c.components), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(c.n), uint64(c.d)))
			b := matrix.NewBuilder(c.d)
			for range c.n {
				for j := range c.d {
					if c.dense || rng.IntN(50) == 0 {
						b.Add(j, rng.NormFloat64())
					}
				}
				b.EndRow()
			}
			var X matrix.Matrix = b.Build()
			if c.dense {
				X = matrix.ToDense(X)
			}
			got := memtest.Allocated(func() {
				if _, err := FitPCA(context.Background(), X, Options{Standardize: true, Components: c.components}); err != nil {
					t.Fatal(err)
				}
			})
			memtest.Check(t, "pca", FitMemory(c.n, c.d, X.NNZ(), c.components), got)
		})
	}
}

// TestPCAMemoryParams checks that the transform's estimate counts the
// directions FitPCA maps back: the components asked for, or all of them
// under a variance share (which decides the number only after the fit).
func TestPCAMemoryParams(t *testing.T) {
	n, d, nnz := 1772, 1278678, 3000000
	for _, c := range []struct {
		p     pcaParams
		limit int
	}{
		{pcaParams{Components: 10, Variance: 1}, 10},
		{pcaParams{Components: 0, Variance: 1}, 0},
		{pcaParams{Components: 10, Variance: 0.9}, 0},
	} {
		if got, want := pcaMemory(n, d, nnz, c.p), FitMemory(n, d, nnz, c.limit); got != want {
			t.Errorf("%v: %d bytes, want %d (%d components)", c.p, got, want, c.limit)
		}
	}
	// Ten directions of a million columns are far fewer bytes than all
	// 1,772 (Fig. 3's A+G 5-grams: 36 GB before the limit was counted).
	if ten, all := FitMemory(n, d, nnz, 10), FitMemory(n, d, nnz, 0); ten > 1<<30 || all < 30<<30 {
		t.Errorf("10 components %d bytes, all %d; want under 1 GiB and over 30 GiB", ten, all)
	}
}
