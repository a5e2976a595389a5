package linear

import (
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/optim"
)

// The memory estimates of the plugins (methods.Plugin.Memory).

// memLogRegL2: L-BFGS over d+1 (or K(d+1) for softmax) variables (and
// without an intercept dual coordinate descent's vectors), TRON's
// vectors over d+1 (and X squared), or Newton's dense copies of X and its
// Hessian;
// the margins; one weight vector per task.
// On a sparse training set wider than its present columns it is that of a
// fit on the present columns, plus their copy (methods.Shape.CompactShape);
// so for every estimate.
func memLogRegL2(s methods.Shape, p logRegL2) int64 {
	s, compact := s.CompactShape()
	return methods.Bytes(compact, memLogRegL2Fit(s, p))
}

func memLogRegL2Fit(s methods.Shape, p logRegL2) int64 {
	n, d := s.Rows, s.Cols
	model := methods.Floats(max(s.Classes, 1), d+1)
	scores := methods.Floats(2, s.TestRows(), max(s.Classes, 2))
	set := optim.Settings{MaxIter: p.MaxIter, GradTol: p.Tol}
	switch {
	case p.Multiclass == "softmax" && s.Classes > 2:
		return methods.Bytes(optim.Bytes(s.Classes*(d+1), set), methods.Floats(2, s.Classes, d+1), methods.Floats(2, s.Classes, n), model, scores)
	}
	// The last three d+1: the column norms, the preconditioner and the
	// unscaled point of fitBinary.
	lbfgs := methods.Bytes(optim.Bytes(d+1, set), methods.Floats(4, d+1), methods.Floats(2, n), model, scores)
	if !p.Intercept {
		// Dual coordinate descent (solver: dual, and auto's start):
		// the rows' squared norms, α and C − α, the rows' order, the
		// check's gradient and scratch, auto's start.
		lbfgs = methods.Bytes(lbfgs, methods.Floats(4, n), int64(n)*4, methods.Floats(2, d+1))
	}
	// TRON: its vectors, and on badly scaled columns (which the shape
	// does not tell) the preconditioner and X with its entries squared.
	sq := methods.Floats(s.NNZ) // squared values sharing X's structure
	if s.Dense {
		sq = methods.Floats(n, d)
	}
	tron := methods.Bytes(methods.Floats(10, d+1), methods.Floats(6, n), model, scores, sq)
	switch p.Solver {
	case "newton":
		// [X 1] and its rows scaled by √D, the Hessian, four vectors over
		// the rows and three over the coordinates.
		return methods.Bytes(methods.Floats(2, n, d+1), methods.Floats(d+1, d+1), methods.Floats(4, n), methods.Floats(4, d+1), model, scores)
	case "tron":
		return tron
	case "auto":
		if d <= autoTRONMaxCols {
			return max(lbfgs, tron)
		}
	}
	return lbfgs
}

// memLogRegL1: the column-major copy of X (a CSR transpose, or a dense
// transpose), newGLMNET's vectors over the coordinates and the rows, the
// explicit model Hessian of at most gramDim active coordinates (and, on
// sparse X, its active columns by rows), one weight vector per task.
func memLogRegL1(s methods.Shape, _ l1Params) int64 {
	s, compact := s.CompactShape()
	n, d := s.Rows, s.Cols
	cols := methods.Bytes(s.CSRCopy(), methods.CSRBytes(d, s.NNZ), int64(d))
	if s.Dense {
		cols = methods.Bytes(cols, methods.Floats(n, d))
	}
	g := gramDim(n, d)
	cols = methods.Bytes(cols, methods.Floats(g+2, g), methods.Floats(n), int64(d)*4)
	if !s.Dense {
		// The active columns by rows for the Hessian's build: positions
		// and values, row pointers, counts and fill pointers.
		cols = methods.Bytes(cols, int64(s.NNZ)*12, methods.Floats(2, n+1), int64(n)*4)
	}
	return methods.Bytes(compact, cols, methods.Floats(8, d+1), methods.Floats(9, n),
		methods.Floats(max(s.Classes, 1), d+1), methods.Floats(2, s.TestRows(), max(s.Classes, 2)))
}

// memRidge follows the solver: primal (dense A, d×d Gram, its shifted
// copy and Cholesky factor), kernel (dense A, three n×n) or conjugate
// gradients (vectors only), plus the design's column statistics.
func memRidge(s methods.Shape, p ridge) int64 {
	n, d := s.Rows, s.Cols
	solver := p.Solver
	if solver == "auto" {
		switch {
		case !s.Dense:
			solver = "cg"
		case d <= n:
			solver = "primal"
		default:
			solver = "kernel"
		}
	}
	base := methods.Bytes(methods.Floats(8, d), methods.Floats(4, n), methods.Floats(s.TestRows()))
	switch solver {
	case "primal":
		return methods.Bytes(base, methods.Floats(n, d), methods.Floats(3, d, d))
	case "kernel":
		return methods.Bytes(base, methods.Floats(n, d), methods.Floats(3, n, n))
	}
	return methods.Bytes(base, methods.Floats(4, d))
}
