package graph

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/repro-ml/repro/matrix"
)

// zipfCSR returns an n×d document-term matrix with about per distinct
// terms per document drawn from a Zipf law, like a text corpus.
func zipfCSR(n, d, per int, seed uint64) *matrix.CSR {
	rng := rand.New(rand.NewPCG(seed, 2))
	z := rand.NewZipf(rng, 1.1, 10, uint64(d-1))
	b := matrix.NewBuilder(d)
	for i := 0; i < n; i++ {
		for t := 0; t < per; t++ {
			b.Add(int(z.Uint64()), 1)
		}
		b.EndRow()
	}
	return b.Build()
}

// BenchmarkCooccurrence20News builds the co-occurrence graph (k = 25,
// threshold 0.10) of a matrix shaped like the 20 Newsgroups one: 18,846
// documents × 11,376 words, ~80 distinct words per document.
func BenchmarkCooccurrence20News(b *testing.B) {
	x := zipfCSR(18846, 11376, 100, 1)
	b.ResetTimer()
	for range b.N {
		if _, err := Cooccurrence(context.Background(), x, 25, 0.10); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLexiconCorrelation builds a mutual 100-NN graph of 6,000 features
// described by correlations with 200 lexicon columns over 2,000 documents,
// the size of one Amazon domain with unigrams and bigrams in ≥ 10 reviews.
func BenchmarkLexiconCorrelation(b *testing.B) {
	x := zipfCSR(2000, 6000, 150, 3)
	cols := make([]int, 200)
	for i := range cols {
		cols[i] = 10 + 3*i
	}
	b.ResetTimer()
	for range b.N {
		if _, err := LexiconCorrelation(context.Background(), x, cols, 100, false); err != nil {
			b.Fatal(err)
		}
	}
}
