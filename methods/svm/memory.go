package svm

import (
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/kernel"
	"github.com/repro-ml/repro/param"
)

// memory (methods.Plugin.Memory): the training inner products and Gram
// matrix up to gramLimit rows (columns on demand beyond), with the dense
// row the inner products are taken against (kernel.DotsWork) and the row
// norms; the
// solver's vectors; per task the support vectors (at most every row, with
// their indices and coefficients) and the linear kernel's weights; and
// Predict's inner products and kernel between the predicted rows and the
// support vectors.
func memory(s methods.Shape, p param.Values) int64 {
	n, d := s.Rows, s.Cols
	kern := methods.Bytes(methods.Floats(2, n, n), kernel.DotsWork(s), methods.Floats(3, n))
	if n > gramLimit {
		kern = methods.Bytes(methods.Floats(2, d), methods.Floats(3, n))
	}
	sv := methods.Bytes(methods.CSRBytes(n, s.NNZ), methods.Floats(4, n))
	if s.Dense {
		sv = methods.Bytes(methods.Floats(n, d), methods.Floats(4, n))
	}
	cross := methods.Bytes(methods.Floats(2, s.TestRows(), n), kernel.DotsWork(s), methods.Floats(2, s.TestRows()))
	if p.String("kernel") == "linear" && !p.Bool("normalize") {
		cross = 0
	}
	return methods.Bytes(kern, methods.Floats(8, n), methods.Floats(s.Tasks(), d), methods.Times(s.Tasks(), sv), cross,
		methods.Floats(2, s.TestRows(), max(s.Classes, 2)))
}
