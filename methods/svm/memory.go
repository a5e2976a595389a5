package svm

import (
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/kernel"
)

// memory (methods.Plugin.Memory). The kernel solver holds the training
// inner products and Gram matrix when both fit in the cache (cache_mb),
// else the cache's columns (at most the cache, at most n×n), four spare
// columns it recycles, the positions, norms and diagonal of the columns
// and a dense row; the linear solver holds the weights and its
// coordinates' order and norms, and, when useIPM, the
// interior-point start's vectors and p×p matrices. Both hold the solver's vectors; per task
// the support vectors (at most every row, with their indices and
// coefficients; one-vs-one's K(K−1)/2 pairs hold each row in K−1 of
// them, and copy a pair's block of the Gram matrix) and the linear kernel's weights (and the linear solver's
// sparse copy of dense rows mostly zero); and Predict's inner
// products and kernel between a block of predicted rows and the support
// vectors (predictRows).
//
// The linear solver on a sparse training set wider than its present
// columns fits on those (methods.Shape.CompactShape).
func memory(s methods.Shape, p Params) int64 {
	fit := &SVM{CacheMB: p.CacheMB, Solver: p.Solver, Normalize: p.Normalize, Multi: p.Multi}
	if p.Kernel == "linear" {
		fit.Kernel = kernel.Kernel{Kind: kernel.Linear}
	} else {
		fit.Kernel = kernel.Kernel{Kind: kernel.RBF}
	}
	compact := int64(0)
	if fit.linear() {
		s, compact = s.CompactShape()
	}
	n, d := s.Rows, s.Cols
	sv := methods.Bytes(methods.CSRBytes(n, s.NNZ), methods.Floats(4, n))
	if s.Dense {
		sv = methods.Bytes(methods.Floats(n, d), methods.Floats(4, n))
	}
	var work int64
	switch {
	case fit.linear():
		work = methods.Bytes(methods.Floats(3, n), s.CSRCopy())
		if useIPM(n, d) { // the interior-point start
			work = methods.Bytes(work, methods.Floats(13, n), methods.Floats(3, d+1, d+1), methods.Floats(5, d+1))
		}
	case gramFits(n, fit.cacheBytes()):
		work = methods.Bytes(methods.Floats(2, n, n), kernel.DotsWork(s), methods.Floats(3, n))
		if s.Classes > 2 && fit.scheme() == "ovo" { // a pair's Gram matrix, copied out
			work = methods.Bytes(work, methods.Floats(n, n))
		}
	default:
		work = methods.Bytes(min(fit.cacheBytes(), methods.Floats(n, n)), methods.Floats(4, n), methods.Floats(6, n), methods.Floats(d))
	}
	cross := methods.Bytes(methods.Floats(2, min(s.TestRows(), predictRows(n)), n), methods.Floats(min(s.TestRows(), predictRows(n)), d), kernel.DotsWork(s), methods.Floats(2, s.TestRows()))
	if p.Kernel == "linear" && !p.Normalize {
		cross = 0
	}
	weights := methods.Floats(s.Tasks(), d)
	if s.Classes > 2 && fit.scheme() == "ovo" { // a weight vector per pair
		weights = methods.Floats(s.Classes*(s.Classes-1)/2, d)
	}
	return methods.Bytes(compact, work, methods.Floats(8, n), weights, methods.Times(s.Tasks(), sv), cross,
		methods.Floats(2, s.TestRows(), max(s.Classes, 2)))
}
