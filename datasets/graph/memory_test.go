package graph

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/lexicon"
	"github.com/repro-ml/repro/internal/memtest"
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
		got := memtest.Allocated(func() {
			if _, err := Cooccurrence(context.Background(), X, c.k, 0.1); err != nil {
				t.Fatal(err)
			}
		})
		memtest.Check(t, fmt.Sprintf("%d×%d", c.n, c.d), coocMemory(c.n, c.d, X.NNZ(), coocParams{K: c.k}), got)
	}
}

// TestLexcorrMemory checks lexcorrMemory against what
// lexicon-correlation's Apply allocates: never below, at most 20 times.
func TestLexcorrMemory(t *testing.T) {
	classes, err := lexicon.Classes(lexicon.Bing, 1)
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	for _, ws := range classes {
		words = append(words, ws...)
	}
	slices.Sort(words)
	n, d := 200, 3000
	features := make([]string, d)
	for j := range features {
		features[j] = fmt.Sprintf("w%05d", j)
		if j%10 == 0 {
			features[j] = words[j/10]
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	b := matrix.NewBuilder(d)
	for range n {
		for j := range d {
			if rng.IntN(30) == 0 {
				b.Add(j, 1)
			}
		}
		b.EndRow()
	}
	ds := &datasets.Dataset{Name: "t", X: b.Build(), Y: make([]float64, n), Features: features}
	tr, err := datasets.LookupTransform("lexicon-correlation")
	if err != nil {
		t.Fatal(err)
	}
	p := param.Values{"lexicon": lexicon.Bing, "min_score": 1.0, "min_count": 2, "max_words": 200, "k": 20, "metric": "euclidean"}
	got := memtest.Allocated(func() {
		if _, err := tr.Apply(context.Background(), datasets.Env{}, ds, p); err != nil {
			t.Fatal(err)
		}
	})
	memtest.Check(t, "lexicon-correlation", tr.Memory(n, d, ds.X.NNZ(), p), got)
}
