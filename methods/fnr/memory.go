package fnr

import (
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/logistic"
	"github.com/repro-ml/repro/methods/optim"
)

// memory is the methods.Plugin.Memory of kind, with the dissimilarity
// graph of fnr (or none): the penalty matrices
// built from the graphs (with room for append's growth; the Laplacians
// symmetrize the graph first and keep the Laplacian too), the logistic regression over the graph's
// D weights per class, and a sparse copy of dense X.
func memory(kind penaltyKind, s methods.Shape, p commonParams, dissimilarity string) int64 {
	g := s.Graph(p.Graph)
	pen := methods.Times(2, methods.CSRBytes(g.Nodes, g.Edges+g.Nodes))
	switch kind {
	case kindLaplacian, kindNormalized:
		// symmetrized graph, edge incidence B and its transpose, the
		// Laplacian BᵀB (with its builder's growth), and the
		// preconditioner's scales and point.
		pen = methods.Bytes(methods.Times(3, methods.CSRBytes(g.Nodes, 2*g.Edges)), methods.Times(2, methods.CSRBytes(g.Edges, 2*g.Edges)),
			methods.Times(3, methods.CSRBytes(g.Nodes, 2*g.Edges+g.Nodes)), methods.Floats(2, g.Nodes+1, max(s.Classes, 2)))
	case kindNetwork:
		if q := dissimilarity; q != "" {
			qs := s.Graph(q)
			pen = methods.Bytes(pen, methods.Times(2, methods.CSRBytes(qs.Nodes, qs.Edges+qs.Nodes)))
		}
	}
	set := optim.Settings{MaxIter: p.MaxIter, GradTol: p.Tol, Memory: p.Memory}
	return methods.Bytes(pen, logistic.Bytes(s.Rows, max(g.Nodes, s.Cols), max(s.Classes, 2), set),
		s.CSRCopy(), methods.Floats(s.Rows), methods.Floats(s.TestRows(), max(s.Classes, 2)))
}
