package pcapair

import (
	"github.com/repro-ml/repro/datasets/reduce"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/logistic"
	"github.com/repro-ml/repro/methods/optim"
)

// memory is the methods.Plugin.Memory of pca-pair: the PCA of the training
// rows (reduce.FitMemory), the projections of the training and predicted
// rows onto the components, and for each pair its two columns and a
// logistic regression on them, twice (the previous pair's model is
// garbage not yet collected while the next is fitted), plus the scatter
// plot's points.
func memory(s methods.Shape, p params) int64 {
	m := p.Components
	classes := max(s.Classes, 2)
	pair := methods.Bytes(methods.CSRBytes(s.Rows, 2*s.Rows),
		logistic.Bytes(s.Rows, 2, classes, optim.Settings{MaxIter: p.MaxIter}),
		methods.Floats(s.Rows, classes))
	return methods.Bytes(reduce.FitMemory(s.Rows, s.Cols, s.NNZ, m),
		methods.Floats(s.Rows, m), methods.Floats(s.TestRows(), m), methods.Floats(s.TestRows(), classes),
		methods.Times(2, pair), methods.Floats(2, s.Rows))
}
