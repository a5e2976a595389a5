package elasticnet

import (
	"github.com/repro-ml/repro/methods"
)

// strongBound returns the strong-set size the memory estimate assumes and
// the path's kept points are budgeted by: min(d, 8·n·K) columns, n rows,
// K coefficient vectors. The strong set is not known before the path is
// solved; it is a small part of a wide problem's columns (the 20
// Newsgroups all-5-gram path, 20 classes, 7,542 rows, 12,154,110 columns,
// holds about 410,000 at λ = 0.0013, 2.7·n·K) and at most all of a narrow
// one's. A path whose strong set outgrows the bound uses more memory than
// estimated.
func strongBound(n, d, K int) int {
	if n > d/(8*max(K, 1)) {
		return d
	}
	return min(d, 8*n*K)
}

// memory (methods.Plugin.Memory): the problem (the columns as a CSR
// transpose with 32-bit row indices and a copy of the values, the scales
// and flags), four states (the null model, the path's front, the scratch
// state of a replay and the state a fit is solved in: K linear predictors
// over the rows, a gradient and a position index over the columns, and K
// coefficients and the bookkeeping of each strong column, the null model
// holding none) and a copy of the strong columns' non-zeros, three sets
// of work vectors, the residuals of a gradient,
// the path's kept points (at most K·strongBound coefficients at 12 bytes
// each, and a new point of at most as many before the oldest are
// dropped), the fitted coefficients and Predict's scores and dense
// coefficient vector; at α = 0, what merging identical columns allocates
// (mergeBytes).
//
// On a sparse training set wider than its present columns it is that of a
// fit on the present columns, plus their copy (methods.Shape.CompactShape).
func memory(s methods.Shape, p Params) int64 {
	s, compact := s.CompactShape()
	n, d := s.Rows, s.Cols
	classes := max(s.Classes, 2)
	K := s.Tasks()
	S := strongBound(n, d, K)
	prob := methods.Bytes(s.CSRCopy(), methods.CSRBytes(d, s.NNZ), methods.Floats(s.NNZ), int64(s.NNZ)*4,
		methods.Floats(2, d), methods.Floats(n, classes))
	// Per state: the gradient and the position index (12 bytes a column),
	// and per strong column its coefficients, column, ever entry and flag,
	// and the copy of its non-zeros (at most all of them).
	cols := methods.Bytes(methods.Floats(K, n), methods.Times(12, int64(d)), methods.Floats(K))
	strong := methods.Bytes(methods.Floats(K, S), methods.Times(17, int64(S)), methods.Times(12, int64(s.NNZ)))
	// Per work: nine vectors over the rows (three of them the line
	// search's copies), five over the strong positions.
	work := methods.Bytes(methods.Floats(9, n), methods.Floats(5, S))
	kept := methods.Times(24, int64(K)*int64(S))
	fitted := methods.Bytes(methods.Floats(K, S), methods.Times(4, int64(S)))
	predict := methods.Bytes(methods.Floats(s.TestRows(), classes+K+1), methods.Floats(d))
	var merge int64
	if p.Alpha == 0 {
		merge = mergeBytes(d, s.NNZ)
	}
	return methods.Bytes(compact, prob, methods.Times(4, cols), methods.Times(3, strong), methods.Times(3, work),
		methods.Floats(K+3, n), kept, fitted, predict, merge)
}
