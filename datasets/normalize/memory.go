package normalize

import (
	"math"
)

// memory estimates what Fit and Apply allocate on rows×cols with nnz
// stored entries (datasets.Transform.Memory): three copies of X in its
// storage (dense when every entry is stored) — the L1 rows the deviations
// are taken on, and the L1 rows and scaled columns of the transformed
// rows — the column statistics and the factors, and 64 KB of
// bookkeeping.
func memory(rows, cols, nnz int, _ params) int64 {
	R, C, Z := float64(rows), float64(cols), float64(nnz)
	x := 8*(R+1) + 16*Z // CSR: Ptr, Ind, Val
	if Z >= R*C {
		x = 8 * R * C
	}
	b := 3*x + 8*4*C + 8*2*R + 64<<10
	if b >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(b)
}
