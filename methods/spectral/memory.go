package spectral

import (
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/logistic"
	"github.com/repro-ml/repro/methods/optim"
)

// lanczosBytes estimates a Lanczos run for k eigenpairs of an operator of
// dimension n: a basis of about max(4k, k+200) vectors (never more than
// n), the tridiagonal matrix's eigenvectors and the k Ritz vectors.
func lanczosBytes(n, k int) int64 {
	steps := min(n, max(4*k, k+200))
	return methods.Bytes(methods.Floats(steps, n), methods.Floats(2, steps, steps), methods.Floats(k+4, n))
}

// projectionBytes estimates the logistic regression on k projected
// columns: the projection (d×k, twice while it is built), the projected
// training set dense and as a CSR, and the test rows projected.
func projectionBytes(s methods.Shape, k int, p Settings) int64 {
	set := optim.Settings{MaxIter: p.MaxIter, GradTol: p.Tol}
	return methods.Bytes(methods.Floats(2, s.Cols, k), methods.Floats(s.Rows, k), methods.CSRBytes(s.Rows, s.Rows*k),
		methods.Floats(s.TestRows(), k+max(s.Classes, 2)), logistic.Bytes(s.Rows, k, max(s.Classes, 2), set))
}

// memPCR (methods.Plugin.Memory): Lanczos on XXᵀ or XᵀX, whichever is
// smaller, the singular vectors over the columns and the projection.
func memPCR(s methods.Shape, p PCR) int64 {
	k := min(p.M, s.Rows, s.Cols)
	return methods.Bytes(s.CSRCopy(), lanczosBytes(min(s.Rows, s.Cols), k), methods.Floats(k+1, s.Cols), projectionBytes(s, k, p.Settings))
}

// memLLE: Lanczos over the graph's nodes, its row-normalized copy and the
// projection.
func memLLE(s methods.Shape, p LLE) int64 {
	g := s.Graph(p.Graph)
	k := min(p.M, g.Nodes)
	return methods.Bytes(lanczosBytes(g.Nodes, k), methods.Floats(g.Edges), methods.Floats(2, g.Nodes), projectionBytes(s, k, p.Settings))
}
