//go:build !noasm && !gccgo && !safe

package optim

import "golang.org/x/sys/cpu"

// haveAsm reports whether the CPU runs the AVX2 and FMA kernels of
// kernels_amd64.s.
var haveAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// axpbyDotAsm sets dst = c·x + b·y, with b·y fused into the addition, and
// returns zᵀdst. x, y and z must be at least as long as dst; dst may be x.
//
//go:noescape
func axpbyDotAsm(dst, x []float64, c, b float64, y, z []float64) (dot float64)

// dotAsm returns xᵀy. y must be at least as long as x.
//
//go:noescape
func dotAsm(x, y []float64) (dot float64)

// pushAsm sets s = xp − x and y = gp − g and returns sᵀy, yᵀy and sᵀgp.
// All must be at least as long as s.
//
//go:noescape
func pushAsm(s, y, xp, x, gp, g []float64) (sy, yy, sgp float64)

// trialAsm sets xt = x + step·d, rounding the product, and reports whether
// xt differs from x. x and d must be at least as long as xt.
//
//go:noescape
func trialAsm(xt, x []float64, step float64, d []float64) (moved bool)

// steepestAsm sets dst = −g and returns −gᵀg. g must be at least as long
// as dst.
//
//go:noescape
func steepestAsm(dst, g []float64) (dg float64)

// maxAbsAsm returns maxⱼ |xⱼ| over the elements that are not NaN (0 if x
// is empty) and whether x holds a NaN.
//
//go:noescape
func maxAbsAsm(x []float64) (m float64, nan bool)

// maxAbsDivAsm returns maxⱼ |xⱼ/scaleⱼ| over the quotients that are not
// NaN and whether a quotient is NaN. scale must be at least as long as x.
//
//go:noescape
func maxAbsDivAsm(x, scale []float64) (m float64, nan bool)
