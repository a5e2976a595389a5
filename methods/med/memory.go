package med

import (
	"github.com/repro-ml/repro/methods"
)

// memory (methods.Plugin.Memory). With select: features, the sparse rows,
// the solver's M×D switch and weight statistics and the artifacts' weight
// table and plot, all over the D columns; with kernels, when the Gram
// matrices fit in cache_mb (gramsFit), the training inner products, one
// Gram matrix per base kernel (and their sum) and the kernel statistics,
// else the cache of inner-product columns (at most cache_mb, at least two
// columns, at most every column; kernel.Family), its spare columns and
// bookkeeping, one column and the diagonal per base kernel, and the
// summed column; the projected Newton
// solver's T×T systems when it runs (the Hessian of the free block and its
// Cholesky factor: the one T×T need that no cache removes); and Predict's
// kernels between a block of predicted rows (predictRows) and the
// training rows, and the block's copy.
func memory(s methods.Shape, p Params) int64 {
	M, T, D := s.Tasks(), s.Rows, s.Cols
	test := s.TestRows()
	// solver auto is projected Newton except for select features at ρ = 1
	// (e.solver); kernels at ρ = 1 and select none included.
	newton := p.Solver == "newton" || p.Bias == "flat" ||
		p.Solver == "auto" && (p.Rho != 1 || p.Select != "features")
	var solve int64
	if newton {
		solve = methods.Floats(3, T, T)
	}
	if p.Select == "features" {
		return methods.Bytes(methods.Floats(4, s.NNZ), methods.Floats(3, T), methods.Floats(M, T),
			methods.Floats(7*M+10, D), solve, methods.Floats(test, M+2))
	}
	k := len(p.Kernels)
	sum := p.Select == "none" || p.Rho == 1
	kern := methods.Floats(k+3, T, T)
	if e := (&MED{CacheMB: p.CacheMB}); !gramsFit(T, k, sum, e.cacheBytes()) {
		kern = methods.Bytes(min(e.cacheBytes(), methods.Floats(T, T)), methods.Floats(2*k+16, T), methods.Floats(D))
	}
	sv := methods.CSRBytes(T, s.NNZ)
	if s.Dense {
		sv = methods.Floats(T, D)
	}
	return methods.Bytes(kern, methods.Floats(M, k+2, T), solve, sv,
		methods.Floats(k+2, min(test, predictRows(T)), T), methods.Floats(min(test, predictRows(T)), D),
		methods.Floats(test, M+2))
}
