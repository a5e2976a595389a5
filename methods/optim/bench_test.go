package optim

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// The size of the feature-network fits that motivate the kernels: 11,806
// features × 20 classes, with the default memory of 10 pairs.
const benchN, benchM = 236_000, 10

// benchLBFGS returns an L-BFGS state with a full history of random pairs
// (sᵀy > 0), a point, a trial point, a gradient and a trial gradient.
func benchLBFGS(n, m int) (l *lbfgs, x, xt, g, gt []float64) {
	r := rand.New(rand.NewPCG(5, 6))
	vec := func() []float64 {
		v := make([]float64, n)
		for j := range v {
			v[j] = r.NormFloat64()
		}
		return v
	}
	l = newLBFGS(n, m)
	x, g = vec(), vec()
	for range m {
		xp, gp := vec(), vec()
		for j := range xp {
			gp[j] = g[j] + 0.5*(xp[j]-x[j]) + 0.1*gp[j] // positive curvature
		}
		l.push(xp, x, gp, g)
		x, g = xp, gp
	}
	return l, x, vec(), g, vec()
}

// benchPaths runs f as a sub-benchmark on each path of forPaths.
func benchPaths(b *testing.B, f func(b *testing.B)) {
	forPaths(b, func(path string) { b.Run(path, f) })
}

// BenchmarkDirection times the two-loop recursion with a full memory.
func BenchmarkDirection(b *testing.B) {
	l, _, _, g, _ := benchLBFGS(benchN, benchM)
	benchPaths(b, func(b *testing.B) {
		b.SetBytes(8 * benchN)
		for b.Loop() {
			l.direction(g)
		}
	})
}

// BenchmarkMinimize times 30 iterations of Minimize (a full memory from the
// 11th) on a diagonal quadratic with curvatures from 1e-4 to 1, whose
// evaluation is one pass over four vectors: the rest is the O(n) passes of
// L-BFGS and the line search.
func BenchmarkMinimize(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	a, c := make([]float64, benchN), make([]float64, benchN)
	for j := range a {
		a[j] = math.Pow(10, -4*r.Float64())
		c[j] = r.NormFloat64()
	}
	f := quadratic(a, c)
	x0 := make([]float64, benchN)
	benchPaths(b, func(b *testing.B) {
		b.SetBytes(8 * benchN)
		for b.Loop() {
			res, err := Minimize(context.Background(), f, x0, Settings{MaxIter: 30, GradTol: 1e-14})
			if err != nil || res.Iterations != 30 {
				b.Fatalf("%d iterations, error %v; want 30 without error", res.Iterations, err)
			}
		}
	})
}

// BenchmarkPass times each O(n) pass of Minimize's iteration alone.
func BenchmarkPass(b *testing.B) {
	l, x, xt, g, gt := benchLBFGS(benchN, benchM)
	scale := make([]float64, benchN)
	for j := range scale {
		scale[j] = 1 + float64(j%7)
	}
	for _, bm := range []struct {
		name string
		f    func()
	}{
		{"subScaledDot", func() { subScaledDot(l.dir, g, 0.3, l.y[0], l.s[1]) }},
		{"subScaledDotInPlace", func() { subScaledDot(l.dir, l.dir, 1e-6, l.y[0], l.s[1]) }},
		{"scaleAddDot", func() { scaleAddDot(l.dir, 0.9, 0.3, l.s[0], l.y[1]) }},
		{"scaleAddDot1", func() { scaleAddDot(l.dir, 1, 0.3, l.s[0], l.y[1]) }},
		{"dot", func() { dot(g, l.s[0]) }},
		{"push", func() { l.push(xt, x, gt, g) }},
		{"trial", func() { l.trial(xt, x, 1e-3) }},
		{"steepest", func() { l.steepest(g) }},
		{"gradNorm", func() { gradNorm(g, nil) }},
		{"gradNormScaled", func() { gradNorm(g, scale) }},
	} {
		b.Run(bm.name, func(b *testing.B) {
			benchPaths(b, func(b *testing.B) {
				b.SetBytes(8 * benchN)
				for b.Loop() {
					bm.f()
				}
			})
		})
	}
}
