package normalize

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/internal/memtest"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/param"
)

// TestMemory checks the estimate against what Apply allocates
// (runtime.MemStats.TotalAlloc): never below, at most 20 times, dense and
// sparse.
func TestMemory(t *testing.T) {
	for _, dense := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(1, 2))
		n, d := 300, 2000
		b := matrix.NewBuilder(d)
		for range n {
			for j := range d {
				if dense || rng.IntN(40) == 0 {
					b.Add(j, rng.Float64())
				}
			}
			b.EndRow()
		}
		var X matrix.Matrix = b.Build()
		if dense {
			X = matrix.ToDense(X)
		}
		ds := &datasets.Dataset{Name: "t", X: X, Y: make([]float64, n)}
		tr, err := datasets.LookupTransform("normalize")
		if err != nil {
			t.Fatal(err)
		}
		p := param.Values{"l1": true, "scale": true}
		got := memtest.Allocated(func() {
			if _, err := tr.Apply(context.Background(), datasets.Env{}, ds, p); err != nil {
				t.Fatal(err)
			}
		})
		memtest.Check(t, fmt.Sprintf("dense=%t", dense), tr.Memory(n, d, X.NNZ(), p), got)
	}
}
