package logistic

import (
	"fmt"

	"gonum.org/v1/gonum/floats"

	"github.com/repro-ml/repro/matrix"
)

// The two kernels every evaluation spends its time in. A penalty term,
// the scores X·W and the loss gradient Xᵀ·∂z all reduce to them: a sparse
// row (ind, val) times the row-major D×C block of weights, read (gather)
// or updated (scatter) one C-vector per non-zero. With C = 20 classes
// these were calls of floats.AddScaled per non-zero, 18 ns each on the
// 20-Newsgroups-shaped benchmark; on amd64 with AVX2 and FMA they are one
// assembly loop per row that keeps the row's C-vector in registers.

// gatherRow adds Σ_k val[k]·W[ind[k]·C : ind[k]·C+C] to r[:C].
func gatherRow(r []float64, ind []int32, val []float64, W []float64, C int) {
	checkRow("gather", r, ind, val, W, C)
	if useAVX2 && C >= 4 {
		gatherAVX2(r, ind, val, W, C)
		return
	}
	gatherGo(r, ind, val, W, C)
}

// scatterRow adds a·val[k]·r[:C] to G[ind[k]·C : ind[k]·C+C] for every k.
func scatterRow(G []float64, ind []int32, val []float64, r []float64, a float64, C int) {
	checkRow("scatter", r, ind, val, G, C)
	if useAVX2 && C >= 4 {
		scatterAVX2(G, ind, val, r, a, C)
		return
	}
	scatterGo(G, ind, val, r, a, C)
}

// checkRow panics unless r holds C values and every index has a value.
// That every index addresses a whole C-vector of W is the caller's
// invariant, checked once per problem (Problem.check): the assembly kernels
// do not check their accesses, and a scan of the indices on every call
// cost 3 % of a fit.
func checkRow(op string, r []float64, ind []int32, val []float64, W []float64, C int) {
	if C < 1 || len(r) < C || len(val) < len(ind) || len(W)%C != 0 {
		panic(fmt.Sprintf("logistic: %s: C = %d, %d values in r, %d values for %d indices, %d weights", op, C, len(r), len(val), len(ind), len(W)))
	}
}

// checkIndices panics unless every column index of A is in [0, n).
func checkIndices(what string, A *matrix.CSR, n int) {
	for _, j := range A.Ind[:A.Ptr[A.R]] {
		if uint(j) >= uint(n) {
			panic(fmt.Sprintf("logistic: %s has column index %d, want [0, %d)", what, j, n))
		}
	}
}

// gatherGo and scatterGo are the kernels without the assembly: gonum's
// axpy per non-zero, what Eval did before the assembly (faster than a
// plain Go loop by a quarter on the benchmark).
func gatherGo(r []float64, ind []int32, val []float64, W []float64, C int) {
	r = r[:C]
	for k, j32 := range ind {
		j := int(j32)
		floats.AddScaled(r, val[k], W[j*C:j*C+C])
	}
}

func scatterGo(G []float64, ind []int32, val []float64, r []float64, a float64, C int) {
	r = r[:C]
	for k, j32 := range ind {
		j := int(j32)
		floats.AddScaled(G[j*C:j*C+C], a*val[k], r)
	}
}
