//go:build !amd64 || noasm || gccgo || safe

package logistic

// useAVX2 is false where there is no assembly.
var useAVX2 = false

func gatherAVX2(r []float64, ind []int32, val []float64, W []float64, C int) {
	panic("logistic: no assembly kernels")
}

func scatterAVX2(G []float64, ind []int32, val []float64, r []float64, a float64, C int) {
	panic("logistic: no assembly kernels")
}
