package graph

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/param"
)

// TestCoocMemory checks coocMemory against what Cooccurrence allocates
// (runtime.MemStats.TotalAlloc, at least its peak): never below, at most
// 20 times, on documents over a small and a large vocabulary.
func TestCoocMemory(t *testing.T) {
	for _, c := range []struct{ n, d, words, k int }{
		{200, 500, 30, 25},
		{100, 20000, 20, 5},
	} {
		rng := rand.New(rand.NewPCG(uint64(c.n), uint64(c.d)))
		b := matrix.NewBuilder(c.d)
		for range c.n {
			seen := map[int]bool{}
			for range c.words {
				seen[rng.IntN(c.d)] = true
			}
			for j := range c.d {
				if seen[j] {
					b.Add(j, 1)
				}
			}
			b.EndRow()
		}
		X := b.Build()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if _, err := Cooccurrence(context.Background(), X, c.k, 0.1); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		got := int64(after.TotalAlloc - before.TotalAlloc)
		est := coocMemory(c.n, c.d, X.NNZ(), param.Values{"k": c.k})
		t.Logf("%d×%d: estimate %d bytes, allocated %d (%.1f×)", c.n, c.d, est, got, float64(est)/float64(got))
		if est < got || est > 20*got {
			t.Errorf("%d×%d: estimate %d bytes for %d allocated: want between 1 and 20 times", c.n, c.d, est, got)
		}
	}
}
