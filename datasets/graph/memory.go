package graph

import (
	"math"
	"runtime"

	"github.com/repro-ml/repro/param"
)

// coocMemory estimates what Cooccurrence allocates on rows×cols with nnz
// stored entries (datasets.Transform.Memory): the presence rows (after a
// sparse copy of dense X) and their transpose, the document frequencies,
// a row of at most k links per feature (with the candidates' slices),
// each worker's dense counter and candidate list over the features, and
// the d×d graph of at most k links a row; 64 KB of bookkeeping.
func coocMemory(rows, cols, nnz int, p param.Values) int64 {
	R, C, Z := float64(rows), float64(cols), float64(nnz)
	k := float64(p.Int("k"))
	csr := func(r, z float64) float64 { return 8*(r+1) + 16*z }
	b := 3*csr(R, Z) + csr(C, Z) + 8*C + 24*C + 2*16*k*C +
		float64(runtime.GOMAXPROCS(0))*(4+2*8+2*16)*C + csr(C, k*C) + 64<<10
	if b >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(b)
}
