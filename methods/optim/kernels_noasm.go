//go:build !amd64 || noasm || gccgo || safe

package optim

// haveAsm is false: there are no assembly kernels for this build, and the
// functions below are never called.
const haveAsm = false

const noAsm = "optim: no assembly kernels in this build"

func axpbyDotAsm(dst, x []float64, c, b float64, y, z []float64) float64 { panic(noAsm) }
func dotAsm(x, y []float64) float64                                      { panic(noAsm) }
func pushAsm(s, y, xp, x, gp, g []float64) (sy, yy, sgp float64)         { panic(noAsm) }
func trialAsm(xt, x []float64, step float64, d []float64) bool           { panic(noAsm) }
func steepestAsm(dst, g []float64) float64                               { panic(noAsm) }
func maxAbsAsm(x []float64) (float64, bool)                              { panic(noAsm) }
func maxAbsDivAsm(x, scale []float64) (float64, bool)                    { panic(noAsm) }
