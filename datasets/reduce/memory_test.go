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
		n, d  int
		dense bool
	}{
		{100, 40, true},
		{40, 300, true},
		{40, 5000, false},
		{300, 60, false},
	} {
		t.Run(fmt.Sprintf("%dx%d/dense=%t", c.n, c.d, c.dense), func(t *testing.T) {
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
				if _, err := FitPCA(context.Background(), X, Options{Standardize: true}); err != nil {
					t.Fatal(err)
				}
			})
			memtest.Check(t, "pca", pcaMemory(c.n, c.d, X.NNZ(), nil), got)
		})
	}
}
