package lasso

import (
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/lsq"
)

// memLasso (methods.Plugin.Memory): the covariance design (dense X and its
// d×d Gram matrix), the solver's vectors and the coefficient table.
func memLasso(s methods.Shape, _ lassoParams) int64 {
	return methods.Bytes(lsq.DesignBytes(s.Rows, s.Cols), methods.Floats(4, s.Cols), lsq.TableBytes(s.Cols), methods.Floats(s.TestRows()))
}

// memGroupLasso adds to memLasso each group's Gram block, its
// eigenvectors and the factorization's workspace: at most three
// m×m arrays per group of m columns.
func memGroupLasso(s methods.Shape, _ groupParams) int64 {
	return methods.Bytes(memLasso(s, lassoParams{}), methods.Floats(3, max(s.MaxGroup, 1), s.Cols))
}
