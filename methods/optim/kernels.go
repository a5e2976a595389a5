package optim

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// The O(n) passes of an L-BFGS iteration. On amd64 CPUs with AVX2 and FMA
// they run the assembly kernels of kernels_amd64.s, which read each vector
// once per pass: every update is fused with the inner products computed
// from its result, with four 256-bit accumulators. Elsewhere they run the
// Go code below; measured on 236,000-vectors, gonum's SSE assembly in two
// passes beats one fused pass of Go code by a quarter. The kernels use FMA
// and another summation order, so the two differ in the last bits.

// useAsm selects the assembly kernels. Tests clear it to run the Go code on
// the same machine.
var useAsm = haveAsm

// subScaledDot sets dst = src − a·y and returns nextᵀdst. dst may be src.
func subScaledDot(dst, src []float64, a float64, y, next []float64) float64 {
	n := len(dst)
	if useAsm {
		return axpbyDotAsm(dst, src[:n], 1, -a, y[:n], next[:n])
	}
	floats.AddScaledTo(dst, src, -a, y)
	return floats.Dot(next, dst)
}

// scaleAddDot sets dst = c·dst + b·s and returns nextᵀdst.
func scaleAddDot(dst []float64, c, b float64, s, next []float64) float64 {
	n := len(dst)
	if useAsm {
		return axpbyDotAsm(dst, dst, c, b, s[:n], next[:n])
	}
	if c != 1 {
		floats.Scale(c, dst)
	}
	floats.AddScaled(dst, b, s)
	return floats.Dot(next, dst)
}

// dot returns xᵀy.
func dot(x, y []float64) float64 {
	y = y[:len(x)]
	if useAsm {
		return dotAsm(x, y)
	}
	return floats.Dot(x, y)
}

// diffDots sets s = xp − x and y = gp − g and returns sᵀy, yᵀy and sᵀgp.
func diffDots(s, y, xp, x, gp, g []float64) (sy, yy, sgp float64) {
	n := len(s)
	y, xp, x, gp, g = y[:n], xp[:n], x[:n], gp[:n], g[:n]
	if useAsm {
		return pushAsm(s, y, xp, x, gp, g)
	}
	for j, v := range x {
		s[j], y[j] = xp[j]-v, gp[j]-g[j]
	}
	return floats.Dot(s, y), floats.Dot(y, y), floats.Dot(s, gp)
}

// addMoved sets xt = x + step·d and reports whether xt differs from x.
func addMoved(xt, x []float64, step float64, d []float64) bool {
	n := len(xt)
	x, d = x[:n], d[:n]
	if useAsm {
		return trialAsm(xt, x, step, d)
	}
	moved := false
	for j, v := range x {
		xt[j] = v + step*d[j]
		moved = moved || xt[j] != v
	}
	return moved
}

// negDot sets dst = −g and returns gᵀdst.
func negDot(dst, g []float64) float64 {
	g = g[:len(dst)]
	if useAsm {
		return steepestAsm(dst, g)
	}
	dg := 0.0
	for j, v := range g {
		dst[j] = -v
		dg -= v * v
	}
	return dg
}

// maxAbs returns ‖x‖∞ (NaN if x holds one). floats.Norm(x, Inf) is
// several times slower: it calls math.Max per element, and a convergence
// test computes it at every iteration on every weight.
func maxAbs(x []float64) float64 {
	if useAsm {
		m, nan := maxAbsAsm(x)
		if nan {
			return math.NaN()
		}
		return m
	}
	var m0, m1 float64
	nan := false
	j := 0
	for ; j+2 <= len(x); j += 2 {
		v0, v1 := math.Abs(x[j]), math.Abs(x[j+1])
		if v0 > m0 {
			m0 = v0
		}
		if v1 > m1 {
			m1 = v1
		}
		nan = nan || v0 != v0 || v1 != v1
	}
	for ; j < len(x); j++ {
		v := math.Abs(x[j])
		if v > m0 {
			m0 = v
		}
		nan = nan || v != v
	}
	if nan {
		return math.NaN()
	}
	return max(m0, m1)
}

// maxAbsDiv returns maxⱼ |xⱼ/scaleⱼ| (NaN if a quotient is one).
func maxAbsDiv(x, scale []float64) float64 {
	scale = scale[:len(x)]
	if useAsm {
		m, nan := maxAbsDivAsm(x, scale)
		if nan {
			return math.NaN()
		}
		return m
	}
	m := 0.0
	for j, v := range x {
		v = math.Abs(v / scale[j])
		if v > m {
			m = v
		} else if v != v {
			return v
		}
	}
	return m
}
