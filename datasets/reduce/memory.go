package reduce

import (
	"math"
)

// pcaMemory estimates what FitPCA allocates on n rows of d columns with
// nnz stored entries (datasets.Transform.Memory): the column means,
// scales, standard deviations and their temporaries (sixteen vectors over
// the columns, measured); with d ≤ n the d×d covariance matrix, its
// eigendecomposition's vectors and workspace and their reordered copy
// (eight d×d in all); with d > n the n×n Gram matrix and the same five n×n
// around its eigendecomposition, the columns' transpose (sparse rows), the
// d×m directions and their copy (m the components kept: all n unless the
// params fix a number without a variance share); the centred dense rows
// when X is dense; 64 KB of bookkeeping.
func pcaMemory(n, d, nnz int, p pcaParams) int64 {
	limit := 0
	if v := p.Variance; !(v > 0 && v < 1) {
		limit = p.Components
	}
	return fitMemory(n, d, nnz, limit)
}

// fitMemory is pcaMemory with limit the components FitPCA maps back to
// feature space (0: all).
func fitMemory(n, d, nnz, limit int) int64 {
	N, D, Z := float64(n), float64(d), float64(nnz)
	M := N
	if limit > 0 {
		M = math.Min(N, float64(limit))
	}
	b := 8*16*D + 64<<10
	if d <= n {
		b += 8 * 8 * D * D
	} else {
		b += 8*5*N*N + 8*(D+1) + 16*Z + 8*2*D*M + 8*2*N
	}
	if Z >= N*D {
		b += 8 * N * D
	}
	if b >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(b)
}

// FitMemory estimates the bytes FitPCA allocates on n rows of d columns
// with nnz stored entries, keeping components (Options.Components, no
// Variance share; 0 keeps all), for the memory estimate of a method that
// fits a PCA inside its own fit (methods.Plugin.Memory).
func FitMemory(n, d, nnz, components int) int64 { return fitMemory(n, d, nnz, components) }
