//go:build !noasm && !gccgo && !safe

package logistic

import "golang.org/x/sys/cpu"

// useAVX2 selects the assembly kernels; tests turn it off to check the
// Go ones.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func gatherAVX2(r []float64, ind []int32, val []float64, W []float64, C int)

//go:noescape
func scatterAVX2(G []float64, ind []int32, val []float64, r []float64, a float64, C int)
