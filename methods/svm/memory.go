package svm

import (
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
)

// memory (methods.Plugin.Memory): the training inner products and Gram
// matrix up to gramLimit rows (columns on demand beyond), the solver's
// vectors, per task the support vectors (at most every row) and the
// linear kernel's weights, and Predict's kernel between the predicted
// rows and the support vectors.
func memory(s methods.Shape, p param.Values) int64 {
	n, d := s.Rows, s.Cols
	kern := methods.Floats(2, d)
	if n <= gramLimit {
		kern = methods.Floats(2, n, n)
	}
	sv := methods.CSRBytes(n, s.NNZ)
	if s.Dense {
		sv = methods.Floats(n, d)
	}
	cross := methods.Floats(2, s.TestRows(), n)
	if p.String("kernel") == "linear" && !p.Bool("normalize") {
		cross = 0
	}
	return methods.Bytes(kern, methods.Floats(8, n), methods.Floats(s.Tasks(), d), methods.Times(s.Tasks(), sv), cross, methods.Floats(2, s.TestRows(), max(s.Classes, 2)))
}
