package med

import (
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
)

// memory (methods.Plugin.Memory). With select: features, the sparse rows,
// the solver's M×D switch and weight statistics and the artifacts' weight
// table and plot, all over the D columns; with kernels, the training
// inner products, one Gram matrix per base kernel (and their sum) and the
// kernel statistics; the projected Newton solver's T×T systems when it
// runs; and Predict's kernels between the predicted and training rows.
func memory(s methods.Shape, p param.Values) int64 {
	M, T, D := s.Tasks(), s.Rows, s.Cols
	test := s.TestRows()
	newton := p.String("solver") == "newton" || p.String("bias") == "flat" ||
		p.String("solver") == "auto" && p.Float("rho") != 1 && p.String("select") != "none"
	var solve int64
	if newton {
		solve = methods.Floats(3, T, T)
	}
	if p.String("select") == "features" {
		return methods.Bytes(methods.Floats(4, s.NNZ), methods.Floats(3, T), methods.Floats(M, T),
			methods.Floats(7*M+10, D), solve, methods.Floats(test, M+2))
	}
	k := len(p.Strings("kernels"))
	sv := methods.CSRBytes(T, s.NNZ)
	if s.Dense {
		sv = methods.Floats(T, D)
	}
	return methods.Bytes(methods.Floats(k+3, T, T), methods.Floats(M, k+2, T), solve, sv,
		methods.Floats(k+2, test, T), methods.Floats(test, M+2))
}
