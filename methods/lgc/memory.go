package lgc

import (
	"github.com/repro-ml/repro/methods"
)

// memory (methods.Plugin.Memory): Predict's work over the N training and
// predicted rows: the stacked rows and their transpose, the k-nearest
// neighbour graph, its symmetrized affinity (built through maps) and the
// propagation's vectors per class. The predicted rows are taken as dense
// as the training rows.
func memory(s methods.Shape, p Method) int64 {
	N := s.Rows + s.TestRows()
	nnz := s.NNZ
	if s.Rows > 0 {
		nnz = int(min(int64(s.NNZ)*int64(N)/int64(s.Rows), 1<<62))
	}
	k := p.K
	return methods.Bytes(s.CSRCopy(), methods.CSRBytes(N, nnz), methods.CSRBytes(s.Cols, nnz),
		methods.CSRBytes(N, N*k), methods.Times(2, methods.CSRBytes(N, 2*N*k)), methods.Floats(6, N, k),
		methods.Floats(max(s.Classes, 2)+6, N))
}
