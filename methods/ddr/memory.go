package ddr

import (
	"github.com/repro-ml/repro/methods"
)

// memory returns the methods.Plugin.Memory of a method with rule r. A
// search (ddr, ee) needs the base learner's estimate on every column (the
// largest size it reaches) twice, since a fit's solver state is garbage
// not yet collected while the next size is fitted; a second model held
// while it compares two sizes; the leading columns copied for the two fits
// and their scores (four copies of X at most); and the L1 objective's
// probe (a unit vector per column, their decision values and the
// weights). Expected error predicts the unlabelled pool, taken as large
// as the training or the predicted rows. incr fits once: the base
// learner's estimate and one copy of X.
func memory(r rule) func(s methods.Shape, p params) int64 {
	return func(s methods.Shape, p params) int64 {
		pl, err := methods.Lookup(base)
		if err != nil {
			return methods.DefaultMemory(s)
		}
		fit := pl.MemoryOf(s, baseParams(pl, p))
		cols := methods.CSRBytes(s.Rows, s.NNZ)
		if s.Dense {
			cols = methods.Floats(s.Rows, s.Cols)
		}
		if r == incremental {
			return methods.Bytes(fit, cols)
		}
		classes := max(s.Classes, 2)
		probe := methods.Bytes(methods.CSRBytes(s.Cols+1, s.Cols), methods.Floats(s.Cols+1, classes), methods.Floats(s.Cols), methods.Floats(s.Rows))
		return methods.Bytes(methods.Times(2, fit), methods.Floats(s.Tasks(), s.Cols+1), methods.Times(4, cols), probe,
			methods.Floats(2, max(s.Rows, s.TestRows()), classes))
	}
}
