package graph

import (
	"math"
	"runtime"

	"github.com/repro-ml/repro/datasets/lexicon"
)

// coocMemory estimates what Cooccurrence allocates on rows×cols with nnz
// stored entries (datasets.Transform.Memory): the presence rows (after a
// sparse copy of dense X) and their transpose, the document frequencies,
// a row of at most k links per feature (with the candidates' slices),
// each worker's dense counter and candidate list over the features, and
// the d×d graph of at most k links a row; 64 KB of bookkeeping.
func coocMemory(rows, cols, nnz int, p coocParams) int64 {
	R, C, Z := float64(rows), float64(cols), float64(nnz)
	k := float64(p.K)
	csr := func(r, z float64) float64 { return 8*(r+1) + 16*z }
	b := 3*csr(R, Z) + csr(C, Z) + 8*C + 24*C + 2*16*k*C +
		float64(runtime.GOMAXPROCS(0))*(4+2*8+2*16)*C + csr(C, k*C) + 64<<10
	if b >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(b)
}

// lexcorrMemory estimates what lexicon-correlation's Apply allocates on
// rows×cols with nnz stored entries (datasets.Transform.Memory), for L
// lexicon words (max_words, or every word of the lexicon at min_score,
// at most the columns): the presence rows and their transpose, a sparse
// copy of dense X, the column statistics, the cols×L correlations, each
// worker's 64 rows of distances to every column and neighbour heap, the k
// neighbours of every column, and the mutual-neighbour graph, built by
// appending (up to five times its final size); 64 KB of bookkeeping.
func lexcorrMemory(rows, cols, nnz int, p lexcorrParams) int64 {
	R, C, Z := float64(rows), float64(cols), float64(nnz)
	k := float64(p.K)
	L := float64(p.MaxWords)
	if classes, err := lexicon.Classes(p.Lexicon, p.MinScore); err == nil {
		words := 0
		for _, ws := range classes {
			words += len(ws)
		}
		if L == 0 || float64(words) < L {
			L = float64(words)
		}
	}
	L = min(L, C)
	csr := func(r, z float64) float64 { return 8*(r+1) + 16*z }
	b := 4*csr(R, Z) + csr(C, Z) + 8*5*C + 8*C*L + 8*C + C*(24+8*(k+1)) +
		float64(runtime.GOMAXPROCS(0))*(8*64*C+32*k) + 5*16*k*C + 8*(C+1) + 64<<10
	if b >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(b)
}
