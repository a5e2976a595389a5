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
// coefficients) and the linear kernel's weights (and the linear solver's
// sparse copy of dense rows mostly zero); and Predict's inner
// products and kernel between a block of predicted rows and the support
// vectors (predictRows).
//
// The linear solver on a sparse training set wider than its present
// columns fits on those (methods.Shape.CompactShape).
func memory(s methods.Shape, p Params) int64 {
	fit := &SVM{CacheMB: p.CacheMB, Solver: p.Solver, Normalize: p.Normalize}
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
	default:
		work = methods.Bytes(min(fit.cacheBytes(), methods.Floats(n, n)), methods.Floats(4, n), methods.Floats(6, n), methods.Floats(d))
	}
	cross := methods.Bytes(methods.Floats(2, min(s.TestRows(), predictRows(n)), n), methods.Floats(min(s.TestRows(), predictRows(n)), d), kernel.DotsWork(s), methods.Floats(2, s.TestRows()))
	if p.Kernel == "linear" && !p.Normalize {
		cross = 0
	}
	return methods.Bytes(compact, work, methods.Floats(8, n), methods.Floats(s.Tasks(), d), methods.Times(s.Tasks(), sv), cross,
		methods.Floats(2, s.TestRows(), max(s.Classes, 2)))
}
