package elasticnet

import (
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
)

// memory (methods.Plugin.Memory): the problem (the columns as a CSR
// transpose with 32-bit row indices and a copy of the values, the
// scales), the solver's states (null model, path front, the restored
// state and the fit: K coefficient vectors over the columns and K linear
// predictors over the rows each) and work vectors, the stored path points
// (sparse, at most every coefficient each; with α = 1 at most one per row
// and class, as a lasso solution has) and Predict's scores.
//
// The path's length is nlambda (or the lambdas list); a lambda below the
// end of the path extends it, which the estimate does not foresee.
func memory(s methods.Shape, p param.Values) int64 {
	n, d := s.Rows, s.Cols
	classes := max(s.Classes, 2)
	K := s.Tasks()
	prob := methods.Bytes(s.CSRCopy(), methods.CSRBytes(d, s.NNZ), methods.Floats(s.NNZ), int64(s.NNZ)*4,
		methods.Floats(2, d), methods.Floats(n, classes))
	state := methods.Bytes(methods.Floats(K, d), methods.Floats(K, n), methods.Floats(2, d), methods.Floats(K))
	work := methods.Bytes(methods.Floats(4, n), methods.Floats(3, d))
	points := p.Int("nlambda")
	if l := p.Floats("lambdas"); len(l) > 0 {
		points = len(l)
	}
	nz := d
	if p.Float("alpha") == 1 {
		nz = min(d, n+1)
	}
	// Index and value per non-zero, and append's doubling.
	path := methods.Times(points, methods.Floats(4, K, nz))
	predict := methods.Floats(s.TestRows(), classes+K+1)
	return methods.Bytes(prob, methods.Times(5, state), methods.Times(2, work), methods.Floats(K+2, n),
		path, methods.Floats(K, d), predict)
}
