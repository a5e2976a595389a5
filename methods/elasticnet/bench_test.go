package elasticnet

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/repro-ml/repro/matrix"
)

// newsLike returns a 20-Newsgroups-shaped sparse count matrix: n documents of
// about 80 distinct words drawn from a Zipf vocabulary of d words, each of K
// classes favouring its own few hundred words.
func newsLike(n, d, K int) (*matrix.CSR, []int) {
	rng := rand.New(rand.NewPCG(20, uint64(K)))
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(d-1))
	b := matrix.NewBuilder(d)
	y := make([]int, n)
	row := map[int]float64{}
	for i := 0; i < n; i++ {
		k := i % K
		y[i] = k
		clear(row)
		for t := 0; t < 120; t++ {
			j := int(zipf.Uint64())
			if rng.Float64() < 0.2 {
				j = (k*300 + rng.IntN(300)) % d // class words
			}
			row[j]++
		}
		for _, j := range slices.Sorted(maps.Keys(row)) {
			b.Add(j, row[j])
		}
		b.EndRow()
	}
	return b.Build(), y
}

// BenchmarkPath fits glmnet's 100-point path (λ down to 0.01·λ_max) on a
// 20-Newsgroups-shaped sparse matrix, binomial and 5-class multinomial.
func BenchmarkPath(b *testing.B) {
	for _, tc := range []struct{ n, d, K int }{{2000, 20000, 2}, {2000, 20000, 5}} {
		X, y := newsLike(tc.n, tc.d, tc.K)
		for _, alpha := range []float64{1, 0.5} {
			b.Run(fmt.Sprintf("n=%d/d=%d/K=%d/alpha=%g", tc.n, tc.d, tc.K, alpha), func(b *testing.B) {
				nz := 0
				for range b.N {
					p, err := NewProblem(X, y, tc.K, Options{Alpha: alpha, Standardize: true, Intercept: true})
					if err != nil {
						b.Fatal(err)
					}
					fits, err := p.Path(context.Background(), p.Sequence(100, 0.01))
					if err != nil {
						b.Fatal(err)
					}
					nz = 0
					for _, v := range fits[len(fits)-1].Beta[0] {
						if v != 0 {
							nz++
						}
					}
				}
				b.ReportMetric(float64(nz), "nonzero")
				b.ReportMetric(math.Round(float64(X.NNZ())), "nnz")
			})
		}
	}
}
