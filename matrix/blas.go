package matrix

import "gonum.org/v1/gonum/blas"

const (
	blasNoTrans = blas.NoTrans
	blasTrans   = blas.Trans
)
