package ddr

import (
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
)

// memory (methods.Plugin.Memory): the base learner's estimate on every
// column (the largest size a search reaches), a second model held while
// the search compares two sizes, the leading columns copied for a fit and
// for its score, and the L1 objective's probe (a unit vector per column,
// their decision values and the weights). Expected error predicts the
// unlabelled pool, taken as large as the predicted rows.
func memory(s methods.Shape, p param.Values) int64 {
	pl, err := methods.Lookup(base)
	if err != nil {
		return methods.DefaultMemory(s)
	}
	bp := baseParams(pl, p)
	cols := methods.CSRBytes(s.Rows, s.NNZ)
	if s.Dense {
		cols = methods.Floats(s.Rows, s.Cols)
	}
	classes := max(s.Classes, 2)
	probe := methods.Bytes(methods.CSRBytes(s.Cols+1, s.Cols), methods.Floats(s.Cols+1, classes), methods.Floats(s.Cols), methods.Floats(s.Rows))
	return methods.Bytes(pl.MemoryOf(s, bp), methods.Floats(s.Tasks(), s.Cols+1), methods.Times(2, cols), probe,
		methods.Floats(s.TestRows(), classes))
}
