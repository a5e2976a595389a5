package elasticnet

import (
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
)

// memory (methods.Plugin.Memory): the problem (the columns as a CSR
// transpose with 32-bit row indices and a copy of the values, the scales),
// four dense states (the null model, the path's front, the scratch state
// of a replay and the state a fit is solved in: K coefficient vectors over
// the columns, K linear predictors over the rows and the per-column
// gradient, strong set and ever-active set each), the fit's
// coefficients, three sets of work vectors and the residuals, the path's
// kept points (at most K·d coefficients at 12 bytes each, and a new point
// of at most as many before the oldest are dropped) and Predict's scores.
//
// The path keeps only its front and the points asked for, within K·d
// coefficients (see path), so the estimate does not depend on the length
// of the path or the number of λ a selection asks for.
func memory(s methods.Shape, p param.Values) int64 {
	n, d := s.Rows, s.Cols
	classes := max(s.Classes, 2)
	K := s.Tasks()
	prob := methods.Bytes(s.CSRCopy(), methods.CSRBytes(d, s.NNZ), methods.Floats(s.NNZ), int64(s.NNZ)*4,
		methods.Floats(2, d), methods.Floats(n, classes))
	// A state's per-column vectors: the gradient, the strong set and the
	// ever-active columns (a list of ints and a membership flag), 18 bytes
	// a column at most.
	state := methods.Bytes(methods.Floats(K, d), methods.Floats(K, n), methods.Floats(3, d), methods.Floats(K))
	work := methods.Bytes(methods.Floats(6, n), methods.Floats(3, d))
	kept := methods.Times(24, int64(K)*int64(d))
	predict := methods.Floats(s.TestRows(), classes+K+1)
	return methods.Bytes(prob, methods.Times(4, state), methods.Floats(K, d), methods.Times(3, work),
		methods.Floats(K+2, n), kept, predict)
}
