package hp

import (
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/lsq"
)

// memHP (methods.Plugin.Memory): the covariance design, the active-set
// Newton systems (over at most every column) and the coefficient table.
// Each Newton step allocates its systems afresh (the Hessian, its shifted
// copy, the Cholesky factor and the line search's), and the previous
// steps' stay in the heap until the collector runs: measured peaks reach
// sixteen d×d matrices.
func memHP(s methods.Shape, _ hpParams) int64 {
	d := s.Cols
	return methods.Bytes(lsq.DesignBytes(s.Rows, d), methods.Floats(16, d, d), methods.Floats(10, d), lsq.TableBytes(d), methods.Floats(s.TestRows()))
}

// memKernelHP is memHP on the kernel design, n rows by one column per
// bandwidth and training row, plus the design itself and the artifacts:
// the whole design and its (K·n)×(K·n) covariance, which the solver
// needs (see kernelMethod).
func memKernelHP(s methods.Shape, p kernelParams) int64 {
	n := s.Rows
	D := len(p.Bandwidths) * n
	return methods.Bytes(methods.Floats(n, D), memHP(methods.Shape{Rows: n, Cols: D, Test: s.Test}, hpParams{}), methods.Floats(2, p.Grid, len(p.Bandwidths)+2))
}
